// swift-format-ignore-file: AlwaysUseLowerCamelCase
// (C functions keep their C names in Swift: CMBlockBufferGetDataPointer, …)
//
// Stand-in for Apple's CoreMedia module, for scripts/apple-check.sh only (see README.md): the
// declarations PCMMix's MediaTime+CoreMedia.swift and its DocC guide use, written from Apple's
// published Swift signatures. Not Apple's code; every body traps.
//
// Sources (developer.apple.com/documentation/coremedia/…, Swift language view; headers CMTime.h,
// CMFormatDescription.h, CMBlockBuffer.h, CMSampleBuffer.h, and the CoreMedia Swift overlay):
// - cmtime, cmtime/init(value:timescale:), cmtime/invalid (`static let invalid`); CMTimeValue
//   Int64, CMTimeScale Int32, CMTimeEpoch Int64, CMTimeFlags an OptionSet of UInt32. The overlay's
//   `init(value:timescale:)` and `var isValid: Bool` are in swiftlang/swift,
//   stdlib/public/Darwin/CoreMedia/CMTime.swift (from before the overlays moved into the SDK).
// - cmsamplebuffer/formatdescription (`CMFormatDescription? { get }`), cmsamplebuffer/databuffer
//   (`CMBlockBuffer? { get }`), cmsamplebuffer/presentationtimestamp (`CMTime { get }`): overlay
//   properties, iOS 13 / macOS 10.15.
// - cmformatdescription/audiostreambasicdescription (`AudioStreamBasicDescription? { get }`).
// - cmblockbuffergetdatapointer(_:atoffset:lengthatoffsetout:totallengthout:datapointerout:),
//   cmblockbufferisrangecontiguous(_:atoffset:length:) (C `Boolean` imports as Bool),
//   cmblockbuffercreatewithmemoryblock(allocator:memoryblock:…:blockbufferout:),
//   cmblockbufferreplacedatabytes(with:blockbuffer:offsetintodestination:datalength:),
//   cmaudioformatdescriptioncreate(allocator:asbd:layoutsize:layout:magiccookiesize:…),
//   cmaudiosamplebuffercreatereadywithpacketdescriptions(allocator:databuffer:…:samplebufferout:),
//   kcmblockbuffernoerr (`var kCMBlockBufferNoErr: OSStatus { get }`), cmblockbufferflags
//   (`typealias CMBlockBufferFlags = UInt32`), CMItemCount (`Int`, CFIndex).
// - CoreFoundation (which CoreMedia re-exports): kcfallocatordefault
//   (`let kCFAllocatorDefault: CFAllocator!`), CFAllocator and CFDictionary (CF types import as
//   classes). Declared here, not in a CoreFoundation stand-in, because Linux's toolchain ships a
//   different module of that name.
//
// Imported C functions and Objective-C methods are implicitly @discardableResult (SE-0047: the
// importer marks every declaration without warn_unused_result), so the functions here are too. CF
// types (CMSampleBuffer, …) import as final classes with no initializer; they are left
// non-Sendable here, the stricter choice.

@_exported import CoreAudioTypes

// MARK: - CoreFoundation, as CoreMedia re-exports it

/// Core Foundation's allocator type (`CFAllocatorRef`).
public final class CFAllocator {
  private init() {}
}

/// Core Foundation's immutable dictionary type (`CFDictionaryRef`).
public final class CFDictionary {
  private init() {}
}

/// The default allocator (a synonym for `NULL`, hence the implicitly unwrapped optional).
nonisolated(unsafe) public let kCFAllocatorDefault: CFAllocator! = nil

// MARK: - CMTime

/// CMTime.h's `CMTimeValue`: a time's numerator.
public typealias CMTimeValue = Int64

/// CMTime.h's `CMTimeScale`: a time's denominator, units per second.
public typealias CMTimeScale = Int32

/// CMTime.h's `CMTimeEpoch`.
public typealias CMTimeEpoch = Int64

/// CMTime.h's `CMItemCount` (`CFIndex`): a count of samples.
public typealias CMItemCount = Int

/// CMTime.h's `CMTimeFlags` (an `NS_OPTIONS` of `uint32_t`).
@frozen
public struct CMTimeFlags: OptionSet, Sendable, BitwiseCopyable {
  /// The flags' bits.
  public var rawValue: UInt32

  /// Flags from their bits.
  public init(rawValue: UInt32) {
    self.rawValue = rawValue
  }
}

/// A rational time, value / timescale: the C struct `CMTime`, as Swift imports it.
@frozen
public struct CMTime: Sendable, BitwiseCopyable {
  /// The numerator.
  public var value: CMTimeValue
  /// The denominator (units per second).
  public var timescale: CMTimeScale
  /// Valid, rounded, infinite…
  public var flags: CMTimeFlags
  /// The epoch.
  public var epoch: CMTimeEpoch

  /// An invalid time (all fields zero).
  public init() {
    fatalError("stand-in")
  }

  /// The imported memberwise initializer.
  public init(value: CMTimeValue, timescale: CMTimeScale, flags: CMTimeFlags, epoch: CMTimeEpoch) {
    fatalError("stand-in")
  }

