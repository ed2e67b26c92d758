// convert_filter_file: the filter is read and checked exactly as load_filter checks it, so a file
// that could not be queried is never rewritten into one that looks sound, and then written again
// through write_filter_file, which sets the codec, its layout and the minor version.
#include "bloomtool/convert.h"

#include "bloomtool/hash.h"
#include "bloomtool/load_filter.h"

namespace bloomtool {

ConvertResult convert_filter_file(const std::string& input, const std::string& output,
                                  const WriteOptions& options) {
  FilterFileContents contents = read_filter_file(input);
  ConvertResult r;
  r.input_bytes = contents.file_bytes;
  const LoadedFilter loaded = make_filter(std::move(contents), input);
  r.header = loaded.header;
  // The writer raises the minor version for the 1.1 features it writes; a foreign hash scheme
  // keeps the file at 1.1 whatever the codec.
  r.header.minor = r.header.hash_id == kHashXxh3_64 ? kFormatMinor : kFormatMinorLatest;
  const auto words = loaded.filter->words();
  r.output_bytes = write_filter_file(output, r.header, words, words.size() * 8, options);
  return r;
}

}  // namespace bloomtool
