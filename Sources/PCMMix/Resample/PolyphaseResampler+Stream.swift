// The streaming loop of ``PolyphaseResampler``.
//
// One channel's plane of history (every channel has its own, `stride` floats apart):
//
//     plane:   [ kept history .............. | input taken this call ...... |   room   ]
//              0          position                                   count       capacity
//                         ├──── taps ────┤  one output's window
//                         group.start ├─ offsets[i] ─┤ lane i's window, with groups
//
// An output can be written once its window is complete: `position + taps <= count`. Its
// coefficients are the row for its phase (1/`up` of an input sample); the next output starts
// `down / up` whole samples and `down % up` phases later. With the sixteen-output group tables,
// outputs go sixteen at a time: a group's lanes read from `group.start + offsets[lane]`, and
// which outputs form a group is fixed by their index since the start, so any split of the
// input gives the same bits.
//
// Each call repeats three steps until its output is full or its input is used up:
//   1. write  every output whose window is complete (`writeGroups` / `writeSingles`);
//   2. slide  the history from `position` (a group's start) to the front (`slide`);
//   3. take   as much input as fits after it (`take`).
// When downsampling, `position` may run past `count`: the samples it skips are never needed,
// and `slide` steps over them without copying.

extension PolyphaseResampler {
  /// Where the loop stands within one call (see the picture above).
  struct _Loop {
    var count: Int
    var position: Int
    var phase: Int
    var group: GroupCursor
    var consumed = 0
    var produced = 0
  }

  /// What the steps need of the resampler: its shape, read once so that the steps touch no
  /// property of it while its history is borrowed.
  struct _Shape {
    let taps: Int
    let channels: Int
    let stride: Int
    let capacity: Int
    let up: Int
    let down: Int
  }

  /// Feeds `frames` frames (zeros when `input` is nil) and writes up to `limit` outputs.
  mutating func _run(
    _ input: UnsafePointer<Float>?, frames: Int, output: UnsafeMutableBufferPointer<Float>,
    limit: Int
  ) -> (consumed: Int, produced: Int) {
    let context = KernelContext(bank!, kernel, up: up)
    let room = min(output.count / channelCount, limit)
    let shape = _Shape(
      taps: bank!.taps, channels: channelCount, stride: stride, capacity: capacity, up: up,
      down: down)
    let groups = self.groups
    let view = groups.map(GroupView.init)
    var loop = _Loop(
      count: count, position: position, phase: phase,
      group: GroupCursor(
        groups, framesOut: framesOut, position: position, phase: phase, up: up, down: down))
    history.withUnsafeMutableBufferPointer { planes in
      let base = planes.baseAddress!
      guard let out = output.baseAddress else { return }
      while true {
        // 1. Write.
        if let view {
          shape.writeGroups(view, context, base, out, room, &loop)
        } else if let upsampleTable {
          shape.writeUpsampled(context, upsampleTable, base, out, room, &loop)
        } else {
          shape.writeSingles(context, base, out, room, &loop)
        }
        if loop.produced == room || loop.consumed == frames { break }
        // 2. Slide, and 3. take.
        guard shape.slide(base, frames, &loop) else { continue }
        shape.take(input, base, frames, &loop)
      }
    }
    if let groups {
      (loop.position, loop.phase) = loop.group.output(groups, up: up, down: down)
    }
    (count, position, phase) = (loop.count, loop.position, loop.phase)
    framesOut += loop.produced
    return (loop.consumed, loop.produced)
  }
}

extension PolyphaseResampler._Shape {

  /// Step 1, grouped: sixteen outputs at a time while their windows are complete. What is ready
  /// goes table by table, several groups of one table at a time where the kernel can
  /// (`_tableMajorGroups`, which also takes the part-written groups at both ends); when too
  /// little is ready for that, one group, or what is ready of it, alone.
  @inline(__always)
  func writeGroups(
    _ groups: GroupView, _ context: KernelContext, _ base: UnsafeMutablePointer<Float>,
    _ out: UnsafeMutablePointer<Float>, _ room: Int, _ loop: inout PolyphaseResampler._Loop
  ) {
    let lanes = GroupTables.lanes
    let scratch = base + stride * channels
    while loop.produced < room {
      loop.produced += _tableMajorGroups(
        groups, context, base, stride, channels, taps: taps, count: loop.count,
        out + loop.produced * channels, room: room - loop.produced, scratch: scratch, &loop.group)
      if loop.produced == room { break }
      let offsets = groups.offsets + loop.group.table * (lanes + 1)
      let most = min(lanes - loop.group.lane, room - loop.produced)
      var n = 0
      while n < most && loop.group.start + Int(offsets[loop.group.lane + n]) + taps <= loop.count {
        n += 1
      }
      if n == 0 { break }
      context.group16(
        groups.tables + loop.group.table * groups.width * lanes, groups.width,
        base + loop.group.start, stride, channels, out + loop.produced * channels,
        loop.group.lane, n)
      loop.produced += n
      loop.group.advance(n, groups)
    }
    loop.position = loop.group.start
  }

