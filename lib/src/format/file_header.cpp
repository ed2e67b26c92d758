// The filter file's header (docs/FORMAT.md, "Header"): the fixed 128 bytes as one table of
// fields that both the reader and the writer walk, the tag-length-value fields after them, and
// the checks a header passes before anything it declares is believed (its own checksum first,
// then each field's constraint, then every declared size against the file's length and sane
// limits).
#include "format/file_header.h"

#include <fmt/format.h>
#include <xxhash.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <type_traits>

#include "base/byte_order.h"
#include "bloomtool/error.h"
#include "format/raw_payload.h"
#include "keys/hash.h"
#include "model/model.h"

namespace bloomtool {

namespace {

constexpr uint8_t kMagic[8] = {0x89, 'B', 'L', 'M', '\r', '\n', 0x1A, '\n'};
constexpr size_t kFieldHeaderBytes = 8;
constexpr uint16_t kFieldRequired = 1;
constexpr uint64_t kKnownFeatures = 0;  // no required features are defined in format 1.0
constexpr size_t kMaxKindParams = 64;

// The constraints of the fixed fields, checked in the table's order once every field is read
// (their messages name the version, which takes two fields).
void check_major(const FilterHeader& h, const std::string& path) {
  if (h.major != kFormatMajor) {
    throw Error(ErrorCode::kUnsupported,
                path + ": unsupported: file format version " + std::to_string(h.major) + "." +
                    std::to_string(h.minor) + ", this bloomtool reads version " +
                    std::to_string(kFormatMajor) + ".x");
  }
}

void check_features(const FilterHeader& h, const std::string& path) {
  if ((h.required_features & ~kKnownFeatures) != 0) {
    throw Error(ErrorCode::kUnsupported,
                path + ": unsupported: required feature bits 0x" +
                    fmt::format("{:x}", h.required_features & ~kKnownFeatures) + " (file version " +
                    std::to_string(h.major) + "." + std::to_string(h.minor) +
                    ", this bloomtool writes " + std::to_string(kFormatMajor) + "." +
                    std::to_string(kFormatMinor) + ")");
  }
}

void check_kind(const FilterHeader& h, const std::string& path) {
  const auto kind = static_cast<uint32_t>(h.kind);
  if (kind < 1 || kind > 4) {
    throw Error(ErrorCode::kUnsupported,
                path + ": unsupported: filter kind " + std::to_string(kind));
  }
}

void check_codec(const FilterHeader& h, const std::string& path) {
  const auto codec = static_cast<uint32_t>(h.codec);
  if (codec > 2) {
    throw Error(ErrorCode::kUnsupported,
                path + ": unsupported: payload codec " + std::to_string(codec));
  }
}

// One fixed field: where it lies, how wide it is (little-endian), the FilterHeader member it
// fills, and the constraint its value must meet (none: any value).
struct FixedField {
  const char* name;  // as docs/FORMAT.md names it
  uint16_t offset;
  uint8_t width;  // 2, 4 or 8
  uint64_t (*get)(const FilterHeader&);
  void (*set)(FilterHeader&, uint64_t);
  void (*check)(const FilterHeader&, const std::string& path);
};

template <auto Member>
constexpr FixedField field(const char* name, uint16_t offset, uint8_t width,
                           void (*check)(const FilterHeader&, const std::string&) = nullptr) {
  using T = std::remove_cvref_t<decltype(std::declval<FilterHeader&>().*Member)>;
  static_assert(sizeof(T) >= 2 && sizeof(T) <= 8);
  return {name,
          offset,
          width,
          [](const FilterHeader& h) { return static_cast<uint64_t>(h.*Member); },
          [](FilterHeader& h, uint64_t v) { h.*Member = static_cast<T>(v); },
          check};
}

// The fixed header after the 8 bytes of magic (docs/FORMAT.md, "Header"); bytes 108-111 and
// 120-127 are reserved (written as zeros, not read).
constexpr FixedField kFixedFields[] = {
    field<&FilterHeader::major>("major", 8, 2, check_major),
    field<&FilterHeader::minor>("minor", 10, 2),
    field<&FilterHeader::header_bytes>("header_bytes", 12, 4),  // checked before the checksum
    field<&FilterHeader::required_features>("required_features", 16, 8, check_features),
    field<&FilterHeader::kind>("kind", 24, 4, check_kind),
    field<&FilterHeader::variant>("variant", 28, 4),
    field<&FilterHeader::hash_id>("hash_id", 32, 4),
    field<&FilterHeader::k>("k", 36, 4),
    field<&FilterHeader::seed>("seed", 40, 8),
    field<&FilterHeader::m>("m", 48, 8),
    field<&FilterHeader::lines_read>("lines_read", 56, 8),
    field<&FilterHeader::keys_added>("keys_added", 64, 8),
    field<&FilterHeader::distinct_estimate>("distinct_estimate", 72, 8),
    field<&FilterHeader::created_unix>("created", 80, 8),
    field<&FilterHeader::payload_raw_bytes>("payload_raw_bytes", 88, 8),
    field<&FilterHeader::payload_stored_bytes>("payload_stored_bytes", 96, 8),
    field<&FilterHeader::codec>("codec", 104, 4, check_codec),
    field<&FilterHeader::payload_checksum>("payload_checksum", 112, 8),
};

// The table's shape, checked when this compiles: fields in order, none overlapping, each inside
// the fixed header; and the header length where the reader looks for it before anything else.
constexpr bool table_is_sound() {
  size_t end = sizeof kMagic;
  for (const FixedField& f : kFixedFields) {
    if (f.offset < end || (f.width != 2 && f.width != 4 && f.width != 8) ||
        f.offset % f.width != 0 || f.offset + f.width > kFixedHeaderBytes)
      return false;
    end = f.offset + f.width;
  }
  return true;
}
static_assert(table_is_sound());

constexpr size_t offset_of(std::string_view name) {
  for (const FixedField& f : kFixedFields)
    if (name == f.name) return f.offset;
  return kFixedHeaderBytes;
}
static_assert(offset_of("header_bytes") == kHeaderBytesOffset && kHeaderBytesOffset + 4 <= 16,
              "the length lies in the first 16 bytes, which a reader checks before the others");
static_assert(offset_of("payload_stored_bytes") == kPayloadStoredBytesOffset);

uint64_t load_field(const uint8_t* p, uint8_t width) noexcept {
  switch (width) {
    case 2:
      return le::load<uint16_t>(p);
    case 4:
      return le::load<uint32_t>(p);
    default:
      return le::load<uint64_t>(p);
  }
}

void store_field(uint8_t* p, uint8_t width, uint64_t v) noexcept {
  switch (width) {
    case 2:
      le::store<uint16_t>(p, static_cast<uint16_t>(v));
      break;
    case 4:
      le::store<uint32_t>(p, static_cast<uint32_t>(v));
      break;
    default:
      le::store<uint64_t>(p, v);
  }
}

// What a file without bloomtool's magic looks like, from its first bytes and its length: a peer's
// filter file (whose header fields must agree with the length), or compressed data; "" when
// nothing is recognised.
std::string foreign_format_hint(std::span<const uint8_t> b, uint64_t file_bytes) {
  if (b.size() >= 2 && b[0] == 0x1f && b[1] == 0x8b)
    return "; it is gzip-compressed, as a gzip DCSO filter file is: read it as a dcso file";
  if (b.size() >= 4 && b[0] == 0x28 && b[1] == 0xB5 && b[2] == 0x2F && b[3] == 0xFD)
    return "; it is zstd-compressed: decompress it first";
  if (b.size() >= 6 && b[0] <= 1 && b[1] != 0) {
    const uint32_t words = uint32_t{b[2]} << 24 | uint32_t{b[3]} << 16 | uint32_t{b[4]} << 8 | b[5];
    if (words != 0 && words <= 0x7fffffffu && file_bytes == 6 + uint64_t{words} * 8) {
      return fmt::format(
          "; it looks like a Guava filter file (strategy {}, k = {}, {} words): read it as a "
          "guava file",
          b[0] == 1 ? "MURMUR128_MITZ_64" : "MURMUR128_MITZ_32", b[1], words);
    }
  }
  if (b.size() >= 48 && b[0] == 1) {
    const uint64_t k = le::load<uint64_t>(b.data() + 24), m = le::load<uint64_t>(b.data() + 32);
    // Go writes flags = 1; a stream's length is not known yet, so a flags word of exactly 1
    // stands in for the length check.
    const bool fits = 48 + (m / 64 + (m % 64 != 0)) * 8 <= file_bytes;
    if (k >= 1 && k <= 4096 && m >= 1 && m <= (uint64_t{1} << 53) &&
        (fits || le::load<uint64_t>(b.data()) == 1)) {
      return fmt::format(
          "; it looks like a DCSO filter file (k = {}, m = {} bits): read it as a dcso file", k, m);
    }
  }
  return "";
}

[[noreturn]] void truncated(const std::string& path, uint64_t have, uint64_t need) {
  throw Error(ErrorCode::kCorrupt, path + ": truncated: file has " + std::to_string(have) +
                                       " bytes, its header declares " + std::to_string(need));
}

void put_field(std::vector<uint8_t>& out, FieldTag tag, const void* data, size_t len,
               uint16_t flags = 0) {
  const size_t at = out.size();
  out.resize(at + kFieldHeaderBytes + len);
  le::store<uint16_t>(&out[at], static_cast<uint16_t>(tag));
  le::store<uint16_t>(&out[at + 2], flags);
  le::store<uint32_t>(&out[at + 4], static_cast<uint32_t>(len));
  if (len != 0) std::memcpy(&out[at + kFieldHeaderBytes], data, len);
}

void put_text(std::vector<uint8_t>& out, FieldTag tag, const std::string& s) {
  if (!s.empty()) put_field(out, tag, s.data(), s.size());
}

}  // namespace

void throw_corrupt(const std::string& path, const std::string& why) {
  throw Error(ErrorCode::kCorrupt, path + ": corrupt: " + why);
}

const char* filter_kind_name(FilterKind kind) noexcept {
  switch (kind) {
    case FilterKind::kBloom:
      return "bloom";
    case FilterKind::kXor:
      return "xor";
    case FilterKind::kBinaryFuse:
      return "binary-fuse";
    case FilterKind::kRibbon:
      return "ribbon";
  }
  return "unknown";
}

const char* payload_codec_name(PayloadCodec codec) noexcept {
  switch (codec) {
    case PayloadCodec::kNone:
      return "none";
    case PayloadCodec::kZstd:
      return "zstd";
    case PayloadCodec::kRawChunked:
      return "raw";
  }
  return "unknown";
}

PayloadCodec parse_payload_codec(const std::string& name) {
  if (name == "zstd") return PayloadCodec::kZstd;
  if (name == "raw") return PayloadCodec::kRawChunked;
  throw Error(ErrorCode::kInvalidArgument,
              "unknown payload codec '" + name + "' (expected zstd or raw)");
}

std::vector<uint8_t> serialize_filter_header(FilterHeader& h) {
  std::vector<uint8_t> tlv;
  put_text(tlv, FieldTag::kToolVersion, h.tool_version);
  put_text(tlv, FieldTag::kLabel, h.label);
  put_text(tlv, FieldTag::kNormalisation, h.normalisation);
  put_text(tlv, FieldTag::kInputOptions, h.input_options);
  if (!h.kind_params.empty()) {
    std::vector<uint8_t> v(h.kind_params.size() * 8);
    for (size_t i = 0; i < h.kind_params.size(); ++i)
      le::store<uint64_t>(&v[i * 8], h.kind_params[i]);
    put_field(tlv, FieldTag::kKindParams, v.data(), v.size());
  }
  {
    uint8_t v[8];
    le::store<uint64_t>(v, h.empty_lines);
    put_field(tlv, FieldTag::kEmptyLines, v, 8);
  }
  put_text(tlv, FieldTag::kSourceFormat, h.source_format);
  // A peer's hash scheme is a 1.1 feature; every other file stays 1.0, byte for byte.
  if (h.hash_id >= kHashGuavaMitz64 && h.hash_id <= kHashDcsoFnv1 && h.minor < kFormatMinorLatest)
    h.minor = kFormatMinorLatest;
  if (h.kind == FilterKind::kRibbon) {
    h.minor = std::max(h.minor, h.variant == 1 ? kFormatMinorBumpedRibbon : kFormatMinorRibbon);
  }
  if (h.partitions) {
    const PartitionsField& f = *h.partitions;
    uint8_t v[kPartitionsFieldBytes];
    le::store<uint32_t>(v, f.bits);
    le::store<uint32_t>(v + 4, f.entry_words);
    le::store<uint32_t>(v + 8, f.first);
    le::store<uint32_t>(v + 12, f.count);
    le::store<uint64_t>(v + 16, std::bit_cast<uint64_t>(f.model_rate));
    le::store<uint64_t>(v + 24, f.filter_bits);
    put_field(tlv, FieldTag::kPartitions, v, sizeof v, kFieldRequired);
    h.minor = std::max(h.minor, kFormatMinorPartitioned);
  }
  if (h.codec == PayloadCodec::kRawChunked) {
    uint8_t v[kRawLayoutFieldBytes];
    le::store<uint64_t>(v, h.raw_chunk_bytes);
    le::store<uint64_t>(v + 8, h.raw_payload_offset);
    put_field(tlv, FieldTag::kRawLayout, v, sizeof v, kFieldRequired);
  }
  if (h.signature) {  // last, so that a signature can be added to a finished file
    const auto v = encode_signature_field(*h.signature);
    h.signature->signature_offset = kFixedHeaderBytes + tlv.size() + kFieldHeaderBytes +
                                    (kSignatureFieldBytes - kSignatureBytes);
    put_field(tlv, FieldTag::kSignature, v.data(), v.size());
  }
  const size_t total = kFixedHeaderBytes + tlv.size() + kHeaderChecksumBytes;
  if (total > kMaxHeaderBytes) {
    throw Error(ErrorCode::kInvalidArgument,
                "header fields too long (label, options or source format): " +
                    std::to_string(total) + " bytes, more than the 65536 a header may hold");
  }
  h.header_bytes = total;
  std::vector<uint8_t> out(total, 0);
  uint8_t* p = out.data();
  std::memcpy(p, kMagic, 8);
  for (const FixedField& f : kFixedFields) store_field(p + f.offset, f.width, f.get(h));
  if (!tlv.empty()) std::memcpy(p + kFixedHeaderBytes, tlv.data(), tlv.size());
  le::store<uint64_t>(p + total - kHeaderChecksumBytes,
                      XXH3_64bits(p, total - kHeaderChecksumBytes));
  return out;
}

FilterHeader parse_filter_header(std::span<const uint8_t> bytes, uint64_t file_bytes,
                                 const std::string& path) {
  const uint8_t* p = bytes.data();
  const size_t have = bytes.size();
  if (have == 0) throw Error(ErrorCode::kCorrupt, path + ": truncated: the file is empty");
  if (std::memcmp(p, kMagic, std::min<size_t>(have, 8)) != 0) {
    throw Error(ErrorCode::kCorrupt, path + ": corrupt: not a bloomtool filter file (bad magic)" +
                                         foreign_format_hint(bytes, file_bytes));
  }
  if (have < 16) {
    throw Error(ErrorCode::kCorrupt, path + ": truncated: file has " + std::to_string(have) +
                                         " bytes, less than the smallest header (" +
                                         std::to_string(kMinHeaderBytes) + ")");
  }
  const uint32_t header_bytes = le::load<uint32_t>(p + kHeaderBytesOffset);
  if (header_bytes < kMinHeaderBytes || header_bytes > kMaxHeaderBytes) {
    throw_corrupt(path, "header length " + std::to_string(header_bytes) + " is out of range");
  }
  if (have < header_bytes) truncated(path, file_bytes, header_bytes);
  const uint64_t stored_sum = le::load<uint64_t>(p + header_bytes - kHeaderChecksumBytes);
  if (XXH3_64bits(p, header_bytes - kHeaderChecksumBytes) != stored_sum)
    throw_corrupt(path, "header checksum mismatch");

  FilterHeader h;
  for (const FixedField& f : kFixedFields) f.set(h, load_field(p + f.offset, f.width));
  for (const FixedField& f : kFixedFields) {
    if (f.check != nullptr) f.check(h, path);
  }

  // Tag-length-value fields between the fixed header and the checksum.
  size_t at = kFixedHeaderBytes;
  const size_t end = header_bytes - kHeaderChecksumBytes;
  bool seen_raw_layout = false;
  while (at < end) {
    if (end - at < kFieldHeaderBytes)
      throw_corrupt(path, "header field at byte " + std::to_string(at) + " is cut short");
    const uint16_t tag = le::load<uint16_t>(p + at);
    const uint16_t flags = le::load<uint16_t>(p + at + 2);
    const uint32_t len = le::load<uint32_t>(p + at + 4);
    at += kFieldHeaderBytes;
    if (len > end - at)
      throw_corrupt(path, "header field " + std::to_string(tag) + " runs past the header");
    const auto* v = reinterpret_cast<const char*>(p + at);
    switch (static_cast<FieldTag>(tag)) {
      case FieldTag::kToolVersion:
        h.tool_version.assign(v, len);
        break;
      case FieldTag::kLabel:
        h.label.assign(v, len);
        break;
      case FieldTag::kNormalisation:
        h.normalisation.assign(v, len);
        break;
      case FieldTag::kInputOptions:
        h.input_options.assign(v, len);
        break;
      case FieldTag::kKindParams:
        if (len % 8 != 0 || len / 8 > kMaxKindParams)
          throw_corrupt(path, "kind parameters field has bad length");
        h.kind_params.resize(len / 8);
        for (size_t i = 0; i < h.kind_params.size(); ++i)
          h.kind_params[i] = le::load<uint64_t>(p + at + i * 8);
        break;
      case FieldTag::kEmptyLines:
        if (len != 8) throw_corrupt(path, "empty-lines field has bad length");
        h.empty_lines = le::load<uint64_t>(p + at);
        break;
      case FieldTag::kRawLayout:
        if (len != kRawLayoutFieldBytes || seen_raw_layout)
          throw_corrupt(path, "raw layout field has bad length or appears twice");
        seen_raw_layout = true;
        h.raw_chunk_bytes = le::load<uint64_t>(p + at);
        h.raw_payload_offset = le::load<uint64_t>(p + at + 8);
        break;
      case FieldTag::kSignature:
        if (h.signature) throw_corrupt(path, "more than one signature field");
        h.signature = parse_signature_field({p + at, len}, at, path);
        break;
      case FieldTag::kSourceFormat:
        h.source_format.assign(v, len);
        break;
      case FieldTag::kPartitions:
        if (len != kPartitionsFieldBytes || h.partitions)
          throw_corrupt(path, "partitions field (10) has bad length or appears twice");
        h.partitions = parse_partitions_field({p + at, len}, path);
        break;
      default:
        if (flags & kFieldRequired) {
          throw Error(ErrorCode::kUnsupported,
                      path + ": unsupported: required header field " + std::to_string(tag) +
                          " (file version " + std::to_string(h.major) + "." +
                          std::to_string(h.minor) + ", this bloomtool writes " +
                          std::to_string(kFormatMajor) + "." + std::to_string(kFormatMinor) + ")");
        }
        break;  // unknown optional field: skipped
    }
    at += len;
  }

  if (h.partitions) {
    if (!is_static_kind(h.kind))
      throw_corrupt(
          path, std::string("partitions field (10) in a ") + filter_kind_name(h.kind) + " filter");
    if (!h.kind_params.empty())
      throw_corrupt(path, "a partitioned filter has its kind parameters in its partition table");
  }
  if ((h.codec == PayloadCodec::kRawChunked) != seen_raw_layout) {
    throw_corrupt(path, seen_raw_layout ? "raw layout field (8) in a file whose codec is not raw"
                                        : "raw payload without its layout field (8)");
  }
  // Declared sizes against the file and sane limits, before anything is allocated.
  if (h.payload_raw_bytes == 0 || h.payload_raw_bytes % 8 != 0) {
    throw_corrupt(path, "payload length " + std::to_string(h.payload_raw_bytes) +
                            " is not a positive multiple of 8");
  }
  if (h.payload_raw_bytes > model::kMaxBits / 8 + 64) {
    throw Error(ErrorCode::kLimitExceeded, path + ": payload of " +
                                               std::to_string(h.payload_raw_bytes) +
                                               " bytes exceeds the limit of 2^40 bits");
  }
  if (h.codec == PayloadCodec::kRawChunked) {
    const std::string why = raw_layout_problem(h);
    if (!why.empty()) throw_corrupt(path, why);
  }
  if (h.payload_stored_bytes > file_bytes - header_bytes) {
    throw Error(ErrorCode::kCorrupt, path + ": truncated: file has " + std::to_string(file_bytes) +
                                         " bytes, its header declares " +
                                         std::to_string(header_bytes) + " header bytes and " +
                                         std::to_string(h.payload_stored_bytes) + " payload bytes");
  }
  const uint64_t need = header_bytes + h.payload_stored_bytes;
  if (need < file_bytes)
    throw_corrupt(path, std::to_string(file_bytes - need) + " bytes after the payload");
  if (h.codec == PayloadCodec::kNone && h.payload_raw_bytes != h.payload_stored_bytes) {
    throw_corrupt(path, "uncompressed payload length does not match the stored length");
  }
  return h;
}

PartitionsField parse_partitions_field(std::span<const uint8_t> value, const std::string& path) {
  PartitionsField f;
  const uint8_t* v = value.data();
  f.bits = le::load<uint32_t>(v);
  f.entry_words = le::load<uint32_t>(v + 4);
  f.first = le::load<uint32_t>(v + 8);
  f.count = le::load<uint32_t>(v + 12);
  f.model_rate = std::bit_cast<double>(le::load<uint64_t>(v + 16));
  f.filter_bits = le::load<uint64_t>(v + 24);
  if (f.bits < 1 || f.bits > kMaxPartitionBits)
    throw_corrupt(path, "partition bits " + std::to_string(f.bits) + " are not 1 to 16");
  if (f.count == 0 || f.first >= f.partitions() || f.count > f.partitions() - f.first) {
    throw_corrupt(path, "partitions " + std::to_string(f.first) + " + " + std::to_string(f.count) +
                            " do not lie within 0.." + std::to_string(f.partitions() - 1));
  }
  if (!(f.model_rate >= 0.0 && f.model_rate <= 1.0))
    throw_corrupt(path, "partitioned model rate is not within [0, 1]");
  return f;
}

bool is_static_kind(FilterKind kind) noexcept {
  return kind == FilterKind::kXor || kind == FilterKind::kBinaryFuse || kind == FilterKind::kRibbon;
}

bool same_file_header(const FilterHeader& a, const FilterHeader& b) noexcept {
  return a.header_bytes == b.header_bytes && a.payload_checksum == b.payload_checksum &&
         a.payload_stored_bytes == b.payload_stored_bytes &&
         a.payload_raw_bytes == b.payload_raw_bytes && a.codec == b.codec && a.kind == b.kind &&
         a.variant == b.variant && a.hash_id == b.hash_id && a.seed == b.seed && a.m == b.m &&
         a.k == b.k && a.raw_chunk_bytes == b.raw_chunk_bytes &&
         a.raw_payload_offset == b.raw_payload_offset;
}

SignatureField parse_signature_field(std::span<const uint8_t> value, uint64_t file_offset,
                                     const std::string& path) {
  if (value.size() < 4) {
    throw Error(ErrorCode::kCorrupt,
                path + ": corrupt: signature field of " + std::to_string(value.size()) + " bytes");
  }
  SignatureField f;
  f.algorithm = le::load<uint32_t>(value.data());
  if (f.algorithm != kSignatureEd25519Blake2b) return f;  // shown, and refused by verification
  if (value.size() != kSignatureFieldBytes) {
    throw Error(ErrorCode::kCorrupt, path + ": corrupt: signature field of " +
                                         std::to_string(value.size()) + " bytes, not " +
                                         std::to_string(kSignatureFieldBytes));
  }
  std::memcpy(f.key_id.data(), value.data() + 4, kKeyIdBytes);
  std::memcpy(f.signature.data(), value.data() + 4 + kKeyIdBytes, kSignatureBytes);
  f.signature_offset = file_offset + 4 + kKeyIdBytes;
  return f;
}

std::array<uint8_t, kSignatureFieldBytes> encode_signature_field(const SignatureField& field) {
  std::array<uint8_t, kSignatureFieldBytes> v{};
  le::store<uint32_t>(v.data(), field.algorithm);
  std::memcpy(v.data() + 4, field.key_id.data(), kKeyIdBytes);
  std::memcpy(v.data() + 4 + kKeyIdBytes, field.signature.data(), kSignatureBytes);
  return v;
}

}  // namespace bloomtool
