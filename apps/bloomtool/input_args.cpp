// Input options: registration with CLI11 and their translation into InputOptions.
#include "input_args.h"

#include <algorithm>

#include "bloomtool/error.h"
#include "common.h"
#include "units_cli.h"

namespace bloomtool::cli {

namespace {

constexpr const char* kInputGroup = "Input";
constexpr const char* kNormGroup = "Key normalisation (recorded in the filter, applied by query)";

char parse_delimiter(const std::string& text) {
  if (text.size() == 1) return text[0];
  if (text == "\\t" || text == "tab" || text == "TAB") return '\t';
  throw Error(ErrorCode::kInvalidArgument,
              "--delimiter: '" + text + "' is not one character (for a tab: '\\t' or tab)");
}

}  // namespace

void InputArgs::add_to(CLI::App& app, const char* inputs_help, bool normalisation) {
  app.add_option("inputs", inputs, inputs_help)->type_name("INPUT");
  app.add_option("--input-format", format,
                 "lines (default), ndjson, delimited, tsv (delimited on tabs) or csv (delimited on "
                 "commas, with double quotes)")
      ->type_name("FORMAT")
      ->group(kInputGroup);
  field_opt_ = app.add_option("--field", field,
                              "ndjson: JSON pointer to the key, e.g. /user/email (implies "
                              "--input-format ndjson; '' or none: the whole line)")
                   ->type_name("POINTER")
                   ->group(kInputGroup);
  delimiter_opt_ = app.add_option("--delimiter", delimiter,
                                  "Column delimiter, one character or \\t (implies delimited; "
                                  "default tab, or comma for csv)")
                       ->type_name("C")
                       ->group(kInputGroup);
  column_opt_ = app.add_option("--column", column,
                               "Column holding the key: a number from 1, or a name in the header "
                               "line (implies delimited, and --header for a name; default 1)")
                    ->type_name("N|NAME")
                    ->group(kInputGroup);
  add_header_flag(app);
  app.add_flag("--skip-bad-lines", skip_bad_lines,
               "Skip and count records without a usable key (bad JSON, missing field, too few "
               "columns) instead of failing")
      ->group(kInputGroup);
  app.add_option("--max-bad-lines", max_bad_lines,
                 "Fail after more than K bad records (implies --skip-bad-lines)")
      ->type_name("K")
      ->group(kInputGroup);
  app.add_option("--max-key-bytes", max_key_bytes,
                 "Longest accepted line in bytes; a longer one is an error (default 1MiB, at most "
                 "1GiB)")
      ->type_name("SIZE")
      ->group(kInputGroup);
  app.add_flag("--progress", progress,
               "Show a progress line on stderr even when it is not a terminal")
      ->group(kInputGroup);
  if (!normalisation) return;
  app.add_flag("--trim", trim, "Drop leading and trailing ASCII whitespace from keys")
      ->group(kNormGroup);
  app.add_flag("--lowercase", lowercase, "Lowercase ASCII letters in keys")->group(kNormGroup);
  app.add_option("--strip-prefix", strip_prefixes,
                 "Remove this prefix from keys that start with it (repeatable; applied in order, "
                 "after --trim and --lowercase)")
      ->type_name("TEXT")
      ->allow_extra_args(false)
      ->group(kNormGroup);
  app.add_option("--normalize", normalize,
                 "Preset applied last: email, phone or url (see bloomtool-build(1))")
      ->type_name("PRESET")
      ->group(kNormGroup);
}

InputOptions InputArgs::options() const {
  InputOptions o;
  o.max_key_bytes = parse_size_bytes(max_key_bytes, "--max-key-bytes");
  if (o.max_key_bytes == 0 || o.max_key_bytes > kMaxMaxKeyBytes) {
    throw Error(ErrorCode::kInvalidArgument, "--max-key-bytes: must be between 1 and 1GiB");
  }

  const bool has_field = field_opt_ != nullptr && field_opt_->count() > 0;
  const bool has_delimiter = delimiter_opt_ != nullptr && delimiter_opt_->count() > 0;
  const bool has_column = column_opt_ != nullptr && column_opt_->count() > 0;
  std::string fmt = format;
  if (fmt.empty()) {
    if (has_field && (has_delimiter || has_column)) {
      throw Error(ErrorCode::kInvalidArgument,
                  "--field (ndjson) and --delimiter/--column (delimited) exclude each other");
    }
    fmt = has_field ? "ndjson" : (has_delimiter || has_column) ? "delimited" : "lines";
  }
  if (fmt == "lines") {
    o.format = InputFormat::kLines;
  } else if (fmt == "ndjson" || fmt == "jsonl") {
    o.format = InputFormat::kNdjson;
  } else if (fmt == "delimited" || fmt == "tsv") {
    o.format = InputFormat::kDelimited;
    if (fmt == "tsv" && has_delimiter) {
      throw Error(ErrorCode::kInvalidArgument,
                  "--delimiter: tsv is delimited on tabs; use --input-format delimited");
    }
  } else if (fmt == "csv") {
    o.format = InputFormat::kCsv;
    o.delimiter = ',';
  } else {
    throw Error(ErrorCode::kInvalidArgument,
                "--input-format: '" + fmt + "' is not one of lines, ndjson, delimited, tsv, csv");
  }
  const bool delimited = o.format == InputFormat::kDelimited || o.format == InputFormat::kCsv;
  if (has_field && o.format != InputFormat::kNdjson) {
    throw Error(ErrorCode::kInvalidArgument, "--field: only for --input-format ndjson");
  }
  if ((has_delimiter || has_column) && !delimited) {
    throw Error(ErrorCode::kInvalidArgument,
                std::string(has_delimiter ? "--delimiter" : "--column") +
                    ": only for --input-format delimited, tsv or csv");
  }
  o.field = field;
  if (has_delimiter) o.delimiter = parse_delimiter(delimiter);
  if (has_column && !column.empty() &&
      column.find_first_not_of("0123456789") != std::string::npos) {
    o.column_name = column;  // a name, looked up in each input's header
  } else if (has_column) {
    const uint64_t c = parse_count(column, "--column");
    if (c == 0 || c > UINT32_MAX) {
      throw Error(ErrorCode::kInvalidArgument, "--column: must be between 1 and 4294967295");
    }
    o.column = static_cast<uint32_t>(c);
  }

  check_header_flag(o);
  o.skip_bad_lines = skip_bad_lines;
  if (!max_bad_lines.empty()) {
    o.max_bad_lines = parse_count(max_bad_lines, "--max-bad-lines");
    o.skip_bad_lines = true;
  }

  std::vector<NormStep> steps;
  if (trim) steps.push_back({NormStepKind::kTrim, {}});
  if (lowercase) steps.push_back({NormStepKind::kLowercase, {}});
  for (const std::string& prefix : strip_prefixes) {
    if (prefix.empty()) throw Error(ErrorCode::kInvalidArgument, "--strip-prefix: empty prefix");
    if (lowercase &&
        std::any_of(prefix.begin(), prefix.end(), [](char c) { return c >= 'A' && c <= 'Z'; })) {
      throw Error(ErrorCode::kInvalidArgument,
                  "--strip-prefix: '" + prefix +
                      "' has upper-case letters, so it never matches after --lowercase");
    }
    steps.push_back({NormStepKind::kStripPrefix, prefix});
  }
  if (!normalize.empty()) {
    try {
      steps.push_back({parse_norm_preset(normalize), {}});
    } catch (const Error&) {
      throw Error(ErrorCode::kInvalidArgument,
                  "--normalize: '" + normalize + "' is not one of email, phone, url");
    }
  }
  o.normaliser = Normaliser(std::move(steps));
  return o;
}

void report_bad_lines(const InputStats& stats) {
  if (stats.bad_lines == 0) return;
  warn(fmt::format("skipped {} bad line{} (first: {})", stats.bad_lines,
                   stats.bad_lines == 1 ? "" : "s", stats.first_bad_line));
}
std::unique_ptr<KeyStream> open_key_stream(const std::vector<std::string>& inputs,
                                           const InputOptions& options,
                                           const KeyStreamOptions& stream_options) {
  try {
    return std::make_unique<KeyStream>(inputs, options, stream_options);
  } catch (const FieldError& e) {
    const std::string& f = e.field();
    const char* flag = f == "field"           ? "--field"
                       : f == "delimiter"     ? "--delimiter"
                       : f == "column"        ? "--column"
                       : f == "max_key_bytes" ? "--max-key-bytes"
                                              : nullptr;
    if (flag == nullptr) throw;
    throw Error(e.code(), std::string(flag) + ": " + e.reason());
  }
}

}  // namespace bloomtool::cli
