// Output options: the shrink guard, creation time and early checks of output paths.
#include "output_args.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <ctime>

#include <fmt/format.h>

#include "bloomtool/error.h"
#include "format/filter_file.h"
#include "format/output_target.h"
#include "common.h"
#include "units_cli.h"

namespace bloomtool::cli {

void ShrinkGuardArgs::add_to(CLI::App& app) {
  app.add_option("--min-keys", min_keys,
                 "Refuse to write the filter (exit 2) if the input has fewer distinct keys")
      ->type_name("N");
  app.add_option("--max-shrink", max_shrink,
                 "Refuse to replace OUT (exit 2) if the new filter has this much fewer distinct "
                 "keys than OUT records (10%, 0.1)")
      ->type_name("PCT");
}

ShrinkLimits ShrinkGuardArgs::limits(const std::string& output) const {
  ShrinkLimits l;
  if (!min_keys.empty()) l.min_keys = parse_count(min_keys, "--min-keys");
  if (!max_shrink.empty()) {
    if (output == "-") {
      throw Error(ErrorCode::kInvalidArgument,
                  "--max-shrink: compares with the file being replaced; not possible with -o -");
    }
    if (resolve_output_target(output).kind != OutputKind::kFile) {
      throw Error(ErrorCode::kInvalidArgument,
                  "--max-shrink: compares with the file being replaced; not possible when OUT (" +
                      output + ") is a device, FIFO or descriptor");
    }
    l.max_shrink = parse_fraction(max_shrink, "--max-shrink");
  }
  return l;
}

void check_shrink(const ShrinkLimits& limits, const std::string& output, uint64_t distinct) {
  const std::string name = output_name(output);
  if (distinct < limits.min_keys) {
    throw Error(ErrorCode::kLimitExceeded,
                fmt::format("{}: {} distinct keys, fewer than --min-keys {}; nothing written", name,
                            distinct, limits.min_keys));
  }
  if (!limits.max_shrink) return;
  struct stat st;
  if (::stat(output.c_str(), &st) != 0 && errno == ENOENT) return;  // first run: nothing to compare
  FilterHeader old;
  try {
    old = read_filter_header(output);
  } catch (const Error& e) {
    throw Error(e.code(), std::string(e.what()) +
                              " (--max-shrink compares with the file being replaced; remove it "
                              "to start afresh)");
  }
  const double floor = (1.0 - *limits.max_shrink) * static_cast<double>(old.distinct_estimate);
  if (static_cast<double>(distinct) < floor) {
    const double shrink =
        100.0 * (1.0 - static_cast<double>(distinct) / static_cast<double>(old.distinct_estimate));
    throw Error(ErrorCode::kLimitExceeded,
                fmt::format("{}: {} distinct keys, {:.1f}% fewer than the {} in the file being "
                            "replaced (--max-shrink {}); nothing written",
                            name, distinct, shrink, old.distinct_estimate,
                            fmt::format("{:g}%", *limits.max_shrink * 100.0)));
  }
}

int64_t creation_time(const std::string& created_option) {
  if (!created_option.empty()) return parse_timestamp(created_option, "--created");
  if (const char* sde = std::getenv("SOURCE_DATE_EPOCH"); sde != nullptr && *sde != '\0') {
    return parse_timestamp(sde, "SOURCE_DATE_EPOCH");
  }
  return static_cast<int64_t>(std::time(nullptr));
}

void check_output_path(const std::string& path, const std::vector<std::string>& inputs,
                       bool allow_in_place) {
  if (path.empty()) throw Error(ErrorCode::kInvalidArgument, "-o: empty output path");
  const OutputTarget target = resolve_output_target(path);
  check_output_not_input(target, inputs, allow_in_place);
  check_output_open(target);
  if (target.kind != OutputKind::kFile) return;
  // The temp file goes next to the final target: its directory must exist and be writable.
  const std::string& final_path = target.final_path;
  const auto slash = final_path.rfind('/');
  const std::string dir = slash == std::string::npos ? "."
                          : slash == 0               ? "/"
                                                     : final_path.substr(0, slash);
  const std::string what =
      final_path == path ? path : path + ": symbolic link to '" + final_path + "'";
  struct stat st;
  if (::stat(dir.c_str(), &st) != 0) throw_io_error(what, errno);
  if (!S_ISDIR(st.st_mode)) throw_io_error(what, ENOTDIR);
  if (::access(dir.c_str(), W_OK) != 0) throw_io_error(what, errno);
}

void OutputArgs::add_output(CLI::App& app) {
  app.add_option("-o,--output", output, "Output file, written atomically; '-' for stdout")
      ->required()
      ->type_name("OUT");
  app.add_option("--codec", codec,
                 "Payload codec: zstd (default: compressed) or raw (uncompressed, read and "
                 "verified chunk by chunk when queried: for filters too big to load)")
      ->type_name("CODEC");
}

void OutputArgs::add_to(CLI::App& app, const char* label_help, const char* quiet_help) {
  app.add_option("--label", label, label_help)->type_name("TEXT");
  app.add_option("--created", created,
                 "Creation time to record (Unix seconds or 2024-01-31T12:00:00Z); default "
                 "SOURCE_DATE_EPOCH, else now")
      ->type_name("TIME");
  guard.add_to(app);
  add_sign(app);
  add_json(app);
  app.add_flag("-q,--quiet", quiet, quiet_help);
}

void OutputArgs::add_json(CLI::App& app) {
  app.add_flag("--json", json,
               "Print the summary as one JSON object (stats --json's field names) on stdout, or "
               "on stderr with -o -");
}

void OutputArgs::add_sign(CLI::App& app) {
  app.add_option("--sign", sign,
                 "Sign the file with the secret key KEY (from 'bloomtool keygen'; mode 0600): "
                 "readers given the public key refuse any altered byte")
      ->type_name("KEY");
  app.footer(kTrustFooter);
}

std::string OutputArgs::name() const {
  return output_name(output);
}

OutputArgs::Prepared OutputArgs::prepare(const std::vector<std::string>& inputs,
                                         bool allow_in_place) const {
  Prepared p;
  p.provenance.created_unix = creation_time(created);
  p.provenance.label = label;
  p.codec = for_flag("--codec", [&] { return parse_payload_codec(codec); });
  check_output_path(output, inputs, allow_in_place);
  p.limits = guard.limits(output);
  if (!sign.empty()) p.signing_key = for_flag("--sign", [&] { return read_signing_key(sign); });
  return p;
}

void print_signed_line(const SigningKey& key) {
  fmt::print(stderr, "  signed          by key {} ({})\n", key_id_hex(key.id()), key.path());
}

}  // namespace bloomtool::cli
