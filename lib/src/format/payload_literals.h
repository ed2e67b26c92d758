// The test behind the zstd payload's one setting beyond its level (filter_file.cpp).
#pragma once

#include <cstdint>

namespace bloomtool::detail {

// True when no 128 KiB block of the n bytes at p could be shrunk by zstd's literal coding by
// the least gain zstd accepts (an entropy bound, with a margin): the writer then tells zstd not to
// try, and the frame is the one zstd writes when it tries and gives up. Checks the blocks on up to
// `threads` threads.
bool literals_cannot_shrink(const uint8_t* p, uint64_t n, unsigned threads = 1) noexcept;

}  // namespace bloomtool::detail
