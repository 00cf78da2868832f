// The C library's math for all of PCMMix: the one file that imports Glibc, Musl or Darwin for
// it. The DSP calls `Math.sin`, `Math.pow`, … and never imports a C library itself, so a build
// with another C library (Embedded Swift for arm64, a new platform) changes this file alone.
// File I/O (`WAV/ByteStream.swift`) and the lock (`Support/Locked.swift`) import the C library
// where they use it: they are the platform, not the DSP.
#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// The C library's functions as the DSP uses them (each one call, inlined).
enum Math {
  @inline(__always) static func sin(_ x: Double) -> Double { cSin(x) }
  @inline(__always) static func cos(_ x: Double) -> Double { cCos(x) }
  @inline(__always) static func tan(_ x: Double) -> Double { cTan(x) }
  @inline(__always) static func exp(_ x: Double) -> Double { cExp(x) }
  @inline(__always) static func log(_ x: Double) -> Double { cLog(x) }
  @inline(__always) static func log10(_ x: Double) -> Double { cLog10(x) }
  @inline(__always) static func pow(_ x: Double, _ y: Double) -> Double { cPow(x, y) }
  @inline(__always) static func sin(_ x: Float) -> Float { cSinf(x) }
  @inline(__always) static func cos(_ x: Float) -> Float { cCosf(x) }
  @inline(__always) static func exp(_ x: Float) -> Float { cExpf(x) }
  @inline(__always) static func log10(_ x: Float) -> Float { cLog10f(x) }
  @inline(__always) static func pow(_ x: Float, _ y: Float) -> Float { cPowf(x, y) }
}

// At file scope the unqualified names are the C library's (inside `Math` they would be its own).
@inline(__always) private func cSin(_ x: Double) -> Double { sin(x) }
@inline(__always) private func cCos(_ x: Double) -> Double { cos(x) }
@inline(__always) private func cTan(_ x: Double) -> Double { tan(x) }
@inline(__always) private func cExp(_ x: Double) -> Double { exp(x) }
@inline(__always) private func cLog(_ x: Double) -> Double { log(x) }
@inline(__always) private func cLog10(_ x: Double) -> Double { log10(x) }
@inline(__always) private func cPow(_ x: Double, _ y: Double) -> Double { pow(x, y) }
@inline(__always) private func cSinf(_ x: Float) -> Float { sin(x) }
@inline(__always) private func cCosf(_ x: Float) -> Float { cos(x) }
@inline(__always) private func cExpf(_ x: Float) -> Float { exp(x) }
@inline(__always) private func cLog10f(_ x: Float) -> Float { log10(x) }
@inline(__always) private func cPowf(_ x: Float, _ y: Float) -> Float { pow(x, y) }
