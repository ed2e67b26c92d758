// Golden files: a file written by bloomtool 0.1 (format 1.0) must read identically forever —
// every header field, the exact payload bits, and membership of every golden key (normalised as
// the file says), for every filter kind.
#include <xxhash.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <string>
#include <vector>

#include "api/load_filter.h"
#include "golden_files.h"
#include "keys/hash.h"
#include "keys/normalise.h"

using namespace bloomtool;
using bloomtool::test::golden_files;
using bloomtool::test::golden_path;

namespace {

std::vector<std::string> golden_keys(const std::string& file = "/golden/keys.txt",
                                     size_t most = 40) {
  std::ifstream in(std::string(BLOOMTOOL_TESTDATA) + file);
  std::vector<std::string> keys;
  for (std::string line; keys.size() < most && std::getline(in, line);) keys.push_back(line);
  return keys;
}

}  // namespace

TEST_CASE(
    "golden v1 files (1.0 zstd, 1.1 raw, 1.2 Ribbon, 1.3 bumped Ribbon) still read identically",
    "[golden]") {
  const std::vector<std::string> golden = golden_keys();
  REQUIRE(golden.size() == 40);
  // The bumped Ribbon files hold the golden keys and the first 1,960 test URLs (layers start at
  // 1,025 keys).
  std::vector<std::string> urls = golden;
  for (const std::string& url : golden_keys("/urls-10k.txt", 1960)) urls.push_back(url);
  REQUIRE(urls.size() == 2000);
  for (const auto& g : golden_files()) {
    INFO(g.name);
    const bool bumped = g.kind == FilterKind::kRibbon && g.variant == 1;
    const std::vector<std::string>& keys = bumped ? urls : golden;
    const FilterFileContents c = read_filter_file(golden_path(g.name));
    const FilterHeader& h = c.header;
    // Raw golden files hold the same filters as their 1.0 namesakes (convert gives those back).
    const bool raw = g.name.find("-raw-") != std::string::npos;
    const bool ribbon = g.kind == FilterKind::kRibbon;  // always 1.2, 1.3 if bumped
    CHECK(h.major == 1);
    const bool partitioned = h.partitions.has_value();  // always 1.3
    CHECK(partitioned == (g.name.find("partitioned") != std::string::npos));
    CHECK(h.minor == (partitioned || bumped ? 3 : ribbon ? 2 : raw ? 1 : 0));
    CHECK(h.required_features == 0);
    CHECK(h.kind == g.kind);
    CHECK(h.variant == g.variant);
    CHECK(h.hash_id == kHashXxh3_64);
    CHECK(h.seed == kDefaultSeed);
    CHECK(h.m == g.m);
    CHECK(h.k == g.k);
    CHECK(h.lines_read == keys.size());
    CHECK(h.keys_added == keys.size());
    CHECK(h.distinct_estimate == keys.size());
    CHECK(h.empty_lines == 0);
    CHECK(h.created_unix == 1700000000);
    CHECK(h.codec == (raw ? PayloadCodec::kRawChunked : PayloadCodec::kZstd));
    CHECK(h.raw_chunk_bytes == (raw ? 65536u : 0u));
    CHECK(h.raw_payload_offset == (raw ? 4096u : 0u));
    CHECK(h.header_bytes == g.header_bytes);
    CHECK(h.label == g.label);
    CHECK(h.tool_version == "bloomtool 0.1.0");
    CHECK(h.input_options == "lines");
    CHECK(h.normalisation == g.normalisation);
    CHECK(h.kind_params == g.kind_params);
    REQUIRE(h.payload_raw_bytes == c.payload.size() * 8);
    CHECK(XXH3_64bits(c.payload.data(), h.payload_raw_bytes) == g.payload_xxh3);

    const LoadedFilter f = load_filter(golden_path(g.name));
    CHECK((f.raw != nullptr) == raw);  // raw files are read a chunk at a time
    const Normaliser norm = Normaliser::parse(f.header.normalisation, g.name);
    NormScratch scratch;
    for (const std::string& key : keys) {
      INFO(key);
      const uint64_t hash = hash_key(norm.apply(key, scratch), f.header.seed);
      uint8_t found = 0;
      filter_contains_hashes(f, std::span<const uint64_t>(&hash, 1), &found);
      CHECK(found == 1);
    }
    // Every chunk a member probes was read once (and stays in the cache: these files are small).
    if (raw) CHECK(f.raw->chunk_reads() == f.raw->resident_chunks());
  }
}

TEST_CASE("an unknown optional header field is skipped", "[golden]") {
  const auto& g = golden_files().front();
  const LoadedFilter ref = load_filter(golden_path(g.name));
  const LoadedFilter f = load_filter(std::string(BLOOMTOOL_TESTDATA) + "/bad/optional-field.bf");
  CHECK(f.header.m == ref.header.m);
  CHECK(f.header.k == ref.header.k);
  CHECK(f.header.label == ref.header.label);
  CHECK(f.header.header_bytes == ref.header.header_bytes + 11);
  for (const std::string& key : golden_keys())
    CHECK(f.filter->contains_hash(hash_key(key, f.header.seed)));
}
