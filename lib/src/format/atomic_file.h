// Atomic publication of an output file: write to a temporary file in the target directory, fsync,
// rename over the target, fsync the directory. Until commit() the target is untouched; if the
// object is destroyed without commit() (error, exception) the temporary file is removed. Each
// AtomicFile owns its temporary file and nothing else: any number may write at once, in any
// threads. A program that removes temporary files from a signal handler learns of them through
// TempFileHooks.
// Symbolic links are followed: the final target is replaced in its own directory and the links
// stay. A replaced file's mode, owner and group carry over; new files get 0666 less the umask.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "base/unique_fd.h"

namespace bloomtool {

struct TempFileHooks;

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
  void forget_temp() noexcept;

  std::string path_;    // as given, for messages
  std::string target_;  // path_ with symbolic links followed: the file replaced
  std::string temp_path_;
  UniqueFd fd_;
  const TempFileHooks* hooks_ = nullptr;  // those told of the temp file, if any
  int hook_token_ = -1;                   // what hooks_->created returned
  bool committed_ = false;
  uint64_t written_ = 0;          // bytes appended by write()
  uint64_t writeback_ = 0;        // bytes of them whose write-back has been started
  bool keep_attributes_ = false;  // replacing a file: its mode, owner and group carry over
  uint32_t old_mode_ = 0, old_uid_ = 0, old_gid_ = 0;
};

// How a program learns which temporary files exist, to remove them when a signal ends it (the
// library keeps no list: the CLI does, in a fixed table its SIGINT/SIGTERM handler reads).
// `created` is called with a temporary file's path once the file exists, with SIGINT, SIGTERM and
// SIGHUP blocked in the calling thread, and returns a token; `removed` gets that token once the
// file is renamed into place or unlinked. Both may be called from several threads at once.
struct TempFileHooks {
  int (*created)(const char* path) noexcept = nullptr;
  void (*removed)(int token) noexcept = nullptr;
};
// Sets the hooks every AtomicFile created afterwards reports to (nullptr: none, the default).
// `hooks` must outlive every writer.
void set_temp_file_hooks(const TempFileHooks* hooks) noexcept;

}  // namespace bloomtool
