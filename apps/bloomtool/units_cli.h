// Parsing of the numbers users type: counts with SI suffixes ("10M"), sizes in bits or bytes
// ("64MiB"), probabilities ("1%", "0.01", "1e-4"), durations ("26h") and timestamps. Every parser
// rejects trailing garbage, negative values and overflow with kInvalidArgument naming the option.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/word_buffer.h"

namespace bloomtool {

// "1000", "10k", "10M", "2G", "1e6" (K/M/G/T are powers of 1000). Must be a whole number.
uint64_t parse_count(std::string_view text, std::string_view option);
// Bits: "1000000", "8M" (bits, powers of 1000), or bytes with B/KiB/MiB/GiB/TiB/KB/MB/GB.
uint64_t parse_size_bits(std::string_view text, std::string_view option);
// Bytes: "4096", "64KiB", "1MiB", "1GB" (k/M/G/T and KB/MB/GB are powers of 1000).
uint64_t parse_size_bytes(std::string_view text, std::string_view option);
// A probability strictly between 0 and 1: "0.01", "1%", "1e-4".
double parse_probability(std::string_view text, std::string_view option);
// A fraction in [0, 1]: "0.5" or "50%".
double parse_fraction(std::string_view text, std::string_view option);
// Seconds: "90", "90s", "15m", "26h", "7d", "1h30m".
uint64_t parse_duration_seconds(std::string_view text, std::string_view option);
// Unix seconds from "1700000000" or "2024-01-31T12:00:00Z" / "2024-01-31": a real date (no
// 2023-02-31, no leap second 23:59:60) between 1970 and the end of 9999.
inline constexpr int64_t kMaxTimestamp = 253402300799;  // 9999-12-31T23:59:59Z
int64_t parse_timestamp(std::string_view text, std::string_view option);

// "2024-01-31T12:00:00Z"
std::string format_timestamp(int64_t unix_seconds);
// format_bytes ("1.50 MiB") comes from the library (word_buffer.h).
// "8192 bits (1.00 KiB)"; a count that is not whole bytes shows the bytes it occupies, rounded
// up: "10 bits (2 B)".
std::string format_bits(uint64_t bits);

}  // namespace bloomtool
