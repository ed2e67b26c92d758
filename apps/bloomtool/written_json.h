// The --json summary of the commands that write a filter (build, xor-build, merge, convert): one
// JSON object with the field names of `stats --json`, to standard output, or to standard error
// when standard output carries the filter (-o -).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "filters/bloom_build.h"
#include "api/convert.h"
#include "filters/filter.h"
#include "format/filter_file.h"
#include "analysis/stats.h"
#include "build_args.h"
#include "output_args.h"

namespace bloomtool::cli {

struct WrittenFacts {
  const char* command = "";              // "build", "xor-build", "merge", "convert"
  const FilterHeader* header = nullptr;  // as written
  uint64_t file_bytes = 0;
  const char* file_format = "bloomtool";  // what was written: bloomtool, guava or dcso
  std::optional<bool> distinct_exact;     // build and xor-build: counted, or from the fill
  std::optional<uint64_t> set_bits;       // Bloom, when the command knows it
  std::optional<double> fill_fpr;
  std::vector<std::string> inputs;      // merge and convert: the filter files read
  std::optional<uint64_t> input_bytes;  // convert: the size of the file read
  // The quick measurement of build and xor-build (none with --no-measure), and what it is judged
  // against: "fill" or "model".
  std::optional<FprMeasurement> measurement;
  const char* expected_from = "model";
};

// The quick measurement build and xor-build print, for the JSON object.
FprMeasurement quick_measurement(const Filter& filter, uint64_t seed, double expected_fpr);

// Prints the object for `facts`, written to `out`.
void print_written_json(const OutputArgs& out, const WrittenFacts& facts);

// build's object (the quick measurement unless --no-measure), and convert's.
void print_bloom_build_json(const KeyBuildArgs& args, const BloomBuild& r, uint64_t file_bytes);
void print_convert_json(const OutputArgs& out, const std::string& input, const char* to_format,
                        const ConvertResult& r);

}  // namespace bloomtool::cli
