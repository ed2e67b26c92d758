// `bloomtool build`: reads keys, sizes and fills a Bloom filter, writes it atomically, and prints
// a summary on stderr. With -n the filter is sized up front and keys stream through; without -n
// one 64-bit hash per key is kept, the exact distinct count decides the size, and the requested
// p holds for input of any length (stdin included).
#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>

#include "bloomtool/batch_pipeline.h"
#include "bloomtool/bloom.h"
#include "bloomtool/error.h"
#include "bloomtool/filter_file.h"
#include "bloomtool/hash.h"
#include "bloomtool/hash_sort.h"
#include "bloomtool/index_model.h"
#include "bloomtool/model.h"
#include "bloomtool/output_target.h"
#include "bloomtool/stats.h"
#include "bloomtool/units.h"
#include "bloomtool/version.h"
#include "common.h"
#include "progress.h"

namespace bloomtool::cli {

namespace {

struct BuildOptions {
  std::string n, p, m, k;
  std::string output;
  std::string variant = "standard";
  std::string label;
  std::string created;
  bool allow_overfill = false;
  bool quiet = false;
  unsigned threads = 0;
  bool no_measure = false;
  InputArgs input;
  ShrinkGuardArgs guard;
};

// The resolved filter geometry and how it was chosen.
struct Plan {
  std::optional<uint64_t> n;  // capacity from -n
  std::optional<double> p;
  std::optional<uint64_t> m;
  std::optional<uint32_t> k;
  BloomVariant variant;
};

Plan make_plan(const BuildOptions& o) {
  Plan plan;
  plan.variant = parse_bloom_variant(o.variant.c_str());
  if (!o.n.empty()) {
    plan.n = parse_count(o.n, "-n");
    if (*plan.n == 0) throw Error(ErrorCode::kInvalidArgument, "-n: must be at least 1");
  }
  if (!o.p.empty()) plan.p = parse_probability(o.p, "-p");
  if (!o.m.empty()) {
    plan.m = parse_size_bits(o.m, "-m");
    if (*plan.m == 0 || *plan.m > model::kMaxBits) {
      throw Error(ErrorCode::kInvalidArgument,
                  "-m: '" + o.m + "' is out of range (1 bit to 2^40 bits = 128GiB)");
    }
  }
  if (!o.k.empty()) {
    const uint64_t k = parse_count(o.k, "-k");
    if (k == 0 || k > model::kMaxK)
      throw Error(ErrorCode::kInvalidArgument, "-k: must be between 1 and 64");
    plan.k = static_cast<uint32_t>(k);
  }
  if (plan.p && plan.m)
    throw Error(ErrorCode::kInvalidArgument, "-p and -m: give one of them, not both");
  if (!plan.p && !plan.m) plan.p = 0.01;
  return plan;
}

// m and k for n distinct keys under the plan, by the variant's own model.
model::BloomSize size_for(const Plan& plan, uint64_t n) {
  const uint64_t nn = std::max<uint64_t>(n, 1);
  if (plan.m) {
    const uint64_t m = BloomFilter::effective_bits(*plan.m, plan.variant);
    if (plan.k) return {m, *plan.k};
    const uint32_t k =
        plan.variant == BloomVariant::kStandard
            ? model::bloom_optimal_k(static_cast<double>(m), static_cast<double>(nn))
            : model::blocked_optimal_k(static_cast<double>(m), static_cast<double>(nn));
    return {m, k};
  }
  model::BloomSize s;
  if (plan.variant == BloomVariant::kBlocked512) {
    s = model::blocked_size(nn, *plan.p, plan.k.value_or(0));
  } else if (plan.k) {
    s = {model::standard_bits_for_k(nn, *plan.p, *plan.k), *plan.k};
  } else {
    s = model::standard_size(nn, *plan.p);
  }
  if (s.m_bits > model::kMaxBits) {
    throw Error(ErrorCode::kInvalidArgument,
                fmt::format("{} keys at p={} need more than 2^40 bits", nn, *plan.p));
  }
  return s;
}

// An empty filter of size `s`, after checking that this machine can hold it (a size it cannot
// give fails here, naming the output, instead of getting the process OOM-killed).
std::unique_ptr<BloomFilter> new_filter(const model::BloomSize& s, BloomVariant variant,
                                        const std::string& output) {
  try {
    check_memory_available(
        BloomFilter::word_count(BloomFilter::effective_bits(s.m_bits, variant)) * 8, "a filter");
  } catch (const Error& e) {
    throw Error(e.code(),
                (output == "-" ? "<stdout>" : output) + ": " + e.what() + "; nothing written");
  }
  return std::make_unique<BloomFilter>(s.m_bits, s.k, variant);
}

double model_fpr(BloomVariant v, double m, double n, uint32_t k) {
  return v == BloomVariant::kStandard ? model::standard_scheme_fpr(static_cast<uint64_t>(m), n, k)
                                      : model::blocked_fpr(m, n, k);
}

int run_build(const BuildOptions& o) {
  const Plan plan = make_plan(o);
  const InputOptions input_options = o.input.options();
  const int64_t created = creation_time(o.created);
  check_output_path(o.output, o.input.inputs);
  const ShrinkLimits shrink_limits = o.guard.limits(o.output);

  KeyReader reader(o.input.inputs, input_options);
  const bool show_progress = want_progress(o.input.progress, o.quiet, false);
  Progress progress(reader, show_progress, o.input.progress);
  std::unique_ptr<BloomFilter> filter;
  uint64_t distinct = 0;
  bool distinct_exact = false;
  const uint64_t seed = kDefaultSeed;
  const unsigned threads = o.threads != 0 ? o.threads : default_thread_count();
  auto hash_batch = [seed](WorkBatch& b) {
    b.hashes.resize(b.keys.size());
    for (size_t i = 0; i < b.keys.size(); ++i) b.hashes[i] = hash_key(b.keys[i], seed);
  };

  // Regular files are split at line ends and read by all threads at once (without a progress
  // line, which follows one reader); anything else is read by one thread and hashed by all.
  const std::vector<LineRange> ranges =
      show_progress ? std::vector<LineRange>{}
                    : plan_line_ranges(o.input.inputs, input_options, threads, kMinRangeBytes);
  InputStats in = {};
  // Streaming (-n, or -m and -k): keys go straight into the filter. Otherwise one hash per key is
  // kept, and the distinct count then sizes the filter exactly.
  const bool streaming = plan.n.has_value() || (plan.m && plan.k);
  std::vector<uint64_t> hashes;
  if (streaming) {
    const model::BloomSize s = size_for(plan, plan.n.value_or(1));
    filter = new_filter(s, plan.variant, o.output);
  }
  if (!ranges.empty()) {
    BloomFilter* f = filter.get();
    // Small blocked filters: each extra thread fills a private copy (plain stores, no locked
    // instructions) that is or-ed in at the end; the copies cost at most kMaxPrivateCopyBytes.
    // Otherwise the threads share the filter with atomic stores: a standard filter's seven
    // scattered probes per key miss the cache anyway, and copies only add to the misses
    // (measured on 10M keys, 2 threads: 0.69 s shared, 0.85-1.05 s with a copy; blocked 0.55 s
    // shared, 0.47 s with a copy).
    const bool private_copies =
        streaming && plan.variant == BloomVariant::kBlocked512 &&
        uint64_t{threads - 1} * BloomFilter::word_count(f->bits()) * 8 <= kMaxPrivateCopyBytes;
    std::vector<std::unique_ptr<BloomFilter>> copies(threads);
    // Exact sizing: each thread keeps its keys' hashes; together the same set in another order.
    std::vector<std::vector<uint64_t>> parts(threads);
    in = run_range_pipeline(
        o.input.inputs, ranges, input_options, threads, [&](KeyBatch& b, unsigned t) {
          std::vector<uint64_t>& h = parts[t];
          const size_t at = streaming ? 0 : h.size();
          h.resize(at + b.keys.size());
          for (size_t i = 0; i < b.keys.size(); ++i) h[at + i] = hash_key(b.keys[i], seed);
          if (!streaming) return;
          if (!private_copies) {
            f->add_batch_concurrent(h);
          } else if (t == 0) {
            f->add_batch(h);
          } else {
            if (!copies[t])
              copies[t] = std::make_unique<BloomFilter>(f->bits(), f->k(), plan.variant);
            copies[t]->add_batch(h);
          }
        });
    for (const auto& c : copies) {
      if (!c) continue;
      std::span<uint64_t> dst = f->mutable_words();
      std::span<const uint64_t> src = c->words();
      for (size_t i = 0; i < dst.size(); ++i) dst[i] |= src[i];
    }
    if (!streaming) {
      hashes = std::move(parts[0]);
      for (size_t t = 1; t < parts.size(); ++t) {
        hashes.insert(hashes.end(), parts[t].begin(), parts[t].end());
        std::vector<uint64_t>().swap(parts[t]);
      }
    }
  } else {
    run_batch_pipeline(
        reader, threads,
        [&](WorkBatch& b) {
          hash_batch(b);
          if (!streaming) return;
          if (threads > 1) {
            filter->add_batch_concurrent(b.hashes);
          } else {
            filter->add_batch(b.hashes);
          }
        },
        [&](WorkBatch& b) {
          if (!streaming) hashes.insert(hashes.end(), b.hashes.begin(), b.hashes.end());
          progress.tick();
          return true;
        });
    in = reader.stats();
  }
  if (!streaming) {
    sort_unique(hashes);
    distinct = hashes.size();
    distinct_exact = true;
    const model::BloomSize s = size_for(plan, distinct);
    filter = new_filter(s, plan.variant, o.output);
    filter->add_batch(hashes);
  }
  progress.finish();

  const double m = static_cast<double>(filter->bits());
  const uint32_t k = filter->k();
  if (!distinct_exact) {
    const double x = static_cast<double>(filter->set_bit_count());
    const double est = plan.variant == BloomVariant::kStandard
                           ? model::bloom_fill_distinct(x, m, k)
                           : model::blocked_fill_distinct(x, m, k);
    distinct = std::isfinite(est) ? static_cast<uint64_t>(std::llround(est)) : in.keys;
    distinct = std::min<uint64_t>(distinct, in.keys);
  }
  if (plan.n && !o.allow_overfill &&
      static_cast<double>(distinct) > 1.2 * static_cast<double>(*plan.n)) {
    throw Error(ErrorCode::kLimitExceeded,
                fmt::format("{}: about {} distinct keys, more than 20% over -n {}; nothing written "
                            "(raise -n, or pass --allow-overfill)",
                            output_name(o.output), distinct, *plan.n));
  }

  check_shrink(shrink_limits, o.output, distinct);

  FilterHeader h;
  h.kind = FilterKind::kBloom;
  h.variant = static_cast<uint32_t>(plan.variant);
  h.hash_id = kHashXxh3_64;
  h.seed = seed;
  h.m = filter->bits();
  h.k = filter->k();
  h.lines_read = in.lines;
  h.keys_added = in.keys;
  h.empty_lines = in.empty_lines;
  h.distinct_estimate = distinct;
  h.created_unix = created;
  h.tool_version = std::string("bloomtool ") + kToolVersion;
  h.label = o.label;
  h.normalisation = input_options.normaliser.to_string();
  h.input_options = input_options_text(input_options);
  const uint64_t file_bytes =
      write_filter_file(o.output, h, filter->words(), filter->words().size() * 8);

  if (!o.quiet) {
    const double n_model = static_cast<double>(distinct);
    std::string input_lines =
        fmt::format("  input           {}\n", describe_input_options(h.input_options));
    if (!input_options.normaliser.empty()) {
      input_lines += fmt::format("  normalisation   {}\n", input_options.normaliser.describe());
    }
    input_lines += fmt::format("  lines read      {}\n  empty lines     {} (skipped)\n", in.lines,
                               in.empty_lines);
    if (in.empty_keys != 0) {
      input_lines += fmt::format("  empty keys      {} (skipped)\n", in.empty_keys);
    }
    if (input_options.skip_bad_lines) {
      input_lines += fmt::format("  bad lines       {} (skipped{}{})\n", in.bad_lines,
                                 in.bad_lines != 0 ? "; first: " : "", in.first_bad_line);
    }
    fmt::print(stderr,
               "bloomtool: wrote {}: bloom ({})\n"
               "{}"
               "  keys added      {}\n"
               "  distinct keys   {} ({})\n"
               "  m               {}\n"
               "  k               {}\n"
               "  bits per key    {:.2f}\n"
               "  model p         {:.6g} for {} distinct keys\n"
               "  file size       {} ({} bytes)\n",
               o.output == "-" ? "<stdout>" : o.output, bloom_variant_name(plan.variant),
               input_lines, in.keys, distinct, distinct_exact ? "exact" : "estimated from the fill",
               format_bits(h.m), h.k, distinct ? m / n_model : 0.0,
               model_fpr(plan.variant, m, n_model, k), distinct, format_bytes(file_bytes),
               file_bytes);
    if (!o.no_measure) {
      // Judged against the rate these bits give, as `stats` does.
      const FprMeasurement fm =
          measure_fpr(*filter, seed, kQuickProbes, kDefaultProbeSeed, bloom_fill(*filter).fpr);
      fmt::print(stderr, "  measured p      {}\n", describe_measurement(fm, "fill p"));
    }
  }
  return kExitOk;
}

}  // namespace

Command register_build(CLI::App& root) {
  auto o = std::make_shared<BuildOptions>();
  CLI::App* app = root.add_subcommand(
      "build", "Build a Bloom filter from keys (lines, an NDJSON field or a column)");
  app->add_option(
         "-n,--capacity", o->n,
         "Expected distinct keys (e.g. 10M). Omit it to size the filter exactly from the input")
      ->type_name("N");
  app->add_option("-p,--fpr", o->p, "Target false-positive rate: 0.01, 1%, 1e-4 (default 1%)")
      ->type_name("P");
  app->add_option("-m,--bits", o->m, "Filter size: bits (8M) or bytes (1MiB, 64MiB)")
      ->type_name("SIZE");
  app->add_option("-k,--hashes", o->k, "Hash functions per key (default: optimal for the size)")
      ->type_name("K");
  app->add_option("-o,--output", o->output, "Output file, written atomically; '-' for stdout")
      ->required()
      ->type_name("OUT");
  app->add_option("--variant", o->variant, "standard, or blocked (all k bits in one 64-byte block)")
      ->type_name("VARIANT");
  app->add_option("--label", o->label, "Free text stored in the file (shown by stats)")
      ->type_name("TEXT");
  app->add_option("--created", o->created,
                  "Creation time to record (Unix seconds or 2024-01-31T12:00:00Z); default "
                  "SOURCE_DATE_EPOCH, else now")
      ->type_name("TIME");
  app->add_flag("--allow-overfill", o->allow_overfill,
                "Write the filter even when distinct keys exceed -n by more than 20%");
  o->guard.add_to(*app);
  app->add_flag("-q,--quiet", o->quiet, "Print nothing but errors (no summary, no progress)");
  app->add_option("--threads", o->threads,
                  "Worker threads (default: all cores); the output is the same for any number")
      ->type_name("T");
  app->add_flag("--no-measure", o->no_measure,
                "Skip the quick measurement of the false-positive rate (100,000 probes)");
  o->input.add_to(*app, "Key files ('-' or none: stdin); zstd-compressed files are recognised");
  return {app, [o] { return run_build(*o); }};
}

}  // namespace bloomtool::cli
