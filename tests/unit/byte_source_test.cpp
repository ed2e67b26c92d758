#include "keys/byte_source.h"

#include <catch2/catch.hpp>

#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include <chrono>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "bloomtool/error.h"
#include "keys/hash.h"
#include "keys/key_reader.h"
#include "temp_dir.h"

using namespace bloomtool;
using test::TempDir;

namespace {

// Everything `source` yields, read `chunk` bytes at a time. Fails the test on a short read that
// is not the end: read() must fill what it can.
std::string read_all(ByteSource& source, size_t chunk) {
  std::string out;
  std::vector<char> buf(chunk);
  for (;;) {
    const size_t r = source.read(buf.data(), chunk);
    REQUIRE(r <= chunk);
    if (r == 0) break;
    out.append(buf.data(), r);
  }
  // The end stays the end.
  CHECK(source.read(buf.data(), chunk) == 0);
  return out;
}

// `n` bytes of every value, NUL and newlines included, in a pattern that compresses a little.
std::string binary_content(size_t n, uint64_t seed) {
  std::string s(n, '\0');
  uint64_t x = seed;
  for (size_t i = 0; i < n; ++i) {
    if (i % 64 == 0) x = mix64(x + i);
    s[i] = static_cast<char>(i % 5 == 0 ? '\n' : static_cast<char>(x >> (8 * (i % 8))));
  }
  return s;
}

// One zstd frame of `content`, with a content checksum when `checksum` is set.
std::string zstd_frame(const std::string& content, bool checksum = false, int level = 3) {
  ZSTD_CCtx* cctx = ZSTD_createCCtx();
  REQUIRE(cctx != nullptr);
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, level);
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, checksum ? 1 : 0);
  std::string out(ZSTD_compressBound(content.size()), '\0');
  const size_t n = ZSTD_compress2(cctx, out.data(), out.size(), content.data(), content.size());
  ZSTD_freeCCtx(cctx);
  REQUIRE_FALSE(ZSTD_isError(n));
  out.resize(n);
  return out;
}

// A frame that declares a 2^28-byte window (streamed, so the size is not known up front).
std::string zstd_frame_window_28(const std::string& content) {
  ZSTD_CCtx* cctx = ZSTD_createCCtx();
  REQUIRE(cctx != nullptr);
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_windowLog, 28);
  std::string out(ZSTD_compressBound(content.size()) + 1024, '\0');
  ZSTD_outBuffer o{out.data(), out.size(), 0};
  ZSTD_inBuffer i{content.data(), content.size(), 0};
  REQUIRE_FALSE(ZSTD_isError(ZSTD_compressStream2(cctx, &o, &i, ZSTD_e_continue)));
  size_t left;
  do {
    left = ZSTD_compressStream2(cctx, &o, &i, ZSTD_e_end);
    REQUIRE_FALSE(ZSTD_isError(left));
  } while (left != 0);
  ZSTD_freeCCtx(cctx);
  out.resize(o.pos);
  return out;
}

// A skippable frame (magic 0x184D2A50, little-endian length) holding `payload`.
std::string skippable_frame(const std::string& payload) {
  std::string f("\x50\x2A\x4D\x18", 4);
  const uint32_t n = static_cast<uint32_t>(payload.size());
  for (int i = 0; i < 4; ++i) f += static_cast<char>(n >> (8 * i));
  return f + payload;
}

// The error `f` throws, or a failed test if it throws none.
template <typename F>
Error error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e;
  }
  FAIL("no bloomtool::Error thrown");
  return Error(ErrorCode::kInvalidArgument, "");
}

std::string read_file_source(const std::string& path, const std::string& name, size_t chunk) {
  std::unique_ptr<ByteSource> s = open_byte_source(path, name);
  return read_all(*s, chunk);
}

}  // namespace

