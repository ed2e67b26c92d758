// libsodium must be initialised once before use; every entry point that calls it calls this.
#pragma once

namespace bloomtool {

// Initialises libsodium (thread-safe, idempotent); throws kIOError if it cannot (no random source).
void ensure_sodium();

}  // namespace bloomtool
