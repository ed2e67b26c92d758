// Hashes spilled to one nameless temporary file in sorted, indexed runs (hash_spill.h).
#include "format/hash_spill.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include <fmt/format.h>

#include "base/run_threads.h"
#include "bloomtool/error.h"
#include "keys/hash_sort.h"

namespace bloomtool {

// Names of their own: the sanitizer builds compile this file in one unit with hash_sort.cpp.
namespace spill_impl {

constexpr unsigned kIndexBits = 16;
constexpr size_t kIndexEntries = (size_t{1} << kIndexBits) + 1;
constexpr uint64_t kIndexBytes = kIndexEntries * sizeof(uint64_t);
constexpr size_t kStageMax = 8192;                  // hashes in a thread's staging buffer (64 KiB)
constexpr size_t kFirstRunWords = size_t{1} << 19;  // 4 MiB: from there the buffer grows by mremap
constexpr uint64_t kIoChunk = uint64_t{8} << 20;    // bytes a write or read asks for at once
constexpr size_t kMergeBytes = size_t{4} << 20;     // read(): the merge's buffers, together
constexpr const char* kSpillPrefix = ".bloomtool-spill.";

// --- Sorting a run --------------------------------------------------------------------------
// A two-level MSD radix sort into a scratch array of the run's size: the first level scatters
// the run by its top bits into buckets of about 4,096 hashes (threads scatter slices of the run,
// each bucket's hashes in input order), then each bucket, small enough for the L2 cache, is
// sorted back by sort_radix_bucket (keys/hash_sort.h).
// Buckets are shared out among the threads by hash count.

// Sorts data[0, n) ascending, using scratch[0, n), on up to `threads` threads.
void sort_run(uint64_t* data, uint64_t* scratch, size_t n, unsigned threads) {
  if (n < 8192) {
    std::sort(data, data + n);
    return;
  }
  if (n < (size_t{1} << 18)) threads = 1;
  const int top = std::clamp(static_cast<int>(std::bit_width(n / 4096)), 1, 16);
  const int shift = 64 - top;
  const size_t groups = size_t{1} << top;
  auto slice = [&](unsigned t) {
    return std::pair{n / threads * t, t + 1 == threads ? n : n / threads * (t + 1)};
  };
  std::vector<std::vector<size_t>> next(threads, std::vector<size_t>(groups, 0));
  detail::run_threads(threads, [&](unsigned t) {
    const auto [begin, end] = slice(t);
    size_t* c = next[t].data();
    for (size_t i = begin; i < end; ++i) ++c[data[i] >> shift];
  });
  std::vector<size_t> start(groups + 1, 0);
  size_t at = 0;
  for (size_t g = 0; g < groups; ++g) {
    start[g] = at;
    for (unsigned t = 0; t < threads; ++t) at += std::exchange(next[t][g], at);
  }
  start[groups] = at;
  detail::run_threads(threads, [&](unsigned t) {
    const auto [begin, end] = slice(t);
    size_t* to = next[t].data();
    for (size_t i = begin; i < end; ++i) scratch[to[data[i] >> shift]++] = data[i];
  });
  // Thread t sorts groups [cut[t], cut[t + 1]): about n / threads hashes.
  std::vector<size_t> cut(threads + 1, groups);
  cut[0] = 0;
  for (unsigned t = 1; t < threads; ++t) {
    cut[t] = static_cast<size_t>(std::lower_bound(start.begin(), start.end() - 1, n / threads * t) -
                                 start.begin());
    cut[t] = std::max(cut[t], cut[t - 1]);
  }
  detail::run_threads(threads, [&](unsigned t) {
    for (size_t g = cut[t]; g < cut[t + 1]; ++g)
      sort_radix_bucket(scratch + start[g], data + start[g], start[g + 1] - start[g], shift);
  });
}

// Over sorted a[0, n): counts every hash by its top 16 bits into hist (65,536 entries), moves the
// distinct ones to the front and, if `index` is given, sets index[b] to the position of the
// first distinct hash whose top 16 bits are >= b (65,537 entries). Returns the distinct count.
size_t unique_counted(uint64_t* a, size_t n, uint64_t* hist, uint64_t* index) {
  size_t w = 0, b = 0;
  for (size_t i = 0; i < n; ++i) {
    const uint64_t x = a[i];
    const size_t top = static_cast<size_t>(x >> (64 - kIndexBits));
    ++hist[top];
    if (w > 0 && a[w - 1] == x) continue;
    if (index != nullptr)
      while (b <= top) index[b++] = w;
    a[w++] = x;
  }
  if (index != nullptr)
    while (b < kIndexEntries) index[b++] = w;
  return w;
}

// --- The file ---------------------------------------------------------------------------------

// Removes names a spill file keeps on a filesystem without O_TMPFILE, left by a process killed
// between mkstemp and unlink: regular files of this user named kSpillPrefix + 6 characters. A
// live owner loses nothing (it holds the file open), so no check of its process is needed.
void remove_stale_names(const std::string& dir) {
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return;
  const size_t plen = std::strlen(kSpillPrefix);
  while (const dirent* e = ::readdir(d)) {
    if (std::strncmp(e->d_name, kSpillPrefix, plen) != 0 || std::strlen(e->d_name) != plen + 6)
      continue;
    struct stat st;
    if (::fstatat(::dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
        st.st_uid == ::geteuid())
      ::unlinkat(::dirfd(d), e->d_name, 0);
  }
  ::closedir(d);
}

UniqueFd create_spill_file(const std::string& dir) {
  UniqueFd fd(::open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600));
  if (!fd && (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL)) {
    // No O_TMPFILE here (older kernels report EISDIR): a name, unlinked at once.
    remove_stale_names(dir);
    std::string path = dir + "/" + kSpillPrefix + "XXXXXX";
    fd.reset(::mkostemp(path.data(), O_CLOEXEC));
    if (fd && ::unlink(path.c_str()) != 0 && errno != ENOENT) {
      const int err = errno;
      throw Error(ErrorCode::kIOError,
                  fmt::format("{}: cannot remove the name of a temporary file: {}", dir,
                              std::strerror(err)));
    }
  }
  if (!fd) {
    const int err = errno;
    throw Error(ErrorCode::kIOError,
                fmt::format("{}: cannot create a temporary file: {}", dir, std::strerror(err)));
  }
  return fd;
}

uint64_t saturating_mul(uint64_t a, uint64_t b) {
  uint64_t p;
  return __builtin_mul_overflow(a, b, &p) ? UINT64_MAX : p;
}

uint64_t free_bytes(const std::string& dir) {
  struct statvfs vfs;
  if (::statvfs(dir.c_str(), &vfs) != 0) return UINT64_MAX;
  return saturating_mul(vfs.f_bavail, vfs.f_frsize);
}

}  // namespace spill_impl

using namespace spill_impl;

std::string spill_directory(const std::string& tmpdir) {
  if (!tmpdir.empty()) return tmpdir;
  const char* env = std::getenv("TMPDIR");
  return env != nullptr && *env != '\0' ? std::string(env) : std::string("/tmp");
}

void check_spill_directory(const std::string& dir) {
  create_spill_file(dir);
}

HashSpill::HashSpill(SpillOptions opts, unsigned threads)
    : tmpdir_(spill_directory(opts.tmpdir)),
      threads_(std::max(threads, 1u)),
      memory_bytes_(opts.memory_bytes) {
  if (memory_bytes_ != 0 && memory_bytes_ < kMinSpillMemory) {
    throw FieldError("memory_bytes",
                     fmt::format("must be 0 (no limit) or at least {} bytes", kMinSpillMemory));
  }
  if (memory_bytes_ == 0) {
    stage_cap_ = kStageMax;
    run_cap_ = UINT64_MAX;
  } else {
    // The staging buffers take at most a sixteenth of the budget, the run buffer the rest.
    const uint64_t words = memory_bytes_ / sizeof(uint64_t);
    stage_cap_ = static_cast<size_t>(std::min<uint64_t>(kStageMax, words / 16 / threads_));
    run_cap_ = (words - uint64_t{stage_cap_} * threads_) / 2;  // the run and the sort's scratch
  }
  stages_.resize(threads_);
  top_counts_.assign(kIndexEntries, 0);
  if (memory_bytes_ == 0) return;
  fd_ = create_spill_file(tmpdir_);
  // With a budget the run buffer is mapped whole at once (address space only: pages come as
  // hashes arrive), so it never moves and adders copy into it side by side.
  // A system that will not map that much at once (strict overcommit) keeps the staged path, whose
  // buffer grows as hashes come.
  try {
    run_ = WordBuffer(static_cast<size_t>(run_cap_));
    direct_ = true;
  } catch (const Error&) {
    run_ = WordBuffer();
  }
  if (opts.expected_hashes > run_cap_) {
    const uint64_t runs = (opts.expected_hashes - 1) / run_cap_ + 1;
    const uint64_t data = saturating_mul(opts.expected_hashes, sizeof(uint64_t));
    const uint64_t index = saturating_mul(runs, kIndexBytes);
    check_space(data > UINT64_MAX - index ? UINT64_MAX : data + index);
  }
}

HashSpill::~HashSpill() = default;

void HashSpill::check_ok_locked() const {
  if (!error_.empty()) throw Error(static_cast<ErrorCode>(error_code_), error_);
}

void HashSpill::check_finished(const char* what) const {
  if (!finished_) throw Error(ErrorCode::kInvalidArgument, std::string(what) + " before finish()");
  if (moved_out_) {
    throw Error(ErrorCode::kInvalidArgument,
                std::string(what) + " after finish_unsorted() moved the hashes out");
  }
}

void HashSpill::check_space(uint64_t bytes) const {
  const uint64_t free = free_bytes(tmpdir_);
  if (bytes <= free) return;
  throw Error(ErrorCode::kIOError,
              fmt::format("{}: not enough free space for spilled hashes: needs {}, {} free",
                          tmpdir_, format_bytes(bytes), format_bytes(free)));
}

void HashSpill::pwrite_all(const void* data, uint64_t bytes, uint64_t offset) {
  const auto* p = static_cast<const uint8_t*>(data);
  uint64_t done = 0;
  while (done < bytes) {
    const size_t ask = static_cast<size_t>(std::min(bytes - done, kIoChunk));
    const ssize_t w = ::pwrite(fd_.get(), p + done, ask, static_cast<off_t>(offset + done));
    if (w < 0 && errno == EINTR) continue;
    // A write that makes no progress is a full disk too.
    const int err = w < 0 ? errno : w == 0 ? ENOSPC : 0;
    if (err == ENOSPC || err == EDQUOT) {
      throw Error(ErrorCode::kIOError,
                  fmt::format("{}: {} writing spilled hashes (needs {} more, {} free)", tmpdir_,
                              std::strerror(err), format_bytes(bytes - done),
                              format_bytes(free_bytes(tmpdir_))));
    }
    if (err != 0) {
      throw Error(ErrorCode::kIOError,
                  fmt::format("{}: writing spilled hashes: {}", tmpdir_, std::strerror(err)));
    }
    done += static_cast<uint64_t>(w);
  }
}

void HashSpill::pread_all(void* data, uint64_t bytes, uint64_t offset) const {
  auto* p = static_cast<uint8_t*>(data);
  uint64_t done = 0;
  while (done < bytes) {
    const size_t ask = static_cast<size_t>(std::min(bytes - done, kIoChunk));
    const ssize_t r = ::pread(fd_.get(), p + done, ask, static_cast<off_t>(offset + done));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) {
      throw Error(ErrorCode::kIOError,
                  fmt::format("{}: reading spilled hashes: {}", tmpdir_, std::strerror(errno)));
    }
    if (r == 0) {
      throw Error(ErrorCode::kIOError,
                  fmt::format("{}: reading spilled hashes: the temporary file ends at byte {}, "
                              "before {}",
                              tmpdir_, offset + done, offset + bytes));
    }
    done += static_cast<uint64_t>(r);
  }
}