TEST_CASE("byte source: a plain file, whole and in small chunks", "[byte_source]") {
  TempDir dir;
  const std::string small = binary_content(20000, 1);
  const std::string large = binary_content(3 << 20, 2);  // more than one 1 MiB read
  const std::string small_path = dir.write("small.bin", small);
  const std::string large_path = dir.write("large.zst", large);  // the name does not matter
  for (const size_t chunk : {size_t{1}, size_t{3}, size_t{7}, size_t{4096}}) {
    CAPTURE(chunk);
    std::unique_ptr<ByteSource> s = open_byte_source(small_path, "small");
    CHECK(read_all(*s, chunk) == small);
    CHECK(s->raw_bytes_read() == small.size());
  }
  for (const size_t chunk : {size_t{4093}, size_t{1} << 20, size_t{5} << 20}) {
    CAPTURE(chunk);
    std::unique_ptr<ByteSource> s = open_byte_source(large_path, "large");
    CHECK(read_all(*s, chunk) == large);
    CHECK(s->raw_bytes_read() == large.size());
  }
}

TEST_CASE("byte source: empty and short files are plain", "[byte_source]") {
  TempDir dir;
  for (const std::string& content :
       {std::string(), std::string("\x28", 1), std::string("\x28\xB5", 2),
        std::string("\x28\xB5\x2F", 3), std::string("\x28\xB5\x2F\xFC", 4), std::string("abc")}) {
    CAPTURE(content.size());
    const std::string path = dir.write("short.bin", content);
    std::unique_ptr<ByteSource> s = open_byte_source(path, "short");
    CHECK(read_all(*s, 2) == content);
    CHECK(s->raw_bytes_read() == content.size());
  }
  CHECK_FALSE(starts_with_zstd_magic(""));
  CHECK_FALSE(starts_with_zstd_magic(std::string("\x28\xB5\x2F", 3)));
  CHECK_FALSE(starts_with_zstd_magic(std::string("\xFD\x2F\xB5\x28", 4)));
  CHECK(starts_with_zstd_magic(std::string("\x28\xB5\x2F\xFD", 4)));
  CHECK(starts_with_zstd_magic(std::string("\x28\xB5\x2F\xFDxyz", 7)));
}

TEST_CASE("byte source: zstd recognised by its magic, whatever the name", "[byte_source]") {
  TempDir dir;
  const std::string content = binary_content(50000, 3);
  const std::string compressed = zstd_frame(content, true);
  REQUIRE(compressed.size() < content.size());
  const std::string path = dir.write("keys.txt", compressed);
  for (const size_t chunk : {size_t{1}, size_t{5}, size_t{4096}, size_t{1} << 20}) {
    CAPTURE(chunk);
    std::unique_ptr<ByteSource> s = open_byte_source(path, "keys");
    CHECK(read_all(*s, chunk) == content);
    CHECK(s->raw_bytes_read() == compressed.size());  // compressed bytes, not decompressed
  }
  // Larger than the decoder's input and output buffers, in several frames (one of them empty),
  // with a skippable frame between them.
  const std::string big = binary_content(3 << 20, 4);
  const std::string part1 = big.substr(0, 1 << 20), part2 = big.substr(1 << 20);
  const std::string frames = zstd_frame(part1, false, 1) + zstd_frame("") +
                             skippable_frame("ignored bytes") + zstd_frame(part2, true, 1);
  const std::string frames_path = dir.write("frames", frames);
  for (const size_t chunk : {size_t{4099}, size_t{4} << 20}) {
    CAPTURE(chunk);
    std::unique_ptr<ByteSource> s = open_byte_source(frames_path, "frames");
    CHECK(read_all(*s, chunk) == big);
    CHECK(s->raw_bytes_read() == frames.size());
  }
  // A frame of nothing is an empty input.
  const std::string empty_path = dir.write("empty.zst", zstd_frame(""));
  CHECK(read_file_source(empty_path, "empty", 16).empty());
}

