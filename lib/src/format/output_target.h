// Where the bytes written to an output path really go. A regular file (or a path not there yet) is
// replaced atomically, after symbolic links are followed to the final target, in that target's
// directory; a character device or FIFO is written as a stream; anything else is refused.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace bloomtool {

enum class OutputKind {
  kDescriptor,  // "-" (standard output), /dev/stdout, /dev/fd/N...: written as a stream to fd
  kFile,        // a regular file, or nothing yet: replaced or created atomically at final_path
  kStream,      // a character device or FIFO, opened and written in place (not atomic)
};

struct OutputTarget {
  OutputKind kind = OutputKind::kFile;
  std::string path;        // as given
  std::string name;        // for messages: "<stdout>" for "-", else the path as given
  std::string final_path;  // kFile: `path` with every symbolic link followed (may not exist yet)
  bool exists = false;     // final target exists (kFile, kStream)
  uint64_t dev = 0, ino = 0;
  uint32_t mode = 0;  // st_mode of the final target, when it exists
  int fd = -1;        // kDescriptor: the descriptor written to
};

// Resolves `path`. "-", /dev/stdout, /dev/stderr, /dev/fd/N and /proc/self/fd/N name an open
// descriptor, written to as it is (an append stays an append). Otherwise follows symbolic links (at
// most 40); a dangling link resolves to the path it points at, which is then created. Throws
// kIOError naming `path` for a directory (EISDIR), a symlink loop (ELOOP), and kInvalidArgument for
// a socket, block device or other file that is neither regular, a character device nor a FIFO.
OutputTarget resolve_output_target(const std::string& path);

// Throws kInvalidArgument "<input>: is both an input and the output; nothing written" when one of
// `inputs` ("-" or none: standard input) is the same file (device and inode) as the output.
// `allow_in_place`: a regular output file may also be an input (it is replaced atomically after
// every input is read). Character devices are never compared (-o /dev/null < /dev/null is fine).
void check_output_not_input(const OutputTarget& output, const std::vector<std::string>& inputs,
                            bool allow_in_place = false);

// Throws kIOError "<stdout>: standard output is closed" (or names the descriptor) when a
// kDescriptor target is not open for writing; other targets always pass.
void check_output_open(const OutputTarget& target);

// Writes `bytes` to a kDescriptor or kStream target (opened without O_CREAT or O_TRUNC). Throws
// kIOError naming the target; a closed standard output is "<stdout>: standard output is closed".
void write_output_stream(const OutputTarget& target, std::span<const uint8_t> bytes);

// The message name of an output path: "<stdout>" for "-", else the path.
std::string output_name(const std::string& path);

}  // namespace bloomtool
