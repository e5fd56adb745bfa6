#ifndef QUEUESIM_MALLOC_TUNING_H
#define QUEUESIM_MALLOC_TUNING_H

#include <stddef.h>

/// Makes every allocation of at least `bytes` its own mapping, given back to the system when
/// freed (glibc: `mallopt(M_MMAP_THRESHOLD, bytes)`, which also stops glibc from raising the
/// threshold as large blocks are freed). Returns 0 where the C library has no such setting.
int queuesim_map_large_blocks(size_t bytes);

#endif
