// Guava BloomFilter codec (with the Guava key rules): sizing and bytes checked against values
// Guava 31.1 produced (BloomFilter.create(Funnels.stringFunnel(UTF_8), n, p) + put + writeTo), and
// the reader's validation. The interop tests (tests/interop) run the real jar.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "bloomtool/error.h"
#include "filters/bloom.h"
#include "interop/guava_codec.h"
#include "temp_dir.h"

using namespace bloomtool;
using namespace bloomtool::guava;

namespace {

std::vector<uint8_t> from_hex(const std::string& hex) {
  std::vector<uint8_t> out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    out.push_back(static_cast<uint8_t>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  }
  return out;
}

ErrorCode code_of(const std::vector<uint8_t>& bytes, std::string* message = nullptr) {
  try {
    deserialize(bytes, "f.bin");
  } catch (const Error& e) {
    if (message) *message = e.what();
    return e.code();
  }
  FAIL("no error thrown");
  return ErrorCode::kInvalidArgument;
}

}  // namespace

TEST_CASE("guava sizing matches BloomFilter.create of Guava 31.1", "[interop][guava]") {
  struct Row {
    uint64_t n;
    double p;
    uint64_t words;
    uint32_t k;
  };
  const Row rows[] = {
      {0, 0.5, 1, 1},
      {0, 0.01, 1, 6},
      {1, 0.03, 1, 5},
      {1, 1e-9, 1, 30},
      {100, 0.5, 3, 1},
      {100, 0.03, 12, 5},
      {100, 0.01, 15, 7},
      {100, 1e-6, 45, 20},
      {1000, 0.01, 150, 7},
      {1000, 0.001, 225, 10},
      {1000, 1e-9, 674, 30},
      {1000000, 0.5, 22543, 1},
      {1000000, 0.03, 114039, 5},
      {1000000, 0.01, 149767, 7},
      {1000000, 1e-6, 449300, 20},
      {123457, 0.01, 18490, 7},
      {123457, 1e-9, 83204, 30},
  };
  for (const Row& r : rows) {
    CAPTURE(r.n, r.p);
    const Sizing s = size_for(r.n, r.p);
    CHECK(s.words == r.words);
    CHECK(s.k == r.k);
    CHECK(s.bit_size() == r.words * 64);
  }
}

TEST_CASE("guava sizing: the newer k rule and Guava's argument errors", "[interop][guava]") {
  // -ln(0.01)/ln 2 = 6.64 -> 7; -ln(0.03)/ln 2 = 5.06 -> 5
  CHECK(size_for(1000, 0.01, KRule::kFromFpp).k == 7);
  CHECK(size_for(1, 0.01, KRule::kFromFpp).k == 7);  // the old rule gives 6 for n = 1
  CHECK(size_for(1, 0.01, KRule::kFromBits).k == 6);
  CHECK_THROWS_AS(size_for(100, 0.0), Error);
  CHECK_THROWS_AS(size_for(100, 1.0), Error);
  CHECK_THROWS_AS(size_for(100, -0.5), Error);
  // k above 255 (Guava: "numHashFunctions (k) must be <= 255")
  CHECK_THROWS_AS(size_for(10, 1e-100), Error);
  // more than 2^31-1 words
  CHECK_THROWS_AS(size_for(20000000000ull, 0.01), Error);
}

TEST_CASE("guava writer reproduces Guava's bytes", "[interop][guava]") {
  // Guava 31.1: create(stringFunnel(UTF_8), 100, 0.01), put alpha, beta, gamma, writeTo.
  const std::string expected =
      "01070000000f000008000000000000000000000200000000000000000000000080000808302000000000000000"
      "000000910204000000000000000002000000000020000000000008000000000000004000000000000000000000"
      "000000000000000000200000000000000000008000000000000002000000000000000001";
  BloomFilter f = create(100, 0.01);
  CHECK(f.add_counting("alpha"));
  CHECK(f.add_counting("beta"));
  CHECK(f.add_counting("gamma"));
  CHECK_FALSE(f.add_counting("gamma"));
  const std::vector<uint8_t> bytes = serialize(f);
  CHECK(bytes == from_hex(expected));

  const BloomFilter g = deserialize(bytes, "mem");
  CHECK(g.k() == 7);
  CHECK(g.bits() == 15 * 64);
  CHECK(strategy_of(g.rule().hash_id) == Strategy::kMurmur128Mitz64);
  CHECK(g.contains("alpha"));
  CHECK(g.contains("beta"));
  CHECK(g.contains("gamma"));
  CHECK(serialize(g) == bytes);
  CHECK(approximate_element_count(g) == 3);
}

