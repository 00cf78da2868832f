// The resampler kernels' bits on x86-64 and on arm64, for scripts/arm64/kernels-check.sh.
//
// One program, built twice. On x86-64 it runs the AVX2 + FMA kernels (avx2_resample.c,
// upsample.c); on arm64 (static, under qemu-aarch64-static here) the NEON kernels
// (neon_resample.c) and the portable ones of CPCMMixCore (resample.c), whose arm64 forms compute
// the AVX2 chains. Every build feeds its kernels the same shapes and inputs (a seeded PRNG, each
// family of kernels with its own seed, so a set without a family skips it without shifting the
// others) and writes every output, as raw floats (and the run functions' counters as raw
// words), to `<prefix>.bin`, with `<prefix>.map` saying which kernel and shape each span of
// floats came from. The families the portable kernels lack (upsampling) are left out of
// `<prefix>-common.bin`, which every set writes, so that the three sets compare byte for byte:
// AVX2 with NEON whole, and each with the portable set on the common part.
//
//   kernels_check avx2|neon|portable PREFIX
//
// Exits 0 when done, 77 when this x86 CPU lacks AVX2 + FMA (nothing to compare), 1 when an
// output is not finite (the inputs are, so a kernel read something it should not have).
// The inputs too must be the same bits on both: unfused, as x86-64's baseline computes them
// (clang contracts a * b + c into one fmadd on arm64 otherwise, and the steerable loop's ratio
// came out a bit different there).
#pragma STDC FP_CONTRACT OFF

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "pcmmix_kernels.h"
#if defined(__aarch64__)
#include "pcmmix_core.h"
#endif

// MARK: - Kernel sets

typedef float (*dot_fn)(const float *, const float *, long);
typedef void (*dot2_fn)(const float *, const float *, const float *, long, float *);
typedef float (*lerp_dot_fn)(const float *, const float *, float, const float *, long,
                             const float *);
typedef void (*lerp_dot2_fn)(const float *, const float *, float, const float *, const float *,
                             long, float *, const float *);
typedef long (*lerp_run_fn)(const float *, long, double, double, const float *, long, long, long,
                            long, float *, long *, double *, int, long, double, int *);
typedef void (*group_fn)(const float *, long, const float *, long, long, float *, long, long);
typedef void (*group_pair_fn)(const float *, long, const float *, const float *, float *,
                              float *);
typedef void (*group_run_fn)(const float *, long, const float *, long, long, long, float *, long,
                             long, float *, float *);
typedef void (*upsample_fn)(const float *, long, long, long, const float *, long, long, long,
                            long, float *);

typedef struct {
  const char *name;
  dot_fn dot;
  dot2_fn dot2;
  lerp_dot_fn lerp_dot;
  lerp_dot2_fn lerp_dot2;
  lerp_run_fn lerp_run;
  group_fn group16;
  group_pair_fn group16x2;
  group_run_fn group16_run;  // NULL: `count` group16 calls (the contract's bits)
  upsample_fn upsample_run;  // NULL: the set has none (the family is skipped)
} kernel_set;

#if defined(__aarch64__)
// The portable loop with the single-precision blend (the only one with a kernel to compare).
static long core_lerp_run(const float *table, long taps, double steps, double step,
                          const float *base, long stride, long channels, long count, long room,
                          float *out, long *position, double *fraction, int has_end,
                          long time_offset, double end, int *stopped) {
  return pcmmix_core_lerp_run(table, taps, steps, step, base, stride, channels, count, room, out,
                              position, fraction, has_end, time_offset, end, stopped, 0);
}
#endif

