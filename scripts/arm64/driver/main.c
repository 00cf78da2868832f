// The arm64 check's driver entry (see ../arm64-check.sh): `driver MODE OUT` runs every case of
// Driver.swift with kernel set MODE (0: none, the portable C; 1: the CPU's full set, AVX2 on
// x86-64, NEON on arm64; 2: the same chains without the run and upsampling functions) and
// writes each case's output, bit for bit, to OUT.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver_io.h"
#include "pcmmix_kernels.h"

static FILE *out;

void driver_record(const char *name, int kind, const void *data, long bytes) {
  const unsigned n = (unsigned)strlen(name);
  fwrite(&n, 4, 1, out);
  fwrite(name, 1, n, out);
  fwrite(&kind, 4, 1, out);
  fwrite(&bytes, 8, 1, out);
  if (bytes > 0) fwrite(data, 1, (size_t)bytes, out);
}

int driver_has_kernels(int mode) {
  if (mode == 0) return 1;
#if defined(__x86_64__)
  return pcmmix_kernels_available();
#elif defined(__aarch64__)
  return pcmmix_neon_available();
#else
  return 0;
#endif
}

/// The Swift driver (Driver.swift); returns the number of cases run.
long pcmmix_driver_run(long mode);

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s MODE OUT\n", argv[0]);
    return 2;
  }
  const long mode = strtol(argv[1], 0, 10);
  if (!driver_has_kernels((int)mode)) {
    fprintf(stderr, "driver: kernel set %ld does not run on this CPU\n", mode);
    return 3;
  }
  out = fopen(argv[2], "wb");
  if (!out) {
    perror(argv[2]);
    return 1;
  }
  const long cases = pcmmix_driver_run(mode);
  if (fclose(out) != 0) {
    perror(argv[2]);
    return 1;
  }
  fprintf(stderr, "driver: mode %ld, %ld cases\n", mode, cases);
  return 0;
}
