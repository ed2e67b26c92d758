// DCSO bloom v1 codec (with the dcso-fnv1 key rule): sizing and bytes checked against what the
// `bloom` CLI 0.2.4 wrote
// (`printf 'alpha\nbeta\ngamma\n' | bloom create -n 100 -p 0.01`), gzip framing and the
// reader's validation. The interop tests (tests/interop) run the real CLI.
#include <catch2/catch.hpp>

#include <bit>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "bloomtool/error.h"
#include "filters/bloom.h"
#include "interop/dcso_codec.h"
#include "temp_dir.h"

using namespace bloomtool;
using namespace bloomtool::dcso;

namespace {

std::vector<uint8_t> from_hex(const std::string& hex) {
  std::vector<uint8_t> out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    out.push_back(static_cast<uint8_t>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  }
  return out;
}

std::vector<uint8_t> slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

ErrorCode code_of(const std::vector<uint8_t>& bytes, std::string* message = nullptr) {
  try {
    File::deserialize(bytes, "f.bloom");
  } catch (const Error& e) {
    if (message) *message = e.what();
    return e.code();
  }
  FAIL("no error thrown");
  return ErrorCode::kInvalidArgument;
}

void write_bytes(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
}

void put64(std::vector<uint8_t>& b, size_t off, uint64_t v) {
  for (int i = 0; i < 8; ++i) b[off + i] = static_cast<uint8_t>(v >> (8 * i));
}

}  // namespace

TEST_CASE("go_log matches Go's math.Log", "[interop][dcso]") {
  // Go: math.Float64bits(math.Log(2)) == 0x3fe62e42fefa39ef
  CHECK(std::bit_cast<uint64_t>(go_log(2.0)) == 0x3fe62e42fefa39efull);
  CHECK(go_log(1.0) == 0.0);
  CHECK(std::isinf(go_log(0.0)));
  CHECK(std::isnan(go_log(-1.0)));
  for (double x : {0.5, 0.01, 0.001, 1e-6, 0.3, 123.25}) {
    CAPTURE(x);
    CHECK(std::fabs(go_log(x) - std::log(x)) <= std::fabs(std::log(x)) * 4e-16);
  }
}

TEST_CASE("dcso sizing matches bloom create (Initialize)", "[interop][dcso]") {
  struct Row {
    uint64_t n;
    double p;
    uint64_t m, k;
  };
  const Row rows[] = {
      {1, 0.5, 1, 1},
      {100, 0.01, 958, 7},
      {1000, 0.001, 14377, 10},
      {1000000, 0.01, 9585058, 7},
      {123457, 1e-6, 3550027, 20},
      {10000, 0.01, 95850, 7},
  };
  for (const Row& r : rows) {
    CAPTURE(r.n, r.p);
    const Sizing s = size_for(r.n, r.p);
    CHECK(s.m == r.m);
    CHECK(s.k == r.k);
  }
  CHECK_THROWS_AS(size_for(0, 0.01), Error);
  CHECK_THROWS_AS(size_for(100, 0.0), Error);
  CHECK_THROWS_AS(size_for(100, 1.0), Error);
  CHECK(m_degrades_sequence(1 << 20));
  CHECK_FALSE(m_degrades_sequence(958));
}

TEST_CASE("dcso writer reproduces bloom's bytes", "[interop][dcso]") {
  const std::string expected =
      "010000000000000064000000000000007b14ae47e17a843f0700000000000000be0300000000000003000000"
      "000000000000001020000000000800004000000000000000000000000000000004000000000000000000000000"
      "000800000020100000080000008000000000000000000000010000000000000000080000000000000000002108"
      "00000000200000000000000000000080000000000008000004020000000000200000";
  File f = File::create(100, 0.01);
  BloomFilter b = f.filter();
  CHECK(b.add_counting("alpha"));
  CHECK(b.add_counting("beta"));
  CHECK(b.add_counting("gamma"));
  f.set_bits(b, 3);
  const std::vector<uint8_t> bytes = f.serialize();
  CHECK(bytes == from_hex(expected));
  CHECK_FALSE(b.add_counting("gamma"));  // no new bit: not counted again
  CHECK(f.header.count == 3);

  const File g = File::deserialize(bytes, "mem");
  CHECK(g.header.k == 7);
  CHECK(g.header.m == 958);
  CHECK(g.header.n == 100);
  CHECK(g.fpp() == 0.01);
  CHECK(g.header.count == 3);
  CHECK(g.filter().contains("alpha"));
  CHECK(g.filter().contains("gamma"));
  CHECK(g.serialize() == bytes);
}

TEST_CASE("dcso: trailing data and flags survive a round trip", "[interop][dcso]") {
  File f = File::create(50, 0.05);
  BloomFilter b = f.filter();
  f.set_bits(b, b.add_counting("k") ? 1 : 0);
  f.data = {'h', 'i', '\n'};
  std::vector<uint8_t> bytes = f.serialize();
  bytes[1] = 0x7f;  // Go checks only the low byte of the flags word
  const File g = File::deserialize(bytes, "mem");
  CHECK(g.data == std::vector<uint8_t>{'h', 'i', '\n'});
  CHECK(g.header.flags == 0x7f01);
  CHECK(g.serialize() == bytes);
}

