// The progress line on stderr for long reads: bytes read of the total (when every input is a
// regular file), keys, keys per second and the time left, rewritten in place with '\r' at most
// four times a second. Never on stdout. It follows the key stream's shared counters, so every
// reading thread's work shows, whichever reading path the stream takes.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>

#include "keys/key_stream.h"

namespace bloomtool::cli {

// Whether to show progress: --progress forces it, quiet silences it, otherwise only when stderr is
// a terminal and, for commands that print results (`results_on_stdout`), stdout is not.
bool want_progress(bool forced, bool quiet, bool results_on_stdout);

class Progress {
 public:
  // `keys` must outlive this object; when enabled, it ticks the line as it reads. With `enabled`
  // false every call does nothing.
  Progress(KeyStream& keys, bool enabled, bool forced);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  // Redraws the line when 0.25 s have passed since the last time.
  void tick() {
    if (enabled_) maybe_draw();
  }
  // Draws the final state (always when forced, else only if a line is already showing) and ends
  // the line, so what follows on stderr starts on a fresh one.
  void finish();

 private:
  void maybe_draw();
  void draw(std::chrono::steady_clock::time_point now);

  KeyStream& keys_;
  bool enabled_;
  bool forced_;
  bool shown_ = false;
  uint64_t total_ = 0;
  size_t last_width_ = 0;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_;
};

}  // namespace bloomtool::cli
