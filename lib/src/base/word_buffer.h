// A zero-initialised, 64-byte-aligned array of 64-bit words. Large arrays come from mmap with
// MADV_HUGEPAGE so random bit probes miss the TLB less often.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "bloomtool/error.h"

namespace bloomtool {

// A size as messages print it: "512 B", "1.50 MiB", "128.00 GiB" (binary units).
std::string format_bytes(uint64_t bytes);

// Memory this process can still have without the kernel's OOM killer stepping in: MemAvailable
// plus free swap, capped by RLIMIT_AS and RLIMIT_DATA; UINT64_MAX when it cannot be told.
uint64_t available_memory_bytes() noexcept;

// Thrown (code kLimitExceeded) by check_memory_available.
class MemoryLimitError : public Error {
 public:
  using Error::Error;
};

// Throws MemoryLimitError, "<what> of <bytes> needs more memory than is available (<free>)",
// when `bytes` exceed available_memory_bytes(): a size the machine cannot give fails before the
// allocation instead of getting the process killed once the pages are touched.
void check_memory_available(uint64_t bytes, const char* what);

class WordBuffer {
 public:
  WordBuffer() = default;
  // Allocates `count` zeroed words; throws kLimitExceeded if the memory cannot be had.
  explicit WordBuffer(size_t count);
  WordBuffer(WordBuffer&& other) noexcept;
  WordBuffer& operator=(WordBuffer&& other) noexcept;
  WordBuffer(const WordBuffer&) = delete;
  WordBuffer& operator=(const WordBuffer&) = delete;
  ~WordBuffer();
  // A view of `count` words owned elsewhere (a mapped file), which must outlive the buffer and
  // every move of it; nothing is freed. Resizing it copies into memory of its own.
  static WordBuffer borrow(uint64_t* words, size_t count) noexcept;

  // Changes the size, keeping the first min(old, new) words; words added are zero. A mapped
  // array grows in place or by moving its pages (mremap), so growing by doubling never copies.
  // Throws kLimitExceeded if the memory cannot be had (the buffer is then unchanged).
  void resize(size_t count);

  // Gives the memory of the whole pages within words [begin, end) back to the system (mapped
  // buffers only; nothing for small or borrowed ones), for a caller done with those words while it
  // fills memory elsewhere, which then faults in pages just freed rather than new ones. The words
  // of those pages read as zero afterwards; all others keep their values.
  void release_pages(size_t begin, size_t end) noexcept;

  uint64_t* data() noexcept { return data_; }
  const uint64_t* data() const noexcept { return data_; }
  size_t size() const noexcept { return count_; }
  std::span<uint64_t> span() noexcept { return {data_, count_}; }
  std::span<const uint64_t> span() const noexcept { return {data_, count_}; }

 private:
  void release() noexcept;
  uint64_t* data_ = nullptr;
  size_t count_ = 0;
  size_t mapped_bytes_ = 0;  // non-zero when the memory came from mmap
  bool borrowed_ = false;    // borrow(): not ours to free
};

}  // namespace bloomtool
