// The CLI's list of the temporary files its writers hold open, for its SIGINT/SIGTERM/SIGHUP
// handler: the library's atomic writer reports each temporary file into a fixed table
// (TempFileHooks, format/atomic_file.h), and the handler unlinks what the table holds, so an
// interrupted build leaves the old output as it was and no temporary file behind.
#pragma once

#include <cstddef>

namespace bloomtool::cli {

// How many temporary files the table holds at once; a writer beyond them is not in the table
// (a signal then leaves its temporary file, which the next commit to that target removes).
inline constexpr size_t kMaxTempFiles = 16;

// Points the library's atomic writer at the table (once, at start-up).
void install_temp_file_table() noexcept;
// Unlinks every temporary file in the table. Async-signal-safe: for the signal handler.
void remove_temp_files() noexcept;
// The number of temporary files in the table (for tests).
size_t temp_files_listed() noexcept;

}  // namespace bloomtool::cli
