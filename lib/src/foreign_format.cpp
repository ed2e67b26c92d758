// Guava and DCSO files read as bloomtool filters and written back (foreign_format.h).
#include "bloomtool/foreign_format.h"

#include <sys/stat.h>

#include <bit>
#include <cmath>
#include <cstring>

#include "bloomtool/bloom.h"
#include "bloomtool/dcso_bloom.h"
#include "bloomtool/error.h"
#include "bloomtool/guava_bloom.h"
#include "bloomtool/hash.h"
#include "bloomtool/model.h"
#include "bloomtool/scheme_bloom.h"
#include "byte_order.h"
#include "interop_io.h"

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
  uint64_t set_bits = 0;
  for (uint64_t w : words.span()) set_bits += static_cast<uint64_t>(std::popcount(w));
  const double distinct =
      model::bloom_fill_distinct(static_cast<double>(set_bits), static_cast<double>(m), k);
  h.distinct_estimate =
      std::isfinite(distinct) ? static_cast<uint64_t>(std::floor(distinct + 0.5)) : m;
  h.payload_raw_bytes = words.size() * 8;
  h.source_format = encode_source_format(source);
  out.file_bytes = file_bytes;
  out.filter = std::make_unique<SchemeBloom>(hash_id, m, k, std::move(words));
  return out;
}

LoadedFilter parse_guava(std::span<const uint8_t> bytes, const std::string& path) {
  guava::GuavaBloom g = guava::GuavaBloom::deserialize(bytes, path);
  const uint64_t m = g.bit_size();
  if (m > model::kMaxBits) {
    throw Error(ErrorCode::kLimitExceeded,
                path + ": guava: " + std::to_string(m) + " bits exceed bloomtool's limit of 2^40");
  }
  WordBuffer words(g.words().size());
  std::memcpy(words.data(), g.words().data(), g.words().size() * 8);
  const uint32_t hash_id =
      g.strategy() == guava::Strategy::kMurmur128Mitz64 ? kHashGuavaMitz64 : kHashGuavaMitz32;
  // Guava stores no count: keys added is its own estimate from the fill, as distinct keys are.
  uint64_t count = g.approximate_element_count();
  if (count > m) count = m;
  return make_loaded(hash_id, m, g.k(), std::move(words), count, SourceFormat{}, bytes.size());
}

LoadedFilter parse_dcso(std::span<const uint8_t> file, const std::string& path,
                        uint64_t max_bytes) {
  SourceFormat s;
  s.source = SourceFormat::Source::kDcso;
  std::string name = path;
  std::vector<uint8_t> plain_storage;
  std::span<const uint8_t> plain(file);
  if (interop_io::looks_gzip(file)) {
    const size_t header = gzip_header_length(file);
    if (header == 0) throw Error(ErrorCode::kCorrupt, path + ": gzip: truncated member header");
    if (header > kMaxGzipHeaderBytes) {
      throw Error(ErrorCode::kLimitExceeded, path + ": gzip: member header of " +
                                                 std::to_string(header) +
                                                 " bytes, more than the 1024 bloomtool keeps");
    }
    s.gzip = true;
    s.gzip_header.assign(file.begin(), file.begin() + static_cast<ptrdiff_t>(header));
    plain_storage = interop_io::gunzip(file, path, max_bytes);
    plain = plain_storage;
    name = path + " (decompressed)";
  }
  dcso::DcsoBloom d = dcso::DcsoBloom::deserialize(plain, name);
  if (d.k() > kMaxSchemeK) {
    throw Error(ErrorCode::kLimitExceeded, name + ": dcso: k = " + std::to_string(d.k()) +
                                               " at offset 24 exceeds bloomtool's limit of 255");
  }
  if (d.bits() > model::kMaxBits) {
    throw Error(ErrorCode::kLimitExceeded, name + ": dcso: m = " + std::to_string(d.bits()) +
                                               " bits at offset 32 exceeds bloomtool's limit "
                                               "of 2^40");
  }
  const std::vector<uint64_t>& w = d.words();
  if (d.bits() % 64 != 0 && (w.back() >> (d.bits() % 64)) != 0) {
    throw Error(ErrorCode::kCorrupt,
                name + ": dcso: bits set beyond m = " + std::to_string(d.bits()) +
                    " in the last word (offset " + std::to_string(48 + 8 * (w.size() - 1)) + ")");
  }
  s.flags = d.flags();
  s.capacity = d.capacity();
  s.fpp_bits = d.fpp_bits();
  s.count = d.count();
  s.data = d.data();
  WordBuffer words(w.size());
  std::memcpy(words.data(), w.data(), w.size() * 8);
  return make_loaded(kHashDcsoFnv1, d.bits(), static_cast<uint32_t>(d.k()), std::move(words),
                     d.count(), s, file.size());
}

