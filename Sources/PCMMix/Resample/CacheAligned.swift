/// Coefficient tables start on a cache line, so that the kernels' row loads (32 or 64 bytes,
/// rows a multiple of 32 bytes) never straddle two lines, wherever the heap has room. Free with
/// `deallocate()`.
func allocateCacheAligned(floats count: Int) -> UnsafeMutablePointer<Float> {
  UnsafeMutableRawPointer.allocate(byteCount: count * MemoryLayout<Float>.stride, alignment: 64)
    .bindMemory(to: Float.self, capacity: count)
}
