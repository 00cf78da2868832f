// Stand-in for Apple's CoreAudio module, for scripts/apple-check.sh only (see README.md): the
// part of its Swift overlay that PCMMix uses. Not Apple's code; every body traps.
//
// Sources:
// - https://developer.apple.com/documentation/coreaudio/unsafemutableaudiobufferlistpointer:
//   a struct of module CoreAudio (its symbol is mangled in module "CoreAudio", not
//   CoreAudioTypes), conforming to MutableCollection and RandomAccessCollection, with
//   `init(_ p: UnsafeMutablePointer<AudioBufferList>)`,
//   `init?(_ p: UnsafeMutablePointer<AudioBufferList>?)`, `var count: Int { get nonmutating set }`,
//   `unsafePointer`, `unsafeMutablePointer`, `startIndex`/`endIndex: Int` and
//   `subscript(index: Int) -> AudioBuffer { get nonmutating set }`.
// - https://developer.apple.com/documentation/swift/unsafemutablebufferpointer/init(_:)-6750l and
//   its UnsafeBufferPointer twin: the overlay's `init(_ audioBuffer: AudioBuffer)` extensions,
//   declared here because a file that imports CoreAudio resolves `UnsafeBufferPointer(…)` among
//   them.
// - The CoreAudio clang module includes CoreAudioTypes.h, and the overlay re-exports it: code that
//   imports CoreAudio can name AudioBufferList and AudioBuffer.

@_exported import CoreAudioTypes

/// A wrapper for a pointer to an `AudioBufferList`, presenting its buffers as a collection.
public struct UnsafeMutableAudioBufferListPointer {
  /// Wraps `p`.
  public init(_ p: UnsafeMutablePointer<AudioBufferList>) {
    fatalError("stand-in")
  }

  /// Wraps `p`, or is `nil` when `p` is.
  public init?(_ p: UnsafeMutablePointer<AudioBufferList>?) {
    fatalError("stand-in")
  }

  /// The number of buffers (`mNumberBuffers`).
  public var count: Int {
    get { fatalError("stand-in") }
    nonmutating set { fatalError("stand-in") }
  }

  /// The wrapped pointer, read-only.
  public var unsafePointer: UnsafePointer<AudioBufferList> { fatalError("stand-in") }

  /// The wrapped pointer.
  public var unsafeMutablePointer: UnsafeMutablePointer<AudioBufferList>
}

extension UnsafeMutableAudioBufferListPointer: MutableCollection, RandomAccessCollection {
  /// Always zero.
  public var startIndex: Int { fatalError("stand-in") }

  /// `count`.
  public var endIndex: Int { fatalError("stand-in") }

  /// The buffer at `index` (`mBuffers[index]`).
  public subscript(index: Int) -> AudioBuffer {
    get { fatalError("stand-in") }
    nonmutating set { fatalError("stand-in") }
  }
}

extension UnsafeBufferPointer {
  /// A typed view of an `AudioBuffer`'s bytes.
  public init(_ audioBuffer: AudioBuffer) {
    fatalError("stand-in")
  }
}

extension UnsafeMutableBufferPointer {
  /// A typed, mutable view of an `AudioBuffer`'s bytes.
  public init(_ audioBuffer: AudioBuffer) {
    fatalError("stand-in")
  }
}
