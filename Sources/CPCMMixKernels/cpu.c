#include "pcmmix_kernels.h"

// Whether the AVX2 + FMA kernels may run. They exist only on x86 (avx2_*.c); arm64 has its own
// (pcmmix_neon_available), and elsewhere the portable kernels run.
int pcmmix_kernels_available(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
  return 0;
#endif
}

// Whether the AVX-512F group functions may run too. The compiler's CPU-feature check counts
// AVX-512F only when the OS saves the 512-bit registers (XCR0), not merely when CPUID has it.
int pcmmix_avx512_available(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  return pcmmix_kernels_available() && __builtin_cpu_supports("avx512f");
#else
  return 0;
#endif
}

// Whether the NEON kernels may run: wherever they are compiled, since every AArch64 CPU has
// Advanced SIMD (and the fused multiply-add in it); there is nothing to ask the CPU.
int pcmmix_neon_available(void) {
#if defined(__aarch64__)
  return 1;
#else
  return 0;
#endif
}
