#ifndef TAPEDECK_CZSTD_SHIM_H
#define TAPEDECK_CZSTD_SHIM_H

// The system zstd library (Debian: libzstd-dev), for `Content-Encoding: zstd` bodies.
#include <zstd.h>

#endif
