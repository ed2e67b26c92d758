// The embeddable reader: load_filter, the file's normaliser, and filter_contains_keys in chunks
// that need no allocation per key and no state shared between calls.
#include "api/reader.h"

#include <algorithm>
#include <string>

#include "filters/bloom.h"
#include "bloomtool/error.h"
#include "keys/hash.h"
#include "format/signature.h"
#include "analysis/stats.h"

namespace bloomtool {

namespace {

// Keys are normalised and tested this many at a time: the scratch stays in the L1 cache.
constexpr size_t kChunk = 512;

ReaderInfo make_info(const LoadedFilter& loaded) {
  const FilterHeader& h = loaded.header;
  ReaderInfo info;
  info.kind = filter_kind_name(h.kind);
  if (h.kind == FilterKind::kBloom)
    info.variant = bloom_variant_name(static_cast<BloomVariant>(h.variant));
  info.format_version = std::to_string(h.major) + "." + std::to_string(h.minor);
  info.m = h.m;
  info.k = h.k;
  info.distinct_keys = h.distinct_estimate;
  info.keys_added = h.keys_added;
  info.model_fpr = model_fpr_for(h, static_cast<double>(h.distinct_estimate));
  info.label = h.label;
  info.created_unix = h.created_unix;
  info.normalisation = h.normalisation;
  info.hash = hash_scheme_name(h.hash_id);
  info.hash_id = h.hash_id;
  info.seed = h.seed;
  info.file_bytes = loaded.file_bytes;
  if (h.signature) {
    info.signature_signed = true;
    if (h.signature->algorithm == kSignatureEd25519Blake2b)
      info.signature_key_id = key_id_hex(h.signature->key_id);
  }
  return info;
}

LoadedFilter open_filter(const std::string& path, const ReaderOptions& options) {
  if (options.trusted_key.empty()) return load_filter(path);
  return load_verified_filter(path, read_public_key(options.trusted_key));
}

}  // namespace

Reader::Reader(const std::string& path, const ReaderOptions& options)
    : path_(path), loaded_(open_filter(path, options)) {
  normaliser_ = Normaliser::parse(loaded_.header.normalisation, path_);
  info_ = make_info(loaded_);
  info_.signature_verified = !options.trusted_key.empty();
}

template <typename KeyAt>
void Reader::query(size_t count, const KeyAt& key_at, uint8_t* out) const {
  std::string_view views[kChunk];
  if (normaliser_.empty()) {
    // Keys as they are: tested in place, and the empty ones answered 0 afterwards.
    for (size_t at = 0; at < count; at += kChunk) {
      const size_t n = std::min(kChunk, count - at);
      bool any_empty = false;
      for (size_t i = 0; i < n; ++i) {
        views[i] = key_at(at + i);
        any_empty |= views[i].empty();
      }
      filter_contains_keys(loaded_, std::span<const std::string_view>(views, n), out + at);
      if (any_empty) {
        for (size_t i = 0; i < n; ++i)
          if (views[i].empty()) out[at + i] = 0;  // never added, never reported by `query`
      }
    }
    return;
  }
  uint32_t positions[kChunk];
  uint32_t arena_starts[kChunk];
  uint8_t answers[kChunk];
  NormScratch scratch;
  std::string arena;
  for (size_t at = 0; at < count; at += kChunk) {
    const size_t n = std::min(kChunk, count - at);
    size_t kept = 0;
    arena.clear();
    for (size_t i = 0; i < n; ++i) {
      out[at + i] = 0;
      const std::string_view key = normaliser_.apply(key_at(at + i), scratch);
      if (key.empty()) continue;  // never added, never reported by `query`
      // The scratch is reused by the next key: the chunk's keys are copied into one arena.
      arena_starts[kept] = static_cast<uint32_t>(arena.size());
      arena.append(key);
      views[kept] = key;
      positions[kept++] = static_cast<uint32_t>(i);
    }
    for (size_t j = 0; j < kept; ++j)
      views[j] = std::string_view(arena).substr(arena_starts[j], views[j].size());
    filter_contains_keys(loaded_, std::span<const std::string_view>(views, kept), answers);
    for (size_t j = 0; j < kept; ++j) out[at + positions[j]] = answers[j];
  }
}

bool Reader::contains(std::string_view key) const {
  NormScratch scratch;
  if (!normaliser_.empty()) key = normaliser_.apply(key, scratch);
  if (key.empty()) return false;  // never added, never reported by `query`
  uint8_t answer = 0;
  filter_contains_keys(loaded_, std::span<const std::string_view>(&key, 1), &answer);
  return answer != 0;
}

void Reader::contains_many(std::span<const std::string_view> keys, uint8_t* out) const {
  query(
      keys.size(), [keys](size_t i) { return keys[i]; }, out);
}

void Reader::contains_many(const char* data, std::span<const uint64_t> offsets,
                           uint8_t* out) const {
  if (offsets.empty()) return;
  for (size_t i = 1; i < offsets.size(); ++i) {
    if (offsets[i] < offsets[i - 1]) {
      throw Error(ErrorCode::kInvalidArgument,
                  "offsets: entry " + std::to_string(i) + " (" + std::to_string(offsets[i]) +
                      ") is less than the one before it (" + std::to_string(offsets[i - 1]) + ")");
    }
  }
  const uint64_t* o = offsets.data();
  query(
      offsets.size() - 1,
      [data, o](size_t i) { return std::string_view(data + o[i], o[i + 1] - o[i]); }, out);
}

}  // namespace bloomtool
