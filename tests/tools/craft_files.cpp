// craft_files: makes the known-bad filter files in testdata/bad/ from the golden files, and small
// byte surgeries for the CLI corruption tests. Every crafted header gets a recomputed checksum
// (XXH3-64, seed 0, of bytes [0, header_bytes - 8)) and, where the payload changes, a recomputed
// payload checksum, so each file reaches the one check it is meant to fail. Output is
// deterministic: the same golden files always give the same bad files.
//
//   craft_files bad GOLDEN_DIR OUT_DIR   write every bad file (names listed in
//   testdata/bad/README.md) craft_files flip IN BIT OUT          copy IN to OUT with bit BIT (0 =
//   lsb of byte 0) inverted
#include <xxhash.h>
#include <zstd.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

#include "base/byte_order.h"

namespace {

using Bytes = std::vector<uint8_t>;
namespace le = bloomtool::le;

// Offsets in the fixed header (docs/FORMAT.md).
constexpr size_t kMajor = 8, kHeaderBytes = 12, kFeatures = 16, kKind = 24, kVariant = 28,
                 kHashId = 32, kK = 36, kM = 48, kRaw = 88, kStored = 96, kCodec = 104,
                 kPayloadSum = 112, kFixed = 128;

Bytes read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  return Bytes(std::istreambuf_iterator<char>(in), {});
}

void write_file(const std::string& path, const Bytes& b) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
  if (!out) throw std::runtime_error("cannot write " + path);
}

// A filter file image with field setters that keep both checksums valid.
struct Image {
  Bytes b;

  uint32_t header_bytes() const { return le::load<uint32_t>(&b[kHeaderBytes]); }
  uint64_t stored() const { return le::load<uint64_t>(&b[kStored]); }
  Bytes payload() const { return Bytes(b.begin() + header_bytes(), b.end()); }
  Bytes fields() const { return Bytes(b.begin() + kFixed, b.begin() + header_bytes() - 8); }

  void fix_header() {
    const uint32_t hb = header_bytes();
    le::store<uint64_t>(&b[hb - 8], XXH3_64bits(b.data(), hb - 8));
  }
  void fix_payload() {
    const uint32_t hb = header_bytes();
    le::store<uint64_t>(&b[kPayloadSum], XXH3_64bits(b.data() + hb, b.size() - hb));
    fix_header();
  }
  template <typename T>
  T get(size_t offset) const {
    return le::load<T>(&b[offset]);
  }
  template <typename T>
  Image& set(size_t offset, T v) {
    le::store<T>(&b[offset], v);
    fix_header();
    return *this;
  }
  // Replaces the stored payload, updating its length and checksum.
  Image& with_payload(const Bytes& p) {
    b.resize(header_bytes());
    b.insert(b.end(), p.begin(), p.end());
    le::store<uint64_t>(&b[kStored], p.size());
    fix_payload();
    return *this;
  }
  // Replaces the tag-length-value area between the fixed header and the header checksum.
  Image& with_fields(const Bytes& f) {
    const Bytes p = payload();
    Bytes out(b.begin(), b.begin() + kFixed);
    out.insert(out.end(), f.begin(), f.end());
    out.resize(out.size() + 8);
    le::store<uint32_t>(&out[kHeaderBytes], static_cast<uint32_t>(out.size()));
    out.insert(out.end(), p.begin(), p.end());
    b = std::move(out);
    fix_payload();
    return *this;
  }
};

Bytes field(uint16_t tag, uint16_t flags, const Bytes& value);

// The image with its kind_params field (tag 5) replaced by `params`.
Image with_kind_params(const Image& i, const std::vector<uint64_t>& params);

Bytes field(uint16_t tag, uint16_t flags, const Bytes& value) {
  Bytes f(8 + value.size());
  le::store<uint16_t>(&f[0], tag);
  le::store<uint16_t>(&f[2], flags);
  le::store<uint32_t>(&f[4], static_cast<uint32_t>(value.size()));
  std::copy(value.begin(), value.end(), f.begin() + 8);
  return f;
}

