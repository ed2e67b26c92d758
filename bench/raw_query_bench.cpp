// Queries against a raw (codec 2) filter read and verified lazily, next to the same filter read
// whole into memory, in one process so that only the query path differs (no process start, no
// zstd load to subtract). For issue 14's "1,000,000 queries within 1.5x of an in-memory filter"
// and the chunk-size sweep in docs/PERFORMANCE.md.
//
//   raw_query_bench RAW KEYS [CHUNK_KIB...]
//
// RAW: a raw Bloom filter (codec 2, no normalisation); KEYS: one key per line (the queries).
// Prints, medians of 5 rounds, each an in-memory run then a mapped one (page cache warm: the file
// is read once first), the round-by-round ratio and how much of the page cache is in 2 MiB folios:
//   in-memory    the filter read whole (load_filter_from_fd: every chunk verified, payload in
//                anonymous memory) and then queried: query time only
//   mapped, first pass   load_filter (chunks read with pread into its cache as queries need
//                them) + the queries, each run on a fresh handle: what `bloomtool query RAW KEYS`
//                pays beyond reading its input ("mapped" names the earlier reader, which mapped)
//   mapped, second pass  the same queries again on that handle (chunks still in its cache)
// With CHUNK_KIB values: the filter is rewritten with that chunk size next to RAW (RAW.chunkN,
// deleted after) and its open + one key and open + all keys are timed the same way.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "bloomtool/error.h"
#include "format/filter_file.h"
#include "keys/hash.h"
#include "api/load_filter.h"

namespace {

using Clock = std::chrono::steady_clock;
constexpr size_t kBatch = 4096;  // keys per filter_contains_hashes call

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

uint64_t query_all(const bloomtool::LoadedFilter& f, const std::vector<uint64_t>& hashes) {
  std::vector<uint8_t> out(kBatch);
  uint64_t hits = 0;
  for (size_t at = 0; at < hashes.size(); at += kBatch) {
    const size_t n = std::min(kBatch, hashes.size() - at);
    bloomtool::filter_contains_hashes(f, std::span(hashes).subspan(at, n), out.data());
    for (size_t i = 0; i < n; ++i) hits += out[i];
  }
  return hits;
}

struct MappedTimes {
  double first = 0, second = 0;
  uint64_t hits = 0;
};

// Median over `runs` fresh mappings of RAW: open + queries, then the queries again.
MappedTimes time_mapped(const std::string& path, const std::vector<uint64_t>& hashes,
                        int runs = 5) {
  std::vector<double> first, second;
  MappedTimes r;
  for (int run = 0; run < runs; ++run) {
    const auto t0 = Clock::now();
    const bloomtool::LoadedFilter f = bloomtool::load_filter(path);
    r.hits = query_all(f, hashes);
    first.push_back(seconds_since(t0));
    const auto t1 = Clock::now();
    query_all(f, hashes);
    second.push_back(seconds_since(t1));
  }
  r.first = median(first);
  r.second = median(second);
  return r;
}

// The line of /proc/meminfo that starts with `field`, spaces squeezed ("" if none): how much of
// the page cache sits in 2 MiB folios, which moves the mapped figures.
std::string meminfo_line(const std::string& field, const char* file = "/proc/meminfo") {
  std::ifstream in(file);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(field + ":", 0) != 0) continue;
    std::string out;
    for (const char c : line)
      if (c != ' ' || (!out.empty() && out.back() != ' ')) out += c;
    return out;
  }
  return "";
}

}  // namespace