TEST_CASE("dcso: gzip write and read, concatenated members", "[interop][dcso]") {
  test::TempDir dir;
  const std::string path = dir.path() + "/dcso.bloom.gz";
  const std::string part = dir.path() + "/part.bin";
  File f = File::create(1000, 0.01);
  BloomFilter b = f.filter();
  uint64_t counted = 0;
  for (int i = 0; i < 1000; ++i) counted += b.add_counting("key-" + std::to_string(i)) ? 1 : 0;
  f.set_bits(b, counted);
  f.write_file(path, Compression::kGzip);
  const std::vector<uint8_t> gz = slurp(path);
  REQUIRE(gz.size() > 10);
  // Go's gzip.NewWriter header: 1f 8b 08, flags 0, MTIME 0, XFL 0 (default level), OS 255
  CHECK(std::vector<uint8_t>(gz.begin(), gz.begin() + 10) ==
        std::vector<uint8_t>{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff});
  CHECK(File::read_file(path).serialize() == f.serialize());
  CHECK(File::read_file(path, Compression::kGzip).serialize() == f.serialize());
  CHECK_THROWS_AS(File::read_file(path, Compression::kNone), Error);

  // Two gzip members (made by gzip(1)) whose concatenation is the filter: Go's reader is
  // multistream, so ours is too.
  const std::vector<uint8_t> plain = f.serialize();
  {
    std::FILE* out = std::fopen(path.c_str(), "wb");
    REQUIRE(out);
    const size_t cut_at = 100;
    for (const auto& piece : {std::vector<uint8_t>(plain.begin(), plain.begin() + cut_at),
                              std::vector<uint8_t>(plain.begin() + cut_at, plain.end())}) {
      write_bytes(part, piece);
      REQUIRE(std::system(("gzip -n -f '" + part + "'").c_str()) == 0);
      const std::vector<uint8_t> member = slurp(part + ".gz");
      std::fwrite(member.data(), 1, member.size(), out);
    }
    std::fclose(out);
  }
  CHECK(File::read_file(path).serialize() == plain);

  // Truncated and damaged gzip.
  std::vector<uint8_t> cut(gz.begin(), gz.end() - 5);
  write_bytes(path, cut);
  try {
    File::read_file(path);
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::kCorrupt);
    CHECK_THAT(e.what(), Catch::Contains(path) && Catch::Contains("truncated"));
  }
  std::vector<uint8_t> flipped = gz;
  flipped[flipped.size() / 2] ^= 0x10;
  write_bytes(path, flipped);
  CHECK_THROWS_AS(File::read_file(path), Error);
  // Decompressed size limit: an empty filter of 120 KB compresses to a few hundred bytes.
  File::create(100000, 0.01).write_file(path, Compression::kGzip);
  REQUIRE(slurp(path).size() < 4096);
  try {
    File::read_file(path, Compression::kAuto, 4096);
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::kLimitExceeded);
    CHECK_THAT(e.what(), Catch::Contains("decompressed"));
  }
}

TEST_CASE("dcso reader validates before allocating", "[interop][dcso]") {
  const std::vector<uint8_t> good = File::create(100, 0.01).serialize();
  std::string msg;
  CHECK(code_of({}, &msg) == ErrorCode::kCorrupt);
  CHECK_THAT(msg, Catch::Contains("f.bloom") && Catch::Contains("truncated"));

  auto bad = good;
  bad[0] = 2;
  CHECK(code_of(bad, &msg) == ErrorCode::kUnsupported);
  CHECK_THAT(msg, Catch::Contains("offset 0"));

  bad = good;
  put64(bad, 24, 0);
  CHECK(code_of(bad, &msg) == ErrorCode::kCorrupt);
  CHECK_THAT(msg, Catch::Contains("k = 0 at offset 24"));

  bad = good;
  put64(bad, 24, 1ull << 40);
  CHECK(code_of(bad) == ErrorCode::kLimitExceeded);

  bad = good;
  put64(bad, 32, 0);
  CHECK(code_of(bad, &msg) == ErrorCode::kCorrupt);
  CHECK_THAT(msg, Catch::Contains("m = 0"));

  bad = good;
  put64(bad, 32, ~0ull);
  CHECK(code_of(bad) == ErrorCode::kLimitExceeded);

  bad = good;
  put64(bad, 32, 1ull << 50);  // 2^44 words claimed
  CHECK(code_of(bad, &msg) == ErrorCode::kCorrupt);
  CHECK_THAT(msg, Catch::Contains("offset 32") && Catch::Contains("after the header"));

  bad = good;
  bad.resize(bad.size() - 1);
  CHECK(code_of(bad) == ErrorCode::kCorrupt);

  CHECK_THROWS_AS(File::make(10, 0.1, 0, 64), Error);
  CHECK_THROWS_AS(File::make(10, 0.1, 3, 0), Error);
}
