// The parallel pipelines over one bounded ordered work queue (keys/work_queue.h): one reader
// lending its buffers to the workers (no copy of the keys), or ranges of files read by the
// workers themselves.
#include "keys/batch_pipeline.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>

#include "base/run_threads.h"
#include "bloomtool/error.h"
#include "keys/work_queue.h"

namespace bloomtool {

namespace {

// Starts a thread; a thread the system will not give (a process limit, no memory) becomes a
// kLimitExceeded error saying how many were wanted.
template <typename F>
std::thread start_thread(F&& f, unsigned wanted) {
  try {
    return std::thread(std::forward<F>(f));
  } catch (const std::system_error& e) {
    throw Error(ErrorCode::kLimitExceeded, "cannot start " + std::to_string(wanted) + " threads: " +
                                               e.code().message() + " (fewer threads may work)");
  }
}

void add_stats(InputStats& total, const InputStats& s) noexcept {
  total.lines += s.lines;
  total.keys += s.keys;
  total.empty_lines += s.empty_lines;
  total.empty_keys += s.empty_keys;
  total.bad_lines += s.bad_lines;
  total.bytes += s.bytes;
}

// Adds a batch and the raw bytes read since the last call (`counted` so far) to `counters`.
void count_batch(PipelineCounters* counters, const KeyReader& reader, size_t keys,
                 uint64_t& counted) noexcept {
  if (counters == nullptr) return;
  const uint64_t raw = reader.raw_bytes_read();
  counters->raw_bytes.fetch_add(raw - counted, std::memory_order_relaxed);
  counters->keys.fetch_add(keys, std::memory_order_relaxed);
  counted = raw;
}

// A range reader failed: read the inputs again in order, so that an input error is reported
// exactly as a sequential read reports it (line numbers from the start of the file, the first
// error in input order); if that read goes through, `error` was not an input error (or the input
// changed), and it is rethrown.
[[noreturn]] void rethrow_in_input_order(const std::vector<std::string>& inputs,
                                         const InputOptions& options, std::exception_ptr error) {
  KeyReader reader(inputs, options);
  KeyBatch batch;
  while (reader.next(batch)) {
  }
  std::rethrow_exception(error);
}

}  // namespace

unsigned default_thread_count() noexcept {
  const unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : n;
}

unsigned batch_pipeline_workers(unsigned threads) noexcept {
  return threads <= 1 ? 1 : threads - 1;
}

void run_batch_pipeline(KeyReader& reader, unsigned threads,
                        const std::function<void(WorkBatch&, unsigned)>& work,
                        const std::function<bool(WorkBatch&)>& consume,
                        const std::function<void(WorkBatch&)>& backlog) {
  // The reader is one of the threads: on a pipe or a compressed input it keeps a core busy.
  const unsigned workers = threads <= 1 ? 0 : threads - 1;
  if (!reader.lends_buffers()) reader.lend_buffers(KeyBatch::kBatchSize, 1);
  OrderedWorkQueue<WorkBatch> queue(workers, std::min<size_t>(2 * size_t{threads}, 16));
  queue.run(
      [&](WorkBatch& b) {
        b.held.keys.swap(b.keys);
        b.held.records.swap(b.records);
        const bool more = reader.next(b.held);
        b.keys.swap(b.held.keys);
        b.records.swap(b.held.records);
        b.hashed = false;
        return more;
      },
      work, consume,
      [&](WorkBatch& b) {
        if (backlog) backlog(b);
      },
      [&] { return reader.input_ready(); });
}

InputStats run_range_pipeline(const std::vector<std::string>& inputs,
                              const std::vector<LineRange>& ranges, const InputOptions& options,
                              unsigned threads,
                              const std::function<void(KeyBatch&, unsigned)>& work,
                              PipelineCounters* counters) {
  std::mutex mu;
  std::exception_ptr error;
  std::atomic<size_t> next{0};
  std::atomic<bool> stop{false};
  std::vector<InputStats> stats(ranges.size());
  auto run = [&](unsigned thread) {
    KeyBatch batch;
    std::unique_ptr<KeyReader> reader;  // one per thread, its buffer reused range after range
    try {
      for (size_t i = next++; i < ranges.size() && !stop; i = next++) {
        if (reader) {
          reader->restart(ranges[i]);
        } else {
          reader = KeyReader::for_range(ranges[i], options);
        }
        uint64_t counted = 0;
        while (!stop && reader->next(batch)) {
          count_batch(counters, *reader, batch.keys.size(), counted);
          work(batch, thread);
        }
        count_batch(counters, *reader, 0, counted);
        stats[i] = reader->stats();
      }
    } catch (...) {
      std::lock_guard<std::mutex> lock(mu);
      if (!error) error = std::current_exception();
      stop = true;
    }
  };
  std::vector<std::thread> pool;
  // The calling thread is one of them; no ranges (or no threads asked for) needs no helper.
  const unsigned helpers =
      ranges.empty()
          ? 0
          : std::min<unsigned>(std::max(threads, 1u), static_cast<unsigned>(ranges.size())) - 1;
  for (unsigned t = 1; t <= helpers; ++t) {
    try {
      pool.push_back(start_thread(
          [&run, t] {
            detail::block_termination_signals();
            run(t);
          },
          threads));
    } catch (...) {  // no thread to be had: stop the ones started, then report it
      stop = true;
      for (std::thread& p : pool) p.join();
      throw;
    }
  }
  run(0);
  for (std::thread& t : pool) t.join();
  if (error) {
    // Line numbers count from the start of a range, and which range fails first is a race.
    rethrow_in_input_order(inputs, options, error);
  }
  InputStats total;
  for (const InputStats& s : stats) add_stats(total, s);
  return total;
}

InputStats run_ordered_range_pipeline(
    const std::vector<std::string>& inputs, const std::vector<LineRange>& ranges,
    const InputOptions& options, unsigned threads, size_t window,
    const std::function<void(KeyBatch&, unsigned, std::string&)>& work,
    const std::function<bool(std::string&)>& emit, PipelineCounters* counters) {
  struct Piece {
    size_t range = 0;
    std::string out;
    InputStats stats;
    std::exception_ptr error;
  };
  // Every thread reads; the calling thread hands out the ranges and emits their output in order.
  const unsigned workers =
      threads <= 1
          ? 0
          : std::min<unsigned>(threads, static_cast<unsigned>(std::max<size_t>(ranges.size(), 1)));
  OrderedWorkQueue<Piece> queue(workers, std::max<size_t>(window, 1));
  std::vector<std::unique_ptr<KeyReader>> readers(std::max(workers, 1u));  // one per thread
  std::vector<KeyBatch> batches(readers.size());
  size_t next = 0;
  InputStats total;
  std::exception_ptr input_error;
  queue.run(
      [&](Piece& p) {
        if (next == ranges.size()) return false;
        p.range = next++;
        p.out.clear();
        p.stats = InputStats{};
        p.error = nullptr;
        return true;
      },
      [&](Piece& p, unsigned thread) {
        std::unique_ptr<KeyReader>& reader = readers[thread];
        KeyBatch& batch = batches[thread];
        try {
          if (reader) {
            reader->restart(ranges[p.range]);
          } else {
            reader = KeyReader::for_range(ranges[p.range], options);
          }
          uint64_t counted = 0;
          while (!queue.stopping() && reader->next(batch)) {
            count_batch(counters, *reader, batch.keys.size(), counted);
            work(batch, thread, p.out);
          }
          count_batch(counters, *reader, 0, counted);
          p.stats = reader->stats();
        } catch (...) {
          p.error = std::current_exception();
        }
      },
      [&](Piece& p) {
        if (p.error) {
          input_error = p.error;
          return false;
        }
        const bool go = emit(p.out);
        add_stats(total, p.stats);
        return go;
      },
      [](Piece&) {});
  if (input_error) rethrow_in_input_order(inputs, options, input_error);
  return total;
}

}  // namespace bloomtool
