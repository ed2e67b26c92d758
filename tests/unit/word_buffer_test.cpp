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
