// Deterministic key sets for the benchmarks: URL-like keys (~60 bytes), 13-byte phone numbers,
// and URL-like non-members that can never collide with the members (different host alphabet).
// Usage: gen_keys urls|phones|nonmembers COUNT [SEED] > file
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

uint64_t next(uint64_t& s) {
  s += 0x9E3779B97F4A7C15ull;
  uint64_t z = s;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: gen_keys urls|phones|nonmembers COUNT [SEED]\n");
    return 2;
  }
  const std::string kind = argv[1];
  const uint64_t count = std::strtoull(argv[2], nullptr, 10);
  uint64_t s = argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 1;
  static const char* kWords[] = {"news", "shop", "blog", "wiki", "mail", "cdn", "api", "docs"};
  std::vector<char> out;
  out.reserve(1 << 22);
  char line[256];
  for (uint64_t i = 0; i < count; ++i) {
    const uint64_t r = next(s);
    int n = 0;
    if (kind == "urls") {
      n = std::snprintf(line, sizeof line, "https://www.%s%u.example.com/%s/%016llx/%llu\n",
                        kWords[r & 7], static_cast<unsigned>((r >> 3) % 5000), kWords[(r >> 20) & 7],
                        static_cast<unsigned long long>(next(s)), static_cast<unsigned long long>(i));
    } else if (kind == "nonmembers") {
      n = std::snprintf(line, sizeof line, "https://www.%s%u.example.net/%s/%016llx/%llu\n",
                        kWords[r & 7], static_cast<unsigned>((r >> 3) % 5000), kWords[(r >> 20) & 7],
                        static_cast<unsigned long long>(next(s)), static_cast<unsigned long long>(i));
    } else if (kind == "phones") {
      // "+4915" followed by 8 digits from a permutation of i: 13 bytes, all distinct below 10^8.
      const uint64_t v = (i * 48271 + 12345) % 100000000;
      n = std::snprintf(line, sizeof line, "+4915%08llu\n", static_cast<unsigned long long>(v));
    } else {
      std::fprintf(stderr, "gen_keys: unknown kind %s\n", kind.c_str());
      return 2;
    }
    out.insert(out.end(), line, line + n);
    if (out.size() > (1 << 22) - 256) {
      std::fwrite(out.data(), 1, out.size(), stdout);
      out.clear();
    }
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
  return std::fflush(stdout) == 0 ? 0 : 1;
}
