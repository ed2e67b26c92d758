// The public merge and convert (bloomtool/merge.h): the library's merge_filter_files and
// convert_filter, with the options checked as `bloomtool merge` and `convert` check them.
#include <memory>
#include <string>
#include <vector>

#include "api/convert.h"
#include "api/facts.h"
#include "api/merge.h"
#include "bloomtool/error.h"
#include "bloomtool/merge.h"
#include "format/signature.h"

namespace bloomtool {

FilterInfo merge_filters(const std::vector<std::string>& inputs, const std::string& output,
                         const MergeOptions& options) {
  if (inputs.size() < 2) throw FieldError("inputs", "give at least two filter files");
  const std::unique_ptr<SigningKey> key =
      options.output.signing_key.empty() ? nullptr : read_signing_key(options.output.signing_key);
  BuildProvenance provenance;
  provenance.label = options.label;
  provenance.created_unix = creation_time(options.created);
  MergedFilter merged = merge_filter_files(
      inputs, options.intersect ? MergeOp::kIntersect : MergeOp::kUnion, provenance);
  WriteOptions w;
  w.codec = internal_codec(options.output.codec);
  w.signing_key = key.get();
  const uint64_t bytes = merged.write(output, w);
  return filter_info_of(merged.header, bytes, FilterFormat::kBloomtool);
}

FilterInfo convert_file(const std::string& input, const std::string& output,
                        const ConvertOptions& options) {
  if (options.to == FilterFormat::kAuto)
    throw FieldError("to", "name the output's format (bloomtool, guava or dcso)");
  const FilterFormat from = resolve_format(input, options.from);
  FormatConvertOptions o;
  if (options.gzip) {
    if (options.to != FilterFormat::kDcso) throw FieldError("gzip", "only for a DCSO output");
    o.foreign.gzip = options.gzip;
  }
  if (options.to != FilterFormat::kBloomtool && options.output.codec != Codec::kZstd)
    throw FieldError("codec", "only for a bloomtool output: a peer's file has no payload codec");
  if (options.to != FilterFormat::kBloomtool && !options.output.signing_key.empty())
    throw FieldError("signing_key",
                     "only for a bloomtool output: a peer's file has no place for a signature");
  const std::unique_ptr<SigningKey> key =
      options.output.signing_key.empty() ? nullptr : read_signing_key(options.output.signing_key);
  o.write.codec = internal_codec(options.output.codec);
  o.write.signing_key = key.get();
  const ConvertResult r =
      convert_filter(input, internal_format(from), output, internal_format(options.to), o);
  return filter_info_of(r.header, r.output_bytes, options.to);
}

}  // namespace bloomtool
