// The zstd payload (codec 1): the writer's frame is byte for byte what plain zstd at level 3, fed
// a MiB at a time, makes of the payload, whether or not the writer told zstd to skip literal
// coding; it skips it for bytes like a blocked filter's near its design fill, and not for bytes
// that literal coding shrinks, nor for a payload with one such block among others.
#include <zstd.h>

#include <catch2/catch.hpp>
#include <cstring>
#include <vector>

#include "filters/bloom.h"
#include "format/filter_file.h"
#include "keys/hash.h"
#include "model/model.h"
#include "format/zstd_payload.h"

using namespace bloomtool;

namespace {

// What the writer did before it knew of literal coding: level 3, the size pledged, a MiB of input
// per call.
std::vector<uint8_t> plain_zstd(const std::vector<uint64_t>& words) {
  ZSTD_CCtx* cctx = ZSTD_createCCtx();
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, 3);
  const size_t raw = words.size() * 8;
  ZSTD_CCtx_setPledgedSrcSize(cctx, raw);
  std::vector<uint8_t> out(ZSTD_CStreamOutSize()), frame;
  const auto* bytes = reinterpret_cast<const uint8_t*>(words.data());
  size_t done = 0;
  do {
    const size_t n = std::min<size_t>(size_t{1} << 20, raw - done);
    ZSTD_inBuffer in{bytes + done, n, 0};
    done += n;
    const ZSTD_EndDirective mode = done == raw ? ZSTD_e_end : ZSTD_e_continue;
    bool finished = false;
    while (!finished) {
      ZSTD_outBuffer ob{out.data(), out.size(), 0};
      const size_t rc = ZSTD_compressStream2(cctx, &ob, &in, mode);
      REQUIRE(!ZSTD_isError(rc));
      frame.insert(frame.end(), out.begin(), out.begin() + static_cast<long>(ob.pos));
      finished = mode == ZSTD_e_end ? rc == 0 : in.pos == in.size;
    }
  } while (done < raw);
  ZSTD_freeCCtx(cctx);
  return frame;
}

// The payload as the writer stores it.
std::vector<uint8_t> written_frame(const std::vector<uint64_t>& words,
                                   const WriteOptions& options = {}) {
  FilterHeader h;
  h.kind = FilterKind::kBloom;
  h.hash_id = kHashXxh3_64;
  h.m = words.size() * 64;
  h.k = 7;
  const std::vector<uint8_t> image = encode_filter_file(h, words, words.size() * 8, options);
  REQUIRE(h.codec == PayloadCodec::kZstd);
  return std::vector<uint8_t>(image.begin() + static_cast<long>(h.header_bytes), image.end());
}

// n words whose bits are set with probability `density`, each on its own.
std::vector<uint64_t> random_bits(size_t n, double density, uint64_t seed) {
  const auto cut = static_cast<uint64_t>(density * 65536.0);
  std::vector<uint64_t> w(n, 0);
  for (size_t i = 0; i < n; ++i)
    for (unsigned b = 0; b < 64; ++b)
      if ((mix64(seed + i * 64 + b) & 0xffff) < cut) w[i] |= uint64_t{1} << b;
  return w;
}

bool skips(const std::vector<uint64_t>& w) {
  return detail::literals_cannot_shrink(reinterpret_cast<const uint8_t*>(w.data()), w.size() * 8);
}

}  // namespace

TEST_CASE("the zstd frame is plain zstd's, with literal coding skipped or not", "[format]") {
  // A blocked filter built to its design fill: 300,000 keys at p = 1% (three 128 KiB blocks).
  const model::BloomSize s = model::blocked_size(300000, 0.01, 0);
  BloomFilter blocked(s.m_bits, s.k, BloomVariant::kBlocked512);
  for (uint64_t i = 0; i < 300000; ++i) blocked.add(hash_key(std::to_string(i), kDefaultSeed));
  const std::vector<uint64_t> blocked_words(blocked.words().begin(), blocked.words().end());
  BloomFilter standard(s.m_bits, s.k);
  for (uint64_t i = 0; i < 300000; ++i) standard.add(hash_key(std::to_string(i), kDefaultSeed));
  const std::vector<uint64_t> standard_words(standard.words().begin(), standard.words().end());

  std::vector<uint64_t> mixed = random_bits(3 * 16384 + 5, 0.45, 1);
  const std::vector<uint64_t> sparse_block = random_bits(16384, 0.2, 2);
  std::copy(sparse_block.begin(), sparse_block.end(), mixed.begin() + 16384);

  struct Case {
    const char* name;
    std::vector<uint64_t> words;
    bool skip;
  };
  const Case cases[] = {
      {"blocked filter at its design fill", blocked_words, true},
      {"bits set at 45%, a last block of 8,000 bytes", random_bits(2 * 16384 + 1000, 0.45, 3),
       true},
      // 136 bytes cannot show that their entropy is high: the bound does not hold, zstd tries.
      {"bits set at 45%, a last block of 136 bytes", random_bits(2 * 16384 + 17, 0.45, 8), false},
      {"bits set at 55%", random_bits(16384, 0.55, 4), true},
      {"bits set at 30%", random_bits(2 * 16384, 0.30, 5), false},
      {"bits set at 2%", random_bits(2 * 16384, 0.02, 6), false},
      {"one block at 20% among blocks at 45%", mixed, false},
      {"standard filter (zstd gives up on its bytes at once)", standard_words, false},
      {"six words", random_bits(6, 0.45, 7), false},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    CHECK(skips(c.words) == c.skip);
    CHECK((written_frame(c.words) == plain_zstd(c.words)));  // no dump of two frames
  }
}

TEST_CASE("the literal check gives one answer on any number of threads", "[format]") {
  // 20 blocks (the check spreads payloads of 16 blocks and more over its threads); the second
  // payload has one block at 20% set, the last but one.
  const std::vector<uint64_t> even = random_bits(20 * 16384, 0.45, 11);
  std::vector<uint64_t> one_bad = even;
  const std::vector<uint64_t> sparse = random_bits(16384, 0.2, 12);
  std::copy(sparse.begin(), sparse.end(), one_bad.begin() + 18 * 16384);
  for (const unsigned threads : {1u, 2u, 3u, 8u}) {
    CAPTURE(threads);
    CHECK(detail::literals_cannot_shrink(reinterpret_cast<const uint8_t*>(even.data()),
                                         even.size() * 8, threads));
    CHECK_FALSE(detail::literals_cannot_shrink(reinterpret_cast<const uint8_t*>(one_bad.data()),
                                               one_bad.size() * 8, threads));
  }
  // 2.5 MiB of payload: on two threads and more the frame is written a MiB at a time from
  // another thread while the next MiB is compressed; the same frame.
  for (const unsigned threads : {1u, 2u, 3u}) {
    CAPTURE(threads);
    WriteOptions options;
    options.threads = threads;
    CHECK((written_frame(one_bad, options) == plain_zstd(one_bad)));
    CHECK((written_frame(even, options) == plain_zstd(even)));
  }
}
