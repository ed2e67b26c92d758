// Ways for two threads to insert into one Bloom filter, timed on the same hashes: what
// docs/PERFORMANCE.md ("Decisions and what was tried") quotes. Hashes are mix64 of a counter (the
// filter sees only uniformly random 64-bit hashes, as from XXH3), so reading and hashing are left
// out and only the insert is timed.
//
//   insert_scaling [KEYS] [ROUNDS] [FILE]   default 10M keys (p = 1 %), 5 rounds; medians in ms
//
// With FILE, it first times the rest of a build's work on one and two threads, through the
// library's range pipeline: reading and splitting FILE's lines, then that plus hashing them.
//
// Designs: one thread (the library's add_batch); two threads or-ing atomically into the shared
// filter (add_batch_concurrent); two threads with a private copy for the second, or-ed in at the
// end; two threads each owning half of the words, every position (or, blocked, every hash) routed
// to its owner in batches and set there with plain stores; the same halves, each thread walking
// every hash and setting its own half's bits (no routing, no copy); the same halves with each
// thread setting its own positions at once and routing only the others', without a branch per
// position (what the library's ParallelInserter does for two threads, also timed); regions under
// locks. Every result is checked against the one-thread filter.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <mutex>
#include <thread>
#include <tuple>
#include <vector>

#include "filters/bloom_positions.h"
#include "keys/batch_pipeline.h"
#include "filters/bloom.h"
#include "filters/bloom_build.h"
#include "keys/hash.h"
#include "keys/key_stream.h"
#include "model/model.h"
#include "filters/parallel_insert.h"

using namespace bloomtool;

