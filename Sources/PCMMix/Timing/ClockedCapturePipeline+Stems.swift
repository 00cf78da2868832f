// Each source as it enters the mix, on the timeline: what `pcm-mix --stems` writes.
extension ClockedCapturePipeline {
  /// Each source's frames as they enter the mix (placed, faded, at their gain, the echo
  /// cancelled), from timeline position ``position`` on, until taken.
  struct Stems {
    var position: Int?
    var app: [Float] = []
    var mic: [Float] = []

    /// Frames `k ..< k + frames` of both sources. Frames before the end of what is held (mixed
    /// again after a skip) replace it; a jump ahead is filled with silence.
    mutating func append(
      at k: Int, _ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, frames: Int
    ) {
      let start = position ?? k
      position = start
      let end = start + app.count / 2
      if k < end {
        let keep = max(0, k - start)
        app.removeSubrange((2 * keep)...)
        mic.removeSubrange((2 * keep)...)
        if k < start { position = k }
      } else if k > end {
        app.append(contentsOf: repeatElement(0, count: 2 * (k - end)))
        mic.append(contentsOf: repeatElement(0, count: 2 * (k - end)))
      }
      app.append(contentsOf: UnsafeBufferPointer(start: a, count: 2 * frames))
      mic.append(contentsOf: UnsafeBufferPointer(start: b, count: 2 * frames))
    }
  }

  /// From now on, keeps each source's frames as they enter the mix, for ``takeStems(_:)``. Not
  /// for a capture callback: the stems grow until taken, and every block takes the slower path
  /// (the same output, bit for bit).
  package mutating func keepStems() {
    if stems == nil { stems = Stems() }
  }

  /// Hands the stems collected since the last call to `body`: the timeline position of their
  /// first frame, then each source's frames (interleaved stereo, equal lengths); then forgets
  /// them. Under the `limit` policy they run the limiter's look-ahead (1 ms) ahead of the
  /// output's position.
  package mutating func takeStems(
    _ body: (_ position: Int, _ app: UnsafeBufferPointer<Float>, _ mic: UnsafeBufferPointer<Float>)
      -> Void
  ) {
    guard var s = stems else { return }
    stems = nil
    if let p = s.position {
      s.app.withUnsafeBufferPointer { a in s.mic.withUnsafeBufferPointer { body(p, a, $0) } }
      s.position = p + s.app.count / 2
    }
    s.app.removeAll(keepingCapacity: true)
    s.mic.removeAll(keepingCapacity: true)
    stems = s
  }
}