void HashSpill::add(unsigned thread, std::span<const uint64_t> hashes) {
  if (thread >= threads_) {
    throw FieldError("thread",
                     fmt::format("{} is not below the thread count {}", thread, threads_));
  }
  if (hashes.empty()) return;
  if (direct_) {
    add_direct(hashes);
    return;
  }
  Stage& s = stages_[thread];
  if (hashes.size() >= stage_cap_) {
    flush_stage(s);
    const std::lock_guard<std::mutex> hold(lock_);
    push_locked(hashes);
    return;
  }
  if (s.used + hashes.size() > stage_cap_) flush_stage(s);
  if (!s.words) s.words = std::make_unique<uint64_t[]>(stage_cap_);
  std::copy(hashes.begin(), hashes.end(), s.words.get() + s.used);
  s.used += hashes.size();
}

void HashSpill::add_direct(std::span<const uint64_t> hashes) {
  size_t at;
  {
    std::unique_lock<std::mutex> hold(lock_);
    check_ok_locked();
    if (finished_) throw Error(ErrorCode::kInvalidArgument, "add() after finish()");
    if (run_used_ + hashes.size() > run_cap_) {
      // The run fills up: once no copy is under way, it is written as before.
      idle_.wait(hold, [&] { return copying_ == 0; });
      push_locked(hashes);
      return;
    }
    at = run_used_;
    run_used_ += hashes.size();
    added_ += hashes.size();
    ++copying_;
  }
  std::memcpy(run_.data() + at, hashes.data(), hashes.size() * sizeof(uint64_t));
  const std::lock_guard<std::mutex> hold(lock_);
  if (--copying_ == 0) idle_.notify_all();
}

