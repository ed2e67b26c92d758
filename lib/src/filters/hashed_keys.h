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

}  // namespace bloomtool
