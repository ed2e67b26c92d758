// The models bloomtool sizes filters with (`bloomtool size`): the false-positive rate of a
// filter of a given size, and the size a kind needs for n keys at a rate.
#pragma once

#include <cstdint>

#include "bloomtool/error.h"
#include "bloomtool/info.h"

namespace bloomtool {

// The model's false-positive rate of a `kind` filter holding n distinct keys: for Bloom filters
// m bits and k hashes (the standard filter's rate by its real index scheme, the blocked filter's
// by its block model); for xor and binary fuse filters 2^-k, k the fingerprint bits (m unused).
double model_rate(Kind kind, uint64_t m, uint32_t k, uint64_t n);

struct FilterSize {
  uint64_t m = 0;      // Bloom: bits; xor / binary fuse: fingerprint slots
  uint32_t k = 0;      // Bloom: hashes; xor / binary fuse: fingerprint bits (8 or 16)
  uint64_t bytes = 0;  // payload bytes
  double rate = 0;     // the model's rate for n keys
};

// The smallest filter of `kind` for n distinct keys at rate p, as `build -n N -p P` and
// `xor-build` size it (xor and binary fuse: 8-bit fingerprints when 2^-8 <= p, else 16-bit).
// Throws FieldError ("n", "p") for n = 0, p outside (0, 1), p below 2^-16 for xor and binary
// fuse, or a Bloom filter above the build limit of 2^40 bits.
FilterSize size_for(Kind kind, uint64_t n, double p);

}  // namespace bloomtool
