// Corruption sweeps over the golden files: every truncation and every single-bit flip must be
// rejected as truncated / corrupt / unsupported — never accepted, never a crash — and headers
// that claim enormous payloads must be refused before anything large is allocated.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include "bloomtool/error.h"
#include "api/load_filter.h"
#include "api/merge.h"
#include "golden_files.h"

using namespace bloomtool;
using bloomtool::test::golden_files;
using bloomtool::test::golden_path;

namespace {

std::vector<uint8_t> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

// Loads a file image the way load_filter() does; the error, or nullopt if it was accepted.
std::optional<Error> try_load(std::span<const uint8_t> bytes, const std::string& name) {
  try {
    make_filter(parse_filter_file(bytes, name), name);
    return std::nullopt;
  } catch (const Error& e) {
    return e;
  }
}

bool contains(const std::string& s, const char* word) {
  return s.find(word) != std::string::npos;
}

// Merges `bytes` (written to a file) into a golden file the way `bloomtool merge` reads its inputs
// (header, then the payload streamed in chunks); the error, or nullopt if it was accepted.
std::optional<Error> try_merge(const std::string& golden, std::span<const uint8_t> bytes,
                               const std::string& path) {
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(bytes.data()),
              static_cast<std::streamsize>(bytes.size()));
  }
  try {
    merge_filter_files({golden, path}, MergeOp::kUnion);
    return std::nullopt;
  } catch (const Error& e) {
    return e;
  }
}

// Resident memory of this process now, in KiB.
long current_rss_kib() {
  std::ifstream statm("/proc/self/statm");
  long pages = 0, resident = 0;
  statm >> pages >> resident;
  return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

}  // namespace

TEST_CASE("every truncation of a golden file is reported as truncated", "[corruption]") {
  size_t cases = 0;
  for (const auto& g : golden_files()) {
    const std::vector<uint8_t> file = read_bytes(golden_path(g.name));
    REQUIRE(file.size() > kFixedHeaderBytes);
    for (size_t len = 0; len < file.size(); ++len) {
      const auto err = try_load(std::span(file).first(len), g.name);
      INFO(g.name << " cut to " << len << " bytes");
      REQUIRE(err.has_value());
      CHECK(err->code() == ErrorCode::kCorrupt);
      CHECK(contains(err->what(), ": truncated: "));
      CHECK(std::string(err->what()).rfind(g.name + ": ", 0) == 0);
      ++cases;
    }
  }
  CHECK(cases > 600);
}

TEST_CASE("every single-bit flip of a golden file is rejected", "[corruption]") {
  size_t cases = 0;
  for (const auto& g : golden_files()) {
    std::vector<uint8_t> file = read_bytes(golden_path(g.name));
    REQUIRE(!try_load(file, g.name).has_value());
    for (size_t bit = 0; bit < file.size() * 8; ++bit) {
      file[bit / 8] ^= static_cast<uint8_t>(1u << (bit % 8));
      const auto err = try_load(file, g.name);
      file[bit / 8] ^= static_cast<uint8_t>(1u << (bit % 8));
      INFO(g.name << " with bit " << bit << " flipped");
      REQUIRE(err.has_value());
      CHECK((err->code() == ErrorCode::kCorrupt || err->code() == ErrorCode::kUnsupported));
      const std::string msg = err->what();
      CHECK((contains(msg, ": truncated: ") || contains(msg, ": corrupt: ") ||
             contains(msg, ": unsupported: ")));
      ++cases;
    }
  }
  CHECK(cases > 5000);
}

TEST_CASE("merge's streaming reader rejects every truncation and bit flip too", "[corruption]") {
  // On tmpfs when there is one: rewriting a file thousands of times with O_TRUNC makes ext4 flush
  // it to disk each time (auto_da_alloc).
  std::string dir_template = std::filesystem::is_directory("/dev/shm")
                                 ? "/dev/shm/bloomtool-sweep-XXXXXX"
                                 : "/tmp/bloomtool-sweep-XXXXXX";
  char* tmpl = dir_template.data();
  REQUIRE(mkdtemp(tmpl) != nullptr);
  const std::string path = std::string(tmpl) + "/mutated.bf";
  size_t cases = 0;
  for (const auto& g : golden_files()) {
    if (g.kind != FilterKind::kBloom) continue;  // merge takes Bloom filters only
    const std::string golden = golden_path(g.name);
    std::vector<uint8_t> file = read_bytes(golden);
    REQUIRE(!try_merge(golden, file, path).has_value());
    for (size_t len = 0; len < file.size(); ++len) {
      const auto err = try_merge(golden, std::span(file).first(len), path);
      INFO(g.name << " cut to " << len << " bytes");
      REQUIRE(err.has_value());
      CHECK(err->code() == ErrorCode::kCorrupt);
      CHECK(contains(err->what(), ": truncated: "));
      ++cases;
    }
    for (size_t bit = 0; bit < file.size() * 8; ++bit) {
      file[bit / 8] ^= static_cast<uint8_t>(1u << (bit % 8));
      const auto err = try_merge(golden, file, path);
      file[bit / 8] ^= static_cast<uint8_t>(1u << (bit % 8));
      INFO(g.name << " with bit " << bit << " flipped");
      REQUIRE(err.has_value());
      CHECK((err->code() == ErrorCode::kCorrupt || err->code() == ErrorCode::kUnsupported));
      const std::string msg = err->what();
      CHECK(msg.rfind(path + ": ", 0) == 0);
      CHECK((contains(msg, ": truncated: ") || contains(msg, ": corrupt: ") ||
             contains(msg, ": unsupported: ")));
      ++cases;
    }
  }
  std::filesystem::remove_all(tmpl);
  CHECK(cases > 5000);
}

TEST_CASE("headers claiming huge payloads are refused before allocating", "[corruption]") {
  const std::string bad = std::string(BLOOMTOOL_TESTDATA) + "/bad/";
  for (const char* name : {"raw-2pow60-bits.bf", "raw-near-2pow64.bf", "larger-than-memory.bf",
                           "payload-stored-huge.bf", "m-2pow60.bf", "header-length-huge.bf"}) {
    INFO(name);
    const long before = current_rss_kib();
    const pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      try {
        load_filter(bad + name);
        _exit(1);  // accepted: wrong
      } catch (const Error& e) {
        const bool ok = e.code() == ErrorCode::kLimitExceeded || e.code() == ErrorCode::kCorrupt;
        _exit(ok ? 0 : 2);
      } catch (...) {
        _exit(3);
      }
    }
    int status = 0;
    struct rusage ru {};
    REQUIRE(wait4(pid, &status, 0, &ru) == pid);
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
    // The child starts with this process's resident pages; it may add a little, never gigabytes.
    CHECK(ru.ru_maxrss - before < 64 * 1024);
  }
}