  /// Step 1, upsampling in direct form: every output whose window is complete and that fits,
  /// in one call of the kernel's function (`DotKernel.upsampleRun`).
  @inline(__always)
  func writeUpsampled(
    _ context: KernelContext, _ table: UpsampleTable, _ base: UnsafeMutablePointer<Float>,
    _ out: UnsafeMutablePointer<Float>, _ room: Int, _ loop: inout PolyphaseResampler._Loop
  ) {
    // Output j from here starts its window (phase + j·down) / up samples after `position`; it
    // is complete while that is at most `last`.
    let last = loop.count - taps - loop.position
    guard last >= 0, let run = context.upsampleRun else { return }
    let n = min(((last + 1) * up - loop.phase + down - 1) / down, room - loop.produced)
    guard n > 0 else { return }
    // The kernel counts outputs within runs of `up` (p: phase p·down mod up); ours has phase
    // `loop.phase`, so p solves p·down ≡ phase (mod up).
    var p = 0
    while p * down % up != loop.phase { p += 1 }
    run(
      table.coefficients, table.steps, up, down, base + loop.position, stride, channels, p, n,
      out + loop.produced * channels)
    loop.produced += n
    let next = loop.phase + n * down
    loop.position += next / up
    loop.phase = next % up
  }

  /// Step 1, one output at a time (interpolated tables, Double accumulation).
  @inline(__always)
  func writeSingles(
    _ context: KernelContext, _ base: UnsafeMutablePointer<Float>,
    _ out: UnsafeMutablePointer<Float>, _ room: Int, _ loop: inout PolyphaseResampler._Loop
  ) {
    let (stepWhole, stepFraction) = (down / up, down % up)
    while loop.position + taps <= loop.count && loop.produced < room {
      _kernel(
        context, phase: loop.phase, base + loop.position, stride, channels,
        out + loop.produced * channels)
      loop.produced += 1
      loop.position += stepWhole
      loop.phase += stepFraction
      if loop.phase >= up {
        loop.phase -= up
        loop.position += 1
      }
    }
  }

  /// Step 2: moves the history from the next window (with groups, its group's start) to the
  /// front of the planes; what falls free at the end is zeroed, so whatever a group's dropped
  /// lanes read there is finite. When downsampling skipped past everything held, the input it
  /// skips is consumed unread; returns `false` when that used up the input there is.
  @inline(__always)
  func slide(
    _ base: UnsafeMutablePointer<Float>, _ frames: Int, _ loop: inout PolyphaseResampler._Loop
  ) -> Bool {
    let keep = min(loop.position, loop.count)
    if keep > 0 {
      _slidePlanes(base, stride: stride, channels: channels, count: loop.count, by: keep)
      loop.count -= keep
      loop.position -= keep
      loop.group.start -= keep
    }
    if loop.position > loop.count {
      let skip = min(loop.position - loop.count, frames - loop.consumed)
      loop.consumed += skip
      loop.position -= skip
      loop.group.start -= skip
      if loop.position > loop.count { return false }
    }
    return true
  }

  /// Step 3: copies as much input as fits after the history (zeros when `input` is nil).
  @inline(__always)
  func take(
    _ input: UnsafePointer<Float>?, _ base: UnsafeMutablePointer<Float>, _ frames: Int,
    _ loop: inout PolyphaseResampler._Loop
  ) {
    let n = min(capacity - loop.count, frames - loop.consumed)
    _fillPlanes(
      base, stride: stride, channels: channels, at: loop.count,
      from: input.map { $0 + loop.consumed * channels }, frames: n)
    loop.count += n
    loop.consumed += n
  }
}

/// Where the grouped loop stands: the table of the current group of sixteen outputs, the input
/// position of its first window, and the lane of the next output in it.
struct GroupCursor {
  var table = 0
  var start = 0
  var lane = 0

