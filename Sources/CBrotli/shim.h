#ifndef TAPEDECK_CBROTLI_SHIM_H
#define TAPEDECK_CBROTLI_SHIM_H

// The system brotli library (Debian: libbrotli-dev), for `Content-Encoding: br` bodies.
#include <brotli/decode.h>
#include <brotli/encode.h>

#endif
