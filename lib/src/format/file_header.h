// The header of a filter file (format 1.x, docs/FORMAT.md "Header"): what it holds (FilterHeader)
// and its codec. The fixed 128 bytes are one table of fields (file_header.cpp), read and written
// from the same rows; the tag-length-value fields follow, then the header's own checksum.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "format/signature.h"

namespace bloomtool {

inline constexpr uint16_t kFormatMajor = 1;
// Files that use no 1.1 feature (foreign hash scheme, raw chunked codec, signature) are written
// as 1.0, byte for byte; the others as 1.1. Readers accept any minor of major 1.
inline constexpr uint16_t kFormatMinor = 0;
inline constexpr uint16_t kFormatMinorLatest = 1;
// Ribbon filters (kind 4) are written as 1.2, whatever else they use, bumped Ribbon filters
// (variant 1) as 1.3; no other file is.
inline constexpr uint16_t kFormatMinorRibbon = 2;
// Partitioned static filters (field 10) are written as 1.3; no other file is.
inline constexpr uint16_t kFormatMinorPartitioned = 3;
// Bumped Ribbon (kind 4 variant 1) is written as 1.3 too.
inline constexpr uint16_t kFormatMinorBumpedRibbon = 3;
inline constexpr size_t kFixedHeaderBytes = 128;
inline constexpr size_t kMaxHeaderBytes = 64 * 1024;

enum class FilterKind : uint32_t { kBloom = 1, kXor = 2, kBinaryFuse = 3, kRibbon = 4 };
const char* filter_kind_name(FilterKind kind) noexcept;

enum class PayloadCodec : uint32_t {
  kNone = 0,        // stored as is (read only: bloomtool never writes it)
  kZstd = 1,        // one zstd frame: the default
  kRawChunked = 2,  // 1.1: uncompressed, page-aligned, one checksum per chunk (mappable)
};

// "none", "zstd", "raw"; parse_payload_codec takes "zstd" or "raw" (the codecs bloomtool writes)
// and throws kInvalidArgument naming the others.
const char* payload_codec_name(PayloadCodec codec) noexcept;
PayloadCodec parse_payload_codec(const std::string& name);

// Optional and required fields after the fixed header, each a tag-length-value record.
enum class FieldTag : uint16_t {
  kToolVersion = 1,    // UTF-8 text
  kLabel = 2,          // UTF-8 text: a label chosen by the builder
  kNormalisation = 3,  // text: comma-separated normalisation steps applied to keys
  kInputOptions = 4,   // text: input format options the keys were read with
  kKindParams = 5,     // u64 list: kind-specific parameters (see docs/FORMAT.md)
  kEmptyLines = 6,     // u64: empty lines skipped at build time
  kSourceFormat = 7,   // 1.1: what a foreign (Guava, DCSO) file held beyond its bits
  kRawLayout = 8,      // 1.1, required with codec 2: chunk size and payload offset
  kSignature = 9,      // 1.1: Ed25519 signature over the file (see docs/FORMAT.md)
  kPartitions = 10,    // 1.3, required: a partitioned static filter (see docs/FORMAT.md)
};

// Field 10 (docs/FORMAT.md, "Partitioned static filters"): the file holds 2^bits independent
// filters of its kind, partition i over the keys whose hash has top bits i; the table of
// partitions (entry_words u64 each) starts the payload. A part file (one host's share of an
// across-hosts build) holds partitions [first, first + count) only; a whole file has first 0 and
// count 2^bits. model_rate and filter_bits summarise the table (checked against it when loaded)
// so that header-only readers report the same rate and size as stats does.
inline constexpr size_t kPartitionsFieldBytes = 32;
inline constexpr uint32_t kMaxPartitionBits = 16;
struct PartitionsField {
  uint32_t bits = 0;         // log2 of the partition count P: 1 to 16
  uint32_t entry_words = 0;  // u64 words of one table entry (5 + the kind's parameters)
  uint32_t first = 0;        // the first partition held
  uint32_t count = 0;        // partitions held: 1 to P - first
  double model_rate = 0;     // key-weighted mean of the partitions' model rates
  uint64_t filter_bits = 0;  // fingerprint or solution bits of the partitions held
  uint64_t partitions() const noexcept { return uint64_t{1} << bits; }
  bool whole() const noexcept { return first == 0 && count == partitions(); }
};

// Field 9 (docs/FORMAT.md, "Signature"): who signed the file and the signature itself.
inline constexpr uint32_t kSignatureEd25519Blake2b = 1;  // the one signature algorithm defined
inline constexpr size_t kSignatureFieldBytes = 4 + kKeyIdBytes + kSignatureBytes;
struct SignatureField {
  uint32_t algorithm = kSignatureEd25519Blake2b;
  KeyId key_id{};
  std::array<uint8_t, kSignatureBytes> signature{};
  uint64_t signature_offset = 0;  // where the signature bytes lie in the file (reader, writer)
};

struct FilterHeader {
  uint16_t major = kFormatMajor;
  uint16_t minor = kFormatMinor;
  uint64_t required_features = 0;  // bit set: a reader that does not know it must refuse
  FilterKind kind = FilterKind::kBloom;
  uint32_t variant = 0;  // Bloom: BloomVariant; xor/fuse: 0
  uint32_t hash_id = 0;
  uint64_t seed = 0;
  uint64_t m = 0;  // Bloom: bits; xor/fuse: fingerprint slots
  uint32_t k = 0;  // Bloom: hash count; xor/fuse: fingerprint bits
  uint64_t lines_read = 0;
  uint64_t keys_added = 0;
  uint64_t distinct_estimate = 0;
  int64_t created_unix = 0;  // seconds since 1970-01-01 UTC
  uint64_t payload_raw_bytes = 0;
  uint64_t payload_stored_bytes = 0;
  PayloadCodec codec = PayloadCodec::kZstd;
  uint64_t payload_checksum = 0;

