import PCMMix
import PCMMixCLI
import PCMMixSampleRate
import Testing

/// `PCMFormat(spec:)`, the `TYPE:RATE:CHANNELS` spelling the command line takes for headerless
/// input, and the names `--resampler` gives libsamplerate's converters.
@Suite struct FormatSpecTests {
  @Test(arguments: PCMFormat.typeSpellings)
  func specAcceptsEveryTypeSpelling(_ spelling: String) throws {
    let format = try #require(PCMFormat(spec: "\(spelling):44100:2"))
    let (type, order) = try #require(PCMFormat.parseType(spelling))
    #expect(format.sampleType == type)
    #expect(format.byteOrder == order)
    #expect(format.sampleRate == 44_100)
    #expect(format.channelCount == 2)
    #expect(format.isInterleaved)
    #expect(format.typeSpelling == spelling)
    #expect(type.rawValue == String(spelling.prefix(type == .u8 ? 2 : 3)))
    #expect(order == (spelling.hasSuffix("be") ? .big : .little))
  }

  @Test func specSpellingsCoverEveryType() {
    let types = Set(PCMFormat.typeSpellings.compactMap { PCMFormat.parseType($0)?.0 })
    #expect(types == Set(SampleType.allCases))
    #expect(PCMFormat.typeSpellings.count == 11)
  }

  @Test func specEdges() throws {
    let low = try #require(PCMFormat(spec: "u8:1:1"))
    #expect(low.sampleRate == 1 && low.channelCount == 1 && low.sampleType == .u8)
    let high = try #require(PCMFormat(spec: "f64be:768000:64"))
    #expect(high.sampleRate == 768_000 && high.channelCount == 64 && high.byteOrder == .big)
  }

  @Test(arguments: [
    "s16", "s16le:0:2", "s16le:44100:0", "x16le:44100:2", "s16le:abc:2", "u8le:8000:1",
    "u8be:8000:1", "s16le:768001:2", "s16le:44100:65", "s16le:-1:2", "s16le:44100:-2",
    "s16le:44100:2:1", "s16le:44100", "s16le::2", "s16le:44100:", "", "::", "s16:44100:2",
    "f32:44100:2", "s16xe:44100:2", "s16le:44100.0:2", "s8le:8000:1",
  ])
  func specRejects(_ spec: String) {
    #expect(PCMFormat(spec: spec) == nil)
  }

  @Test func converterNames() {
    typealias Converter = SampleRateResampler.Converter
    #expect(
      Converter.allCases.map(\.cliName) == [
        "src-best", "src-medium", "src-fastest", "src-zoh", "src-linear",
      ])
    for c in Converter.allCases { #expect(Converter(cliName: c.cliName) == c) }
    #expect(Converter(cliName: "sincBest") == nil)
    #expect(Converter(rawValue: "sincBest") == .sincBest)
  }
}
