// Key normalisation steps, their canonical text (the `normalisation` field of a filter file) and
// a description for people. Steps work on bytes and ASCII only, so they never depend on a locale
// and give the same keys on every machine; steps that only shorten a key return a view of it, the
// others write into caller-owned scratch buffers, so the hot path allocates nothing.
#include "keys/normalise.h"

#include <array>

#include "bloomtool/error.h"

namespace bloomtool {

namespace {

constexpr std::string_view kStripPrefix = "strip-prefix=";

bool is_space(char c) noexcept {
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}
bool is_upper(char c) noexcept {
  return c >= 'A' && c <= 'Z';
}
bool is_digit(char c) noexcept {
  return c >= '0' && c <= '9';
}
char to_lower(char c) noexcept {
  return is_upper(c) ? static_cast<char>(c + ('a' - 'A')) : c;
}

std::string_view trim(std::string_view s) noexcept {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

// The scratch buffer that does not hold `key`, emptied, to write the next form of the key into.
std::string& other_buffer(std::string_view key, NormScratch& s) {
  const auto inside = [&](const std::string& b) {
    return !b.empty() && key.data() >= b.data() && key.data() <= b.data() + b.size();
  };
  std::string& out = inside(s.a) ? s.b : s.a;
  out.clear();
  return out;
}

std::string_view lowercase(std::string_view key, NormScratch& s) {
  size_t i = 0;
  while (i < key.size() && !is_upper(key[i])) ++i;
  if (i == key.size()) return key;
  std::string& out = other_buffer(key, s);
  out.assign(key);
  for (; i < out.size(); ++i) out[i] = to_lower(out[i]);
  return out;
}

std::string_view email(std::string_view key, NormScratch& s) {
  key = lowercase(trim(key), s);
  if (key.substr(0, 7) == "mailto:") key.remove_prefix(7);
  return key;
}

std::string_view phone(std::string_view key, NormScratch& s) {
  std::string& out = other_buffer(key, s);
  bool seen_digit = false;
  for (char c : key) {
    if (is_digit(c)) {
      out.push_back(c);
      seen_digit = true;
    } else if (c == '+' && !seen_digit && out.empty()) {
      out.push_back('+');
    }
  }
  if (!seen_digit) out.clear();
  return out;
}

// Default ports of the schemes whose port the url preset drops.
bool is_default_port(std::string_view scheme, std::string_view port) noexcept {
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 5> kPorts{
      {{"http", "80"}, {"https", "443"}, {"ws", "80"}, {"wss", "443"}, {"ftp", "21"}}};
  for (const auto& [sch, p] : kPorts) {
    if (sch == scheme && p == port) return true;
  }
  return false;
}

// scheme "://" (userinfo "@")? host (":" port)? path ("?" query)? — see docs/FORMAT.md.
std::string_view url(std::string_view key, NormScratch& s) {
  key = trim(key);
  if (const size_t hash = key.find('#'); hash != std::string_view::npos) key = key.substr(0, hash);
  std::string& out = other_buffer(key, s);

  size_t scheme_len = 0;
  size_t pos = 0;
  const size_t sep = key.find("://");
  if (sep != std::string_view::npos && sep > 0) {
    bool ok = (key[0] >= 'a' && key[0] <= 'z') || is_upper(key[0]);
    for (size_t i = 1; ok && i < sep; ++i) {
      const char c = key[i];
      ok = (c >= 'a' && c <= 'z') || is_upper(c) || is_digit(c) || c == '+' || c == '-' || c == '.';
    }
    if (ok) {
      for (size_t i = 0; i < sep; ++i) out.push_back(to_lower(key[i]));
      out.append("://");
      scheme_len = sep;
      pos = sep + 3;
    }
  }

  size_t auth_end = key.find_first_of("/?", pos);
  if (auth_end == std::string_view::npos) auth_end = key.size();
  std::string_view authority = key.substr(pos, auth_end - pos);
  const size_t at = authority.rfind('@');
  if (at != std::string_view::npos) {
    out.append(authority.substr(0, at + 1));
    authority.remove_prefix(at + 1);
  }
  // With a scheme, the text after the last ':' outside an IPv6 literal "[...]" is the port.
  std::string_view host = authority;
  std::string_view port;
  const size_t colon = authority.rfind(':');
  const size_t bracket = authority.rfind(']');
  const bool has_port = scheme_len != 0 && colon != std::string_view::npos &&
                        (bracket == std::string_view::npos || colon > bracket);
  if (has_port) {
    host = authority.substr(0, colon);
    port = authority.substr(colon + 1);
  }
  for (char c : host) out.push_back(to_lower(c));
  if (has_port && !port.empty() &&
      !is_default_port(std::string_view(out.data(), scheme_len), port)) {
    out.push_back(':');
    out.append(port);
  }

  std::string_view rest = key.substr(auth_end);
  const size_t q = rest.find('?');
  std::string_view path = rest.substr(0, q);
  if (!path.empty() && path.back() == '/') path.remove_suffix(1);
  out.append(path);
  if (q != std::string_view::npos) out.append(rest.substr(q));
  return out;
}

int hex_value(char c) noexcept {
  if (is_digit(c)) return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

bool needs_encoding(unsigned char c) noexcept {
  return c < 0x21 || c > 0x7E || c == '%' || c == ',' || c == ';' || c == '=';
}

// "mailto:" → "\"mailto:\"", with bytes outside printable ASCII as \xNN.
std::string quoted(std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "\"";
  for (unsigned char c : text) {
    if (c < 0x20 || c > 0x7E || c == '"' || c == '\\') {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    } else {
      out += static_cast<char>(c);
    }
  }
  out += '"';
  return out;
}

}  // namespace

std::string percent_encode(std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(text.size());
  for (unsigned char c : text) {
    if (needs_encoding(c)) {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

bool percent_decode(std::string_view text, std::string& out) {
  out.clear();
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '%') {
      if (i + 2 >= text.size()) return false;
      const int hi = hex_value(text[i + 1]);
      const int lo = hex_value(text[i + 2]);
      if (hi < 0 || lo < 0) return false;
      out.push_back(static_cast<char>(hi * 16 + lo));
      i += 2;
    } else {
      if (needs_encoding(static_cast<unsigned char>(c))) return false;
      out.push_back(c);
    }
  }
  return true;
}

NormStepKind parse_norm_preset(std::string_view name) {
  if (name == "email") return NormStepKind::kEmail;
  if (name == "phone") return NormStepKind::kPhone;
  if (name == "url") return NormStepKind::kUrl;
  throw Error(ErrorCode::kInvalidArgument,
              "normalisation preset '" + std::string(name) + "' is not one of email, phone, url");
}

Normaliser Normaliser::parse(std::string_view text, const std::string& path) {
  std::vector<NormStep> steps;
  if (text.empty()) return Normaliser();
  const auto unsupported = [&] {
    return Error(ErrorCode::kUnsupported, path + ": unsupported key normalisation '" +
                                              std::string(text) +
                                              "' (written by a newer bloomtool?)");
  };
  size_t start = 0;
  for (;;) {
    const size_t comma = text.find(',', start);
    const std::string_view step = text.substr(
        start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    if (step == "trim") {
      steps.push_back({NormStepKind::kTrim, {}});
    } else if (step == "lowercase") {
      steps.push_back({NormStepKind::kLowercase, {}});
    } else if (step == "email") {
      steps.push_back({NormStepKind::kEmail, {}});
    } else if (step == "phone") {
      steps.push_back({NormStepKind::kPhone, {}});
    } else if (step == "url") {
      steps.push_back({NormStepKind::kUrl, {}});
    } else if (step.substr(0, kStripPrefix.size()) == kStripPrefix) {
      std::string prefix;
      if (!percent_decode(step.substr(kStripPrefix.size()), prefix) || prefix.empty()) {
        throw unsupported();
      }
      steps.push_back({NormStepKind::kStripPrefix, std::move(prefix)});
    } else {
      throw unsupported();
    }
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return Normaliser(std::move(steps));
}

std::string Normaliser::to_string() const {
  std::string out;
  for (const NormStep& s : steps_) {
    if (!out.empty()) out += ',';
    switch (s.kind) {
      case NormStepKind::kTrim:
        out += "trim";
        break;
      case NormStepKind::kLowercase:
        out += "lowercase";
        break;
      case NormStepKind::kStripPrefix:
        out += kStripPrefix;
        out += percent_encode(s.arg);
        break;
      case NormStepKind::kEmail:
        out += "email";
        break;
      case NormStepKind::kPhone:
        out += "phone";
        break;
      case NormStepKind::kUrl:
        out += "url";
        break;
    }
  }
  return out;
}

std::string Normaliser::describe() const {
  if (steps_.empty()) return "none";
  std::string out;
  for (const NormStep& s : steps_) {
    if (!out.empty()) out += ", then ";
    switch (s.kind) {
      case NormStepKind::kTrim:
        out += "trim ASCII whitespace";
        break;
      case NormStepKind::kLowercase:
        out += "lowercase ASCII letters";
        break;
      case NormStepKind::kStripPrefix:
        out += "strip prefix " + quoted(s.arg);
        break;
      case NormStepKind::kEmail:
        out += "email (trim, lowercase, drop \"mailto:\")";
        break;
      case NormStepKind::kPhone:
        out += "phone (digits, and a leading +)";
        break;
      case NormStepKind::kUrl:
        out += "url (lowercase scheme and host; drop default port, fragment, trailing /)";
        break;
    }
  }
  return out;
}

std::string_view Normaliser::apply(std::string_view key, NormScratch& scratch) const {
  for (const NormStep& s : steps_) {
    switch (s.kind) {
      case NormStepKind::kTrim:
        key = trim(key);
        break;
      case NormStepKind::kLowercase:
        key = lowercase(key, scratch);
        break;
      case NormStepKind::kStripPrefix:
        if (key.substr(0, s.arg.size()) == s.arg) key.remove_prefix(s.arg.size());
        break;
      case NormStepKind::kEmail:
        key = email(key, scratch);
        break;
      case NormStepKind::kPhone:
        key = phone(key, scratch);
        break;
      case NormStepKind::kUrl:
        key = url(key, scratch);
        break;
    }
  }
  return key;
}

}  // namespace bloomtool
