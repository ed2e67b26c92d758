// `bloomtool size`: the calculator. Given two of -n, -p and -m (and optionally -k), prints the
// third for every filter bloomtool builds and the lower bound, as a table or as JSON.
#include <algorithm>
#include <memory>
#include <optional>

#include "bloomtool/error.h"
#include "common.h"
#include "filters/key_rule.h"
#include "filters/partitioned_build.h"
#include "interop/compat_build.h"
#include "json_writer.h"
#include "model/model.h"
#include "model/size_calc.h"
#include "units_cli.h"

namespace bloomtool::cli {

namespace {

struct SizeOptions {
  std::string n, p, m, k;
  std::string compat;
  bool json = false;
};

SizeQuery parse_query(const SizeOptions& o) {
  SizeQuery q;
  if (!o.n.empty()) q.n = parse_count(o.n, "-n");
  if (!o.p.empty()) q.p = parse_probability(o.p, "-p");
  if (!o.m.empty()) q.m_bits = parse_size_bits(o.m, "-m");
  if (!o.k.empty()) {
    const uint64_t k = parse_count(o.k, "-k");
    const uint64_t max_k = o.compat.empty() ? model::kMaxK : kMaxSchemeK;
    if (k == 0 || k > max_k) {
      throw Error(ErrorCode::kInvalidArgument,
                  "-k: must be between 1 and " + std::to_string(max_k));
    }
    q.k = static_cast<uint32_t>(k);
  }
  if (o.n.empty() + o.p.empty() + o.m.empty() != 1)
    throw Error(ErrorCode::kInvalidArgument, "give exactly two of -n, -p and -m");
  return q;
}

// The calculator's rows; a value it refuses is reported under its flag ("-n: ...").
std::vector<SizeRow> rows_for(const SizeQuery& q, const std::string& compat) {
  try {
    if (!compat.empty()) {
      const FileFormat f = for_flag("--compat", [&] { return parse_file_format(compat); });
      if (f == FileFormat::kBloomtool) {
        throw Error(ErrorCode::kInvalidArgument,
                    "--compat: 'bloomtool' is not a peer (guava or dcso)");
      }
      return compat_size_table(q, f);
    }
    return size_table(q);
  } catch (const FieldError& e) {
    const std::string flag = e.field() == "n/p" ? "-n/-p" : "-" + e.field();
    throw Error(e.code(), flag + ": " + e.reason());
  }
}

std::string describe_query(const SizeQuery& q) {
  std::string given;
  const auto add = [&given](const std::string& s) { given += (given.empty() ? "" : ", ") + s; };
  if (q.n) add(fmt::format("n = {} keys", *q.n));
  if (q.p) add(fmt::format("p = {:.6g}", *q.p));
  if (q.m_bits) add(fmt::format("m = {}", format_bits(*q.m_bits)));
  if (q.k) add(fmt::format("k = {}", *q.k));
  return given;
}

// Where the Bloom rows' k came from: chosen (the best for the row's m and keys), or fixed by -k,
// with the best k next to it.
std::string k_note(const SizeQuery& q, const std::vector<SizeRow>& rows) {
  std::string best;
  for (const SizeRow& r : rows) {
    if (r.unreachable || !r.k || (r.name != "standard" && r.name != "blocked")) continue;
    const double m = static_cast<double>(r.bits), n = static_cast<double>(r.keys);
    const uint32_t k =
        r.name == "standard" ? model::bloom_optimal_k(m, n) : model::blocked_optimal_k(m, n);
    best += fmt::format("{}{} {}", best.empty() ? "" : ", ", r.name, k);
  }
  if (best.empty()) return "";
  if (q.k) {
    return fmt::format(
        "k = {} as given by -k: the p above is that k's; the best k for these m and n: {}\n", *q.k,
        best);
  }
  return fmt::format(
      "k: chosen by bloomtool, the best for these m and n ({}); -k K gives the p "
      "of another\n",
      best);
}

// How build-static would split the static rows' keys by default (partitioned_build.h): the
// partition count and each partition's keys and size for the binary fuse 8-bit row.
std::string partition_note(const std::vector<SizeRow>& rows) {
  for (const SizeRow& r : rows) {
    if (r.name != "fuse8" || r.unreachable) continue;
    const unsigned bits = default_partition_bits(r.keys);
    if (bits == 0) return "";
    const uint64_t parts = uint64_t{1} << bits;
    return fmt::format(
        "build-static splits {} keys into {} partitions of about {} keys (binary fuse 8-bit: "
        "about {} each), built in parallel; --partitions chooses another count\n",
        r.keys, parts, (r.keys + parts - 1) / parts, format_bytes(r.bytes() / parts));
  }
  return "";
}

std::string human_table(const SizeQuery& q, const std::vector<SizeRow>& rows) {
  std::vector<std::vector<std::string>> cells = {
      {"filter", "keys", "bits", "bytes", "size", "bits/key", "k", "p"}};
  bool any_above = false, any_short = false, any_unreachable = false, ribbon_unreachable = false;
  for (const SizeRow& r : rows) {
    any_above |= r.above_build_limit;
    any_short |= r.meets_p == false;
    any_unreachable |= r.unreachable && r.name != "ribbon";
    ribbon_unreachable |= r.unreachable && r.name == "ribbon";
    if (r.unreachable) {
      cells.push_back({r.title, std::to_string(r.keys), "-", "-", "-", "-", "-", "unreachable"});
      continue;
    }
    cells.push_back({r.title, std::to_string(r.keys),
                     fmt::format("{}{}", r.bits, r.above_build_limit ? "*" : ""),
                     std::to_string(r.bytes()), format_bytes(r.bytes()),
                     r.bits_per_key ? fmt::format("{:.6g}", *r.bits_per_key) : "-",
                     r.k ? std::to_string(*r.k) : "-",
                     fmt::format("{:.6g}{}", r.fpr, r.meets_p == false ? "!" : "")});
  }
  std::vector<size_t> width(cells[0].size(), 0);
  for (const auto& line : cells)
    for (size_t c = 0; c < line.size(); ++c) width[c] = std::max(width[c], line[c].size());
  std::string t = "for " + describe_query(q) + ":\n";
  for (const auto& line : cells) {
    t += fmt::format("{:<{}}", line[0], width[0]);
    for (size_t c = 1; c < line.size(); ++c) t += fmt::format("  {:>{}}", line[c], width[c]);
    t += '\n';
  }
  if (any_above) {
    t += fmt::format("* more than 2^40 bits ({}), the largest filter bloomtool builds\n",
                     format_bytes(model::kMaxBits / 8));
  }
  if (any_unreachable)
    t += "unreachable: no size below 2^64 bits reaches this p with this layout\n";
  if (ribbon_unreachable) t += "Ribbon: built for rates from 2^-30 (9.3e-10) to 50% only\n";
  if (any_short) t += "! p above the requested rate: fixed at 2^-f by the fingerprint width\n";
  t += k_note(q, rows);
  t += partition_note(rows);
  return t;
}

std::string json_text(const SizeQuery& q, const std::vector<SizeRow>& rows) {
  JsonWriter j;
  j.begin_object();
  j.key("query").begin_object();
  j.field("n", q.n);
  j.field("p", q.p);
  j.field("m", q.m_bits);
  j.field("k", q.k);
  j.end_object();
  j.field("build_limit_bits", model::kMaxBits);
  j.key("rows").begin_array();
  for (const SizeRow& r : rows) {
    j.begin_object();
    j.field("filter", r.name);
    j.field("title", r.title);
    j.field("keys", r.keys);
    j.field("reachable", !r.unreachable);
    if (r.unreachable) {
      j.key("bits").null();
      j.key("bytes").null();
    } else {
      j.field("bits", r.bits);
      j.field("bytes", r.bytes());
    }
    j.field("bits_per_key", r.bits_per_key);
    j.field("k", r.k);
    j.field("fingerprint_bits", r.fingerprint_bits);
    if (r.unreachable)
      j.key("fpr").null();
    else
      j.field("fpr", r.fpr);
    j.field("meets_p", r.meets_p);
    j.field("above_build_limit", r.above_build_limit);
    j.end_object();
  }
  j.end_array();
  j.end_object();
  return j.str();
}

int run_size(const SizeOptions& o) {
  const SizeQuery q = parse_query(o);
  const std::vector<SizeRow> rows = rows_for(q, o.compat);
  StdoutWriter out;
  if (o.json)
    out.line(json_text(q, rows));
  else
    out.write(human_table(q, rows));
  out.flush();
  return kExitOk;
}

}  // namespace

Command register_size(CLI::App& root) {
  auto o = std::make_shared<SizeOptions>();
  CLI::App* app = root.add_subcommand(
      "size", "Size calculator: give two of -n, -p, -m; prints the third for every filter kind");
  app->add_option("-n,--capacity", o->n, "Distinct keys (e.g. 10M)")->type_name("N");
  app->add_option("-p,--fpr", o->p, "False-positive rate: 0.01, 1%, 1e-4")->type_name("P");
  app->add_option("-m,--bits", o->m, "Filter size: bits (8M) or bytes (1MiB, 64GiB)")
      ->type_name("SIZE");
  app->add_option("-k,--hashes", o->k, "Fix the Bloom filters' hash count (default: optimal)")
      ->type_name("K");
  app->add_option("--compat", o->compat,
                  "The filter a peer makes instead: guava (create(n, p)) or dcso "
                  "(Initialize(n, p)); needs -n")
      ->type_name("PEER");
  app->add_flag("--json", o->json, "Print one JSON object instead of the table");
  return {app, [o] { return run_size(*o); }};
}

}  // namespace bloomtool::cli
