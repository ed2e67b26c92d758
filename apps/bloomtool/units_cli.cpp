// Parsers and formatters for the numbers on the command line. Whole numbers are parsed exactly
// (no detour through double unless an exponent is written), so "18446744073709551616" overflows
// cleanly instead of wrapping.
#include "units_cli.h"

#include <charconv>
#include <cmath>
#include <ctime>
#include <limits>

#include <fmt/format.h>

#include "bloomtool/error.h"

namespace bloomtool {

namespace {

[[noreturn]] void bad(std::string_view option, std::string_view text, std::string_view why) {
  throw Error(ErrorCode::kInvalidArgument, fmt::format("{}: '{}' {}", option, text, why));
}

// Splits "12.5MiB" into the numeric part and the suffix.
std::pair<std::string_view, std::string_view> split_number(std::string_view t) {
  size_t i = 0;
  while (i < t.size() &&
         (std::isdigit(static_cast<unsigned char>(t[i])) || t[i] == '.' ||
          ((t[i] == 'e' || t[i] == 'E') && i > 0 && i + 1 < t.size() &&
           (std::isdigit(static_cast<unsigned char>(t[i + 1])) || t[i + 1] == '-' ||
            t[i + 1] == '+')) ||
          ((t[i] == '-' || t[i] == '+') && i > 0 && (t[i - 1] == 'e' || t[i - 1] == 'E')))) {
    ++i;
  }
  return {t.substr(0, i), t.substr(i)};
}

double parse_double(std::string_view num, std::string_view option, std::string_view text) {
  if (num.empty()) bad(option, text, "is not a number");
  double v = 0;
  const auto [ptr, ec] = std::from_chars(num.data(), num.data() + num.size(), v);
  if (ec != std::errc() || ptr != num.data() + num.size() || !std::isfinite(v))
    bad(option, text, "is not a number");
  return v;
}

// Multiplies a number by a scale exactly when it is an integer, else via double; checks overflow.
uint64_t scaled(std::string_view num, uint64_t scale, std::string_view option,
                std::string_view text) {
  if (num.find_first_of(".eE") == std::string_view::npos) {
    uint64_t v = 0;
    const auto [ptr, ec] = std::from_chars(num.data(), num.data() + num.size(), v);
    if (ec == std::errc::result_out_of_range) bad(option, text, "is too large");
    if (ec != std::errc() || ptr != num.data() + num.size()) bad(option, text, "is not a number");
    if (scale != 0 && v > std::numeric_limits<uint64_t>::max() / scale)
      bad(option, text, "is too large");
    return v * scale;
  }
  const double v = parse_double(num, option, text) * static_cast<double>(scale);
  if (v >= 18446744073709551616.0) bad(option, text, "is too large");
  if (v != std::floor(v)) bad(option, text, "is not a whole number");
  return static_cast<uint64_t>(v);
}

// Whole numbers here have no sign: "-5" is negative, not a number with the suffix "-5".
void reject_sign(std::string_view text, std::string_view option) {
  if (!text.empty() && text[0] == '-') bad(option, text, "must not be negative");
  if (!text.empty() && text[0] == '+') bad(option, text, "is not a number (no sign, please)");
}

uint64_t si_scale(std::string_view suffix) {
  if (suffix.empty()) return 1;
  if (suffix == "k" || suffix == "K") return 1000;
  if (suffix == "M") return 1000000;
  if (suffix == "G") return 1000000000;
  if (suffix == "T") return 1000000000000;
  return 0;
}

}  // namespace

uint64_t parse_count(std::string_view text, std::string_view option) {
  reject_sign(text, option);
  const auto [num, suffix] = split_number(text);
  const uint64_t scale = si_scale(suffix);
  if (scale == 0) bad(option, text, "has an unknown suffix (use k, M, G or T)");
  return scaled(num, scale, option, text);
}

uint64_t parse_size_bits(std::string_view text, std::string_view option) {
  reject_sign(text, option);
  const auto [num, suffix] = split_number(text);
  uint64_t scale = si_scale(suffix);
  if (scale == 0) {
    static constexpr std::pair<std::string_view, uint64_t> kBytes[] = {{"B", 8},
                                                                       {"KiB", 8ull << 10},
                                                                       {"MiB", 8ull << 20},
                                                                       {"GiB", 8ull << 30},
                                                                       {"TiB", 8ull << 40},
                                                                       {"KB", 8000},
                                                                       {"kB", 8000},
                                                                       {"MB", 8000000},
                                                                       {"GB", 8000000000},
                                                                       {"TB", 8000000000000}};
    for (const auto& [name, s] : kBytes) {
      if (suffix == name) scale = s;
    }
  }
  if (scale == 0)
    bad(option, text, "has an unknown suffix (bits: k, M, G; bytes: B, KiB, MiB, GiB)");
  return scaled(num, scale, option, text);
}

uint64_t parse_size_bytes(std::string_view text, std::string_view option) {
  reject_sign(text, option);
  const auto [num, suffix] = split_number(text);
  static constexpr std::pair<std::string_view, uint64_t> kBytes[] = {{"", 1},
                                                                     {"B", 1},
                                                                     {"KiB", 1ull << 10},
                                                                     {"MiB", 1ull << 20},
                                                                     {"GiB", 1ull << 30},
                                                                     {"TiB", 1ull << 40},
                                                                     {"k", 1000},
                                                                     {"K", 1000},
                                                                     {"KB", 1000},
                                                                     {"kB", 1000},
                                                                     {"M", 1000000},
                                                                     {"MB", 1000000},
                                                                     {"G", 1000000000},
                                                                     {"GB", 1000000000},
                                                                     {"T", 1000000000000},
                                                                     {"TB", 1000000000000}};
  for (const auto& [name, scale] : kBytes) {
    if (suffix == name) return scaled(num, scale, option, text);
  }
  bad(option, text, "has an unknown suffix (bytes: B, KiB, MiB, GiB, TiB, KB, MB, GB)");
}

double parse_probability(std::string_view text, std::string_view option) {
  std::string_view num = text;
  double scale = 1.0;
  if (!num.empty() && num.back() == '%') {
    num.remove_suffix(1);
    scale = 0.01;
  }
  const double p = parse_double(num, option, text) * scale;
  if (!(p > 0.0 && p < 1.0)) bad(option, text, "must be strictly between 0 and 1");
  return p;
}

double parse_fraction(std::string_view text, std::string_view option) {
  std::string_view num = text;
  double scale = 1.0;
  if (!num.empty() && num.back() == '%') {
    num.remove_suffix(1);
    scale = 0.01;
  }
  const double f = parse_double(num, option, text) * scale;
  if (!(f >= 0.0 && f <= 1.0)) bad(option, text, "must be between 0 and 1");
  return f;
}

uint64_t parse_duration_seconds(std::string_view text, std::string_view option) {
  if (text.empty()) bad(option, text, "is not a duration");
  reject_sign(text, option);
  uint64_t total = 0;
  std::string_view rest = text;
  while (!rest.empty()) {
    size_t i = 0;
    while (i < rest.size() && std::isdigit(static_cast<unsigned char>(rest[i]))) ++i;
    if (i == 0) bad(option, text, "is not a duration (e.g. 90s, 15m, 26h, 7d)");
    uint64_t v = 0;
    const std::string_view number = rest.substr(0, i);
    if (std::from_chars(rest.data(), rest.data() + i, v).ec != std::errc())
      bad(option, text, "is too large");
    rest.remove_prefix(i);
    uint64_t unit = 1;
    if (!rest.empty()) {
      switch (rest[0]) {
        case 's':
          unit = 1;
          break;
        case 'm':
          unit = 60;
          break;
        case 'h':
          unit = 3600;
          break;
        case 'd':
          unit = 86400;
          break;
        case 'w':
          unit = 604800;
          break;
        default:
          bad(option, text, "has an unknown unit (use s, m, h, d or w)");
      }
      rest.remove_prefix(1);
    } else if (total != 0) {
      throw Error(
          ErrorCode::kInvalidArgument,
          fmt::format("{}: '{}' has no unit after {} (write e.g. 1h30m)", option, text, number));
    }
    if (v > (UINT64_MAX - total) / unit) bad(option, text, "is too large");
    total += v * unit;
  }
  return total;
}

int64_t parse_timestamp(std::string_view text, std::string_view option) {
  if (!text.empty() && text.find_first_not_of("0123456789") == std::string_view::npos) {
    int64_t v = 0;
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || ptr != text.data() + text.size() || v > kMaxTimestamp)
      bad(option, text, "is out of range (after 9999-12-31T23:59:59Z)");
    return v;
  }
  reject_sign(text, option);
  std::tm tm{};
  const std::string s(text);
  const char* end = strptime(s.c_str(), "%Y-%m-%dT%H:%M:%S", &tm);
  if (end == nullptr) {
    tm = std::tm{};
    end = strptime(s.c_str(), "%Y-%m-%d", &tm);
  }
  if (end == nullptr || !(*end == '\0' || (end[0] == 'Z' && end[1] == '\0'))) {
    bad(option, text, "is not a Unix time or YYYY-MM-DD[THH:MM:SSZ]");
  }
  // strptime takes 2023-02-31 and 23:59:60 and timegm moves them to other dates: a date is valid
  // only if it comes back unchanged.
  const std::tm asked = tm;
  const std::time_t t = timegm(&tm);
  std::tm back{};
  if (gmtime_r(&t, &back) == nullptr || back.tm_year != asked.tm_year ||
      back.tm_mon != asked.tm_mon || back.tm_mday != asked.tm_mday ||
      back.tm_hour != asked.tm_hour || back.tm_min != asked.tm_min || back.tm_sec != asked.tm_sec) {
    bad(option, text, "is not a valid date and time (UTC, no leap seconds)");
  }
  if (t < 0 || t > kMaxTimestamp) bad(option, text, "is out of range (1970-01-01 to 9999-12-31)");
  return static_cast<int64_t>(t);
}

}  // namespace bloomtool
