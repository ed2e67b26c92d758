// Drives the library's foreign-format components from the interop shell tests. Keys are read
// from a file, one per line, split on '\n' only (no other byte is special). Errors print one
// line "interop_tool: <message>" and exit 2.
//
//   interop_tool guava-size                      stdin "n p" lines -> "n p words k"
//   interop_tool guava-build N P 64|32 KEYS OUT  create(n, p) with that strategy, put, write
//   interop_tool guava-query FILE KEYS           one line per key: 1 (might contain) or 0
//   interop_tool guava-copy IN OUT               read with validation, write back
//   interop_tool dcso-size                       stdin "n p" lines -> "n p m k"
//   interop_tool dcso-build N P KEYS OUT [gzip]  Initialize(n, p), add, write (plain or gzip)
//   interop_tool dcso-build-mk M K KEYS OUT      explicit geometry (n = keys, p = 0.01 recorded)
//   interop_tool dcso-query FILE KEYS            prints the keys that match, like `bloom check`
//   interop_tool dcso-copy IN OUT [gzip]         read (gzip detected), write plain or gzip
//   interop_tool dcso-show FILE                  "n p k m N words data_bytes set_bits"
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include "bloomtool/error.h"
#include "filters/bloom.h"
#include "interop/dcso_codec.h"
#include "interop/guava_codec.h"
#include "interop/interop_io.h"  // lib/src: the same file reader the library uses

using namespace bloomtool;

namespace {

std::vector<std::string_view> split_lines(const std::vector<uint8_t>& bytes) {
  std::vector<std::string_view> keys;
  const char* p = reinterpret_cast<const char*>(bytes.data());
  size_t start = 0;
  for (size_t i = 0; i < bytes.size(); ++i) {
    if (bytes[i] == '\n') {
      keys.emplace_back(p + start, i - start);
      start = i + 1;
    }
  }
  if (start < bytes.size()) keys.emplace_back(p + start, bytes.size() - start);
  return keys;
}

uint64_t to_u64(const std::string& s) {
  size_t used = 0;
  const unsigned long long v = std::stoull(s, &used);
  if (used != s.size()) throw Error(ErrorCode::kInvalidArgument, "not a number: " + s);
  return v;
}

double to_double(const std::string& s) {
  size_t used = 0;
  const double v = std::stod(s, &used);
  if (used != s.size()) throw Error(ErrorCode::kInvalidArgument, "not a number: " + s);
  return v;
}

int run(int argc, char** argv) {
  if (argc < 2) throw Error(ErrorCode::kInvalidArgument, "usage: see the comment in the source");
  const std::string cmd = argv[1];
  std::vector<std::string> a(argv + 2, argv + argc);
  auto need = [&](size_t n) {
    if (a.size() < n) throw Error(ErrorCode::kInvalidArgument, cmd + ": missing arguments");
  };
  auto keys_of = [](const std::string& path) {
    return interop_io::read_file(path, uint64_t{1} << 34);
  };
  std::string out;  // buffered stdout
  auto flush = [&] { std::fwrite(out.data(), 1, out.size(), stdout); };

  if (cmd == "guava-size" || cmd == "dcso-size") {
    std::string n_text;
    std::string p_text;
    while (std::cin >> n_text >> p_text) {
      const uint64_t n = to_u64(n_text);
      const double p = to_double(p_text);
      if (cmd == "guava-size") {
        const guava::Sizing s = guava::size_for(n, p);
        out += n_text + " " + p_text + " " + std::to_string(s.words) + " " + std::to_string(s.k) +
               "\n";
      } else {
        const dcso::Sizing s = dcso::size_for(n, p);
        out += n_text + " " + p_text + " " + std::to_string(s.m) + " " + std::to_string(s.k) + "\n";
      }
    }
  } else if (cmd == "guava-build") {
    need(5);
    const auto strategy =
        a[2] == "32" ? guava::Strategy::kMurmur128Mitz32 : guava::Strategy::kMurmur128Mitz64;
    BloomFilter f = guava::create(to_u64(a[0]), to_double(a[1]), strategy);
    const auto bytes = keys_of(a[3]);
    for (std::string_view k : split_lines(bytes)) f.add_key(k);
    guava::write_file(f, a[4]);
  } else if (cmd == "guava-query") {
    need(2);
    const BloomFilter f = guava::read_file(a[0]);
    const auto bytes = keys_of(a[1]);
    for (std::string_view k : split_lines(bytes)) out += f.contains(k) ? "1\n" : "0\n";
  } else if (cmd == "guava-copy") {
    need(2);
    guava::write_file(guava::read_file(a[0]), a[1]);
  } else if (cmd == "dcso-build" || cmd == "dcso-build-mk") {
    need(4);
    const auto bytes = keys_of(a[2]);
    const auto keys = split_lines(bytes);
    dcso::File f = cmd == "dcso-build"
                       ? dcso::File::create(to_u64(a[0]), to_double(a[1]))
                       : dcso::File::make(keys.size(), 0.01, to_u64(a[1]), to_u64(a[0]));
    BloomFilter b = f.filter();
    uint64_t counted = 0;
    for (std::string_view k : keys) counted += b.add_counting(k) ? 1 : 0;
    f.set_bits(b, counted);
    const bool gz = a.size() > 4 && a[4] == "gzip";
    f.write_file(a[3], gz ? dcso::Compression::kGzip : dcso::Compression::kNone);
  } else if (cmd == "dcso-query") {
    need(2);
    const BloomFilter f = dcso::File::read_file(a[0]).filter();
    const auto bytes = keys_of(a[1]);
    for (std::string_view k : split_lines(bytes)) {
      if (f.contains(k)) {
        out += k;
        out += '\n';
      }
    }
  } else if (cmd == "dcso-copy") {
    need(2);
    const bool gz = a.size() > 2 && a[2] == "gzip";
    dcso::File::read_file(a[0]).write_file(
        a[1], gz ? dcso::Compression::kGzip : dcso::Compression::kNone);
  } else if (cmd == "dcso-show") {
    need(1);
    const dcso::File f = dcso::File::read_file(a[0]);
    char p[64];
    std::snprintf(p, sizeof p, "%.17g", f.fpp());
    out += std::to_string(f.header.n) + " " + p + " " + std::to_string(f.header.k) + " " +
           std::to_string(f.header.m) + " " + std::to_string(f.header.count) + " " +
           std::to_string(f.words.size()) + " " + std::to_string(f.data.size()) + " " +
           std::to_string(f.bit_count()) + "\n";
  } else {
    throw Error(ErrorCode::kInvalidArgument, "unknown command " + cmd);
  }
  flush();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "interop_tool: %s\n", e.what());
    return 2;
  }
}
