// Merging Bloom filter files. Every header is read and compared with the first before a single
// payload byte is used, so a mismatch costs nothing and names the field at fault. The payloads are
// then streamed one chunk at a time (for_each_payload_chunk) into the one output word array; a word
// is written only when it changes, so the pages of a sparse result are never touched. The counts
// of the result are honest bounds: see MergedFilter in merge.h. A filter on standard input ("-")
// cannot be read twice, so it is read whole (read_filter_stream) when its header is wanted.
#include "api/merge.h"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <optional>

#include "api/load_filter.h"
#include "bloomtool/error.h"
#include "filters/bloom.h"
#include "filters/filter_kinds.h"
#include "filters/key_rule.h"
#include "interop/foreign_format.h"
#include "keys/hash.h"
#include "model/model.h"

namespace bloomtool {

namespace {

[[noreturn]] void mismatch(const std::string& field, const std::string& here,
                           const std::string& there, const std::string& first_path,
                           const std::string& other_path) {
  throw Error(ErrorCode::kInvalidArgument,
              fmt::format("{}: cannot merge: {} is {} here but {} in {}", other_path, field, here,
                          there, first_path));
}

std::string variant_text(uint32_t v) {
  return v <= 1 ? bloom_variant_name(static_cast<BloomVariant>(v)) : std::to_string(v);
}

std::string option_text(const std::string& s) {
  return s.empty() ? "(none)" : "'" + s + "'";
}

std::string params_text(const std::vector<uint64_t>& params) {
  return params.empty() ? "(none)" : fmt::format("[{}]", fmt::join(params, ", "));
}

uint64_t saturating_add(uint64_t a, uint64_t b) {
  return b > std::numeric_limits<uint64_t>::max() - a ? std::numeric_limits<uint64_t>::max()
                                                      : a + b;
}

void check_kind(const FilterHeader& h, const std::string& path) {
  if (h.kind == FilterKind::kXor || h.kind == FilterKind::kBinaryFuse) {
    throw Error(
        ErrorCode::kInvalidArgument,
        path + ": cannot merge xor/binary fuse filters; rebuild from the keys with build-static");
  }
  if (h.kind == FilterKind::kRibbon) {
    throw Error(ErrorCode::kInvalidArgument,
                path +
                    ": cannot merge Ribbon filters: a static filter solves for its own key "
                    "set and is no union of others; rebuild from all the keys with "
                    "build-static --kind ribbon");
  }
}

// Standard input ("-"), read whole: a stream cannot be read twice, so its header and payload are
// taken at once; other inputs are files, read in chunks.
struct StdinInput {
  std::optional<FilterFileContents> contents;
};

std::string name_of(const std::string& path) {
  return path == "-" ? "<stdin>" : path;
}

// Visits one file's payload, checking that no bit at or above m is set.
void visit_payload(const std::string& path, const FilterHeader& h, const StdinInput& in,
                   const std::function<void(uint64_t, std::span<const uint64_t>)>& fn) {
  const uint64_t last_word = h.payload_raw_bytes / 8 - 1;
  const auto check = [&](uint64_t first, std::span<const uint64_t> words) {
    if (h.m % 64 != 0 && first + words.size() == last_word + 1 &&
        (words.back() >> (h.m % 64)) != 0) {
      throw Error(ErrorCode::kCorrupt, name_of(path) + ": corrupt: bits set beyond m");
    }
    fn(first, words);
  };
  if (path == "-") {
    check(0, in.contents->payload.span());
  } else {
    for_each_payload_chunk(path, h, check);
  }
}

}  // namespace

void check_mergeable(const FilterHeader& first, const std::string& first_path,
                     const FilterHeader& other, const std::string& other_path) {
  check_kind(first, first_path);
  check_kind(other, other_path);
  auto differ = [&](const std::string& field, const std::string& here, const std::string& there) {
    if (here != there) mismatch(field, here, there, first_path, other_path);
  };
  differ("kind", filter_kind_name(other.kind), filter_kind_name(first.kind));
  differ("variant", variant_text(other.variant), variant_text(first.variant));
  differ("m", std::to_string(other.m) + " bits", std::to_string(first.m) + " bits");
  differ("k", std::to_string(other.k), std::to_string(first.k));
  differ("hash id", std::to_string(other.hash_id), std::to_string(first.hash_id));
  differ("seed", fmt::format("{:#018x}", other.seed), fmt::format("{:#018x}", first.seed));
  differ("normalisation", option_text(other.normalisation), option_text(first.normalisation));
  differ("input options", option_text(other.input_options), option_text(first.input_options));
  differ("kind parameters", params_text(other.kind_params), params_text(first.kind_params));
  // DCSO's Join refuses filters sized for another n or p; so does merge.
  if (first.hash_id == kHashDcsoFnv1 && !first.source_format.empty() &&
      !other.source_format.empty()) {
    const SourceFormat a = decode_source_format(first.source_format, first_path);
    const SourceFormat b = decode_source_format(other.source_format, other_path);
    differ("DCSO n (field 7)", std::to_string(b.capacity), std::to_string(a.capacity));
    differ("DCSO p (field 7)", fmt::format("{}", std::bit_cast<double>(b.fpp_bits)),
           fmt::format("{}", std::bit_cast<double>(a.fpp_bits)));
  }
}

MergedFilter merge_filter_files(const std::vector<std::string>& paths, MergeOp op) {
  if (paths.empty()) throw Error(ErrorCode::kInvalidArgument, "merge: no filter files given");
  std::vector<FilterHeader> headers;
  headers.reserve(paths.size());
  StdinInput in;
  for (const std::string& path : paths) {
    const std::string name = name_of(path);
    struct stat st;
    if (path == "-") {
      if (in.contents) {
        throw Error(ErrorCode::kInvalidArgument,
                    "-: standard input can be read only once; give one filter as '-'");
      }
      in.contents = read_filter_stream(STDIN_FILENO, name);
      headers.push_back(in.contents->header);
    } else if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
      throw Error(ErrorCode::kInvalidArgument,
                  path +
                      ": cannot merge from a pipe or device (each input is read twice); "
                      "save it to a file first, or give it as '-' on standard input");
    } else {
      headers.push_back(read_filter_header(path));
    }
    check_mergeable(headers.front(), name_of(paths.front()), headers.back(), name);
    const FilterHeader& h = headers.back();
    if (is_key_scheme(h.hash_id)) {
      const std::string why = scheme_geometry_problem(h.hash_id, h.m, h.k);
      if (!why.empty()) throw Error(ErrorCode::kCorrupt, name + ": corrupt: " + why);
      if (h.variant != 0 || h.payload_raw_bytes != (h.m + 63) / 64 * 8)
        throw Error(ErrorCode::kCorrupt, name + ": corrupt: payload length does not match m");
      continue;
    }
    if (h.hash_id != kHashXxh3_64) {
      throw Error(ErrorCode::kUnsupported,
                  name + ": unsupported: hash id " + std::to_string(h.hash_id));
    }
    check_bloom_header(h, name);
  }