TEST_CASE("byte source: truncated zstd is an error naming the input and the offset",
          "[byte_source]") {
  TempDir dir;
  const std::string content = binary_content(200000, 5);
  const std::string compressed = zstd_frame(content, true);
  for (const size_t keep : {size_t{4}, size_t{5}, compressed.size() / 2, compressed.size() - 1}) {
    CAPTURE(keep);
    const std::string path = dir.write("cut.txt", compressed.substr(0, keep));
    const Error e = error_of([&] { read_file_source(path, path, 4096); });
    CHECK(e.code() == ErrorCode::kBadInput);
    CHECK(std::string(e.what()) ==
          path + ": truncated zstd stream (ends inside a frame, at compressed byte " +
              std::to_string(keep) + ")");
  }
  // A frame followed by a partial one: the first frame's bytes come out, then the error.
  const std::string first = binary_content(1000, 6);
  const std::string two = zstd_frame(first) + compressed.substr(0, 100);
  const std::string path = dir.write("two.txt", two);
  std::unique_ptr<ByteSource> s = open_byte_source(path, "two");
  std::string got(4096, '\0');
  size_t have = 0;
  const Error e = error_of([&] {
    for (size_t r; (r = s->read(got.data() + have, got.size() - have)) != 0;) have += r;
  });
  CHECK(got.substr(0, have).substr(0, first.size()) == first);
  CHECK(std::string(e.what()) ==
        "two: truncated zstd stream (ends inside a frame, at compressed byte " +
            std::to_string(two.size()) + ")");
  // In memory, the same.
  const std::string cut = compressed.substr(0, compressed.size() - 1);
  std::unique_ptr<ByteSource> m = open_memory_source(cut, "mem");
  const Error me = error_of([&] { read_all(*m, 1 << 16); });
  CHECK(std::string(me.what()) ==
        "mem: truncated zstd stream (ends inside a frame, at compressed byte " +
            std::to_string(cut.size()) + ")");
}

TEST_CASE("byte source: corrupt zstd is an error naming the input and the offset",
          "[byte_source]") {
  TempDir dir;
  const std::string content = binary_content(20000, 7);
  const std::string compressed = zstd_frame(content, true);
  // The last four bytes are the content checksum.
  std::string bad_checksum = compressed;
  bad_checksum[bad_checksum.size() - 2] ^= 0x40;
  // Bytes after a frame that do not start another.
  const std::string trailing = compressed + "hello, world";
  // A reserved bit of the frame header descriptor.
  std::string reserved = compressed;
  reserved[4] = static_cast<char>(reserved[4] | 0x08);
  for (const std::string& bytes : {bad_checksum, trailing, reserved}) {
    const std::string path = dir.write("bad.txt", bytes);
    const Error e = error_of([&] { read_file_source(path, "bad.txt", 1 << 16); });
    CHECK(e.code() == ErrorCode::kBadInput);
    const std::string what = e.what();
    CAPTURE(what);
    CHECK(what.rfind("bad.txt: zstd: ", 0) == 0);
    // The offset is where the reading stopped: the whole of a small input, or for a bad frame
    // header the first bytes, read before the rest to recognise the format.
    const std::string at =
        " (compressed byte " + std::to_string(bytes == reserved ? kSniffBytes : bytes.size()) + ")";
    CHECK_THAT(what, Catch::Matchers::EndsWith(at));
  }
  // A frame demanding a window above 2^27 bytes is refused before any allocation of that size.
  const std::string wide = zstd_frame_window_28(binary_content(1000, 8));
  const std::string wide_path = dir.write("wide.txt", wide);
  const Error e = error_of([&] { read_file_source(wide_path, "wide", 4096); });
  CHECK(e.code() == ErrorCode::kBadInput);
  CHECK_THAT(std::string(e.what()),
             Catch::Matchers::StartsWith("wide: zstd: ") && Catch::Matchers::Contains("memory"));
}

