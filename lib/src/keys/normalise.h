// Key normalisation: an ordered list of steps (trim, lowercase, strip a prefix, or one of the
// presets email / phone / url) applied to every key before hashing. The list is recorded in the
// filter file as canonical text (docs/FORMAT.md, field 3) so that `query` applies exactly the
// steps the filter was built with.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace bloomtool {

enum class NormStepKind {
  kTrim,         // drop leading and trailing ASCII whitespace (space, \t, \n, \v, \f, \r)
  kLowercase,    // A-Z to a-z; other bytes unchanged
  kStripPrefix,  // remove `arg` once from the start of the key, when the key starts with it
  kEmail,        // trim, lowercase, then drop a leading "mailto:"
  kPhone,        // keep the digits, and a '+' that comes before the first digit
  kUrl,          // see docs/FORMAT.md: lowercase scheme and host, drop default port,
                 // fragment and one trailing '/' of the path
};

struct NormStep {
  NormStepKind kind;
  std::string arg;  // kStripPrefix only
  bool operator==(const NormStep&) const = default;
};

// Two reusable buffers, so applying a normaliser costs no allocation once they have grown.
struct NormScratch {
  std::string a, b;
};

class Normaliser {
 public:
  Normaliser() = default;  // no steps: keys are used as they are
  explicit Normaliser(std::vector<NormStep> steps) : steps_(std::move(steps)) {}

  // Parses the canonical text of field 3. Throws kUnsupported naming `path` when the text holds
  // a step this version does not know or is not well formed.
  static Normaliser parse(std::string_view text, const std::string& path);

  // Canonical text, e.g. "trim,lowercase,strip-prefix=mailto:" ("" when there are no steps).
  std::string to_string() const;
  // For people, e.g. "trim ASCII whitespace, then lowercase ASCII letters" ("none").
  std::string describe() const;

  bool empty() const noexcept { return steps_.empty(); }
  const std::vector<NormStep>& steps() const noexcept { return steps_; }

  // Applies every step to `key`. The result views `key` itself (when steps only shortened it) or
  // one of the scratch buffers; it stays valid until `scratch` is used again.
  std::string_view apply(std::string_view key, NormScratch& scratch) const;

 private:
  std::vector<NormStep> steps_;
};

// The preset named on the command line ("email", "phone", "url"); throws kInvalidArgument.
NormStepKind parse_norm_preset(std::string_view name);

// Percent-encoding used for free text inside the canonical option strings: bytes outside
// 0x21-0x7E and the bytes % , ; = become %XX (upper-case hex).
std::string percent_encode(std::string_view text);
// Inverse of percent_encode; false when `text` holds a stray '%' or a raw byte percent_encode
// would have encoded.
bool percent_decode(std::string_view text, std::string& out);

}  // namespace bloomtool