  const FilterHeader& first = headers.front();
  check_payload_fits_memory(first, name_of(paths.front()));
  MergedFilter out;
  out.words = WordBuffer(first.payload_raw_bytes / 8);
  uint64_t* dst = out.words.data();
  visit_payload(paths.front(), first, in, [dst](uint64_t at, std::span<const uint64_t> words) {
    for (size_t i = 0; i < words.size(); ++i) {
      if (words[i] != 0) dst[at + i] = words[i];
    }
  });
  for (size_t f = 1; f < paths.size(); ++f) {
    if (op == MergeOp::kUnion) {
      visit_payload(paths[f], headers[f], in, [dst](uint64_t at, std::span<const uint64_t> words) {
        for (size_t i = 0; i < words.size(); ++i) {
          if ((words[i] & ~dst[at + i]) != 0) dst[at + i] |= words[i];
        }
      });
    } else {
      visit_payload(paths[f], headers[f], in, [dst](uint64_t at, std::span<const uint64_t> words) {
        for (size_t i = 0; i < words.size(); ++i) {
          if ((dst[at + i] & ~words[i]) != 0) dst[at + i] &= words[i];
        }
      });
    }
  }

  // What every input shares (checked above: kind, variant, hash, seed, m, k, kind parameters,
  // key options) carries over; counts, provenance and payload fields start afresh.
  FilterHeader& h = out.header;
  h = first;
  h.lines_read = h.keys_added = h.distinct_estimate = h.empty_lines = 0;
  h.created_unix = 0;
  h.tool_version.clear();
  h.label.clear();
  h.payload_raw_bytes = h.payload_stored_bytes = h.payload_checksum = h.header_bytes = 0;
  h.codec = PayloadCodec::kZstd;
  h.major = kFormatMajor;
  h.minor = kFormatMinor;
  h.required_features = 0;
  uint64_t keys = op == MergeOp::kUnion ? 0 : std::numeric_limits<uint64_t>::max();
  uint64_t smallest_distinct = std::numeric_limits<uint64_t>::max();
  for (const FilterHeader& in : headers) {
    h.lines_read = saturating_add(h.lines_read, in.lines_read);
    h.empty_lines = saturating_add(h.empty_lines, in.empty_lines);
    keys =
        op == MergeOp::kUnion ? saturating_add(keys, in.keys_added) : std::min(keys, in.keys_added);
    smallest_distinct = std::min(smallest_distinct, in.distinct_estimate);
  }
  h.keys_added = keys;
  if (!first.source_format.empty() && first.hash_id == kHashDcsoFnv1) {
    // DCSO's N: summed by a union, as Join sums it; the smallest for an intersection.
    SourceFormat src = decode_source_format(first.source_format, paths.front());
    src.count = keys;
    h.source_format = encode_source_format(src);
  }

