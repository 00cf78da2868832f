// The module is its header; SwiftPM wants one source file per C target.
#include "pcmmix_atomics.h"
