// The one way keys reach a filter: read (files split at line ends and read by all threads, or one
// reader for stdin, pipes and compressed input), normalised, hashed with the filter's seed, and
// handed to a consumer in batches of keys, records and hashes. Builders, query and measurements
// all read through it, so the choice of reading path lives in one place.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "keys/batch_pipeline.h"
#include "keys/hash.h"
#include "keys/key_reader.h"

namespace bloomtool {

// Regular files of at least twice this size are split at line ends and read by all threads.
inline constexpr uint64_t kMinRangeBytes = uint64_t{1} << 20;
// Batches one reader hands to the workers (a pipe, a compressed input): up to this many keys,
// holding about this many bytes of the reader's buffers.
inline constexpr size_t kPipelineBatchKeys = 32768;
inline constexpr size_t kPipelineBatchBytes = size_t{2} << 20;
// Pieces per thread an unordered stream splits such files into (at most: none below the minimum).
inline constexpr unsigned kRangesPerThread = 64;
// Pieces that ordered streams split regular files into (results stay in input order, so threads
// read a few pieces ahead of the output): files of twice this size and more are split.
inline constexpr uint64_t kOrderedPieceBytes = uint64_t{4} << 20;

// A batch of keys with their hashes. Views stay valid only during the call that receives them.
struct HashedBatch {
  std::span<const std::string_view> keys;
  std::span<const std::string_view> records;  // the input record each key came from
  std::span<const uint64_t> hashes;           // hash_key(keys[i], seed); empty if turned off
  unsigned thread = 0;                        // in [0, threads): for per-thread state
};

struct KeyStreamOptions {
  unsigned threads = 0;  // 0: default_thread_count()
  uint64_t seed = kDefaultSeed;
  // Allow reading one regular file with several threads (false: always one reader).
  bool split_files = true;
};

class KeyStream {
 public:
  // Reads `inputs` ("-" or none: standard input) with `input`; throws kInvalidArgument on
  // inconsistent input options.
  KeyStream(std::vector<std::string> inputs, InputOptions input, KeyStreamOptions options = {});
  ~KeyStream();
  KeyStream(const KeyStream&) = delete;
  KeyStream& operator=(const KeyStream&) = delete;

  // Hands every batch to `consume`, concurrently on up to threads() threads and in no particular
  // order (a Bloom insert, collecting hashes for a set). Returns the statistics of the inputs.
  // Input errors are reported as a sequential read reports them (first in input order).
  InputStats for_each(const std::function<void(const HashedBatch&)>& consume);

  // With results in input order: `work(batch, out)` appends what it has to say about a batch to
  // `out` (concurrently on several threads), and `emit(out)` runs on the calling thread for each
  // piece of output in input order; it returns false to stop early.
  InputStats for_each_ordered(const std::function<void(const HashedBatch&, std::string&)>& work,
                              const std::function<bool(std::string&)>& emit);

  // Whether batches carry the keys' hashes (on by default). A consumer that only looks at the
  // key bytes (a peer's hash scheme) turns them off: HashedBatch::hashes is then empty.
  void set_hash_keys(bool on) noexcept { hash_keys_ = on; }

  // Called on the calling thread every few batches while a read is on (a progress display).
  void on_batch(std::function<void()> tick) { tick_ = std::move(tick); }
  // Bytes and keys read so far, updated by every reading thread.
  const PipelineCounters& counters() const noexcept { return counters_; }
  // The summed size of the inputs when every one is a regular file, else 0.
  uint64_t total_input_bytes() const;

  unsigned threads() const noexcept { return threads_; }
  // The threads for_each's `consume` runs on (HashedBatch::thread in [0, this)): threads() when
  // regular files are split between them, one fewer (at least one) when one reader feeds them (a
  // pipe, a terminal, a compressed input), since the reader keeps a core busy. Per-thread state
  // sized for this many is the fastest (one Bloom inserter instead of two splitting the array).
  unsigned consume_threads();
  uint64_t seed() const noexcept { return seed_; }
  const InputOptions& input_options() const noexcept { return input_; }
  const std::vector<std::string>& inputs() const noexcept { return inputs_; }

 private:
  void tick() {
    if (tick_) tick_();
  }
  void prepare_reader();
  std::vector<std::string> inputs_;
  InputOptions input_;
  unsigned threads_;
  uint64_t seed_;
  bool split_files_;
  bool hash_keys_ = true;
  std::unique_ptr<KeyReader> reader_;
  std::optional<std::vector<LineRange>> ranges_;  // for_each's plan, made once
  PipelineCounters counters_;
  std::function<void()> tick_;
};

}  // namespace bloomtool