  const std::span<const uint64_t> words = out.words.span();
  const double m = static_cast<double>(h.m);
  const double k = h.k;
  if (h.variant == static_cast<uint32_t>(BloomVariant::kBlocked512)) {
    constexpr size_t kBlockWords = model::kBlockBits / 64;
    double sum = 0;
    for (size_t b = 0; b < words.size(); b += kBlockWords) {
      uint64_t block_bits = 0;
      for (size_t i = b; i < b + kBlockWords; ++i) block_bits += std::popcount(words[i]);
      out.set_bits += block_bits;
      if (block_bits != 0) sum += std::pow(static_cast<double>(block_bits) / model::kBlockBits, k);
    }
    out.fill_fpr = sum / static_cast<double>(words.size() / kBlockWords);
  } else {
    for (uint64_t w : words) out.set_bits += static_cast<uint64_t>(std::popcount(w));
    out.fill_fpr = model::bloom_fill_fpr(static_cast<double>(out.set_bits), m, k);
  }

  // The same estimate `build` records, so a union of shards carries the header of a single build.
  const double x = static_cast<double>(out.set_bits);
  const double est = h.variant == static_cast<uint32_t>(BloomVariant::kBlocked512)
                         ? model::blocked_fill_distinct(x, m, k)
                         : model::bloom_fill_distinct(x, m, k);
  uint64_t distinct = std::isfinite(est) ? static_cast<uint64_t>(std::llround(est)) : keys;
  if (h.hash_id != kHashDcsoFnv1) distinct = std::min(distinct, keys);  // DCSO's N undercounts
  if (op == MergeOp::kIntersect) distinct = std::min(distinct, smallest_distinct);
  h.distinct_estimate = distinct;
  return out;
}

MergedFilter merge_filter_files(const std::vector<std::string>& paths, MergeOp op,
                                const BuildProvenance& provenance) {
  MergedFilter merged = merge_filter_files(paths, op);
  stamp_provenance(merged.header, provenance);
  return merged;
}

uint64_t MergedFilter::write(const std::string& path, const WriteOptions& options) {
  return write_filter_file(path, header, words.span(), words.size() * 8, options);
}

}  // namespace bloomtool
