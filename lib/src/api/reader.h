// A read-only filter for services that query it in their own process: open a filter file of any
// kind, codec and hash scheme (through load_filter), then ask about keys exactly as `bloomtool
// query` would — each key normalised as the file says, then tested by filter_contains_keys. The C
// API (bloomtool_c.h) and the Python module are thin layers over this class.
//
// Thread safety: after open, every const member may be called from any number of threads at once
// on one Reader (queries use only per-call scratch space).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "api/load_filter.h"
#include "keys/normalise.h"

namespace bloomtool {

// The facts of an open filter, as `bloomtool stats --json` names them.
struct ReaderInfo {
  std::string kind;            // "bloom", "xor", "binary-fuse"
  std::string variant;         // Bloom: "standard" or "blocked"; xor / binary fuse: ""
  std::string format_version;  // "1.0", "1.1"
  uint64_t m = 0;              // Bloom: bits; xor / binary fuse: fingerprint slots
  uint32_t k = 0;              // Bloom: hash count; xor / binary fuse: fingerprint bits
  uint64_t distinct_keys = 0;  // distinct keys the header records (exact or estimated)
  uint64_t keys_added = 0;     // keys inserted at build time, duplicates included
  double model_fpr = 0;        // the model's false-positive rate for n distinct keys
  std::string label;           // "" when none
  int64_t created_unix = 0;    // seconds since 1970-01-01 UTC
  std::string normalisation;   // canonical text, "" when keys are used as they are
  std::string hash;            // hash scheme, as `stats` names it: "xxh3-64", ...
  uint32_t hash_id = 0;
  uint64_t seed = 0;
  uint64_t file_bytes = 0;
  // stats --json's "signature" object: whether the file carries a signature, the signing key's
  // id (hex; "" when unsigned), and whether this reader verified it against a trusted key.
  bool signature_signed = false;
  std::string signature_key_id;
  bool signature_verified = false;
};

struct ReaderOptions {
  // A public key file (NAME.pub of `bloomtool keygen`). When set, the filter opens only if it is
  // signed by that key and unaltered since, as `bloomtool query --trusted-key` checks (kUntrusted
  // otherwise); the signature is verified over the same bytes that are then decoded.
  std::string trusted_key;
};

class Reader {
 public:
  // Opens, verifies and instantiates the filter in `path` as `bloomtool query` does, and parses
  // its key normalisation. Throws bloomtool::Error with the CLI's message ("<path>: corrupt: ...").
  explicit Reader(const std::string& path, const ReaderOptions& options = {});

  Reader(Reader&&) noexcept = default;
  Reader& operator=(Reader&&) noexcept = default;

  // True if `key` (raw bytes, before normalisation) may be in the filter; false when definitely
  // absent. A key that normalises to nothing is absent: builds skip such keys and `query` never
  // reports them.
  bool contains(std::string_view key) const;

  // out[i] = contains(keys[i]) as 1 or 0.
  void contains_many(std::span<const std::string_view> keys, uint8_t* out) const;

  // The C API's layout: key i is data[offsets[i], offsets[i + 1]); `offsets` holds count + 1
  // non-decreasing entries and out receives `count` bytes. Throws kInvalidArgument (before
  // writing anything) when the offsets decrease.
  void contains_many(const char* data, std::span<const uint64_t> offsets, uint8_t* out) const;

  const ReaderInfo& info() const noexcept { return info_; }
  const FilterHeader& header() const noexcept { return loaded_.header; }
  const LoadedFilter& loaded() const noexcept { return loaded_; }
  const std::string& path() const noexcept { return path_; }

 private:
  template <typename KeyAt>
  void query(size_t count, const KeyAt& key_at, uint8_t* out) const;

  std::string path_;
  LoadedFilter loaded_;
  Normaliser normaliser_;
  ReaderInfo info_;
};

}  // namespace bloomtool
