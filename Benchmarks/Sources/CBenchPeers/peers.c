#include "peers.h"
