// The check driver's C side: the output file and the kernel sets the Swift driver installs.
// (Embedded Swift has no file I/O of its own; the DSP core it checks needs none.)
#pragma once

/// Appends one record to the output: `name`, a kind (0: float32, 1: int16, 2: float64) and
/// `bytes` bytes from `data`.
void driver_record(const char *name, int kind, const void *data, long bytes);

/// 1 when this build has a kernel set to install for `mode` (1: the CPU's full set, AVX2 or
/// NEON; 2: the same chains without the run and upsampling functions) and the CPU runs it.
int driver_has_kernels(int mode);
