import Testing

@testable import PCMMixSampleRate
