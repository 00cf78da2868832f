import PCMMix
import PCMMixCLI
import Testing

/// The command line's words are its own (`Spellings.swift`): each case has exactly the word the
/// help and the reports use, and each word gives its case back.
@Suite struct SpellingTests {
  @Test func policiesHaveTheirDocumentedWords() {
    #expect(MixPolicy.allCases.map(\.cliSpelling) == ["average", "saturate", "limit"])
    for policy in MixPolicy.allCases {
      #expect(MixPolicy(cliSpelling: policy.cliSpelling) == policy)
    }
    #expect(MixPolicy(cliSpelling: "Average") == nil)
  }

  @Test func sampleTypesHaveTheirDocumentedWords() {
    #expect(SampleType.allCases.map(\.cliSpelling) == ["u8", "s16", "s24", "s32", "f32", "f64"])
    for type in SampleType.allCases {
      #expect(SampleType(cliSpelling: type.cliSpelling) == type)
    }
    #expect(SampleType(cliSpelling: "s16le") == nil)
  }
}