TEST_CASE("byte source: missing files, directories and closed standard input", "[byte_source]") {
  TempDir dir;
  const Error missing =
      error_of([&] { open_byte_source(dir.path() + "/missing.txt", "missing.txt"); });
  CHECK(missing.code() == ErrorCode::kIOError);
  CHECK(std::string(missing.what()) == "missing.txt: " + std::string(std::strerror(ENOENT)));
  const Error directory = error_of([&] { read_file_source(dir.path(), "somedir", 4096); });
  CHECK(directory.code() == ErrorCode::kBadInput);
  CHECK(std::string(directory.what()) == "somedir: is a directory");
  const Error range_missing =
      error_of([&] { open_range_source(dir.path() + "/missing.txt", "r.txt", 0, 10); });
  CHECK(range_missing.code() == ErrorCode::kIOError);
  CHECK(std::string(range_missing.what()) == "r.txt: " + std::string(std::strerror(ENOENT)));

  // Standard input closed: nothing may be opened between close and restore, or it gets fd 0.
  const int saved = ::dup(STDIN_FILENO);
  REQUIRE(saved >= 0);
  ::close(STDIN_FILENO);
  std::string what;
  ErrorCode code = ErrorCode::kInvalidArgument;
  try {
    std::unique_ptr<ByteSource> s = open_byte_source("-", "<stdin>");
    char c;
    s->read(&c, 1);
  } catch (const Error& e) {
    what = e.what();
    code = e.code();
  }
  REQUIRE(::dup2(saved, STDIN_FILENO) == STDIN_FILENO);
  ::close(saved);
  CHECK(code == ErrorCode::kIOError);
  CHECK(what == "<stdin>: standard input is closed");
}

