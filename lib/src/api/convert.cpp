// convert_filter_file: the filter is read and checked exactly as load_filter checks it, so a file
// that could not be queried is never rewritten into one that looks sound, and then written again
// through write_filter_file, which sets the codec, its layout and the minor version.
// convert_filter: the same between formats, through foreign_format.h.
#include "api/convert.h"

#include "interop/compat_build.h"
#include "bloomtool/error.h"
#include "keys/hash.h"
#include "bloomtool/version.h"

namespace bloomtool {

ConvertResult convert_filter_file(const std::string& input, const std::string& output,
                                  const WriteOptions& options) {
  FilterFileContents contents = read_filter_file(input);
  ConvertResult r;
  r.input_bytes = contents.file_bytes;
  const LoadedFilter loaded = make_filter(std::move(contents), input);
  r.header = loaded.header;
  if (loaded.header.signature) r.source_signer = loaded.header.signature->key_id;
  // The writer raises the minor version for the 1.1 features it writes; a foreign hash scheme
  // keeps the file at 1.1 whatever the codec.
  r.header.minor = r.header.hash_id == kHashXxh3_64 ? kFormatMinor : kFormatMinorLatest;
  const auto words = loaded.filter->words();
  r.output_bytes = write_filter_file(output, r.header, words, words.size() * 8, options);
  return r;
}

std::vector<uint8_t> encode_filter_as(const LoadedFilter& filter, FileFormat to,
                                      const std::string& source,
                                      const FormatConvertOptions& options) {
  if (to == FileFormat::kBloomtool) {
    throw Error(ErrorCode::kInvalidArgument, "encode_filter_as: use write_filter_file");
  }
  if (options.write.codec != PayloadCodec::kZstd || options.write.signing_key != nullptr) {
    throw Error(ErrorCode::kInvalidArgument,
                source + ": cannot write a " + file_format_name(to) +
                    " file: it has no payload codec or signature (those are bloomtool's)");
  }
  verify_whole_payload(filter);  // a raw file's words are encoded whole
  return encode_foreign(filter, to, source, options.foreign);
}

ConvertResult convert_filter(const std::string& input, FileFormat from, const std::string& output,
                             FileFormat to, const FormatConvertOptions& options) {
  if (from == FileFormat::kBloomtool && to == FileFormat::kBloomtool)
    return convert_filter_file(input, output, options.write);
  LoadedFilter f = load_filter_as(input, from);
  verify_whole_payload(f);  // a raw file's words are used whole below (read into memory)
  ConvertResult r;
  r.input_bytes = f.file_bytes;
  if (f.header.signature) r.source_signer = f.header.signature->key_id;
  if (to == FileFormat::kBloomtool) {
    if (f.header.tool_version.empty())
      f.header.tool_version = std::string("bloomtool ") + kToolVersion;
    r.header = f.header;
    const auto words = f.filter->words();
    try {
      r.output_bytes = write_filter_file(output, r.header, words, words.size() * 8, options.write);
    } catch (const Error& e) {
      if (e.code() != ErrorCode::kInvalidArgument) throw;
      throw Error(e.code(), input + ": cannot write a bloomtool file: " + e.what());
    }
    return r;
  }
  const std::vector<uint8_t> bytes = encode_filter_as(f, to, input, options);
  r.output_bytes = write_output_bytes(output, bytes);
  r.header = std::move(f.header);
  return r;
}

}  // namespace bloomtool
