#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Colours chosen in Oklab (Björn Ottosson's perceptual colour space, 2020), where equal steps
/// of lightness look equal: a series palette of equal lightness and chroma at evenly spaced
/// hues, and a colour map for levels whose lightness rises steadily from near black to near
/// white, so a level reads the same in colour or in grey.
enum Colors {
  /// An sRGB colour, each channel 0…255.
  struct RGB: Equatable {
    var r: UInt8
    var g: UInt8
    var b: UInt8

    /// `#rrggbb`.
    var hex: String {
      let digits = Array("0123456789abcdef")
      return "#" + [r, g, b].map { String([digits[Int($0 >> 4)], digits[Int($0 & 15)]]) }.joined()
    }
  }

  /// A series colour of hue `degrees` (Oklab: 25° red, 85° ochre, 145° green, 205° teal,
  /// 265° blue, 325° magenta): lightness 0.58 and chroma 0.15 (less where sRGB cannot show it),
  /// so no line stands out by brightness alone.
  static func series(hue degrees: Double) -> RGB {
    oklch(lightness: 0.58, chroma: 0.15, hue: degrees)
  }

  /// Colour `index` of `count` series colours, their hues `360° / count` apart from 25° (red).
  static func series(_ index: Int, of count: Int) -> RGB {
    series(hue: 25 + 360 * Double(index) / Double(count))
  }

  /// The colour map at `t` in 0…1 (clamped): lightness 0.12 → 0.97, hue 300° (violet) → 100°
  /// (yellow) through red and orange, chroma as much as sRGB shows up to 0.17.
  static func map(_ t: Double) -> RGB {
    let u = min(max(t, 0), 1)
    return oklch(lightness: 0.12 + 0.85 * u, chroma: 0.17, hue: 300 + 160 * u)
  }

  /// The sRGB colour of Oklab lightness `lightness`, chroma and hue (degrees), with chroma
  /// lowered (hue and lightness kept) until it lies inside sRGB.
  static func oklch(lightness: Double, chroma: Double, hue: Double) -> RGB {
    let h = hue * Double.pi / 180
    var lo = 0.0
    var hi = chroma
    if linearRGB(lightness, chroma * cos(h), chroma * sin(h)) == nil {
      for _ in 0..<30 {
        let c = (lo + hi) / 2
        if linearRGB(lightness, c * cos(h), c * sin(h)) == nil { hi = c } else { lo = c }
      }
    } else {
      lo = chroma
    }
    let rgb = linearRGB(lightness, lo * cos(h), lo * sin(h)) ?? (lightness, lightness, lightness)
    func encode(_ v: Double) -> UInt8 {
      let x = min(max(v, 0), 1)
      let s = x <= 0.003_130_8 ? 12.92 * x : 1.055 * pow(x, 1 / 2.4) - 0.055
      return UInt8((s * 255).rounded())
    }
    return RGB(r: encode(rgb.0), g: encode(rgb.1), b: encode(rgb.2))
  }

  /// Linear sRGB of an Oklab colour, or nil when a channel falls outside 0…1.
  static func linearRGB(_ l: Double, _ a: Double, _ b: Double) -> (Double, Double, Double)? {
    // Oklab's published matrices: Lab → cone responses (cubed) → linear sRGB.
    let l1 = l + 0.396_337_777_4 * a + 0.215_803_757_3 * b
    let m1 = l - 0.105_561_345_8 * a - 0.063_854_172_8 * b
    let s1 = l - 0.089_484_177_5 * a - 1.291_485_548_0 * b
    let (cl, cm, cs) = (l1 * l1 * l1, m1 * m1 * m1, s1 * s1 * s1)
    let r = 4.076_741_662_1 * cl - 3.307_711_591_3 * cm + 0.230_969_929_2 * cs
    let g = -1.268_438_004_6 * cl + 2.609_757_401_1 * cm - 0.341_319_396_5 * cs
    let bl = -0.004_196_086_3 * cl - 0.703_418_614_7 * cm + 1.707_614_701_0 * cs
    let tolerance = 1e-9
    for v in [r, g, bl] where v < -tolerance || v > 1 + tolerance { return nil }
    return (r, g, bl)
  }
}
