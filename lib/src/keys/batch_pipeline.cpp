// Ordered parallel batch processing. A bounded ring of 2·T in-flight batches keeps memory
// constant: the reader blocks when the ring is full until the oldest batch is done and consumed.
// Each batch copies its records (and any key that is not a substring of its record) into one
// owned string, so workers never touch the reader's buffer.
#include "keys/batch_pipeline.h"

#include <atomic>
#include <condition_variable>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>

#include "bloomtool/error.h"
#include "base/run_threads.h"

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

void copy_into(const KeyBatch& in, WorkBatch& out) {
  size_t bytes = 0;
  for (size_t i = 0; i < in.records.size(); ++i) {
    bytes += in.records[i].size();
    const auto& k = in.keys[i];
    const auto& r = in.records[i];
    if (!(k.data() >= r.data() && k.data() + k.size() <= r.data() + r.size())) bytes += k.size();
  }
  out.storage.clear();
  out.storage.reserve(bytes);
  out.keys.resize(in.keys.size());
  out.records.resize(in.records.size());
  // Offsets first (storage may not move once views exist: it was reserved, so it does not).
  for (size_t i = 0; i < in.records.size(); ++i) {
    const auto& r = in.records[i];
    const auto& k = in.keys[i];
    const size_t at = out.storage.size();
    out.storage.append(r);
    out.records[i] = std::string_view(out.storage.data() + at, r.size());
    if (k.data() >= r.data() && k.data() + k.size() <= r.data() + r.size()) {
      out.keys[i] = std::string_view(out.storage.data() + at + (k.data() - r.data()), k.size());
    } else {
      const size_t kat = out.storage.size();
      out.storage.append(k);
      out.keys[i] = std::string_view(out.storage.data() + kat, k.size());
    }
  }
}

struct Slot {
  WorkBatch batch;
  bool done = false;
};

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