Image with_kind_params(const Image& i, const std::vector<uint64_t>& params) {
  const Bytes f = i.fields();
  Bytes out;
  for (size_t at = 0; at + 8 <= f.size();) {
    const uint16_t tag = le::load<uint16_t>(&f[at]);
    const uint32_t len = le::load<uint32_t>(&f[at + 4]);
    if (tag != 5) out.insert(out.end(), f.begin() + at, f.begin() + at + 8 + len);
    at += 8 + len;
  }
  Bytes value(params.size() * 8);
  for (size_t k = 0; k < params.size(); ++k) le::store<uint64_t>(&value[k * 8], params[k]);
  const Bytes kp = field(5, 0, value);
  out.insert(out.end(), kp.begin(), kp.end());
  Image copy = i;
  copy.with_fields(out);
  return copy;
}

// The kind_params of an image.
std::vector<uint64_t> kind_params(const Image& i) {
  const Bytes f = i.fields();
  for (size_t at = 0; at + 8 <= f.size();) {
    const uint16_t tag = le::load<uint16_t>(&f[at]);
    const uint32_t len = le::load<uint32_t>(&f[at + 4]);
    if (tag == 5) {
      std::vector<uint64_t> p(len / 8);
      for (size_t k = 0; k < p.size(); ++k) p[k] = le::load<uint64_t>(&f[at + 8 + k * 8]);
      return p;
    }
    at += 8 + len;
  }
  throw std::runtime_error("golden file without kind parameters");
}

