// Opening and querying a filter: one open_filter for every file bloomtool reads (bloomtool files
// of every kind, codec and hash scheme, Guava writeTo files and DCSO bloom v1 files, plain or
// gzip), from a path or from bytes in memory. The Reader it returns answers as `bloomtool query`
// does: each key is normalised as the file says, then tested.
//
// Thread safety: every const member of a Reader may be called from any number of threads at once,
// and refresh() too (also while others query). Queries take no lock: a query call counts itself
// with one atomic add and reads the filter serving through an atomic pointer.
//
// Following a file that is replaced (a nightly job's atomic rename): refresh() notices that the
// path now names another file (device, inode, size or modification time differ), opens and
// verifies it fully with the options the Reader was opened with, and only then switches to it.
// Each query call runs on the one filter that was current when it began: never on a mix. A new
// file that fails a check leaves the old filter serving, and the error is reported (refresh()
// throws; the next refresh retries).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "bloomtool/error.h"
#include "bloomtool/info.h"

namespace bloomtool {

struct OpenOptions {
  FilterFormat format = FilterFormat::kAuto;
  // A public key file (NAME.pub of `bloomtool keygen`). When set, the filter opens only if it is
  // signed by that key and unaltered since (kUntrusted otherwise; a Guava or DCSO file carries no
  // signature); the signature is verified over the same bytes that are then decoded.
  std::string trusted_key;
  // A raw-codec bloomtool file opened from a path is read chunk by chunk as queries need it, each
  // chunk verified and kept in a cache of at most this many bytes (default: a share of memory).
  std::optional<uint64_t> raw_cache_bytes;
  // When above 0: queries check, at most once per this many seconds, whether the path names a
  // new file, and switch to it as refresh() does (one clock read per query call; the query that
  // finds a new file opens and verifies it, and waits for the calls in flight on the old filter,
  // before answering; the others answer meanwhile on the old filter). A failed automatic refresh
  // is kept in last_refresh_error(). 0: only refresh().
  uint32_t refresh_seconds = 0;
  // When above 0: a file created (its created_unix) more than this many seconds ago is refused,
  // at open and at every refresh (kUntrusted).
  int64_t max_age_seconds = 0;
};

class Reader {
 public:
  Reader(Reader&&) noexcept;
  Reader& operator=(Reader&&) noexcept;
  ~Reader();

  // True if `key` (raw bytes, before normalisation) may be in the filter, false if it is
  // definitely not. A key that normalises to nothing is absent (builds skip such keys).
  bool contains(std::string_view key) const;
  // out[i] = contains(keys[i]) as 1 or 0.
  void contains_many(std::span<const std::string_view> keys, uint8_t* out) const;
  // The C API's layout: key i is data[offsets[i], offsets[i + 1]); `offsets` holds count + 1
  // non-decreasing entries, `out` receives count bytes. Throws kInvalidArgument (before writing
  // anything) when the offsets decrease.
  void contains_many(const char* data, std::span<const uint64_t> offsets, uint8_t* out) const;
  // `count` keys joined by the byte `separator` (none of them holds it): key i is what lies
  // between the i-th and the (i + 1)-th separator. Throws kInvalidArgument (before writing
  // anything) when `data` holds another number of keys. A batch of 65,536 keys or more is
  // queried on several threads (all on the same filter).
  void contains_separated(std::string_view data, char separator, size_t count, uint8_t* out) const;

  // The facts of the filter serving now. The reference stays valid as long as the Reader (the
  // facts of every filter it has served are kept: a few hundred bytes per switch).
  const FilterInfo& info() const noexcept;
  // The path the filter was opened from ("<memory>" for bytes).
  const std::string& path() const noexcept;

  // Switches to the file the path names now if it is another file than the one serving: returns
  // true if it switched, false if the path still names the same file. Throws bloomtool::Error as
  // open_filter does when the new file cannot be opened or fails a check, and the old filter
  // keeps serving. A Reader opened from bytes or standard input never changes (false). After a
  // switch it returns once the calls that began on the old filter have returned, and frees it.
  bool refresh() const;
  // The message of the last automatic refresh (OpenOptions::refresh_seconds) that failed, ""
  // when the last one succeeded or none has run.
  std::string last_refresh_error() const;

  struct Impl;  // the library's

 private:
  explicit Reader(std::unique_ptr<Impl> impl);
  friend Reader open_filter(const std::string&, const OpenOptions&);
  friend Reader open_filter(std::span<const uint8_t>, const OpenOptions&);
  std::unique_ptr<Impl> impl_;
};

// Opens, verifies and instantiates the filter at `path` ("-": standard input, read whole) with
// every check `bloomtool query` makes. A zstd file is read and verified whole; a raw-codec file is
// opened and read chunk by chunk (see raw_cache_bytes). Throws bloomtool::Error with the CLI's
// message ("x.bf: corrupt: payload checksum mismatch"): kIOError for a missing file, kCorrupt,
// kUnsupported, kLimitExceeded, kUntrusted.
Reader open_filter(const std::string& path, const OpenOptions& options = {});
// The same for a file image in memory (copied: `bytes` need not outlive the Reader), named
// "<memory>" in messages.
Reader open_filter(std::span<const uint8_t> bytes, const OpenOptions& options = {});

}  // namespace bloomtool
