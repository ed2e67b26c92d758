// Progress line rendering and throttling (see progress.h).
#include "progress.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <string>

#include "units_cli.h"

namespace bloomtool::cli {

namespace {

constexpr auto kInterval = std::chrono::milliseconds(250);

// 950, 12.3k, 4.10M, 1.20G
std::string si(double v) {
  if (v < 1e3) return fmt::format("{:.0f}", v);
  if (v < 1e6) return fmt::format("{:.1f}k", v / 1e3);
  if (v < 1e9) return fmt::format("{:.2f}M", v / 1e6);
  return fmt::format("{:.2f}G", v / 1e9);
}

// 0:42, 12:05, 3:02:11
std::string clock_time(double seconds) {
  const auto s = static_cast<uint64_t>(std::llround(std::max(seconds, 0.0)));
  if (s >= 3600) return fmt::format("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60);
  return fmt::format("{}:{:02}", s / 60, s % 60);
}

}  // namespace

bool want_progress(bool forced, bool quiet, bool results_on_stdout) {
  if (quiet) return false;
  if (forced) return true;
  return ::isatty(STDERR_FILENO) == 1 && !(results_on_stdout && ::isatty(STDOUT_FILENO) == 1);
}

Progress::Progress(KeyStream& keys, bool enabled, bool forced)
    : keys_(keys), enabled_(enabled), forced_(forced) {
  if (!enabled_) return;
  total_ = keys_.total_input_bytes();
  start_ = last_ = std::chrono::steady_clock::now();
  keys_.on_batch([this] { tick(); });
}

Progress::~Progress() {
  if (enabled_) keys_.on_batch(nullptr);
  if (enabled_ && shown_) std::fputc('\n', stderr);
}

void Progress::maybe_draw() {
  const auto now = std::chrono::steady_clock::now();
  if (now - last_ < kInterval) return;
  last_ = now;
  draw(now);
}

void Progress::draw(std::chrono::steady_clock::time_point now) {
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  const uint64_t bytes = keys_.counters().raw_bytes.load(std::memory_order_relaxed);
  const uint64_t keys = keys_.counters().keys.load(std::memory_order_relaxed);
  std::string line = "bloomtool: ";
  if (total_ != 0) {
    const double frac = std::min(1.0, static_cast<double>(bytes) / static_cast<double>(total_));
    line += fmt::format("{} of {} ({:.0f}%)", format_bytes(bytes), format_bytes(total_),
                        std::floor(frac * 100));
  } else {
    line += format_bytes(bytes) + " read";
  }
  line += ", " + si(static_cast<double>(keys)) + " keys";
  if (elapsed > 0) line += ", " + si(static_cast<double>(keys) / elapsed) + " keys/s";
  if (total_ != 0 && bytes != 0 && elapsed > 0) {
    const double left = static_cast<double>(total_ > bytes ? total_ - bytes : 0);
    line += ", ETA " + clock_time(left / (static_cast<double>(bytes) / elapsed));
  }
  const size_t width = line.size();
  if (width < last_width_) line.append(last_width_ - width, ' ');
  last_width_ = width;
  std::fputc('\r', stderr);
  std::fwrite(line.data(), 1, line.size(), stderr);
  std::fflush(stderr);
  shown_ = true;
}

void Progress::finish() {
  if (!enabled_) return;
  if (shown_ || forced_) draw(std::chrono::steady_clock::now());
  if (shown_) std::fputc('\n', stderr);
  shown_ = false;
  enabled_ = false;
  keys_.on_batch(nullptr);
}

}  // namespace bloomtool::cli