void HashSpill::flush_stage(Stage& s) {
  if (s.used == 0) return;
  const std::lock_guard<std::mutex> hold(lock_);
  push_locked({s.words.get(), s.used});
  s.used = 0;
}

void HashSpill::push_locked(std::span<const uint64_t> hashes) {
  check_ok_locked();
  if (finished_) throw Error(ErrorCode::kInvalidArgument, "add() after finish()");
  added_ += hashes.size();
  while (!hashes.empty()) {
    if (run_used_ == run_cap_) write_run_locked();
    const size_t k = static_cast<size_t>(std::min<uint64_t>(run_cap_ - run_used_, hashes.size()));
    if (run_used_ + k > run_.size()) {
      // Below kFirstRunWords the buffer is allocated whole (a smaller one would be copied as it
      // grows, holding two at once); from there it grows by moving pages.
      size_t want = std::max({2 * run_.size(), run_used_ + k, kFirstRunWords});
      want = static_cast<size_t>(std::min<uint64_t>(want, run_cap_));
      try {
        run_.resize(want);
      } catch (const Error& e) {
        error_ = e.what();
        error_code_ = static_cast<int>(e.code());
        throw;
      }
    }
    std::memcpy(run_.data() + run_used_, hashes.data(), k * sizeof(uint64_t));
    run_used_ += k;
    hashes = hashes.subspan(k);
  }
}

