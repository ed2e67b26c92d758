#include "keys/batch_pipeline.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

#include "bloomtool/error.h"
#include "keys/hash.h"
#include "keys/key_reader.h"
#include "temp_dir.h"

using namespace bloomtool;
using test::TempDir;

namespace {

// "k<i>\n" for i in [first, first + n).
std::string numbered_lines(uint64_t first, uint64_t n, const std::string& eol = "\n") {
  std::string s;
  for (uint64_t i = first; i < first + n; ++i) s += "k" + std::to_string(i) + eol;
  return s;
}

// The number in a key "k<i>" (or "K<i>").
uint64_t key_number(std::string_view key) {
  return std::stoull(std::string(key.substr(1)));
}

struct Sequential {
  std::vector<std::string> keys;
  std::vector<std::string> records;
  InputStats stats;
  std::string error;  // the message of the error the read ended with, if any
};

Sequential read_sequentially(const std::vector<std::string>& inputs, const InputOptions& options) {
  Sequential s;
  KeyReader reader(inputs, options);
  KeyBatch batch;
  try {
    while (reader.next(batch)) {
      s.keys.insert(s.keys.end(), batch.keys.begin(), batch.keys.end());
      s.records.insert(s.records.end(), batch.records.begin(), batch.records.end());
    }
  } catch (const Error& e) {
    s.error = e.what();
  }
  s.stats = reader.stats();
  return s;
}

Sequential read_range(const LineRange& range, const InputOptions& options) {
  Sequential s;
  std::unique_ptr<KeyReader> reader = KeyReader::for_range(range, options);
  KeyBatch batch;
  while (reader->next(batch)) s.keys.insert(s.keys.end(), batch.keys.begin(), batch.keys.end());
  s.stats = reader->stats();
  return s;
}

// The number of the first key of each batch that run_batch_pipeline's reader (lending its
// buffers, batches of up to kBatchSize keys) hands out for `path`.
std::vector<uint64_t> batch_firsts(const std::string& path) {
  std::vector<uint64_t> firsts;
  KeyReader reader({path}, InputOptions{});
  reader.lend_buffers(KeyBatch::kBatchSize, 1);
  KeyBatch batch;
  while (reader.next(batch)) firsts.push_back(key_number(batch.keys.front()));
  return firsts;
}

void check_same_stats(const InputStats& got, const InputStats& want) {
  CHECK(got.lines == want.lines);
  CHECK(got.keys == want.keys);
  CHECK(got.empty_lines == want.empty_lines);
  CHECK(got.empty_keys == want.empty_keys);
  CHECK(got.bad_lines == want.bad_lines);
  CHECK(got.bytes == want.bytes);
}

void add(InputStats& total, const InputStats& s) {
  total.lines += s.lines;
  total.keys += s.keys;
  total.empty_lines += s.empty_lines;
  total.empty_keys += s.empty_keys;
  total.bad_lines += s.bad_lines;
  total.bytes += s.bytes;
}

void sleep_ms(int ms) {
  std::this_thread::sleep_for(std::chrono::milliseconds(ms));
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// run_batch_pipeline

TEST_CASE("batch pipeline: batches reach consume in input order, each key once", "[pipeline]") {
  TempDir dir;
  // 30,000 keys: eight or nine batches of up to 4,096 keys.
  const std::string path = dir.write("keys.txt", numbered_lines(0, 30000));
  const std::vector<uint64_t> firsts = batch_firsts(path);
  REQUIRE(firsts.size() >= 8);
  const std::thread::id caller = std::this_thread::get_id();
  for (const unsigned threads : {0u, 1u, 2u, 3u, 4u, 8u}) {
    CAPTURE(threads);
    KeyReader reader({path}, InputOptions{});
    std::atomic<int> work_on_caller{0};
    std::atomic<int> work_calls{0};
    int consume_off_caller = 0;
    std::vector<std::string> seen;
    size_t hash_mismatch = 0;
    run_batch_pipeline(
        reader, threads,
        [&](WorkBatch& b, unsigned) {
          ++work_calls;
          if (std::this_thread::get_id() == caller) ++work_on_caller;
          // The first batch finishes last, so later batches wait for it to be consumed.
          if (!b.keys.empty() && key_number(b.keys.front()) == 0 && threads > 1) sleep_ms(30);
          b.hashes.resize(b.keys.size());
          for (size_t i = 0; i < b.keys.size(); ++i) b.hashes[i] = hash_key(b.keys[i], 7);
        },
        [&](WorkBatch& b) {
          if (std::this_thread::get_id() != caller) ++consume_off_caller;
          REQUIRE(b.hashes.size() == b.keys.size());
          REQUIRE(b.records.size() == b.keys.size());
          for (size_t i = 0; i < b.keys.size(); ++i) {
            hash_mismatch += b.hashes[i] != hash_key(b.keys[i], 7);
            seen.emplace_back(b.keys[i]);
          }
          return true;
        });
    CHECK(consume_off_caller == 0);
    CHECK(hash_mismatch == 0);
    CHECK(work_calls == static_cast<int>(firsts.size()));
    if (threads > 1) CHECK(work_on_caller == 0);
    REQUIRE(seen.size() == 30000);
    size_t out_of_place = 0;
    for (uint64_t i = 0; i < seen.size(); ++i) out_of_place += seen[i] != "k" + std::to_string(i);
    CHECK(out_of_place == 0);
  }
}

TEST_CASE("batch pipeline: copied batches keep keys and records apart", "[pipeline]") {
  // NDJSON keys are slices of their records; lowercased keys live in the reader's arena. Workers
  // get copies of both, which must still read the same once the reader has moved on.
  TempDir dir;
  std::string ndjson;
  for (int i = 0; i < 9000; ++i) ndjson += "{\"id\":\"ID" + std::to_string(i) + "\",\"x\":1}\n";
  const std::string path = dir.write("keys.ndjson", ndjson);
  InputOptions plain_field;
  plain_field.format = InputFormat::kNdjson;
  plain_field.field = "/id";
  InputOptions lowered = plain_field;
  lowered.normaliser = Normaliser({NormStep{NormStepKind::kLowercase, ""}});
  for (const InputOptions& options : {plain_field, lowered}) {
    const Sequential want = read_sequentially({path}, options);
    REQUIRE(want.keys.size() == 9000);
    for (const unsigned threads : {1u, 3u}) {
      CAPTURE(threads, options.normaliser.empty());
      KeyReader reader({path}, options);
      std::vector<std::string> keys, records;
      run_batch_pipeline(
          reader, threads, [](WorkBatch&, unsigned) {},
          [&](WorkBatch& b) {
            keys.insert(keys.end(), b.keys.begin(), b.keys.end());
            records.insert(records.end(), b.records.begin(), b.records.end());
            return true;
          });
      CHECK(keys == want.keys);
      CHECK(records == want.records);
    }
  }
  CHECK(read_sequentially({path}, lowered).keys[5] == "id5");
}

TEST_CASE("batch pipeline: consume returning false stops the run", "[pipeline]") {
  TempDir dir;
  const std::string path = dir.write("keys.txt", numbered_lines(0, 100000));
  const std::vector<uint64_t> firsts = batch_firsts(path);
  REQUIRE(firsts.size() >= 25);
  for (const unsigned threads : {1u, 2u, 4u}) {
    CAPTURE(threads);
    KeyReader reader({path}, InputOptions{});
    int consumed = 0;
    std::atomic<int> work_calls{0};
    uint64_t last_key = 0;
    run_batch_pipeline(
        reader, threads, [&](WorkBatch&, unsigned) { ++work_calls; },
        [&](WorkBatch& b) {
          last_key = key_number(b.keys.back());
          return ++consumed < 3;
        });
    CHECK(consumed == 3);
    CHECK(last_key == firsts[3] - 1);
    // The reader runs at most 2 * threads batches ahead of consume.
    CHECK(work_calls <= 3 + 2 * static_cast<int>(threads));
    const int calls = work_calls;
    sleep_ms(5);
    CHECK(work_calls == calls);
  }
}

TEST_CASE("batch pipeline: an exception from work propagates and stops the workers", "[pipeline]") {
  TempDir dir;
  const std::string path = dir.write("keys.txt", numbered_lines(0, 200000));
  const std::vector<uint64_t> firsts = batch_firsts(path);
  REQUIRE(firsts.size() >= 49);
  for (const unsigned threads : {1u, 2u, 4u}) {
    CAPTURE(threads);
    KeyReader reader({path}, InputOptions{});
    std::atomic<int> work_calls{0};
    std::vector<uint64_t> consumed_firsts;
    REQUIRE_THROWS_WITH(run_batch_pipeline(
                            reader, threads,
                            [&](WorkBatch& b, unsigned) {
                              ++work_calls;
                              if (key_number(b.keys.front()) == firsts[2])
                                throw std::runtime_error("work failed on batch 2");
                            },
                            [&](WorkBatch& b) {
                              consumed_firsts.push_back(key_number(b.keys.front()));
                              return true;
                            }),
                        "work failed on batch 2");
    // What was consumed is a prefix of the batches before the failing one.
    CHECK(consumed_firsts.size() <= 2);
    for (size_t i = 0; i < consumed_firsts.size(); ++i) CHECK(consumed_firsts[i] == firsts[i]);
    if (threads == 1) CHECK(consumed_firsts.size() == 2);
    CHECK(work_calls <= 3 + 2 * static_cast<int>(threads));
    const int calls = work_calls;
    sleep_ms(5);
    CHECK(work_calls == calls);  // every worker has stopped
  }
}

TEST_CASE("batch pipeline: an exception from consume propagates and stops the workers",
          "[pipeline]") {
  TempDir dir;
  const std::string path = dir.write("keys.txt", numbered_lines(0, 200000));
  for (const unsigned threads : {1u, 3u}) {
    CAPTURE(threads);
    KeyReader reader({path}, InputOptions{});
    std::atomic<int> work_calls{0};
    int consumed = 0;
    try {
      run_batch_pipeline(
          reader, threads, [&](WorkBatch&, unsigned) { ++work_calls; },
          [&](WorkBatch&) -> bool {
            if (++consumed == 4) throw Error(ErrorCode::kIOError, "out: disk full");
            return true;
          });
      FAIL("no exception");
    } catch (const Error& e) {
      CHECK(e.code() == ErrorCode::kIOError);
      CHECK(std::string(e.what()) == "out: disk full");
    }
    CHECK(consumed == 4);
    CHECK(work_calls <= 4 + 2 * static_cast<int>(threads));
    const int calls = work_calls;
    sleep_ms(5);
    CHECK(work_calls == calls);
  }
}

TEST_CASE("batch pipeline: a reader error propagates after the batches before it", "[pipeline]") {
  TempDir dir;
  // Line 20,001 is too long for a 16-byte limit.
  const std::string path = dir.write(
      "keys.txt", numbered_lines(0, 20000) + std::string(40, 'x') + "\n" + numbered_lines(0, 10));
  InputOptions options;
  options.max_key_bytes = 16;
  const Sequential want = read_sequentially({path}, options);
  REQUIRE(want.error == path + ": line 20001: key longer than the maximum key length (16 bytes)");
  for (const unsigned threads : {1u, 2u, 4u}) {
    CAPTURE(threads);
    KeyReader reader({path}, options);
    std::vector<std::string> seen;
    try {
      run_batch_pipeline(
          reader, threads, [](WorkBatch&, unsigned) {},
          [&](WorkBatch& b) {
            seen.insert(seen.end(), b.keys.begin(), b.keys.end());
            return true;
          });
      FAIL("no exception");
    } catch (const Error& e) {
      CHECK(e.code() == ErrorCode::kLimitExceeded);
      CHECK(std::string(e.what()) == want.error);
    }
    // Batches read before the bad line may or may not have been consumed; those that were, were
    // consumed in order.
    CHECK(seen.size() <= 20000);
    CHECK(std::equal(seen.begin(), seen.end(), want.keys.begin()));
  }
}

TEST_CASE("batch pipeline: a pipe's keys are handed on before its writer writes more",
          "[pipeline]") {
  // The writer writes one key and then waits for it to be consumed before writing the rest: a
  // reader that gathered keys until more input came would wait for ever (the watchdog then
  // writes the rest, and the first batch holds every key).
  for (const unsigned threads : {1u, 2u}) {
    CAPTURE(threads);
    int fds[2];
    REQUIRE(::pipe(fds) == 0);
    REQUIRE(::write(fds[1], "k0\n", 3) == 3);
    std::mutex mu;
    bool rest_written = false;
    auto write_rest = [&] {
      std::lock_guard<std::mutex> lock(mu);
      if (rest_written) return;
      rest_written = true;
      const std::string rest = numbered_lines(1, 50000);
      for (size_t at = 0; at < rest.size();) {
        const ssize_t w = ::write(fds[1], rest.data() + at, rest.size() - at);
        if (w <= 0) break;
        at += static_cast<size_t>(w);
      }
      ::close(fds[1]);
    };
    std::atomic<bool> done{false};
    std::thread watchdog([&] {
      for (int i = 0; i < 1000 && !done; ++i) sleep_ms(10);
      write_rest();
    });
    KeyReader reader({"/dev/fd/" + std::to_string(fds[0])}, InputOptions{});
    reader.lend_buffers(32768, size_t{2} << 20);
    std::vector<size_t> sizes;
    uint64_t keys = 0;
    std::thread writer;
    run_batch_pipeline(
        reader, threads, [](WorkBatch&, unsigned) {},
        [&](WorkBatch& b) {
          sizes.push_back(b.keys.size());
          keys += b.keys.size();
          if (sizes.size() == 1) writer = std::thread(write_rest);
          return true;
        });
    done = true;
    watchdog.join();
    if (writer.joinable()) writer.join();
    ::close(fds[0]);
    REQUIRE_FALSE(sizes.empty());
    CHECK(sizes.front() == 1);
    CHECK(keys == 50001);
  }
}

// ---------------------------------------------------------------------------------------------
// plan_line_ranges

TEST_CASE("plan_line_ranges cuts regular files into whole lines", "[pipeline][ranges]") {
  TempDir dir;
  const std::string a = dir.write("a.txt", numbered_lines(0, 3000));
  const std::string b = dir.write("b.txt", numbered_lines(0, 50));  // small: one piece
  const std::string empty = dir.write("empty.txt", "");
  const std::string content_a = numbered_lines(0, 3000);
  const std::vector<LineRange> ranges = plan_line_ranges({a, b, empty}, InputOptions{}, 4, 1000);
  REQUIRE(ranges.size() == 6);
  for (size_t i = 0; i < 4; ++i) {
    CAPTURE(i);
    CHECK(ranges[i].path == a);
    CHECK(ranges[i].begin == (i == 0 ? 0 : ranges[i - 1].end));
    CHECK(ranges[i].end > ranges[i].begin);
    CHECK(content_a[ranges[i].end - 1] == '\n');
    // Each cut is just after the first line end at or past the nominal split point.
    if (i < 3) {
      const uint64_t nominal = content_a.size() / 4 * (i + 1);
      CHECK(ranges[i].end == content_a.find('\n', nominal) + 1);
    }
  }
  CHECK(ranges[3].end == content_a.size());
  CHECK(ranges[4].path == b);
  CHECK(ranges[4].begin == 0);
  CHECK(ranges[4].end == numbered_lines(0, 50).size());
  CHECK(ranges[5].path == empty);
  CHECK(ranges[5].begin == 0);
  CHECK(ranges[5].end == 0);

  // min_bytes bounds the number of pieces: 16,890 bytes in pieces of at least min_bytes.
  REQUIRE(content_a.size() == 16890);
  CHECK(plan_line_ranges({a}, InputOptions{}, 16, 4000).size() == 4);
  CHECK(plan_line_ranges({a}, InputOptions{}, 16, 8445).size() == 2);
  CHECK(plan_line_ranges({a}, InputOptions{}, 16, 8446).empty());  // one piece: sequential
}

TEST_CASE("plan_line_ranges leaves to the sequential reader what it cannot split",
          "[pipeline][ranges]") {
  TempDir dir;
  const std::string a = dir.write("a.txt", numbered_lines(0, 3000));
  const InputOptions plain;
  CHECK_FALSE(plan_line_ranges({a}, plain, 4, 100).empty());
  CHECK(plan_line_ranges({a}, plain, 1, 100).empty());
  CHECK(plan_line_ranges({a}, plain, 0, 100).empty());
  CHECK(plan_line_ranges({}, plain, 4, 100).empty());
  CHECK(plan_line_ranges({a, "-"}, plain, 4, 100).empty());
  CHECK(plan_line_ranges({a, dir.path() + "/missing.txt"}, plain, 4, 100).empty());
  CHECK(plan_line_ranges({a, dir.path()}, plain, 4, 100).empty());  // a directory
  const std::string zst = dir.write("z.txt", std::string("\x28\xB5\x2F\xFD", 4) + "rest");
  CHECK(plan_line_ranges({a, zst}, plain, 4, 100).empty());
  InputOptions skipping;
  skipping.skip_bad_lines = true;
  CHECK(plan_line_ranges({a}, skipping, 4, 100).empty());
  // A line of 300,000 bytes around the middle: no line end near the split point (the planner
  // looks in 64 KiB reads, so the line must be longer than that to be found too long).
  const std::string long_line = dir.write(
      "long.txt", numbered_lines(0, 10) + std::string(300000, 'x') + "\n" + numbered_lines(0, 10));
  InputOptions small;
  small.max_key_bytes = 100;
  CHECK(plan_line_ranges({long_line}, small, 2, 100).empty());
  // With a limit above the line's length, the cut goes after it.
  const std::vector<LineRange> r = plan_line_ranges({long_line}, InputOptions{}, 2, 100);
  REQUIRE(r.size() == 2);
  CHECK(r[0].end == numbered_lines(0, 10).size() + 300001);
}

// ---------------------------------------------------------------------------------------------
// run_range_pipeline

namespace {

struct RangeRun {
  std::vector<std::string> keys;  // sorted
  InputStats stats;
  bool thread_out_of_range = false;
};

RangeRun run_ranges(const std::vector<std::string>& inputs, const std::vector<LineRange>& ranges,
                    const InputOptions& options, unsigned threads) {
  RangeRun r;
  std::vector<std::vector<std::string>> per_thread(std::max(threads, 1u));
  std::atomic<bool> bad_thread{false};
  r.stats = run_range_pipeline(inputs, ranges, options, threads, [&](KeyBatch& b, unsigned t) {
    if (t >= per_thread.size()) {
      bad_thread = true;
      return;
    }
    per_thread[t].insert(per_thread[t].end(), b.keys.begin(), b.keys.end());
  });
  for (auto& v : per_thread) r.keys.insert(r.keys.end(), v.begin(), v.end());
  std::sort(r.keys.begin(), r.keys.end());
  r.thread_out_of_range = bad_thread;
  return r;
}

}  // namespace

TEST_CASE("range pipeline: the keys and statistics of a sequential read", "[pipeline][ranges]") {
  struct Case {
    const char* name;
    std::string content;
  };
  std::string mixed;  // CRLF and LF, empty lines, a blank CRLF line, no final newline
  for (int i = 0; i < 4000; ++i) {
    mixed += "m" + std::to_string(i) + (i % 3 == 0 ? "\r\n" : "\n");
    if (i % 97 == 0) mixed += "\n";
    if (i % 101 == 0) mixed += "\r\n";
  }
  mixed += "last-without-newline";
  const std::vector<Case> cases = {
      {"lf", numbered_lines(0, 5000)},
      {"crlf", numbered_lines(0, 5000, "\r\n")},
      {"no final newline", numbered_lines(0, 5000) + "tail"},
      {"bom", "\xEF\xBB\xBF" + numbered_lines(0, 5000)},
      {"bom, crlf, only one line", "\xEF\xBB\xBFsolo\r\n"},
      {"mixed", mixed},
      {"empty", ""},
      {"only newlines", std::string(3000, '\n')},
  };
  TempDir dir;
  for (const Case& c : cases) {
    // The same content twice, as two inputs: a BOM counts at the start of each file only.
    const std::vector<std::string> inputs = {dir.write("one.txt", c.content),
                                             dir.write("two.txt", c.content)};
    const Sequential want = read_sequentially(inputs, InputOptions{});
    REQUIRE(want.error.empty());
    std::vector<std::string> want_keys = want.keys;
    std::sort(want_keys.begin(), want_keys.end());
    for (const unsigned parts : {2u, 7u}) {
      const std::vector<LineRange> ranges = plan_line_ranges(inputs, InputOptions{}, parts, 64);
      if (c.content.size() >= 7 * 64) REQUIRE(ranges.size() == 2 * parts);
      if (ranges.empty()) continue;
      for (const unsigned threads : {1u, 3u}) {
        CAPTURE(c.name, parts, threads, ranges.size());
        const RangeRun got = run_ranges(inputs, ranges, InputOptions{}, threads);
        CHECK_FALSE(got.thread_out_of_range);
        CHECK(got.keys == want_keys);
        check_same_stats(got.stats, want.stats);
      }
    }
  }
}

TEST_CASE("range pipeline: one range per line reads the same as the whole file",
          "[pipeline][ranges]") {
  TempDir dir;
  const std::string content =
      "\xEF\xBB\xBF"
      "first\r\n\nsecond\n\r\nthird\r\nfourth";
  const std::string path = dir.write("f.txt", content);
  std::vector<LineRange> ranges;
  uint64_t begin = 0;
  for (uint64_t i = 0; i < content.size(); ++i) {
    if (content[i] == '\n') {
      ranges.push_back({path, begin, i + 1});
      begin = i + 1;
    }
  }
  ranges.push_back({path, begin, content.size()});
  REQUIRE(ranges.size() == 6);
  const Sequential want = read_sequentially({path}, InputOptions{});
  REQUIRE(want.keys == std::vector<std::string>{"first", "second", "third", "fourth"});
  for (const unsigned threads : {1u, 2u, 6u, 9u}) {
    CAPTURE(threads);
    const RangeRun got = run_ranges({path}, ranges, InputOptions{}, threads);
    CHECK(got.keys == std::vector<std::string>{"first", "fourth", "second", "third"});
    check_same_stats(got.stats, want.stats);
    CHECK(got.stats.empty_lines == 2);
    CHECK(got.stats.lines == 6);
  }
}

TEST_CASE("range pipeline: normalised and delimited inputs", "[pipeline][ranges]") {
  TempDir dir;
  std::string content;
  for (int i = 0; i < 6000; ++i)
    content += "row" + std::to_string(i) + "\t  Key" + std::to_string(i % 4000) + " \n";
  content += "short\n";  // too few columns
  const std::string path = dir.write("t.tsv", content);
  InputOptions options;
  options.format = InputFormat::kDelimited;
  options.column = 2;
  options.normaliser =
      Normaliser({NormStep{NormStepKind::kTrim, ""}, NormStep{NormStepKind::kLowercase, ""}});
  const Sequential want = read_sequentially({path}, options);
  // Without skip_bad_lines, the last line is an error; the message is the sequential one.
  REQUIRE(want.error.rfind(path + ": line 6001: ", 0) == 0);
  const std::vector<LineRange> ranges = plan_line_ranges({path}, options, 4, 1000);
  REQUIRE(ranges.size() == 4);
  for (const unsigned threads : {1u, 4u}) {
    CAPTURE(threads);
    try {
      run_ranges({path}, ranges, options, threads);
      FAIL("no exception");
    } catch (const Error& e) {
      CHECK(e.code() == ErrorCode::kBadInput);
      CHECK(std::string(e.what()) == want.error);
    }
  }
  // Without the bad line, the keys are the normalised ones.
  const std::string good = dir.write("g.tsv", content.substr(0, content.size() - 6));
  const Sequential want_good = read_sequentially({good}, options);
  REQUIRE(want_good.error.empty());
  REQUIRE(want_good.keys[0] == "key0");
  std::vector<std::string> sorted = want_good.keys;
  std::sort(sorted.begin(), sorted.end());
  const RangeRun got = run_ranges({good}, plan_line_ranges({good}, options, 3, 1000), options, 3);
  CHECK(got.keys == sorted);
  check_same_stats(got.stats, want_good.stats);
}

TEST_CASE("range pipeline: an input error is reported as a sequential read reports it",
          "[pipeline][ranges]") {
  TempDir dir;
  // Line 13,000 of 20,000 is over the limit, away from the split points at 25/50/75%.
  const std::string content =
      numbered_lines(0, 12999) + std::string(100, 'y') + "\n" + numbered_lines(13000, 7000);
  const std::string a = dir.write("a.txt", numbered_lines(0, 100));
  const std::string b = dir.write("b.txt", content);
  InputOptions options;
  options.max_key_bytes = 32;
  const Sequential want = read_sequentially({a, b}, options);
  REQUIRE(want.error == b + ": line 13000: key longer than the maximum key length (32 bytes)");
  const std::vector<LineRange> ranges = plan_line_ranges({a, b}, options, 4, 64);
  REQUIRE(ranges.size() == 8);
  for (const unsigned threads : {1u, 2u, 3u, 4u}) {
    CAPTURE(threads);
    try {
      run_ranges({a, b}, ranges, options, threads);
      FAIL("no exception");
    } catch (const Error& e) {
      CHECK(e.code() == ErrorCode::kLimitExceeded);
      CHECK(std::string(e.what()) == want.error);
    }
  }
  // Read alone, the bad range numbers lines from its start: the pipeline does not.
  const auto bad = std::find_if(ranges.begin(), ranges.end(), [&](const LineRange& r) {
    return r.path == b && r.begin < content.find('y') && content.find('y') < r.end;
  });
  REQUIRE(bad != ranges.end());
  REQUIRE(bad->begin != 0);
  CHECK_THROWS_WITH(read_range(*bad, options), Catch::Matchers::StartsWith(b + ": line ") &&
                                                   !Catch::Matchers::Contains("line 13000:"));
}

TEST_CASE("a range reader restarted on another range reads it as a fresh reader does",
          "[pipeline][ranges]") {
  TempDir dir;
  // Range 0: a 3 MiB line (the buffer grows for it), then lines; range 1 ends on a line over the
  // limit; range 2 is plain, and starts without a line end before it in the reader's buffer.
  const std::string long_line = std::string(3 << 20, 'x') + "\n";
  const std::string a = dir.write("a.txt", long_line + numbered_lines(0, 5000));
  const std::string b = dir.write("b.txt", numbered_lines(0, 100) + std::string(100, 'y') + "\n");
  const std::string c = dir.write("c.txt",
                                  "\xEF\xBB\xBF"
                                  "first\r\nsecond");
  InputOptions wide;
  wide.max_key_bytes = 4 << 20;
  InputOptions narrow;
  narrow.max_key_bytes = 32;
  const LineRange ra{a, long_line.size() - 10, long_line.size() + 4000};  // starts mid-line
  const LineRange rb{b, 0, numbered_lines(0, 100).size() + 101};
  const LineRange rc{c, 0, 16};

  std::unique_ptr<KeyReader> reader = KeyReader::for_range({a, 0, ra.end}, wide);
  KeyBatch batch;
  uint64_t keys = 0;
  while (reader->next(batch)) keys += batch.keys.size();
  CHECK(keys == read_range({a, 0, ra.end}, wide).stats.keys);
  // Each restart reads what a fresh reader for that range reads, stats and messages included.
  for (const LineRange& r : {ra, rc}) {
    CAPTURE(r.path, r.begin);
    reader->restart(r);
    Sequential got;
    while (reader->next(batch))
      got.keys.insert(got.keys.end(), batch.keys.begin(), batch.keys.end());
    got.stats = reader->stats();
    const Sequential want = read_range(r, wide);
    CHECK(got.keys == want.keys);
    check_same_stats(got.stats, want.stats);
  }
  std::unique_ptr<KeyReader> small = KeyReader::for_range(rb, narrow);
  CHECK_THROWS_WITH(
      [&] {
        while (small->next(batch)) {
        }
      }(),
      b + ": line 101: key longer than the maximum key length (32 bytes)");
  small->restart(rb);  // after an error, from the start again: the same keys, the same error
  uint64_t before_error = 0;
  CHECK_THROWS_WITH(
      [&] {
        while (small->next(batch)) before_error += batch.keys.size();
      }(),
      b + ": line 101: key longer than the maximum key length (32 bytes)");
  small->restart(rc);
  Sequential got;
  while (small->next(batch)) got.keys.insert(got.keys.end(), batch.keys.begin(), batch.keys.end());
  CHECK(got.keys == std::vector<std::string>{"first", "second"});
  CHECK(small->stats().lines == 2);
}

TEST_CASE("range pipeline: an exception from work propagates and stops the threads",
          "[pipeline][ranges]") {
  TempDir dir;
  const std::string path = dir.write("keys.txt", numbered_lines(0, 40000));
  const std::vector<LineRange> ranges = plan_line_ranges({path}, InputOptions{}, 40, 1000);
  REQUIRE(ranges.size() == 40);
  for (const unsigned threads : {1u, 4u}) {
    CAPTURE(threads);
    std::atomic<int> calls{0};
    REQUIRE_THROWS_WITH(run_range_pipeline({path}, ranges, InputOptions{}, threads,
                                           [&](KeyBatch&, unsigned) {
                                             if (calls++ == 0) throw std::runtime_error("boom");
                                             sleep_ms(10);
                                           }),
                        "boom");
    // Each other thread finishes at most the batch it was in, of 40 ranges.
    CHECK(calls <= 2 * static_cast<int>(threads));
  }
}

TEST_CASE("range pipeline: no ranges and zero threads", "[pipeline][ranges]") {
  TempDir dir;
  const std::string path = dir.write("keys.txt", numbered_lines(0, 3000));
  int calls = 0;
  const InputStats none =
      run_range_pipeline({path}, {}, InputOptions{}, 4, [&](KeyBatch&, unsigned) { ++calls; });
  CHECK(calls == 0);
  CHECK(none.lines == 0);
  CHECK(none.keys == 0);
  CHECK(none.bytes == 0);
  const std::vector<LineRange> ranges = plan_line_ranges({path}, InputOptions{}, 3, 64);
  REQUIRE(ranges.size() == 3);
  const Sequential want = read_sequentially({path}, InputOptions{});
  const RangeRun got = run_ranges({path}, ranges, InputOptions{}, 0);  // taken as one thread
  CHECK(got.keys.size() == 3000);
  check_same_stats(got.stats, want.stats);
}

// ---------------------------------------------------------------------------------------------
// run_ordered_range_pipeline

namespace {

// The range index of each key "k<i>": ranges from plan_line_ranges over numbered_lines(0, n).
std::vector<size_t> range_of_keys(const std::string& content, const std::vector<LineRange>& ranges,
                                  uint64_t n) {
  std::vector<size_t> out(n);
  uint64_t line = 0;
  size_t r = 0;
  for (uint64_t pos = 0; pos < content.size(); pos = content.find('\n', pos) + 1) {
    while (pos >= ranges[r].end) ++r;
    out[line++] = r;
  }
  return out;
}

}  // namespace

TEST_CASE("ordered range pipeline: output in input order for any threads and window",
          "[pipeline][ranges]") {
  TempDir dir;
  const uint64_t n = 20000;
  const std::string content = numbered_lines(0, n);
  const std::string path = dir.write("keys.txt", content);
  const std::vector<LineRange> ranges = plan_line_ranges({path}, InputOptions{}, 24, 1000);
  REQUIRE(ranges.size() == 24);
  const std::vector<size_t> range_of = range_of_keys(content, ranges, n);
  const Sequential want = read_sequentially({path}, InputOptions{});
  std::string want_out;
  for (const std::string& k : want.keys) want_out += k + "\n";
  for (const unsigned threads : {1u, 2u, 3u, 4u}) {
    for (const size_t window : {size_t{0}, size_t{1}, size_t{3}, size_t{64}}) {
      CAPTURE(threads, window);
      std::string out;
      std::atomic<size_t> highest_started{0};
      size_t emitted = 0;
      size_t beyond_window = 0;
      std::atomic<bool> bad_thread{false};
      const InputStats stats = run_ordered_range_pipeline(
          {path}, ranges, InputOptions{}, threads, window,
          [&](KeyBatch& b, unsigned t, std::string& piece) {
            if (t >= threads) bad_thread = true;
            const size_t r = range_of[key_number(b.keys.front())];
            size_t seen = highest_started.load();
            while (r > seen && !highest_started.compare_exchange_weak(seen, r)) {
            }
            // Ranges finish out of order: the even ones are slow.
            if (r % 2 == 0 && threads > 1) sleep_ms(1);
            for (const std::string_view k : b.keys) {
              piece += k;
              piece += '\n';
            }
          },
          [&](std::string& piece) {
            // While range i is emitted, no range past i + window - 1 has been started.
            beyond_window += highest_started.load() >= emitted + std::max<size_t>(window, 1);
            ++emitted;
            out += piece;
            return true;
          });
      CHECK_FALSE(bad_thread);
      CHECK(emitted == ranges.size());
      CHECK(beyond_window == 0);
      CHECK(out == want_out);
      check_same_stats(stats, want.stats);
    }
  }
}

TEST_CASE("ordered range pipeline: emit returning false stops after that range",
          "[pipeline][ranges]") {
  TempDir dir;
  const std::string content = numbered_lines(0, 20000);
  const std::string path = dir.write("keys.txt", content);
  // The last range holds a line over the limit: it is never reached.
  InputOptions options;
  options.max_key_bytes = 16;
  const std::string bad_path = dir.write("bad.txt", content + std::string(20, 'z') + "\n");
  const std::vector<LineRange> ranges = plan_line_ranges({bad_path}, options, 10, 1000);
  REQUIRE(ranges.size() == 10);
  InputStats want;
  std::string want_out;
  for (size_t i = 0; i < 3; ++i) {
    const Sequential s = read_range(ranges[i], options);
    add(want, s.stats);
    for (const std::string& k : s.keys) want_out += k + ",";
  }
  for (const unsigned threads : {1u, 2u, 4u}) {
    CAPTURE(threads);
    std::atomic<int> work_calls{0};
    std::string out;
    int emits = 0;
    const InputStats stats = run_ordered_range_pipeline(
        {bad_path}, ranges, options, threads, 2,
        [&](KeyBatch& b, unsigned, std::string& piece) {
          ++work_calls;
          for (const std::string_view k : b.keys) {
            piece += k;
            piece += ',';
          }
        },
        [&](std::string& piece) {
          out += piece;
          return ++emits < 3;
        });
    CHECK(emits == 3);
    CHECK(out == want_out);
    check_same_stats(stats, want);
    const int calls = work_calls;
    sleep_ms(5);
    CHECK(work_calls == calls);
  }
}

TEST_CASE("ordered range pipeline: an exception from emit or work propagates",
          "[pipeline][ranges]") {
  TempDir dir;
  const std::string path = dir.write("keys.txt", numbered_lines(0, 20000));
  const std::vector<LineRange> ranges = plan_line_ranges({path}, InputOptions{}, 10, 1000);
  REQUIRE(ranges.size() == 10);
  for (const unsigned threads : {1u, 3u}) {
    CAPTURE(threads);
    std::atomic<int> work_calls{0};
    int emits = 0;
    try {
      run_ordered_range_pipeline(
          {path}, ranges, InputOptions{}, threads, 2,
          [&](KeyBatch&, unsigned, std::string& piece) {
            ++work_calls;
            piece += "x";
          },
          [&](std::string&) -> bool {
            if (++emits == 2) throw Error(ErrorCode::kIOError, "<stdout>: broken pipe");
            return true;
          });
      FAIL("no exception");
    } catch (const Error& e) {
      CHECK(e.code() == ErrorCode::kIOError);
      CHECK(std::string(e.what()) == "<stdout>: broken pipe");
    }
    CHECK(emits == 2);
    const int calls = work_calls;
    sleep_ms(5);
    CHECK(work_calls == calls);

    // An exception from work that is not an input error reaches the caller as it is.
    int emitted = 0;
    REQUIRE_THROWS_WITH(run_ordered_range_pipeline(
                            {path}, ranges, InputOptions{}, threads, 2,
                            [&](KeyBatch& b, unsigned, std::string&) {
                              if (key_number(b.keys.front()) >= 10000)
                                throw std::runtime_error("work failed");
                            },
                            [&](std::string&) {
                              ++emitted;
                              return true;
                            }),
                        "work failed");
    CHECK(emitted < 10);
  }
}

TEST_CASE("ordered range pipeline: an input error comes after every range before it",
          "[pipeline][ranges]") {
  TempDir dir;
  // Line 15,001 is over the limit.
  const std::string content =
      numbered_lines(0, 15000) + std::string(50, 'q') + "\n" + numbered_lines(15000, 5000);
  const std::string path = dir.write("keys.txt", content);
  InputOptions options;
  options.max_key_bytes = 16;
  const Sequential want = read_sequentially({path}, options);
  REQUIRE(want.error == path + ": line 15001: key longer than the maximum key length (16 bytes)");
  const std::vector<LineRange> ranges = plan_line_ranges({path}, options, 10, 1000);
  REQUIRE(ranges.size() == 10);
  const uint64_t bad_at = content.find('q');
  size_t bad_range = 0;
  while (!(ranges[bad_range].begin <= bad_at && bad_at < ranges[bad_range].end)) ++bad_range;
  REQUIRE(bad_range > 0);
  for (const unsigned threads : {1u, 2u, 4u}) {
    for (const size_t window : {size_t{1}, size_t{8}}) {
      CAPTURE(threads, window);
      std::string out;
      size_t emits = 0;
      try {
        run_ordered_range_pipeline(
            {path}, ranges, options, threads, window,
            [&](KeyBatch& b, unsigned, std::string& piece) {
              for (const std::string_view k : b.keys) {
                piece += k;
                piece += '\n';
              }
            },
            [&](std::string& piece) {
              ++emits;
              out += piece;
              return true;
            });
        FAIL("no exception");
      } catch (const Error& e) {
        CHECK(e.code() == ErrorCode::kLimitExceeded);
        CHECK(std::string(e.what()) == want.error);
      }
      CHECK(emits == bad_range);
      CHECK(out == content.substr(0, ranges[bad_range].begin));
    }
  }
  // zero threads is one thread, not a hang.
  size_t emits = 0;
  const std::string good = dir.write("good.txt", numbered_lines(0, 5000));
  const std::vector<LineRange> good_ranges = plan_line_ranges({good}, options, 3, 1000);
  REQUIRE(good_ranges.size() == 3);
  run_ordered_range_pipeline(
      {good}, good_ranges, options, 0, 1, [](KeyBatch&, unsigned, std::string&) {},
      [&](std::string&) { return ++emits > 0; });
  CHECK(emits == 3);
}
