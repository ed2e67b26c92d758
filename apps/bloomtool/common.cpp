// Shared CLI plumbing: input options, stdout buffering with quiet EPIPE, creation time, early
// checks of output paths.
#include "common.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>

#include "bloomtool/error.h"
#include "bloomtool/filter_file.h"
#include "bloomtool/output_target.h"
#include "bloomtool/units.h"

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
                              "--input-format ndjson; default: the whole line)")
                   ->type_name("POINTER")
                   ->group(kInputGroup);
  delimiter_opt_ = app.add_option("--delimiter", delimiter,
                                  "Column delimiter, one character or \\t (implies delimited; "
                                  "default tab, or comma for csv)")
                       ->type_name("C")
                       ->group(kInputGroup);
  column_opt_ = app.add_option("--column", column,
                               "Column holding the key, from 1 (implies delimited; default 1)")
                    ->type_name("N")
                    ->group(kInputGroup);
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
  if (has_column) {
    const uint64_t c = parse_count(column, "--column");
    if (c == 0 || c > UINT32_MAX) {
      throw Error(ErrorCode::kInvalidArgument, "--column: must be between 1 and 4294967295");
    }
    o.column = static_cast<uint32_t>(c);
  }

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
  if (!normalize.empty()) steps.push_back({parse_norm_preset(normalize), {}});
  o.normaliser = Normaliser(std::move(steps));
  return o;
}

void report_bad_lines(const InputStats& stats) {
  if (stats.bad_lines == 0) return;
  warn(fmt::format("skipped {} bad line{} (first: {})", stats.bad_lines,
                   stats.bad_lines == 1 ? "" : "s", stats.first_bad_line));
}

namespace {

[[noreturn]] void throw_stdout_error(int e) {
  if (e == EPIPE) throw BrokenPipe{};
  if (e == EBADF) throw Error(ErrorCode::kIOError, "<stdout>: standard output is closed");
  throw_io_error("<stdout>", e);
}

}  // namespace

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

StdoutWriter::StdoutWriter() : buf_(1 << 18) {}

StdoutWriter::~StdoutWriter() {
  try {
    flush();
  } catch (...) {
  }
}

void StdoutWriter::write(std::string_view s) {
  if (s.size() > buf_.size() - used_) {
    flush();
    if (s.size() >= buf_.size()) {
      const char* p = s.data();
      size_t left = s.size();
      while (left != 0) {
        const ssize_t w = ::write(STDOUT_FILENO, p, left);
        if (w < 0) {
          if (errno == EINTR) continue;
          throw_stdout_error(errno);
        }
        p += w;
        left -= static_cast<size_t>(w);
      }
      return;
    }
  }
  std::memcpy(buf_.data() + used_, s.data(), s.size());
  used_ += s.size();
}

void StdoutWriter::flush() {
  size_t done = 0;
  while (done < used_) {
    const ssize_t w = ::write(STDOUT_FILENO, buf_.data() + done, used_ - done);
    if (w < 0) {
      if (errno == EINTR) continue;
      used_ = 0;
      throw_stdout_error(errno);
    }
    done += static_cast<size_t>(w);
  }
  used_ = 0;
}

void guard_standard_fds() noexcept {
  for (int fd = 0; fd <= 2; ++fd) {
    if (::fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;
    // stdin: reads fail; stdout: writes of results fail; stderr: diagnostics are discarded.
    const int got = ::open("/dev/null", fd == 1 ? O_RDONLY : O_WRONLY);
    if (got >= 0 && got != fd) {
      ::dup2(got, fd);
      ::close(got);
    }
  }
}

void warn(std::string_view message) noexcept {
  try {
    fmt::print(stderr, "bloomtool: {}\n", message);
  } catch (...) {  // stderr unwritable: nowhere left to report it
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

}  // namespace bloomtool::cli