int main(int argc, char** argv) try {
  if (argc < 3) {
    std::fprintf(stderr, "usage: raw_query_bench RAW KEYS [CHUNK_KIB...]\n");
    return 2;
  }
  const std::string raw = argv[1];
  std::vector<std::string> keys;
  {
    std::ifstream in(argv[2]);
    for (std::string line; std::getline(in, line);) keys.push_back(line);
  }
  {  // the whole file into the page cache
    std::ifstream in(raw, std::ios::binary);
    std::vector<char> buf(1 << 20);
    while (in.read(buf.data(), static_cast<std::streamsize>(buf.size())) || in.gcount() > 0) {
    }
  }

  int fd = ::open(raw.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    std::perror(raw.c_str());
    return 2;
  }
  auto t0 = Clock::now();
  const bloomtool::LoadedFilter mem = bloomtool::load_filter_from_fd(fd, raw);
  const double load_s = seconds_since(t0);
  ::close(fd);
  if (mem.header.codec != bloomtool::PayloadCodec::kRawChunked ||
      !mem.header.normalisation.empty()) {
    std::fprintf(stderr, "raw_query_bench: %s: not a raw filter without normalisation\n",
                 raw.c_str());
    return 2;
  }
  std::vector<uint64_t> hashes(keys.size());
  for (size_t i = 0; i < keys.size(); ++i)
    hashes[i] = bloomtool::hash_key(keys[i], mem.header.seed);
  const std::vector<uint64_t> one(hashes.begin(), hashes.begin() + 1);

  // In-memory and mapped rounds alternate, so that the machine's drift (on the reference VM the
  // in-memory queries alone took from 1.05 to 2.50 s within ten minutes) touches both alike.
  std::vector<double> mem_runs, first_ratios;
  uint64_t mem_hits = 0;
  MappedTimes mapped;
  std::vector<double> first, second;
  for (int run = 0; run < 5; ++run) {
    t0 = Clock::now();
    mem_hits = query_all(mem, hashes);
    mem_runs.push_back(seconds_since(t0));
    const MappedTimes m = time_mapped(raw, hashes, 1);
    first.push_back(m.first);
    second.push_back(m.second);
    first_ratios.push_back(m.first / mem_runs.back());
    mapped.hits = m.hits;
  }
  const double mem_s = median(mem_runs);
  mapped.first = median(first);
  mapped.second = median(second);
  std::printf("file %s: m %llu bits, k %u, %zu keys queried, %llu may be present\n", raw.c_str(),
              static_cast<unsigned long long>(mem.header.m), static_cast<unsigned>(mem.header.k),
              keys.size(), static_cast<unsigned long long>(mem_hits));
  std::printf("read whole into memory (not timed below): %.3f s\n", load_s);
  std::printf("| path | median s | ratio to in-memory |\n|---|---:|---:|\n");
  std::printf("| in-memory, queries | %.3f | 1.00 |\n", mem_s);
  std::printf("| mapped, open + queries (first pass) | %.3f | %.2f |\n", mapped.first,
              mapped.first / mem_s);
  std::printf("| mapped, queries again (second pass) | %.3f | %.2f |\n", mapped.second,
              mapped.second / mem_s);
  std::sort(first_ratios.begin(), first_ratios.end());
  std::printf("first pass / in-memory, round by round: %.2f to %.2f (median %.2f)\n",
              first_ratios.front(), first_ratios.back(), first_ratios[first_ratios.size() / 2]);
  std::printf("page cache: %s; in-memory copy: %s\n", meminfo_line("FileHugePages").c_str(),
              meminfo_line("AnonHugePages", "/proc/self/smaps_rollup").c_str());
  if (mapped.hits != mem_hits) {
    std::fprintf(stderr, "raw_query_bench: mapped answers differ (%llu vs %llu)\n",
                 static_cast<unsigned long long>(mapped.hits),
                 static_cast<unsigned long long>(mem_hits));
    return 1;
  }

  if (argc > 3) {
    std::printf(
        "\n| chunk | table bytes | open + 1 key ms | open + all keys s | ratio to in-memory |\n"
        "|---:|---:|---:|---:|---:|\n");
  }
  for (int a = 3; a < argc; ++a) {
    const uint64_t chunk = std::strtoull(argv[a], nullptr, 10) * 1024;
    const std::string path = raw + ".chunk" + argv[a];
    bloomtool::FilterHeader h = mem.header;
    bloomtool::WriteOptions w;
    w.codec = bloomtool::PayloadCodec::kRawChunked;
    w.raw_chunk_bytes = chunk;
    const auto words = mem.filter->words();
    bloomtool::write_filter_file(path, h, words, words.size() * 8, w);
    std::vector<double> one_runs;
    for (int run = 0; run < 5; ++run) {
      t0 = Clock::now();
      const bloomtool::LoadedFilter f = bloomtool::load_filter(path);
      query_all(f, one);
      one_runs.push_back(seconds_since(t0));
    }
    const MappedTimes t = time_mapped(path, hashes);
    const uint64_t chunks = (h.payload_raw_bytes + chunk - 1) / chunk;
    std::printf("| %s KiB | %llu | %.2f | %.3f | %.2f |\n", argv[a],
                static_cast<unsigned long long>(chunks * 8), median(one_runs) * 1e3, t.first,
                t.first / mem_s);
    ::unlink(path.c_str());
    if (t.hits != mem_hits) {
      std::fprintf(stderr, "raw_query_bench: %s: answers differ\n", path.c_str());
      return 1;
    }
  }
  return 0;
} catch (const bloomtool::Error& e) {
  std::fprintf(stderr, "raw_query_bench: %s\n", e.what());
  return 2;
}
