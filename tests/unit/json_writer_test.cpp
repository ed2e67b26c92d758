#include <catch2/catch.hpp>

#include <simdjson.h>

#include <cmath>
#include <limits>

#include "json_writer.h"

using namespace bloomtool;

namespace {

simdjson::dom::element parse(simdjson::dom::parser& parser, const std::string& text) {
  simdjson::dom::element doc;
  const auto error = parser.parse(text).get(doc);
  INFO(text);
  REQUIRE(error == simdjson::SUCCESS);
  return doc;
}

}  // namespace

TEST_CASE("JSON strings: hostile bytes still parse and read back", "[json]") {
  const std::string cases[] = {
      "plain",
      "quote \" backslash \\ slash /",
      std::string("nul \0 bell \a tab \t newline \n cr \r", 34),
      "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80",  // valid 2-, 3- and 4-byte sequences
      "\x7F",
  };
  simdjson::dom::parser parser;
  for (const std::string& s : cases) {
    JsonWriter j(false);
    j.begin_object().field("s", s).end_object();
    std::string_view back;
    REQUIRE(parse(parser, j.str())["s"].get(back) == simdjson::SUCCESS);
    CHECK(std::string(back) == s);
  }
  // Invalid UTF-8 (a lone continuation byte, a truncated sequence, an overlong form, a
  // surrogate, 0xFF) becomes U+FFFD instead of breaking the document.
  const std::string bad =
      "a\x80"
      "b\xC3"
      "c\xC0\xAF"
      "d\xED\xA0\x80"
      "e\xFF";
  JsonWriter j(false);
  j.begin_object().field("s", bad).end_object();
  std::string_view back;
  REQUIRE(parse(parser, j.str())["s"].get(back) == simdjson::SUCCESS);
  CHECK(back.substr(0, 4) == "a\xEF\xBF\xBD");
  CHECK(back.find('e') != std::string_view::npos);
}

TEST_CASE("JSON numbers read back exactly; non-finite become null", "[json]") {
  const double doubles[] = {0.0, 0.01, 1e-300, 1.0000747825126648e-09, 12345678.9, 1e21, 3.0};
  simdjson::dom::parser parser;
  for (double d : doubles) {
    JsonWriter j(false);
    j.begin_object().field("d", d).end_object();
    double back = -1;
    REQUIRE(parse(parser, j.str())["d"].get(back) == simdjson::SUCCESS);
    CHECK(back == d);
  }
  JsonWriter j;
  j.begin_object()
      .field("big", UINT64_MAX)
      .field("neg", int64_t{-5})
      .field("nan", std::nan(""))
      .field("inf", std::numeric_limits<double>::infinity())
      .field("none", std::optional<double>())
      .field("some", std::optional<uint64_t>(7))
      .field("yes", true)
      .end_object();
  simdjson::dom::element doc = parse(parser, j.str());
  uint64_t big = 0;
  CHECK(doc["big"].get(big) == simdjson::SUCCESS);
  CHECK(big == UINT64_MAX);
  int64_t neg = 0;
  CHECK(doc["neg"].get(neg) == simdjson::SUCCESS);
  CHECK(neg == -5);
  CHECK(doc["nan"].is_null());
  CHECK(doc["inf"].is_null());
  CHECK(doc["none"].is_null());
  uint64_t some = 0;
  CHECK(doc["some"].get(some) == simdjson::SUCCESS);
  CHECK(some == 7);
  bool yes = false;
  CHECK(doc["yes"].get(yes) == simdjson::SUCCESS);
  CHECK(yes);
}

TEST_CASE("JSON nesting: commas and brackets in the right places", "[json]") {
  for (bool pretty : {false, true}) {
    JsonWriter j(pretty);
    j.begin_array();
    j.begin_object().field("a", uint64_t{1}).key("list").begin_array().end_array().end_object();
    j.begin_object().end_object();
    j.begin_object()
        .key("inner")
        .begin_object()
        .field("x", "y")
        .end_object()
        .key("nums")
        .begin_array()
        .value(uint64_t{1})
        .value(2.5)
        .null()
        .end_array()
        .end_object();
    j.end_array();
    simdjson::dom::parser parser;
    simdjson::dom::element doc = parse(parser, j.str());
    simdjson::dom::array arr;
    REQUIRE(doc.get(arr) == simdjson::SUCCESS);
    CHECK(arr.size() == 3);
    std::string_view x;
    CHECK(doc.at_pointer("/2/inner/x").get(x) == simdjson::SUCCESS);
    CHECK(x == "y");
    CHECK(doc.at_pointer("/2/nums/2").is_null());
    if (!pretty) {
      CHECK(j.str() == R"([{"a":1,"list":[]},{},{"inner":{"x":"y"},"nums":[1,2.5,null]}])");
    }
  }
}
