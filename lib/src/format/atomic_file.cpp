// Atomic publication: temp file ".<name>.tmp.<pid>.<random>" in the target's directory, fsync,
// rename, fsync of the directory. A process killed part-way leaves only its temp file behind;
// the next successful commit to the same target removes temp files whose writer is gone.
// A program's signal handler learns the live temp files' names through TempFileHooks.
// Symbolic links are followed to the final target, which alone is replaced, in its own directory;
// the temp file takes the replaced file's mode, owner and group before the rename.
#include "format/atomic_file.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string_view>
#include <vector>

#include "base/unique_fd.h"
#include "bloomtool/error.h"
#include "format/output_target.h"

namespace bloomtool {

namespace {

std::atomic<const TempFileHooks*> g_hooks{nullptr};  // set_temp_file_hooks: set once by a program

std::string dir_of(const std::string& path) {
  const auto slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

std::string base_of(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string temp_prefix(const std::string& path) {
  return "." + base_of(path) + ".tmp.";
}

void fsync_dir(const std::string& dir) {
  const UniqueFd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!fd) throw_io_error(dir, errno);
  if (::fsync(fd.get()) != 0 && errno != EINVAL) throw_io_error(dir, errno);
}

// True if process `pid` exists and is not a zombie (a killed writer whose parent has not reaped
// it — common in containers whose PID 1 does not reap — can never finish its temp file).
bool process_running(long pid) {
  if (::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) return false;
  char path[64];
  std::snprintf(path, sizeof path, "/proc/%ld/stat", pid);
  const UniqueFd fd(::open(path, O_RDONLY | O_CLOEXEC));
  if (!fd) return true;  // no procfs: assume it runs
  char buf[512];
  const ssize_t n = ::read(fd.get(), buf, sizeof buf - 1);
  if (n <= 0) return true;
  buf[n] = '\0';
  const char* paren = std::strrchr(buf, ')');  // "pid (comm) S ...": comm may hold spaces
  if (paren == nullptr || paren[1] != ' ') return true;
  return paren[2] != 'Z' && paren[2] != 'X';
}

// Removes ".<name>.tmp.<pid>.*" files in dir whose pid no longer runs.
void remove_stale_temps(const std::string& path) {
  const std::string dir = dir_of(path);
  const std::string prefix = temp_prefix(path);
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return;
  while (const dirent* e = ::readdir(d)) {
    const std::string_view name(e->d_name);
    if (name.substr(0, prefix.size()) != prefix) continue;
    const std::string rest(name.substr(prefix.size()));
    char* stop = nullptr;
    const long pid = std::strtol(rest.c_str(), &stop, 10);
    if (stop == rest.c_str() || *stop != '.' || pid <= 0) continue;
    if (pid == ::getpid()) continue;
    if (process_running(pid)) continue;
    ::unlink((dir + "/" + std::string(name)).c_str());
  }
  ::closedir(d);
}

// Gives the temp file the owner, group and permission bits of the file it replaces. Owner and
// group are kept where the writer may set them (root; or a group the writer belongs to); a
// set-user-ID or set-group-ID bit is kept only with the owner or group it belongs to.
void keep_owner_and_mode(int fd, uint32_t old_mode, uint32_t uid, uint32_t gid,
                         const std::string& what) {
  mode_t mode = old_mode & 07777;
  if (::fchown(fd, uid, gid) != 0) {
    if (errno != EPERM && errno != EINVAL) throw_io_error(what, errno);
    if (uid != ::geteuid()) mode &= ~mode_t{S_ISUID};
    if (::fchown(fd, static_cast<uid_t>(-1), gid) != 0) {
      if (errno != EPERM && errno != EINVAL) throw_io_error(what, errno);
      mode &= ~mode_t{S_ISGID};
    }
  }
  if (::fchmod(fd, mode) != 0) throw_io_error(what, errno);
}

}  // namespace

void set_temp_file_hooks(const TempFileHooks* hooks) noexcept {
  g_hooks.store(hooks, std::memory_order_release);
}

AtomicFile::AtomicFile(std::string path) : path_(std::move(path)) {
  if (path_.empty() || path_.back() == '/') {
    throw Error(ErrorCode::kInvalidArgument, "'" + path_ + "': output path names a directory");
  }
  const OutputTarget target = resolve_output_target(path_);
  if (target.kind != OutputKind::kFile) {
    throw Error(ErrorCode::kInvalidArgument,
                path_ + ": not a regular file; it cannot be replaced atomically");
  }
  target_ = target.final_path;
  struct stat old_st;
  const bool replacing = target.exists && ::stat(target_.c_str(), &old_st) == 0;
  std::random_device rd;
  std::vector<std::string> names;
  for (int attempt = 0; attempt < 16; ++attempt) {
    names.push_back(dir_of(target_) + "/" + temp_prefix(target_) + std::to_string(::getpid()) +
                    "." + std::to_string(rd() % 1000000));
  }
  // Termination signals wait while the temp file exists but is not yet reported to the program's
  // hooks (TempFileHooks), so that a SIGTERM in between cannot leave it behind. Nothing in
  // between can throw, so the mask is always restored.
  sigset_t block, old;
  sigemptyset(&block);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&block, sig);
  pthread_sigmask(SIG_BLOCK, &block, &old);
  size_t chosen = 0;
  for (; chosen < names.size(); ++chosen) {
    fd_.reset(::open(names[chosen].c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0666));
    if (fd_ || errno != EEXIST) break;
  }
  const int open_errno = errno;
  if (fd_) {
    hooks_ = g_hooks.load(std::memory_order_acquire);
    if (hooks_ != nullptr && hooks_->created != nullptr)
      hook_token_ = hooks_->created(names[chosen].c_str());
  }
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  if (!fd_) throw_io_error(path_, open_errno);
  temp_path_ = std::move(names[chosen]);
  if (replacing) {
    keep_attributes_ = true;
    old_mode_ = old_st.st_mode;
    old_uid_ = old_st.st_uid;
    old_gid_ = old_st.st_gid;
  }
}

AtomicFile::~AtomicFile() {
  fd_.reset();
  if (!committed_) ::unlink(temp_path_.c_str());
  forget_temp();
}

// Tells the hooks the temp file is gone (after the rename or unlink: a signal in between has the
// handler unlink a name that no longer exists, which is harmless).
void AtomicFile::forget_temp() noexcept {
  if (hooks_ != nullptr && hooks_->removed != nullptr) hooks_->removed(hook_token_);
  hooks_ = nullptr;
}

void AtomicFile::write(std::span<const uint8_t> bytes) {
  write_all(fd_.get(), bytes, path_);
  written_ += bytes.size();
  // Starts the disk writing each whole MiB written so far while the caller goes on producing the
  // rest, so that commit()'s fsync waits for little more than the last MiB (a 10M-key build's
  // 11.4 MiB: fsync about 8 ms before, 1 ms after; docs/PERFORMANCE.md). Only a hint: fsync
  // still decides.
  constexpr uint64_t kWritebackBytes = uint64_t{1} << 20;
  if (written_ - writeback_ >= kWritebackBytes) {
    const uint64_t end = written_ & ~(kWritebackBytes - 1);
#if defined(__linux__)
    ::sync_file_range(fd_.get(), static_cast<off_t>(writeback_),
                      static_cast<off_t>(end - writeback_), SYNC_FILE_RANGE_WRITE);
#endif
    writeback_ = end;
  }
}

void AtomicFile::pwrite(std::span<const uint8_t> bytes, uint64_t offset) {
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t w = ::pwrite(fd_.get(), bytes.data() + done, bytes.size() - done,
                               static_cast<off_t>(offset + done));
    if (w < 0) {
      if (errno == EINTR) continue;
      throw_io_error(path_, errno);
    }
    done += static_cast<size_t>(w);
  }
}

