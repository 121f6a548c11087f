#ifndef SCHEMEBRIDGE_CPNG_SHIM_H
#define SCHEMEBRIDGE_CPNG_SHIM_H
#include <png.h>
#endif
