// KeyStream hands out each key with hash_key(key, seed), on every path: one thread, a reader
// feeding workers (whose batch slots are reused), threads reading ranges, in order or not.
#include "keys/key_stream.h"

#include <catch2/catch.hpp>

#include <fstream>
#include <mutex>
#include <string>
#include <vector>

#include "keys/hash.h"
#include "keys/key_reader.h"
#include "temp_dir.h"

using namespace bloomtool;
using test::TempDir;

namespace {

// What a read handed out: every key with its hash, and the number of batches whose hashes were
// missing or wrong.
struct Seen {
  uint64_t keys = 0;
  uint64_t wrong = 0;
  uint64_t unhashed = 0;
};

void check_batch(const HashedBatch& b, uint64_t seed, std::mutex& mu, Seen& seen) {
  uint64_t wrong = 0;
  for (size_t i = 0; i < b.hashes.size() && i < b.keys.size(); ++i)
    wrong += b.hashes[i] != hash_key(b.keys[i], seed);
  std::lock_guard lock(mu);
  seen.keys += b.keys.size();
  seen.wrong += wrong;
  seen.unhashed += b.hashes.size() != b.keys.size();
}

}  // namespace

TEST_CASE("key stream: every key comes with its own hash, for any threads and reading",
          "[pipeline][stream]") {
  TempDir dir;
  // 400,000 lines (about 5 MB): split into ranges when allowed; whole batches of 4096 keys, so a
  // worker reusing a batch slot sees the same key count as the slot's previous batch.
  const std::string lines = dir.path() + "/keys.txt";
  const std::string json = dir.path() + "/keys.ndjson";
  {
    std::ofstream l(lines), j(json);
    for (int i = 0; i < 400000; ++i) {
      l << "Key-" << i << "\n";
      j << "{\"id\":\"Key-" << i << "\"}\n";
    }
  }
  InputOptions plain;
  InputOptions lower;
  lower.normaliser = Normaliser::parse("lowercase", "test");
  InputOptions ndjson;
  ndjson.format = InputFormat::kNdjson;
  ndjson.field = "/id";
  const uint64_t seed = 0x1234567890ABCDEFull;
  for (const auto& [path, input, name] :
       {std::tuple{lines, plain, "lines"}, std::tuple{lines, lower, "lowercase"},
        std::tuple{json, ndjson, "ndjson"}}) {
    for (const unsigned threads : {1u, 2u, 3u}) {
      for (const bool split : {true, false}) {
        CAPTURE(name, threads, split);
        KeyStreamOptions o;
        o.threads = threads;
        o.seed = seed;
        o.split_files = split;
        std::mutex mu;
        {
          KeyStream stream({path}, input, o);
          Seen seen;
          stream.for_each([&](const HashedBatch& b) { check_batch(b, seed, mu, seen); });
          CHECK(seen.keys == 400000);
          CHECK(seen.wrong == 0);
          CHECK(seen.unhashed == 0);
        }
        {
          KeyStream stream({path}, input, o);
          Seen seen;
          stream.for_each_ordered(
              [&](const HashedBatch& b, std::string&) { check_batch(b, seed, mu, seen); },
              [](std::string&) { return true; });
          CHECK(seen.keys == 400000);
          CHECK(seen.wrong == 0);
          CHECK(seen.unhashed == 0);
        }
        {
          KeyStream stream({path}, input, o);
          stream.set_hash_keys(false);
          uint64_t keys = 0, hashes = 0;
          stream.for_each([&](const HashedBatch& b) {
            std::lock_guard lock(mu);
            keys += b.keys.size();
            hashes += b.hashes.size();
          });
          CHECK(keys == 400000);
          CHECK(hashes == 0);
        }
      }
    }
  }
}