void HashSpill::sort_locked() {
  if (scratch_.size() < run_used_) {
    scratch_ = WordBuffer();  // the old one goes first: never two at once
    scratch_ = WordBuffer(run_used_);
  }
  sort_run(run_.data(), scratch_.data(), run_used_, threads_);
}

void HashSpill::write_run_locked() {
  if (run_used_ == 0) return;
  try {
    sort_locked();
    std::vector<uint64_t> index(kIndexEntries);
    const size_t distinct =
        unique_counted(run_.data(), run_used_, top_counts_.data(), index.data());
    const uint64_t data_bytes = uint64_t{distinct} * sizeof(uint64_t);
    check_space(data_bytes + kIndexBytes);
    pwrite_all(run_.data(), data_bytes, file_bytes_);
    pwrite_all(index.data(), kIndexBytes, file_bytes_ + data_bytes);
    runs_.push_back({file_bytes_, distinct});
    file_bytes_ += data_bytes + kIndexBytes;
    run_used_ = 0;
  } catch (const Error& e) {
    error_ = e.what();
    error_code_ = static_cast<int>(e.code());
    throw;
  }
}

void HashSpill::finish() {
  for (Stage& s : stages_) {
    flush_stage(s);
    s.words.reset();
  }
  const std::lock_guard<std::mutex> hold(lock_);
  check_ok_locked();
  if (finished_) return;
  if (!runs_.empty()) {
    write_run_locked();
    run_ = WordBuffer();
    scratch_ = WordBuffer();
  } else {
    sort_locked();
    scratch_ = WordBuffer();
    run_used_ = unique_counted(run_.data(), run_used_, top_counts_.data(), nullptr);
  }
  // Prefix sums: top_counts_[b] becomes the number of hashes whose top 16 bits are < b.
  uint64_t sum = 0;
  for (uint64_t& c : top_counts_) sum += std::exchange(c, sum);
  finished_ = true;
}

