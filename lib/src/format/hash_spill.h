// Key hashes collected in bounded memory: what a partitioned static build reads its partitions
// from when the key set does not fit. Threads add hashes; whenever the hashes held would pass the
// memory budget they are sorted (on `threads` threads, by the add() call that filled the buffer,
// while the other adders wait), de-duplicated and appended as one run to a temporary file;
// afterwards each partition (the hashes whose top bits are equal) is read back from every run,
// merged and de-duplicated.
//
// Memory. memory_bytes bounds the hash memory: the run buffer and the sort's scratch array, as
// large as the run buffer (a two-level radix sort out of place and back: about 10 ns a hash where
// sorting in place cost 60), with a sixteenth of the budget set aside for the threads' staging
// buffers (at most 64 KiB each). So a run holds (memory_bytes - staging) / 16 hashes. With a
// budget the run buffer is mapped whole up front (address space; pages come as hashes arrive)
// and each add() copies straight into the range it takes under the lock, outside it, side by side
// with the others: the stages then go unused. They serve without a budget, and where the system
// would not map the whole run buffer at once. Outside the budget and independent of the key
// count: a 512 KiB table of counts by the top 16 bits (count()), the 512 KiB index of the run
// being written, the sort's counting tables (512 KiB a thread at most) and 16 bytes per run.
// After finish() a spilled set holds no hashes in memory; read() allocates the partition it
// returns (the sum of its slices in the runs, before de-duplication) and merge buffers of 4 MiB
// at most (4 KiB at least a run). A set that never spilled stays in memory, sorted and distinct;
// its scratch array is freed (finish_unsorted() instead hands it, unsorted, to a caller that
// orders it itself). Without a budget (memory_bytes 0) nothing is bounded: finish() sorts with a
// scratch array as large as the hashes, 16 bytes a hash at the peak.
//
// The temporary file. One file, created in tmpdir with O_TMPFILE (no name ever exists), or on a
// filesystem without O_TMPFILE created with a name (".bloomtool-spill.XXXXXX") and unlinked at
// once. Either way it disappears with its last descriptor: success, an exception, SIGINT, SIGTERM
// and SIGKILL leave nothing behind. A named file survives only a SIGKILL between mkstemp and
// unlink; creating the next spill file in the same directory removes such names (the data of a live
// one is safe: its owner holds it open, and its own unlink tolerates the name being gone).
//
// File layout: runs one after another, each its sorted distinct hashes (native 64-bit words)
// followed by its index, 65,537 words: entry b is the position within the run of the first hash
// whose top 16 bits are >= b, so a partition of any bits <= 16 is one contiguous slice of every
// run, found without a scan.
//
// Disk space is checked with statvfs up front (from expected_hashes, when it is known) and before
// each run is written; a refusal (ENOSPC, EIO, a short write or read) is an Error naming tmpdir
// and, for space, the bytes needed against the bytes free.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "base/unique_fd.h"
#include "base/word_buffer.h"

namespace bloomtool {

struct SpillOptions {
  uint64_t memory_bytes = 0;     // most bytes of hashes held in memory at once; 0: unlimited, never
                                 // spill; else at least kMinSpillMemory
  std::string tmpdir;            // directory for the spill file; empty: $TMPDIR, else /tmp
  uint64_t expected_hashes = 0;  // when known (sized plans, input file sizes): disk space checked
                                 // up front
};

// The smallest memory_bytes other than 0.
inline constexpr uint64_t kMinSpillMemory = 4096;

// The directory opts.tmpdir names: itself, else $TMPDIR when set and not empty, else /tmp.
std::string spill_directory(const std::string& tmpdir);

// Throws what HashSpill's constructor throws for a temporary directory that is missing, not a
// directory or not writable: it creates a temporary file there the same way and drops it.
void check_spill_directory(const std::string& dir);

// Collects 64-bit hashes from `threads` threads; when the held hashes would pass memory_bytes,
// sorts them and appends them as one run to one temporary file under tmpdir.
class HashSpill {
 public:
  // With a memory budget, creates the (nameless) temporary file at once: a tmpdir that is missing,
  // not a directory or not writable throws kIOError here, before any key is read; so does too
  // little space for expected_hashes. memory_bytes below kMinSpillMemory throws FieldError.
  HashSpill(SpillOptions opts, unsigned threads);
  ~HashSpill();
  HashSpill(const HashSpill&) = delete;
  HashSpill& operator=(const HashSpill&) = delete;

