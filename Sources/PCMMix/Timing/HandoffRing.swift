import CPCMMixAtomics

/// A bounded single-producer, single-consumer queue of capture buffers: each record is a fixed
/// header (description, stamp, byte count) and the buffer's bytes, copied in by the capture
/// callback and out by the pull. Neither side ever waits: the producer finds no room and drops
/// the buffer (the caller counts it), the consumer finds nothing and goes on.
///
/// ```
///  storage (capacity bytes, used as a ring)
///  ┌──────────┬──────────────┬──────────┬────────┬──────────────────────┐
///  │ header A │ bytes of A   │ header B │ B …    │        free          │
///  └──────────┴──────────────┴──────────┴────────┴──────────────────────┘
///  ▲ read (the pull's)                            ▲ write (the callback's)
/// ```
/// `write` and `read` count bytes since creation; each is stored by its own side with release
/// order and loaded by the other with acquire order, so a record's bytes are complete before the
/// consumer can see them, and its room is free before the producer can reuse it.
final class HandoffRing: @unchecked Sendable {
  /// What precedes a buffer's bytes.
  struct Header {
    var description: StreamDescription
    var timeValue: Int64
    var timescale: Int32
    /// ``Kind``'s raw value.
    var kind: Int32
    var byteCount: Int
  }

  enum Kind: Int32 {
    case buffer = 0
    case stampedBuffer = 1
    /// The end of the source's stream (``ClockedCapturePipeline/finish(_:)``).
    case finish = 2
  }

  let capacity: Int
  private let storage: UnsafeMutableRawPointer
  /// `write` at word 0 and `read` at word 8: a cache line apart.
  private let indices: UnsafeMutablePointer<Int>

  /// Header bytes, rounded up to 8.
  static let headerBytes = (MemoryLayout<Header>.size + 7) / 8 * 8

  init(capacity: Int) {
    self.capacity = capacity
    storage = .allocate(byteCount: capacity, alignment: 16)
    indices = .allocate(capacity: 16)
    indices.initialize(repeating: 0, count: 16)
  }

  deinit {
    storage.deallocate()
    indices.deallocate()
  }

  /// The most bytes one buffer may have.
  var largestPayload: Int { capacity - Self.headerBytes }

  /// Bytes queued.
  var queuedBytes: Int {
    pcmmix_load_acquire(indices) - pcmmix_load_acquire(indices + 8)
  }

  /// Producer: queues `header` and the bytes of `planes`, back to back in one payload (a planar
  /// buffer given as separate planes arrives as its planes one after another); `false` when
  /// there is no room. Allocates nothing.
  func push(_ header: Header, _ planes: PCMPlanes) -> Bool {
    let total = Self.headerBytes + (planes.byteCount + 7) / 8 * 8
    let write = pcmmix_load_relaxed(indices)
    let read = pcmmix_load_acquire(indices + 8)
    guard total <= capacity - (write - read) else { return false }
    var h = header
    withUnsafeBytes(of: &h) { copyIn($0, at: write) }
    for p in 0..<planes.count {
      copyIn(planes.segment(p), at: write + Self.headerBytes + p * planes.planeBytes)
    }
    pcmmix_store_release(indices, write + total)
    return true
  }

  /// Consumer: the oldest record's header, its bytes copied into `payload` (room for
  /// ``largestPayload``); `nil` when the ring is empty.
  func pop(into payload: UnsafeMutableRawPointer) -> Header? {
    let read = pcmmix_load_relaxed(indices + 8)
    let write = pcmmix_load_acquire(indices)
    guard write != read else { return nil }
    var h = Header(
      description: StreamDescription(
        sampleRate: 0, formatID: 0, formatFlags: 0, bytesPerPacket: 0, framesPerPacket: 0,
        bytesPerFrame: 0, channelsPerFrame: 0, bitsPerChannel: 0),
      timeValue: 0, timescale: 0, kind: 0, byteCount: 0)
    withUnsafeMutableBytes(of: &h) { copyOut($0, from: read) }
    copyOut(
      UnsafeMutableRawBufferPointer(start: payload, count: h.byteCount),
      from: read + Self.headerBytes)
    pcmmix_store_release(indices + 8, read + Self.headerBytes + (h.byteCount + 7) / 8 * 8)
    return h
  }

  /// Copies `bytes` into the ring at byte count `index`, wrapping at the end.
  private func copyIn(_ bytes: UnsafeRawBufferPointer, at index: Int) {
    guard let src = bytes.baseAddress, !bytes.isEmpty else { return }
    let at = index % capacity
    let first = min(bytes.count, capacity - at)
    (storage + at).copyMemory(from: src, byteCount: first)
    if first < bytes.count { storage.copyMemory(from: src + first, byteCount: bytes.count - first) }
  }

  /// Copies from the ring at byte count `index` into `bytes`, wrapping at the end.
  private func copyOut(_ bytes: UnsafeMutableRawBufferPointer, from index: Int) {
    guard let dst = bytes.baseAddress, !bytes.isEmpty else { return }
    let at = index % capacity
    let first = min(bytes.count, capacity - at)
    dst.copyMemory(from: storage + at, byteCount: first)
    if first < bytes.count {
      (dst + first).copyMemory(from: storage, byteCount: bytes.count - first)
    }
  }
}
