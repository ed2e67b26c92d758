// The peers' files read through the bounded stream reader (foreign_format.h), from files, pipes
// and memory alike, and the statistics of the peers' schemes over the bits they can reach.
#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>
#include <catch2/catch.hpp>

#include <bit>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "analysis/stats.h"
#include "api/load_filter.h"
#include "bloomtool/error.h"
#include "filters/bloom.h"
#include "filters/key_rule.h"
#include "interop/dcso_codec.h"
#include "interop/foreign_format.h"
#include "interop/guava_codec.h"
#include "model/model.h"
#include "temp_dir.h"

using namespace bloomtool;

namespace {

std::vector<uint8_t> dcso_plain(uint64_t k, uint64_t m, size_t data_bytes, uint8_t word = 0) {
  std::vector<uint8_t> out(48 + (m + 63) / 64 * 8 + data_bytes, 0);
  const uint64_t head[6] = {1, 100, 0, k, m, 0};
  for (int i = 0; i < 6; ++i)
    for (int b = 0; b < 8; ++b) out[8 * i + b] = static_cast<uint8_t>(head[i] >> (8 * b));
  if (m % 64 == 0) std::memset(out.data() + 48, word, (m + 63) / 64 * 8);
  return out;
}

// One gzip member (zlib, header optionally with a file name).
std::vector<uint8_t> gzip_member(const std::vector<uint8_t>& in, const std::string& fname = "") {
  z_stream zs{};
  REQUIRE(deflateInit2(&zs, 9, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) == Z_OK);
  gz_header h{};
  std::vector<char> name(fname.begin(), fname.end());
  name.push_back('\0');
  if (!fname.empty()) h.name = reinterpret_cast<Bytef*>(name.data());
  deflateSetHeader(&zs, &h);
  std::vector<uint8_t> out(deflateBound(&zs, in.size()) + fname.size() + 64);
  zs.next_in = const_cast<Bytef*>(in.data());
  zs.avail_in = static_cast<uInt>(in.size());
  zs.next_out = out.data();
  zs.avail_out = static_cast<uInt>(out.size());
  REQUIRE(deflate(&zs, Z_FINISH) == Z_STREAM_END);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

std::string as_string(const std::vector<uint8_t>& b) {
  return {reinterpret_cast<const char*>(b.data()), b.size()};
}

// The message of the Error `f` throws, and its code.
template <typename F>
std::pair<std::string, ErrorCode> error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return {e.what(), e.code()};
  }
  return {"", ErrorCode::kInvalidArgument};
}

// Loads `bytes` through a pipe, named as a FIFO is (/proc/self/fd/N).
LoadedFilter load_through_pipe(const std::vector<uint8_t>& bytes, FileFormat format) {
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  REQUIRE(bytes.size() <= 65536);
  REQUIRE(::write(fds[1], bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size()));
  ::close(fds[1]);
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fds[0]};
  return load_filter_as("/proc/self/fd/" + std::to_string(fds[0]), format, false);
}

}  // namespace

TEST_CASE("foreign reader: one k limit and one m limit, whatever the container", "[foreign]") {
  test::TempDir dir;
  for (const uint64_t k : {300u, 5000u}) {
    const auto plain = dcso_plain(k, 64, 0);
    for (const bool gz : {false, true}) {
      const std::string path = dir.write("k.bloom", as_string(gz ? gzip_member(plain) : plain));
      const auto [msg, code] = error_of([&] { load_filter_as(path, FileFormat::kDcso, false); });
      CHECK(code == ErrorCode::kLimitExceeded);
      CHECK_THAT(msg, Catch::EndsWith("dcso: k = " + std::to_string(k) +
                                      " at offset 24 exceeds bloomtool's limit of 255"));
    }
  }
  for (const uint64_t m : {uint64_t{1} << 41, uint64_t{1} << 60}) {
    const std::string path = dir.write(
        "m.bloom", as_string(dcso_plain(3, 64, 0))
                       .replace(32, 8, std::string(reinterpret_cast<const char*>(&m), 8)));
    const auto [msg, code] = error_of([&] { load_filter_as(path, FileFormat::kDcso, false); });
    CHECK(code == ErrorCode::kLimitExceeded);
    CHECK_THAT(msg, Catch::EndsWith("exceeds bloomtool's limit of 2^40"));
  }
}

