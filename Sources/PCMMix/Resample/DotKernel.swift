extension PolyphaseResampler {
  /// Dot products from outside the library: `PCMMixAccelerated` supplies AVX2 + FMA ones, which
  /// Swift cannot emit without compiler flags. `dot` and `dot2` take `n`, a multiple of 8; with
  /// ``group`` the resampler computes sixteen outputs per call where the rates allow it.
  package struct DotKernel: Sendable {
    /// `h · x` over `n` floats.
    package typealias Dot =
      @convention(c) (UnsafePointer<Float>, UnsafePointer<Float>, Int) -> Float
    /// `h · a` and `h · b` over `n` floats, into `out[0]` and `out[1]`.
    package typealias Dot2 =
      @convention(c) (
        UnsafePointer<Float>, UnsafePointer<Float>, UnsafePointer<Float>, Int,
        UnsafeMutablePointer<Float>
      ) -> Void
    /// Sixteen consecutive outputs, all channels: `(table, width, x, stride, channels, out,
    /// first, count)` sets lane `i` of channel `c` to the sum over `m < width` of
    /// `table[m·16 + i] · x[c·stride + m]` and writes lanes `first ..< first + count` to `out`,
    /// interleaved. Lanes outside that range may read input past what is valid, but never past
    /// `width` floats from `x` in each plane, and their results are dropped.
    package typealias Group =
      @convention(c) (
        UnsafePointer<Float>, Int, UnsafePointer<Float>, Int, Int, UnsafeMutablePointer<Float>,
        Int, Int
      ) -> Void
    /// Two whole groups of a mono plane that share a table: `(table, width, a, b, outA, outB)`
    /// sets `outA[i]` (`outB[i]`) to the sum over `m < width` of `table[m·16 + i] · a[m]`
    /// (`b[m]`) for all sixteen lanes, so one coefficient load serves two groups.
    package typealias GroupPair =
      @convention(c) (
        UnsafePointer<Float>, Int, UnsafePointer<Float>, UnsafePointer<Float>,
        UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>
      ) -> Void
    /// Whole groups that share a table, every channel: `(table, width, x, advance, stride,
    /// channels, out, outAdvance, count, firstOut, lastOut)` computes what ``Group`` computes for
    /// all sixteen lanes of the group whose planes start at `x + k·advance`, for `k` in
    /// 0 ..< `count`, into `out + k·outAdvance`, except group 0 into `firstOut` and group
    /// `count - 1` into `lastOut` where those are given, with the same bits as `count` ``Group``
    /// calls; several groups share each coefficient load.
    package typealias GroupRun =
      @convention(c) (
        UnsafePointer<Float>, Int, UnsafePointer<Float>, Int, Int, Int,
        UnsafeMutablePointer<Float>, Int, Int, UnsafeMutablePointer<Float>?,
        UnsafeMutablePointer<Float>?
      ) -> Void
    /// Upsampling in direct form: `(h, steps, up, down, x, stride, channels, phase, count, out)`
    /// writes outputs `j` in 0 ..< `count`, interleaved: output `a = phase + j`, with
    /// `m = a / up`, `p = a % up` and `lead = phase·down / up`, is the sum over `s < steps` of
    /// `h[s·up + p] · x[c·stride + m·down + s − lead]` for each channel `c`, the input before
    /// `x` taken as zero (``UpsampleTable`` lays out `h`). `(up, down)` is one that
    /// ``takesUpsample(up:down:)`` accepts. The function may read up to 48 floats past the last
    /// window of each plane. Each output must be one chain of fused multiply-adds over the steps
    /// in order, so that any split of the input gives the same bits.
    package typealias UpsampleRun =
      @convention(c) (
        UnsafePointer<Float>, Int, Int, Int, UnsafePointer<Float>, Int, Int, Int, Int,
        UnsafeMutablePointer<Float>
      ) -> Void
    /// Whether ``UpsampleRun`` takes `up : down` (in lowest terms): 3, 5 or 6 : 1 (16, 9.6 and
    /// 8 kHz into 48 kHz) and 3 : 2 (32 kHz). (With 2, 4 and 8 : 1 the AVX2 function measured
    /// slower than the group functions; the AVX2 and AVX-512F kernels must take the same ratios
    /// to give the same bits.)
    package static func takesUpsample(up: Int, down: Int) -> Bool {
      down == 1 ? [3, 5, 6].contains(up) : up == 3 && down == 2
    }
    /// The row blended between `h0` and `h1` by `t` dotted with `x` (``VariableRatioResampler``);
    /// the last argument, when given, is the next output's first row, which the kernel may fetch
    /// into the cache meanwhile (that row and the one after it).
    package typealias LerpDot =
      @convention(c) (
        UnsafePointer<Float>, UnsafePointer<Float>, Float, UnsafePointer<Float>, Int,
        UnsafePointer<Float>?
      ) -> Float
    /// The row blended between `h0` and `h1` by `t` dotted with `a` and `b`, into `out[0]`,
    /// `out[1]`; the next output's first row as for ``LerpDot``.
    package typealias LerpDot2 =
      @convention(c) (
        UnsafePointer<Float>, UnsafePointer<Float>, Float, UnsafePointer<Float>,
        UnsafePointer<Float>, Int, UnsafeMutablePointer<Float>, UnsafePointer<Float>?
      ) -> Void
    /// A steerable resampler's whole output loop (``VariableRatioResampler``): `(table, taps,
    /// steps, step, base, stride, channels, count, room, out, position, fraction, hasEnd,
    /// timeOffset, end, stopped)` writes frames while their windows are complete, there is room
    /// and (with `hasEnd`) their time is before `end`, with the same Double arithmetic as the
    /// Swift loop, so the same outputs and positions as calling ``lerpDot2`` and ``lerpDot``
    /// frame by frame; returns the frames written and sets `stopped` when `end` stopped it.
    package typealias LerpRun =
      @convention(c) (
        UnsafePointer<Float>, Int, Double, Double, UnsafePointer<Float>, Int, Int, Int, Int,
        UnsafeMutablePointer<Float>, UnsafeMutablePointer<Int>, UnsafeMutablePointer<Double>,
        Int32, Int, Double, UnsafeMutablePointer<Int32>
      ) -> Int
    /// A name for reports.
    package var name: String
    /// `h · x`, the fixed-ratio path's mono dot product.
    package var dot: Dot
    /// Two channels against one filter row, the fixed-ratio path's stereo dot product.
    package var dot2: Dot2
    /// The sixteen-output kernel, if any.
    package var group: Group?
    /// The paired kernel for mono, if any (used only with ``group``).
    package var groupPair: GroupPair?
    /// Runs of groups a table cycle apart, several per pass, if any (used only with ``group``).
    package var groupRun: GroupRun?
    /// Upsampling in direct form (8, 9.6, 16 and 32 kHz into 48 kHz:
    /// ``takesUpsample(up:down:)``), if any: used instead of the group functions for those rates.
    package var upsampleRun: UpsampleRun?
    /// Blended-row dot products for ``VariableRatioResampler``, if any.
    package var lerpDot: LerpDot?
    /// ``lerpDot`` for two channels at once, if any.
    package var lerpDot2: LerpDot2?
    /// The output loop around ``lerpDot2`` and ``lerpDot``, if any (used only with both).
    package var lerpRun: LerpRun?

    /// A kernel set from C function pointers; the optional ones fall back to the Swift path.
    package init(
      name: String, dot: Dot, dot2: Dot2, group: Group? = nil, groupPair: GroupPair? = nil,
      groupRun: GroupRun? = nil, upsampleRun: UpsampleRun? = nil, lerpDot: LerpDot? = nil,
      lerpDot2: LerpDot2? = nil, lerpRun: LerpRun? = nil
    ) {
      self.name = name
      self.dot = dot
      self.dot2 = dot2
      self.group = group
      self.groupPair = groupPair
      self.groupRun = groupRun
      self.upsampleRun = upsampleRun
      self.lerpDot = lerpDot
      self.lerpDot2 = lerpDot2
      self.lerpRun = lerpRun
    }
  }
}