Bytes concat(Bytes a, const Bytes& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

Bytes decompress(const Bytes& frame) {
  const unsigned long long n = ZSTD_getFrameContentSize(frame.data(), frame.size());
  if (n == ZSTD_CONTENTSIZE_ERROR || n == ZSTD_CONTENTSIZE_UNKNOWN || n > (1u << 24))
    throw std::runtime_error("golden payload is not a zstd frame with a small content size");
  Bytes out(n);
  const size_t r = ZSTD_decompress(out.data(), out.size(), frame.data(), frame.size());
  if (ZSTD_isError(r) || r != n) throw std::runtime_error("golden payload does not decompress");
  return out;
}

Bytes compress(const Bytes& raw) {
  Bytes out(ZSTD_compressBound(raw.size()));
  const size_t r = ZSTD_compress(out.data(), out.size(), raw.data(), raw.size(), 3);
  if (ZSTD_isError(r)) throw std::runtime_error("zstd compression failed");
  out.resize(r);
  return out;
}

// Length of the zstd frame header at the start of `f` (RFC 8878 section 3.1.1.1).
size_t frame_header_size(const Bytes& f) {
  const uint8_t fhd = f.at(4);
  const unsigned fcs_flag = fhd >> 6, single = (fhd >> 5) & 1, dict_flag = fhd & 3;
  const size_t dict_bytes[4] = {0, 1, 2, 4};
  const size_t fcs_bytes[4] = {single ? 1u : 0u, 2, 4, 8};
  return 4 + 1 + (single ? 0 : 1) + dict_bytes[dict_flag] + fcs_bytes[fcs_flag];
}

// A zstd frame header that declares `content` bytes and carries no block at all.
Bytes frame_header_only(uint64_t content) {
  Bytes f = {0x28, 0xB5, 0x2F, 0xFD, 0xC0, 0x00};  // FCS field of 8 bytes, window 1 KiB
  f.resize(f.size() + 8);
  le::store<uint64_t>(&f[6], content);
  return f;
}

struct Goldens {
  Image standard, blocked, xor8, fuse16, part, bumped;  // part: a binary fuse file of 4 partitions
};

// Offsets in the payload of the partitioned golden file: its table of 4 entries of 9 words
// (keys, word offset, word count, checksum, m, 4 fuse parameters).
constexpr size_t kEntryWords = 9;

// The image with field 10 (partitions) changed by `edit` (its 32-byte value).
Image with_partitions_field(const Image& i, const std::function<void(Bytes&)>& edit) {
  const Bytes f = i.fields();
  Bytes out;
  for (size_t at = 0; at + 8 <= f.size();) {
    const uint16_t tag = le::load<uint16_t>(&f[at]);
    const uint32_t len = le::load<uint32_t>(&f[at + 4]);
    Bytes rec(f.begin() + at, f.begin() + at + 8 + len);
    if (tag == 10) {
      Bytes v(rec.begin() + 8, rec.end());
      edit(v);
      std::copy(v.begin(), v.end(), rec.begin() + 8);
    }
    out.insert(out.end(), rec.begin(), rec.end());
    at += 8 + len;
  }
  Image copy = i;
  copy.with_fields(out);
  return copy;
}

// The image with its decompressed payload's u64 word `word` set to `value`.
Image with_payload_word(const Image& i, size_t word, uint64_t value) {
  Bytes raw = decompress(i.payload());
  le::store<uint64_t>(&raw.at(word * 8), value);
  Image copy = i;
  copy.with_payload(compress(raw));
  return copy;
}

uint64_t payload_word(const Image& i, size_t word) {
  const Bytes raw = decompress(i.payload());
  return le::load<uint64_t>(&raw.at(word * 8));
}
using Maker = std::function<Bytes(const Goldens&)>;

struct BadFile {
  const char* name;
  Maker make;
};

Image copy(const Image& i) {
  return i;
}

std::vector<BadFile> bad_files() {
  using G = const Goldens&;
  return {
      {"empty.bf", [](G) { return Bytes{}; }},
      {"not-a-filter.bf",
       [](G) {
         const std::string text = "https://example.com/\nthis is a key list, not a filter\n";
         return Bytes(text.begin(), text.end());
       }},
      {"magic-only.bf",
       [](G g) {
         const Image& s = g.standard;
         return Bytes(s.b.begin(), s.b.begin() + 8);
       }},
      {"header-cut.bf",
       [](G g) {
         const Image& s = g.standard;
         return Bytes(s.b.begin(), s.b.begin() + 100);
       }},
      {"header-length-small.bf",
       [](G g) {
         const Image& s = g.standard;
         return copy(s).set<uint32_t>(kHeaderBytes, 100).b;
       }},
      {"header-length-huge.bf",
       [](G g) {
         const Image& s = g.standard;
         Image i = copy(s);
         le::store<uint32_t>(&i.b[kHeaderBytes], 0xFFFFFFFFu);
         return i.b;
       }},
      {"header-checksum.bf",
       [](G g) {
         const Image& s = g.standard;
         Image i = copy(s);
         i.b[i.header_bytes() - 1] ^= 0x10;
         return i.b;
       }},
      {"major-2.bf",
       [](G g) {
         const Image& s = g.standard;
         return copy(s).set<uint16_t>(kMajor, 2).b;
       }},
      {"required-feature.bf",
       [](G g) {
         const Image& s = g.standard;
         return copy(s).set<uint64_t>(kFeatures, 1).b;
       }},
      {"kind-99.bf",
       [](G g) {
         const Image& s = g.standard;
         return copy(s).set<uint32_t>(kKind, 99).b;
       }},
      {"codec-7.bf",
       [](G g) {
         const Image& s = g.standard;
         return copy(s).set<uint32_t>(kCodec, 7).b;
       }},
      {"field-cut-short.bf",
       [](G g) {
         const Image& s = g.standard;
         return copy(s).with_fields(concat(s.fields(), {1, 0, 0, 0})).b;
       }},
      {"field-past-header.bf",
       [](G g) {
         const Image& s = g.standard;
         Bytes f = field(2, 0, {'x', 'y'});
         le::store<uint32_t>(&f[4], 1000);
         return copy(s).with_fields(concat(s.fields(), f)).b;
       }},
      {"kind-params-length.bf",
       [](G g) {
         const Image& s = g.standard;
         return copy(s).with_fields(concat(s.fields(), field(5, 0, Bytes(12)))).b;
       }},
      {"empty-lines-length.bf",
       [](G g) {
         const Image& s = g.standard;
         return copy(s).with_fields(concat(field(6, 0, Bytes(4)), s.fields())).b;
       }},
      {"required-field.bf",
       [](G g) {
         const Image& s = g.standard;
         return copy(s).with_fields(concat(s.fields(), field(999, 1, {'n', 'e', 'w'}))).b;
       }},
      {"normalisation-unknown.bf",
       [](G g) {
         const Image& s = g.standard;
         return copy(s).with_fields(concat(s.fields(), field(3, 0, {'r', 'o', 't', '1', '3'}))).b;
       }},
      {"optional-field.bf",
       [](G g) {
         const Image& s = g.standard;
         return copy(s).with_fields(concat(s.fields(), field(999, 0, {'n', 'e', 'w'}))).b;
       }},
      {"payload-truncated.bf",
       [](G g) {
         const Image& s = g.standard;
         return Bytes(s.b.begin(), s.b.end() - 10);
       }},
      {"payload-stored-huge.bf",
       [](G g) {
         const Image& s = g.standard;
         return copy(s).set<uint64_t>(kStored, ~uint64_t{0}).b;
       }},
      {"trailing-bytes.bf",
       [](G g) {
         const Image& s = g.standard;
         return concat(s.b, {0, 0, 0, 0, 0});
       }},
      {"raw-length-odd.bf",
       [](G g) {
         const Image& s = g.standard;
         return copy(s).set<uint64_t>(kRaw, 13).b;
       }},
      {"raw-2pow60-bits.bf",
       [](G g) {
         const Image& s = g.standard;
         Image i = copy(s);
         i.set<uint64_t>(kM, uint64_t{1} << 60);
         i.set<uint64_t>(kRaw, uint64_t{1} << 57);
         return i.with_payload(frame_header_only(uint64_t{1} << 57)).b;
       }},
      {"raw-near-2pow64.bf",
       [](G g) {
         const Image& s = g.standard;
         Image i = copy(s);
         i.set<uint64_t>(kRaw, ~uint64_t{7});
         return i.with_payload(frame_header_only(~uint64_t{7})).b;
       }},
      {"larger-than-memory.bf",
       [](G g) {
         const Image& s = g.standard;
         Image i = copy(s);
         i.set<uint64_t>(kM, uint64_t{1} << 40);
         i.set<uint64_t>(kRaw, uint64_t{1} << 37);
         return i.with_payload(frame_header_only(uint64_t{1} << 37)).b;
       }},
      {"codec-none-length.bf",
       [](G g) {
         const Image& s = g.standard;
         Image i = copy(s);
         i.set<uint32_t>(kCodec, 0);
         return i.b;
       }},
      {"payload-checksum.bf",
       [](G g) {
         const Image& s = g.standard;
         Image i = copy(s);
         i.b[i.header_bytes() + i.stored() / 2] ^= 0x01;
         return i.b;
       }},
      {"frame-size-mismatch.bf",
       [](G g) {
         const Image& s = g.standard;
         Bytes raw = decompress(s.payload());
         raw.resize(raw.size() + 8);
         return copy(s).with_payload(compress(raw)).b;
       }},
      {"zstd-bad-block.bf",
       [](G g) {
         const Image& s = g.standard;
         Bytes p = s.payload();
         const size_t fh = frame_header_size(p);
         p[fh] |= 0x06;  // block type 3: reserved, never valid
         return copy(s).with_payload(p).b;
       }},
      {"zstd-ends-early.bf",
       [](G g) {
         const Image& s = g.standard;
         Bytes p = s.payload();
         p.resize(p.size() - 6);
         return copy(s).with_payload(p).b;
       }},
      {"zstd-second-frame.bf",
       [](G g) {
         const Image& s = g.standard;
         return copy(s).with_payload(concat(s.payload(), compress({1, 2, 3}))).b;
       }},
      {"hash-id-7.bf",
       [](G g) {
         const Image& s = g.standard;
         return copy(s).set<uint32_t>(kHashId, 7).b;
       }},
      // Xor and binary fuse files: their parameters against each other, m and the payload.
      {"fuse-variant-1.bf", [](G g) { return copy(g.fuse16).set<uint32_t>(kVariant, 1).b; }},
      {"fuse-fingerprint-12.bf", [](G g) { return copy(g.fuse16).set<uint32_t>(kK, 12).b; }},
      {"fuse-params-count.bf",
       [](G g) {
         auto p = kind_params(g.fuse16);
         p.pop_back();
         return with_kind_params(g.fuse16, p).b;
       }},
      {"fuse-segment-length.bf",
       [](G g) {
         auto p = kind_params(g.fuse16);
         p[0] = 3;
         return with_kind_params(g.fuse16, p).b;
       }},
      {"fuse-segment-count-zero.bf",
       [](G g) {
         auto p = kind_params(g.fuse16);
         p[1] = 0;
         return with_kind_params(g.fuse16, p).b;
       }},
      {"fuse-array-length.bf",
       [](G g) {
         auto p = kind_params(g.fuse16);
         p[2] += 1;
         return with_kind_params(g.fuse16, p).b;
       }},
      {"fuse-m-mismatch.bf", [](G g) { return copy(g.fuse16).set<uint64_t>(kM, 95).b; }},
      {"fuse-payload-length.bf",
       [](G g) {
         auto p = kind_params(g.fuse16);  // one more segment, consistently, same payload
         p[1] += 1;
         p[2] = (p[1] + 2) * p[0];
         Image i = with_kind_params(g.fuse16, p);
         return i.set<uint64_t>(kM, p[2]).b;
       }},
      {"xor-params-count.bf",
       [](G g) {
         auto p = kind_params(g.xor8);
         p.push_back(7);
         return with_kind_params(g.xor8, p).b;
       }},
      {"xor-block-length-zero.bf",
       [](G g) {
         auto p = kind_params(g.xor8);
         p[0] = 0;
         return with_kind_params(g.xor8, p).b;
       }},
      {"xor-2pow40-bits.bf",
       [](G g) {
         auto p = kind_params(g.xor8);
         p[0] = uint64_t{1} << 37;  // 3 * 2^37 slots of 8 bits: over 2^40 bits
         Image i = with_kind_params(g.xor8, p);
         return i.set<uint64_t>(kM, 3 * p[0]).b;
       }},
      {"xor-padding.bf",
       [](G g) {
         Bytes raw = decompress(g.xor8.payload());
         raw.back() = 0x01;  // a bit after the last of the 84 fingerprints
         return copy(g.xor8).with_payload(compress(raw)).b;
       }},
      // Bumped Ribbon files (kind 4, variant 1): the layers against each other, m and the codes.
      {"ribbon-variant-2.bf", [](G g) { return copy(g.bumped).set<uint32_t>(kVariant, 2).b; }},
      {"ribbon-layer-count.bf",
       [](G g) {
         auto p = kind_params(g.bumped);
         p[0] = 9;
         return with_kind_params(g.bumped, p).b;
       }},
      {"ribbon-params-count.bf",
       [](G g) {
         auto p = kind_params(g.bumped);
         p.pop_back();
         return with_kind_params(g.bumped, p).b;
       }},
      {"ribbon-m-mismatch.bf",
       [](G g) {
         Image i = copy(g.bumped);
         return i.set<uint64_t>(kM, i.get<uint64_t>(kM) + 64).b;
       }},
      {"ribbon-last-layer-bumps.bf",
       [](G g) {
         auto p = kind_params(g.bumped);
         p.back() = 1;
         return with_kind_params(g.bumped, p).b;
       }},
      {"ribbon-codes.bf",
       [](G g) {
         Bytes raw = decompress(g.bumped.payload());
         raw[0] ^= 0x03;  // block 0's code: the starts it bumps change
         return copy(g.bumped).with_payload(compress(raw)).b;
       }},
      {"kind-xor.bf",
       [](G g) {
         const Image& s = g.standard;
         return copy(s).set<uint32_t>(kKind, 2).b;
       }},
      {"variant-9.bf",
       [](G g) {
         const Image& s = g.standard;
         return copy(s).set<uint32_t>(kVariant, 9).b;
       }},
      {"m-zero.bf",
       [](G g) {
         const Image& s = g.standard;
         return copy(s).set<uint64_t>(kM, 0).b;
       }},
      {"m-2pow60.bf",
       [](G g) {
         const Image& s = g.standard;
         return copy(s).set<uint64_t>(kM, uint64_t{1} << 60).b;
       }},
      {"k-zero.bf",
       [](G g) {
         const Image& s = g.standard;
         return copy(s).set<uint32_t>(kK, 0).b;
       }},
      {"k-65.bf",
       [](G g) {
         const Image& s = g.standard;
         return copy(s).set<uint32_t>(kK, 65).b;
       }},
      {"blocked-m-not-blocks.bf",
       [](G g) {
         const Image& b = g.blocked;
         return copy(b).set<uint64_t>(kM, 1000).b;
       }},
      {"m-payload-mismatch.bf",
       [](G g) {
         const Image& s = g.standard;
         return copy(s).set<uint64_t>(kM, 2048).b;
       }},
      {"bits-beyond-m.bf",
       [](G g) {
         const Image& s = g.standard;
         Bytes raw = decompress(s.payload());
         raw.back() |= 0x80;  // bit 1023
         Image i = copy(s);
         i.set<uint64_t>(kM, 1000);
         return i.with_payload(compress(raw)).b;
       }},
      // Partitioned static filters (format 1.3), from the 4-partition binary fuse golden file.
      {"part-bits-zero.bf",
       [](G g) {
         return with_partitions_field(g.part, [](Bytes& v) { le::store<uint32_t>(&v[0], 0); }).b;
       }},
      {"part-range.bf",
       [](G g) {
         return with_partitions_field(g.part, [](Bytes& v) { le::store<uint32_t>(&v[8], 2); }).b;
       }},
      {"part-entry-words.bf",
       [](G g) {
         return with_partitions_field(g.part, [](Bytes& v) { le::store<uint32_t>(&v[4], 8); }).b;
       }},
      {"part-rate.bf",
       [](G g) {
         return with_partitions_field(g.part,
                                      [](Bytes& v) {
                                        le::store<uint64_t>(
                                            &v[16], 0x3F80000000000000ull);  // 2^-7 instead of 2^-8
                                      })
             .b;
       }},
      {"part-field-length.bf",
       [](G g) {
         Image i = g.part;
         const Bytes f = i.fields();
         Bytes out;
         for (size_t at = 0; at + 8 <= f.size();) {
           const uint16_t tag = le::load<uint16_t>(&f[at]);
           const uint32_t len = le::load<uint32_t>(&f[at + 4]);
           if (tag == 10) {
             const Bytes v(f.begin() + at + 8, f.begin() + at + 8 + len - 8);
             const Bytes rec = field(10, 1, v);
             out.insert(out.end(), rec.begin(), rec.end());
           } else {
             out.insert(out.end(), f.begin() + at, f.begin() + at + 8 + len);
           }
           at += 8 + len;
         }
         return i.with_fields(out).b;
       }},
      {"part-in-bloom.bf",
       [](G g) {
         Bytes v(32, 0);
         le::store<uint32_t>(&v[0], 2);
         le::store<uint32_t>(&v[4], 9);
         le::store<uint32_t>(&v[12], 4);
         return copy(g.standard).with_fields(concat(g.standard.fields(), field(10, 1, v))).b;
       }},
      {"part-kind-params-field.bf",
       [](G g) {
         return with_kind_params(g.part, {64, 1, 192, 7}).b;
       }},
      {"part-offset-gap.bf",
       [](G g) {
         const size_t at = kEntryWords + 1;  // entry 1's word offset
         return with_payload_word(g.part, at, payload_word(g.part, at) + 1).b;
       }},
      {"part-count-huge.bf", [](G g) { return with_payload_word(g.part, 2, uint64_t{1} << 60).b; }},
      {"part-keys-sum.bf",
       [](G g) { return with_payload_word(g.part, 0, payload_word(g.part, 0) + 1).b; }},
      {"part-m-sum.bf",
       [](G g) {
         Image i = g.part;
         return i.set<uint64_t>(kM, le::load<uint64_t>(&i.b[kM]) + 1).b;
       }},
      {"part-segment-length.bf", [](G g) { return with_payload_word(g.part, 5, 3).b; }},
      {"part-checksum.bf",
       [](G g) {
         // One bit of partition 2's fingerprints, the file's payload checksum recomputed.
         const size_t at = payload_word(g.part, 2 * kEntryWords + 1);
         return with_payload_word(g.part, at, payload_word(g.part, at) ^ 0x100).b;
       }},
  };
}

int usage() {
  std::fputs("usage: craft_files bad GOLDEN_DIR OUT_DIR | flip IN BIT OUT\n", stderr);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const std::string cmd = argc > 1 ? argv[1] : "";
    if (cmd == "bad" && argc == 4) {
      const std::string golden = argv[2], out = argv[3];
      const Goldens g{{read_file(golden + "/v1-bloom-standard.bf")},
                      {read_file(golden + "/v1-bloom-blocked.bf")},
                      {read_file(golden + "/v1-xor-8.bf")},
                      {read_file(golden + "/v1-fuse-16.bf")},
                      {read_file(golden + "/v1.3-fuse-8-partitioned.bf")},
                      {read_file(golden + "/v1.3-ribbon-bumped.bf")}};
      for (const BadFile& f : bad_files()) write_file(out + "/" + f.name, f.make(g));
      return 0;
    }
    if (cmd == "flip" && argc == 5) {
      Bytes b = read_file(argv[2]);
      const unsigned long long bit = std::stoull(argv[3]);
      if (bit / 8 >= b.size()) throw std::runtime_error("bit index beyond the file");
      b[bit / 8] ^= static_cast<uint8_t>(1u << (bit % 8));
      write_file(argv[4], b);
      return 0;
    }
    return usage();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "craft_files: %s\n", e.what());
    return 2;
  }
}
