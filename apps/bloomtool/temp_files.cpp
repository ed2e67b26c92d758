// The temporary-file table (temp_files.h). Each slot is free, being filled or emptied, or holds a
// path; a writer claims a free slot with a compare-and-swap, copies the path in and only then
// marks the slot full (release), so the signal handler, which reads full slots only, never sees a
// half-written path. No lock and no allocation: the handler may run at any point of any thread.
#include "temp_files.h"

#include <limits.h>
#include <unistd.h>

#include <atomic>
#include <cstring>

#include "format/atomic_file.h"

namespace bloomtool::cli {

namespace {

enum SlotState : int { kFree = 0, kBusy = 1, kFull = 2 };

struct Slot {
  std::atomic<int> state{kFree};
  char path[PATH_MAX + 1];
};
static_assert(std::atomic<int>::is_always_lock_free, "the signal handler reads the slot states");

Slot g_slots[kMaxTempFiles];

int add_temp(const char* path) noexcept {
  const size_t n = std::strlen(path);
  if (n > PATH_MAX) return -1;
  for (size_t i = 0; i < kMaxTempFiles; ++i) {
    int expected = kFree;
    if (!g_slots[i].state.compare_exchange_strong(expected, kBusy, std::memory_order_acquire))
      continue;
    std::memcpy(g_slots[i].path, path, n + 1);
    g_slots[i].state.store(kFull, std::memory_order_release);
    return static_cast<int>(i);
  }
  return -1;
}

void drop_temp(int token) noexcept {
  if (token < 0 || static_cast<size_t>(token) >= kMaxTempFiles) return;
  g_slots[token].state.store(kFree, std::memory_order_release);
}

constexpr TempFileHooks kHooks{add_temp, drop_temp};

}  // namespace

void install_temp_file_table() noexcept {
  set_temp_file_hooks(&kHooks);
}

void remove_temp_files() noexcept {
  for (Slot& slot : g_slots) {
    if (slot.state.load(std::memory_order_acquire) == kFull) ::unlink(slot.path);
  }
}

size_t temp_files_listed() noexcept {
  size_t n = 0;
  for (const Slot& slot : g_slots) n += slot.state.load(std::memory_order_acquire) == kFull;
  return n;
}

}  // namespace bloomtool::cli
