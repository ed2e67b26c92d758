// Atomic publication of an output file: write to a temporary file in the target directory, fsync,
// rename over the target, fsync the directory. Until commit() the target is untouched; if the
// object is destroyed without commit() (error, exception) the temporary file is removed.
// Symbolic links are followed: the final target is replaced in its own directory and the links
// stay. A replaced file's mode, owner and group carry over; new files get 0666 less the umask.
#pragma once

#include <cstdint>
#include <span>
#include <string>

namespace bloomtool {

class AtomicFile {
 public:
  // Creates the temporary file next to the final target of `path`. Throws kIOError naming the
  // path, kInvalidArgument when that target is not a regular file (see output_target.h).
  explicit AtomicFile(std::string path);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  void write(std::span<const uint8_t> bytes);
  void pwrite(std::span<const uint8_t> bytes, uint64_t offset);
  // Reads back bytes already written (to sign a finished file); throws kIOError.
  void pread(std::span<uint8_t> bytes, uint64_t offset) const;
  // fsync, rename, fsync directory; afterwards removes stale temporary files of dead writers.
  void commit();
  const std::string& temp_path() const noexcept { return temp_path_; }

 private:
  std::string path_;    // as given, for messages
  std::string target_;  // path_ with symbolic links followed: the file replaced
  std::string temp_path_;
  int fd_ = -1;
  bool committed_ = false;
  uint64_t written_ = 0;          // bytes appended by write()
  uint64_t writeback_ = 0;        // bytes of them whose write-back has been started
  bool keep_attributes_ = false;  // replacing a file: its mode, owner and group carry over
  uint32_t old_mode_ = 0, old_uid_ = 0, old_gid_ = 0;
};

// Writes all bytes to a file descriptor, retrying on EINTR and short writes. Throws kIOError
// naming `what` (EPIPE included).
void write_all(int fd, std::span<const uint8_t> bytes, const std::string& what);

}  // namespace bloomtool

namespace bloomtool {
// Unlinks the temporary file of the AtomicFile being written, if any. Async-signal-safe: meant
// for SIGINT/SIGTERM handlers.
void remove_pending_temp_file() noexcept;
}  // namespace bloomtool
