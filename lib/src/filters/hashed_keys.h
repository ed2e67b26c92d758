// What a builder reads: batches of hashed keys, from a KeyStream (files, standard input) or from
// keys held in memory (the public Builder, api/builder.cpp), with the facts the new file's header
// records about them.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <vector>

#include "base/word_buffer.h"

#include "keys/key_stream.h"

namespace bloomtool {

struct HashedKeys {
  unsigned threads = 1;  // batches arrive with HashedBatch::thread in [0, threads)
  uint64_t seed = kDefaultSeed;
  const InputOptions* input = nullptr;  // the input and normalisation options the header records
  // Hands every batch to `consume`, concurrently on up to `threads` threads, and returns the
  // statistics of what was read.
  std::function<InputStats(const std::function<void(const HashedBatch&)>&)> for_each;
  // The thread indices batches really use, when fewer than `threads` (KeyStream::consume_threads:
  // one reader feeding the others); 0: all of them. Per-thread state sized for this many is the
  // fastest.
  unsigned consume_threads = 0;
  unsigned consumers() const noexcept { return consume_threads != 0 ? consume_threads : threads; }
};

// The batches of `keys` (which must outlive the result).
inline HashedKeys hashed_keys(KeyStream& keys) {
  return {keys.threads(), keys.seed(), &keys.input_options(),
          [&keys](const std::function<void(const HashedBatch&)>& consume) {
            return keys.for_each(consume);
          },
          keys.consume_threads()};
}

// Every hash of `keys`, one buffer per thread (together the whole input, in an order that does
// not change a static filter): what the static builders construct from. Each buffer doubles by
// moving pages, so growing never copies the hashes.
struct CollectedHashes {
  std::vector<WordBuffer> parts;  // parts[t] holds used[t] hashes
  std::vector<size_t> used;
  InputStats input;  // what the key source read
};

inline CollectedHashes collect_hashes(const HashedKeys& keys) {
  CollectedHashes c;
  c.parts.resize(keys.threads);
  c.used.assign(keys.threads, 0);
  c.input = keys.for_each([&c](const HashedBatch& b) {
    WordBuffer& buf = c.parts[b.thread];
    size_t& used = c.used[b.thread];
    const size_t n = b.hashes.size();
    if (used + n > buf.size())
      buf.resize(std::max<size_t>({2 * buf.size(), used + n, size_t{1} << 18}));
    std::copy(b.hashes.begin(), b.hashes.end(), buf.data() + used);
    used += n;
  });
  return c;
}

}  // namespace bloomtool
