// Helpers for the library's own threads. run_threads runs fn(0), ..., fn(threads - 1)
// concurrently: fn(0) on the calling thread, the others on new threads. A thread the system will
// not start runs its share on the calling thread afterwards, so the work is done either way; the
// first exception thrown by any share is rethrown.
#pragma once

#include <pthread.h>
#include <signal.h>

#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

namespace bloomtool::detail {

// Called first on every thread the library starts: termination signals go to the calling
// thread, which owns any temporary output file, so its handler never runs while that thread is
// still creating or writing the file.
inline void block_termination_signals() noexcept {
  sigset_t block;
  sigemptyset(&block);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&block, sig);
  pthread_sigmask(SIG_BLOCK, &block, nullptr);
}

template <typename Fn>
void run_threads(unsigned threads, Fn&& fn) {
  if (threads <= 1) {
    fn(0u);
    return;
  }
  std::exception_ptr error;
  std::mutex lock;
  auto share = [&](unsigned t) {
    try {
      fn(t);
    } catch (...) {
      const std::lock_guard<std::mutex> hold(lock);
      if (!error) error = std::current_exception();
    }
  };
  std::vector<std::thread> pool;
  std::vector<unsigned> not_started;
  for (unsigned t = 1; t < threads; ++t) {
    try {
      pool.emplace_back([&share, t] {
        block_termination_signals();
        share(t);
      });
    } catch (const std::system_error&) {
      not_started.push_back(t);
    }
  }
  share(0);
  for (std::thread& t : pool) t.join();
  for (const unsigned t : not_started) share(t);
  if (error) std::rethrow_exception(error);
}

}  // namespace bloomtool::detail
