// HashSpill: the same partitions whatever the memory budget and thread count, counts by every
// bit count, the budget kept (run count), and the temporary directory's errors; the file never
// has a name.
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "format/hash_spill.h"
#include "temp_dir.h"

using namespace bloomtool;

namespace {

uint64_t splitmix(uint64_t& x) {
  uint64_t z = (x += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// `n` random hashes, then hashes crafted to share their top 16 and 40 bits (deep radix
// levels), 0 and ~0, then every third hash again (repeats that land in later runs).
std::vector<uint64_t> spill_input(size_t n) {
  std::vector<uint64_t> v;
  uint64_t s = 35;
  for (size_t i = 0; i < n; ++i) v.push_back(splitmix(s));
  for (uint64_t i = 0; i < 300; ++i) v.push_back(0xabcd000000000000ull | (splitmix(s) >> 16));
  for (uint64_t i = 0; i < 100; ++i) v.push_back(0x1234567890000000ull | (i * 7919));
  v.push_back(0);
  v.push_back(~uint64_t{0});
  const size_t first = v.size();
  for (size_t i = 0; i < first; i += 3) v.push_back(v[i]);
  return v;
}

// Adds `in` in batches of varied sizes, spread over `threads` threads running at once.
void add_all(HashSpill& spill, const std::vector<uint64_t>& in, unsigned threads) {
  auto work = [&](unsigned t) {
    const size_t begin = in.size() * t / threads, end = in.size() * (t + 1) / threads;
    size_t i = begin, step = 1;
    while (i < end) {
      const size_t len = std::min(end - i, step);
      spill.add(t, std::span(in).subspan(i, len));
      i += len;
      step = step % 5000 + 977;  // 1, 978, ... crosses every staging and run boundary
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(work, t);
  work(0);
  for (auto& th : pool) th.join();
  spill.finish();
}

// The hashes of sorted `all` whose top `bits` bits are `part`, distinct.
std::vector<uint64_t> expected_part(const std::vector<uint64_t>& all, unsigned bits,
                                    uint64_t part) {
  std::vector<uint64_t> out;
  for (uint64_t h : all)
    if ((bits == 0 ? 0 : h >> (64 - bits)) == part && (out.empty() || out.back() != h))
      out.push_back(h);
  return out;
}

// Equal vectors; else prints the sizes and the first difference (not the whole vectors).
bool same(const std::vector<uint64_t>& got, const std::vector<uint64_t>& expect) {
  if (got == expect) return true;
  const auto d = std::mismatch(got.begin(), got.end(), expect.begin(), expect.end());
  UNSCOPED_INFO("got " << got.size() << " hashes, expected " << expect.size()
                       << "; first difference at " << (d.first - got.begin()));
  return false;
}

size_t files_in(const std::string& dir) {
  size_t n = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir)) ++n;
  return n;
}

}  // namespace

TEST_CASE("HashSpill reads the same partitions for any budget and thread count", "[spill]") {
  const std::vector<uint64_t> in = spill_input(30000);
  std::vector<uint64_t> sorted = in;
  std::sort(sorted.begin(), sorted.end());
  const size_t distinct = std::set<uint64_t>(in.begin(), in.end()).size();
  test::TempDir dir;
  struct Config {
    uint64_t memory;
    unsigned threads;
  };
  for (const Config c : {Config{0, 1}, Config{0, 2}, Config{64 << 10, 1}, Config{64 << 10, 2},
                         Config{16 << 10, 2}, Config{16 << 10, 3}}) {
    CAPTURE(c.memory, c.threads);
    HashSpill spill({c.memory, dir.path(), 0}, c.threads);
    add_all(spill, in, c.threads);
    CHECK(spill.size() == in.size());
    CHECK(spill.spilled() == (c.memory != 0));
    // The budget: the run buffer and the sort's scratch, as large, fit in it; every run but the
    // last is a full buffer.
    if (c.memory != 0) {
      CHECK(spill.run_capacity() * 16 <= c.memory);
      CHECK(spill.run_capacity() * 16 >= c.memory * 7 / 8);
      CHECK(spill.runs() == (in.size() - 1) / spill.run_capacity() + 1);
      CHECK(spill.runs() >= 4);
      CHECK(spill.spill_bytes() > 0);
      // The file has no name: the directory stays empty while it is in use.
      CHECK(files_in(dir.path()) == 0);
    } else {
      CHECK(spill.runs() == 0);
      CHECK(spill.spill_bytes() == 0);
    }
    // Counts (with repeats) for every bit count 0..16 and every part.
    for (unsigned bits = 0; bits <= 16; ++bits) {
      std::vector<uint64_t> expect(size_t{1} << bits, 0);
      for (uint64_t h : sorted) ++expect[bits == 0 ? 0 : h >> (64 - bits)];
      bool same = true;
      for (uint64_t p = 0; p < expect.size(); ++p) same = same && spill.count(bits, p) == expect[p];
      CHECK(same);
    }
    // Partitions at several widths, all of them at 0, 1 and 4 bits, the crafted ones at 16.
    std::vector<uint64_t> got;
    for (unsigned bits : {0u, 1u, 4u}) {
      for (uint64_t p = 0; p < (uint64_t{1} << bits); ++p) {
        CAPTURE(bits, p);
        spill.read(bits, p, got);
        CHECK(same(got, expected_part(sorted, bits, p)));
      }
    }
    for (uint64_t p : {0x0000ull, 0xabcdull, 0x1234ull, 0xffffull, 0x8000ull}) {
      CAPTURE(p);
      spill.read(16, p, got);
      CHECK(same(got, expected_part(sorted, 16, p)));
    }
    spill.read(0, 0, got);
    CHECK(got.size() == distinct);
  }
  CHECK(files_in(dir.path()) == 0);
}

TEST_CASE("HashSpill: runs sorted on two threads, slices merged through refilled buffers",
          "[spill]") {
  // Runs of over 2^18 hashes take the threaded radix sort; partitions of 4 take slices of tens
  // of thousands of hashes from each run, more than a merge buffer holds.
  const std::vector<uint64_t> in = spill_input(700000);
  std::vector<uint64_t> sorted = in;
  std::sort(sorted.begin(), sorted.end());
  test::TempDir dir;
  for (const uint64_t memory : {uint64_t{0}, uint64_t{5} << 20}) {
    CAPTURE(memory);
    HashSpill spill({memory, dir.path(), in.size()}, 2);
    add_all(spill, in, 2);
    CHECK(spill.runs() == (memory == 0 ? 0 : 3));
    if (memory != 0) CHECK(spill.run_capacity() >= (size_t{1} << 18));
    std::vector<uint64_t> got;
    for (uint64_t p = 0; p < 4; ++p) {
      CAPTURE(p);
      spill.read(2, p, got);
      CHECK(same(got, expected_part(sorted, 2, p)));
    }
  }
}

TEST_CASE("HashSpill: a run of the smallest budget, reads from several threads", "[spill]") {
  const std::vector<uint64_t> in = spill_input(3000);
  std::vector<uint64_t> sorted = in;
  std::sort(sorted.begin(), sorted.end());
  test::TempDir dir;
  HashSpill spill({kMinSpillMemory, dir.path(), 0}, 2);
  add_all(spill, in, 2);
  CHECK(spill.runs() >= 7);
  std::vector<std::vector<uint64_t>> got(8);
  std::vector<std::thread> pool;
  for (unsigned p = 0; p < 8; ++p) pool.emplace_back([&, p] { spill.read(3, p, got[p]); });
  for (auto& t : pool) t.join();
  for (unsigned p = 0; p < 8; ++p) CHECK(same(got[p], expected_part(sorted, 3, p)));
}

TEST_CASE("HashSpill: size() counts hashes still in the threads' stages, before finish",
          "[spill]") {
  // build_static chooses the partition count from size() between the last add() and finish().
  test::TempDir dir;
  HashSpill spill({0, dir.path(), 0}, 2);
  const std::vector<uint64_t> a{1, 2, 3}, b{5, 5, 6, 7, 8};
  spill.add(0, a);
  spill.add(1, b);
  CHECK(spill.size() == 8);
  spill.finish();
  CHECK(spill.size() == 8);
}

TEST_CASE("HashSpill with nothing added", "[spill]") {
  test::TempDir dir;
  for (uint64_t memory : {uint64_t{0}, uint64_t{1} << 20}) {
    HashSpill spill({memory, dir.path(), 0}, 2);
    spill.add(1, {});
    spill.finish();
    CHECK(spill.size() == 0);
    CHECK_FALSE(spill.spilled());
    CHECK(spill.count(0, 0) == 0);
    CHECK(spill.count(16, 65535) == 0);
    std::vector<uint64_t> got{1, 2, 3};
    spill.read(0, 0, got);
    CHECK(got.empty());
    spill.read(16, 7, got);
    CHECK(got.empty());
  }
}

TEST_CASE("HashSpill refuses bad arguments", "[spill]") {
  test::TempDir dir;
  CHECK_THROWS_WITH(HashSpill({100, dir.path(), 0}, 1),
                    "memory_bytes: must be 0 (no limit) or at least 4096 bytes");
  HashSpill spill({0, dir.path(), 0}, 2);
  CHECK_THROWS_WITH(spill.add(2, std::vector<uint64_t>{1}),
                    "thread: 2 is not below the thread count 2");
  std::vector<uint64_t> got;
  CHECK_THROWS_WITH(spill.count(1, 0), "count() before finish()");
  CHECK_THROWS_WITH(spill.read(1, 0, got), "read() before finish()");
  spill.finish();
  CHECK_THROWS_WITH(spill.count(17, 0), "bits: 17 is above 16");
  CHECK_THROWS_WITH(spill.read(2, 4, got), "part: 4 is not below 2^2");
  CHECK_THROWS_WITH(spill.add(0, std::vector<uint64_t>(10000, 1)), "add() after finish()");
}

TEST_CASE("HashSpill: a temporary directory that is missing, a file or unwritable", "[spill]") {
  test::TempDir dir;
  const std::string missing = dir.path() + "/none";
  CHECK_THROWS_WITH(HashSpill({1 << 20, missing, 0}, 1),
                    missing + ": cannot create a temporary file: No such file or directory");
  const std::string file = dir.write("file", "x");
  CHECK_THROWS_WITH(HashSpill({1 << 20, file, 0}, 1),
                    file + ": cannot create a temporary file: Not a directory");
  // Without a budget nothing is written, so the directory is not looked at.
  CHECK_NOTHROW(HashSpill({0, missing, 0}, 1));
  if (::geteuid() != 0) {  // root writes anywhere
    const std::string ro = dir.path() + "/ro";
    REQUIRE(::mkdir(ro.c_str(), 0500) == 0);
    CHECK_THROWS_WITH(HashSpill({1 << 20, ro, 0}, 1),
                      ro + ": cannot create a temporary file: Permission denied");
  }
  CHECK(files_in(dir.path()) == (::geteuid() != 0 ? 2 : 1));  // "file" and "ro" only
}

TEST_CASE("HashSpill: disk space checked up front from the expected count", "[spill]") {
  test::TempDir dir;
  // 2^60 hashes need 8 EiB: more than any filesystem has free.
  CHECK_THROWS_WITH(
      HashSpill({1 << 20, dir.path(), uint64_t{1} << 60}, 1),
      Catch::Matchers::StartsWith(dir.path() + ": not enough free space for spilled hashes: "
                                               "needs ") &&
          Catch::Matchers::Contains(" TiB, ") && Catch::Matchers::EndsWith(" free"));
  // A count that fits in memory is no reason to check.
  CHECK_NOTHROW(HashSpill({1 << 20, dir.path(), 1000}, 1));
  CHECK(files_in(dir.path()) == 0);
}

TEST_CASE("HashSpill: a write the system refuses is an error, then every later call", "[spill]") {
  // A file size limit makes the run's write fail part-way (EFBIG), as a full disk would.
  test::TempDir dir;
  struct rlimit old;
  REQUIRE(::getrlimit(RLIMIT_FSIZE, &old) == 0);
  struct sigaction ignore = {}, old_action;
  ignore.sa_handler = SIG_IGN;
  REQUIRE(::sigaction(SIGXFSZ, &ignore, &old_action) == 0);
  struct rlimit small = old;
  small.rlim_cur = 100 << 10;
  REQUIRE(::setrlimit(RLIMIT_FSIZE, &small) == 0);
  {
    HashSpill spill({64 << 10, dir.path(), 0}, 1);
    const std::vector<uint64_t> in = spill_input(20000);
    const std::string message = dir.path() + ": writing spilled hashes: File too large";
    CHECK_THROWS_WITH(spill.add(0, in), message);
    CHECK_THROWS_WITH(spill.add(0, in), message);
    CHECK_THROWS_WITH(spill.finish(), message);
  }
  ::setrlimit(RLIMIT_FSIZE, &old);
  ::sigaction(SIGXFSZ, &old_action, nullptr);
  CHECK(files_in(dir.path()) == 0);
}
