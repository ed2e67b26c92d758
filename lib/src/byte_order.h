// Explicit little-endian loads and stores for the file format: no struct is ever dumped as is.
// The byte loops compile to single moves on little-endian machines.
#pragma once

#include <cstddef>
#include <cstdint>

namespace bloomtool::le {

template <typename T>
inline T load(const uint8_t* p) noexcept {
  T v = 0;
  for (size_t i = 0; i < sizeof(T); ++i) v |= static_cast<T>(static_cast<T>(p[i]) << (8 * i));
  return v;
}

template <typename T>
inline void store(uint8_t* p, T v) noexcept {
  for (size_t i = 0; i < sizeof(T); ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}

}  // namespace bloomtool::le
