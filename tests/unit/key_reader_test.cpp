#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <memory>

#include "bloomtool/error.h"
#include "keys/key_reader.h"
#include "keys/record_fields.h"

using namespace bloomtool;

namespace {

// A file in the temporary directory, removed when the object goes.
struct TempFile {
  std::string path;
  explicit TempFile(const std::string& content) {
    char name[] = "/tmp/bloomtool_key_reader_XXXXXX";
    const int fd = mkstemp(name);
    REQUIRE(fd >= 0);
    REQUIRE(write(fd, content.data(), content.size()) == static_cast<ssize_t>(content.size()));
    close(fd);
    path = name;
  }
  ~TempFile() { std::remove(path.c_str()); }
};

struct ReadAll {
  std::vector<std::string> keys;
  std::vector<std::string> records;
  InputStats stats;
};

ReadAll read_all(const std::string& content, InputOptions options) {
  TempFile f(content);
  KeyReader reader({f.path}, std::move(options));
  KeyBatch batch;
  ReadAll r;
  while (reader.next(batch)) {
    REQUIRE(batch.keys.size() == batch.records.size());
    for (size_t i = 0; i < batch.keys.size(); ++i) {
      r.keys.emplace_back(batch.keys[i]);
      r.records.emplace_back(batch.records[i]);
    }
  }
  r.stats = reader.stats();
  return r;
}

InputOptions ndjson(std::string field) {
  InputOptions o;
  o.format = InputFormat::kNdjson;
  o.field = std::move(field);
  return o;
}

InputOptions delimited(InputFormat format, char delimiter, uint32_t column) {
  InputOptions o;
  o.format = format;
  o.delimiter = delimiter;
  o.column = column;
  return o;
}

std::string canonical(double v) {
  std::string s;
  append_canonical_double(v, s);
  return s;
}

}  // namespace

TEST_CASE("NDJSON keys: strings unescaped, numbers canonical, records whole") {
  const ReadAll r = read_all(
      "{\"a\":{\"k\":\"caf\\u00e9\"},\"n\":1}\n"
      "{\"a\":{\"k\":\"tab\\there\"}}\r\n"
      "{\"a\":{\"k\":1.0}}\n"
      "{\"a\":{\"k\":-0}}\n"
      "{\"a\":{\"k\":18446744073709551615}}\n"
      "{\"a\":{\"k\":-9223372036854775808}}\n"
      "{\"a\":{\"k\":2.5e-3}}\n"
      "   \n"
      "{\"a\":{\"k\":\"\\ud83d\\ude00\"}}",
      ndjson("/a/k"));
  CHECK(r.keys == std::vector<std::string>{"café", "tab\there", "1", "0", "18446744073709551615",
                                           "-9223372036854775808", "0.0025", "\xF0\x9F\x98\x80"});
  CHECK(r.records[0] == "{\"a\":{\"k\":\"caf\\u00e9\"},\"n\":1}");
  CHECK(r.records[1] == "{\"a\":{\"k\":\"tab\\there\"}}");  // no CR
  CHECK(r.stats.lines == 9);
  CHECK(r.stats.empty_lines == 1);
  CHECK(r.stats.keys == 8);
}

TEST_CASE("canonical numbers") {
  CHECK(canonical(1.0) == "1");
  CHECK(canonical(-0.0) == "0");
  CHECK(canonical(100.0) == "100");
  CHECK(canonical(0.1) == "0.1");
  CHECK(canonical(-1.5) == "-1.5");
  CHECK(canonical(9007199254740991.0) == "9007199254740991");
  CHECK(canonical(9007199254740992.0) == "9007199254740992");
  CHECK(canonical(1e20) == "1e+20");
  CHECK(canonical(1e300) == "1e+300");
  CHECK(canonical(1.5e-7) == "1.5e-07");
}

TEST_CASE("unescaped keys stay valid across batches while the arena grows") {
  std::string content;
  const int n = 3 * static_cast<int>(KeyBatch::kBatchSize) + 17;
  for (int i = 0; i < n; ++i) {
    content += "{\"k\":\"K\\u0041" + std::string(static_cast<size_t>(i % 200), 'x') +
               std::to_string(i) + "\"}\n";
  }
  InputOptions o = ndjson("/k");
  o.normaliser = Normaliser({{NormStepKind::kLowercase, {}}});
  TempFile f(content);
  KeyReader reader({f.path}, o);
  KeyBatch batch;
  int i = 0;
  while (reader.next(batch)) {
    // Every view of the batch checked only after the batch is complete.
    for (std::string_view key : batch.keys) {
      REQUIRE(key == "ka" + std::string(static_cast<size_t>(i % 200), 'x') + std::to_string(i));
      ++i;
    }
  }
  CHECK(i == n);
}

