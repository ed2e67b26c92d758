#include <catch2/catch.hpp>

#include <cmath>

#include "bloomtool/error.h"
#include "model/model.h"
#include "model/size_calc.h"

using namespace bloomtool;

// Reference values below were computed independently with 40-digit arithmetic (Python mpmath)
// from the closed forms: m = ceil(-n ln p / (ln 2)^2), k = round((m/n) ln 2),
// p = (1 - e^(-kn/m))^k, lower bound n log2(1/p); capacity n = floor(m (ln 2)^2 / -ln p).
// "6 significant digits" is checked as a relative error below 1e-6.

namespace {

const SizeRow& row(const std::vector<SizeRow>& rows, const std::string& name) {
  for (const SizeRow& r : rows)
    if (r.name == name) return r;
  FAIL("no row " << name);
  return rows.front();
}

SizeQuery np(uint64_t n, double p) {
  SizeQuery q;
  q.n = n;
  q.p = p;
  return q;
}

}  // namespace

TEST_CASE("size -n -p: closed forms to 6 digits, tiny p and m beyond 2^40", "[size]") {
  struct Case {
    uint64_t n;
    double p;
    uint64_t bits;
    uint32_t k;
    double fpr;
    double lower_bound;
    bool above_limit;
  };
  const Case cases[] = {
      {1000000, 0.01, 9585059, 7, 0.01003921456, 6643856.1897747, false},
      {1000000000, 1e-9, 43132762699, 30, 1.000074782e-9, 29897352853.986261, false},
      {100000000000, 1e-9, 4313276269816, 30, 1.000074783e-9, 2989735285398.6261, true},
      {1000000, 1e-12, 57510351, 40, 1.000099357e-12, 39863137.138648, false},
  };
  for (const Case& c : cases) {
    CAPTURE(c.n, c.p);
    const auto rows = size_table(np(c.n, c.p));
    REQUIRE(rows.size() == 8);
    const SizeRow& s = row(rows, "standard");
    // The closed form, grown a little where the index scheme's coinciding positions cost more
    // than 0.1% (small p, large k).
    CHECK(s.bits >= c.bits);
    CHECK((s.bits <= c.bits + c.bits / 1000 + 1 || c.p < 1e-10));  // 1e-12: see docs/MODEL.md
    CHECK(s.bytes() == (s.bits + 7) / 8);
    CHECK(*s.k == c.k);
    CHECK(s.fpr == Approx(c.fpr).epsilon(1e-3));
    CHECK(*s.bits_per_key == Approx(static_cast<double>(s.bits) / c.n).epsilon(1e-9));
    CHECK(s.above_build_limit == c.above_limit);
    const SizeRow& lb = row(rows, "lower_bound");
    CHECK(lb.bits == static_cast<uint64_t>(std::ceil(c.lower_bound)));
    CHECK(*lb.bits_per_key == Approx(-std::log2(c.p)).epsilon(1e-12));
    CHECK(lb.fpr == c.p);
    const SizeRow& b = row(rows, "blocked");
    CHECK(b.bits % 512 == 0);
    CHECK(b.fpr <= c.p);
    CHECK(model::blocked_fpr(static_cast<double>(b.bits - 512), static_cast<double>(c.n), *b.k) >
          c.p);
  }
  CHECK(row(size_table(np(1000000, 1e-9)), "standard").fpr < 1e-8);
}

TEST_CASE("size: xor and binary fuse rows follow the model geometry", "[size]") {
  const auto rows = size_table(np(1000000, 0.01));
  // xor: 3 * ceil((ceil(1.23 n) + 32) / 3) slots; fuse: segments of 2^13 slots, 138 of them.
  CHECK(row(rows, "xor8").bits == 1230033ull * 8);
  CHECK(row(rows, "xor16").bits == 1230033ull * 16);
  CHECK(row(rows, "fuse8").bits == 1130496ull * 8);
  CHECK(row(rows, "fuse16").bits == 1130496ull * 16);
  CHECK(row(rows, "xor8").fpr == 1.0 / 256);
  CHECK(row(rows, "fuse16").fpr == 1.0 / 65536);
  CHECK(*row(rows, "xor8").meets_p);
  CHECK(*row(rows, "fuse16").fingerprint_bits == 16);
  CHECK_FALSE(*row(size_table(np(1000000, 0.001)), "fuse8").meets_p);
  CHECK(!row(rows, "standard").meets_p);
}