bool HashSpill::finish_unsorted(WordBuffer& out) {
  out = WordBuffer();
  for (Stage& s : stages_) {
    flush_stage(s);
    s.words.reset();
  }
  {
    const std::lock_guard<std::mutex> hold(lock_);
    check_ok_locked();
    if (!finished_ && runs_.empty()) {
      out = std::move(run_);
      run_ = WordBuffer();
      run_used_ = 0;
      moved_out_ = true;
      finished_ = true;
      return true;
    }
  }
  finish();
  return false;
}

uint64_t HashSpill::size() const {
  // Hashes still in a thread's stage count too (size() is asked between the last add() and
  // finish(), to choose the partition count).
  uint64_t staged = 0;
  for (const Stage& s : stages_) staged += s.used;
  const std::lock_guard<std::mutex> hold(lock_);
  return added_ + staged;
}

bool HashSpill::spilled() const {
  const std::lock_guard<std::mutex> hold(lock_);
  return !runs_.empty();
}

uint64_t HashSpill::spill_bytes() const {
  const std::lock_guard<std::mutex> hold(lock_);
  return file_bytes_;
}

size_t HashSpill::runs() const {
  const std::lock_guard<std::mutex> hold(lock_);
  return runs_.size();
}

uint64_t HashSpill::count(unsigned bits, uint64_t part) const {
  check_finished("count()");
  if (bits > kIndexBits) throw FieldError("bits", fmt::format("{} is above 16", bits));
  if (part >> bits != 0) throw FieldError("part", fmt::format("{} is not below 2^{}", part, bits));
  const size_t lo = static_cast<size_t>(part << (kIndexBits - bits));
  const size_t hi = static_cast<size_t>((part + 1) << (kIndexBits - bits));
  return top_counts_[hi] - top_counts_[lo];
}

std::span<uint64_t> HashSpill::held() {
  check_finished("held()");
  if (!runs_.empty()) throw Error(ErrorCode::kInvalidArgument, "held(): the hashes were spilled");
  return {run_.data(), run_used_};
}

