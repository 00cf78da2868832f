// The C library's math for all of PCMMix, through one small C header (`pcmmix_math.h` in
// `CPCMMixCore`) that the package build and the Embedded Swift build for arm64 both use. The DSP
// calls `Math.sin`, `Math.pow`, … and never imports a C library itself.
// File I/O (`WAV/ByteStream.swift`) imports the C library where it uses it: it is the platform,
// not the DSP. The lock (`Support/Locked.swift`) is a pthread mutex behind `CPCMMixAtomics`.
import CPCMMixCore

/// The C library's functions as the DSP uses them (each one call, inlined).
enum Math {
  @inline(__always) static func sin(_ x: Double) -> Double { pcmmix_sin(x) }
  @inline(__always) static func cos(_ x: Double) -> Double { pcmmix_cos(x) }
  @inline(__always) static func tan(_ x: Double) -> Double { pcmmix_tan(x) }
  @inline(__always) static func exp(_ x: Double) -> Double { pcmmix_exp(x) }
  @inline(__always) static func log(_ x: Double) -> Double { pcmmix_log(x) }
  @inline(__always) static func log10(_ x: Double) -> Double { pcmmix_log10(x) }
  @inline(__always) static func pow(_ x: Double, _ y: Double) -> Double { pcmmix_pow(x, y) }
  @inline(__always) static func atan2(_ y: Double, _ x: Double) -> Double { pcmmix_atan2(y, x) }
  @inline(__always) static func sin(_ x: Float) -> Float { pcmmix_sinf(x) }
  @inline(__always) static func cos(_ x: Float) -> Float { pcmmix_cosf(x) }
  @inline(__always) static func exp(_ x: Float) -> Float { pcmmix_expf(x) }
  @inline(__always) static func log10(_ x: Float) -> Float { pcmmix_log10f(x) }
  @inline(__always) static func pow(_ x: Float, _ y: Float) -> Float { pcmmix_powf(x, y) }
}
