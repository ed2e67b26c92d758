// The facts of a filter file (what `bloomtool stats --json` prints about it), read from its
// header without decoding the payload, and the names the public API gives to file formats and
// filter kinds.
#pragma once

#include <cstdint>
#include <span>
#include <string>

namespace bloomtool {

// The file formats bloomtool reads. kAuto tells them apart by their first bytes: bloomtool's
// magic, a DCSO bloom v1 header (plain or gzip), or a Guava writeTo header that matches the
// file's size; standard input ("-"), a pipe or a device is read as a bloomtool file (it cannot
// be read twice), bytes in memory are told apart as a regular file is.
enum class FilterFormat { kAuto, kBloomtool, kGuava, kDcso };

// The kinds of filter bloomtool builds.
enum class Kind {
  kBloom,         // standard Bloom filter: k bits anywhere in m
  kBlockedBloom,  // blocked Bloom filter: all k bits of a key in one 512-bit block
  kXor,           // xor filter (static), ~1.23 fingerprint bits per key
  kBinaryFuse,    // binary fuse filter (static), ~1.13 fingerprint bits per key
};

struct FilterInfo {
  FilterFormat format = FilterFormat::kBloomtool;  // what the file is (never kAuto)
  std::string kind;                                // "bloom", "xor", "binary-fuse"
  std::string variant;         // Bloom: "standard" or "blocked"; Ribbon: "standard" or "bumped";
                               // xor / binary fuse: ""
  std::string format_version;  // "1.0", "1.1" (a Guava or DCSO file: as if converted)
  uint64_t m = 0;              // Bloom: bits; xor / binary fuse: fingerprint slots
  uint32_t k = 0;              // Bloom: hashes per key; xor / binary fuse: fingerprint bits
  uint64_t distinct_keys = 0;  // n: distinct keys the file records (exact or estimated)
  uint64_t keys_added = 0;     // keys inserted at build time, duplicates included
  uint64_t lines_read = 0;     // input lines read at build time
  uint64_t empty_lines = 0;    // empty input lines skipped at build time
  double model_fpr = 0;        // the model's false-positive rate for n distinct keys
  std::string label;           // "" when none
  int64_t created_unix = 0;    // seconds since 1970-01-01 UTC
  std::string tool_version;    // the writer, e.g. "bloomtool 0.1.0"
  std::string normalisation;   // canonical steps ("trim,lowercase"); "" when keys are used as is
  std::string input_options;   // how keys were read ("lines", "ndjson;field=/id", ...)
  std::string hash;            // hash scheme: "xxh3-64", "guava-mitz64", "dcso-fnv1", ...
  uint32_t hash_id = 0;
  uint64_t seed = 0;
  std::string codec;  // payload codec: "zstd", "raw", "none"
  uint64_t file_bytes = 0;
  // Signature (field 9): whether the file carries one, the signing key's id (16 hex digits, ""
  // when unsigned), and whether it was verified against a trusted key (open_filter with
  // OpenOptions::trusted_key; read_filter_info never verifies).
  bool signature_signed = false;
  std::string signature_key_id;
  bool signature_verified = false;
};

// The facts of the filter file at `path` ("-": standard input) in `format`. A bloomtool file's
// header is read and checked (magic, version, checksum, sizes against the file's length), its
// payload is neither read nor verified; a Guava or DCSO file is read whole (its count of keys
// comes from its bits). Throws bloomtool::Error naming the file.
FilterInfo read_filter_info(const std::string& path, FilterFormat format = FilterFormat::kAuto);
// The same for a file image in memory, named `name` in messages.
FilterInfo read_filter_info(std::span<const uint8_t> bytes,
                            FilterFormat format = FilterFormat::kAuto,
                            const std::string& name = "<memory>");

// "auto", "bloomtool", "guava", "dcso".
const char* filter_format_name(FilterFormat format) noexcept;

}  // namespace bloomtool