TEST_CASE("guava MITZ_32 and MITZ_64 have no false negatives", "[interop][guava]") {
  for (Strategy s : {Strategy::kMurmur128Mitz32, Strategy::kMurmur128Mitz64}) {
    BloomFilter f = create(5000, 0.01, s);
    for (int i = 0; i < 5000; ++i) f.add_key("key-" + std::to_string(i));
    int fn = 0;
    int fp = 0;
    for (int i = 0; i < 5000; ++i) fn += !f.contains("key-" + std::to_string(i));
    for (int i = 0; i < 20000; ++i) fp += f.contains("other-" + std::to_string(i));
    CHECK(fn == 0);
    CHECK(fp < 400);  // 1% of 20000 is 200
    const BloomFilter g = deserialize(serialize(f), "mem");
    CHECK(strategy_of(g.rule().hash_id) == s);
    CHECK(std::equal(g.words().begin(), g.words().end(), f.words().begin(), f.words().end()));
  }
}

TEST_CASE("guava reader validates before allocating", "[interop][guava]") {
  std::vector<uint8_t> good = serialize(create(100, 0.01));
  std::string msg;

  CHECK(code_of({}, &msg) == ErrorCode::kCorrupt);
  CHECK_THAT(msg, Catch::Contains("f.bin") && Catch::Contains("truncated"));

  auto bad = good;
  bad[0] = 2;
  CHECK(code_of(bad, &msg) == ErrorCode::kUnsupported);
  CHECK_THAT(msg, Catch::Contains("offset 0"));
  bad[0] = 0xff;  // -1: reserved for stateful strategies
  CHECK(code_of(bad) == ErrorCode::kUnsupported);

  bad = good;
  bad[1] = 0;
  CHECK(code_of(bad, &msg) == ErrorCode::kCorrupt);
  CHECK_THAT(msg, Catch::Contains("k = 0 at offset 1"));

  bad = good;
  bad[2] = 0x80;  // negative word count
  CHECK(code_of(bad, &msg) == ErrorCode::kCorrupt);
  CHECK_THAT(msg, Catch::Contains("offset 2"));

  bad = good;
  bad[2] = 0x7f;
  bad[3] = bad[4] = bad[5] = 0xff;  // 2^31-1 words claimed, 120 bytes present
  CHECK(code_of(bad, &msg) == ErrorCode::kCorrupt);
  CHECK_THAT(msg, Catch::Contains("2147483647 longs") && Catch::Contains("exceeds the file"));

  bad = good;
  bad.resize(bad.size() - 1);
  CHECK(code_of(bad) == ErrorCode::kCorrupt);

  bad = good;
  bad.push_back(0);
  CHECK(code_of(bad, &msg) == ErrorCode::kCorrupt);
  CHECK_THAT(msg, Catch::Contains("trailing"));
  CHECK_NOTHROW(deserialize(bad, "f.bin", /*allow_trailing=*/true));

  bad = good;
  bad[2] = bad[3] = bad[4] = bad[5] = 0;
  CHECK(code_of(bad) == ErrorCode::kCorrupt);
}

TEST_CASE("guava file round trip and I/O errors name the path", "[interop][guava]") {
  test::TempDir dir;
  const std::string path = dir.path() + "/guava.bin";
  BloomFilter f = create(1000, 0.001, Strategy::kMurmur128Mitz32);
  f.add_key("x");
  write_file(f, path);
  const BloomFilter g = read_file(path);
  CHECK(serialize(g) == serialize(f));
  try {
    read_file("no/such/guava.bin");
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::kIOError);
    CHECK_THAT(e.what(), Catch::Contains("no/such/guava.bin"));
  }
}
