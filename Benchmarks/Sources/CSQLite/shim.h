#ifndef ROUTELOG_BENCH_CSQLITE_SHIM_H
#define ROUTELOG_BENCH_CSQLITE_SHIM_H
#include <sqlite3.h>
#endif
