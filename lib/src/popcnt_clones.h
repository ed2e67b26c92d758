// Without -mpopcnt, std::popcount is a libgcc call; BLOOMTOOL_POPCNT_CLONES on a function makes a
// popcnt clone that the dynamic loader picks at load time instead (an ifunc). Not under
// ThreadSanitizer (the tsan preset): the clone's resolver would run while the loader relocates
// the library, before the sanitizer's runtime is up, and crash. Use it for every such clone.
#pragma once

#if defined(__SANITIZE_THREAD__)
#define BLOOMTOOL_POPCNT_CLONES
#else
#define BLOOMTOOL_POPCNT_CLONES __attribute__((target_clones("popcnt", "default")))
#endif
