#include "malloc_tuning.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

int queuesim_map_large_blocks(size_t bytes) {
#if defined(__GLIBC__)
    return mallopt(M_MMAP_THRESHOLD, (int)bytes);
#else
    (void)bytes;
    return 0;
#endif
}
