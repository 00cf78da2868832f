// Stand-in for Apple's AVFoundation module, for scripts/apple-check.sh only (see README.md): the
// part of AVAssetWriterInput that PCMMix's DocC guide uses, written from Apple's published Swift
// signatures. Not Apple's code; every body traps.
//
// Sources (developer.apple.com/documentation/avfoundation/…, Swift language view; header
// AVAssetWriterInput.h):
// - avassetwriterinput: an Objective-C class derived from NSObject whose plain `init` is
//   unavailable (NS_UNAVAILABLE); avassetwriterinput/isreadyformoremediadata
//   (`var isReadyForMoreMediaData: Bool { get }`); avassetwriterinput/append(_:)
//   (`func append(_ sampleBuffer: CMSampleBuffer) -> Bool`, implicitly @discardableResult as
//   every imported Objective-C method is, SE-0047).
// - AVFoundation re-exports Foundation and CoreMedia (and, through AVFAudio, CoreAudioTypes);
//   Linux's Foundation stands in for Foundation.

@_exported import CoreMedia
@_exported import Foundation

/// Appends media samples to one track of an asset writer's output file.
open class AVAssetWriterInput: NSObject {
  /// Unavailable: an input is made for a media type and output settings.
  @available(*, unavailable)
  public override init() {
    fatalError("stand-in")
  }

  /// Whether the input can take more samples now.
  open var isReadyForMoreMediaData: Bool { fatalError("stand-in") }

  /// Appends a sample buffer; `false` when the writer failed or is not writing.
  @discardableResult
  open func append(_ sampleBuffer: CMSampleBuffer) -> Bool {
    fatalError("stand-in")
  }
}
