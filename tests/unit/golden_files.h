// The golden filter files in testdata/golden/ (made once by tools/make_golden.sh from
// testdata/golden/keys.txt with SOURCE_DATE_EPOCH=1700000000) and what every later bloomtool
// must read from them. Shared by the golden-file test and the corruption sweeps.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "format/filter_file.h"

namespace bloomtool::test {

struct GoldenFile {
  std::string name;  // in testdata/golden/
  FilterKind kind;
  uint32_t variant;
  uint64_t m;  // Bloom: bits; xor/fuse: fingerprint slots; Ribbon: rows
  uint32_t k;  // Bloom: hashes; xor/fuse: fingerprint bits; Ribbon: columns
  uint64_t header_bytes;
  std::string label;
  std::string normalisation;
  std::vector<uint64_t> kind_params;  // xor: block length, seed; fuse: segment length and count,
                                      // slots, seed; Ribbon: upper blocks, seed; bumped
                                      // Ribbon: layers, then 5 per layer
  uint64_t payload_xxh3;              // XXH3-64 of the decompressed payload as little-endian bytes
};

// One per kind, fingerprint width and format feature; a new one needs a line in
// tools/make_golden.sh too.
inline const std::vector<GoldenFile>& golden_files() {
  constexpr uint64_t kXorSeed = 0xe220a8397b1dcdafull;  // the mapping seed construction settled on
  constexpr uint64_t kRibbonSeed = 0x7de53de772ea694cull;   // the same for the Ribbon files
  constexpr uint64_t kBumpedSeed0 = 0x4396d60dbd8537afull;  // the bumped Ribbon files' layers
  constexpr uint64_t kBumpedSeed1 = 0xe98ff1a0396ff552ull;
  static const std::vector<GoldenFile> files = {
      {"v1-bloom-standard.bf",
       FilterKind::kBloom,
       0,
       1024,
       5,
       211,
       "golden-standard",
       "",
       {},
       0xb158b9108f1c9468ull},
      {"v1-bloom-blocked.bf",
       FilterKind::kBloom,
       1,
       1024,
       6,
       210,
       "golden-blocked",
       "",
       {},
       0xd1ef315d5148ba4cull},
      {"v1-xor-8.bf",
       FilterKind::kXor,
       0,
       84,
       8,
       230,
       "golden-xor",
       "",
       {28, kXorSeed},
       0x3f7ba6aef3a1ef2dull},
      {"v1-xor-16.bf",
       FilterKind::kXor,
       0,
       84,
       16,
       233,
       "golden-xor-16",
       "",
       {28, kXorSeed},
       0x915e54c9139d08f0ull},
      {"v1-fuse-8.bf",
       FilterKind::kBinaryFuse,
       0,
       96,
       8,
       249,
       "golden-fuse-8",
       "",
       {32, 1, 96, kXorSeed},
       0xba2047c663814697ull},
      {"v1-fuse-16.bf",
       FilterKind::kBinaryFuse,
       0,
       96,
       16,
       247,
       "golden-fuse",
       "",
       {32, 1, 96, kXorSeed},
       0x183b5521df752181ull},
      {"v1-bloom-normalised.bf",
       FilterKind::kBloom,
       0,
       1024,
       5,
       235,
       "golden-normalised",
       "trim,lowercase",
       {},
       0x6001b67defc3d705ull},
      {"v1.1-raw-bloom-standard.bf",
       FilterKind::kBloom,
       0,
       1024,
       5,
       235,
       "golden-standard",
       "",
       {},
       0xb158b9108f1c9468ull},
      {"v1.1-raw-bloom-blocked.bf",
       FilterKind::kBloom,
       1,
       1024,
       6,
       234,
       "golden-blocked",
       "",
       {},
       0xd1ef315d5148ba4cull},
      {"v1.1-raw-xor-8.bf",
       FilterKind::kXor,
       0,
       84,
       8,
       254,
       "golden-xor",
       "",
       {28, kXorSeed},
       0x3f7ba6aef3a1ef2dull},
      {"v1.1-raw-fuse-16.bf",
       FilterKind::kBinaryFuse,
       0,
       96,
       16,
       271,
       "golden-fuse",
       "",
       {32, 1, 96, kXorSeed},
       0x183b5521df752181ull},
      {"v1.2-ribbon.bf",
       FilterKind::kRibbon,
       0,
       192,
       6,
       233,
       "golden-ribbon",
       "",
       {1, kRibbonSeed},
       0xb1efdde3412dbe2cull},
      {"v1.2-raw-ribbon.bf",
       FilterKind::kRibbon,
       0,
       192,
       9,
       261,
       "golden-ribbon-raw",
       "",
       {1, kRibbonSeed},
       0xd3dfa1d55c23797full},
      // Format 1.3: partitioned static filters; their kind parameters are in the partition table.
      {"v1.3-fuse-8-partitioned.bf",
       FilterKind::kBinaryFuse,
       0,
       144,
       8,
       254,
       "golden-partitioned",
       "",
       {},
       0x7b4fc59383a5975aull},
      {"v1.3-raw-ribbon-partitioned.bf",
       FilterKind::kRibbon,
       0,
       384,
       6,
       282,
       "golden-partitioned-raw",
       "",
       {},
       0x69ec5112bbebf22full},
      // Bumped Ribbon (1.3): 2,000 keys (the golden keys, then the first 1,960 lines of
      // testdata/urls-10k.txt), two layers.
      {"v1.3-ribbon-bumped.bf",
       FilterKind::kRibbon,
       1,
       2176,
       6,
       312,
       "golden-ribbon-bumped",
       "",
       {2, 1920, 20, kBumpedSeed0, 120, 168, 256, 2, kBumpedSeed1, 0, 0},
       0x1267d0ec0c2262d8ull},
      {"v1.3-raw-ribbon-bumped.bf",
       FilterKind::kRibbon,
       1,
       2176,
       9,
       340,
       "golden-ribbon-bumped-raw",
       "",
       {2, 1920, 27, kBumpedSeed0, 144, 168, 256, 2, kBumpedSeed1, 0, 0},
       0x1c7c2e385e1cc101ull},
  };
  return files;
}

inline std::string golden_path(const std::string& name) {
  return std::string(BLOOMTOOL_TESTDATA) + "/golden/" + name;
}

}  // namespace bloomtool::test
