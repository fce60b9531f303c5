#ifndef TAPEDECK_CZLIB_SHIM_H
#define TAPEDECK_CZLIB_SHIM_H

#include <zlib.h>

// deflateInit2 and inflateInit2 are macros in zlib.h; Swift cannot call macros, so wrap them.
static inline int tapedeck_deflateInit2(z_streamp stream, int level, int windowBits, int memLevel) {
    return deflateInit2(stream, level, Z_DEFLATED, windowBits, memLevel, Z_DEFAULT_STRATEGY);
}

static inline int tapedeck_inflateInit2(z_streamp stream, int windowBits) {
    return inflateInit2(stream, windowBits);
}

#endif
