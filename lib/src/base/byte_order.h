// Explicit little-endian loads and stores for the file format: no struct is ever dumped as is.
// Loads are single moves on little-endian machines.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace bloomtool::le {

template <typename T>
inline T load(const uint8_t* p) noexcept {
  if constexpr (std::endian::native == std::endian::little) {
    T v;  // one move: GCC at -O2 leaves the byte loop below a loop
    std::memcpy(&v, p, sizeof(T));
    return v;
  } else {
    T v = 0;
    for (size_t i = 0; i < sizeof(T); ++i) v |= static_cast<T>(static_cast<T>(p[i]) << (8 * i));
    return v;
  }
}

template <typename T>
inline void store(uint8_t* p, T v) noexcept {
  for (size_t i = 0; i < sizeof(T); ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}

}  // namespace bloomtool::le