  // Adds hashes; calls with distinct `thread` indices (< threads) may run at once. A call that
  // fills the run buffer sorts and writes the run while the others wait. Throws what writing
  // throws; after a throw every later add() and finish() throws the same.
  void add(unsigned thread, std::span<const uint64_t> hashes);
  // After all adds: writes what is held as the last run (if the set spilled: then frees the run
  // buffer) or sorts it in memory (if not).
  void finish();
  // finish() for a caller that orders the hashes itself. A set that never spilled is not sorted
  // but moved out as added: `out` gets the buffer whose first size() words are every hash added
  // (repeats kept, in no particular order), and true is returned; the spill holds no hashes then
  // (count(), read() and held() are not to be used). A spilled set is finished as by finish(),
  // `out` left empty: false.
  bool finish_unsorted(WordBuffer& out);

  // Hashes added, with duplicates (not to be asked while an add() runs: threads' stages count).
  uint64_t size() const;
  bool spilled() const;
  uint64_t spill_bytes() const;  // bytes written to the temp file
  // After finish(): the number of hashes (with duplicates) whose top `bits` bits are `part`;
  // bits <= 16, part < 2^bits (else FieldError).
  uint64_t count(unsigned bits, uint64_t part) const;
  // After finish(): those hashes, sorted ascending, duplicates removed, into `out` (cleared
  // first). Thread-safe (pread). Throws kIOError naming tmpdir when the file cannot be read.
  void read(unsigned bits, uint64_t part, std::vector<uint64_t>& out) const;
  // After finish() with nothing spilled: every distinct hash, sorted ascending, in the spill's own
  // memory (valid while the spill lives), for a caller that builds one filter of all of them
  // without a copy. The caller may reorder them; count() and read() are not to be used after.
  // Throws kInvalidArgument when runs were spilled (read() them instead).
  std::span<uint64_t> held();

  // The directory of the temporary file (for messages), and the number of runs written.
  const std::string& tmpdir() const noexcept { return tmpdir_; }
  size_t runs() const;
  // Capacity of the run buffer in hashes (UINT64_MAX without a budget): the most hashes held in
  // the run buffer at once.
  uint64_t run_capacity() const noexcept { return run_cap_; }

 private:
  struct alignas(64) Stage {
    std::unique_ptr<uint64_t[]> words;
    size_t used = 0;
  };
  struct Run {
    uint64_t offset;  // in bytes, of its first hash
    uint64_t count;   // distinct hashes; the index follows them
  };

  void add_direct(std::span<const uint64_t> hashes);
  void push_locked(std::span<const uint64_t> hashes);
  void flush_stage(Stage& s);
  void sort_locked();       // sorts the run buffer through scratch_
  void write_run_locked();  // sorts the run buffer, appends it and its index, empties it
  void check_space(uint64_t bytes) const;
  void pwrite_all(const void* data, uint64_t bytes, uint64_t offset);
  void pread_all(void* data, uint64_t bytes, uint64_t offset) const;
  void check_ok_locked() const;
  void check_finished(const char* what) const;

  std::string tmpdir_;
  unsigned threads_;
  uint64_t memory_bytes_;
  uint64_t run_cap_;  // hashes the run buffer may hold
  size_t stage_cap_;  // hashes a thread's staging buffer holds (0: none)
  UniqueFd fd_;
  std::vector<Stage> stages_;

  // With a budget: the run buffer is mapped whole up front and add() copies straight into the
  // range it takes under the lock, outside it (no staging).
  bool direct_ = false;

  mutable std::mutex lock_;       // guards everything below until finish()
  std::condition_variable idle_;  // copying_ fell to 0
  size_t copying_ = 0;            // add() calls copying into the run buffer
  WordBuffer run_;                // the run being collected
  WordBuffer scratch_;            // the sort's second array, as large as the run
  size_t run_used_ = 0;
  uint64_t added_ = 0;
  uint64_t file_bytes_ = 0;
  std::vector<Run> runs_;
  std::vector<uint64_t> top_counts_;  // 65,537 entries: after finish(), prefix sums by top 16 bits
  bool finished_ = false;
  bool moved_out_ = false;  // finish_unsorted() took the hashes
  std::string error_;       // the message of a failure during add(), rethrown by later calls
  int error_code_ = 0;
};

}  // namespace bloomtool
