// The C library's math as PCMMix's Swift code calls it (`Support/Math.swift`), declared here
// rather than imported from Glibc, Musl or Darwin: the same header serves the package build and
// the Embedded Swift build of the DSP core for arm64 (`make arm64-check`), which has no C
// library module to import. Each is the C library's own function (the builtins lower to the
// libm call), so the results are the platform's libm results, as they were through Glibc.
#pragma once

#define PCMMIX_MATH static inline __attribute__((always_inline))

PCMMIX_MATH double pcmmix_sin(double x) { return __builtin_sin(x); }
PCMMIX_MATH double pcmmix_cos(double x) { return __builtin_cos(x); }
PCMMIX_MATH double pcmmix_tan(double x) { return __builtin_tan(x); }
PCMMIX_MATH double pcmmix_exp(double x) { return __builtin_exp(x); }
PCMMIX_MATH double pcmmix_log(double x) { return __builtin_log(x); }
PCMMIX_MATH double pcmmix_log10(double x) { return __builtin_log10(x); }
PCMMIX_MATH double pcmmix_pow(double x, double y) { return __builtin_pow(x, y); }
PCMMIX_MATH double pcmmix_atan2(double y, double x) { return __builtin_atan2(y, x); }
PCMMIX_MATH float pcmmix_sinf(float x) { return __builtin_sinf(x); }
PCMMIX_MATH float pcmmix_cosf(float x) { return __builtin_cosf(x); }
PCMMIX_MATH float pcmmix_expf(float x) { return __builtin_expf(x); }
PCMMIX_MATH float pcmmix_log10f(float x) { return __builtin_log10f(x); }
PCMMIX_MATH float pcmmix_powf(float x, float y) { return __builtin_powf(x, y); }