TEST_CASE("foreign reader: a DCSO data block is read past, kept by convert, bounded", "[foreign]") {
  test::TempDir dir;
  const auto plain = dcso_plain(3, 640, 70u << 20);  // 70 MiB of zeros after the bit array
  const std::string bomb = dir.write("bomb.bloom.gz", as_string(gzip_member(plain)));
  for (const bool keep : {false, true}) {
    const auto [msg, code] = error_of([&] { load_filter_as(bomb, FileFormat::kDcso, keep); });
    CHECK(code == ErrorCode::kLimitExceeded);
    CHECK(msg == bomb +
                     " (decompressed): dcso: data block at offset 128 longer than 67108864 "
                     "bytes, the most bloomtool reads of it");
  }
  // In memory, the cap given bounds what is kept.
  const auto small = dcso_plain(3, 640, 4096);
  const auto [msg, code] =
      error_of([&] { parse_foreign(gzip_member(small), FileFormat::kDcso, "mem", 1024); });
  CHECK(code == ErrorCode::kLimitExceeded);
  CHECK_THAT(msg, Catch::StartsWith(
                      "mem (decompressed): dcso: data block at offset 128 longer than 1024"));
  // Under the limit: query's reading drops the block, convert's keeps it.
  const std::string ok = dir.write("data.bloom", as_string(small));
  CHECK(decode_source_format(load_filter_as(ok, FileFormat::kDcso, false).header.source_format, ok)
            .data.empty());
  CHECK(decode_source_format(load_filter_as(ok, FileFormat::kDcso).header.source_format, ok)
            .data.size() == 4096);
}

TEST_CASE("foreign reader: a long gzip header matters only when it is kept", "[foreign]") {
  test::TempDir dir;
  const auto plain = dcso_plain(3, 640, 4);
  const std::string path =
      dir.write("long.bloom.gz", as_string(gzip_member(plain, std::string(2000, 'n'))));
  const LoadedFilter f = load_filter_as(path, FileFormat::kDcso, false);
  CHECK(f.header.m == 640);
  const auto [msg, code] = error_of([&] { load_filter_as(path, FileFormat::kDcso); });
  CHECK(code == ErrorCode::kLimitExceeded);
  CHECK_THAT(msg, Catch::StartsWith(path + ": gzip: member header of more than 1024 bytes"));
}

TEST_CASE("foreign reader: gzip members, damage and truncation, from files and pipes",
          "[foreign]") {
  const auto plain = dcso_plain(3, 640, 0, 0x11);
  std::vector<uint8_t> two = gzip_member(std::vector<uint8_t>(plain.begin(), plain.begin() + 50));
  const auto second = gzip_member(std::vector<uint8_t>(plain.begin() + 50, plain.end()));
  two.insert(two.end(), second.begin(), second.end());
  const LoadedFilter f = load_through_pipe(two, FileFormat::kDcso);
  CHECK(f.header.m == 640);
  CHECK(f.filter->words()[0] == 0x1111111111111111ull);

  std::vector<uint8_t> junk = two;
  junk.push_back('x');
  CHECK_THAT(error_of([&] { load_through_pipe(junk, FileFormat::kDcso); }).first,
             Catch::EndsWith("gzip: invalid header at offset " + std::to_string(two.size()) +
                             " (after a complete member)"));
  std::vector<uint8_t> cut(two.begin(), two.end() - 3);
  CHECK_THAT(error_of([&] { load_through_pipe(cut, FileFormat::kDcso); }).first,
             Catch::Contains("gzip: truncated: the member starting at offset"));
  std::vector<uint8_t> bad = two;
  bad[12] ^= 0xff;
  CHECK_THAT(error_of([&] { load_through_pipe(bad, FileFormat::kDcso); }).first,
             Catch::Contains("gzip: "));
}

