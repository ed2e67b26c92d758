// Guava- and DCSO-compatible builds (compat_build.h).
#include "interop/compat_build.h"

#include <simdjson.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <mutex>
#include <vector>

#include "bloomtool/error.h"
#include "filters/bloom.h"
#include "filters/bloom_build.h"
#include "filters/key_rule.h"
#include "filters/parallel_insert.h"
#include "format/atomic_file.h"
#include "format/output_target.h"
#include "interop/dcso_codec.h"
#include "keys/hash.h"
#include "model/model.h"

namespace bloomtool {

namespace {

// Re-throws a peer sizing refusal as a FieldError on `field`, without the "guava: " prefix.
template <typename F>
auto sized(const char* field, F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const FieldError&) {
    throw;
  } catch (const Error& e) {
    throw FieldError(field, e.what());
  }
}

// Guava: the bits do not depend on the order. One thread sets them with plain stores; several
// hand each batch's positions to a ParallelInserter (a copy of the filter per extra thread while
// they fit kMaxPrivateCopyBytes, or regions of the bit array set by one thread at a time), since
// atomic stores made two threads slower than one (10M URL keys: 1.56 s against 0.57 s).
// Keys of the batch that are not valid UTF-8 (RFC 3629: no surrogates, no overlong forms).
uint64_t count_non_utf8(std::span<const std::string_view> keys) noexcept {
  uint64_t n = 0;
  for (const std::string_view k : keys) n += simdjson::validate_utf8(k.data(), k.size()) ? 0 : 1;
  return n;
}

// Per-thread counts on separate cache lines.
struct alignas(64) ThreadCount {
  uint64_t n = 0;
};

InputStats add_unordered(KeyStream& keys, BloomFilter& filter, uint64_t& non_utf8) {
  std::vector<ThreadCount> bad(keys.threads());
  auto sum = [&] {
    for (const ThreadCount& c : bad) non_utf8 += c.n;
  };
  if (keys.threads() == 1) {
    const InputStats input = keys.for_each([&](const HashedBatch& b) {
      bad[0].n += count_non_utf8(b.keys);
      filter.add_keys(b.keys);
    });
    sum();
    return input;
  }
  ParallelInserter inserter(filter.mutable_words(), keys.threads(), kMaxPrivateCopyBytes);
  std::vector<std::vector<uint64_t>> scratch(keys.threads());
  const InputStats input = keys.for_each([&](const HashedBatch& b) {
    bad[b.thread].n += count_non_utf8(b.keys);
    std::vector<uint64_t>& pos = scratch[b.thread];
    pos.resize(b.keys.size() * filter.k());
    filter.positions_batch(b.keys, pos.data());
    inserter.add_positions(pos, b.thread);
  });
  inserter.finish();
  sum();
  return input;
}

// DCSO: positions on every thread, bits in input order on this one, since DCSO's N counts the
// keys that set at least one new bit, which depends on the order. Returns N. A piece of output
// holds whole keys' positions as Pos numbers (std::string storage is aligned for them).
template <typename Pos>
uint64_t add_in_order(KeyStream& keys, BloomFilter& filter, InputStats& input) {
  const size_t per_key = filter.k() * sizeof(Pos);
  uint64_t counted = 0;
  input = keys.for_each_ordered(
      [&](const HashedBatch& b, std::string& out) {
        const size_t at = out.size();
        out.resize(at + b.keys.size() * per_key);
        filter.positions_batch(b.keys, reinterpret_cast<Pos*>(out.data() + at));
      },
      [&](std::string& piece) {
        counted += filter.add_counting_positions(std::span<const Pos>(
            reinterpret_cast<const Pos*>(piece.data()), piece.size() / sizeof(Pos)));
        return true;
      });
  return counted;
}

}  // namespace

CompatSize compat_size(const CompatPlan& plan) {
  if (plan.capacity == 0) throw FieldError("n", "must be at least 1");
  if (!(plan.fpr > 0.0 && plan.fpr < 1.0)) throw FieldError("p", "must be between 0 and 1");
  if (plan.hashes && (*plan.hashes == 0 || *plan.hashes > kMaxSchemeK))
    throw FieldError("k", "must be between 1 and 255");
  if (plan.bits && (*plan.bits == 0 || *plan.bits > model::kMaxBits))
    throw FieldError("m", "must be between 1 bit and 2^40 bits");
  CompatSize s;
  const double n = static_cast<double>(plan.capacity);
  if (plan.format == FileFormat::kGuava) {
    if (plan.bits) {
      const uint64_t words = (*plan.bits + 63) / 64;
      if (words > guava::kMaxWords) throw FieldError("m", "more than Guava's 2^31-1 words");
      s.m = words * 64;
      s.k = static_cast<uint32_t>(
          std::max(1.0, std::floor(static_cast<double>(*plan.bits) / n * std::log(2.0) + 0.5)));
    } else {
      const guava::Sizing g =
          sized("n/p", [&] { return guava::size_for(plan.capacity, plan.fpr, plan.guava_k_rule); });
      s.m = g.bit_size();
      s.k = g.k;
    }
  } else if (plan.format == FileFormat::kDcso) {
    if (plan.bits) {
      s.m = *plan.bits;
      const double k = std::ceil(dcso::go_log(2.0) * static_cast<double>(s.m) / n);
      s.k = static_cast<uint32_t>(std::min(k, 1e6));
    } else {
      const dcso::Sizing d = sized("n/p", [&] { return dcso::size_for(plan.capacity, plan.fpr); });
      s.m = d.m;
      s.k = static_cast<uint32_t>(std::min<uint64_t>(d.k, 1000000));
    }
  } else {
    throw Error(ErrorCode::kInvalidArgument, "compat_size: not a peer format");
  }
  if (plan.hashes) s.k = *plan.hashes;
  if (s.m > model::kMaxBits) throw FieldError("n/p", "need more than 2^40 bits");
  if (s.k > kMaxSchemeK) {
    throw FieldError("k", "the peer's sizing gives k = " + std::to_string(s.k) +
                              ", above the 255 a filter may use");
  }
  return s;
}