[[noreturn]] void cannot_write(const std::string& path, FileFormat to, const std::string& why) {
  throw Error(ErrorCode::kInvalidArgument,
              path + ": cannot write a " + file_format_name(to) + " file: " + why);
}

const SchemeBloom& scheme_filter(const LoadedFilter& f, const std::string& path, FileFormat to,
                                 const char* wanted) {
  const auto* s = dynamic_cast<const SchemeBloom*>(f.filter.get());
  if (s == nullptr || f.header.kind != FilterKind::kBloom) {
    cannot_write(path, to,
                 std::string("the filter uses hash scheme ") + hash_scheme_name(f.header.hash_id) +
                     " (hash id " + std::to_string(f.header.hash_id) + "), " + wanted);
  }
  return *s;
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

LoadedFilter parse_foreign(std::span<const uint8_t> bytes, FileFormat format,
                           const std::string& name, uint64_t max_bytes) {
  if (format == FileFormat::kGuava) return parse_guava(bytes, name);
  if (format == FileFormat::kDcso) return parse_dcso(bytes, name, max_bytes);
  throw Error(ErrorCode::kInvalidArgument, "parse_foreign: not a peer format");
}

LoadedFilter load_filter_as(const std::string& path, FileFormat format) {
  if (format == FileFormat::kBloomtool) return load_filter(path);
  const uint64_t max_bytes =
      format == FileFormat::kGuava ? guava::GuavaBloom::kMaxHeaderAndWords : dcso::kDefaultMaxBytes;
  const std::vector<uint8_t> bytes = interop_io::read_file(path, max_bytes);
  LoadedFilter f = parse_foreign(bytes, format, path == "-" ? "<stdin>" : path, max_bytes);
  if (path != "-") f.header.created_unix = modification_time(path);
  return f;
}

std::vector<uint8_t> encode_foreign(const LoadedFilter& f, FileFormat to, const std::string& path,
                                    const ForeignWriteOptions& opt) {
  const FilterHeader& h = f.header;
  if (to == FileFormat::kGuava) {
    const SchemeBloom& s = scheme_filter(f, path, to, "not guava-mitz64 or guava-mitz32");
    if (s.hash_id() == kHashDcsoFnv1)
      cannot_write(path, to, "the filter uses hash scheme dcso-fnv1 (hash id 4)");
    if (s.bits() / 64 > guava::kMaxWords) {
      cannot_write(path, to, std::to_string(s.bits()) + " bits need more than 2^31-1 words");
    }
    guava::GuavaBloom g(s.bits() / 64, s.k(),
                        s.hash_id() == kHashGuavaMitz64 ? guava::Strategy::kMurmur128Mitz64
                                                        : guava::Strategy::kMurmur128Mitz32);
    std::memcpy(g.mutable_words().data(), s.words().data(), s.words().size() * 8);
    return g.serialize();
  }
  if (to != FileFormat::kDcso) {
    throw Error(ErrorCode::kInvalidArgument, "encode_foreign: not a foreign format");
  }
  const SchemeBloom& s = scheme_filter(f, path, to, "not dcso-fnv1");
  if (s.hash_id() != kHashDcsoFnv1) {
    cannot_write(path, to,
                 std::string("the filter uses hash scheme ") + hash_scheme_name(s.hash_id()) +
                     " (hash id " + std::to_string(s.hash_id()) + "), not dcso-fnv1");
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
  std::vector<uint8_t> plain(dcso::kHeaderBytes + s.words().size() * 8 + src.data.size());
  uint8_t* p = plain.data();
  for (uint64_t v : {src.flags, src.capacity, src.fpp_bits, uint64_t{s.k()}, s.bits(), src.count}) {
    le::store<uint64_t>(p, v);
    p += 8;
  }
  for (uint64_t w : s.words()) {
    le::store<uint64_t>(p, w);
    p += 8;
  }
  if (!src.data.empty()) std::memcpy(p, src.data.data(), src.data.size());
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
