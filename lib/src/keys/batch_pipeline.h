// Parallel processing of key batches with results delivered in input order. The calling thread
// reads batches from a KeyReader; with one thread it processes them in place (no copies); with
// more, each batch is copied into an owned buffer, handed to a worker pool, and consumed in input
// order on the calling thread — so output never depends on the thread count.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "keys/key_reader.h"

namespace bloomtool {

// A batch as the pipeline hands it around: views of keys and records (into the reader's buffer or
// into `storage`), plus per-batch scratch that work functions fill in.
struct WorkBatch {
  std::vector<std::string_view> keys;
  std::vector<std::string_view> records;
  std::vector<uint64_t> hashes;
  std::vector<uint8_t> flags;
  std::string output;  // what `work` has to say about the batch, for `consume`
  std::string storage;
};

// How far the range pipelines have read, updated by their threads after every batch so that a
// progress display on another thread can follow a parallel read.
struct PipelineCounters {
  std::atomic<uint64_t> raw_bytes{0};  // input bytes consumed (compressed bytes for zstd)
  std::atomic<uint64_t> keys{0};       // keys handed to `work`
};

// Runs `work(batch, worker)` on every batch (on worker threads when threads > 1, concurrently
// with other batches; worker in [0, threads)) and then `consume` on the calling thread in input
// order. `consume` returns false to stop early. Exceptions from the reader, `work` or `consume`
// propagate to the caller after the workers have stopped.
void run_batch_pipeline(KeyReader& reader, unsigned threads,
                        const std::function<void(WorkBatch&, unsigned)>& work,
                        const std::function<bool(WorkBatch&)>& consume);

// Reads `ranges` (from plan_line_ranges(inputs, ...)) on up to `threads` threads, the calling
// thread included: each thread takes the next unread range, reads it with its own KeyReader and
// runs `work(batch, thread)` on every batch, thread in [0, threads). Batches reach `work` in no
// particular order, so it must not care (a Bloom insert, collecting hashes for a set). Returns the
// inputs' statistics summed. On an error, every thread stops, and the inputs are read again
// sequentially so that an input error is reported exactly as run_batch_pipeline would report it.
// `counters`, when given, grow by every batch read.
InputStats run_range_pipeline(const std::vector<std::string>& inputs,
                              const std::vector<LineRange>& ranges, const InputOptions& options,
                              unsigned threads,
                              const std::function<void(KeyBatch&, unsigned)>& work,
                              PipelineCounters* counters = nullptr);

// Like run_range_pipeline, with results in input order: `work(batch, thread, out)` appends what
// it has to say to `out`, one string per range, and `emit(out)` then runs on the calling thread
// for each range in input order; it returns false to stop early (the ranges after it are not
// emitted). Workers read at most `window` ranges ahead of the one being emitted, so memory stays
// bounded by the window times a range and its output. Errors: an input error is reported as a
// sequential read reports it, and only if every range before it was emitted; an exception from
// `emit` stops the workers and propagates.
InputStats run_ordered_range_pipeline(
    const std::vector<std::string>& inputs, const std::vector<LineRange>& ranges,
    const InputOptions& options, unsigned threads, size_t window,
    const std::function<void(KeyBatch&, unsigned, std::string&)>& work,
    const std::function<bool(std::string&)>& emit, PipelineCounters* counters = nullptr);

// The default thread count: the number of online CPUs (at least 1).
unsigned default_thread_count() noexcept;

}  // namespace bloomtool
