// The filter-kind seam: every kind answers keys through its key rule (the file's seed for xxh3)
// exactly as its hash level answers the keys' hashes, exposes its Bloom bit view only when it is
// a Bloom filter, and is found in the one table of kinds (filter_kinds.h).
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/stats.h"
#include "bloomtool/error.h"
#include "filters/bloom.h"
#include "filters/filter_kinds.h"
#include "filters/ribbon_construct.h"
#include "filters/xor_construct.h"
#include "keys/hash.h"

using namespace bloomtool;

namespace {

constexpr uint64_t kSeed = 0x1234567887654321ull;

std::vector<std::string> numbered(const std::string& prefix, size_t n) {
  std::vector<std::string> out;
  for (size_t i = 0; i < n; ++i) out.push_back(prefix + std::to_string(i));
  return out;
}

std::vector<uint64_t> hashes_of(const std::vector<std::string_view>& keys, uint64_t seed) {
  std::vector<uint64_t> out;
  for (std::string_view k : keys) out.push_back(hash_key(k, seed));
  return out;
}

// The words a filter's probes read, as visit_key_words and visit_probed_words report them.
std::vector<uint64_t> visited(const Filter& f, const std::vector<std::string_view>& keys,
                              const std::vector<uint64_t>* hashes) {
  std::vector<uint64_t> words;
  const auto add = [](void* ctx, uint64_t w) noexcept {
    static_cast<std::vector<uint64_t>*>(ctx)->push_back(w);
  };
  if (hashes) {
    f.visit_probed_words(*hashes, add, &words);
  } else {
    f.visit_key_words(keys, add, &words);
  }
  return words;
}

// Members all found by key; every answer by key the answer by the key's hash with the seed.
void check_answers_keys(const Filter& f, const std::vector<std::string_view>& members,
                        const std::vector<std::string_view>& others) {
  REQUIRE(f.rule().takes_key_hash());
  CHECK(f.rule().seed == kSeed);
  std::vector<uint8_t> by_key(members.size());
  f.contains_keys(members, by_key.data());
  CHECK(std::count(by_key.begin(), by_key.end(), 1) == static_cast<long>(members.size()));
  by_key.assign(others.size(), 7);
  f.contains_keys(others, by_key.data());
  const std::vector<uint64_t> h = hashes_of(others, kSeed);
  std::vector<uint8_t> by_hash(others.size(), 9);
  f.contains_batch(h, by_hash.data());
  CHECK(by_key == by_hash);
  CHECK(std::count(by_key.begin(), by_key.end(), 1) < static_cast<long>(others.size()) / 10);
  CHECK(visited(f, others, nullptr) == visited(f, others, &h));
}

}  // namespace

TEST_CASE("every kind answers keys by its rule and the file's seed", "[kinds]") {
  const std::vector<std::string> member_text = numbered("member-", 3000);
  const std::vector<std::string> other_text = numbered("other-", 5000);
  const std::vector<std::string_view> members(member_text.begin(), member_text.end());
  const std::vector<std::string_view> others(other_text.begin(), other_text.end());
  const KeyRule rule{kHashXxh3_64, kSeed};
  for (BloomVariant v : {BloomVariant::kStandard, BloomVariant::kBlocked512}) {
    BloomFilter f(rule, 3000 * 10, 7, v);
    f.add_keys(members);
    CHECK(f.bloom() == &f);
    check_answers_keys(f, members, others);
    std::vector<uint64_t> pos(f.k());
    f.positions(members[0], pos.data());
    for (uint64_t p : pos) CHECK(((f.words()[p / 64] >> (p % 64)) & 1) == 1);
  }
  for (XorLayout layout : {XorLayout::kXor, XorLayout::kFuse}) {
    std::vector<uint64_t> h = hashes_of(members, kSeed);
    XorBuildOptions o;
    o.layout = layout;
    o.hash_seed = kSeed;
    const XorBuildResult r = build_xor_filter(h, o);
    CHECK(r.filter->bloom() == nullptr);
    check_answers_keys(*r.filter, members, others);
  }
  {
    std::vector<uint64_t> h = hashes_of(members, kSeed);
    RibbonBuildOptions o;
    o.rate = 0.01;
    o.hash_seed = kSeed;
    const RibbonBuildResult r = build_ribbon_filter(h, o);
    CHECK(r.filter->bloom() == nullptr);
    check_answers_keys(*r.filter, members, others);
  }
}

TEST_CASE("the kind table makes every kind and refuses what it does not hold", "[kinds]") {
  std::vector<FilterKind> kinds;
  for (const FilterKindEntry& e : filter_kinds()) kinds.push_back(e.kind);
  CHECK(kinds ==
        std::vector<FilterKind>{FilterKind::kBloom, FilterKind::kXor, FilterKind::kBinaryFuse,
                                   FilterKind::kRibbon});
  FilterHeader h;
  h.kind = FilterKind::kBloom;
  h.hash_id = kHashXxh3_64;
  h.seed = kSeed;
  h.m = 1024;
  h.k = 5;
  h.variant = static_cast<uint32_t>(BloomVariant::kBlocked512);
  h.payload_raw_bytes = 128;
  WordBuffer words(16);
  words.data()[3] = 1;
  const std::unique_ptr<Filter> f = make_filter_of_kind(h, std::move(words), "f.bf");
  REQUIRE(f->bloom() != nullptr);
  CHECK(f->bloom()->variant() == BloomVariant::kBlocked512);
  CHECK(f->bloom()->set_bit_count() == 1);
  CHECK(f->rule().seed == kSeed);
  CHECK(model_fpr_for(h, 100) == filter_kind_entry(h.kind, "f.bf").model_fpr(h, 100));

  FilterHeader odd = h;
  odd.kind = static_cast<FilterKind>(9);
  CHECK_THROWS_WITH(make_filter_of_kind(odd, WordBuffer(16), "f.bf"),
                    Catch::StartsWith("f.bf: unsupported: filter kind"));
  FilterHeader peer_xor = h;
  peer_xor.kind = FilterKind::kXor;
  peer_xor.variant = 0;
  peer_xor.hash_id = kHashGuavaMitz64;
  CHECK_THROWS_WITH(make_filter_of_kind(peer_xor, WordBuffer(16), "f.bf"),
                    "f.bf: unsupported: hash scheme guava-mitz64 with xor variant 0 (only the "
                    "standard Bloom filter has it)");
  FilterHeader peer = h;
  peer.hash_id = kHashDcsoFnv1;
  peer.variant = 0;
  peer.seed = 0;
  const std::unique_ptr<Filter> p = make_filter_of_kind(peer, WordBuffer(16), "f.bf");
  CHECK(!p->rule().takes_key_hash());
  REQUIRE(p->bloom() != nullptr);
  CHECK(p->bloom()->reachable_bits() == 1024);
}