  /// The cursor of output `framesOut`, which sits at `position` and `phase`.
  init(_ groups: GroupTables?, framesOut: Int, position: Int, phase: Int, up: Int, down: Int) {
    guard let groups else { return }
    lane = framesOut % GroupTables.lanes
    let back = lane * down
    let q = ((phase - back % up) % up + up) % up
    table = Int(groups.tableOfPhase[q])
    precondition(table >= 0, "output \(framesOut) is not in a known group")
    start = position - (q + back) / up
  }

  /// Moves past `n` outputs.
  @inline(__always)
  mutating func advance(_ n: Int, _ groups: GroupView) {
    lane += n
    if lane == GroupTables.lanes {
      start += Int(groups.offsets[table * (GroupTables.lanes + 1) + lane])
      table = Int(groups.next[table])
      lane = 0
    }
  }

  /// The next output's window position and phase.
  func output(_ groups: GroupTables, up: Int, down: Int) -> (position: Int, phase: Int) {
    let offsets = groups.offsets + table * (GroupTables.lanes + 1)
    return (start + Int(offsets[lane]), (Int(groups.startPhase[table]) + lane * down) % up)
  }
}

/// Every output whose window is complete and that fits in `room`, computed table by table (all
/// the groups of table 0, then of table 1, ...) when some table has two or more whole groups
/// ready, so that each table is read from the cache once per call instead of once per cycle (the
/// tables together can outgrow the L1 cache: 127 KB for 44.1 → 48 kHz; one alone does not), and
/// a kernel that computes several groups of one table in a pass can.
///
/// The run may start inside a group (`group.lane` lanes of it written by the call before) and end
/// inside one (the lanes whose windows are complete). Those two are computed whole with the
/// others of their table, into `scratch` (two groups of every channel), and only their lanes
/// that are due are copied out; so a call's edges cost no lone group, which the kernels compute
/// on fewer accumulator chains and so at a fraction of the speed. Each output gets exactly what
/// the in-order loop would compute. Returns the frames written (0 when no table has two whole
/// groups ready, for the in-order loop); moves `group` past them.
func _tableMajorGroups(
  _ groups: GroupView, _ context: KernelContext, _ base: UnsafeMutablePointer<Float>,
  _ stride: Int, _ channels: Int, taps: Int, count: Int, _ out: UnsafeMutablePointer<Float>,
  room: Int, scratch: UnsafeMutablePointer<Float>, _ group: inout GroupCursor
) -> Int {
  let lanes = GroupTables.lanes
  let cycle = groups.count
  let advance = groups.cycleAdvance
  let skip = group.lane
  let most = (room + skip) / lanes
  func step(_ start: inout Int, _ table: inout Int) {
    start += Int(groups.offsets[table * (lanes + 1) + lanes])
    table = Int(groups.next[table])
  }
  // Whole cycles ready: the last group of the first cycle starts furthest in, and each cycle
  // after it `advance` further.
  var (last, table) = (group.start, group.table)
  for _ in 1..<cycle { step(&last, &table) }
  var full = last + groups.width <= count ? (count - groups.width - last) / advance + 1 : 0
  full = min(full, most / cycle)
  // Then the groups of the next cycle that are ready too.
  var partial = 0
  var (next, nextTable) = (group.start + full * advance, group.table)
  while partial < cycle && full * cycle + partial < most && next + groups.width <= count {
    step(&next, &nextTable)
    partial += 1
  }
  let whole = full * cycle + partial
  guard whole > cycle else { return 0 }
  // Then the lanes of the group after them whose windows are complete, where room remains.
  let written = whole * lanes - skip
  let nextOffsets = groups.offsets + nextTable * (lanes + 1)
  var tail = 0
  while tail < min(lanes - 1, room - written) && next + Int(nextOffsets[tail]) + taps <= count {
    tail += 1
  }
  let (head, end) = (scratch, scratch + lanes * channels)
  var (start, t) = (group.start, group.table)
  for i in 0..<cycle {
    let n = full + (i < partial ? 1 : 0) + (i == partial && tail > 0 ? 1 : 0)
    if n > 0 {
      context.groups16(
        groups.tables + t * groups.width * lanes, groups.width, base + start, advance, stride,
        channels, out + (i * lanes - skip) * channels, cycle * lanes * channels, count: n,
        first: i == 0 && skip > 0 ? head : nil, last: i == partial && tail > 0 ? end : nil)
    }
    step(&start, &t)
  }
  if skip > 0 {
    out.update(from: head + skip * channels, count: (lanes - skip) * channels)
  }
  (out + written * channels).update(from: end, count: tail * channels)
  (group.start, group.table, group.lane) = (next, nextTable, tail)
  return written + tail
}