namespace {

constexpr size_t kBatch = 4096;

double now_ms() {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Runs fn(t) on threads 0..n-1 (0 on the caller).
void on_threads(unsigned n, const std::function<void(unsigned)>& fn) {
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < n; ++t) pool.emplace_back(fn, t);
  fn(0);
  for (auto& p : pool) p.join();
}

// Thread t's share of the hashes, in batches.
template <typename F>
void batches_of(const std::vector<uint64_t>& h, unsigned t, unsigned n, F&& f) {
  const size_t lo = h.size() * t / n, hi = h.size() * (t + 1) / n;
  for (size_t i = lo; i < hi; i += kBatch)
    f(std::span<const uint64_t>(h.data() + i, std::min(kBatch, hi - i)));
}

// Mailboxes for owner routing: for each (src, dst) pair, full buffers on their way to dst and
// empty ones on their way back, so buffers are allocated once and reused.
struct Router {
  Router(unsigned n, size_t capacity, size_t depth) : n(n), pairs(n * n) {
    for (auto& p : pairs)
      for (size_t i = 0; i < depth; ++i) {
        p.empty.emplace_back();
        p.empty.back().reserve(capacity);
      }
  }
  struct Pair {
    std::mutex mu;
    std::vector<std::vector<uint64_t>> full, empty;
  };
  unsigned n;
  std::vector<Pair> pairs;
  std::atomic<unsigned> done{0};
  // Hands `items` to dst and puts an empty buffer in its place; false (nothing done) when no
  // empty buffer is back yet.
  bool push(unsigned src, unsigned dst, std::vector<uint64_t>& items) {
    Pair& p = pairs[src * n + dst];
    std::lock_guard l(p.mu);
    if (p.empty.empty()) return false;
    p.full.push_back(std::move(items));
    items = std::move(p.empty.back());
    p.empty.pop_back();
    return true;
  }
  // Applies every buffer waiting for dst and sends it back empty.
  template <typename F>
  bool drain(unsigned dst, F&& apply) {
    bool any = false;
    for (unsigned src = 0; src < n; ++src) {
      if (src == dst) continue;
      Pair& p = pairs[src * n + dst];
      for (;;) {
        std::vector<uint64_t> b;
        {
          std::lock_guard l(p.mu);
          if (p.full.empty()) break;
          b = std::move(p.full.front());
          p.full.erase(p.full.begin());
        }
        apply(b);
        b.clear();
        any = true;
        std::lock_guard l(p.mu);
        p.empty.push_back(std::move(b));
      }
    }
    return any;
  }
};

constexpr size_t kAhead = 64;

// Sets bit positions (standard) with a prefetch kAhead ahead and plain stores.
void set_positions(uint64_t* w, const std::vector<uint64_t>& pos) {
  const size_t n = pos.size();
  for (size_t i = 0; i < n; ++i) {
    if (i + kAhead < n) __builtin_prefetch(&w[pos[i + kAhead] >> 6], 1, 3);
    w[pos[i] >> 6] |= uint64_t{1} << (pos[i] & 63);
  }
}

struct Result {
  std::vector<double> ms;
  bool same = true;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Reading and splitting a file, then reading, splitting and hashing it, on 1 and 2 threads.
void time_reading(const std::string& path, int rounds) {
  for (const unsigned threads : {1u, 2u}) {
    std::vector<double> read_ms, hash_ms;
    uint64_t keys = 0;
    for (int i = 0; i < rounds; ++i) {
      InputOptions options;
      std::atomic<uint64_t> n{0};
      const double t0 = now_ms();
      const auto ranges = plan_line_ranges({path}, options, threads, kMinRangeBytes);
      if (ranges.empty()) {
        KeyReader reader({path}, options);
        KeyBatch b;
        while (reader.next(b)) n += b.keys.size();
      } else {
        run_range_pipeline({path}, ranges, options, threads, [&](KeyBatch& b, unsigned) {
          n.fetch_add(b.keys.size(), std::memory_order_relaxed);
        });
      }
      const double t1 = now_ms();
      KeyStreamOptions ko;
      ko.threads = threads;
      KeyStream stream({path}, options, ko);
      std::atomic<uint64_t> x{0};
      stream.for_each([&](const HashedBatch& b) {
        uint64_t v = 0;
        for (const uint64_t h : b.hashes) v ^= h;
        x.fetch_xor(v, std::memory_order_relaxed);
      });
      read_ms.push_back(t1 - t0);
      hash_ms.push_back(now_ms() - t1);
      keys = n.load();
    }
    std::printf("%u thread(s), %llu keys: read+split %.1f ms, read+split+hash %.1f ms\n", threads,
                static_cast<unsigned long long>(keys), median(read_ms), median(hash_ms));
  }
}

}  // namespace

int main(int argc, char** argv) {
  const uint64_t keys = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 10000000;
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 5;
  if (argc > 3) time_reading(argv[3], rounds);
  std::vector<uint64_t> hashes(keys);
  for (uint64_t i = 0; i < keys; ++i) hashes[i] = mix64(i + 12345);

  for (const BloomVariant variant : {BloomVariant::kStandard, BloomVariant::kBlocked512}) {
    BloomPlan plan;
    plan.capacity = keys;
    plan.fpr = 0.01;
    plan.variant = variant;
    const model::BloomSize s = bloom_size_for(plan, keys);
    BloomFilter reference(s.m_bits, s.k, variant);
    reference.add_batch(hashes);
    const uint64_t m = reference.bits(), words = reference.words().size();
    std::printf("%s: m=%llu k=%u (%.1f MiB)\n", bloom_variant_name(variant),
                static_cast<unsigned long long>(m), s.k, static_cast<double>(words) / 131072.0);

    auto run = [&](const char* name, const std::function<void(BloomFilter&)>& body) {
      Result r;
      for (int i = 0; i < rounds; ++i) {
        BloomFilter f(s.m_bits, s.k, variant);
        // Touch the pages first: every design pays the same page faults otherwise.
        std::memset(f.mutable_words().data(), 0, words * 8);
        const double t0 = now_ms();
        body(f);
        r.ms.push_back(now_ms() - t0);
        r.same =
            r.same && std::equal(f.words().begin(), f.words().end(), reference.words().begin());
      }
      std::printf("  %-44s %8.1f ms  (min %.1f max %.1f)%s\n", name, median(r.ms),
                  *std::min_element(r.ms.begin(), r.ms.end()),
                  *std::max_element(r.ms.begin(), r.ms.end()), r.same ? "" : "  DIFFERENT BITS");
    };

    run("1 thread, add_batch", [&](BloomFilter& f) {
      batches_of(hashes, 0, 1, [&](std::span<const uint64_t> b) { f.add_batch(b); });
    });
    run("2 threads, atomic or (add_batch_concurrent)", [&](BloomFilter& f) {
      on_threads(2, [&](unsigned t) {
        batches_of(hashes, t, 2, [&](std::span<const uint64_t> b) { f.add_batch_concurrent(b); });
      });
    });
    run("2 threads, the library's ParallelInserter (halves)", [&](BloomFilter& f) {
      ParallelInserter inserter(f, 2, ParallelInserter::Mode::kHalves);
      on_threads(2, [&](unsigned t) {
        batches_of(hashes, t, 2, [&](std::span<const uint64_t> b) { inserter.add(b, t); });
      });
      inserter.finish();
    });
    run("2 threads, private copy or-ed in at the end", [&](BloomFilter& f) {
      BloomFilter copy(s.m_bits, s.k, variant);
      on_threads(2, [&](unsigned t) {
        BloomFilter& mine = t == 0 ? f : copy;
        batches_of(hashes, t, 2, [&](std::span<const uint64_t> b) { mine.add_batch(b); });
      });
      auto dst = f.mutable_words();
      auto src = copy.words();
      for (size_t i = 0; i < dst.size(); ++i) dst[i] |= src[i];
    });

    // Owner routing: thread t owns words [t * per, (t + 1) * per), per a multiple of 8 words.
    for (const auto& [n, flush] : {std::pair{1u, size_t{16384}}, std::pair{2u, size_t{16384}},
                                   std::pair{2u, size_t{131072}}}) {
      char name[80];
      std::snprintf(name, sizeof name, "%u thread(s), owner routing, %zu-item buffers", n, flush);
      run(name, [&](BloomFilter& f) {
        const uint64_t per = (words + n * 8 - 1) / (n * 8) * 8;
        // owner(word) = word / per, as a multiply-high (no division per position).
        const uint64_t inv = ~uint64_t{0} / per + 1;
        auto owner = [&](uint64_t word) {
          __extension__ using U128 = unsigned __int128;
          return static_cast<unsigned>((static_cast<U128>(word) * inv) >> 64);
        };
        uint64_t* w = f.mutable_words().data();
        Router router(n, flush + kBatch * 64, 4);
        on_threads(n, [&](unsigned t) {
          std::vector<std::vector<uint64_t>> out(n);
          for (auto& o : out) o.reserve(flush + kBatch * 64);
          auto apply = [&](const std::vector<uint64_t>& items) {
            if (variant == BloomVariant::kStandard) {
              set_positions(w, items);
            } else {
              f.add_batch(items);  // owner's blocks only: plain stores
            }
          };
          batches_of(hashes, t, n, [&](std::span<const uint64_t> b) {
            for (const uint64_t h : b) {
              if (variant == BloomVariant::kStandard) {
                for_each_standard_position(
                    h, s.k, m, [&](uint64_t pos) { out[owner(pos >> 6)].push_back(pos); });
              } else {
                const uint64_t block = reduce64(h, m / 512);
                out[owner(block * 8)].push_back(h);
              }
            }
            for (unsigned d = 0; d < n; ++d) {
              if (d == t) {
                if (out[d].size() >= flush) apply(out[d]), out[d].clear();
              } else if (out[d].size() >= flush) {
                while (!router.push(t, d, out[d])) router.drain(t, apply);
              }
            }
            router.drain(t, apply);
          });
          apply(out[t]);
          for (unsigned d = 0; d < n; ++d)
            if (d != t)
              while (!router.push(t, d, out[d])) router.drain(t, apply);
          router.done.fetch_add(1);
          while (router.done.load() < n) {
            if (!router.drain(t, apply)) std::this_thread::yield();
          }
          router.drain(t, apply);
        });
      });
    }

    // Owner halves, all hashes: each thread walks every hash (in the build it would get the
    // other thread's hashes batch by batch) but sets only the positions in its own half of the
    // words: no copy, no routing of positions, each core's stores confined to half the array.
    if (variant == BloomVariant::kBlocked512) {
      run("2 threads, owner halves, every hash seen by both", [&](BloomFilter& f) {
        const uint64_t blocks = m / 512;
        const uint64_t half = (blocks + 1) / 2;
        on_threads(2, [&](unsigned t) {
          const uint64_t lo = t * half, cnt_blocks = t == 0 ? half : blocks - half;
          std::vector<uint64_t> own(kBatch);
          batches_of(hashes, 0, 1, [&](std::span<const uint64_t> b) {
            size_t cnt = 0;
            uint64_t* o = own.data();
            for (const uint64_t h : b) {
              o[cnt] = h;
              cnt += reduce64(h, blocks) - lo < cnt_blocks;
            }
            f.add_batch({o, cnt});
          });
        });
      });
    } else {
      run("2 threads, owner halves, every hash seen by both", [&](BloomFilter& f) {
        constexpr unsigned n = 2;
        const uint64_t per = (words + n * 8 - 1) / (n * 8) * 8;
        uint64_t* w = f.mutable_words().data();
        on_threads(n, [&](unsigned t) {
          const uint64_t lo = t * per * 64, hi = std::min(m, (t + 1) * per * 64);
          uint64_t* mine = w + t * per;
          const uint64_t span_bits = hi > lo ? hi - lo : 0;  // a tiny filter: all in the first
          std::vector<uint64_t> own(kBatch * s.k + 1);
          batches_of(hashes, 0, 1, [&](std::span<const uint64_t> b) {
            size_t cnt = 0;
            uint64_t* o = own.data();
            for (const uint64_t h : b) {
              for_each_standard_position(h, s.k, m, [&](uint64_t pos) {
                const uint64_t rel = pos - lo;  // wraps for positions below lo
                o[cnt] = rel;
                cnt += rel < span_bits;
              });
            }
            for (size_t i = 0; i < cnt; ++i) {
              if (i + kAhead < cnt) __builtin_prefetch(&mine[o[i + kAhead] >> 6], 1, 3);
              mine[o[i] >> 6] |= uint64_t{1} << (o[i] & 63);
            }
          });
        });
      });
    }

    // Owner halves, routed without branches: each position is written both to the thread's own
    // list and to the outgoing buffer of the other thread, and only the right count moves on.
    if (variant == BloomVariant::kStandard && m / 2 < (uint64_t{1} << 32)) {
      for (const size_t cap : {size_t{16384}, size_t{65536}}) {
        char name[96];
        std::snprintf(name, sizeof name, "2 threads, owner halves, branchless, %zu-item ring", cap);
        run(name, [&](BloomFilter& f) {
          constexpr unsigned n = 2;
          constexpr size_t kSlots = 8;
          const uint64_t per = (words + n * 8 - 1) / (n * 8) * 8;
          uint64_t* w = f.mutable_words().data();
          struct alignas(64) Ring {
            std::vector<std::vector<uint32_t>> slot;
            std::vector<size_t> fill;
            alignas(64) std::atomic<size_t> head{0};
            alignas(64) std::atomic<size_t> tail{0};
          };
          Ring rings[n];
          for (auto& r : rings) {
            r.slot.assign(kSlots, std::vector<uint32_t>(cap + 64));
            r.fill.assign(kSlots, 0);
          }
          std::atomic<unsigned> done{0};
          on_threads(n, [&](unsigned t) {
            const unsigned o = 1 - t;
            uint64_t* mine = w + t * per;
            Ring& in = rings[t];
            Ring& out = rings[o];
            const uint64_t lo = t * per * 64, hi = std::min(m, (t + 1) * per * 64);
            const uint64_t span = hi > lo ? hi - lo : 0;
            const uint64_t obase = o * per * 64;
            std::vector<uint32_t> own(kBatch * s.k + 64);
            auto apply_in = [&]() {
              bool any = false;
              for (size_t h = in.head.load(std::memory_order_relaxed);
                   h < in.tail.load(std::memory_order_acquire); ++h) {
                const uint32_t* p = in.slot[h % kSlots].data();
                const size_t cnt = in.fill[h % kSlots];
                for (size_t i = 0; i < cnt; ++i) {
                  if (i + kAhead < cnt) __builtin_prefetch(&mine[p[i + kAhead] >> 6], 1, 3);
                  mine[p[i] >> 6] |= uint64_t{1} << (p[i] & 63);
                }
                in.head.store(h + 1, std::memory_order_release);
                any = true;
              }
              return any;
            };
            uint32_t* ob = out.slot[0].data();
            size_t of = 0;
            auto publish = [&]() {
              const size_t tl = out.tail.load(std::memory_order_relaxed);
              out.fill[tl % kSlots] = of;
              out.tail.store(tl + 1, std::memory_order_release);
              of = 0;
              while (out.tail.load(std::memory_order_relaxed) -
                         out.head.load(std::memory_order_acquire) >=
                     kSlots) {
                if (!apply_in()) std::this_thread::yield();
              }
              ob = out.slot[(tl + 1) % kSlots].data();
            };
            batches_of(hashes, t, n, [&](std::span<const uint64_t> b) {
              size_t no = 0;
              uint32_t* ow = own.data();
              for (const uint64_t h : b) {
                if (of + s.k > cap) publish();
                for_each_standard_position(h, s.k, m, [&](uint64_t pos) {
                  const uint64_t rel = pos - lo;
                  const bool mine_pos = rel < span;
                  ow[no] = static_cast<uint32_t>(rel);
                  ob[of] = static_cast<uint32_t>(pos - obase);
                  no += mine_pos;
                  of += !mine_pos;
                });
              }
              for (size_t i = 0; i < no; ++i) {
                if (i + kAhead < no) __builtin_prefetch(&mine[ow[i + kAhead] >> 6], 1, 3);
                mine[ow[i] >> 6] |= uint64_t{1} << (ow[i] & 63);
              }
              apply_in();
            });
            if (of > 0) publish();
            done.fetch_add(1);
            while (done.load() < n) {
              if (!apply_in()) std::this_thread::yield();
            }
            apply_in();
          });
        });
      }
    }

    // Region locks: the words fall into regions of 2^shift words; each thread buffers the
    // positions (blocked: hashes) of each region and sets them itself once it holds the region's
    // lock, trying the next full buffer when a region is busy. Leftovers are set at the end.
    for (const auto& [n, regions, flush] :
         {std::tuple{1u, 8u, size_t{16384}}, std::tuple{2u, 2u, size_t{16384}},
          std::tuple{2u, 8u, size_t{16384}}, std::tuple{2u, 32u, size_t{16384}},
          std::tuple{2u, 8u, size_t{4096}}, std::tuple{2u, 8u, size_t{65536}}}) {
      char name[96];
      std::snprintf(name, sizeof name, "%u thread(s), region locks, %u regions, %zu-item buffers",
                    n, regions, flush);
      run(name, [&](BloomFilter& f) {
        unsigned shift = 3;  // at least a cache line per region
        while ((words >> shift) > regions) ++shift;
        const uint64_t nreg = (words + (uint64_t{1} << shift) - 1) >> shift;
        uint64_t* w = f.mutable_words().data();
        struct alignas(64) Lock {
          std::atomic<bool> held{false};
        };
        std::vector<Lock> locks(nreg);
        std::vector<std::vector<std::vector<uint64_t>>> bufs(
            n, std::vector<std::vector<uint64_t>>(nreg));
        auto apply = [&](const std::vector<uint64_t>& items) {
          if (variant == BloomVariant::kStandard) {
            set_positions(w, items);
          } else {
            f.add_batch(items);
          }
        };
        on_threads(n, [&](unsigned t) {
          auto& out = bufs[t];
          for (auto& o : out) o.reserve(2 * flush + kBatch * s.k);
          batches_of(hashes, t, n, [&](std::span<const uint64_t> b) {
            for (const uint64_t h : b) {
              if (variant == BloomVariant::kStandard) {
                for_each_standard_position(
                    h, s.k, m, [&](uint64_t pos) { out[pos >> (6 + shift)].push_back(pos); });
              } else {
                out[(reduce64(h, m / 512) * 8) >> shift].push_back(h);
              }
            }
            for (uint64_t r = 0; r < nreg; ++r) {
              if (out[r].size() < flush) continue;
              const bool must = out[r].size() >= 2 * flush;
              if (must) {
                while (locks[r].held.exchange(true, std::memory_order_acquire)) {
                }
              } else if (locks[r].held.exchange(true, std::memory_order_acquire)) {
                continue;
              }
              apply(out[r]);
              locks[r].held.store(false, std::memory_order_release);
              out[r].clear();
            }
          });
        });
        for (auto& per_thread : bufs)
          for (auto& o : per_thread) apply(o);
      });
    }
  }
  return 0;
}
