// One bounded, ordered work queue: the calling thread produces items in order, worker threads
// work on them concurrently, and the calling thread consumes them in the order they were produced.
// The items live in a ring of `capacity` slots reused in turn, so at most that many exist at once
// whatever the speeds of the three steps (memory stays bounded), and an item's buffers are reused
// by the item produced `capacity` later. Both parallel pipelines run on it: one reader handing
// batches of keys to workers (a Bloom insert, whose consumer only counts; query, whose consumer
// writes the output in input order) and ranges of a file read by workers with their output
// emitted in order.
//
// One lock guards the ring's counters; a step takes it once per item, and waits only when it has
// to (a worker with nothing to take, the producer with every slot in use, the consumer before the
// oldest item is done). Items should be large (thousands of keys) so that the lock is rare.
#pragma once

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "base/run_threads.h"
#include "bloomtool/error.h"

namespace bloomtool {

template <typename Item>
class OrderedWorkQueue {
 public:
  // `workers` threads (0: every step on the calling thread, item by item) and `capacity` slots
  // (at least one; fewer than workers + 1 leaves workers idle).
  OrderedWorkQueue(unsigned workers, size_t capacity)
      : workers_(workers), ring_(std::max<size_t>(capacity, 1)), done_(ring_.size(), 0) {}
  OrderedWorkQueue(const OrderedWorkQueue&) = delete;
  OrderedWorkQueue& operator=(const OrderedWorkQueue&) = delete;

  // Runs the queue to its end: `produce(item)` fills the next item on the calling thread and
  // returns false when there is none (that item is then not used); `work(item, worker)` runs on a
  // worker thread, worker in [0, workers) (0 on the calling thread when there are no workers);
  // `consume(item)` runs on the calling thread in production order and returns false to stop.
  // `backlog(item)`, if given, runs on the calling thread on an item just produced while items
  // produced before it are still waiting for a worker: the producer can take a share of the work
  // on itself when the workers are behind. An exception from any step stops the workers and
  // propagates from run(); stopping() tells a long `work` that it may give up.
  // `ready()`, if given, says whether `produce` can fill an item without waiting for input (a
  // pipe's writer): when it cannot, every item produced so far is first worked on and consumed,
  // so that output does not wait for input that may be long in coming.
  template <typename Produce, typename Work, typename Consume, typename Backlog>
  void run(Produce&& produce, Work&& work, Consume&& consume, Backlog&& backlog) {
    run(produce, work, consume, backlog, [] { return true; });
  }
  template <typename Produce, typename Work, typename Consume, typename Backlog, typename Ready>
  void run(Produce&& produce, Work&& work, Consume&& consume, Backlog&& backlog, Ready&& ready) {
    if (workers_ == 0) {
      Item& item = ring_[0];
      while (produce(item)) {
        work(item, 0u);
        if (!consume(item)) return;
      }
      return;
    }
    std::vector<std::thread> pool;
    try {
      for (unsigned w = 0; w < workers_; ++w)
        pool.push_back(start([this, &work, w] {
          detail::block_termination_signals();
          work_loop(work, w);
        }));
      produce_loop(produce, consume, backlog, ready);
    } catch (...) {
      halt(pool);
      throw;
    }
    halt(pool);
    if (error_) std::rethrow_exception(error_);
  }

  bool stopping() const noexcept { return stop_.load(std::memory_order_relaxed); }
  size_t capacity() const noexcept { return ring_.size(); }

 private:
  template <typename F>
  std::thread start(F&& f) {
    try {
      return std::thread(std::forward<F>(f));
    } catch (const std::system_error& e) {
      throw Error(ErrorCode::kLimitExceeded, "cannot start " + std::to_string(workers_ + 1) +
                                                 " threads: " + e.code().message() +
                                                 " (fewer threads may work)");
    }
  }

  // Items [consumed_, taken_) are with workers or done, [taken_, put_) wait for one; the
  // producer fills item put_.
  template <typename Work>
  void work_loop(Work& work, unsigned w) {
    for (;;) {
      uint64_t seq;
      {
        std::unique_lock<std::mutex> lock(mu_);
        ++idle_;
        work_ready_.wait(lock, [&] { return stop_ || taken_ < put_; });
        --idle_;
        if (stop_) return;
        seq = taken_++;
      }
      const size_t slot = static_cast<size_t>(seq % ring_.size());
      try {
        work(ring_[slot], w);
      } catch (...) {
        std::lock_guard<std::mutex> lock(mu_);
        if (!error_) error_ = std::current_exception();
        stop_ = true;
        work_ready_.notify_all();
        item_done_.notify_all();
        return;
      }
      bool wake;
      {
        std::lock_guard<std::mutex> lock(mu_);
        done_[slot] = 1;
        wake = waiting_for_ == seq;
      }
      if (wake) item_done_.notify_one();
    }
  }

  // Waits for the oldest item to be done (wait) or looks whether it is; consumes it. Returns
  // false when consume says stop; `ok` is false when nothing was consumed.
  template <typename Consume>
  bool consume_oldest(Consume& consume, bool wait, bool& ok) {
    const size_t slot = static_cast<size_t>(consumed_ % ring_.size());
    {
      std::unique_lock<std::mutex> lock(mu_);
      if (wait) {
        waiting_for_ = consumed_;
        item_done_.wait(lock, [&] { return stop_ || done_[slot] != 0; });
        waiting_for_ = UINT64_MAX;
      }
      if (stop_ || done_[slot] == 0) {
        ok = false;
        return true;
      }
      done_[slot] = 0;
    }
    ok = true;
    ++consumed_;
    return consume(ring_[slot]);
  }

  template <typename Produce, typename Consume, typename Backlog, typename Ready>
  void produce_loop(Produce& produce, Consume& consume, Backlog& backlog, Ready& ready) {
    const uint64_t cap = ring_.size();
    for (;;) {
      // Consume what is done at the head; wait for it only when every slot is in use, or when
      // the next item would wait for input.
      for (bool ok = true; ok && consumed_ < put_;) {
        const bool wait = put_ - consumed_ >= cap || !ready();
        if (!consume_oldest(consume, wait, ok)) return;
      }
      if (stopping()) return;
      Item& item = ring_[static_cast<size_t>(put_ % cap)];
      if (!produce(item)) break;
      bool behind;
      {
        std::lock_guard<std::mutex> lock(mu_);
        if (stop_) return;
        behind = taken_ < put_;
      }
      if (behind) backlog(item);
      bool wake;
      {
        std::lock_guard<std::mutex> lock(mu_);
        ++put_;
        wake = idle_ > 0;
      }
      if (wake) work_ready_.notify_one();
    }
    for (bool ok = true; ok && consumed_ < put_;) {
      if (!consume_oldest(consume, true, ok)) return;
    }
  }

  void halt(std::vector<std::thread>& pool) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    work_ready_.notify_all();
    for (std::thread& t : pool) t.join();
    pool.clear();
  }

  const unsigned workers_;
  std::vector<Item> ring_;
  std::vector<uint8_t> done_;  // [slot]: worked on, not yet consumed
  std::mutex mu_;
  std::condition_variable work_ready_, item_done_;
  uint64_t put_ = 0, taken_ = 0;
  uint64_t consumed_ = 0;  // the calling thread's own
  unsigned idle_ = 0;      // workers waiting for an item
  uint64_t waiting_for_ = UINT64_MAX;
  std::atomic<bool> stop_{false};
  std::exception_ptr error_;
};

}  // namespace bloomtool
