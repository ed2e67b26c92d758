// Taking the key out of one input record: a field of an NDJSON line (simdjson DOM parser, which
// validates the whole line) or a column of a delimited line (plain split, or CSV quoting).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace bloomtool {

// Bytes that must be readable after the end of a line handed to JsonField::extract.
inline constexpr size_t kJsonPadding = 64;

enum class FieldResult {
  kKey,    // `key` holds the field
  kBlank,  // the record holds nothing (whitespace only): treated like an empty line
  kBad,    // `reason` says why the record has no usable key
};

class JsonField {
 public:
  // `pointer` is an RFC 6901 JSON pointer ("" is the whole value); throws kInvalidArgument when
  // it is not one.
  explicit JsonField(std::string pointer);
  ~JsonField();
  JsonField(const JsonField&) = delete;
  JsonField& operator=(const JsonField&) = delete;

  // `line` must be followed by kJsonPadding readable bytes. Strings are unescaped into `scratch`;
  // numbers are written there in canonical form (docs/FORMAT.md, "NDJSON keys").
  FieldResult extract(std::string_view line, std::string& scratch, std::string_view& key,
                      std::string& reason);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Column `column` (1-based) of `line` split on `delimiter`. With `quoted`, fields may be enclosed
// in double quotes (RFC 4180 within one line, "" for a quote), unescaped into `scratch` if needed.
FieldResult delimited_field(std::string_view line, char delimiter, uint32_t column, bool quoted,
                            std::string& scratch, std::string_view& key, std::string& reason);

// The canonical key text of a JSON number (docs/FORMAT.md), appended to `out`.
void append_canonical_int(int64_t v, std::string& out);
void append_canonical_uint(uint64_t v, std::string& out);
void append_canonical_double(double v, std::string& out);

}  // namespace bloomtool
