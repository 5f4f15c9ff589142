#ifndef ROUTELOG_CLZ4_SHIM_H
#define ROUTELOG_CLZ4_SHIM_H
#include <lz4.h>
#endif
