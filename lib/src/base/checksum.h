// XXH3-64 over large buffers: the payload checksum of zstd files, the raw chunk table and each raw
// chunk's check. libxxhash built with its x86 dispatcher (Debian's is) also exports
// XXH3_64bits_dispatch, which picks the widest vector unit of the CPU it runs on (AVX2 where the
// portable build uses SSE2): the same value, 64 KiB chunks hashed 1.5-1.7x as fast on the
// reference machine (bench/checksum_bench; docs/PERFORMANCE.md, "Raw payloads").
// lib/CMakeLists.txt defines BLOOMTOOL_XXH3_DISPATCH when the library's header compiles and its
// symbol links; elsewhere the portable functions are used. Short inputs (keys, headers) keep
// XXH3_64bits: dispatching costs an indirect call.
#pragma once

#include <xxhash.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>

#ifdef BLOOMTOOL_XXH3_DISPATCH
// The library's declarations, without its macros that would send every XXH3_64bits call here.
#define XXH_DISPATCH_DISABLE_REPLACE
#include <xxh_x86dispatch.h>
#endif

namespace bloomtool::detail {

inline uint64_t checksum_bytes(const void* p, size_t n) noexcept {
#ifdef BLOOMTOOL_XXH3_DISPATCH
  return XXH3_64bits_dispatch(p, n);
#else
  return XXH3_64bits(p, n);
#endif
}

inline void checksum_update(XXH3_state_t* state, const void* p, size_t n) noexcept {
#ifdef BLOOMTOOL_XXH3_DISPATCH
  XXH3_64bits_update_dispatch(state, p, n);
#else
  XXH3_64bits_update(state, p, n);
#endif
}

struct XxhStateFree {
  void operator()(XXH3_state_t* state) const noexcept { XXH3_freeState(state); }
};
using XxhState = std::unique_ptr<XXH3_state_t, XxhStateFree>;

// A fresh XXH3-64 streaming state, freed however the caller's scope ends.
inline XxhState make_xxh_state() {
  XxhState state(XXH3_createState());
  if (!state) throw std::bad_alloc();
  XXH3_64bits_reset(state.get());
  return state;
}

}  // namespace bloomtool::detail