  /// A valid time `value / timescale` (the overlay's initializer).
  public init(value: CMTimeValue, timescale: CMTimeScale) {
    fatalError("stand-in")
  }

  /// `kCMTimeInvalid`, imported as a type property.
  public static let invalid = CMTime(value: 0, timescale: 0, flags: [], epoch: 0)

  /// Whether the time is valid (the overlay's property).
  public var isValid: Bool { fatalError("stand-in") }
}

// MARK: - Format descriptions

/// A media format description (`CMFormatDescriptionRef`).
public final class CMFormatDescription {
  private init() {}
}

/// CMFormatDescription.h's `CMAudioFormatDescription`, the same type.
public typealias CMAudioFormatDescription = CMFormatDescription

extension CMFormatDescription {
  /// The audio stream description, `nil` for a non-audio format (the overlay's property).
  public var audioStreamBasicDescription: AudioStreamBasicDescription? { fatalError("stand-in") }
}

/// Creates a format description for an audio stream.
@discardableResult
public func CMAudioFormatDescriptionCreate(
  allocator: CFAllocator?, asbd: UnsafePointer<AudioStreamBasicDescription>, layoutSize: Int,
  layout: UnsafePointer<AudioChannelLayout>?, magicCookieSize: Int, magicCookie: UnsafeRawPointer?,
  extensions: CFDictionary?, formatDescriptionOut: UnsafeMutablePointer<CMAudioFormatDescription?>
) -> OSStatus {
  fatalError("stand-in")
}

// MARK: - Block buffers

/// A block of media bytes (`CMBlockBufferRef`).
public final class CMBlockBuffer {
  private init() {}
}

/// CMBlockBuffer.h's `CMBlockBufferFlags` (`uint32_t`, not an `OptionSet`).
public typealias CMBlockBufferFlags = UInt32

/// CMBlockBuffer.h's custom block source (callbacks and a refcon); only named here, as an optional
/// pointer parameter, so its fields are left out.
@frozen
public struct CMBlockBufferCustomBlockSource {
  /// The all-zero source.
  public init() {
    fatalError("stand-in")
  }
}

/// Block-buffer success.
public var kCMBlockBufferNoErr: OSStatus { 0 }

/// Gives a pointer to the bytes at `offset` and how many are contiguous there and in all.
@discardableResult
public func CMBlockBufferGetDataPointer(
  _ theBuffer: CMBlockBuffer, atOffset offset: Int, lengthAtOffsetOut: UnsafeMutablePointer<Int>?,
  totalLengthOut: UnsafeMutablePointer<Int>?,
  dataPointerOut: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
) -> OSStatus {
  fatalError("stand-in")
}

/// Whether `length` bytes from `offset` (all of them from `offset` when `length` is zero) are
/// contiguous.
@discardableResult
public func CMBlockBufferIsRangeContiguous(
  _ theBuffer: CMBlockBuffer, atOffset offset: Int, length: Int
) -> Bool {
  fatalError("stand-in")
}

/// Creates a block buffer over a memory block (allocated on demand when `memoryBlock` is `nil`).
@discardableResult
public func CMBlockBufferCreateWithMemoryBlock(
  allocator structureAllocator: CFAllocator?, memoryBlock: UnsafeMutableRawPointer?,
  blockLength: Int, blockAllocator: CFAllocator?,
  customBlockSource: UnsafePointer<CMBlockBufferCustomBlockSource>?, offsetToData: Int,
  dataLength: Int, flags: CMBlockBufferFlags,
  blockBufferOut: UnsafeMutablePointer<CMBlockBuffer?>
) -> OSStatus {
  fatalError("stand-in")
}

/// Copies `dataLength` bytes from `sourceBytes` into the block buffer at `offsetIntoDestination`.
@discardableResult
public func CMBlockBufferReplaceDataBytes(
  with sourceBytes: UnsafeRawPointer, blockBuffer destinationBuffer: CMBlockBuffer,
  offsetIntoDestination: Int, dataLength: Int
) -> OSStatus {
  fatalError("stand-in")
}

// MARK: - Sample buffers

/// A buffer of media samples (`CMSampleBufferRef`).
public final class CMSampleBuffer {
  private init() {}
}

extension CMSampleBuffer {
  /// The samples' format description (the overlay's property).
  public var formatDescription: CMFormatDescription? { fatalError("stand-in") }

  /// The block buffer of the media data, `nil` for an image buffer (the overlay's property).
  public var dataBuffer: CMBlockBuffer? { fatalError("stand-in") }

  /// The presentation time stamp (the overlay's property).
  public var presentationTimeStamp: CMTime { fatalError("stand-in") }
}

/// Creates a ready audio sample buffer from a block buffer, a format and a first time stamp.
@discardableResult
public func CMAudioSampleBufferCreateReadyWithPacketDescriptions(
  allocator: CFAllocator?, dataBuffer: CMBlockBuffer, formatDescription: CMFormatDescription,
  sampleCount numSamples: CMItemCount, presentationTimeStamp: CMTime,
  packetDescriptions: UnsafePointer<AudioStreamPacketDescription>?,
  sampleBufferOut: UnsafeMutablePointer<CMSampleBuffer?>
) -> OSStatus {
  fatalError("stand-in")
}
