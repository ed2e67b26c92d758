// The versioned filter file (format 1.x, specified byte by byte in docs/FORMAT.md): a
// little-endian header protected by its own checksum, followed by a zstd-compressed payload
// protected by a second checksum. Readers check every size against the file length and sane
// limits before allocating; writers publish atomically (see atomic_file.h).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "base/word_buffer.h"

namespace bloomtool {

inline constexpr uint16_t kFormatMajor = 1;
// Files that use no 1.1 feature (foreign hash scheme, raw chunked codec, signature) are written
// as 1.0, byte for byte; the others as 1.1. Readers accept any minor of major 1.
inline constexpr uint16_t kFormatMinor = 0;
inline constexpr uint16_t kFormatMinorLatest = 1;
// Ribbon filters (kind 4) are written as 1.2, whatever else they use; no other file is.
inline constexpr uint16_t kFormatMinorRibbon = 2;
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
};

// Field 9 (docs/FORMAT.md, "Signature"): who signed the file and the signature itself.
inline constexpr uint32_t kSignatureEd25519Blake2b = 1;  // the one signature algorithm defined
inline constexpr size_t kKeyIdBytes = 8;
inline constexpr size_t kSignatureBytes = 64;
inline constexpr size_t kSignatureFieldBytes = 4 + kKeyIdBytes + kSignatureBytes;
using KeyId = std::array<uint8_t, kKeyIdBytes>;
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
  uint32_t variant = 0;  // Bloom: BloomVariant; xor/fuse/Ribbon: 0
  uint32_t hash_id = 0;
  uint64_t seed = 0;
  uint64_t m = 0;  // Bloom: bits; xor/fuse: fingerprint slots; Ribbon: solution rows
  uint32_t k = 0;  // Bloom: hash count; xor/fuse: fingerprint bits; Ribbon: columns r
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

  uint64_t header_bytes = 0;  // filled in by the reader and writer
};

// A filter file read whole: header and the decompressed payload as little-endian words
// (converted to host order).
struct FilterFileContents {
  FilterHeader header;
  WordBuffer payload;
  uint64_t file_bytes = 0;
};

// Reads and checks the header only (magic, version, header checksum, declared sizes against the
// file length). `path` names the file in error messages.
FilterHeader read_filter_header(const std::string& path);

// Reads the whole file and verifies both checksums. Throws kCorrupt, kUnsupported, kIOError or
// kLimitExceeded with a message naming the path.
FilterFileContents read_filter_file(const std::string& path);

// Reads a filter file from the descriptor `fd` (a pipe, standard input), which cannot be mapped or
// read twice, into memory, and checks it as parse_filter_file does. The header is verified before
// any payload byte is read; the buffer grows with the bytes that arrive, never ahead of them, so a
// header that lies about its size costs no more memory than the bytes sent. `name` names the
// stream in messages ("<stdin>").
FilterFileContents read_filter_stream(int fd, const std::string& name);
// The whole file image of such a stream, its header verified and its length the declared one,
// the payload not yet checked (for readers that check more, such as a signature, before decoding).
std::vector<uint8_t> read_filter_stream_image(int fd, const std::string& name);

// Streams the payload of the filter file at `path` to `fn` as consecutive chunks of host-order
// words, fn(index of the chunk's first word, words), in order and without gaps. `expected` is the
// header read_filter_header returned for the same path; a file that no longer carries it is an
// kIOError. The payload checksum is verified over the stored bytes before the first chunk (codec
// 2: the chunk table, then each chunk before it is handed out), and stored bytes are dropped from
// memory once used, so memory stays near one window (2 MiB, or one chunk if larger).
void for_each_payload_chunk(const std::string& path, const FilterHeader& expected,
                            const std::function<void(uint64_t, std::span<const uint64_t>)>& fn);

// Throws kLimitExceeded naming `path` when the decompressed payload would not fit in this
// machine's memory.
void check_payload_fits_memory(const FilterHeader& header, const std::string& path);
// The same for a whole file image read into memory: the payload it decodes to and the stored
// bytes (header included) must each fit the machine's memory before either is read.
void check_image_fits_memory(const FilterHeader& header, const std::string& path);

// Parses a header from bytes (used by the readers and the fuzz targets). `file_bytes` is the
// length of the whole file.
FilterHeader parse_filter_header(std::span<const uint8_t> bytes, uint64_t file_bytes,
                                 const std::string& path);

// Parses a complete file image held in memory (for tests and fuzzing).
FilterFileContents parse_filter_file(std::span<const uint8_t> bytes, const std::string& path);

// How a filter file is written: everything that is a choice of the writer rather than a fact
// of the filter. Each 1.1 writer feature adds its member here.
class SigningKey;  // signature.h
struct WriteOptions {
  PayloadCodec codec = PayloadCodec::kZstd;
  // Signs the file with this key (field 9, format 1.1); must outlive the write. Without a key any
  // signature the header carries is dropped.
  const SigningKey* signing_key = nullptr;
  // Codec 2: bytes per checksummed chunk, a power of two in [kMinRawChunkBytes,
  // kMaxRawChunkBytes]; see raw_payload.h for the default.
  uint64_t raw_chunk_bytes = 0;  // 0: kDefaultRawChunkBytes
  // Threads the writer may use to look the payload over before compressing it (codec 1); the
  // file's bytes do not depend on it.
  unsigned threads = 1;
};

// Serialises header and payload into `out` with the payload zstd-compressed or, with codec 2,
// raw and chunk-checksummed; fills in the payload sizes, checksum, codec, layout and minor
// version. payload holds raw_bytes bytes of little-endian data.
std::vector<uint8_t> encode_filter_file(FilterHeader& header, std::span<const uint64_t> words,
                                        uint64_t raw_bytes, const WriteOptions& options = {});

// Writes the file to `path` atomically, or to standard output when path is "-".
// Returns the number of bytes written.
uint64_t write_filter_file(const std::string& path, FilterHeader& header,
                           std::span<const uint64_t> words, uint64_t raw_bytes,
                           const WriteOptions& options = {});

}  // namespace bloomtool