TEST_CASE("bad NDJSON records: error naming the line, or counted when skipping") {
  const std::string content = "{\"k\":\"a\"}\n{\"j\":1}\n{\"k\":true}\n{\"k\":\"b\",\"z\":tru}\n";
  try {
    read_all(content, ndjson("/k"));
    FAIL("accepted");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::kBadInput);
    CHECK(std::string(e.what()).find(": line 2: no field /k") != std::string::npos);
  }
  InputOptions skip = ndjson("/k");
  skip.skip_bad_lines = true;
  const ReadAll r = read_all(content, skip);
  CHECK(r.keys == std::vector<std::string>{"a"});
  CHECK(r.stats.bad_lines == 3);
  CHECK(r.stats.first_bad_line.find(": line 2: no field /k") != std::string::npos);
  skip.max_bad_lines = 2;
  try {
    read_all(content, skip);
    FAIL("accepted");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::kLimitExceeded);
    CHECK(std::string(e.what()).find(": line 4: not valid JSON (bad literal) (bad line 3, more "
                                     "than the 2 allowed)") != std::string::npos);
  }
}

TEST_CASE("JSON pointers are checked up front") {
  CHECK_THROWS_AS(KeyReader({"-"}, ndjson("k")), Error);
  CHECK_THROWS_AS(KeyReader({"-"}, ndjson("/a~2")), Error);
  CHECK_NOTHROW(KeyReader({"-"}, ndjson("/a~0b~1c")));
  CHECK_NOTHROW(KeyReader({"-"}, ndjson("")));
  const ReadAll r = read_all("{\"a/b\":{\"~\":\"x\"}}\n\"whole\"\n", [] {
    InputOptions o = ndjson("/a~1b/~0");
    o.skip_bad_lines = true;
    return o;
  }());
  CHECK(r.keys == std::vector<std::string>{"x"});
  CHECK(read_all("\"whole\"\n7\n", ndjson("")).keys == std::vector<std::string>{"whole", "7"});
}

TEST_CASE("delimited and CSV columns") {
  CHECK(read_all("a\tb\tc\nd\te\tf\n", delimited(InputFormat::kDelimited, '\t', 2)).keys ==
        std::vector<std::string>{"b", "e"});
  CHECK(read_all("a;b;c\n", delimited(InputFormat::kDelimited, ';', 3)).keys ==
        std::vector<std::string>{"c"});
  // Plain split: quotes are ordinary bytes.
  CHECK(read_all("\"a,b\",c\n", delimited(InputFormat::kDelimited, ',', 2)).keys ==
        std::vector<std::string>{"b\""});
  const ReadAll r = read_all("\"a,b\",c\nx,\"say \"\"hi\"\"\"\ny,\"\"\nq,\"p\"\r\n",
                             delimited(InputFormat::kCsv, ',', 2));
  CHECK(r.keys == std::vector<std::string>{"c", "say \"hi\"", "p"});
  CHECK(r.stats.empty_keys == 1);

  std::string field;
  std::string_view key;
  std::string reason;
  CHECK(delimited_field("a", ',', 3, false, field, key, reason) == FieldResult::kBad);
  CHECK(reason == "only 1 column (the key is in column 3)");
  CHECK(delimited_field("a,b", ',', 3, true, field, key, reason) == FieldResult::kBad);
  CHECK(reason == "only 2 columns (the key is in column 3)");
  CHECK(delimited_field("\"a\",\"b\"", ',', 3, true, field, key, reason) == FieldResult::kBad);
  CHECK(reason == "only 2 columns (the key is in column 3)");
  CHECK(delimited_field("x,\"ab", ',', 2, true, field, key, reason) == FieldResult::kBad);
  CHECK(reason == "unterminated quoted field in column 2");
  CHECK(delimited_field("\"a\"b,c", ',', 2, true, field, key, reason) == FieldResult::kBad);
  CHECK(reason == "text after the closing quote in column 1");
  CHECK(delimited_field("a,b,", ',', 3, true, field, key, reason) == FieldResult::kKey);
  CHECK(key.empty());
}

