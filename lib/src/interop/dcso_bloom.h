// DCSO bloom v1 (github.com/DCSO/bloom, the `bloom` CLI), bit for bit as its Go source computes
// it: FNV-1 64 of the key bytes, then k positions from the modular sequence
//
//   h = fnv1_64(key) % P;  repeat k times: h = (h * G mod 2^64) % P;  position = h % m
//
// with P = 18446744073709551557 (the largest prime below 2^64) and G = 18446744073709550147. Go's
// uint64 product wraps modulo 2^64 before the `% P`, so the sequence is not the multiplicative
// one the source comment describes; its quality depends on m (a power-of-two m sees only the
// low bits of the wrapped products and gives far more false positives than the textbook model).
// Position i is bit (i % 64) of word i / 64.
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

namespace bloomtool::dcso {

inline constexpr uint64_t kPrime = 18446744073709551557ull;       // P
inline constexpr uint64_t kMultiplier = 18446744073709550147ull;  // G
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
bool m_degrades_sequence(uint64_t m) noexcept;

class DcsoBloom {
 public:
  // An empty filter as Initialize(n, p) makes it.
  static DcsoBloom create(uint64_t n, double p);
  // An empty filter with explicit geometry; n and p are only recorded. Throws kInvalidArgument
  // for k = 0 or m = 0, kLimitExceeded beyond kMaxK / kMaxBits.
  DcsoBloom(uint64_t n, double p, uint64_t k, uint64_t m);

  // Add: returns true if the key set at least one new bit (and so was counted in N).
  bool add(std::string_view key) noexcept;
  // Check.
  bool check(std::string_view key) const noexcept;
  // The k positions of Fingerprint; `out` must hold k() entries.
  void positions(std::string_view key, uint64_t* out) const noexcept;

  uint64_t capacity() const noexcept { return n_; }
  double fpp() const noexcept;
  uint64_t fpp_bits() const noexcept { return p_bits_; }
  uint64_t k() const noexcept { return k_; }
  uint64_t bits() const noexcept { return m_; }
  uint64_t count() const noexcept { return count_; }
  void set_count(uint64_t n) noexcept { count_ = n; }
  uint64_t flags() const noexcept { return flags_; }
  uint64_t bit_count() const noexcept;  // set bits
  const std::vector<uint64_t>& words() const noexcept { return words_; }
  std::vector<uint64_t>& mutable_words() noexcept { return words_; }
  const std::vector<uint8_t>& data() const noexcept { return data_; }
  void set_data(std::vector<uint8_t> data) { data_ = std::move(data); }

  // Write's bytes (uncompressed), trailing data included. The flags word read from a file is
  // written back unchanged (1 for filters made here), so a read + serialize round trip is exact.
  std::vector<uint8_t> serialize() const;
  // Read with full validation of the uncompressed bytes; `name` (a path) is used in messages.
  static DcsoBloom deserialize(std::span<const uint8_t> bytes, const std::string& name);

  // Reads a file, gunzipping it if asked (or detected, with kAuto). max_bytes bounds both the
  // file and the decompressed data.
  static DcsoBloom read_file(const std::string& path, Compression compression = Compression::kAuto,
                             uint64_t max_bytes = kDefaultMaxBytes);
  // Writes atomically, plain or gzip (one member, zlib at `gzip_level`, header as Go writes it).
  void write_file(const std::string& path, Compression compression = Compression::kNone,
                  int gzip_level = 6) const;

 private:
  DcsoBloom() = default;
  uint64_t flags_ = 1;
  uint64_t n_ = 0;
  uint64_t p_bits_ = 0;
  uint64_t k_ = 0;
  uint64_t m_ = 0;
  uint64_t count_ = 0;
  std::vector<uint64_t> words_;
  std::vector<uint8_t> data_;
};

}  // namespace bloomtool::dcso
