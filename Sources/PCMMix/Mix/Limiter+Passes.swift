import CPCMMixCore

// The limiter's two inner loops: the fast path (the delay-line swap) and the per-frame path
// (steps 1-4 of the type's comment).
extension Limiter {
  /// Passes `n` frames at `p` through the delay line: the fast path's whole work. From a block
  /// of at least W frames the line's W frames come out first, the block moves up by W, and its
  /// last W frames become the line (through the spare W frames after it); a shorter block swaps
  /// with the line's ring in place.
  @inline(__always)
  mutating func _delay(
    _ p: UnsafeMutablePointer<Float>, _ n: Int, _ line: UnsafeMutablePointer<Float>
  ) {
    let w = lookahead
    guard w > 0 else { return }
    let ch = channels
    if n >= w {
      let spare = line + w * ch
      spare.update(from: p + (n - w) * ch, count: w * ch)
      // Overlapping, moving up: `update` copies back to front then.
      (p + w * ch).update(from: p, count: (n - w) * ch)
      let first = w - delayPosition
      p.update(from: line + delayPosition * ch, count: first * ch)
      (p + first * ch).update(from: line, count: delayPosition * ch)
      line.update(from: spare, count: w * ch)
      delayPosition = 0
      return
    }
    var i = 0
    while i < n {
      let k = min(n - i, w - delayPosition)
      _swap(p + i * ch, line + delayPosition * ch, k * ch)
      i += k
      delayPosition += k
      if delayPosition == w { delayPosition = 0 }
    }
  }

  /// The per-frame path: peak, held minimum, release, exact average, delay, gain.
  @inline(__always)
  mutating func _limit(
    _ p: UnsafeMutablePointer<Float>, _ n: Int, _ ch: Int, _ line: UnsafeMutablePointer<Float>,
    _ qi: UnsafeMutablePointer<Int>, _ qv: UnsafeMutablePointer<Float>,
    _ b: UnsafeMutablePointer<Int64>
  ) {
    let w = lookahead
    let size = window
    let c = ceiling
    let a = releaseFactor
    let boxLength = w + 1
    let full = Int64(Self.unit) * Int64(boxLength)
    // Just below 1 / full: the product with any sum is at most the exact mean, so rounding it
    // (monotonic) cannot pass a Float the mean is at most.
    let reciprocal = (1 / Double(full)).nextDown
    var head = queueHead
    var held = heldGain
    var count = queueCount
    var index = frameIndex
    var gap = releaseGap
    var sum = boxSum
    var bp = boxPosition
    var dp = delayPosition
    var g: Float = gain
    var lowest = minimumGain
    var reduced = reducedSamples
    for f in 0..<n {
      let x = p + f * ch
      var peak: Float = 0
      for k in 0..<ch {
        let v = x[k]
        if v.isFinite {
          peak = max(peak, abs(v))
        } else {
          x[k] = 0
        }
      }
      // The queue holds peaks (decreasing from the front); the held gain is the front's r,
      // worked out only when the front changes, so the comparisons wait on no division.
      var newFront = false
      if count > 0 && qi[head] <= index - size {
        head += 1
        if head == size { head = 0 }
        count -= 1
        newFront = true
      }
      if peak > c {
        while count > 0 {
          var back = head + count - 1
          if back >= size { back -= size }
          if qv[back] > peak { break }
          count -= 1
        }
        var slot = head + count
        if slot >= size { slot -= size }
        qi[slot] = index
        qv[slot] = peak
        count += 1
        if count == 1 { newFront = true }
      }
      if newFront && count > 0 {
        let top = qv[head]
        // One step down from the rounded quotient is below the exact one, so the product
        // cannot round past the ceiling (a select, not a branch).
        let r = c / top
        let below = r > 0 ? Float(bitPattern: r.bitPattern &- 1) : 0
        held = Double(r * top > c ? below : r)
      }
      index &+= 1
      // The release works on the distance from 1 (one multiply per frame on the carried
      // chain); the held minimum pushes it out again.
      gap *= a
      if gap < Self.snap { gap = 0 }
      var e = 1 - gap
      if count > 0 {
        gap = max(gap, 1 - held)
        e = min(1 - gap, held)
      }
      let q = Int64(e * Self.unit)
      sum &+= q &- b[bp]
      b[bp] = q
      bp += 1
      if bp == boxLength { bp = 0 }
      g = sum == full ? 1 : Float(Double(sum) * reciprocal)
      if w > 0 {
        let d = line + dp * ch
        for k in 0..<ch {
          let out = d[k]
          d[k] = x[k]
          x[k] = out * g
        }
        dp += 1
        if dp == w { dp = 0 }
      } else {
        for k in 0..<ch { x[k] *= g }
      }
      if g < 1 {
        reduced += ch
        lowest = min(lowest, g)
      }
    }
    queueHead = head
    heldGain = held
    queueCount = count
    frameIndex = index
    releaseGap = gap
    boxSum = sum
    boxPosition = bp
    delayPosition = dp
    gain = g
    minimumGain = lowest
    reducedSamples = reduced
  }
}

/// The largest magnitude's bit pattern among `count` floats, as Int32: NaN and infinity
/// compare above every finite magnitude, so one comparison with a ceiling's bits also catches
/// them.
/// (In C, `pcmmix_core_max_magnitude_bits`: as SIMD8<Int32> code it cost a Debug build a call
/// per operation.)
@inline(__always)
func _maxMagnitudeBits(_ p: UnsafePointer<Float>, _ count: Int) -> Int32 {
  Int32(pcmmix_core_max_magnitude_bits(p, count))
}

/// Exchanges `count` floats between `a` and `b` (not overlapping).
@inline(__always)
func _swap(_ a: UnsafeMutablePointer<Float>, _ b: UnsafeMutablePointer<Float>, _ count: Int) {
  let ra = UnsafeMutableRawPointer(a)
  let rb = UnsafeMutableRawPointer(b)
  var i = 0
  while i + 8 <= count {
    let x = ra.loadUnaligned(fromByteOffset: i * 4, as: SIMD8<Float>.self)
    let y = rb.loadUnaligned(fromByteOffset: i * 4, as: SIMD8<Float>.self)
    ra.storeBytes(of: y, toByteOffset: i * 4, as: SIMD8<Float>.self)
    rb.storeBytes(of: x, toByteOffset: i * 4, as: SIMD8<Float>.self)
    i += 8
  }
  while i < count {
    let t = a[i]
    a[i] = b[i]
    b[i] = t
    i += 1
  }
}
