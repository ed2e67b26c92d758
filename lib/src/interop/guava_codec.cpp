#include "interop/guava_codec.h"

#include <bit>
#include <cmath>
#include <limits>

#include "bloomtool/error.h"
#include "interop/interop_io.h"
#include "keys/hash.h"

namespace bloomtool::guava {

namespace {

// Java's (long) d: NaN -> 0, saturating, truncating toward zero.
int64_t java_d2l(double d) noexcept {
  if (std::isnan(d)) return 0;
  if (d >= 9223372036854775807.0) return std::numeric_limits<int64_t>::max();
  if (d <= -9223372036854775808.0) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(d);
}

// Java's Math.round(double): the closest long, ties toward positive infinity; NaN -> 0.
int64_t java_round(double d) noexcept {
  if (std::isnan(d)) return 0;
  const double f = std::floor(d);
  return java_d2l(d - f >= 0.5 ? f + 1.0 : f);
}

// Java's (int) l: the low 32 bits, two's complement.
int32_t java_l2i(int64_t v) noexcept {
  return static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(v)));
}

uint64_t load_be64(const uint8_t* p) noexcept {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = (v << 8) | p[i];
  return v;
}

void store_be64(uint8_t* p, uint64_t v) noexcept {
  for (int i = 7; i >= 0; --i) {
    p[i] = static_cast<uint8_t>(v);
    v >>= 8;
  }
}

[[noreturn]] void bad(ErrorCode code, const std::string& name, const std::string& what) {
  throw Error(code, name + ": guava: " + what);
}

}  // namespace

uint64_t optimal_num_of_bits(uint64_t n, double p) noexcept {
  if (p == 0) p = std::numeric_limits<double>::denorm_min();  // Double.MIN_VALUE
  const double ln2 = std::log(2.0);
  // Java: (long) (-n * Math.log(p) / (Math.log(2) * Math.log(2))) with n a long.
  const int64_t bits =
      java_d2l(static_cast<double>(-static_cast<int64_t>(n)) * std::log(p) / (ln2 * ln2));
  return bits < 0 ? 0 : static_cast<uint64_t>(bits);
}

Sizing size_for(uint64_t n, double p, KRule rule) {
  if (!(p > 0.0)) {
    throw Error(ErrorCode::kInvalidArgument,
                "guava: false positive probability (" + std::to_string(p) + ") must be > 0.0");
  }
  if (!(p < 1.0)) {
    throw Error(ErrorCode::kInvalidArgument,
                "guava: false positive probability (" + std::to_string(p) + ") must be < 1.0");
  }
  if (n > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    throw Error(ErrorCode::kInvalidArgument,
                "guava: expected insertions (" + std::to_string(n) + ") exceed a Java long");
  }
  if (n == 0) n = 1;
  Sizing s;
  s.requested_bits = optimal_num_of_bits(n, p);
  int32_t k = 0;
  if (rule == KRule::kFromBits) {
    // max(1, (int) Math.round((double) m / n * Math.log(2)))
    k = java_l2i(
        java_round(static_cast<double>(s.requested_bits) / static_cast<double>(n) * std::log(2.0)));
  } else {
    // max(1, (int) Math.round(-Math.log(p) / Math.log(2)))
    k = java_l2i(java_round(-std::log(p) / std::log(2.0)));
  }
  if (k < 1) k = 1;
  if (s.requested_bits == 0) {
    throw Error(ErrorCode::kInvalidArgument,
                "guava: a bit count of 0 for n = " + std::to_string(n) +
                    ", p = " + std::to_string(p) + " (Guava: data length is zero)");
  }
  s.words = s.requested_bits / 64 + (s.requested_bits % 64 != 0);
  if (s.words > kMaxWords) {
    throw Error(ErrorCode::kInvalidArgument, "guava: " + std::to_string(s.requested_bits) +
                                                 " bits need " + std::to_string(s.words) +
                                                 " words, above Guava's limit of 2^31-1");
  }
  if (static_cast<uint32_t>(k) > kMaxHashFunctions) {
    throw Error(ErrorCode::kInvalidArgument,
                "guava: numHashFunctions (" + std::to_string(k) + ") must be <= 255");
  }
  s.k = static_cast<uint32_t>(k);
  return s;
}

uint32_t hash_id_of(Strategy strategy) noexcept {
  return strategy == Strategy::kMurmur128Mitz32 ? kHashGuavaMitz32 : kHashGuavaMitz64;
}

Strategy strategy_of(uint32_t hash_id) noexcept {
  return hash_id == kHashGuavaMitz32 ? Strategy::kMurmur128Mitz32 : Strategy::kMurmur128Mitz64;
}

