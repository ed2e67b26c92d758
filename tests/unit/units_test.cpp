#include <catch2/catch.hpp>

#include "bloomtool/error.h"
#include "units_cli.h"

using namespace bloomtool;

TEST_CASE("counts", "[units]") {
  CHECK(parse_count("1000", "-n") == 1000);
  CHECK(parse_count("10k", "-n") == 10000);
  CHECK(parse_count("10M", "-n") == 10000000);
  CHECK(parse_count("1e6", "-n") == 1000000);
  CHECK(parse_count("2.5M", "-n") == 2500000);
  CHECK_THROWS_AS(parse_count("-1", "-n"), Error);
  CHECK_THROWS_AS(parse_count("1.5", "-n"), Error);
  CHECK_THROWS_AS(parse_count("12x", "-n"), Error);
  CHECK_THROWS_AS(parse_count("", "-n"), Error);
  CHECK_THROWS_AS(parse_count("18446744073709551616", "-n"), Error);
  CHECK_THROWS_AS(parse_count("20000000T", "-n"), Error);
}

TEST_CASE("sizes in bits and bytes", "[units]") {
  CHECK(parse_size_bits("8M", "-m") == 8000000);
  CHECK(parse_size_bits("1MiB", "-m") == 8ull << 20);
  CHECK(parse_size_bits("64MiB", "-m") == 64ull * 8 << 20);
  CHECK(parse_size_bits("100B", "-m") == 800);
  CHECK_THROWS_AS(parse_size_bits("3XB", "-m"), Error);
  CHECK_THROWS_AS(parse_size_bits("4000000000GiB", "-m"), Error);
}

TEST_CASE("probabilities", "[units]") {
  CHECK(parse_probability("0.01", "-p") == Approx(0.01));
  CHECK(parse_probability("1%", "-p") == Approx(0.01));
  CHECK(parse_probability("1e-4", "-p") == Approx(1e-4));
  for (const char* bad : {"0", "1", "100%", "-0.1", "abc", "1.5", "", "nan", "inf"}) {
    CAPTURE(bad);
    CHECK_THROWS_AS(parse_probability(bad, "-p"), Error);
  }
}

TEST_CASE("durations and timestamps", "[units]") {
  CHECK(parse_duration_seconds("26h", "--max-age") == 26 * 3600);
  CHECK(parse_duration_seconds("90", "--max-age") == 90);
  CHECK(parse_duration_seconds("1h30m", "--max-age") == 5400);
  CHECK(parse_duration_seconds("7d", "--max-age") == 7 * 86400);
  CHECK_THROWS_AS(parse_duration_seconds("h", "--max-age"), Error);
  CHECK_THROWS_AS(parse_duration_seconds("5y", "--max-age"), Error);
  CHECK(parse_timestamp("1700000000", "--created") == 1700000000);
  CHECK(parse_timestamp("2024-01-31T12:00:00Z", "--created") == 1706702400);
  CHECK(parse_timestamp("2024-01-31", "--created") == 1706659200);
  CHECK(format_timestamp(1706702400) == "2024-01-31T12:00:00Z");
  CHECK_THROWS_AS(parse_timestamp("yesterday", "--created"), Error);
}

TEST_CASE("format_timestamp: ISO 8601 for every int64, format_bits rounds bytes up", "[units]") {
  CHECK(bloomtool::format_timestamp(0) == "1970-01-01T00:00:00Z");
  CHECK(bloomtool::format_timestamp(-62167219200) == "0000-01-01T00:00:00Z");
  CHECK(bloomtool::format_timestamp(253402300799) == "9999-12-31T23:59:59Z");
  CHECK(bloomtool::format_timestamp(253402300800) == "+10000-01-01T00:00:00Z");
  CHECK(bloomtool::format_timestamp(-62167219201) == "-0001-12-31T23:59:59Z");
  CHECK(bloomtool::format_timestamp(INT64_MAX).rfind("+292277026596-", 0) == 0);
  CHECK(bloomtool::format_timestamp(INT64_MIN).rfind("-292277022657-", 0) == 0);
  CHECK(bloomtool::format_bits(10) == "10 bits (2 B)");
  CHECK(bloomtool::format_bits(8192) == "8192 bits (1.00 KiB)");
}
