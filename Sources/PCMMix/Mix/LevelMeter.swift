import CPCMMixCore

/// Peak, RMS and held-peak levels of interleaved Float32 blocks, for a level meter in a UI.
///
/// Each ``measure(_:frames:channels:)`` reads one block, all channels together, and updates
/// ``reading``:
/// - ``Reading/peakDBFS``: the block's largest magnitude, 20·log10(max |x|); a full-scale sine
///   reads 0 dBFS;
/// - ``Reading/rmsDBFS``: the block's RMS over all its samples, 20·log10(√(Σx² / n)); a
///   full-scale sine reads −3.01 dBFS (no +3 dB sine correction);
/// - ``Reading/heldPeakDBFS``: the highest block peak, held for
///   ``Configuration/holdSeconds`` and then falling at ``Configuration/decayDBPerSecond`` until
///   a block's peak reaches it again (which holds anew). Time is counted in frames at
///   ``Configuration/sampleRate``, and a block's peak counts as reached at the block's end;
/// - ``Reading/clippedSamples``: samples with |x| > 1 (a non-finite sample counts too) since
///   creation or ``reset()``.
///
/// Levels below ``floorDBFS`` (silence included) read as ``floorDBFS``, so every reading is
/// finite. Non-finite samples count as silence in the peak and RMS. An empty block changes
/// nothing.
///
/// Measuring allocates nothing: one SIMD pass takes the largest square and the sum of squares,
/// and a block with a sample past full scale takes a second pass to count them. Levels are
/// exact to within a Float rounding of the square (a few 10⁻⁷ dB).
public struct LevelMeter: Sendable {
  /// Sample rate and peak-hold ballistics.
  ///
  /// Out-of-range values are clamped (a non-finite one takes the default); nothing traps.
  public struct Configuration: Hashable, Sendable {
    /// Frames per second, 8,000…768,000 (default 48,000): turns frames into time.
    public var sampleRate: Int
    /// How long the held peak stays put, 0…60 s (default 1 s), counted in whole frames.
    public var holdSeconds: Double
    /// How fast the held peak falls after the hold, 0…1,000 dB per second (default 20).
    public var decayDBPerSecond: Double

    /// Creates a configuration: 48 kHz, a 1 s hold, a 20 dB/s fall.
    public init(sampleRate: Int = 48_000, holdSeconds: Double = 1, decayDBPerSecond: Double = 20) {
      self.sampleRate = sampleRate
      self.holdSeconds = holdSeconds
      self.decayDBPerSecond = decayDBPerSecond
    }

    /// This configuration with each field brought into its documented range.
    public var clamped: Configuration {
      func clamp(_ x: Double, _ lo: Double, _ hi: Double, _ fallback: Double) -> Double {
        x.isFinite ? min(max(x, lo), hi) : fallback
      }
      return Configuration(
        sampleRate: min(max(sampleRate, 8_000), 768_000),
        holdSeconds: clamp(holdSeconds, 0, 60, 1),
        decayDBPerSecond: clamp(decayDBPerSecond, 0, 1_000, 20))
    }
  }

  /// One reading of the meter: a few numbers, copied out without allocation.
  public struct Reading: Hashable, Sendable {
    /// The last block's peak in dBFS (``LevelMeter/floorDBFS`` for silence).
    public var peakDBFS: Float
    /// The last block's RMS in dBFS (``LevelMeter/floorDBFS`` for silence).
    public var rmsDBFS: Float
    /// The held peak in dBFS (see ``LevelMeter``).
    public var heldPeakDBFS: Float
    /// Samples past full scale (|x| > 1, or not finite) since creation or ``LevelMeter/reset()``.
    public var clippedSamples: Int
  }

  /// The lowest level a reading shows, −160 dBFS: silence, and anything quieter, reads this.
  public static let floorDBFS: Float = -160

  /// The configuration in effect (the one given, ``Configuration/clamped``).
  public let configuration: Configuration
  /// The levels after the last measured block, converted to dB here, on reading.
  public var reading: Reading {
    Reading(
      peakDBFS: Self.dBFS(power: peakSquare), rmsDBFS: Self.dBFS(power: meanSquare),
      heldPeakDBFS: Self.dBFS(power: heldSquare), clippedSamples: clippedSamples)
  }

  /// The last block's largest square and mean square.
  var peakSquare = 0.0
  var meanSquare = 0.0
  /// The held peak, squared (0 once it falls below the floor).
  var heldSquare = 0.0
  var clippedSamples = 0
  /// Frames of hold left on the held peak, and the hold in frames.
  var holdLeft = 0
  let holdFrames: Int
  /// The factor on the held square over `decayFrames` frames of decay (blocks tend to repeat
  /// their size, so measuring needs no `pow` in the steady state).
  var decayFrames = 0
  var decayFactor = 1.0

