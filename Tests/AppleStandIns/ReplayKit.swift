// Stand-in for Apple's ReplayKit module, for scripts/apple-check.sh only (see README.md): the part
// of a Broadcast Upload Extension's sample handler that PCMMix's DocC guide uses, written from
// Apple's published Swift signatures. Not Apple's code; every body traps.
//
// Sources (developer.apple.com/documentation/replaykit/…, Swift language view; header
// RPBroadcastExtension.h):
// - rpbroadcastsamplehandler: an Objective-C class (so `open`, with `open` methods) whose
//   superclass RPBroadcastHandler is an NSObject; processsamplebuffer(_:with:),
//   broadcaststarted(withsetupinfo:) (`[String : NSObject]?`), broadcastfinished(),
//   finishbroadcastwitherror(_:) (`any Error`). RPBroadcastHandler's NSExtensionRequestHandling
//   conformance is left out: swift-corelibs-foundation has no NSExtensionContext.
// - rpsamplebuffertype: an NS_ENUM(NSInteger), so `enum RPSampleBufferType: Int` with cases video
//   (1), audioApp (2) and audioMic (3). Imported C enums are open to new cases: this module is
//   built with library evolution, so a `switch` over it needs a `default` as it does on Apple
//   platforms.
// - ReplayKit re-exports Foundation (through UIKit / AppKit); Linux's Foundation stands in for it,
//   NSObject included.

import CoreMedia
@_exported import Foundation

/// The type of a sample buffer a broadcast extension receives.
public enum RPSampleBufferType: Int, @unchecked Sendable {
  case video = 1
  case audioApp = 2
  case audioMic = 3
}

/// The base class of a broadcast extension's handlers.
open class RPBroadcastHandler: NSObject {
  /// Creates a handler.
  public override init() {
    fatalError("stand-in")
  }
}

/// The principal class of a Broadcast Upload Extension that receives sample buffers.
open class RPBroadcastSampleHandler: RPBroadcastHandler {
  /// Creates a handler.
  public override init() {
    fatalError("stand-in")
  }

  /// Called when the broadcast starts, with the setup UI's information.
  open func broadcastStarted(withSetupInfo setupInfo: [String: NSObject]?) {
    fatalError("stand-in")
  }

  /// Called when the broadcast ends.
  open func broadcastFinished() {
    fatalError("stand-in")
  }

  /// Called with each video, app-audio and microphone-audio sample buffer.
  open func processSampleBuffer(
    _ sampleBuffer: CMSampleBuffer, with sampleBufferType: RPSampleBufferType
  ) {
    fatalError("stand-in")
  }

  /// Ends the broadcast and reports `error` to the broadcasting app.
  open func finishBroadcastWithError(_ error: any Error) {
    fatalError("stand-in")
  }
}
