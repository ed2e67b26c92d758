// Guava and DCSO files read as bloomtool filters and written back (foreign_format.h).
#include "interop/foreign_format.h"

#include <sys/stat.h>

#include <bit>
#include <cmath>
#include <cstring>

#include "base/byte_order.h"
#include "bloomtool/error.h"
#include "filters/bloom.h"
#include "filters/key_rule.h"
#include "interop/dcso_codec.h"
#include "interop/guava_codec.h"
#include "interop/interop_io.h"
#include "keys/hash.h"
#include "model/model.h"

namespace bloomtool {

namespace {

constexpr size_t kDcsoFixedBytes = 44;  // field 7 of a DCSO source up to the gzip header

[[noreturn]] void bad_field(const std::string& path, const std::string& why) {
  throw Error(ErrorCode::kCorrupt, path + ": corrupt: source format field: " + why);
}

int64_t modification_time(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return 0;
  return static_cast<int64_t>(st.st_mtime);
}

// Length of a gzip member's header (RFC 1952: 10 bytes, then FEXTRA, FNAME, FCOMMENT, FHCRC as
// flagged); 0 when the bytes do not hold a complete one.
size_t gzip_header_length(std::span<const uint8_t> b) {
  if (b.size() < 10 || b[0] != 0x1f || b[1] != 0x8b) return 0;
  const uint8_t flg = b[3];
  size_t pos = 10;
  if (flg & 4) {
    if (b.size() < pos + 2) return 0;
    pos += 2 + (b[pos] | (size_t{b[pos + 1]} << 8));
  }
  for (uint8_t bit : {uint8_t{8}, uint8_t{16}}) {
    if (!(flg & bit)) continue;
    while (pos < b.size() && b[pos] != 0) ++pos;
    if (pos >= b.size()) return 0;
    ++pos;
  }
  if (flg & 2) pos += 2;
  return pos <= b.size() ? pos : 0;
}

LoadedFilter make_loaded(uint32_t hash_id, uint64_t m, uint32_t k, WordBuffer words, uint64_t count,
                         const SourceFormat& source, uint64_t file_bytes) {
  LoadedFilter out;
  FilterHeader& h = out.header;
  h.minor = kFormatMinorLatest;
  h.kind = FilterKind::kBloom;
  h.variant = 0;
  h.hash_id = hash_id;
  h.seed = 0;
  h.m = m;
  h.k = k;
  h.keys_added = count;
  h.distinct_estimate = count;
  // Neither peer records its distinct keys (DCSO's N counts only the adds that set a new bit, a
  // lower bound): the fill's estimate, as Guava's approximateElementCount computes it.
  // Over the bits the scheme can reach (guava-mitz32 never sets one at or above 2^31).
  const uint64_t reach = scheme_reachable_bits(hash_id, m);
  uint64_t set_bits = 0;
  for (uint64_t i = 0; i < (reach + 63) / 64; ++i)
    set_bits += static_cast<uint64_t>(std::popcount(words.data()[i]));
  const double distinct =
      model::bloom_fill_distinct(static_cast<double>(set_bits), static_cast<double>(reach), k);
  h.distinct_estimate =
      std::isfinite(distinct) ? static_cast<uint64_t>(std::floor(distinct + 0.5)) : m;
  h.payload_raw_bytes = words.size() * 8;
  h.source_format = encode_source_format(source);
  out.file_bytes = file_bytes;
  out.filter = std::make_unique<BloomFilter>(KeyRule{hash_id, 0}, m, k, BloomVariant::kStandard,
                                             std::move(words));
  return out;
}

uint64_t load_be64(const uint8_t* p) noexcept {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = v << 8 | p[i];
  return v;
}

// What a file that is not in the format asked for looks like, from its first bytes: "" when
// nothing is recognised.
std::string looks_like(std::span<const uint8_t> head) {
  static constexpr uint8_t kBloomtool[8] = {0x89, 'B', 'L', 'M', '\r', '\n', 0x1A, '\n'};
  static constexpr uint8_t kZstd[4] = {0x28, 0xB5, 0x2F, 0xFD};
  if (head.size() >= 4 && std::memcmp(head.data(), kBloomtool, 4) == 0)
    return "a bloomtool filter file (magic 89 42 4c 4d); read it as a bloomtool file";
  if (interop_io::looks_gzip(head))
    return "gzip-compressed (magic 1f 8b), as a gzip DCSO file is; read it as a dcso file";
  if (head.size() >= 4 && std::memcmp(head.data(), kZstd, 4) == 0)
    return "zstd-compressed (magic 28 b5 2f fd); decompress it first";
  return "";
}

// Reads exactly n bytes unless the data ends first; returns how many arrived.
uint64_t read_full(interop_io::InputStream& in, uint8_t* dst, uint64_t n) {
  uint64_t got = 0;
  while (got < n) {
    const size_t r = in.read(dst + got, static_cast<size_t>(std::min<uint64_t>(n - got, 1u << 30)));
    if (r == 0) break;
    got += r;
  }
  return got;
}

// Reads `words` words of the bit array into a buffer (8-byte little- or big-endian words) a
// window at a time; returns the bytes that arrived (fewer than 8 * words when the data ends).
uint64_t read_words(interop_io::InputStream& in, WordBuffer& out, bool big_endian) {
  const uint64_t total = out.size() * 8;
  auto* bytes = reinterpret_cast<uint8_t*>(out.data());
  constexpr uint64_t kWindow = uint64_t{1} << 20;
  uint64_t at = 0;
  while (at < total) {
    const uint64_t want = std::min(kWindow, total - at);
    const uint64_t got = read_full(in, bytes + at, want);
    at += got;
    if (got < want) break;
  }
  for (uint64_t i = 0; i < at / 8; ++i) {
    out.data()[i] = big_endian ? load_be64(bytes + 8 * i) : le::load<uint64_t>(bytes + 8 * i);
  }
  return at;
}

// Checks the bit array's size against this machine before it is allocated.
void check_fits(uint64_t bytes, uint64_t max_bytes, const std::string& name) {
  if (bytes > max_bytes) {
    throw Error(ErrorCode::kLimitExceeded, name + ": bit array of " + std::to_string(bytes) +
                                               " bytes exceeds the limit of " +
                                               std::to_string(max_bytes) + " bytes");
  }
  FilterHeader h;
  h.payload_raw_bytes = bytes;
  check_payload_fits_memory(h, name);
}

LoadedFilter read_guava(interop_io::InputStream& in, const std::string& path, uint64_t max_bytes) {
  auto bad = [&](ErrorCode code, const std::string& what) -> void {
    throw Error(code, path + ": guava: " + what);
  };
  uint8_t head[guava::kHeaderBytes];
  const uint64_t have = read_full(in, head, sizeof head);
  const std::string other = looks_like(std::span<const uint8_t>(head, have));
  if (!other.empty()) bad(ErrorCode::kCorrupt, "not a Guava file: it is " + other);
  const guava::Header gh = guava::decode_header(std::span<const uint8_t>(head, have), path);
  const uint32_t k = gh.k;
  const uint64_t words = gh.words;
  const uint64_t need = words * 8;
  auto too_short = [&](uint64_t body) {
    bad(ErrorCode::kCorrupt, "data length " + std::to_string(words) + " longs at offset 2 (" +
                                 std::to_string(need) + " bytes) exceeds the file (" +
                                 std::to_string(body) + " bytes after the header)");
  };
  auto trailing = [&](uint64_t extra, bool more) {
    bad(ErrorCode::kCorrupt, (more ? "more than " : "") + std::to_string(extra) +
                                 " trailing bytes at offset " +
                                 std::to_string(guava::kHeaderBytes + need) + " after the " +
                                 std::to_string(words) + " longs of the bit array");
  };
  if (const auto size = in.file_size()) {  // a regular file: its length is known before reading
    const uint64_t body = *size - std::min<uint64_t>(*size, guava::kHeaderBytes);
    if (need > body) too_short(body);
    if (need < body) trailing(body - need, false);
  }
  check_fits(need, max_bytes, path);
  WordBuffer w(static_cast<size_t>(words));
  const uint64_t got = read_words(in, w, true);
  if (got < need) too_short(got);
  constexpr uint64_t kCountRest = uint64_t{1} << 20;
  if (const uint64_t extra = in.skip(kCountRest); extra != 0)
    trailing(std::min(extra, kCountRest), extra > kCountRest);
  const uint64_t m = need * 8;
  const uint32_t hash_id = guava::hash_id_of(gh.strategy);
  // Guava stores no count: keys added is its approximateElementCount of the fill (over the bits
  // the strategy can reach), as distinct keys are.
  const uint64_t reach = scheme_reachable_bits(hash_id, m);
  uint64_t set = 0;
  for (uint64_t i = 0; i < reach / 64; ++i)
    set += static_cast<uint64_t>(std::popcount(w.data()[i]));
  const double estimate = -std::log1p(-static_cast<double>(set) / static_cast<double>(reach)) *
                          static_cast<double>(reach) / k;
  uint64_t count = estimate < 9.2e18 ? static_cast<uint64_t>(std::floor(estimate + 0.5)) : m;
  if (count > m) count = m;
  return make_loaded(hash_id, m, k, std::move(w), count, SourceFormat{},
                     guava::kHeaderBytes + need);
}

// The most of a DCSO data block bloomtool reads (`bloom set-data` keeps a short note there): a
// longer block, or one that decompresses without end, is refused once this much has been read.
constexpr uint64_t kMaxDcsoDataBytes = uint64_t{64} << 20;

LoadedFilter read_dcso(interop_io::InputStream& in, const std::string& path, bool keep_source,
                       uint64_t max_bytes) {
  const uint64_t data_limit = std::min(kMaxDcsoDataBytes, max_bytes);
  SourceFormat s;
  s.source = SourceFormat::Source::kDcso;
  std::string name = path;
  const auto head = in.peek_raw(kMaxGzipHeaderBytes + 1);
  if (interop_io::looks_gzip(head)) {
    // The member header is kept only by convert, which writes it back; query and stats let zlib
    // read it, whatever its length.
    if (keep_source) {
      const size_t header = gzip_header_length(head);
      if (header == 0 && head.size() <= kMaxGzipHeaderBytes)
        throw Error(ErrorCode::kCorrupt, path + ": gzip: truncated member header");
      if (header == 0 || header > kMaxGzipHeaderBytes) {
        throw Error(ErrorCode::kLimitExceeded,
                    path + ": gzip: member header of more than " +
                        std::to_string(kMaxGzipHeaderBytes) +
                        " bytes (a long file name or comment): a converted file keeps the header, "
                        "and at most 1024 bytes of it; query and stats read such a file");
      }
      s.gzip_header.assign(head.begin(), head.begin() + static_cast<ptrdiff_t>(header));
    }
    s.gzip = true;
    in.start_gzip();
    name = path + " (decompressed)";
  } else {
    const std::string other = looks_like(head);
    if (!other.empty())
      throw Error(ErrorCode::kCorrupt, path + ": dcso: not a DCSO file: it is " + other);
  }
  auto bad = [&](ErrorCode code, const std::string& what) -> void {
    throw Error(code, name + ": dcso: " + what);
  };
  uint8_t b[dcso::kHeaderBytes];
  const uint64_t have = read_full(in, b, sizeof b);
  // One limit each for k and m, bloomtool's (the DCSO format allows more).
  static constexpr dcso::Limits kLimits{kMaxSchemeK, model::kMaxBits, "bloomtool's limit of 255",
                                        "bloomtool's limit of 2^40"};
  const dcso::Header dh = dcso::decode_header(std::span<const uint8_t>(b, have), name, kLimits);
  s.flags = dh.flags;
  s.capacity = dh.n;
  s.fpp_bits = dh.p_bits;
  s.count = dh.count;
  const uint64_t k = dh.k;
  const uint64_t m = dh.m;
  const uint64_t words = dh.words();
  auto too_short = [&](uint64_t body) {
    bad(ErrorCode::kCorrupt, "m = " + std::to_string(m) + " bits at offset 32 needs " +
                                 std::to_string(words * 8) + " bytes of bit array, the file has " +
                                 std::to_string(body) + " after the header");
  };
  if (const auto size = in.file_size();
      size && !in.gzip() && words * 8 > *size - dcso::kHeaderBytes)
    too_short(*size - dcso::kHeaderBytes);
  check_fits(words * 8, max_bytes, path);
  WordBuffer w(static_cast<size_t>(words));
  const uint64_t got = read_words(in, w, false);
  if (got < words * 8) too_short(got);
  if (m % 64 != 0 && (w.data()[words - 1] >> (m % 64)) != 0) {
    bad(ErrorCode::kCorrupt, "bits set beyond m = " + std::to_string(m) +
                                 " in the last word (offset " +
                                 std::to_string(48 + 8 * (words - 1)) + ")");
  }
  // The data block: kept for convert (which writes it back), else read past (a gzip member's
  // checksum covers it), never more than kMaxDcsoDataBytes of it.
  const uint64_t data_at = dcso::kHeaderBytes + words * 8;
  auto data_too_long = [&] {
    bad(ErrorCode::kLimitExceeded, "data block at offset " + std::to_string(data_at) +
                                       " longer than " + std::to_string(data_limit) +
                                       " bytes, the most bloomtool reads of it");
  };
  if (keep_source) {
    uint8_t piece[1 << 14];
    for (;;) {
      const size_t r = in.read(piece, sizeof piece);
      if (r == 0) break;
      if (s.data.size() + r > data_limit) data_too_long();
      s.data.insert(s.data.end(), piece, piece + r);
    }
  } else {
    if (in.skip(data_limit) > data_limit) data_too_long();
  }
  const uint64_t file_bytes = in.raw_offset();
  return make_loaded(kHashDcsoFnv1, m, static_cast<uint32_t>(k), std::move(w), s.count, s,
                     file_bytes);
}

[[noreturn]] void cannot_write(const std::string& path, FileFormat to, const std::string& why) {
  throw Error(ErrorCode::kInvalidArgument,
              path + ": cannot write a " + file_format_name(to) + " file: " + why);
}

// The filter as a Bloom bit array of a peer's rule, or cannot_write.
const BloomFilter& peer_bloom(const LoadedFilter& f, const std::string& path, FileFormat to,
                              const char* wanted) {
  const BloomFilter* b = f.filter->bloom();
  if (b == nullptr || b->rule().takes_key_hash() || f.header.kind != FilterKind::kBloom) {
    cannot_write(path, to,
                 std::string("the filter uses hash scheme ") + hash_scheme_name(f.header.hash_id) +
                     " (hash id " + std::to_string(f.header.hash_id) + "), " + wanted);
  }
  return *b;
}

}  // namespace

const char* file_format_name(FileFormat f) noexcept {
  switch (f) {
    case FileFormat::kGuava:
      return "guava";
    case FileFormat::kDcso:
      return "dcso";
    default:
      return "bloomtool";
  }
}

FileFormat parse_file_format(std::string_view name) {
  if (name == "bloomtool") return FileFormat::kBloomtool;
  if (name == "guava") return FileFormat::kGuava;
  if (name == "dcso") return FileFormat::kDcso;
  throw Error(ErrorCode::kInvalidArgument,
              "'" + std::string(name) + "' is not a format (bloomtool, guava or dcso)");
}

std::string encode_source_format(const SourceFormat& s) {
  std::string out(4, '\0');
  le::store<uint32_t>(reinterpret_cast<uint8_t*>(out.data()), static_cast<uint32_t>(s.source));
  if (s.source != SourceFormat::Source::kDcso) return out;
  const size_t g = s.gzip ? s.gzip_header.size() : 0;
  out.resize(kDcsoFixedBytes + g + 8 + s.data.size());
  auto* p = reinterpret_cast<uint8_t*>(out.data());
  le::store<uint32_t>(p + 4, s.gzip ? 1 : 0);
  le::store<uint64_t>(p + 8, s.flags);
  le::store<uint64_t>(p + 16, s.capacity);
  le::store<uint64_t>(p + 24, s.fpp_bits);
  le::store<uint64_t>(p + 32, s.count);
  le::store<uint32_t>(p + 40, static_cast<uint32_t>(g));
  if (g != 0) std::memcpy(p + kDcsoFixedBytes, s.gzip_header.data(), g);
  le::store<uint64_t>(p + kDcsoFixedBytes + g, s.data.size());
  if (!s.data.empty()) std::memcpy(p + kDcsoFixedBytes + g + 8, s.data.data(), s.data.size());
  return out;
}

SourceFormat decode_source_format(std::string_view bytes, const std::string& path) {
  const auto* p = reinterpret_cast<const uint8_t*>(bytes.data());
  if (bytes.size() < 4) bad_field(path, "shorter than 4 bytes");
  SourceFormat s;
  const uint32_t source = le::load<uint32_t>(p);
  if (source == 1) {
    if (bytes.size() != 4) bad_field(path, "a guava source holds 4 bytes");
    return s;
  }
  if (source != 2) bad_field(path, "unknown source " + std::to_string(source));
  s.source = SourceFormat::Source::kDcso;
  if (bytes.size() < kDcsoFixedBytes + 8) bad_field(path, "a dcso source is cut short");
  const uint32_t container = le::load<uint32_t>(p + 4);
  if (container > 1) bad_field(path, "unknown container " + std::to_string(container));
  s.gzip = container == 1;
  s.flags = le::load<uint64_t>(p + 8);
  s.capacity = le::load<uint64_t>(p + 16);
  s.fpp_bits = le::load<uint64_t>(p + 24);
  s.count = le::load<uint64_t>(p + 32);
  const uint32_t g = le::load<uint32_t>(p + 40);
  if (s.gzip ? (g < 10 || g > kMaxGzipHeaderBytes) : g != 0)
    bad_field(path, "gzip header length " + std::to_string(g));
  if (bytes.size() < kDcsoFixedBytes + g + 8) bad_field(path, "a dcso source is cut short");
  s.gzip_header.assign(p + kDcsoFixedBytes, p + kDcsoFixedBytes + g);
  if (s.gzip && gzip_header_length(s.gzip_header) != g)
    bad_field(path, "the gzip header is not one complete member header");
  const uint64_t data = le::load<uint64_t>(p + kDcsoFixedBytes + g);
  if (data != bytes.size() - (kDcsoFixedBytes + g + 8))
    bad_field(path, "data block length " + std::to_string(data) + " does not match the field");
  s.data.assign(p + kDcsoFixedBytes + g + 8, p + bytes.size());
  return s;
}

void check_source_format(const FilterHeader& h, const std::string& path) {
  if (h.source_format.empty() || !is_key_scheme(h.hash_id)) return;
  const SourceFormat src = decode_source_format(h.source_format, path);
  const bool dcso = h.hash_id == kHashDcsoFnv1;
  if (dcso != (src.source == SourceFormat::Source::kDcso)) {
    throw Error(ErrorCode::kCorrupt, path +
                                         ": corrupt: source format field does not match hash "
                                         "scheme " +
                                         std::string(hash_scheme_name(h.hash_id)));
  }
}

LoadedFilter parse_foreign(std::span<const uint8_t> bytes, FileFormat format,
                           const std::string& name, uint64_t max_bytes) {
  interop_io::InputStream in(bytes, name);
  if (format == FileFormat::kGuava) return read_guava(in, name, max_bytes);
  if (format == FileFormat::kDcso) return read_dcso(in, name, true, max_bytes);
  throw Error(ErrorCode::kInvalidArgument, "parse_foreign: not a peer format");
}

LoadedFilter read_foreign_file(const std::string& path, FileFormat format, bool keep_source) {
  if (format == FileFormat::kBloomtool) {
    throw Error(ErrorCode::kInvalidArgument, "read_foreign_file: not a peer format");
  }
  const std::string name = path == "-" ? "<stdin>" : path;
  interop_io::InputStream in(path, name);
  LoadedFilter f = format == FileFormat::kGuava ? read_guava(in, name, UINT64_MAX)
                                                : read_dcso(in, name, keep_source, UINT64_MAX);
  if (path != "-") f.header.created_unix = modification_time(path);
  return f;
}

std::vector<uint8_t> encode_foreign(const LoadedFilter& f, FileFormat to, const std::string& path,
                                    const ForeignWriteOptions& opt) {
  const FilterHeader& h = f.header;
  if (to == FileFormat::kGuava) {
    const BloomFilter& s = peer_bloom(f, path, to, "not guava-mitz64 or guava-mitz32");
    if (s.rule().hash_id == kHashDcsoFnv1)
      cannot_write(path, to, "the filter uses hash scheme dcso-fnv1 (hash id 4)");
    if (s.bits() / 64 > guava::kMaxWords) {
      cannot_write(path, to, std::to_string(s.bits()) + " bits need more than 2^31-1 words");
    }
    return guava::serialize(s);
  }
  if (to != FileFormat::kDcso) {
    throw Error(ErrorCode::kInvalidArgument, "encode_foreign: not a foreign format");
  }
  const BloomFilter& s = peer_bloom(f, path, to, "not dcso-fnv1");
  const uint32_t hash_id = s.rule().hash_id;
  if (hash_id != kHashDcsoFnv1) {
    cannot_write(path, to,
                 std::string("the filter uses hash scheme ") + hash_scheme_name(hash_id) +
                     " (hash id " + std::to_string(hash_id) + "), not dcso-fnv1");
  }
  SourceFormat src;
  if (!h.source_format.empty()) {
    src = decode_source_format(h.source_format, path);
  } else {
    src.source = SourceFormat::Source::kDcso;
    src.capacity = h.distinct_estimate;
    src.fpp_bits = std::bit_cast<uint64_t>(
        model::bloom_fpr(static_cast<double>(h.m), static_cast<double>(h.distinct_estimate), h.k));
    src.count = h.keys_added;
  }
  if (src.source != SourceFormat::Source::kDcso) {
    cannot_write(path, to, "its source format field describes a guava file");
  }
  const dcso::Header dh{src.flags, src.capacity, src.fpp_bits, s.k(), s.bits(), src.count};
  std::vector<uint8_t> plain = dcso::encode(dh, s.words(), src.data);
  if (!opt.gzip.value_or(src.gzip)) return plain;
  std::vector<uint8_t> gz = interop_io::gzip(plain, opt.gzip_level);
  if (src.gzip && !src.gzip_header.empty()) {
    // zlib's member header is Go's 10 bytes; put the original header in its place.
    std::vector<uint8_t> out(src.gzip_header);
    out.insert(out.end(), gz.begin() + 10, gz.end());
    return out;
  }
  return gz;
}

}  // namespace bloomtool
