// Parallel processing of key batches, on one bounded ordered work queue (keys/work_queue.h). One
// reader (standard input, a pipe, a compressed input) hands its batches to worker threads without
// copying them (the batches hold the reader's buffers) and results come back in input order; or
// the threads read ranges of regular files themselves, results in no order or in input order.
// Output never depends on the thread count.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "keys/key_reader.h"

namespace bloomtool {

// A batch as the pipeline hands it around: views of keys and records (into the reader's buffers,
// which `held` keeps, or into its arena), plus per-batch scratch that work functions fill in.
struct WorkBatch {
  std::vector<std::string_view> keys;
  std::vector<std::string_view> records;
  std::vector<uint64_t> hashes;
  bool hashed = false;  // `hashes` filled already (by the reader, when the workers were behind)
  std::vector<uint8_t> flags;
  std::string output;  // what `work` has to say about the batch, for `consume`
  KeyBatch held;       // the reader's batch, whose buffers and arena the views point into
};

// How far the range pipelines have read, updated by their threads after every batch so that a
// progress display on another thread can follow a parallel read.
struct PipelineCounters {
  std::atomic<uint64_t> raw_bytes{0};  // input bytes consumed (compressed bytes for zstd)
  std::atomic<uint64_t> keys{0};       // keys handed to `work`
};

// Runs `work(batch, worker)` on every batch and then `consume` on the calling thread in input
// order; `consume` returns false to stop early. The calling thread reads: it counts as one of
// `threads`, so with threads > 1, threads - 1 workers run `work` concurrently on other batches
// (worker in [0, batch_pipeline_workers(threads))); with one thread everything runs on the
// calling thread. The reader lends its buffers to the batches (KeyReader::lend_buffers: set here,
// for batches of up to KeyBatch::kBatchSize keys, if the caller has not). `backlog(batch)`, if
// given, runs on the calling thread on a batch just read while earlier ones still wait for a worker
// (the reader takes a share of the work). Exceptions from the reader, `work` or `consume` propagate
// to the caller after the workers have stopped.
void run_batch_pipeline(KeyReader& reader, unsigned threads,
                        const std::function<void(WorkBatch&, unsigned)>& work,
                        const std::function<bool(WorkBatch&)>& consume,
                        const std::function<void(WorkBatch&)>& backlog = nullptr);
// The workers `work` runs on in run_batch_pipeline with `threads` threads (at least one).
unsigned batch_pipeline_workers(unsigned threads) noexcept;

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
