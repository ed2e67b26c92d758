// DCSO bloom v1 (github.com/DCSO/bloom, the `bloom` CLI) files as bytes, bit for bit as its Go
// source writes them, and its sizing. The filter's key rule (FNV-1 64 of the key bytes, then k
// positions from a modular sequence) is key_rule.h's dcso-fnv1: Go's uint64 product wraps modulo
// 2^64 before the `% P`, so the sequence is not the multiplicative one the source comment
// describes; its quality depends on m (a power-of-two m sees only the low bits of the wrapped
// products and gives far more false positives than the textbook model). Position i is bit
// (i % 64) of word i / 64.
//
// File (all integers little-endian uint64), optionally one or more concatenated gzip members:
//   offset  0  flags     the low byte is the version, 1 (the other bytes are not checked by Go)
//   offset  8  n         capacity the filter was sized for
//   offset 16  p         false-positive probability it was sized for (IEEE-754 binary64 bits)
//   offset 24  k         number of hash functions
//   offset 32  m         number of bits
//   offset 40  N         elements counted: an add that set at least one new bit counts one
//   offset 48  M words   M = ceil(m / 64) words of the bit array
//   then       data      arbitrary trailing bytes to the end (`bloom set-data`), kept as is
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "filters/bloom.h"
#include "filters/key_rule.h"

namespace bloomtool::dcso {

inline constexpr uint64_t kPrime = kDcsoPrime;            // P
inline constexpr uint64_t kMultiplier = kDcsoMultiplier;  // G
inline constexpr size_t kHeaderBytes = 48;
// Sane limits this reader enforces (Go's only limit is k < 2^63-1): k up to 4096 (Go's own
// formulas give k < 1100 for any p >= 1e-300), m up to 2^53 (where Go's float64 word count stops
// being exact).
inline constexpr uint64_t kMaxK = 4096;
inline constexpr uint64_t kMaxBits = 1ull << 53;
inline constexpr uint64_t kDefaultMaxBytes = 1ull << 36;  // 64 GiB, file or decompressed

enum class Compression : uint8_t {
  kNone,  // a plain file (`bloom` without --gzip)
  kGzip,  // gzip (`bloom --gzip`)
  kAuto,  // reading only: gzip if the file starts with 1f 8b, else plain
};

// m and k as Initialize(n, p) computes them in Go:
//   m = |ceil(n * ln p / (ln 2)^2)|  (so, for 0 < p < 1, the floor of n * -ln p / (ln 2)^2)
//   k = ceil(ln 2 * m / n)
// using a port of Go's amd64 math.Log so the float results match Go's bit for bit.
struct Sizing {
  uint64_t m = 0;
  uint64_t k = 0;
  uint64_t words() const noexcept { return m / 64 + (m % 64 != 0); }
};
// Throws kInvalidArgument for n = 0 or p outside (0, 1) (where Go would produce m = 0, a k from
// NaN, or a filter that panics on the first add) and kLimitExceeded when m or k exceed the
// limits above.
Sizing size_for(uint64_t n, double p);

// Go's math.Log on amd64 (the archLog assembly, same algorithm as the portable log.go), ported
// operation for operation.
double go_log(double x) noexcept;

// True when the modular sequence is known to degrade for this m (a power of two).
inline bool m_degrades_sequence(uint64_t m) noexcept {
  return scheme_breaks_model(kHashDcsoFnv1, m);
}

// The six header words.
struct Header {
  uint64_t flags = 1;   // version 1 in the low byte
  uint64_t n = 0;       // capacity
  uint64_t p_bits = 0;  // false-positive probability, IEEE-754 binary64 bits
  uint64_t k = 0;
  uint64_t m = 0;
  uint64_t count = 0;  // N
  uint64_t words() const noexcept { return m / 64 + (m % 64 != 0); }
};

// The k and m a reader accepts, with the words its messages give the limits.
struct Limits {
  uint64_t max_k = kMaxK;
  uint64_t max_m = kMaxBits;
  const char* k_limit = "the limit of 4096";
  const char* m_limit = "the limit of 2^53";
};

// Reads the header from the first 48 bytes of `head`; throws kCorrupt (truncated, k = 0, m = 0),
// kUnsupported (version) or kLimitExceeded (k or m above `limits`) naming `name` and the offset.
Header decode_header(std::span<const uint8_t> head, const std::string& name,
                     const Limits& limits = {});
// The file's bytes (uncompressed): header, words, trailing data.
std::vector<uint8_t> encode(const Header& header, std::span<const uint64_t> words,
                            std::span<const uint8_t> data);

// A DCSO file: its header, bit array and trailing data.
struct File {
  Header header;
  std::vector<uint64_t> words;
  std::vector<uint8_t> data;

  // An empty filter as Initialize(n, p) makes it.
  static File create(uint64_t n, double p);
  // An empty filter with explicit geometry; n and p are only recorded. Throws kInvalidArgument
  // for k = 0 or m = 0, kLimitExceeded beyond kMaxK / kMaxBits.
  static File make(uint64_t n, double p, uint64_t k, uint64_t m);

  double fpp() const noexcept;
  uint64_t bit_count() const noexcept;  // set bits

  // The bit array as a filter of the dcso-fnv1 rule (a copy), to add keys to or query. Throws
  // kInvalidArgument beyond bloomtool's k and m (255, 2^40).
  BloomFilter filter() const;
  // Takes the filter's bits back, and N += the keys it counted.
  void set_bits(const BloomFilter& filter, uint64_t counted = 0);

  // Write's bytes (uncompressed), trailing data included. The flags word read from a file is
  // written back unchanged (1 for filters made here), so a read + serialize round trip is exact.
  std::vector<uint8_t> serialize() const;
  // Read with full validation of the uncompressed bytes; `name` (a path) is used in messages.
  static File deserialize(std::span<const uint8_t> bytes, const std::string& name);

  // Reads a file, gunzipping it if asked (or detected, with kAuto). max_bytes bounds both the
  // file and the decompressed data.
  static File read_file(const std::string& path, Compression compression = Compression::kAuto,
                        uint64_t max_bytes = kDefaultMaxBytes);
  // Writes atomically, plain or gzip (one member, zlib at `gzip_level`, header as Go writes it).
  void write_file(const std::string& path, Compression compression = Compression::kNone,
                  int gzip_level = 6) const;
};

}  // namespace bloomtool::dcso
