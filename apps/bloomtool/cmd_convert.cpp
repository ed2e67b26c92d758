// `bloomtool convert`: rewrites a filter file with another payload codec (zstd or raw) without
// rebuilding it: same bits, same header facts, written atomically like every writer. A summary
// goes to stderr unless -q.
#include <fmt/format.h>

#include <memory>

#include "bloomtool/convert.h"
#include "bloomtool/word_buffer.h"
#include "common.h"

namespace bloomtool::cli {

namespace {

struct ConvertOptions {
  std::string input;
  OutputArgs out;
};

int run_convert(const ConvertOptions& o) {
  const OutputArgs::Prepared out = o.out.prepare({o.input}, /*allow_in_place=*/true);
  const ConvertResult r = convert_filter_file(o.input, o.out.output, out.write_options());
  if (!o.out.quiet) {
    fmt::print(stderr,
               "bloomtool: wrote {}: {} filter, payload {}\n"
               "  file size       {} ({} bytes; was {} bytes)\n",
               o.out.name(), filter_kind_name(r.header.kind), payload_codec_name(r.header.codec),
               format_bytes(r.output_bytes), r.output_bytes, r.input_bytes);
    if (out.signing_key) print_signed_line(*out.signing_key);
  }
  return kExitOk;
}

}  // namespace

Command register_convert(CLI::App& root) {
  auto o = std::make_shared<ConvertOptions>();
  CLI::App* app = root.add_subcommand(
      "convert", "Rewrite a filter file with another payload codec (zstd or raw), no rebuild");
  app->add_option("input", o->input, "Filter file to convert (any kind bloomtool writes)")
      ->required()
      ->type_name("FILTER");
  o->out.add_output(*app);
  o->out.add_sign(*app);
  app->add_flag("-q,--quiet", o->out.quiet, "Print nothing but errors");
  return {app, [o] { return run_convert(*o); }};
}

}  // namespace bloomtool::cli