BloomFilter make(uint64_t words, uint32_t k, Strategy strategy) {
  if (words == 0 || words > kMaxWords) {
    throw Error(ErrorCode::kInvalidArgument,
                "guava: word count " + std::to_string(words) + " outside 1..2^31-1");
  }
  if (k == 0 || k > kMaxHashFunctions) {
    throw Error(ErrorCode::kInvalidArgument, "guava: k = " + std::to_string(k) + " outside 1..255");
  }
  if (strategy != Strategy::kMurmur128Mitz32 && strategy != Strategy::kMurmur128Mitz64) {
    throw Error(ErrorCode::kInvalidArgument,
                "guava: unknown strategy ordinal " + std::to_string(static_cast<int>(strategy)));
  }
  return BloomFilter(KeyRule{hash_id_of(strategy), 0}, words * 64, k);
}

BloomFilter create(uint64_t n, double p, Strategy strategy, KRule rule) {
  const Sizing s = size_for(n, p, rule);
  return make(s.words, s.k, strategy);
}

uint64_t approximate_element_count(const BloomFilter& f) noexcept {
  const double m = static_cast<double>(f.bits());
  const double fraction = static_cast<double>(f.set_bit_count()) / m;
  const double estimate = -std::log1p(-fraction) * m / static_cast<double>(f.k());
  if (!(estimate < 9.2e18)) return std::numeric_limits<uint64_t>::max();  // all bits set
  return static_cast<uint64_t>(std::floor(estimate + 0.5));
}

std::vector<uint8_t> encode(Strategy strategy, uint32_t k, std::span<const uint64_t> words) {
  std::vector<uint8_t> out(kHeaderBytes + words.size() * 8);
  out[0] = static_cast<uint8_t>(strategy);
  out[1] = static_cast<uint8_t>(k);
  const uint32_t w = static_cast<uint32_t>(words.size());
  out[2] = static_cast<uint8_t>(w >> 24);
  out[3] = static_cast<uint8_t>(w >> 16);
  out[4] = static_cast<uint8_t>(w >> 8);
  out[5] = static_cast<uint8_t>(w);
  for (size_t i = 0; i < words.size(); ++i) store_be64(&out[kHeaderBytes + 8 * i], words[i]);
  return out;
}

std::vector<uint8_t> serialize(const BloomFilter& f) {
  return encode(strategy_of(f.rule().hash_id), f.k(), f.words());
}

Header decode_header(std::span<const uint8_t> head, const std::string& name) {
  if (head.size() < kHeaderBytes) {
    bad(ErrorCode::kCorrupt, name,
        "truncated: file has " + std::to_string(head.size()) +
            " bytes, the header needs 6 (strategy, k, word count)");
  }
  const int8_t ordinal = static_cast<int8_t>(head[0]);
  if (ordinal != 0 && ordinal != 1) {
    bad(ErrorCode::kUnsupported, name,
        "strategy ordinal " + std::to_string(ordinal) +
            " at offset 0 is not MURMUR128_MITZ_32 (0) or MURMUR128_MITZ_64 (1)");
  }
  const uint32_t k = head[1];
  if (k == 0) bad(ErrorCode::kCorrupt, name, "k = 0 at offset 1 (must be 1..255)");
  const int32_t words = static_cast<int32_t>((static_cast<uint32_t>(head[2]) << 24) |
                                             (static_cast<uint32_t>(head[3]) << 16) |
                                             (static_cast<uint32_t>(head[4]) << 8) | head[5]);
  if (words <= 0) {
    bad(ErrorCode::kCorrupt, name,
        "data length " + std::to_string(words) + " longs at offset 2 (must be positive)");
  }
  return Header{static_cast<Strategy>(ordinal), k, static_cast<uint64_t>(words)};
}

BloomFilter deserialize(std::span<const uint8_t> bytes, const std::string& name,
                        bool allow_trailing) {
  const Header h = decode_header(bytes, name);
  const uint64_t body = bytes.size() - kHeaderBytes;
  const uint64_t need = h.words * 8;
  if (need > body) {
    bad(ErrorCode::kCorrupt, name,
        "data length " + std::to_string(h.words) + " longs at offset 2 (" + std::to_string(need) +
            " bytes) exceeds the file (" + std::to_string(body) + " bytes after the header)");
  }
  if (need < body && !allow_trailing) {
    bad(ErrorCode::kCorrupt, name,
        std::to_string(body - need) + " trailing bytes at offset " +
            std::to_string(kHeaderBytes + need) + " after the " + std::to_string(h.words) +
            " longs of the bit array");
  }
  BloomFilter f = make(h.words, h.k, h.strategy);
  uint64_t* w = f.mutable_words().data();
  for (uint64_t i = 0; i < h.words; ++i) w[i] = load_be64(bytes.data() + kHeaderBytes + 8 * i);
  return f;
}

BloomFilter read_file(const std::string& path, bool allow_trailing, uint64_t max_bytes) {
  const std::vector<uint8_t> bytes = interop_io::read_file(path, max_bytes);
  return deserialize(bytes, path, allow_trailing);
}

void write_file(const BloomFilter& filter, const std::string& path) {
  const std::vector<uint8_t> bytes = serialize(filter);
  interop_io::write_file_atomic(path, bytes);
}

}  // namespace bloomtool::guava
