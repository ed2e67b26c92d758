// Without -mpopcnt, std::popcount is a libgcc call; BLOOMTOOL_POPCNT_CLONES on a function makes a
// popcnt clone that the dynamic loader picks at load time instead (an ifunc). Not under
// ThreadSanitizer (the tsan preset): the clone's resolver would run while the loader relocates
// the library, before the sanitizer's runtime is up, and crash. Use it for every such clone.
#pragma once

#include <cstddef>
#include <cstdint>

#if defined(__SANITIZE_THREAD__)
#define BLOOMTOOL_POPCNT_CLONES
#else
#define BLOOMTOOL_POPCNT_CLONES __attribute__((target_clones("popcnt", "default")))
#endif

namespace bloomtool {
// Set bits in w[0..n), through a popcnt clone. Defined once (stats.cpp): clang-14 gives the ifunc
// resolver of a target_clones function external linkage even when the function is static, so two
// static copies of one name in two files fail to link.
uint64_t count_set_bits(const uint64_t* w, size_t n) noexcept;
}  // namespace bloomtool