TEST_CASE("normalised lines keep the original line as the record") {
  InputOptions o;
  o.normaliser = Normaliser({{NormStepKind::kTrim, {}}, {NormStepKind::kLowercase, {}}});
  const ReadAll r = read_all("  Foo \n   \nbar\n", o);
  CHECK(r.keys == std::vector<std::string>{"foo", "bar"});
  CHECK(r.records == std::vector<std::string>{"  Foo ", "bar"});
  CHECK(r.stats.empty_keys == 1);
}

TEST_CASE("input options text and description") {
  CHECK(input_options_text(InputOptions{}) == "lines");
  CHECK(input_options_text(ndjson("/user/e-mail")) == "ndjson;field=/user/e-mail");
  CHECK(input_options_text(ndjson("/a b;c")) == "ndjson;field=/a%20b%3Bc");
  CHECK(input_options_text(delimited(InputFormat::kDelimited, '\t', 3)) ==
        "delimited;delimiter=%09;column=3");
  CHECK(input_options_text(delimited(InputFormat::kCsv, ',', 1)) == "csv;delimiter=%2C;column=1");
  CHECK(describe_input_options("lines") == "lines");
  CHECK(describe_input_options("ndjson;field=/a%20b") == "ndjson, field /a b");
  CHECK(describe_input_options("ndjson;field=") == "ndjson, the whole line");
  CHECK(describe_input_options("delimited;delimiter=%09;column=3") ==
        "delimited, delimiter tab, column 3");
  CHECK(describe_input_options("csv;delimiter=%3B;column=2") == "csv, delimiter ';', column 2");
  CHECK(describe_input_options("parquet;x=1") == "parquet;x=1");
}

TEST_CASE("raw bytes read and total input size") {
  const TempFile a(std::string(5000, 'a') + "\n");
  const TempFile b("b\nc\n");
  KeyReader reader({a.path, b.path}, InputOptions{});
  CHECK(reader.total_input_bytes() == 5005);
  KeyBatch batch;
  while (reader.next(batch)) {
  }
  CHECK(reader.raw_bytes_read() == 5005);
  CHECK(reader.stats().keys == 3);
}

TEST_CASE("KeyReader lending its buffers: batches kept together read as a sequential read",
          "[key_reader]") {
  // Three inputs; the second holds a line of 3 MiB (the buffer grows while batches hold the old
  // one); NDJSON with a lowercased field puts keys in the arena. Every batch is kept until the
  // end: none may see its bytes moved or overwritten by a later read.
  std::string a, b, c;
  for (int i = 0; i < 60000; ++i) a += "{\"id\":\"A" + std::to_string(i) + "\"}\n";
  for (int i = 0; i < 20000; ++i) b += "{\"id\":\"B" + std::to_string(i) + "\"}\n";
  b += "{\"id\":\"" + std::string(3 << 20, 'L') + "\"}\n";
  for (int i = 0; i < 20000; ++i) b += "{\"id\":\"C" + std::to_string(i) + "\"}\n";
  for (int i = 0; i < 70000; ++i) c += "{\"id\":\"D" + std::to_string(i) + "\"}\r\n";
  TempFile fa(a), fb(b), fc(c);
  InputOptions options = ndjson("/id");
  options.max_key_bytes = 4 << 20;
  options.normaliser = Normaliser({NormStep{NormStepKind::kLowercase, ""}});
  std::vector<std::string> want;
  {
    KeyReader reader({fa.path, fb.path, fc.path}, options);
    KeyBatch batch;
    while (reader.next(batch)) want.insert(want.end(), batch.keys.begin(), batch.keys.end());
  }
  REQUIRE(want.size() == 170001);
  for (const size_t batch_keys : {size_t{1000}, size_t{32768}}) {
    CAPTURE(batch_keys);
    KeyReader reader({fa.path, fb.path, fc.path}, options);
    reader.lend_buffers(batch_keys, size_t{2} << 20);
    std::vector<std::unique_ptr<KeyBatch>> kept;  // not moved: a short arena lives inside it
    for (;;) {
      auto batch = std::make_unique<KeyBatch>();
      if (!reader.next(*batch)) break;
      CHECK(batch->keys.size() <= batch_keys);
      CHECK_FALSE(batch->hold.empty());
      kept.push_back(std::move(batch));
    }
    std::vector<std::string> got;
    for (const auto& k : kept) got.insert(got.end(), k->keys.begin(), k->keys.end());
    REQUIRE(got.size() == want.size());
    size_t first_wrong = 0;
    while (first_wrong < got.size() && got[first_wrong] == want[first_wrong]) ++first_wrong;
    CHECK(first_wrong == want.size());  // every key as the sequential read gives it
    CHECK(reader.stats().keys == want.size());
  }
}
