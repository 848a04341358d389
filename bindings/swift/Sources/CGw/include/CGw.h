/* The C module `CGw`: the repository's gw.h as is (never a copy, so it cannot go stale). */
#ifndef CGW_H
#define CGW_H
#include "../../../../../include/gw.h"
#endif