TEST_CASE("size -n -m: the rate of a given size", "[size]") {
  SizeQuery q;
  q.n = 1000000;
  q.m_bits = 8388608;
  auto rows = size_table(q);
  CHECK(*row(rows, "standard").k == 6);
  CHECK(row(rows, "standard").fpr == Approx(0.01779031362).epsilon(1e-4));
  CHECK(row(rows, "lower_bound").fpr == Approx(0.002983852632).epsilon(1e-6));
  CHECK(row(rows, "blocked").bits == 8388608);
  // m = 2^42 bits, beyond the build limit; p far below 1e-8.
  q.n = 100000000000;
  q.m_bits = uint64_t{1} << 42;
  rows = size_table(q);
  CHECK(*row(rows, "standard").k == 30);
  CHECK(row(rows, "standard").fpr == Approx(6.665619529e-10).epsilon(1e-4));
  CHECK(row(rows, "standard").above_build_limit);
  CHECK(row(rows, "lower_bound").fpr == Approx(5.761834482e-14).epsilon(1e-6));
  // Blocked m rounds up to whole blocks, like build does.
  q.n = 100;
  q.m_bits = 1000;
  CHECK(row(size_table(q), "blocked").bits == 1024);
}

TEST_CASE("size -p -m: capacity", "[size]") {
  SizeQuery q;
  q.p = 0.01;
  q.m_bits = 8388608;
  auto rows = size_table(q);
  CHECK(row(rows, "standard").keys == 875175);
  CHECK(*row(rows, "standard").k == 7);
  CHECK(row(rows, "standard").fpr == Approx(0.01003919187).epsilon(1e-4));
  CHECK(row(rows, "lower_bound").keys == 1262611);
  const SizeRow& b = row(rows, "blocked");
  CHECK(b.fpr <= 0.01);
  CHECK(model::blocked_fpr(8388608, static_cast<double>(b.keys + 1),
                           model::blocked_optimal_k(8388608, static_cast<double>(b.keys + 1))) >
        0.01);
  for (const char* x : {"xor8", "xor16", "fuse8", "fuse16"}) {
    CAPTURE(x);
    CHECK(row(rows, x).bits <= 8388608);
    CHECK(row(rows, x).keys > 0);
  }
  // 2^41 bits at p = 1e-10.
  q.p = 1e-10;
  q.m_bits = uint64_t{1} << 41;
  rows = size_table(q);
  CHECK(row(rows, "standard").keys == 45884399843);
  CHECK(*row(rows, "standard").k == 33);
  CHECK(row(rows, "standard").fpr == Approx(1.000309331e-10).epsilon(1e-3));
  CHECK(row(rows, "lower_bound").keys == 66197196108);
  CHECK(row(rows, "standard").above_build_limit);
}

TEST_CASE("size with a fixed k", "[size]") {
  SizeQuery q = np(1000000, 0.01);
  q.k = 4;
  const auto rows = size_table(q);
  CHECK(row(rows, "standard").bits == 10522705);
  CHECK(row(rows, "standard").fpr == Approx(0.009999998803).epsilon(1e-4));
  CHECK(*row(rows, "blocked").k == 4);
}

TEST_CASE("blocked sizing without the cap agrees with model::blocked_size", "[size]") {
  for (double p : {0.1, 0.01, 1e-4}) {
    for (uint64_t n : {1000ull, 1000000ull}) {
      CAPTURE(p, n);
      const model::BloomSize a = model::blocked_size(n, p);
      const BlockedSize b = blocked_size_unbounded(n, p);
      CHECK(a.m_bits == b.m_bits);
      CHECK(a.k == b.k);
    }
  }
  const BlockedSize big = blocked_size_unbounded(200000000000, 0.01);
  CHECK(big.m_bits > model::kMaxBits);
  CHECK(model::blocked_fpr(static_cast<double>(big.m_bits), 2e11, big.k) <= 0.01);
}

TEST_CASE("size rejects impossible input", "[size]") {
  SizeQuery q;
  CHECK_THROWS_AS(size_table(q), Error);  // nothing given
  q.n = 1000;
  CHECK_THROWS_AS(size_table(q), Error);  // one given
  q.p = 0.01;
  q.m_bits = 1000;
  CHECK_THROWS_AS(size_table(q), Error);  // three given
  CHECK_THROWS_AS(size_table(np(0, 0.01)), Error);
  CHECK_THROWS_AS(size_table(np(1000, 0.0)), Error);
  CHECK_THROWS_AS(size_table(np(1000, 1.0)), Error);
  CHECK_THROWS_AS(size_table(np(kMaxSizeKeys + 1, 0.5)), Error);
  CHECK_THROWS_AS(size_table(np(uint64_t{1} << 58, 1e-300)), Error);  // beyond 2^64 bits
  SizeQuery k0 = np(1000, 0.01);
  k0.k = 65;
  CHECK_THROWS_AS(size_table(k0), Error);
  SizeQuery tiny;
  tiny.p = 1e-9;
  tiny.m_bits = 8;
  CHECK_THROWS_AS(size_table(tiny), Error);  // not even one key fits
  tiny.m_bits = 0;
  CHECK_THROWS_AS(size_table(tiny), Error);
  SizeQuery huge_m;
  huge_m.n = 1;
  huge_m.m_bits = UINT64_MAX;
  CHECK_THROWS_AS(size_table(huge_m), Error);  // blocked rounding would wrap
}
