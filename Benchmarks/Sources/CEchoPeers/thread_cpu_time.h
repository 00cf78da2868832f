// The calling thread's CPU time, shared by the two peers (private to this target). A C file that
// includes it defines _POSIX_C_SOURCE first, for clock_gettime.
#pragma once

#include <time.h>

/// Seconds of CPU time the calling thread has used, or 0 where the clock is missing.
static inline double echo_peer_thread_cpu_seconds(void) {
  struct timespec now;
  if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now) != 0) return 0;
  return (double)now.tv_sec + (double)now.tv_nsec * 1e-9;
}