static int pick_set(const char *name, kernel_set *set) {
#if defined(__x86_64__)
  if (!strcmp(name, "avx2")) {
    *set = (kernel_set){"avx2",          pcmmix_dot,       pcmmix_dot2,
                        pcmmix_lerp_dot, pcmmix_lerp_dot2, pcmmix_lerp_run,
                        pcmmix_group16,  pcmmix_group16x2, 0,
                        pcmmix_upsample_run};
    return 1;
  }
#elif defined(__aarch64__)
  if (!strcmp(name, "neon")) {
    *set = (kernel_set){"neon",
                        pcmmix_neon_dot,
                        pcmmix_neon_dot2,
                        pcmmix_neon_lerp_dot,
                        pcmmix_neon_lerp_dot2,
                        pcmmix_neon_lerp_run,
                        pcmmix_neon_group16,
                        pcmmix_neon_group16x2,
                        pcmmix_neon_group16_run,
                        pcmmix_neon_upsample_run};
    return 1;
  }
  if (!strcmp(name, "portable")) {
    *set = (kernel_set){"portable",
                        pcmmix_core_dot,
                        pcmmix_core_dot2,
                        pcmmix_core_lerp_dot,
                        pcmmix_core_lerp_dot2,
                        core_lerp_run,
                        pcmmix_core_group16,
                        pcmmix_core_group16x2,
                        0,
                        0};
    return 1;
  }
#endif
  (void)name;
  (void)set;
  return 0;
}

// MARK: - Inputs

static uint64_t rng_state;