  /// The floor as a power.
  static let floorPower = 1e-16

  /// Creates a meter reading the floor everywhere.
  public init(_ configuration: Configuration = Configuration()) {
    let c = configuration.clamped
    self.configuration = c
    holdFrames = Int((c.holdSeconds * Double(c.sampleRate)).rounded())
  }

  /// Returns to the state at creation.
  public mutating func reset() {
    self = LevelMeter(configuration)
  }

  /// A level in dBFS from a power (a square), never below ``floorDBFS``.
  static func dBFS(power: Double) -> Float {
    power > 0 ? max(floorDBFS, Float(10 * Math.log10(power))) : floorDBFS
  }

  /// Measures `frames` interleaved frames of `channels` samples each and updates ``reading``.
  /// A count below 1 of either changes nothing.
  ///
  /// - Complexity: O(frames × channels); no allocation.
  public mutating func measure(_ samples: UnsafePointer<Float>, frames: Int, channels: Int) {
    guard frames > 0, channels > 0 else { return }
    let count = frames * channels
    let (square, squares) = _peakSquareAndSquares(samples, count)
    if squares.isFinite && square.isFinite {
      if square > 1 { clippedSamples += _countOver(samples, count, 1) }
      peakSquare = Double(square)
      meanSquare = squares / Double(count)
    } else {
      // A non-finite sample (or squares past Float's range): the careful scalar pass.
      let (peak, finiteSquares, over) = _carefulPeakAndSquares(samples, count)
      clippedSamples += over
      peakSquare = Double(peak) * Double(peak)
      meanSquare = finiteSquares / Double(count)
    }

    hold(frames: frames)
  }

  /// Takes a block's measures made elsewhere (a mixing pass that also measured): the largest
  /// square and the sum of squares of its `count` samples' finite values, and how many were
  /// past full scale or not finite.
  mutating func record(peakSquare: Float, squares: Double, over: Int, count: Int, frames: Int) {
    guard frames > 0, count > 0 else { return }
    clippedSamples += over
    self.peakSquare = peakSquare.isFinite ? Double(peakSquare) : 0
    meanSquare = squares.isFinite ? squares / Double(count) : 0
    hold(frames: frames)
  }

  /// The held peak: the block's time passes (hold first, then decay), then its peak may take
  /// over.
  mutating func hold(frames: Int) {
    let held = min(holdLeft, frames)
    holdLeft -= held
    let falling = frames - held
    if falling > 0 && heldSquare > 0 {
      if falling != decayFrames {
        decayFrames = falling
        let dB = configuration.decayDBPerSecond * Double(falling) / Double(configuration.sampleRate)
        decayFactor = Math.pow(10, -dB / 10)
      }
      heldSquare *= decayFactor
      if heldSquare < Self.floorPower { heldSquare = 0 }
    }
    if peakSquare >= heldSquare && peakSquare >= Self.floorPower {
      heldSquare = peakSquare
      holdLeft = holdFrames
    }
  }
}

/// The largest square and the sum of squares of `count` floats, in SIMD lanes. The largest
/// square stands in for the largest magnitude (one max per vector, no sign mask): squaring is
/// monotonic in |x|, 1 squares to exactly 1, and anything past 1 squares past 1. A NaN may be
/// missed by the maximum but makes the sum NaN; an infinity makes both infinite.
/// In C (`pcmmix_core_peak_square_and_squares`, the same operations as the SIMD8<Float> loop it
/// replaced): a Debug build ran that loop's SIMD operations a call each, 11 % of a pull with echo
/// cancellation, ducking and loudness on.
@inline(__always)
func _peakSquareAndSquares(_ p: UnsafePointer<Float>, _ count: Int) -> (Float, Double) {
  var total = 0.0
  let peak = pcmmix_core_peak_square_and_squares(p, count, &total)
  return (peak, total)
}

/// The peak and sum of squares (in Double) over the finite samples of `count` floats, and how
/// many are past full scale or not finite.
func _carefulPeakAndSquares(_ p: UnsafePointer<Float>, _ count: Int) -> (Float, Double, Int) {
  var peak: Float = 0
  var squares = 0.0
  var over = 0
  for i in 0..<count {
    let v = p[i]
    guard v.isFinite else {
      over += 1
      continue
    }
    peak = max(peak, abs(v))
    squares += Double(v) * Double(v)
    if abs(v) > 1 { over += 1 }
  }
  return (peak, squares, over)
}

/// How many of `count` floats have a magnitude above `limit`.
func _countOver(_ p: UnsafePointer<Float>, _ count: Int, _ limit: Float) -> Int {
  var over = 0
  for i in 0..<count where abs(p[i]) > limit { over += 1 }
  return over
}
