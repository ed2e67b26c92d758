// Formatting of the numbers the CLI prints: ISO-8601 times for any year, sizes in bits and bytes.
#include <ctime>
#include <string>

#include <fmt/format.h>

#include "units_cli.h"

namespace bloomtool {

std::string format_timestamp(int64_t unix_seconds) {
  // Days since 1970-01-01 to a proleptic Gregorian date (H. Hinnant's civil_from_days), exact for
  // every int64: no gmtime range limits.
  const int64_t days = unix_seconds / 86400 - (unix_seconds % 86400 < 0 ? 1 : 0);
  const int64_t secs = (unix_seconds % 86400 + 86400) % 86400;
  const int64_t z = days + 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const int64_t doe = z - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  const int64_t day = doy - (153 * mp + 2) / 5 + 1;
  const int64_t month = mp < 10 ? mp + 3 : mp - 9;
  const int64_t year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  // ISO 8601: four-digit years; outside 0000-9999 the expanded form with a sign.
  const std::string y =
      year >= 0 && year <= 9999 ? fmt::format("{:04}", year) : fmt::format("{:+05}", year);
  return fmt::format("{}-{:02}-{:02}T{:02}:{:02}:{:02}Z", y, month, day, secs / 3600,
                     secs / 60 % 60, secs % 60);
}

std::string format_bits(uint64_t bits) {
  return fmt::format("{} bits ({})", bits, format_bytes(bits / 8 + (bits % 8 != 0)));
}

}  // namespace bloomtool
