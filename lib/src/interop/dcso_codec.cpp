#include "interop/dcso_codec.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

#include "base/byte_order.h"
#include "bloomtool/error.h"
#include "interop/interop_io.h"

// go_log must round exactly like Go's SSE2 code: no fused multiply-adds, so CMake compiles this
// file with -ffp-contract=off.

namespace bloomtool::dcso {

namespace {

double from_bits(uint64_t b) noexcept {
  return std::bit_cast<double>(b);
}

[[noreturn]] void bad(ErrorCode code, const std::string& name, const std::string& what) {
  throw Error(code, name + ": dcso: " + what);
}

void check_geometry(uint64_t k, uint64_t m, const std::string& where) {
  if (k == 0) throw Error(ErrorCode::kInvalidArgument, where + "dcso: k = 0 (must be at least 1)");
  if (m == 0) throw Error(ErrorCode::kInvalidArgument, where + "dcso: m = 0 (must be at least 1)");
  if (k > kMaxK) {
    throw Error(ErrorCode::kLimitExceeded,
                where + "dcso: k = " + std::to_string(k) + " exceeds the limit of 4096");
  }
  if (m > kMaxBits) {
    throw Error(ErrorCode::kLimitExceeded,
                where + "dcso: m = " + std::to_string(m) + " bits exceeds the limit of 2^53");
  }
}

}  // namespace

double go_log(double x) noexcept {
  constexpr double kHSqrt2 = 7.07106781186547524401e-01;
  constexpr double kLn2Hi = 6.93147180369123816490e-01;
  constexpr double kLn2Lo = 1.90821492927058770002e-10;
  constexpr double kL1 = 6.666666666666735130e-01;
  constexpr double kL2 = 3.999999999940941908e-01;
  constexpr double kL3 = 2.857142874366239149e-01;
  constexpr double kL4 = 2.222219843214978396e-01;
  constexpr double kL5 = 1.818357216161805012e-01;
  constexpr double kL6 = 1.531383769920937332e-01;
  constexpr double kL7 = 1.479819860511658591e-01;
  const uint64_t bits = std::bit_cast<uint64_t>(x);
  if ((bits & ~(1ull << 63)) == 0) return -std::numeric_limits<double>::infinity();
  if (static_cast<int64_t>(bits) < 0) return from_bits(0x7FF8000000000001ull);
  if (static_cast<int64_t>(bits) >= static_cast<int64_t>(0x7FF0000000000000ull)) return x;
  // f1, ki := Frexp(x) (the assembly ignores subnormals, and so does this port)
  double f1 = from_bits((bits & 0x000FFFFFFFFFFFFFull) | 0x3FE0000000000000ull);
  double k = static_cast<double>(static_cast<int32_t>((bits >> 52) & 0x7FF) - 0x3FE);
  // CMPSD ..., 5 (not less than): the assembly doubles f1 when !(HSqrt2 < f1)
  if (!(kHSqrt2 < f1)) {
    k -= 1.0;
    f1 *= 2.0;
  }
  const double f = f1 - 1.0;
  const double s = f / (2.0 + f);
  const double s2 = s * s;
  const double s4 = s2 * s2;
  double t1 = kL7 * s4;
  t1 = t1 + kL5;
  t1 = t1 * s4;
  t1 = t1 + kL3;
  t1 = t1 * s4;
  t1 = t1 + kL1;
  t1 = s2 * t1;
  double t2 = kL6 * s4;
  t2 = t2 + kL4;
  t2 = t2 * s4;
  t2 = t2 + kL2;
  t2 = s4 * t2;
  const double r = t1 + t2;
  double hfsq = 0.5 * f;
  hfsq = hfsq * f;
  double a = r + hfsq;
  a = s * a;
  const double klo = kLn2Lo * k;
  a = a + klo;
  double b = hfsq - a;
  b = b - f;
  const double khi = k * kLn2Hi;
  return khi - b;
}

Sizing size_for(uint64_t n, double p) {
  if (n == 0) throw Error(ErrorCode::kInvalidArgument, "dcso: capacity n = 0 (must be at least 1)");
  if (!(p > 0.0 && p < 1.0)) {
    throw Error(ErrorCode::kInvalidArgument,
                "dcso: false positive probability " + std::to_string(p) + " outside (0, 1)");
  }
  const double ln2 = go_log(2.0);
  const double ln2_squared = ln2 * ln2;  // math.Pow(x, 2) computes exactly this product
  // m := math.Abs(math.Ceil(float64(n) * math.Log(p) / math.Pow(math.Log(2.0), 2.0)))
  const double m = std::fabs(std::ceil(static_cast<double>(n) * go_log(p) / ln2_squared));
  if (!(m >= 1.0)) {
    throw Error(ErrorCode::kInvalidArgument, "dcso: n = " + std::to_string(n) +
                                                 ", p = " + std::to_string(p) + " give m = 0 bits");
  }
  if (m > static_cast<double>(kMaxBits)) {
    throw Error(ErrorCode::kLimitExceeded, "dcso: n = " + std::to_string(n) + ", p = " +
                                               std::to_string(p) + " need more than 2^53 bits");
  }
  // k := uint64(math.Ceil(math.Log(2) * m / float64(n)))
  const double k = std::ceil(ln2 * m / static_cast<double>(n));
  if (k > static_cast<double>(kMaxK)) {
    throw Error(ErrorCode::kLimitExceeded,
                "dcso: p = " + std::to_string(p) + " needs k above the limit of 4096");
  }
  Sizing s;
  s.m = static_cast<uint64_t>(m);
  s.k = static_cast<uint64_t>(k);
  return s;
}

File File::make(uint64_t n, double p, uint64_t k, uint64_t m) {
  check_geometry(k, m, "");
  File f;
  f.header.n = n;
  f.header.p_bits = std::bit_cast<uint64_t>(p);
  f.header.k = k;
  f.header.m = m;
  f.words.assign(f.header.words(), 0);
  return f;
}

File File::create(uint64_t n, double p) {
  const Sizing s = size_for(n, p);
  return make(n, p, s.k, s.m);
}

double File::fpp() const noexcept {
  return std::bit_cast<double>(header.p_bits);
}

uint64_t File::bit_count() const noexcept {
  uint64_t c = 0;
  for (uint64_t w : words) c += static_cast<uint64_t>(std::popcount(w));
  return c;
}

BloomFilter File::filter() const {
  const std::string why = scheme_geometry_problem(kHashDcsoFnv1, header.m, header.k);
  if (!why.empty()) throw Error(ErrorCode::kInvalidArgument, "dcso: " + why);
  BloomFilter f(KeyRule{kHashDcsoFnv1, 0}, header.m, static_cast<uint32_t>(header.k));
  std::copy(words.begin(), words.end(), f.mutable_words().begin());
  return f;
}

void File::set_bits(const BloomFilter& filter, uint64_t counted) {
  words.assign(filter.words().begin(), filter.words().end());
  header.count += counted;
}

std::vector<uint8_t> encode(const Header& h, std::span<const uint64_t> words,
                            std::span<const uint8_t> data) {
  std::vector<uint8_t> out(kHeaderBytes + words.size() * 8 + data.size());
  uint8_t* p = out.data();
  for (uint64_t v : {h.flags, h.n, h.p_bits, h.k, h.m, h.count}) {
    le::store<uint64_t>(p, v);
    p += 8;
  }
  for (uint64_t w : words) {
    le::store<uint64_t>(p, w);
    p += 8;
  }
  if (!data.empty()) std::memcpy(p, data.data(), data.size());
  return out;
}

std::vector<uint8_t> File::serialize() const {
  return encode(header, words, data);
}

Header decode_header(std::span<const uint8_t> bytes, const std::string& name,
                     const Limits& limits) {
  if (bytes.size() < kHeaderBytes) {
    bad(ErrorCode::kCorrupt, name,
        "truncated: file has " + std::to_string(bytes.size()) +
            " bytes, the header needs 48 (flags, n, p, k, m, N)");
  }
  const uint8_t* b = bytes.data();
  Header h;
  h.flags = le::load<uint64_t>(b);
  h.n = le::load<uint64_t>(b + 8);
  h.p_bits = le::load<uint64_t>(b + 16);
  h.k = le::load<uint64_t>(b + 24);
  h.m = le::load<uint64_t>(b + 32);
  h.count = le::load<uint64_t>(b + 40);
  if ((h.flags & 0xFF) != 1) {
    bad(ErrorCode::kUnsupported, name,
        "version byte " + std::to_string(h.flags & 0xFF) +
            " at offset 0 (only version 1 exists; a gzip file needs gzip decompression)");
  }
  if (h.k == 0) bad(ErrorCode::kCorrupt, name, "k = 0 at offset 24 (must be at least 1)");
  if (h.k > limits.max_k) {
    bad(ErrorCode::kLimitExceeded, name,
        "k = " + std::to_string(h.k) + " at offset 24 exceeds " + limits.k_limit);
  }
  if (h.m == 0) bad(ErrorCode::kCorrupt, name, "m = 0 bits at offset 32 (must be at least 1)");
  if (h.m > limits.max_m) {
    bad(ErrorCode::kLimitExceeded, name,
        "m = " + std::to_string(h.m) + " bits at offset 32 exceeds " + limits.m_limit);
  }
  return h;
}

File File::deserialize(std::span<const uint8_t> bytes, const std::string& name) {
  File f;
  f.header = decode_header(bytes, name);
  const uint64_t words = f.header.words();
  const uint64_t body = bytes.size() - kHeaderBytes;
  if (words * 8 > body) {
    bad(ErrorCode::kCorrupt, name,
        "m = " + std::to_string(f.header.m) + " bits at offset 32 needs " +
            std::to_string(words * 8) + " bytes of bit array, the file has " +
            std::to_string(body) + " after the header");
  }
  const uint8_t* b = bytes.data();
  f.words.resize(words);
  for (uint64_t i = 0; i < words; ++i) f.words[i] = le::load<uint64_t>(b + kHeaderBytes + 8 * i);
  f.data.assign(bytes.begin() + static_cast<ptrdiff_t>(kHeaderBytes + words * 8), bytes.end());
  return f;
}

File File::read_file(const std::string& path, Compression compression, uint64_t max_bytes) {
  std::vector<uint8_t> bytes = interop_io::read_file(path, max_bytes);
  const bool gz = compression == Compression::kGzip ||
                  (compression == Compression::kAuto && interop_io::looks_gzip(bytes));
  if (!gz) return deserialize(bytes, path);
  const std::vector<uint8_t> plain = interop_io::gunzip(bytes, path, max_bytes);
  return deserialize(plain, path + " (decompressed)");
}

void File::write_file(const std::string& path, Compression compression, int gzip_level) const {
  const std::vector<uint8_t> plain = serialize();
  if (compression == Compression::kGzip) {
    interop_io::write_file_atomic(path, interop_io::gzip(plain, gzip_level));
  } else {
    interop_io::write_file_atomic(path, plain);
  }
}

}  // namespace bloomtool::dcso
