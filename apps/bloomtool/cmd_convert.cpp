// `bloomtool convert`: rewrites a filter without rebuilding it, atomically like every writer. From
// one bloomtool file to another with another payload codec (zstd or raw), or between formats with
// --from and --to (bloomtool, guava, dcso): a peer's file converted to bloomtool and back is
// byte-identical (gzip DCSO: the same header and decompressed bytes). A summary goes to stderr
// unless -q.
#include <fmt/format.h>

#include <memory>

#include "api/convert.h"
#include "base/word_buffer.h"
#include "bloomtool/error.h"
#include "common.h"
#include "filters/key_rule.h"
#include "format/signature.h"
#include "written_json.h"

namespace bloomtool::cli {

namespace {

struct ConvertOptions {
  std::string input;
  std::string from = "bloomtool";
  std::string to = "bloomtool";
  bool gzip = false;
  bool no_gzip = false;
  OutputArgs out;
};

int run_convert(const ConvertOptions& o) {
  const FileFormat from = for_flag("--from", [&] { return parse_file_format(o.from); });
  const FileFormat to = for_flag("--to", [&] { return parse_file_format(o.to); });
  FormatConvertOptions options;
  if (o.gzip || o.no_gzip) {
    if (to != FileFormat::kDcso)
      throw Error(ErrorCode::kInvalidArgument, "--gzip/--no-gzip: only with --to dcso");
    options.foreign.gzip = o.gzip;
  }
  if (to != FileFormat::kBloomtool && o.out.codec != "zstd") {
    throw Error(ErrorCode::kInvalidArgument, std::string("--codec: not with --to ") +
                                                 file_format_name(to) +
                                                 ": the peer's file has no payload codec");
  }
  if (to != FileFormat::kBloomtool && !o.out.sign.empty()) {
    throw Error(ErrorCode::kInvalidArgument, std::string("--sign: not with --to ") +
                                                 file_format_name(to) +
                                                 ": the peer's file has no place for a signature");
  }
  const OutputArgs::Prepared out = o.out.prepare({o.input}, /*allow_in_place=*/true);
  options.write = out.write_options();
  const ConvertResult r = convert_filter(o.input, from, o.out.output, to, options);
  if (r.source_signer && !out.signing_key) {
    // A signature covers the old bytes and is never carried over: say so rather than let a
    // signed file turn into an unsigned one unnoticed (convert --codec raw F -o F).
    const std::string was =
        fmt::format("{} was signed (key ID {})", o.input, key_id_hex(*r.source_signer));
    if (to == FileFormat::kBloomtool) {
      warn(
          fmt::format("{}: unsigned: {}, and a signature covers the old bytes only; sign the "
                      "output again with --sign KEY",
                      o.out.name(), was));
    } else {
      warn(fmt::format("{}: unsigned: {}, and a {} file has no place for a signature", o.out.name(),
                       was, file_format_name(to)));
    }
  }
  if (!o.out.quiet && o.out.json) {
    print_convert_json(o.out, o.input, file_format_name(to), r);
  } else if (!o.out.quiet) {
    if (to == FileFormat::kBloomtool) {
      fmt::print(stderr,
                 "bloomtool: wrote {}: {} filter, payload {}\n"
                 "  file size       {} ({} bytes; was {} bytes)\n",
                 o.out.name(), filter_kind_name(r.header.kind), payload_codec_name(r.header.codec),
                 format_bytes(r.output_bytes), r.output_bytes, r.input_bytes);
      if (out.signing_key) print_signed_line(*out.signing_key);
    } else {
      fmt::print(stderr,
                 "bloomtool: wrote {}: {} file ({}; m {}, k {})\n"
                 "  file size       {} ({} bytes; was {} bytes)\n",
                 o.out.name(), file_format_name(to), hash_scheme_name(r.header.hash_id), r.header.m,
                 r.header.k, format_bytes(r.output_bytes), r.output_bytes, r.input_bytes);
    }
  }
  return kExitOk;
}

}  // namespace

Command register_convert(CLI::App& root) {
  auto o = std::make_shared<ConvertOptions>();
  CLI::App* app = root.add_subcommand(
      "convert",
      "Rewrite a filter without rebuilding it: another payload codec (zstd or raw), or another "
      "format (bloomtool, Guava, DCSO bloom)");
  app->add_option("input", o->input, "Filter file to convert (any kind bloomtool writes)")
      ->required()
      ->type_name("FILTER");
  o->out.add_output(*app);
  app->add_option("--from", o->from, "Format of FILTER: bloomtool (default), guava or dcso")
      ->type_name("FORMAT");
  app->add_option("--to", o->to, "Format of OUT: bloomtool (default), guava or dcso")
      ->type_name("FORMAT");
  auto* gzip = app->add_flag("--gzip", o->gzip,
                             "With --to dcso: gzip the output (default: as the source was)");
  auto* no_gzip = app->add_flag("--no-gzip", o->no_gzip, "With --to dcso: write it plain");
  gzip->excludes(no_gzip);
  o->out.add_sign(*app);
  o->out.add_json(*app);
  app->add_flag("-q,--quiet", o->out.quiet, "Print nothing but errors");
  return {app, [o] { return run_convert(*o); }};
}

}  // namespace bloomtool::cli
