// Stand-in for Apple's CoreAudioTypes module, for scripts/apple-check.sh only (see README.md): the
// few declarations PCMMix's Apple-only files and its DocC guide use, written from Apple's
// published Swift signatures. Not Apple's code; every body traps or is a placeholder.
//
// Sources (Apple's documentation pages, Swift language view, and the header they document):
// - https://developer.apple.com/documentation/coreaudiotypes/audiostreambasicdescription
// - https://developer.apple.com/documentation/coreaudiotypes/audiobuffer (mData is
//   UnsafeMutableRawPointer?), .../audiobufferlist (header CoreAudioTypes.h)
// - https://developer.apple.com/documentation/coreaudiotypes/kaudioformatlinearpcm,
//   .../kaudioformatflagissignedinteger: `var k…: AudioFormatID / AudioFormatFlags { get }`
//   (CF_ENUM constants in CoreAudioTypes.h import as get-only globals of the enum's type)
// - OSStatus is MacTypes.h's SInt32; `noErr` is the Darwin overlay's
//   `public var noErr: OSStatus` (swiftlang/swift, stdlib/public/Platform, "MacTypes.h" section).
//   Apple's SDK reaches both through Darwin, which CoreAudioTypes and CoreFoundation re-export;
//   this module declares them itself because Linux has no Darwin module.
//
// How a C declaration looks in Swift, which these follow: a C struct imports as a struct with
// `init()` (all zero) and a memberwise `init(field:…)` in declaration order, and is Sendable and
// BitwiseCopyable when every field is (a pointer field makes it neither Sendable nor, here,
// needed to be). A fixed one-element array (`mBuffers[1]`) imports as the element itself.

/// MacTypes.h's `OSStatus` (`SInt32`): the result code of Core Audio and Core Media calls.
public typealias OSStatus = Int32

/// The Darwin overlay's "no error" result, typed `OSStatus`, so `status == noErr` compiles.
public var noErr: OSStatus { 0 }

/// CoreAudioTypes.h's `AudioFormatID` (`UInt32`): a four-character format code.
public typealias AudioFormatID = UInt32

/// CoreAudioTypes.h's `AudioFormatFlags` (`UInt32`): format flags (a plain integer, not an
/// `OptionSet`, in Swift).
public typealias AudioFormatFlags = UInt32

/// The linear PCM format ID ('lpcm').
public var kAudioFormatLinearPCM: AudioFormatID { 0x6C70_636D }

/// Set for signed integer samples (clear for unsigned); only meaningful when not float.
public var kAudioFormatFlagIsSignedInteger: AudioFormatFlags { 1 << 2 }

/// Set when the sample bits fill the whole channel.
public var kAudioFormatFlagIsPacked: AudioFormatFlags { 1 << 3 }

/// A stream's format: the C struct `AudioStreamBasicDescription`, as Swift imports it.
@frozen
public struct AudioStreamBasicDescription: Sendable, BitwiseCopyable {
  /// Frames per second of the stream.
  public var mSampleRate: Float64
  /// The format's four-character code, such as `kAudioFormatLinearPCM`.
  public var mFormatID: AudioFormatID
  /// The format's flags, such as `kAudioFormatFlagIsSignedInteger`.
  public var mFormatFlags: AudioFormatFlags
  /// Bytes in a packet.
  public var mBytesPerPacket: UInt32
  /// Frames in a packet.
  public var mFramesPerPacket: UInt32
  /// Bytes in a frame.
  public var mBytesPerFrame: UInt32
  /// Channels in a frame.
  public var mChannelsPerFrame: UInt32
  /// Bits per channel sample.
  public var mBitsPerChannel: UInt32
  /// Padding; zero.
  public var mReserved: UInt32

  /// The all-zero description (C's `= {0}`).
  public init() {
    fatalError("stand-in")
  }

  /// The imported memberwise initializer, every field labelled, in the header's order.
  public init(
    mSampleRate: Float64, mFormatID: AudioFormatID, mFormatFlags: AudioFormatFlags,
    mBytesPerPacket: UInt32, mFramesPerPacket: UInt32, mBytesPerFrame: UInt32,
    mChannelsPerFrame: UInt32, mBitsPerChannel: UInt32, mReserved: UInt32
  ) {
    fatalError("stand-in")
  }
}

/// One buffer of an `AudioBufferList`: the C struct `AudioBuffer`, as Swift imports it (its data
/// pointer makes it non-Sendable).
@frozen
public struct AudioBuffer {
  /// Interleaved channels in the buffer.
  public var mNumberChannels: UInt32
  /// Bytes at `mData`.
  public var mDataByteSize: UInt32
  /// The audio bytes (`void *` in C).
  public var mData: UnsafeMutableRawPointer?

  /// The all-zero buffer.
  public init() {
    fatalError("stand-in")
  }

  /// The imported memberwise initializer.
  public init(mNumberChannels: UInt32, mDataByteSize: UInt32, mData: UnsafeMutableRawPointer?) {
    fatalError("stand-in")
  }
}

/// The C struct `AudioBufferList`: a count and the first of that many buffers (`mBuffers[1]` in
/// C imports as one `AudioBuffer`; Core Audio's `UnsafeMutableAudioBufferListPointer` reaches the
/// rest).
@frozen
public struct AudioBufferList {
  /// How many buffers the list holds.
  public var mNumberBuffers: UInt32
  /// The first buffer.
  public var mBuffers: AudioBuffer

  /// The all-zero list.
  public init() {
    fatalError("stand-in")
  }

  /// The imported memberwise initializer.
  public init(mNumberBuffers: UInt32, mBuffers: AudioBuffer) {
    fatalError("stand-in")
  }
}

/// The C struct `AudioStreamPacketDescription`; only named here (as a pointer parameter of a Core
/// Media function), so its fields are left out.
@frozen
public struct AudioStreamPacketDescription: Sendable, BitwiseCopyable {
  /// The all-zero description.
  public init() {
    fatalError("stand-in")
  }
}

/// The C struct `AudioChannelLayout`; only named here (as a pointer parameter of a Core Media
/// function), so its fields are left out.
@frozen
public struct AudioChannelLayout: Sendable, BitwiseCopyable {
  /// The all-zero layout.
  public init() {
    fatalError("stand-in")
  }
}
