// The atomics are the header's inline functions; the mutex is here.
#include "pcmmix_atomics.h"

#include <pthread.h>

struct pcmmix_mutex {
  pthread_mutex_t mutex;
};

size_t pcmmix_mutex_size(void) { return sizeof(struct pcmmix_mutex); }

void pcmmix_mutex_init(pcmmix_mutex *m) { pthread_mutex_init(&m->mutex, NULL); }

void pcmmix_mutex_lock(pcmmix_mutex *m) { pthread_mutex_lock(&m->mutex); }

int pcmmix_mutex_trylock(pcmmix_mutex *m) { return pthread_mutex_trylock(&m->mutex) == 0; }

void pcmmix_mutex_unlock(pcmmix_mutex *m) { pthread_mutex_unlock(&m->mutex); }

void pcmmix_mutex_destroy(pcmmix_mutex *m) { pthread_mutex_destroy(&m->mutex); }
