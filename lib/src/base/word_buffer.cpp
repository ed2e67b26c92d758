// Zeroed, aligned word arrays. Small arrays use aligned_alloc; arrays of 2 MiB and more use an
// anonymous mapping (zero pages for free) with MADV_HUGEPAGE, which cuts TLB misses for the
// random accesses that Bloom filters make.
#include "base/word_buffer.h"

#include <sys/mman.h>
#include <sys/resource.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include <fmt/format.h>

#include "bloomtool/error.h"

namespace bloomtool {

namespace {
constexpr size_t kMapThreshold = 2u << 20;

// A "Name:   123 kB" line of /proc/meminfo, in bytes; false if absent.
bool meminfo_field(const char* text, const char* name, uint64_t& bytes) {
  const char* at = std::strstr(text, name);
  if (at == nullptr) return false;
  unsigned long long kib = 0;
  if (std::sscanf(at + std::strlen(name), " %llu", &kib) != 1) return false;
  bytes = static_cast<uint64_t>(kib) * 1024;
  return true;
}
}  // namespace

uint64_t available_memory_bytes() noexcept {
  uint64_t avail = UINT64_MAX;
  if (FILE* f = std::fopen("/proc/meminfo", "re")) {
    char text[8192];
    const size_t n = std::fread(text, 1, sizeof text - 1, f);
    std::fclose(f);
    text[n] = '\0';
    uint64_t mem = 0, swap = 0;
    if (meminfo_field(text, "MemAvailable:", mem)) {
      meminfo_field(text, "SwapFree:", swap);
      avail = mem + swap;
    }
  }
  for (const int resource : {RLIMIT_AS, RLIMIT_DATA}) {
    struct rlimit rl;
    if (getrlimit(resource, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
      avail = std::min<uint64_t>(avail, rl.rlim_cur);
  }
  return avail;
}

std::string format_bytes(uint64_t bytes) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024.0 && u < 4) {
    v /= 1024.0;
    ++u;
  }
  return u == 0 ? fmt::format("{} B", bytes) : fmt::format("{:.2f} {}", v, kUnits[u]);
}

void check_memory_available(uint64_t bytes, const char* what) {
  const uint64_t avail = available_memory_bytes();
  if (bytes <= avail) return;
  throw MemoryLimitError(ErrorCode::kLimitExceeded,
                         std::string(what) + " of " + format_bytes(bytes) +
                             " needs more memory than is available (" + format_bytes(avail) + ")");
}

WordBuffer::WordBuffer(size_t count) : count_(count) {
  if (count == 0) return;
  if (count > (SIZE_MAX / 8) - 64) {
    throw Error(ErrorCode::kLimitExceeded, "cannot allocate " + std::to_string(count) + " words");
  }
  const size_t bytes = count * 8;
  if (bytes >= kMapThreshold) {
    const size_t rounded = (bytes + kMapThreshold - 1) / kMapThreshold * kMapThreshold;
    void* p = mmap(nullptr, rounded, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) {
      throw Error(ErrorCode::kLimitExceeded,
                  "cannot allocate " + std::to_string(bytes) + " bytes for the filter");
    }
    madvise(p, rounded, MADV_HUGEPAGE);
    data_ = static_cast<uint64_t*>(p);
    mapped_bytes_ = rounded;
  } else {
    const size_t rounded = (bytes + 63) / 64 * 64;
    data_ = static_cast<uint64_t*>(std::aligned_alloc(64, rounded));
    if (data_ == nullptr) {
      throw Error(ErrorCode::kLimitExceeded,
                  "cannot allocate " + std::to_string(bytes) + " bytes for the filter");
    }
    std::memset(data_, 0, rounded);
  }
}

WordBuffer::WordBuffer(WordBuffer&& other) noexcept
    : data_(other.data_),
      count_(other.count_),
      mapped_bytes_(other.mapped_bytes_),
      borrowed_(other.borrowed_) {
  other.data_ = nullptr;
  other.count_ = 0;
  other.mapped_bytes_ = 0;
  other.borrowed_ = false;
}

WordBuffer WordBuffer::borrow(uint64_t* words, size_t count) noexcept {
  WordBuffer b;
  b.data_ = words;
  b.count_ = count;
  b.borrowed_ = true;
  return b;
}

WordBuffer& WordBuffer::operator=(WordBuffer&& other) noexcept {
  if (this != &other) {
    release();
    data_ = other.data_;
    count_ = other.count_;
    mapped_bytes_ = other.mapped_bytes_;
    borrowed_ = other.borrowed_;
    other.data_ = nullptr;
    other.count_ = 0;
    other.mapped_bytes_ = 0;
    other.borrowed_ = false;
  }
  return *this;
}

void WordBuffer::resize(size_t count) {
  if (count <= count_ && !borrowed_) {
    std::memset(data_ + count, 0, (count_ - count) * 8);
    count_ = count;
    return;
  }
  if (mapped_bytes_ != 0 && !borrowed_ && count <= (SIZE_MAX / 8) - kMapThreshold) {
    const size_t bytes = count * 8;
    const size_t rounded = (bytes + kMapThreshold - 1) / kMapThreshold * kMapThreshold;
    if (rounded > mapped_bytes_) {
      // The kernel moves the pages, not their contents: no copy, no fault on what is there.
      void* p = mremap(data_, mapped_bytes_, rounded, MREMAP_MAYMOVE);
      if (p == MAP_FAILED) {
        throw Error(ErrorCode::kLimitExceeded,
                    "cannot allocate " + std::to_string(bytes) + " bytes");
      }
      madvise(p, rounded, MADV_HUGEPAGE);
      data_ = static_cast<uint64_t*>(p);
      mapped_bytes_ = rounded;
    }
    count_ = count;
    return;
  }
  WordBuffer bigger(count);
  if (count_ != 0) std::memcpy(bigger.data_, data_, std::min(count, count_) * 8);
  *this = std::move(bigger);
}

void WordBuffer::release_pages(size_t begin, size_t end) noexcept {
  if (mapped_bytes_ == 0 || borrowed_ || begin >= end || end > count_) return;
  constexpr uintptr_t kPage = 4096;
  const uintptr_t from = (reinterpret_cast<uintptr_t>(data_ + begin) + kPage - 1) & ~(kPage - 1);
  const uintptr_t to = reinterpret_cast<uintptr_t>(data_ + end) & ~(kPage - 1);
  if (from < to) madvise(reinterpret_cast<void*>(from), to - from, MADV_DONTNEED);
}

WordBuffer::~WordBuffer() {
  release();
}

void WordBuffer::release() noexcept {
  if (data_ == nullptr) return;
  if (borrowed_) {
    borrowed_ = false;
  } else if (mapped_bytes_ != 0) {
    munmap(data_, mapped_bytes_);
  } else {
    std::free(data_);
  }
  data_ = nullptr;
}

}  // namespace bloomtool