// SplitMix64: small, and the same sequence on every target.
static uint64_t next64(void) {
  uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// 0 ..< n.
static long below(long n) { return (long)(next64() % (uint64_t)n); }

// lo ... hi.
static long between(long lo, long hi) { return lo + below(hi - lo + 1); }

// In [0, 1), 53 random bits.
static double unit(void) { return (double)(next64() >> 11) * 0x1p-53; }

// A sample as a resampler meets it: in −1.1 … 1.1 from 24 random bits; one in 64 scaled down
// past the normal range, so subnormal products and sums get compared too.
static float sample(void) {
  const uint64_t r = next64();
  const float x = (float)((int32_t)(r >> 40) - (1 << 23)) * 0x1p-23f * 1.1f;
  return (r & 63) == 0 ? x * 0x1p-120f : x;
}

// A quiet NaN with a payload of its own: where a kernel must not look.
static float poison(void) {
  const uint32_t bits = 0x7FC0BEEFu;
  float f;
  memcpy(&f, &bits, sizeof f);
  return f;
}

// The blocks samples() allocated for the current shape, freed together by end_shape().
static void *blocks[8];
static int block_count;

// `n` fresh samples with `pad` poisoned floats either side (and a few more after), unaligned by
// up to seven floats so that no kernel gets 16- or 32-byte alignment by accident.
static float *samples(long n, long pad) {
  const long skew = below(8);
  float *block = malloc((size_t)(n + 2 * pad + 8) * sizeof(float));
  if (!block || block_count == 8) abort();
  blocks[block_count++] = block;
  float *p = block + pad + skew;
  for (long i = -pad - skew; i < 0; i++) p[i] = poison();
  for (long i = 0; i < n; i++) p[i] = sample();
  for (long i = n; i < n + pad + 8 - skew; i++) p[i] = poison();
  return p;
}

// The mappings guarded() made for the current shape, unmapped together by end_shape().
static struct {
  void *at;
  size_t size;
} maps[4];
static int map_count;

// `n` fresh samples that end where an inaccessible page begins, with a few poisoned floats
// before them: a kernel that reads past what its contract allows at the end of the last plane
// dies of SIGSEGV (qemu keeps the guest's page protection) instead of reading quietly.
static float *guarded(long n) {
  const size_t page = (size_t)sysconf(_SC_PAGESIZE);
  const size_t bytes = (size_t)(n + 8) * sizeof(float);
  const size_t size = (bytes + page - 1) / page * page + page;
  char *at = mmap(0, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (at == MAP_FAILED || map_count == 4 || mprotect(at + size - page, page, PROT_NONE)) abort();
  maps[map_count].at = at;
  maps[map_count++].size = size;
  float *p = (float *)(at + size - page) - n;
  for (long i = -8; i < 0; i++) p[i] = poison();
  for (long i = 0; i < n; i++) p[i] = sample();
  return p;
}

// MARK: - Output

typedef struct {
  FILE *all, *common, *map;
  long values, shapes, common_values, common_shapes, bad;
  const char *family;
  int in_common;
  long shape;
} sink;

// Appends `n` four-byte words (floats, or counters as raw bits) of the current shape.
static void put(sink *s, const void *p, long n, int floats) {
  if (floats) {
    const float *f = p;
    for (long i = 0; i < n; i++) {
      if (!isfinite(f[i])) {
        if (s->bad++ < 5) fprintf(stderr, "%s shape %ld: output %ld not finite\n", s->family,
                                  s->shape, i);
      }
    }
  }
  fprintf(s->map, "%ld %ld %s %ld\n", s->values, n, s->family, s->shape);
  fwrite(p, 4, (size_t)n, s->all);
  s->values += n;
  if (s->in_common) {
    fwrite(p, 4, (size_t)n, s->common);
    s->common_values += n;
  }
}

static void begin_family(sink *s, const char *family, uint64_t seed, int in_common) {
  s->family = family;
  s->in_common = in_common;
  s->shape = 0;
  rng_state = seed;
}

static void end_shape(sink *s) {
  while (block_count > 0) free(blocks[--block_count]);
  while (map_count > 0) munmap(maps[map_count - 1].at, maps[map_count - 1].size), map_count--;
  s->shape++;
  s->shapes++;
  if (s->in_common) s->common_shapes++;
}

// MARK: - Families

// Taps (a multiple of 8) from 8 to 600, the ends and the loop edges (16, 32 taps) more often.
static long taps(void) {
  static const long edges[] = {8, 16, 24, 32, 40, 48, 56, 64, 600};
  return below(4) == 0 ? edges[below(9)] : 8 * between(1, 75);
}

static void dots(sink *s, const kernel_set *k, long shapes) {
  begin_family(s, "dot+dot2", 1, 1);
  for (long i = 0; i < shapes; i++) {
    const long n = taps();
    float *h = samples(n, 0), *a = samples(n, 0), *b = samples(n, 0);
    float out[3];
    out[0] = k->dot(h, a, n);
    k->dot2(h, a, b, n, out + 1);
    put(s, out, 3, 1);
    end_shape(s);
  }
}

// The blend fraction: 0, almost 1, exact halves and quarters, or anything.
static float fraction(void) {
  switch (below(5)) {
  case 0: return 0;
  case 1: return 0x1.fffffep-1f;
  case 2: return (float)between(0, 4) * 0.25f;
  default: return (float)unit();
  }
}

static void lerp_dots(sink *s, const kernel_set *k, long shapes) {
  begin_family(s, "lerp_dot+lerp_dot2", 2, 1);
  for (long i = 0; i < shapes; i++) {
    const long n = taps();
    // Three rows: the two blended, and the next output's two (fetched, never used).
    float *rows = samples(3 * n, 0), *a = samples(n, 0), *b = samples(n, 0);
    const float t = fraction();
    const float *next = below(2) ? rows + n : 0;
    float out[3];
    out[0] = k->lerp_dot(rows, rows + n, t, a, n, next);
    k->lerp_dot2(rows, rows + n, t, a, b, n, out + 1, next);
    put(s, out, 3, 1);
    end_shape(s);
  }
}

// A steerable resampler's loop: random table, ratio, start, room and end.
static void lerp_runs(sink *s, const kernel_set *k, long shapes) {
  begin_family(s, "lerp_run", 3, 1);
  for (long i = 0; i < shapes; i++) {
    const long n = taps(), rows = between(1, 64), channels = between(1, 3);
    const long count = n + below(160), stride = count + below(16), room = between(1, 120);
    // The table's rows and the row after the last (the blend's second row).
    // Each window ends by `count` in its plane: the last plane's count-th sample is the last
    // readable one.
    float *table = samples((rows + 1) * n, 0);
    float *planes = guarded((channels - 1) * stride + count);
    // Around 44.1 : 48 kHz and 48 : 44.1 kHz, and anywhere from 1 : 2.5 to 2.5 : 1.
    const double step = below(3) ? 0.91875 + (unit() - 0.5) * 0.01 : 0.4 + 2.1 * unit();
    long position = below(n / 2 + 1);
    double frac = below(8) ? unit() : 0;
    const int has_end = (int)below(2);
    const long time_offset = between(-40, 40);
    const double end = (double)(time_offset + position) + unit() * 150;
    float *out = calloc((size_t)(room * channels), sizeof(float));
    int stopped = 0;
    const long produced = k->lerp_run(table, n, (double)rows, step, planes, stride, channels,
                                      count, room, out, &position, &frac, has_end, time_offset,
                                      end, &stopped);
    put(s, out, room * channels, 1);
    const int32_t words[3] = {(int32_t)produced, (int32_t)position, stopped};
    put(s, words, 3, 0);
    put(s, &frac, 2, 0);
    free(out);
    end_shape(s);
  }
}

// `channels` planes of `width` samples, `stride` apart, each poisoned past its width (no lane a
// kernel keeps may use what is there), and the last one's width the end of what may be read.
static float *group_planes(long channels, long width, long stride) {
  float *x = guarded((channels - 1) * stride + width);
  for (long c = 0; c + 1 < channels; c++)
    for (long i = width; i < stride; i++) x[c * stride + i] = poison();
  return x;
}

// Any width from 8 to 600 (the group tables' widths are not multiples of anything), odd and
// even, the short ones often.
static long width(void) { return below(3) ? between(8, 80) : between(8, 600); }

static void groups(sink *s, const kernel_set *k, long shapes) {
  begin_family(s, "group16+group16x2", 4, 1);
  for (long i = 0; i < shapes; i++) {
    const long w = width(), channels = between(1, 3), stride = w + between(1, 9);
    float *table = samples(w * 16, 0), *x = group_planes(channels, w, stride);
    // Whole groups half the time (a stereo one takes its own path), else any lane range.
    long first = 0, count = 16;
    if (below(2)) {
      first = below(16);
      count = between(1, 16 - first);
    }
    float out[48], pair[32];
    k->group16(table, w, x, stride, channels, out, first, count);
    put(s, out, count * channels, 1);
    k->group16x2(table, w, x, x + (channels - 1) * stride, pair, pair + 16);
    put(s, pair, 32, 1);
    end_shape(s);
  }
}

static void group_runs(sink *s, const kernel_set *k, long shapes) {
  begin_family(s, "group16_run", 5, 1);
  for (long i = 0; i < shapes; i++) {
    const long w = width(), channels = between(1, 3), count = between(1, 9);
    // Groups a table cycle apart (overlapping windows), each plane long enough for the last.
    const long advance = between(1, 48), span = (count - 1) * advance + w;
    const long stride = span + between(1, 9);
    float *table = samples(w * 16, 0), *x = group_planes(channels, span, stride);
    const long frame = 16 * channels, out_advance = frame * between(1, 3);
    const long size = (count - 1) * out_advance + frame;
    float *out = calloc((size_t)size, sizeof(float));
    float first_out[48] = {0}, last_out[48] = {0};
    float *first = below(3) == 0 ? first_out : 0, *last = below(3) == 0 ? last_out : 0;
    if (k->group16_run) {
      k->group16_run(table, w, x, advance, stride, channels, out, out_advance, count, first,
                     last);
    } else {
      for (long g = 0; g < count; g++) {
        float *o = g == count - 1 && last ? last : g == 0 && first ? first : out + g * out_advance;
        k->group16(table, w, x + g * advance, stride, channels, o, 0, 16);
      }
    }
    put(s, out, size, 1);
    put(s, first_out, frame, 1);
    put(s, last_out, frame, 1);
    free(out);
    end_shape(s);
  }
}

static void upsamples(sink *s, const kernel_set *k, long shapes) {
  if (!k->upsample_run) return;
  begin_family(s, "upsample_run", 6, 0);
  static const long ratios[4][2] = {{3, 1}, {5, 1}, {6, 1}, {3, 2}};
  for (long i = 0; i < shapes; i++) {
    const long up = ratios[i % 4][0], down = ratios[i % 4][1];
    // Up to the most steps the kernels take with `down` 2, now and then.
    const long steps = below(4)    ? between(8, 200)
                       : below(16) ? between(8, 600)
                       : down == 2 ? PCMMIX_UPSAMPLE_MOST_SPLIT_STEPS
                                   : between(600, 1040);
    const long channels = between(1, 3), phase = below(up);
    // Single outputs, the ends of a block and of a pass (4, 8, 16 windows), a chunk of the
    // split input (192), and long runs.
    const long edges[] = {1, 7, 4 * up - phase, 8 * up - phase, 16 * up - phase, 17 * up + 2,
                          24 * up - phase, 192 * up - phase, 193 * up, 300 * up - phase};
    const long count = below(3) == 0 ? edges[below(10)]
                       : below(2)    ? between(1, 20 * up)
                                     : between(1, 400 * up);
    const long lead = phase * down / up;
    // The samples the kept outputs read (from x), then the 48 a kernel may read past them, and
    // the `lead` samples before x: poisoned, as is everything beyond.
    const long last = (phase + count - 1) / up * down + steps - lead;
    const long stride = last + 48 + lead + between(0, 7);
    // The last plane ends 48 floats past its last window: nothing beyond may be read.
    float *h = samples(steps * up, 0);
    float *planes = guarded((channels - 1) * stride + lead + last + 48);
    for (long c = 0; c < channels; c++) {
      for (long j = 0; j < lead; j++) planes[c * stride + j] = poison();
      const long stop = c + 1 < channels ? stride : lead + last + 48;
      for (long j = lead + last; j < stop; j++) planes[c * stride + j] = poison();
    }
    float *out = calloc((size_t)(count * channels), sizeof(float));
    k->upsample_run(h, steps, up, down, planes + lead, stride, channels, phase, count, out);
    put(s, out, count * channels, 1);
    free(out);
    end_shape(s);
  }
}

int main(int argc, char **argv) {
  kernel_set k;
  if (argc != 3 || !pick_set(argv[1], &k)) {
    fprintf(stderr, "usage: %s SET PREFIX (SET: avx2 on x86-64; neon, portable on arm64)\n",
            argv[0]);
    return 2;
  }
#if defined(__x86_64__)
  if (!pcmmix_kernels_available()) {
    fprintf(stderr, "this CPU lacks AVX2 + FMA: no AVX2 bits to compare\n");
    return 77;
  }
#endif
  char path[4096];
  sink s = {0};
  snprintf(path, sizeof path, "%s.bin", argv[2]);
  s.all = fopen(path, "wb");
  snprintf(path, sizeof path, "%s-common.bin", argv[2]);
  s.common = fopen(path, "wb");
  snprintf(path, sizeof path, "%s.map", argv[2]);
  s.map = fopen(path, "w");
  if (!s.all || !s.common || !s.map) {
    perror(argv[2]);
    return 2;
  }
  // 12,000 shapes: about 10 s for the whole check, both arm64 runs under qemu included.
  dots(&s, &k, 3000);
  lerp_dots(&s, &k, 3000);
  lerp_runs(&s, &k, 800);
  groups(&s, &k, 3000);
  group_runs(&s, &k, 1200);
  upsamples(&s, &k, 1000);
  fclose(s.all);
  fclose(s.common);
  fclose(s.map);
  printf("%s: %ld outputs over %ld shapes (%ld over %ld in the common part)\n", k.name, s.values,
         s.shapes, s.common_values, s.common_shapes);
  if (s.bad) {
    fprintf(stderr, "%s: %ld outputs not finite\n", k.name, s.bad);
    return 1;
  }
  return 0;
}
