// A filter file's bytes, mapped (regular files) or read as the header declares them (pipes,
// devices), for the readers of filter_file.cpp and raw_payload.cpp.
#pragma once

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "bloomtool/error.h"
#include "bloomtool/filter_file.h"
#include "bloomtool/model.h"

namespace bloomtool {

// How a mapping will be read: front to back (streaming) or at random places (queries of a raw
// payload, which also write-protect nothing: the pages are private and copy-on-write).
enum class MapAccess { kSequential, kRandom };

// A file's bytes, mapped (regular files) or, for pipes and devices, read header first and then
// only as far as the checked header declares. Owns its descriptor and mapping: movable, not
// copyable.
class MappedFile {
 public:
  explicit MappedFile(const std::string& path, MapAccess access = MapAccess::kSequential) {
    try {
      open_and_map(path, access);
    } catch (...) {
      close_all();
      throw;
    }
  }
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  MappedFile(MappedFile&& other) noexcept
      : fd_(std::exchange(other.fd_, -1)),
        map_(std::exchange(other.map_, nullptr)),
        size_(std::exchange(other.size_, 0)),
        copy_(std::move(other.copy_)) {}
  MappedFile& operator=(MappedFile&& other) noexcept {
    if (this != &other) {
      close_all();
      fd_ = std::exchange(other.fd_, -1);
      map_ = std::exchange(other.map_, nullptr);
      size_ = std::exchange(other.size_, 0);
      copy_ = std::move(other.copy_);
      other.copy_.clear();
    }
    return *this;
  }
  ~MappedFile() { close_all(); }
  std::span<const uint8_t> bytes() const { return {map_, static_cast<size_t>(size_)}; }

  // Drops the pages wholly before `end` that lie at or after `begin` from this process's memory
  // (they stay in the page cache and fault back in if read again). A no-op for a pipe's copy.
  void release(uint64_t begin, uint64_t end) const {
    if (!copy_.empty() || map_ == nullptr) return;
    const auto page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
    const uint64_t from = begin / page * page, to = end / page * page;
    if (to > from) madvise(const_cast<uint8_t*>(map_) + from, to - from, MADV_DONTNEED);
  }
  // Asks the kernel to read [begin, end) ahead of its use (one request instead of a fault per
  // page when the mapping is read at random places).
  void will_need(uint64_t begin, uint64_t end) const {
    if (!copy_.empty() || map_ == nullptr) return;
    const auto page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
    const uint64_t from = begin / page * page;
    if (end > from) madvise(const_cast<uint8_t*>(map_) + from, end - from, MADV_WILLNEED);
  }
  bool is_mapping() const noexcept { return copy_.empty() && map_ != nullptr; }
  // The open descriptor of the mapped file (-1 for a pipe's copy).
  int fd() const noexcept { return is_mapping() ? fd_ : -1; }

 private:
  void open_and_map(const std::string& path, MapAccess access) {
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) throw_io_error(path, errno);
    struct stat st;
    if (fstat(fd_, &st) != 0) throw_io_error(path, errno);
    if (S_ISDIR(st.st_mode)) throw_io_error(path, EISDIR);
    if (S_ISREG(st.st_mode)) {
      size_ = static_cast<uint64_t>(st.st_size);
      if (size_ != 0) {
        const int prot = access == MapAccess::kRandom ? PROT_READ | PROT_WRITE : PROT_READ;
        void* p = mmap(nullptr, size_, prot, MAP_PRIVATE, fd_, 0);
        if (p == MAP_FAILED) throw_io_error(path, errno);
        map_ = static_cast<const uint8_t*>(p);
        // Random access keeps the kernel's default advice: its fault-around maps up to 16 cached
        // pages per fault (measured faster than MADV_RANDOM for 1M queries), and chunks are read
        // ahead explicitly before they are verified.
        if (access == MapAccess::kSequential) madvise(p, size_, MADV_SEQUENTIAL);
      }
    } else {
      // A pipe or device: its header first, checked (magic, checksum, declared sizes against
      // sane limits), then exactly the bytes it declares (read_filter_stream_image), so /dev/zero
      // or an endless FIFO fails at once instead of being read to the end.
      copy_ = read_filter_stream_image(fd_, path);
      if (copy_.empty()) copy_.push_back(0);  // never reached: an empty stream is refused
      size_ = copy_.size();
      map_ = copy_.data();
    }
  }
  void close_all() noexcept {
    if (map_ != nullptr && copy_.empty() && size_ != 0) munmap(const_cast<uint8_t*>(map_), size_);
    map_ = nullptr;
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

  int fd_ = -1;
  const uint8_t* map_ = nullptr;
  uint64_t size_ = 0;
  std::vector<uint8_t> copy_;
};

static_assert(!std::is_copy_constructible_v<MappedFile> &&
              std::is_move_constructible_v<MappedFile>);

}  // namespace bloomtool