void HashSpill::read(unsigned bits, uint64_t part, std::vector<uint64_t>& out) const {
  out.clear();
  check_finished("read()");
  if (bits > kIndexBits) throw FieldError("bits", fmt::format("{} is above 16", bits));
  if (part >> bits != 0) throw FieldError("part", fmt::format("{} is not below 2^{}", part, bits));
  const size_t lo = static_cast<size_t>(part << (kIndexBits - bits));
  const size_t hi = static_cast<size_t>((part + 1) << (kIndexBits - bits));
  if (top_counts_[hi] == top_counts_[lo]) return;
  if (runs_.empty()) {
    // In memory, sorted: the slice between the first hashes of top bits lo and hi.
    const uint64_t* begin = run_.data();
    const uint64_t* end = begin + run_used_;
    const uint64_t* from =
        lo == 0 ? begin : std::lower_bound(begin, end, uint64_t{lo} << (64 - kIndexBits));
    const uint64_t* to = hi == kIndexEntries - 1
                             ? end
                             : std::lower_bound(from, end, uint64_t{hi} << (64 - kIndexBits));
    out.assign(from, to);
    return;
  }
  // Each run's slice, found in its index (one read when the two entries are neighbours).
  std::vector<std::pair<uint64_t, uint64_t>> slices(runs_.size());
  uint64_t total = 0;
  for (size_t r = 0; r < runs_.size(); ++r) {
    const uint64_t index_at = runs_[r].offset + runs_[r].count * sizeof(uint64_t);
    uint64_t e[2];
    if (hi == lo + 1) {
      pread_all(e, sizeof e, index_at + lo * sizeof(uint64_t));
    } else {
      pread_all(&e[0], sizeof(uint64_t), index_at + lo * sizeof(uint64_t));
      pread_all(&e[1], sizeof(uint64_t), index_at + hi * sizeof(uint64_t));
    }
    if (e[0] > e[1] || e[1] > runs_[r].count) {
      throw Error(ErrorCode::kIOError,
                  fmt::format("{}: reading spilled hashes: a run's index was altered", tmpdir_));
    }
    slices[r] = {e[0], e[1]};
    total += e[1] - e[0];
  }
  out.resize(static_cast<size_t>(total));
  std::vector<size_t> from;  // the runs with hashes here
  for (size_t r = 0; r < runs_.size(); ++r)
    if (slices[r].second > slices[r].first) from.push_back(r);
  if (from.size() == 1) {
    const size_t r = from[0];
    pread_all(out.data(), total * sizeof(uint64_t),
              runs_[r].offset + slices[r].first * sizeof(uint64_t));
    return;
  }
  // Several runs: their slices, each sorted and distinct, merged through a small buffer each
  // (kMergeBytes together, 4 KiB to 64 KiB a run), dropping repeats.
  const size_t k = from.size();
  const size_t chunk = std::clamp<size_t>(kMergeBytes / sizeof(uint64_t) / k, 512, 8192);
  std::vector<uint64_t> buffers(k * chunk);
  struct Stream {
    const uint64_t* at;
    const uint64_t* end;
    uint64_t next;  // position in the run of the first hash not yet buffered
    uint64_t stop;  // position in the run past the slice
    size_t run;
  };
  std::vector<Stream> streams(k);
  auto refill = [&](size_t i) {  // false when the stream is done
    Stream& st = streams[i];
    if (st.next == st.stop) return false;
    uint64_t* buf = buffers.data() + i * chunk;
    const uint64_t len = std::min<uint64_t>(chunk, st.stop - st.next);
    pread_all(buf, len * sizeof(uint64_t), runs_[st.run].offset + st.next * sizeof(uint64_t));
    st.next += len;
    st.at = buf;
    st.end = buf + len;
    return true;
  };
  // A binary heap of the streams' current hashes, the smallest on top; a stream's hash travels
  // with its index, so sifting compares values without following pointers.
  struct Head {
    uint64_t hash;
    size_t stream;
  };
  std::vector<Head> heap;
  for (size_t i = 0; i < k; ++i) {
    streams[i] = {nullptr, nullptr, slices[from[i]].first, slices[from[i]].second, from[i]};
    if (refill(i)) heap.push_back({*streams[i].at, i});
  }
  auto sift_down = [&heap](size_t pos) {
    const size_t n = heap.size();
    const Head h = heap[pos];
    while (true) {
      size_t c = 2 * pos + 1;
      if (c >= n) break;
      if (c + 1 < n && heap[c + 1].hash < heap[c].hash) ++c;
      if (heap[c].hash >= h.hash) break;
      heap[pos] = heap[c];
      pos = c;
    }
    heap[pos] = h;
  };
  for (size_t i = heap.size(); i-- > 0;) sift_down(i);
  size_t w = 0;
  while (!heap.empty()) {
    const uint64_t v = heap[0].hash;
    if (w == 0 || out[w - 1] != v) out[w++] = v;
    Stream& st = streams[heap[0].stream];
    if (++st.at != st.end || refill(heap[0].stream)) {
      heap[0].hash = *st.at;  // it grew: sift it down
    } else {
      heap[0] = heap.back();  // the stream is done
      heap.pop_back();
      if (heap.empty()) break;
    }
    sift_down(0);
  }
  out.resize(w);
}

}  // namespace bloomtool
