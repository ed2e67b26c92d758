// The public API (lib/include/bloomtool) against the program: every filter file opened from a
// path and from bytes answers as `bloomtool query` answers; files built through Plan, build_filter
// and Builder are byte for byte those `bloomtool build` / `xor-build` write; merge, convert,
// sizing and the errors. Only public headers are used, as an embedding program would.
#include <catch2/catch.hpp>

#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "bloomtool/bloomtool.h"
#include "temp_dir.h"

namespace {

using bloomtool::ErrorCode;
using bloomtool::FilterFormat;
using bloomtool::Kind;

const std::string kGolden = std::string(BLOOMTOOL_TESTDATA) + "/golden/";

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE(in.good());
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::span<const uint8_t> bytes_of(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// Runs the program with `args` (a shell word list), SOURCE_DATE_EPOCH fixed; returns its stdout.
std::string cli(const bloomtool::test::TempDir& dir, const std::string& args, int want_rc = 0) {
  const std::string out = dir.path() + "/cli.out";
  const std::string cmd = "SOURCE_DATE_EPOCH=1700000000 '" BLOOMTOOL_CLI "' " + args + " >'" + out +
                          "' 2>'" + dir.path() + "/cli.err'";
  const int status = std::system(cmd.c_str());
  INFO(cmd << "\n" << slurp(dir.path() + "/cli.err"));
  REQUIRE(WIFEXITED(status));
  REQUIRE(WEXITSTATUS(status) == want_rc);
  return slurp(out);
}

// The probe keys: the golden keys, some that are not in any filter, and case and space variants
// that a normalising filter folds.
std::vector<std::string> probes() {
  std::vector<std::string> keys = lines_of(slurp(kGolden + "keys.txt"));
  const std::vector<std::string> others =
      lines_of(slurp(std::string(BLOOMTOOL_TESTDATA) + "/nonmembers-10k.txt"));
  keys.insert(keys.end(), others.begin(), others.begin() + 600);
  for (size_t i = 0; i < 10; ++i)
    keys.push_back("  HTTPS://GOLDEN.EXAMPLE/ITEM/" + std::to_string(i));
  return keys;
}

}  // namespace

TEST_CASE("open_filter answers as bloomtool query does, from a path and from bytes",
          "[public_api]") {
  struct Case {
    std::string file;
    const char* from;  // bloomtool query --from
    FilterFormat format;
  };
  const std::vector<Case> cases = {
      {"v1-bloom-standard.bf", "bloomtool", FilterFormat::kBloomtool},
      {"v1-bloom-blocked.bf", "bloomtool", FilterFormat::kBloomtool},
      {"v1-xor-8.bf", "bloomtool", FilterFormat::kBloomtool},
      {"v1-xor-16.bf", "bloomtool", FilterFormat::kBloomtool},
      {"v1-fuse-8.bf", "bloomtool", FilterFormat::kBloomtool},
      {"v1-fuse-16.bf", "bloomtool", FilterFormat::kBloomtool},
      {"v1-bloom-normalised.bf", "bloomtool", FilterFormat::kBloomtool},
      {"v1-bloom-signed.bf", "bloomtool", FilterFormat::kBloomtool},
      {"v1.1-raw-bloom-standard.bf", "bloomtool", FilterFormat::kBloomtool},
      {"v1.1-raw-bloom-blocked.bf", "bloomtool", FilterFormat::kBloomtool},
      {"v1.1-raw-xor-8.bf", "bloomtool", FilterFormat::kBloomtool},
      {"v1.1-raw-fuse-16.bf", "bloomtool", FilterFormat::kBloomtool},
      {"v1.1-bloom-guava-mitz64.bf", "bloomtool", FilterFormat::kBloomtool},
      {"v1.1-bloom-guava-mitz32.bf", "bloomtool", FilterFormat::kBloomtool},
      {"v1.1-bloom-dcso.bf", "bloomtool", FilterFormat::kBloomtool},
      {"v1.1-bloom-dcso-gzip.bf", "bloomtool", FilterFormat::kBloomtool},
      {"guava-mitz64.bin", "guava", FilterFormat::kGuava},
      {"guava-mitz32.bin", "guava", FilterFormat::kGuava},
      {"dcso.bloom", "dcso", FilterFormat::kDcso},
      {"dcso.bloom.gz", "dcso", FilterFormat::kDcso},
  };
  const bloomtool::test::TempDir dir;
  const std::vector<std::string> keys = probes();
  std::string probe_text;
  for (const std::string& k : keys) probe_text += k + "\n";
  const std::string probe_file = dir.write("probes.txt", probe_text);
  std::vector<std::string_view> views(keys.begin(), keys.end());

  for (const Case& c : cases) {
    INFO(c.file);
    const std::string path = kGolden + c.file;
    const std::string expected =
        cli(dir, std::string("query --from ") + c.from + " '" + path + "' '" + probe_file + "'");
    const std::string image = slurp(path);
    bloomtool::OpenOptions explicit_format;
    explicit_format.format = c.format;
    bloomtool::OpenOptions small_cache;
    small_cache.raw_cache_bytes = 4096;
    std::vector<bloomtool::Reader> readers;
    readers.push_back(bloomtool::open_filter(path));
    readers.push_back(bloomtool::open_filter(path, explicit_format));
    readers.push_back(bloomtool::open_filter(path, small_cache));
    readers.push_back(bloomtool::open_filter(bytes_of(image)));
    readers.push_back(bloomtool::open_filter(bytes_of(image), explicit_format));
    for (const bloomtool::Reader& r : readers) {
      CHECK(r.info().format == c.format);
      std::vector<uint8_t> many(keys.size());
      r.contains_many(views, many.data());
      std::string got;
      for (size_t i = 0; i < keys.size(); ++i) {
        CHECK(r.contains(keys[i]) == (many[i] != 0));
        if (many[i] != 0) got += keys[i] + "\n";
      }
      CHECK(got == expected);
    }
    // The facts without the payload are the open filter's (verification aside).
    const bloomtool::FilterInfo info = bloomtool::read_filter_info(path);
    const bloomtool::FilterInfo& open = readers.front().info();
    CHECK(info.kind == open.kind);
    CHECK(info.variant == open.variant);
    CHECK(info.m == open.m);
    CHECK(info.k == open.k);
    CHECK(info.distinct_keys == open.distinct_keys);
    CHECK(info.seed == open.seed);
    CHECK(info.label == open.label);
    CHECK(info.codec == open.codec);
    CHECK(info.file_bytes == image.size());
    CHECK(info.model_fpr == open.model_fpr);
    CHECK(bloomtool::read_filter_info(bytes_of(image)).m == open.m);
  }
}

TEST_CASE("files built through the public API are byte for byte the program's", "[public_api]") {
  const bloomtool::test::TempDir dir;
  // Keys with repeats, empty lines and case and space variants (for normalisation).
  std::string text;
  for (int i = 0; i < 3000; ++i) {
    text += (i % 7 == 0 ? "  Key-" : "key-") + std::to_string(i % 2500) + "\n";
    if (i % 500 == 0) text += "\n";
  }
  const std::string keys_path = dir.write("keys.txt", text);
  const std::vector<std::string> keys = lines_of(text);

  struct Case {
    std::string args;  // after "bloomtool"
    bloomtool::Plan plan;
    bloomtool::Codec codec = bloomtool::Codec::kZstd;
  };
  auto plan = [](Kind kind) {
    bloomtool::Plan p;
    p.kind = kind;
    p.created = 1700000000;
    return p;
  };
  std::vector<Case> cases;
  {
    Case c{"build -m 20000 -k 5 --label std", plan(Kind::kBloom)};
    c.plan.m = 20000;
    c.plan.k = 5;
    c.plan.label = "std";
    cases.push_back(c);
  }
  {
    Case c{"build -n 2500 -p 0.001 --variant blocked --codec raw", plan(Kind::kBlockedBloom)};
    c.plan.n = 2500;
    c.plan.p = 0.001;
    c.codec = bloomtool::Codec::kRaw;
    cases.push_back(c);
  }
  {
    Case c{"build -p 1% --trim --lowercase --seed 1234abcd", plan(Kind::kBloom)};
    c.plan.p = 0.01;
    c.plan.normalisation = "trim,lowercase";
    c.plan.seed = 0x1234abcd;
    cases.push_back(c);
  }
  {
    Case c{"xor-build --label fuse", plan(Kind::kBinaryFuse)};
    c.plan.label = "fuse";
    cases.push_back(c);
  }
  {
    Case c{"xor-build --layout xor -f 16 --trim", plan(Kind::kXor)};
    c.plan.fingerprint_bits = 16;
    c.plan.normalisation = "trim";
    cases.push_back(c);
  }
  {
    // Keys in a column of CSV, read by build_filter as `build --input-format csv --column` reads
    // them (the in-memory builder below takes the column's values as its keys).
    std::string csv = "id,url\n";
    for (int i = 0; i < 300; ++i)
      csv += std::to_string(i) + ",\"u," + std::to_string(i % 250) + "\"\n";
    const std::string csv_path = dir.write("keys.csv", csv);
    const std::string ref = dir.path() + "/csv.bf";
    cli(dir, "build -q -n 300 --input-format csv --column url '" + csv_path + "' -o '" + ref + "'");
    bloomtool::KeySource source;
    source.paths = {csv_path};
    source.format = bloomtool::KeyFormat::kCsv;
    source.column_name = "url";
    bloomtool::Plan p = plan(Kind::kBloom);
    p.n = 300;
    const std::vector<uint8_t> bytes = bloomtool::build_filter_bytes(source, p);
    CHECK(std::string(bytes.begin(), bytes.end()) == slurp(ref));
  }
  for (const Case& c : cases) {
    INFO(c.args);
    const std::string ref = dir.path() + "/ref.bf";
    cli(dir, c.args + " -q --threads 3 '" + keys_path + "' -o '" + ref + "'");
    const std::string expected = slurp(ref);
    bloomtool::OutputOptions output;
    output.codec = c.codec;

    bloomtool::KeySource source;
    source.paths = {keys_path};
    const std::string via_source = dir.path() + "/source.bf";
    const bloomtool::BuildResult r = bloomtool::build_filter(source, c.plan, via_source, output);
    CHECK(slurp(via_source) == expected);
    CHECK(r.info.file_bytes == expected.size());
    const std::vector<uint8_t> source_bytes = bloomtool::build_filter_bytes(source, c.plan, output);
    CHECK(std::string(source_bytes.begin(), source_bytes.end()) == expected);

    for (unsigned threads : {1u, 4u}) {
      bloomtool::Plan p = c.plan;
      p.threads = threads;
      bloomtool::Builder builder(p);
      for (size_t i = 0; i < keys.size() / 2; ++i) builder.add(keys[i]);
      const std::vector<std::string_view> rest(keys.begin() + keys.size() / 2, keys.end());
      builder.add_many(rest);
      CHECK(builder.size() == keys.size());
      const std::vector<uint8_t> bytes = builder.finish_bytes(output);
      CHECK(std::string(bytes.begin(), bytes.end()) == expected);
      CHECK(builder.size() == 0);
      std::vector<uint64_t> offsets{0};
      std::string data;
      for (const std::string& k : keys) {
        data += k;
        offsets.push_back(data.size());
      }
      builder.add_many(data.data(), offsets);
      const std::string via_builder = dir.path() + "/builder.bf";
      builder.finish(via_builder, output);
      CHECK(slurp(via_builder) == expected);
    }
  }
}

TEST_CASE("a Builder of a Bloom plan sized up front streams keys into its filter", "[public_api]") {
  // 100,000 keys in one add_many call (hashed and inserted on several threads when allowed),
  // with empty and blank ones: byte for byte the program's file, on 1 thread and on every core,
  // and the BuildResult describes the file written.
  const bloomtool::test::TempDir dir;
  std::string text;
  for (int i = 0; i < 100000; ++i) text += (i % 1000 == 0 ? "  " : "k") + std::to_string(i) + "\n";
  text += "\n   \n";
  const std::string keys_path = dir.write("keys.txt", text);
  std::vector<uint64_t> offsets{0};
  std::string data;
  for (const std::string& k : lines_of(text)) {
    data += k;
    offsets.push_back(data.size());
  }
  struct Case {
    std::string args;
    Kind kind;
    std::optional<uint64_t> n, m;
    std::optional<uint32_t> k;
    std::string normalisation;
  };
  const Case cases[] = {
      {"build -n 100000 -p 1% --trim", Kind::kBloom, 100000, {}, {}, "trim"},
      {"build --variant blocked -m 1000000 -k 6", Kind::kBlockedBloom, {}, 1000000, 6u, ""},
  };
  for (const Case& c : cases) {
    INFO(c.args);
    const std::string ref = dir.path() + "/ref.bf";
    cli(dir, c.args + " -q '" + keys_path + "' -o '" + ref + "'");
    const std::string expected = slurp(ref);
    for (unsigned threads : {1u, 0u}) {
      bloomtool::Plan p;
      p.kind = c.kind;
      p.n = c.n;
      p.m = c.m;
      p.k = c.k;
      if (c.n) p.p = 0.01;
      p.normalisation = c.normalisation;
      p.created = 1700000000;
      p.threads = threads;
      bloomtool::Builder builder(p);
      builder.add_many(data.data(), offsets);
      CHECK(builder.size() == offsets.size() - 1);
      const std::string out = dir.path() + "/builder.bf";
      const bloomtool::BuildResult r = builder.finish(out);
      CHECK(slurp(out) == expected);
      CHECK(builder.size() == 0);  // empty again, same plan
      const bloomtool::FilterInfo want = bloomtool::open_filter(ref).info();
      CHECK(r.info.file_bytes == expected.size());
      CHECK(r.info.distinct_keys == want.distinct_keys);
      CHECK(r.info.keys_added == want.keys_added);
      CHECK(r.info.m == want.m);
      CHECK(r.empty_keys == (c.normalisation.empty() ? 0u : 1u));  // "   " trims to nothing
      builder.add_many(data.data(), offsets);  // the next filter: the same keys, the same file
      const std::vector<uint8_t> again = builder.finish_bytes();
      CHECK(std::string(again.begin(), again.end()) == expected);
    }
  }
}

TEST_CASE("merge, convert and sizing through the public API", "[public_api]") {
  const bloomtool::test::TempDir dir;
  bloomtool::Plan plan;
  plan.n = 1000;
  plan.p = 0.01;
  plan.created = 1700000000;
  const bloomtool::FilterSize size = bloomtool::size_for(Kind::kBloom, 1000, 0.01);
  std::vector<std::string> shards;
  for (int s = 0; s < 2; ++s) {
    bloomtool::Builder b(plan);
    for (int i = 0; i < 400; ++i) b.add("shard" + std::to_string(s) + "-" + std::to_string(i));
    shards.push_back(dir.path() + "/shard" + std::to_string(s) + ".bf");
    const bloomtool::BuildResult r = b.finish(shards.back());
    CHECK(r.info.m == size.m);
    CHECK(r.info.k == size.k);
    CHECK(r.info.keys_added == 400);
  }
  const std::string merged = dir.path() + "/merged.bf";
  const bloomtool::FilterInfo info = bloomtool::merge_filters(shards, merged);
  CHECK(info.keys_added == 800);
  const bloomtool::Reader reader = bloomtool::open_filter(merged);
  for (int s = 0; s < 2; ++s)
    for (int i = 0; i < 400; ++i)
      CHECK(reader.contains("shard" + std::to_string(s) + "-" + std::to_string(i)));
  CHECK(bloomtool::model_rate(Kind::kBloom, info.m, info.k, 1000) == Approx(size.rate));
  CHECK(bloomtool::model_rate(Kind::kXor, 0, 8, 1000) == 1.0 / 256);
  const bloomtool::FilterSize fuse = bloomtool::size_for(Kind::kBinaryFuse, 1000, 0.001);
  CHECK(fuse.k == 16);
  CHECK(fuse.rate == 1.0 / 65536);

  // A peer's file to bloomtool and back, byte for byte; a codec change keeps the answers.
  bloomtool::ConvertOptions to_bloomtool;
  const std::string mid = dir.path() + "/guava.bf";
  CHECK(bloomtool::convert_file(kGolden + "guava-mitz64.bin", mid, to_bloomtool).hash ==
        "guava-mitz64");
  bloomtool::ConvertOptions to_guava;
  to_guava.to = FilterFormat::kGuava;
  const std::string back = dir.path() + "/guava.bin";
  bloomtool::convert_file(mid, back, to_guava);
  CHECK(slurp(back) == slurp(kGolden + "guava-mitz64.bin"));
  bloomtool::ConvertOptions raw;
  raw.output.codec = bloomtool::Codec::kRaw;
  const std::string raw_path = dir.path() + "/raw.bf";
  CHECK(bloomtool::convert_file(merged, raw_path, raw).codec == "raw");
  CHECK(bloomtool::open_filter(raw_path).contains("shard1-7"));
}

TEST_CASE("the public API's errors", "[public_api]") {
  const bloomtool::test::TempDir dir;
  auto code_of = [](auto&& fn) {
    try {
      fn();
    } catch (const bloomtool::Error& e) {
      return e.code();
    }
    FAIL("no error");
    return ErrorCode::kInvalidArgument;
  };
  CHECK(code_of([&] { bloomtool::open_filter(dir.path() + "/missing.bf"); }) ==
        ErrorCode::kIOError);
  CHECK(code_of([&] { bloomtool::read_filter_info(dir.path() + "/missing.bf"); }) ==
        ErrorCode::kIOError);

  // Signatures: required and missing, required and present, a peer's file that has none.
  bloomtool::OpenOptions trusted;
  trusted.trusted_key = kGolden + "golden-signing.pub";
  CHECK(code_of([&] { bloomtool::open_filter(kGolden + "v1-bloom-standard.bf", trusted); }) ==
        ErrorCode::kUntrusted);
  const std::string standard = slurp(kGolden + "v1-bloom-standard.bf");
  CHECK(code_of([&] { bloomtool::open_filter(bytes_of(standard), trusted); }) ==
        ErrorCode::kUntrusted);
  CHECK(code_of([&] { bloomtool::open_filter(kGolden + "guava-mitz64.bin", trusted); }) ==
        ErrorCode::kUntrusted);
  CHECK(bloomtool::open_filter(kGolden + "v1-bloom-signed.bf", trusted).info().signature_verified);
  const std::string signed_image = slurp(kGolden + "v1-bloom-signed.bf");
  CHECK(bloomtool::open_filter(bytes_of(signed_image), trusted).info().signature_verified);
  std::string altered = signed_image;
  altered[altered.size() - 1] ^= 1;
  CHECK(code_of([&] { bloomtool::open_filter(bytes_of(altered), trusted); }) ==
        ErrorCode::kUntrusted);

  // Corrupt and truncated images of every format: an error, never a crash or an answer.
  for (const char* name : {"v1-fuse-8.bf", "v1.1-raw-bloom-standard.bf", "v1-bloom-normalised.bf",
                           "guava-mitz32.bin", "dcso.bloom.gz"}) {
    INFO(name);
    const std::string image = slurp(kGolden + name);
    for (size_t len = 0; len < image.size(); len += 1 + len / 8) {
      const std::string cut = image.substr(0, len);
      CHECK_THROWS_AS(bloomtool::open_filter(bytes_of(cut)), bloomtool::Error);
    }
    for (size_t at = 0; at < image.size(); at += 1 + image.size() / 300) {
      std::string bad = image;
      bad[at] = static_cast<char>(bad[at] ^ 0x5a);
      try {
        bloomtool::open_filter(bytes_of(bad)).contains("x");
      } catch (const bloomtool::Error&) {
      }
    }
  }
  std::string corrupt = standard;
  corrupt[corrupt.size() - 3] ^= 0x10;
  CHECK(code_of([&] { bloomtool::open_filter(bytes_of(corrupt)); }) == ErrorCode::kCorrupt);

  // Plans the library refuses, by the member at fault.
  auto field_of = [](const bloomtool::Plan& plan) {
    try {
      bloomtool::Builder b(plan);
    } catch (const bloomtool::FieldError& e) {
      return e.field();
    }
    return std::string("none");
  };
  bloomtool::Plan plan;
  plan.p = 1.5;
  CHECK(field_of(plan) == "p");
  plan = {};
  plan.p = 0.01;
  plan.m = 1000;
  CHECK(field_of(plan) == "p");
  plan = {};
  plan.kind = Kind::kXor;
  plan.fingerprint_bits = 12;
  CHECK(field_of(plan) == "fingerprint_bits");
  plan = {};
  plan.kind = Kind::kBinaryFuse;
  plan.n = 10;
  CHECK(field_of(plan) == "n");
  plan = {};
  plan.normalisation = "shout";
  CHECK(field_of(plan) == "normalisation");
  try {
    bloomtool::Builder b(plan);
  } catch (const bloomtool::FieldError& e) {
    CHECK(std::string(e.what()) ==
          "normalisation: 'shout' is not a list of the steps trim, lowercase, strip-prefix=TEXT, "
          "email, phone, url");
  }
  bloomtool::KeySource lines_with_field;
  lines_with_field.field = "/id";
  try {
    bloomtool::build_filter_bytes(lines_with_field, {});
    FAIL("no error");
  } catch (const bloomtool::FieldError& e) {
    CHECK(e.field() == "field");
  }
  bloomtool::KeySource source;
  source.paths = {dir.path() + "/missing.txt"};
  CHECK(code_of([&] { bloomtool::build_filter(source, {}, dir.path() + "/out.bf"); }) ==
        ErrorCode::kIOError);
  CHECK_FALSE(std::ifstream(dir.path() + "/out.bf").good());
  bloomtool::Plan small;
  small.n = 10;
  bloomtool::Builder overfull(small);
  for (int i = 0; i < 100; ++i) overfull.add(std::to_string(i));
  CHECK(code_of([&] { overfull.finish(dir.path() + "/out.bf"); }) == ErrorCode::kLimitExceeded);
  CHECK_FALSE(std::ifstream(dir.path() + "/out.bf").good());
}
