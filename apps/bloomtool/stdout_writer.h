// Buffered writes to standard output that end quietly when the reader goes away.
#pragma once

#include <string_view>
#include <vector>

namespace bloomtool::cli {

// Thrown by StdoutWriter when the reader of stdout has gone away (EPIPE); main() ends quietly.
struct BrokenPipe {};

// Buffered writes to standard output.
class StdoutWriter {
 public:
  StdoutWriter();
  ~StdoutWriter();
  void write(std::string_view s);
  void line(std::string_view s) {
    write(s);
    put('\n');
  }
  void put(char c) {
    if (used_ == buf_.size()) flush();
    buf_[used_++] = c;
  }
  void flush();

 private:
  std::vector<char> buf_;
  size_t used_ = 0;
};

}  // namespace bloomtool::cli
