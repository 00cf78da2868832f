#include "alloc_counter.h"
