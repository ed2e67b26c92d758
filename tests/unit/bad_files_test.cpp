// The known-bad files in testdata/bad/: each one must fail with the error code and message that
// testdata/bad/README.md lists for it, and every file there must be listed.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "bloomtool/error.h"
#include "api/load_filter.h"
#include "keys/normalise.h"

using namespace bloomtool;

namespace {

struct Row {
  std::string file, code, message;
};

std::string trim(std::string s) {
  const auto b = s.find_first_not_of(" `");
  const auto e = s.find_last_not_of(" `");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

// Rows of the table "| `file` | error | `message` | ... |" in the README (no cell holds a "|").
std::vector<Row> table(const std::string& path) {
  std::ifstream in(path);
  std::vector<Row> rows;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("| `", 0) != 0) continue;
    std::vector<std::string> cells;
    size_t at = 1;
    for (size_t bar; (bar = line.find('|', at)) != std::string::npos; at = bar + 1)
      cells.push_back(trim(line.substr(at, bar - at)));
    REQUIRE(cells.size() >= 3);
    rows.push_back({cells[0], cells[1], cells[2]});
  }
  return rows;
}

// Opens a filter the way `query` does: read, verify, instantiate, and parse the normalisation.
void open_like_query(const std::string& path) {
  const LoadedFilter f = load_filter(path);
  Normaliser::parse(f.header.normalisation, path);
}

uint64_t physical_memory() {
  return static_cast<uint64_t>(sysconf(_SC_PHYS_PAGES)) *
         static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
}

}  // namespace

TEST_CASE("every known-bad file fails as its README row says", "[bad-files]") {
  const std::string dir = std::string(BLOOMTOOL_TESTDATA) + "/bad/";
  const std::vector<Row> rows = table(dir + "README.md");
  REQUIRE(rows.size() >= 40);
  std::set<std::string> listed;
  for (const Row& row : rows) {
    INFO(row.file);
    CHECK(listed.insert(row.file).second);
    const std::string path = dir + row.file;
    REQUIRE(std::filesystem::exists(path));
    if (row.code == "ok") {
      CHECK_NOTHROW(open_like_query(path));
      continue;
    }
    try {
      open_like_query(path);
      FAIL("accepted");
    } catch (const Error& e) {
      const std::string msg = e.what();
      INFO(msg);
      if (row.file == "larger-than-memory.bf" && physical_memory() >= (uint64_t{1} << 37)) {
        CHECK(msg.find("payload ends early") != std::string::npos);
        continue;
      }
      CHECK(error_code_name(e.code()) == row.code);
      CHECK(msg.rfind(path + ": ", 0) == 0);
      CHECK(msg.find(row.message) != std::string::npos);
    }
  }
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().extension() != ".bf") continue;
    INFO(e.path().filename().string() << " has no row in testdata/bad/README.md");
    CHECK(listed.count(e.path().filename().string()) == 1);
  }
}