void AtomicFile::pread(std::span<uint8_t> bytes, uint64_t offset) const {
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t r = ::pread(fd_.get(), bytes.data() + done, bytes.size() - done,
                              static_cast<off_t>(offset + done));
    if (r < 0) {
      if (errno == EINTR) continue;
      throw_io_error(path_, errno);
    }
    if (r == 0) throw Error(ErrorCode::kIOError, path_ + ": temporary file ends early");
    done += static_cast<size_t>(r);
  }
}

void AtomicFile::commit() {
  // After the last write: a write by a process without CAP_FSETID clears set-ID bits.
  if (keep_attributes_) keep_owner_and_mode(fd_.get(), old_mode_, old_uid_, old_gid_, path_);
  if (::fsync(fd_.get()) != 0) throw_io_error(path_, errno);
  if (const int e = fd_.close(); e != 0) throw_io_error(path_, e);
  // Never rename over something that is not a regular file, should one have appeared meanwhile.
  struct stat st;
  if (::lstat(target_.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    throw Error(ErrorCode::kIOError,
                path_ + ": is no longer a regular file; not replaced, nothing written");
  }
  if (::rename(temp_path_.c_str(), target_.c_str()) != 0) throw_io_error(path_, errno);
  committed_ = true;
  forget_temp();
  fsync_dir(dir_of(target_));
  remove_stale_temps(target_);
}

}  // namespace bloomtool