TEST_CASE("foreign reader: Guava files through a pipe: short, trailing, wrong format",
          "[foreign]") {
  BloomFilter g = guava::make(4, 3);
  g.add_key("a");
  const std::vector<uint8_t> bytes = guava::serialize(g);
  CHECK(load_through_pipe(bytes, FileFormat::kGuava).filter->words()[0] == g.words()[0]);
  std::vector<uint8_t> longer = bytes;
  longer.push_back(0);
  CHECK_THAT(error_of([&] { load_through_pipe(longer, FileFormat::kGuava); }).first,
             Catch::EndsWith("guava: 1 trailing bytes at offset 38 after the 4 longs of the bit "
                             "array"));
  std::vector<uint8_t> shorter(bytes.begin(), bytes.end() - 1);
  CHECK_THAT(error_of([&] { load_through_pipe(shorter, FileFormat::kGuava); }).first,
             Catch::EndsWith("guava: data length 4 longs at offset 2 (32 bytes) exceeds the file "
                             "(31 bytes after the header)"));
  const std::vector<uint8_t> bt = {0x89, 'B', 'L', 'M', '\r', '\n', 0x1A, '\n', 1, 0};
  CHECK_THAT(error_of([&] { load_through_pipe(bt, FileFormat::kGuava); }).first,
             Catch::EndsWith("guava: not a Guava file: it is a bloomtool filter file (magic 89 42 "
                             "4c 4d); read it as a bloomtool file"));
  CHECK_THAT(error_of([&] { load_through_pipe(gzip_member(bytes), FileFormat::kGuava); }).first,
             Catch::Contains("it is gzip-compressed (magic 1f 8b)"));
  CHECK_THAT(error_of([&] { load_through_pipe(bt, FileFormat::kDcso); }).first,
             Catch::EndsWith("dcso: not a DCSO file: it is a bloomtool filter file (magic 89 42 "
                             "4c 4d); read it as a bloomtool file"));
}

TEST_CASE("stats: guava-mitz32 fill and rates over the 2^31 bits it can reach",
          "[foreign][stats]") {
  constexpr uint64_t kReach = uint64_t{1} << 31;
  CHECK(scheme_reachable_bits(kHashGuavaMitz32, 3 * kReach) == kReach);
  CHECK(scheme_reachable_bits(kHashGuavaMitz32, 1 << 20) == 1 << 20);
  CHECK(scheme_reachable_bits(kHashGuavaMitz64, 3 * kReach) == 3 * kReach);
  FilterHeader h;
  h.kind = FilterKind::kBloom;
  h.hash_id = kHashGuavaMitz32;
  h.k = 7;
  h.m = 3 * kReach;  // the crafted 384 MiB file: every reachable bit set is a fill of 1 over 2^31
  CHECK(model_fpr_for(h, 1e9) == Approx(model::bloom_fpr(static_cast<double>(kReach), 1e9, 7)));
  const FillCheck c = check_fill(h, kReach, 1e9);
  CHECK(c.interval.high <= static_cast<double>(kReach));

  // A filter of 2^31 + 64 bits: one word set below 2^31, the last word (unreachable) set.
  h.m = kReach + 64;
  WordBuffer w(static_cast<size_t>(h.m / 64));
  w.data()[0] = ~uint64_t{0};
  w.data()[h.m / 64 - 1] = ~uint64_t{0};
  h.distinct_estimate = h.keys_added = 9;
  const BloomFilter f(KeyRule{kHashGuavaMitz32, 0}, h.m, 7, BloomVariant::kStandard, std::move(w));
  const FilterStats s = compute_stats(h, f);
  CHECK(s.reachable_bits == kReach);
  CHECK(s.set_bits == 64u);
  CHECK(s.unreachable_set_bits == 64);
  CHECK(*s.fill == Approx(64.0 / static_cast<double>(kReach)));
  CHECK(*s.fill_fpr == Approx(model::bloom_fill_fpr(64, static_cast<double>(kReach), 7)));
  const auto problems = header_count_problems(h, s);
  REQUIRE(!problems.empty());
  CHECK(problems.front() ==
        "64 bits set at or above bit 2147483648, where guava-mitz32 never sets one");
  CHECK(s.model_breaks.empty());
}

TEST_CASE("stats: DCSO with a power-of-two m is flagged as breaking the model",
          "[foreign][stats]") {
  for (const uint64_t m : {uint64_t{1024}, uint64_t{1} << 20, uint64_t{1000}, uint64_t{1025}}) {
    FilterHeader h;
    h.kind = FilterKind::kBloom;
    h.hash_id = kHashDcsoFnv1;
    h.k = 3;
    h.m = m;
    const BloomFilter f(KeyRule{kHashDcsoFnv1, 0}, m, 3);
    const FilterStats s = compute_stats(h, f);
    CHECK(s.model_breaks.empty() == !std::has_single_bit(m));
    CHECK(scheme_breaks_model(kHashDcsoFnv1, m) == std::has_single_bit(m));
    CHECK(!scheme_breaks_model(kHashGuavaMitz64, m));
  }
}
