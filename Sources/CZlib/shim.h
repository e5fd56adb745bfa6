#ifndef QUEUESIM_CZLIB_SHIM_H
#define QUEUESIM_CZLIB_SHIM_H
#include <zlib.h>
#endif
