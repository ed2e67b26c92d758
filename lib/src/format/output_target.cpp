// Output targets: what a writer does with an output path. Atomic replacement (atomic_file.cpp)
// renames over the target, which is right for a regular file but would turn a device, a FIFO or
// a symbolic link into a plain file; so links are followed to their final target first, devices
// and FIFOs are written in place as streams, and other kinds of file are refused. The same
// device-and-inode facts decide whether an input is also the output.
#include "format/output_target.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>
#include <string_view>

#include "base/unique_fd.h"
#include "bloomtool/error.h"

namespace bloomtool {

namespace {

constexpr int kMaxLinkHops = 40;  // as the kernel's MAXSYMLINKS

std::string dir_part(const std::string& path) {
  const auto slash = path.rfind('/');
  if (slash == std::string::npos) return "";
  return path.substr(0, slash + 1);
}

// `path` with symbolic links followed one by one until a name that is not a link or does not
// exist; a relative link is taken relative to the directory holding it.
std::string follow_links(const std::string& path) {
  std::string p = path;
  for (int hop = 0; hop <= kMaxLinkHops; ++hop) {
    struct stat st;
    if (::lstat(p.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return p;
    std::string target(PATH_MAX, '\0');
    const ssize_t n = ::readlink(p.c_str(), target.data(), target.size());
    if (n < 0) throw_io_error(path, errno);
    if (static_cast<size_t>(n) >= target.size()) throw_io_error(path, ENAMETOOLONG);
    target.resize(static_cast<size_t>(n));
    p = target.front() == '/' ? target : dir_part(p) + target;
  }
  throw_io_error(path, ELOOP);
}

// The descriptor that "-" and the names of open descriptors stand for, else -1.
int descriptor_of(const std::string& path) {
  if (path == "-" || path == "/dev/stdout") return STDOUT_FILENO;
  if (path == "/dev/stderr") return STDERR_FILENO;
  for (const std::string_view prefix : {"/dev/fd/", "/proc/self/fd/"}) {
    if (path.compare(0, prefix.size(), prefix) != 0 || path.size() == prefix.size()) continue;
    const std::string digits = path.substr(prefix.size());
    if (digits.size() > 6 || digits.find_first_not_of("0123456789") != std::string::npos) continue;
    return std::stoi(digits);
  }
  return -1;
}

const char* kind_of(mode_t mode) {
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISBLK(mode)) return "a block device";
  return "not a regular file";
}

}  // namespace

std::string output_name(const std::string& path) {
  return path == "-" ? "<stdout>" : path;
}

OutputTarget resolve_output_target(const std::string& path) {
  OutputTarget t;
  t.path = path;
  t.name = output_name(path);
  if (const int fd = descriptor_of(path); fd >= 0) {
    t.kind = OutputKind::kDescriptor;
    t.fd = fd;
    return t;
  }
  if (path.empty()) throw Error(ErrorCode::kInvalidArgument, "empty output path");
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    if (errno != ENOENT) throw_io_error(path, errno);
    t.final_path = follow_links(path);  // a missing file, or a dangling link: create its target
    return t;
  }
  t.exists = true;
  t.dev = st.st_dev;
  t.ino = st.st_ino;
  t.mode = st.st_mode;
  if (S_ISDIR(st.st_mode)) throw_io_error(path, EISDIR);
  if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) {
    t.kind = OutputKind::kStream;
    return t;
  }
  if (!S_ISREG(st.st_mode)) {
    throw Error(ErrorCode::kInvalidArgument,
                path + ": is " + kind_of(st.st_mode) +
                    "; an output must be a regular file, a character device or a FIFO; "
                    "nothing written");
  }
  t.final_path = follow_links(path);
  struct stat fin;
  if (::lstat(t.final_path.c_str(), &fin) != 0 || !S_ISREG(fin.st_mode) ||
      fin.st_dev != st.st_dev || fin.st_ino != st.st_ino) {
    throw Error(ErrorCode::kIOError,
                path + ": cannot find the file its symbolic links lead to; nothing written");
  }
  return t;
}

void check_output_not_input(const OutputTarget& output, const std::vector<std::string>& inputs,
                            bool allow_in_place) {
  uint64_t dev = output.dev, ino = output.ino;
  if (output.kind == OutputKind::kDescriptor) {
    struct stat st;
    if (::fstat(output.fd, &st) != 0 || !(S_ISREG(st.st_mode) || S_ISFIFO(st.st_mode))) return;
    dev = st.st_dev;
    ino = st.st_ino;
  } else {
    if (!output.exists || S_ISCHR(output.mode)) return;
    if (allow_in_place && output.kind == OutputKind::kFile) return;
  }
  const std::vector<std::string> stdin_only{"-"};
  for (const std::string& in : inputs.empty() ? stdin_only : inputs) {
    struct stat st;
    const int rc = in == "-" ? ::fstat(STDIN_FILENO, &st) : ::stat(in.c_str(), &st);
    if (rc != 0 || st.st_dev != dev || st.st_ino != ino) continue;
    throw Error(ErrorCode::kInvalidArgument,
                (in == "-" ? std::string("<stdin>") : in) +
                    ": is both an input and the output; nothing written");
  }
}

void check_output_open(const OutputTarget& target) {
  if (target.kind != OutputKind::kDescriptor) return;
  // A descriptor the caller closed is occupied by /dev/null opened read-only (see main).
  const int flags = ::fcntl(target.fd, F_GETFL);
  if (flags >= 0 && (flags & O_ACCMODE) != O_RDONLY) return;
  const std::string why = target.fd == STDOUT_FILENO   ? "standard output is closed"
                          : target.fd == STDERR_FILENO ? "standard error is closed"
                                                       : "descriptor is not open for writing";
  throw Error(ErrorCode::kIOError, target.name + ": " + why);
}

void write_output_stream(const OutputTarget& target, std::span<const uint8_t> bytes) {
  if (target.kind == OutputKind::kDescriptor) {
    check_output_open(target);
    write_all(target.fd, bytes, target.name);
    return;
  }
  // No O_TRUNC and no O_CREAT: should the path have become a regular file or vanished since it
  // was resolved, nothing is damaged or created.
  UniqueFd fd(::open(target.path.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC));
  if (!fd) throw_io_error(target.path, errno);
  struct stat st;
  if (::fstat(fd.get(), &st) != 0 || !(S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))) {
    throw Error(ErrorCode::kIOError,
                target.path + ": is no longer a character device or FIFO; nothing written");
  }
  write_all(fd.get(), bytes, target.path);
  if (const int e = fd.close(); e != 0 && e != EINTR) throw_io_error(target.path, e);
}

}  // namespace bloomtool
