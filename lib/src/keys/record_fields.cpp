// Key extraction from NDJSON and delimited records. NDJSON lines go through simdjson's DOM parser
// (runtime-dispatched to the CPU's SIMD kernel), which validates the whole line, so a line with
// garbage after the wanted field is refused rather than silently half-read. Delimited lines are
// split with memchr; CSV quoting, when asked for, is handled within the line.
#include "keys/record_fields.h"

#include <simdjson.h>

#include <charconv>
#include <cmath>
#include <cstring>

#include "bloomtool/error.h"

namespace bloomtool {

namespace {

// One short reason per family of simdjson errors. simdjson documents that its kernels may report
// different codes for the same bad input, so the families are coarse enough to stay stable.
const char* json_error_reason(simdjson::error_code e) noexcept {
  switch (e) {
    case simdjson::UTF8_ERROR:
      return "not valid JSON (invalid UTF-8)";
    case simdjson::STRING_ERROR:
    case simdjson::UNESCAPED_CHARS:
    case simdjson::UNCLOSED_STRING:
      return "not valid JSON (bad string)";
    case simdjson::T_ATOM_ERROR:
    case simdjson::F_ATOM_ERROR:
    case simdjson::N_ATOM_ERROR:
      return "not valid JSON (bad literal)";
    case simdjson::NUMBER_ERROR:
    case simdjson::NUMBER_OUT_OF_RANGE:
      return "not valid JSON (bad number, or beyond 64-bit range)";
    case simdjson::DEPTH_ERROR:
      return "not valid JSON (nested too deeply)";
    case simdjson::MEMALLOC:
      return "out of memory parsing JSON";
    case simdjson::CAPACITY:
      return "JSON line too large";
    default:
      return "not valid JSON (bad structure)";
  }
}

const char* json_type_name(simdjson::dom::element_type t) noexcept {
  using T = simdjson::dom::element_type;
  switch (t) {
    case T::ARRAY:
      return "an array";
    case T::OBJECT:
      return "an object";
    case T::BOOL:
      return "a boolean";
    case T::NULL_VALUE:
      return "null";
    default:
      return "a scalar";
  }
}

bool valid_json_pointer(std::string_view p) noexcept {
  if (p.empty()) return true;
  if (p.front() != '/') return false;
  for (size_t i = 0; i < p.size(); ++i) {
    if (p[i] == '~' && (i + 1 == p.size() || (p[i + 1] != '0' && p[i + 1] != '1'))) return false;
  }
  return true;
}

bool is_json_space(char c) noexcept {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

std::string column_count_reason(uint32_t have, uint32_t column) {
  return "only " + std::to_string(have) + (have == 1 ? " column" : " columns") + " (the key is in column " +
         std::to_string(column) + ")";
}

}  // namespace

void append_canonical_int(int64_t v, std::string& out) {
  char buf[24];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

void append_canonical_uint(uint64_t v, std::string& out) {
  char buf[24];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

void append_canonical_double(double v, std::string& out) {
  constexpr double kExactIntegers = 9007199254740992.0;  // 2^53
  if (std::trunc(v) == v && std::fabs(v) < kExactIntegers) {
    append_canonical_int(static_cast<int64_t>(v), out);  // also turns -0 into 0
    return;
  }
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

struct JsonField::Impl {
  simdjson::dom::parser parser;
  std::string pointer;
};

JsonField::JsonField(std::string pointer) : impl_(std::make_unique<Impl>()) {
  if (!valid_json_pointer(pointer)) {
    throw FieldError("field", "'" + pointer +
                                  "' is not a JSON pointer (RFC 6901: '/name/0/inner', '' "
                                  "for the whole line)");
  }
  impl_->pointer = std::move(pointer);
}

JsonField::~JsonField() = default;

FieldResult JsonField::extract(std::string_view line, std::string& scratch, std::string_view& key,
                               std::string& reason) {
  size_t first = 0;
  while (first < line.size() && is_json_space(line[first])) ++first;
  if (first == line.size()) return FieldResult::kBlank;

  simdjson::dom::element doc;
  auto err = impl_->parser.parse(line.data(), line.size(), false).get(doc);
  if (err) {
    reason = json_error_reason(err);
    return FieldResult::kBad;
  }
  const std::string& pointer = impl_->pointer;
  simdjson::dom::element v = doc;
  if (!pointer.empty() && doc.at_pointer(pointer).get(v)) {
    reason = "no field " + pointer;
    return FieldResult::kBad;
  }
  using T = simdjson::dom::element_type;
  switch (v.type()) {
    case T::STRING:
      key = v.get_string().value_unsafe();
      return FieldResult::kKey;
    case T::INT64:
      scratch.clear();
      append_canonical_int(v.get_int64().value_unsafe(), scratch);
      key = scratch;
      return FieldResult::kKey;
    case T::UINT64:
      scratch.clear();
      append_canonical_uint(v.get_uint64().value_unsafe(), scratch);
      key = scratch;
      return FieldResult::kKey;
    case T::DOUBLE:
      scratch.clear();
      append_canonical_double(v.get_double().value_unsafe(), scratch);
      key = scratch;
      return FieldResult::kKey;
    default:
      reason = (pointer.empty() ? std::string("the line") : "field " + pointer) + " is " +
               json_type_name(v.type()) + ", not a string or a number";
      return FieldResult::kBad;
  }
}

FieldResult delimited_field(std::string_view line, char delimiter, uint32_t column, bool quoted,
                            std::string& scratch, std::string_view& key, std::string& reason) {
  const char* const data = line.data();
  const size_t size = line.size();
  size_t pos = 0;
  uint32_t col = 1;
  if (!quoted) {
    for (; col < column; ++col) {
      const void* d = std::memchr(data + pos, delimiter, size - pos);
      if (d == nullptr) {
        reason = column_count_reason(col, column);
        return FieldResult::kBad;
      }
      pos = static_cast<size_t>(static_cast<const char*>(d) - data) + 1;
    }
    const void* d = std::memchr(data + pos, delimiter, size - pos);
    const size_t end =
        d != nullptr ? static_cast<size_t>(static_cast<const char*>(d) - data) : size;
    key = line.substr(pos, end - pos);
    return FieldResult::kKey;
  }
  for (;; ++col) {
    if (pos < size && data[pos] == '"') {
      size_t i = pos + 1;
      size_t close;
      bool doubled = false;
      for (;;) {
        close = line.find('"', i);
        if (close == std::string_view::npos) {
          reason = "unterminated quoted field in column " + std::to_string(col);
          return FieldResult::kBad;
        }
        if (close + 1 < size && data[close + 1] == '"') {
          doubled = true;
          i = close + 2;
          continue;
        }
        break;
      }
      const size_t after = close + 1;
      if (after < size && data[after] != delimiter) {
        reason = "text after the closing quote in column " + std::to_string(col);
        return FieldResult::kBad;
      }
      if (col == column) {
        const std::string_view inner = line.substr(pos + 1, close - pos - 1);
        if (!doubled) {
          key = inner;
        } else {
          scratch.clear();
          for (size_t j = 0; j < inner.size(); ++j) {
            scratch.push_back(inner[j]);
            if (inner[j] == '"') ++j;
          }
          key = scratch;
        }
        return FieldResult::kKey;
      }
      if (after >= size) {
        reason = column_count_reason(col, column);
        return FieldResult::kBad;
      }
      pos = after + 1;
    } else {
      const size_t d = line.find(delimiter, pos);
      if (col == column) {
        key = line.substr(pos, (d == std::string_view::npos ? size : d) - pos);
        return FieldResult::kKey;
      }
      if (d == std::string_view::npos) {
        reason = column_count_reason(col, column);
        return FieldResult::kBad;
      }
      pos = d + 1;
    }
  }
}

}  // namespace bloomtool