namespace {

// Runs `body` with standard input reading from a pipe that holds `content` (written by a thread,
// in small pieces), then restores standard input.
template <typename F>
void with_stdin_pipe(const std::string& content, F&& body) {
  int p[2];
  REQUIRE(::pipe(p) == 0);
  const int saved = ::dup(STDIN_FILENO);
  REQUIRE(saved >= 0);
  REQUIRE(::dup2(p[0], STDIN_FILENO) == STDIN_FILENO);
  ::close(p[0]);
  std::thread writer([&content, fd = p[1]] {
    // The first bytes one at a time: detecting the magic must wait for all four.
    size_t at = 0;
    while (at < content.size()) {
      const size_t n = at < 8 ? 1 : std::min<size_t>(content.size() - at, 7777);
      const ssize_t w = ::write(fd, content.data() + at, n);
      if (w <= 0) break;
      at += static_cast<size_t>(w);
      if (at < 8) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    ::close(fd);
  });
  try {
    body();
  } catch (...) {
    writer.join();
    ::dup2(saved, STDIN_FILENO);
    ::close(saved);
    throw;
  }
  writer.join();
  // The source does not close standard input.
  CHECK(::fcntl(STDIN_FILENO, F_GETFD) != -1);
  ::dup2(saved, STDIN_FILENO);
  ::close(saved);
}

}  // namespace

TEST_CASE("byte source: standard input and pipes, plain and zstd", "[byte_source]") {
  const std::string content = binary_content(300000, 9);
  const std::string compressed = zstd_frame(content);
  for (const std::string* bytes : {&content, &compressed}) {
    CAPTURE(bytes == &compressed);
    with_stdin_pipe(*bytes, [&] {
      std::unique_ptr<ByteSource> s = open_byte_source("-", "<stdin>");
      CHECK(read_all(*s, 1000) == content);
      CHECK(s->raw_bytes_read() == bytes->size());
    });
  }
  // A pipe named by path.
  with_stdin_pipe(compressed, [&] {
    std::unique_ptr<ByteSource> s = open_byte_source("/dev/stdin", "pipe");
    CHECK(read_all(*s, 1 << 16) == content);
  });
  // A truncated stream on a pipe.
  const std::string cut = compressed.substr(0, compressed.size() - 10);
  with_stdin_pipe(cut, [&] {
    std::unique_ptr<ByteSource> s = open_byte_source("-", "<stdin>");
    const Error e = error_of([&] { read_all(*s, 1 << 16); });
    CHECK(std::string(e.what()) ==
          "<stdin>: truncated zstd stream (ends inside a frame, at compressed byte " +
              std::to_string(cut.size()) + ")");
  });
}

TEST_CASE("byte source: file ranges read exactly their bytes, never decompressed",
          "[byte_source]") {
  TempDir dir;
  const std::string content = zstd_frame(binary_content(100000, 10)) + binary_content(5000, 11);
  const std::string path = dir.write("r.bin", content);
  const uint64_t size = content.size();
  struct Range {
    uint64_t begin, end;
  };
  for (const Range r : {Range{0, size}, Range{0, 0}, Range{10, 20}, Range{0, 4},
                        Range{size - 5, size}, Range{size, size}, Range{12345, 54321}}) {
    for (const size_t chunk : {size_t{1}, size_t{1000}, size_t{1} << 20}) {
      if (chunk == 1 && r.end - r.begin > 50000) continue;
      CAPTURE(r.begin, r.end, chunk);
      std::unique_ptr<ByteSource> s = open_range_source(path, "r.bin", r.begin, r.end);
      CHECK(read_all(*s, chunk) == content.substr(r.begin, r.end - r.begin));
      CHECK(s->raw_bytes_read() == r.end - r.begin);
    }
  }
  // A range past the end of the file (the file shrank): it ends where the file does.
  std::unique_ptr<ByteSource> s = open_range_source(path, "r.bin", size - 100, size + 1000);
  CHECK(read_all(*s, 64) == content.substr(size - 100));
  CHECK(s->raw_bytes_read() == 100);
}

TEST_CASE("byte source: memory, plain and zstd", "[byte_source]") {
  const std::string content = binary_content(70000, 12);
  const std::string compressed = zstd_frame(content, true);
  for (const size_t chunk : {size_t{1}, size_t{333}, size_t{1} << 17}) {
    CAPTURE(chunk);
    std::unique_ptr<ByteSource> plain = open_memory_source(content, "m");
    CHECK(read_all(*plain, chunk) == content);
    CHECK(plain->raw_bytes_read() == content.size());
    std::unique_ptr<ByteSource> z = open_memory_source(compressed, "z");
    CHECK(read_all(*z, chunk) == content);
    CHECK(z->raw_bytes_read() == compressed.size());
  }
  std::unique_ptr<ByteSource> empty = open_memory_source("", "e");
  CHECK(read_all(*empty, 8).empty());
}

namespace {

// One gzip member of `content` (zlib's deflate with a gzip wrapper).
std::string gzip_member(const std::string& content, int level = 6) {
  z_stream zs{};
  REQUIRE(deflateInit2(&zs, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) == Z_OK);
  std::string out(deflateBound(&zs, static_cast<uLong>(content.size())) + 64, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(content.data()));
  zs.avail_in = static_cast<uInt>(content.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  REQUIRE(deflate(&zs, Z_FINISH) == Z_STREAM_END);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

// A DCSO bloom v1 header (flags 1, n, p, k, m, N) and the words m needs.
std::string dcso_file(uint64_t m, uint64_t k) {
  std::string f;
  const double p = 0.01;
  uint64_t p_bits;
  std::memcpy(&p_bits, &p, 8);
  for (uint64_t v : {uint64_t{1}, uint64_t{100}, p_bits, k, m, uint64_t{0}}) {
    for (int i = 0; i < 8; ++i) f += static_cast<char>(v >> (8 * i));
  }
  return f + std::string((m + 63) / 64 * 8, '\0');
}

}  // namespace

TEST_CASE("byte source: gzip, one member or several, in any chunk size", "[byte_source]") {
  TempDir dir;
  const std::string a = binary_content(70000, 21), b = binary_content(3000, 22);
  const std::string one = gzip_member(a);
  const std::string two = gzip_member(a, 1) + gzip_member(b, 9) + gzip_member("");
  for (const size_t chunk : {size_t{1}, size_t{333}, size_t{1} << 17}) {
    CAPTURE(chunk);
    std::unique_ptr<ByteSource> s = open_memory_source(one, "m.gz");
    CHECK(read_all(*s, chunk) == a);
    CHECK(s->raw_bytes_read() == one.size());
    CHECK(read_file_source(dir.write("two.gz", two), "two.gz", chunk) == a + b);
  }
}

TEST_CASE("byte source: damaged gzip is an error naming the input", "[byte_source]") {
  TempDir dir;
  const std::string gz = gzip_member(binary_content(20000, 23));
  std::string bad_crc = gz;
  bad_crc[bad_crc.size() - 6] ^= 0x01;
  const struct {
    std::string bytes;
    const char* starts;
  } cases[] = {
      {gz.substr(0, gz.size() / 2),
       "cut: truncated gzip stream (ends inside a member, at compressed byte "},
      {gz.substr(0, gz.size() - 1), "cut: truncated gzip stream"},
      {bad_crc, "cut: gzip: incorrect data check (compressed byte "},
      {gz + "junk", "cut: gzip: incorrect header check"},
  };
  for (const auto& c : cases) {
    const Error e = error_of([&] { read_file_source(dir.write("cut.gz", c.bytes), "cut", 4096); });
    CHECK(e.code() == ErrorCode::kBadInput);
    CHECK_THAT(std::string(e.what()), Catch::Matchers::StartsWith(c.starts));
  }
}

TEST_CASE("byte source: inputs classified by their first bytes", "[byte_source]") {
  using K = InputKind;
  const auto kind = [](std::string_view head, std::optional<uint64_t> size = std::nullopt) {
    return classify_input_head(head, size).kind;
  };
  CHECK(kind("\x1F\x8B\x08") == K::kGzip);
  CHECK(kind(std::string_view("\xFD"
                              "7zXZ\0",
                              6)) == K::kXz);
  CHECK(kind("BZh91AY&SY") == K::kBzip2);
  CHECK(kind("BZh9 a key\n") == K::kText);
  CHECK(kind("\x04\x22\x4D\x18") == K::kLz4);
  CHECK(kind("\x89"
             "BLM\r\n\x1A\nrest") == K::kBloomtool);
  CHECK(kind("key\n") == K::kText);
  // Prefixes of a magic ask for more; an input that ends there is text.
  CHECK(classify_input_head("\x1F", std::nullopt).need_more);
  CHECK(classify_input_head("\x89"
                            "BL",
                            std::nullopt)
            .need_more);
  CHECK_FALSE(classify_input_head("k", std::nullopt).need_more);
  const std::string dcso = dcso_file(1000, 7);
  CHECK(kind(std::string_view(dcso).substr(0, kSniffBytes)) == K::kDcso);
  CHECK(kind(std::string_view(dcso).substr(0, kSniffBytes), dcso.size()) == K::kDcso);
  CHECK(kind(std::string_view(dcso).substr(0, kSniffBytes), 60) == K::kText);  // too short for m
  std::string bad_k = dcso;
  bad_k[24] = 0;
  CHECK(kind(std::string_view(bad_k).substr(0, kSniffBytes)) == K::kText);
  // Guava: strategy 1, k 5, 2 words: only when the size matches.
  const std::string guava("\x01\x05\x00\x00\x00\x02", 6);
  CHECK(kind(guava, 22) == K::kGuava);
  CHECK(kind(guava, 23) == K::kText);
  CHECK(kind(guava) == K::kText);
}

TEST_CASE("byte source: filter files and other compressions are refused as keys", "[byte_source]") {
  const std::string dcso = dcso_file(640, 3);
  const auto refused = [](const std::string& bytes, const std::string& name) {
    try {
      std::unique_ptr<ByteSource> s = open_memory_source(bytes, name);
      read_all(*s, 4096);
    } catch (const FilterAsKeysError& e) {
      CHECK(e.input() == name);
      return std::string(e.what());
    } catch (const Error& e) {
      return "other: " + std::string(e.what());
    }
    return std::string("read");
  };
  CHECK(refused(dcso, "d") == "d: is a DCSO bloom filter file, not keys");
  CHECK(refused(gzip_member(dcso), "d.gz") ==
        "d.gz: is a DCSO bloom filter file (gzip-compressed), not keys");
  CHECK(refused(zstd_frame("\x89"
                           "BLM\r\n\x1A\n and more"),
                "b.zst") == "b.zst: is a bloomtool filter file (zstd-compressed), not keys");
  CHECK(refused("BZh91AY&SY...", "k.bz2") ==
        "other: k.bz2: bzip2-compressed, which bloomtool does not read (it reads zstd and gzip); "
        "decompress it first with 'bzip2 -dc'");
  CHECK(refused(gzip_member(zstd_frame("keys\n")), "twice") ==
        "other: twice: zstd-compressed data inside gzip compression; decompress it before "
        "reading keys");
  CHECK(refused("\x01short\n", "s") == "read");
}
