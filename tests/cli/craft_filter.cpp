// Test helper for the CLI tests: rewrites a filter file with some header fields changed, keeping
// its payload, so tests can produce files that `build` never writes (another seed, hash id, kind,
// normalisation). Usage: craft_filter IN OUT FIELD=VALUE...
// Fields: kind, variant, hash_id, k, seed, distinct (distinct keys and keys added), normalisation,
// input_options, label, kind_params (comma-separated), and fill=SEED, which replaces the payload
// with pseudo-random bits (about half set, none at or above m: a dense, incompressible filter
// without hashing millions of keys), and clear_every=N, which clears every N-th set bit of the
// payload, clear_key=KEY, which clears the bits of one key of a Bloom filter (an attacker letting a
// member through), and keep_signature=1, which keeps the input's signature field as it was while
// both checksums are recomputed. Exit 0 on success, 2 on error.
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <optional>
#include <string>

#include <xxhash.h>

#include "filters/bloom.h"
#include "format/filter_file.h"
#include "keys/hash.h"
#include "format/signature.h"
#include "base/byte_order.h"

namespace {

uint64_t number(const std::string& s) {
  return std::stoull(s, nullptr, 0);
}

}  // namespace

int main(int argc, char** argv) {
  using namespace bloomtool;
  if (argc < 3) {
    std::fputs("usage: craft_filter IN OUT FIELD=VALUE...\n", stderr);
    return 2;
  }
  try {
    FilterFileContents c = read_filter_file(argv[1]);
    FilterHeader& h = c.header;
    const std::optional<SignatureField> signature = h.signature;
    bool keep_signature = false;
    for (int i = 3; i < argc; ++i) {
      const std::string arg = argv[i];
      const auto eq = arg.find('=');
      if (eq == std::string::npos) throw std::runtime_error("expected FIELD=VALUE: " + arg);
      const std::string field = arg.substr(0, eq), value = arg.substr(eq + 1);
      if (field == "kind") {
        h.kind = static_cast<FilterKind>(number(value));
      } else if (field == "variant") {
        h.variant = static_cast<uint32_t>(number(value));
      } else if (field == "hash_id") {
        h.hash_id = static_cast<uint32_t>(number(value));
      } else if (field == "k") {
        h.k = static_cast<uint32_t>(number(value));
      } else if (field == "distinct") {
        h.distinct_estimate = h.keys_added = number(value);
      } else if (field == "seed") {
        h.seed = number(value);
      } else if (field == "normalisation") {
        h.normalisation = value;
      } else if (field == "input_options") {
        h.input_options = value;
      } else if (field == "label") {
        h.label = value;
      } else if (field == "fill") {
        uint64_t state = number(value);
        for (uint64_t& w : c.payload.span()) {
          state += 0x9E3779B97F4A7C15ull;
          w = mix64(state);
        }
        if (h.kind == FilterKind::kBloom && h.m % 64 != 0)
          c.payload.span().back() &= (uint64_t{1} << (h.m % 64)) - 1;
      } else if (field == "clear_every") {
        // Clears every N-th set bit (N = 20: 5% of them), as tampering would.
        const uint64_t every = number(value);
        uint64_t seen = 0;
        for (uint64_t& w : c.payload.span())
          for (int b = 0; b < 64; ++b)
            if (((w >> b) & 1) && ++seen % every == 0) w &= ~(uint64_t{1} << b);
      } else if (field == "clear_key") {
        BloomFilter one(h.m, h.k, static_cast<BloomVariant>(h.variant));
        one.add(hash_key(value, h.seed));
        for (size_t i = 0; i < c.payload.size(); ++i) c.payload.data()[i] &= ~one.words()[i];
      } else if (field == "keep_signature") {
        keep_signature = value == "1";
      } else if (field == "kind_params") {
        h.kind_params.clear();
        for (size_t at = 0; at < value.size();) {
          const size_t comma = value.find(',', at);
          const size_t end = comma == std::string::npos ? value.size() : comma;
          h.kind_params.push_back(number(value.substr(at, end - at)));
          at = end + 1;
        }
      } else {
        throw std::runtime_error("unknown field: " + field);
      }
    }
    std::vector<uint8_t> image = encode_filter_file(h, c.payload.span(), h.payload_raw_bytes);
    if (keep_signature && signature) {
      // Field 9 as it was, appended to the fields; header length and checksum fixed.
      const auto value = encode_signature_field(*signature);
      uint8_t record[8];
      le::store<uint16_t>(record, static_cast<uint16_t>(FieldTag::kSignature));
      le::store<uint16_t>(record + 2, 0);
      le::store<uint32_t>(record + 4, static_cast<uint32_t>(value.size()));
      const auto at = static_cast<ptrdiff_t>(h.header_bytes - 8);
      image.insert(image.begin() + at, value.begin(), value.end());
      image.insert(image.begin() + at, record, record + 8);
      const uint32_t header_bytes = static_cast<uint32_t>(h.header_bytes + 8 + value.size());
      le::store<uint32_t>(&image[12], header_bytes);
      le::store<uint16_t>(&image[10], kFormatMinorLatest);
      le::store<uint64_t>(&image[header_bytes - 8], XXH3_64bits(image.data(), header_bytes - 8));
    }
    std::ofstream out(argv[2], std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(image.data()),
              static_cast<std::streamsize>(image.size()));
    if (!out) throw std::runtime_error(std::string("cannot write ") + argv[2]);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "craft_filter: %s\n", e.what());
    return 2;
  }
  return 0;
}
