#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>

#include "base/word_buffer.h"

using namespace bloomtool;

TEST_CASE("WordBuffer::resize keeps the words and zeroes the new ones", "[word_buffer]") {
  // From empty through the malloc'd sizes into mapped ones (2 MiB and up), doubling each time,
  // then shrinking and growing again: the kept words survive and every new word reads zero.
  WordBuffer b;
  uint64_t next = 1;
  size_t filled = 0;
  for (size_t size : {size_t{1}, size_t{100}, size_t{70000}, size_t{300000}, size_t{600000},
                      size_t{1} << 21, size_t{5000}, size_t{1} << 20}) {
    CAPTURE(size);
    const size_t kept = std::min(filled, size);
    b.resize(size);
    REQUIRE(b.size() == size);
    REQUIRE(reinterpret_cast<uintptr_t>(b.data()) % 64 == 0);
    uint64_t expect = 1;
    bool same = true;
    for (size_t i = 0; i < kept; ++i) same = same && b.data()[i] == expect++;
    CHECK(same);
    bool zero = true;
    for (size_t i = kept; i < size; ++i) zero = zero && b.data()[i] == 0;
    CHECK(zero);
    next = kept + 1;
    for (size_t i = kept; i < size; ++i) b.data()[i] = next++;
    filled = size;
  }
}

TEST_CASE("WordBuffer::release_pages zeroes whole pages of a mapped buffer only", "[word_buffer]") {
  auto fill = [](WordBuffer& b) {
    for (size_t i = 0; i < b.size(); ++i) b.data()[i] = i + 1;
  };
  auto kept = [](const WordBuffer& b, size_t from, size_t to) {
    bool same = true;
    for (size_t i = from; i < to; ++i) same = same && b.data()[i] == i + 1;
    return same;
  };
  // A mapped buffer (2 MiB and more, page-aligned): words 1000 to 3000 cover the pages of words
  // 1024 to 2559 (512 words a page); the words around them keep their values.
  WordBuffer mapped(size_t{1} << 19);
  fill(mapped);
  mapped.release_pages(1000, 3000);
  CHECK(kept(mapped, 0, 1024));
  CHECK(std::all_of(mapped.data() + 1024, mapped.data() + 2560, [](uint64_t w) { return w == 0; }));
  CHECK(kept(mapped, 2560, mapped.size()));
  mapped.release_pages(5000, 5100);  // within one page: nothing
  CHECK(kept(mapped, 2560, mapped.size()));
  // A small (allocated) buffer is left alone.
  WordBuffer small(4096);
  fill(small);
  small.release_pages(0, small.size());
  CHECK(kept(small, 0, small.size()));
}