  std::string tool_version;
  std::string label;
  std::string normalisation;
  std::string input_options;
  std::vector<uint64_t> kind_params;
  uint64_t empty_lines = 0;
  std::optional<SignatureField> signature;  // field 9: present in signed files
  // Codec 2 only (field 8): bytes per checksummed chunk and the payload's offset in the file;
  // 0 for the other codecs. The chunk table lies at header_bytes.
  uint64_t raw_chunk_bytes = 0;
  uint64_t raw_payload_offset = 0;
  std::string source_format;  // field 7, raw bytes (foreign_format.h); empty: absent
  std::optional<PartitionsField> partitions;  // field 10: a partitioned static filter

  uint64_t header_bytes = 0;  // filled in by the reader and writer
};

// The header's checksum (its last 8 bytes) and its smallest length.
inline constexpr size_t kHeaderChecksumBytes = 8;
inline constexpr size_t kMinHeaderBytes = kFixedHeaderBytes + kHeaderChecksumBytes;
// Where two fixed fields lie, for a stream reader that must know the lengths before the header
// can be parsed (checked against the table of fields in file_header.cpp).
inline constexpr size_t kHeaderBytesOffset = 12;         // u32 header_bytes
inline constexpr size_t kPayloadStoredBytesOffset = 96;  // u64 payload_stored_bytes

// Throws kCorrupt "<path>: corrupt: <why>", the reader's message for a damaged file.
[[noreturn]] void throw_corrupt(const std::string& path, const std::string& why);

// Parses a header from bytes (used by the readers and the fuzz targets). `file_bytes` is the
// length of the whole file: the declared sizes are checked against it.
FilterHeader parse_filter_header(std::span<const uint8_t> bytes, uint64_t file_bytes,
                                 const std::string& path);

// The header's bytes, its checksum included; fills in header_bytes and the signature's offset,
// and raises the minor version to 1.1 when a 1.1 feature is used. Throws kInvalidArgument when
// the fields do not fit in kMaxHeaderBytes. The length does not depend on the values of the
// fixed fields, the layout field or the signature, so writers emit a placeholder first and
// overwrite it once the payload's length and checksum are known.
std::vector<uint8_t> serialize_filter_header(FilterHeader& header);

// Field 10's value (kPartitionsFieldBytes) with its own checks: bits 1 to 16, the partitions held
// within 0..P-1, a rate within [0, 1]. Throws kCorrupt naming `path`.
PartitionsField parse_partitions_field(std::span<const uint8_t> value, const std::string& path);
// Xor, binary fuse and Ribbon: the kinds a file may partition.
bool is_static_kind(FilterKind kind) noexcept;

// True when two headers describe the same stored file (a file replaced between two reads is not).
bool same_file_header(const FilterHeader& a, const FilterHeader& b) noexcept;

// Field 9's value (76 bytes for algorithm 1) from `value`, which starts `file_offset` bytes into
// the file. Throws kCorrupt naming `path` when the length does not fit the algorithm.
SignatureField parse_signature_field(std::span<const uint8_t> value, uint64_t file_offset,
                                     const std::string& path);
// Field 9's value of `field` (the inverse of parse_signature_field).
std::array<uint8_t, kSignatureFieldBytes> encode_signature_field(const SignatureField& field);

}  // namespace bloomtool