std::vector<SizeRow> compat_size_table(const SizeQuery& q, FileFormat format) {
  if (!q.n) throw FieldError("n", "required with a peer's sizing (it sizes from n)");
  CompatPlan plan;
  plan.format = format;
  plan.capacity = *q.n;
  if (q.p) plan.fpr = *q.p;
  plan.bits = q.m_bits;
  plan.hashes = q.k;
  const CompatSize size = compat_size(plan);
  const double n = static_cast<double>(*q.n);
  SizeRow row;
  row.name = file_format_name(format);
  row.title = format == FileFormat::kGuava ? "Guava create(n, p)" : "DCSO Initialize(n, p)";
  if (q.m_bits) row.title = format == FileFormat::kGuava ? "Guava, m given" : "DCSO, m given";
  row.keys = *q.n;
  row.bits = size.m;
  row.k = size.k;
  row.fpr = model::bloom_fpr(static_cast<double>(size.m), n, size.k);
  if (*q.n > 0) row.bits_per_key = static_cast<double>(size.m) / n;
  SizeRow bound;
  bound.name = "lower_bound";
  bound.title = "lower bound";
  bound.keys = *q.n;
  bound.fpr = row.fpr;
  const double lb = model::lower_bound_bits(n, row.fpr);
  bound.bits = static_cast<uint64_t>(std::ceil(lb));
  bound.bits_per_key = lb / n;
  return {row, bound};
}

CompatBuild build_compat(KeyStream& keys, const CompatPlan& plan) {
  const CompatSize size = compat_size(plan);
  const bool dcso = plan.format == FileFormat::kDcso;
  const uint32_t hash_id = dcso ? kHashDcsoFnv1 : kHashGuavaMitz64;
  auto filter = std::make_unique<BloomFilter>(KeyRule{hash_id, 0}, size.m, size.k);
  CompatBuild r;
  keys.set_hash_keys(false);  // the schemes hash the key bytes themselves
  if (!dcso) {
    r.input = add_unordered(keys, *filter, r.non_utf8_keys);
  } else {
    r.counted = size.m <= (uint64_t{1} << 32) ? add_in_order<uint32_t>(keys, *filter, r.input)
                                              : add_in_order<uint64_t>(keys, *filter, r.input);
  }
  const double m = static_cast<double>(size.m);
  r.distinct_from_fill =
      model::bloom_fill_distinct(static_cast<double>(filter->set_bit_count()), m, size.k);
  if (!plan.allow_overfill && r.distinct_from_fill > 1.2 * static_cast<double>(plan.capacity)) {
    throw OverfillError(std::isfinite(r.distinct_from_fill)
                            ? static_cast<uint64_t>(r.distinct_from_fill)
                            : r.input.keys,
                        plan.capacity);
  }

  FilterHeader& h = r.filter.header;
  h.minor = kFormatMinorLatest;
  h.kind = FilterKind::kBloom;
  h.hash_id = hash_id;
  h.m = size.m;
  h.k = size.k;
  h.lines_read = r.input.lines;
  h.empty_lines = r.input.empty_lines;
  h.input_options = input_options_text(keys.input_options());
  h.keys_added = dcso ? r.counted : r.input.keys;
  h.distinct_estimate = std::isfinite(r.distinct_from_fill)
                            ? static_cast<uint64_t>(std::llround(r.distinct_from_fill))
                            : r.input.keys;
  h.payload_raw_bytes = filter->words().size() * 8;
  if (dcso) {
    SourceFormat s;
    s.source = SourceFormat::Source::kDcso;
    s.capacity = plan.capacity;
    s.fpp_bits = std::bit_cast<uint64_t>(plan.fpr);
    s.count = r.counted;
    h.source_format = encode_source_format(s);
  } else {
    h.source_format = encode_source_format(SourceFormat{});
  }
  r.filter.filter = std::move(filter);
  return r;
}

uint64_t write_output_bytes(const std::string& path, std::span<const uint8_t> bytes) {
  const OutputTarget target = resolve_output_target(path);
  if (target.kind != OutputKind::kFile) {
    write_output_stream(target, bytes);
    return bytes.size();
  }
  AtomicFile file(path);
  file.write(bytes);
  file.commit();
  return bytes.size();
}

}  // namespace bloomtool
