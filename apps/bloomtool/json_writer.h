// A small streaming writer for the `--json` output of the subcommands: one stable object per
// command, valid UTF-8 whatever bytes a path or label holds, and numbers that read back exactly.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace bloomtool {

// Appends `text` to `out` as a quoted JSON string. Control characters are escaped; bytes that are
// not valid UTF-8 become U+FFFD, so the output always parses.
void append_json_string(std::string& out, std::string_view text);

// Builds JSON text into a string. Keys and values are written in call order; commas are placed
// automatically. Non-finite doubles are written as null (JSON has no NaN or infinity).
class JsonWriter {
 public:
  explicit JsonWriter(bool pretty = true) : pretty_(pretty) {}

  JsonWriter& begin_object();
  JsonWriter& end_object();
  JsonWriter& begin_array();
  JsonWriter& end_array();
  JsonWriter& key(std::string_view name);

  JsonWriter& value(std::string_view s);
  JsonWriter& value(const char* s) { return value(std::string_view(s)); }
  JsonWriter& value(const std::string& s) { return value(std::string_view(s)); }
  JsonWriter& value(bool b);
  JsonWriter& value(double d);
  JsonWriter& value(uint64_t u);
  JsonWriter& value(int64_t i);
  JsonWriter& value(uint32_t u) { return value(static_cast<uint64_t>(u)); }
  JsonWriter& value(int i) { return value(static_cast<int64_t>(i)); }
  JsonWriter& null();
  template <typename T>
  JsonWriter& value(const std::optional<T>& v) {
    return v ? value(*v) : null();
  }

  // key(name).value(v) in one call.
  template <typename T>
  JsonWriter& field(std::string_view name, const T& v) {
    key(name);
    return value(v);
  }

  const std::string& str() const noexcept { return out_; }

 private:
  void before_value();
  void newline();
  void close(char bracket);

  std::string out_;
  bool pretty_;
  std::vector<bool> has_items_;  // one entry per open object or array
  bool after_key_ = false;
};

}  // namespace bloomtool
