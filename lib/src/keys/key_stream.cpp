// The hashed key stream: chooses between reading split ranges of regular files on every thread
// (plan_line_ranges + the range pipelines) and one reader feeding a worker pool (stdin, pipes,
// zstd, skipping bad lines), and hashes every key with the stream's seed on the thread that
// handles its batch.
#include "keys/key_stream.h"

namespace bloomtool {

namespace {

// With hashing off the batch's hashes are empty.
void hash_into(std::span<const std::string_view> keys, bool on, uint64_t seed,
               std::vector<uint64_t>& out) {
  out.resize(on ? keys.size() : 0);
  if (!on) return;
  hash_keys(keys, seed, out.data());
}

}  // namespace

KeyStream::KeyStream(std::vector<std::string> inputs, InputOptions input, KeyStreamOptions options)
    : inputs_(std::move(inputs)),
      input_(std::move(input)),
      threads_(options.threads != 0 ? options.threads : default_thread_count()),
      seed_(options.seed),
      split_files_(options.split_files),
      reader_(std::make_unique<KeyReader>(inputs_, input_)) {}

KeyStream::~KeyStream() = default;

uint64_t KeyStream::total_input_bytes() const {
  return reader_->total_input_bytes();
}

unsigned KeyStream::consume_threads() {
  // Several pieces per thread, taken in turn: a thread that falls behind (the first also reports
  // progress) holds up the end by one piece, not by half the file.
  if (!ranges_) {
    ranges_ = split_files_ && threads_ > 1
                  ? plan_line_ranges(inputs_, input_, threads_ * kRangesPerThread, kMinRangeBytes)
                  : std::vector<LineRange>{};
  }
  return ranges_->empty() ? batch_pipeline_workers(threads_) : threads_;
}

void KeyStream::prepare_reader() {
  if (threads_ <= 1) return;
  // Large batches that hold the reader's buffers: one hand-off every couple of megabytes, no
  // copy; zstd and gzip decompress on a thread of their own.
  reader_->lend_buffers(kPipelineBatchKeys, kPipelineBatchBytes);
  reader_->decompress_ahead(threads_);
}

InputStats KeyStream::for_each(const std::function<void(const HashedBatch&)>& consume) {
  consume_threads();
  const std::vector<LineRange>& ranges = *ranges_;
  if (!ranges.empty()) {
    std::vector<std::vector<uint64_t>> scratch(threads_);
    return run_range_pipeline(
        inputs_, ranges, input_, threads_,
        [&](KeyBatch& b, unsigned t) {
          hash_into(b.keys, hash_keys_, seed_, scratch[t]);
          consume(HashedBatch{b.keys, b.records, scratch[t], t});
          if (t == 0) tick();
        },
        &counters_);
  }
  prepare_reader();
  run_batch_pipeline(
      *reader_, threads_,
      [&](WorkBatch& b, unsigned t) {
        if (!b.hashed) hash_into(b.keys, hash_keys_, seed_, b.hashes);
        consume(HashedBatch{b.keys, b.records, b.hashes, t});
      },
      [&](WorkBatch&) {
        counters_.raw_bytes.store(reader_->raw_bytes_read(), std::memory_order_relaxed);
        counters_.keys.store(reader_->stats().keys, std::memory_order_relaxed);
        tick();
        return true;
      },
      [&](WorkBatch& b) {  // the workers are behind: the reader hashes
        hash_into(b.keys, hash_keys_, seed_, b.hashes);
        b.hashed = true;
      });
  counters_.raw_bytes.store(reader_->raw_bytes_read(), std::memory_order_relaxed);
  return reader_->stats();
}

InputStats KeyStream::for_each_ordered(
    const std::function<void(const HashedBatch&, std::string&)>& work,
    const std::function<bool(std::string&)>& emit) {
  // Many pieces, so that threads keep busy while the output follows the input order.
  const std::vector<LineRange> ranges =
      split_files_
          ? plan_line_ranges(inputs_, input_, threads_ > 1 ? 1u << 20 : 1, kOrderedPieceBytes)
          : std::vector<LineRange>{};
  if (!ranges.empty()) {
    std::vector<std::vector<uint64_t>> scratch(threads_);
    return run_ordered_range_pipeline(
        inputs_, ranges, input_, threads_, 2 * size_t{threads_},
        [&](KeyBatch& b, unsigned t, std::string& out) {
          hash_into(b.keys, hash_keys_, seed_, scratch[t]);
          work(HashedBatch{b.keys, b.records, scratch[t], t}, out);
        },
        [&](std::string& out) {
          tick();
          return emit(out);
        },
        &counters_);
  }
  prepare_reader();
  run_batch_pipeline(
      *reader_, threads_,
      [&](WorkBatch& b, unsigned t) {
        if (!b.hashed) hash_into(b.keys, hash_keys_, seed_, b.hashes);
        b.output.clear();
        work(HashedBatch{b.keys, b.records, b.hashes, t}, b.output);
      },
      [&](WorkBatch& b) {
        counters_.raw_bytes.store(reader_->raw_bytes_read(), std::memory_order_relaxed);
        counters_.keys.store(reader_->stats().keys, std::memory_order_relaxed);
        tick();
        return emit(b.output);
      },
      [&](WorkBatch& b) {
        hash_into(b.keys, hash_keys_, seed_, b.hashes);
        b.hashed = true;
      });
  counters_.raw_bytes.store(reader_->raw_bytes_read(), std::memory_order_relaxed);
  return reader_->stats();
}

}  // namespace bloomtool