void run_batch_pipeline(KeyReader& reader, unsigned threads,
                        const std::function<void(WorkBatch&, unsigned)>& work,
                        const std::function<bool(WorkBatch&)>& consume) {
  KeyBatch in;
  if (threads <= 1) {
    WorkBatch wb;
    while (reader.next(in)) {
      wb.keys.swap(in.keys);
      wb.records.swap(in.records);
      work(wb, 0);
      const bool go_on = consume(wb);
      wb.keys.swap(in.keys);
      wb.records.swap(in.records);
      if (!go_on) return;
    }
    return;
  }

  std::mutex mu;
  std::condition_variable work_ready, slot_done;
  std::deque<Slot*> todo;                    // batches waiting for a worker
  std::deque<std::unique_ptr<Slot>> flight;  // batches in input order, not yet consumed
  std::vector<std::unique_ptr<Slot>> spare;
  bool stopping = false;
  std::exception_ptr worker_error;
  const size_t max_flight = 2 * static_cast<size_t>(threads);

  std::vector<std::thread> pool;
  auto worker = [&](unsigned t) {
    detail::block_termination_signals();
    for (;;) {
      Slot* s;
      {
        std::unique_lock lock(mu);
        work_ready.wait(lock, [&] { return stopping || !todo.empty(); });
        if (todo.empty()) return;
        s = todo.front();
        todo.pop_front();
      }
      try {
        work(s->batch, t);
      } catch (...) {
        std::lock_guard lock(mu);
        if (!worker_error) worker_error = std::current_exception();
      }
      {
        std::lock_guard lock(mu);
        s->done = true;
      }
      slot_done.notify_all();
    }
  };
  auto stop_pool = [&] {
    {
      std::lock_guard lock(mu);
      stopping = true;
      todo.clear();
    }
    work_ready.notify_all();
    for (auto& t : pool) t.join();
    pool.clear();
  };
  try {
    for (unsigned t = 0; t < threads; ++t)
      pool.push_back(start_thread([&worker, t] { worker(t); }, threads));
  } catch (...) {  // no thread to be had: stop the ones started, then report it
    stop_pool();
    throw;
  }

  // Consumes finished batches at the head of `flight`; waits for the head when `wait` is set.
  auto drain = [&](bool wait) -> bool {
    for (;;) {
      std::unique_ptr<Slot> head;
      {
        std::unique_lock lock(mu);
        if (flight.empty()) return true;
        if (wait) slot_done.wait(lock, [&] { return flight.front()->done || worker_error; });
        if (worker_error) std::rethrow_exception(worker_error);
        if (!flight.front()->done) return true;
        head = std::move(flight.front());
        flight.pop_front();
      }
      const bool go_on = consume(head->batch);
      head->done = false;
      spare.push_back(std::move(head));
      if (!go_on) return false;
      wait = false;
    }
  };

  try {
    bool go_on = true;
    while (go_on && reader.next(in)) {
      std::unique_ptr<Slot> s;
      if (!spare.empty()) {
        s = std::move(spare.back());
        spare.pop_back();
      } else {
        s = std::make_unique<Slot>();
      }
      copy_into(in, s->batch);
      {
        std::lock_guard lock(mu);
        todo.push_back(s.get());
        flight.push_back(std::move(s));
      }
      work_ready.notify_one();
      size_t in_flight;
      {
        std::lock_guard lock(mu);
        in_flight = flight.size();
      }
      go_on = drain(in_flight >= max_flight);
    }
    while (go_on) {
      {
        std::lock_guard lock(mu);
        if (flight.empty()) break;
      }
      go_on = drain(true);
    }
  } catch (...) {
    stop_pool();
    throw;
  }
  stop_pool();
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
    std::string out;
    InputStats stats;
    std::exception_ptr error;
    bool done = false;
  };
  std::vector<Piece> pieces(ranges.size());
  std::vector<std::string> spare;  // output buffers of emitted pieces, kept for their capacity
  std::mutex mu;
  std::condition_variable piece_done, room;
  size_t next = 0, emitted = 0;
  bool stop = false;
  window = std::max<size_t>(window, 1);
  auto worker = [&](unsigned thread) {
    detail::block_termination_signals();
    KeyBatch batch;
    std::unique_ptr<KeyReader> reader;  // one per thread, its buffer reused piece after piece
    for (;;) {
      size_t i;
      {
        std::unique_lock<std::mutex> lock(mu);
        room.wait(lock, [&] { return stop || next >= ranges.size() || next < emitted + window; });
        if (stop || next >= ranges.size()) return;
        i = next++;
        if (!spare.empty()) {
          pieces[i].out = std::move(spare.back());
          spare.pop_back();
        }
      }
      Piece& piece = pieces[i];
      try {
        if (reader) {
          reader->restart(ranges[i]);
        } else {
          reader = KeyReader::for_range(ranges[i], options);
        }
        uint64_t counted = 0;
        while (reader->next(batch)) {
          count_batch(counters, *reader, batch.keys.size(), counted);
          work(batch, thread, piece.out);
          std::lock_guard<std::mutex> lock(mu);
          if (stop) break;
        }
        count_batch(counters, *reader, 0, counted);
        piece.stats = reader->stats();
      } catch (...) {
        piece.error = std::current_exception();
      }
      std::lock_guard<std::mutex> lock(mu);
      piece.done = true;
      piece_done.notify_all();
    }
  };
  std::vector<std::thread> pool;
  auto stop_all = [&] {
    {
      std::lock_guard<std::mutex> lock(mu);
      stop = true;
    }
    room.notify_all();
    for (std::thread& t : pool) t.join();
    pool.clear();
  };
  InputStats total;
  std::exception_ptr input_error;
  try {
    const unsigned workers =
        std::min<unsigned>(std::max(threads, 1u), static_cast<unsigned>(ranges.size()));
    for (unsigned t = 0; t < workers; ++t)
      pool.push_back(start_thread([&worker, t] { worker(t); }, workers));
    for (size_t i = 0; i < ranges.size(); ++i) {
      {
        std::unique_lock<std::mutex> lock(mu);
        piece_done.wait(lock, [&] { return pieces[i].done; });
      }
      if (pieces[i].error) {
        input_error = pieces[i].error;
        break;
      }
      const bool go = emit(pieces[i].out);
      add_stats(total, pieces[i].stats);
      {
        std::lock_guard<std::mutex> lock(mu);
        emitted = i + 1;
        pieces[i].out.clear();
        spare.push_back(std::move(pieces[i].out));
      }
      room.notify_all();
      if (!go) break;
    }
  } catch (...) {
    stop_all();
    throw;
  }
  stop_all();
  if (input_error) rethrow_in_input_order(inputs, options, input_error);
  return total;
}

}  // namespace bloomtool
