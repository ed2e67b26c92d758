#include <catch2/catch.hpp>

#include "bloomtool/error.h"
#include "keys/normalise.h"

using namespace bloomtool;

namespace {

std::string apply(const Normaliser& n, std::string_view key) {
  NormScratch scratch;
  return std::string(n.apply(key, scratch));
}

Normaliser one(NormStepKind kind, std::string arg = {}) {
  return Normaliser({NormStep{kind, std::move(arg)}});
}

}  // namespace

TEST_CASE("trim, lowercase and strip-prefix work on ASCII bytes only") {
  CHECK(apply(one(NormStepKind::kTrim), " \t\v\f\r a b \r\n") == "a b");
  CHECK(apply(one(NormStepKind::kTrim), "   ").empty());
  CHECK(apply(one(NormStepKind::kTrim), "\xC2\xA0x") == "\xC2\xA0x");  // NBSP is not ASCII space
  CHECK(apply(one(NormStepKind::kLowercase), "MiXeD-123_Ä") == "mixed-123_Ä");
  CHECK(apply(one(NormStepKind::kLowercase), "already") == "already");
  CHECK(apply(one(NormStepKind::kStripPrefix, "mailto:"), "mailto:a@b") == "a@b");
  CHECK(apply(one(NormStepKind::kStripPrefix, "mailto:"), "MAILTO:a@b") == "MAILTO:a@b");
  CHECK(apply(one(NormStepKind::kStripPrefix, "ab"), "abab") == "ab");  // removed once
}

TEST_CASE("steps apply in order and keep views valid through several buffers") {
  const Normaliser n({{NormStepKind::kTrim, {}},
                      {NormStepKind::kLowercase, {}},
                      {NormStepKind::kStripPrefix, "www."},
                      {NormStepKind::kUrl, {}}});
  CHECK(apply(n, "  WWW.Example.COM:443/A/  ") == "example.com:443/a");
  NormScratch scratch;
  const std::string_view a = n.apply("HTTP://X.ORG/", scratch);
  CHECK(a == "http://x.org");
  const std::string_view b = n.apply("http://y.org/Path/", scratch);
  CHECK(b == "http://y.org/path");
}

TEST_CASE("email preset") {
  const Normaliser n = one(NormStepKind::kEmail);
  CHECK(apply(n, "  Foo.Bar@Example.COM\t") == "foo.bar@example.com");
  CHECK(apply(n, "MailTo:Foo@Example.com") == "foo@example.com");
  CHECK(apply(n, "foo@example.com") == "foo@example.com");
}

TEST_CASE("phone preset keeps digits and a leading plus") {
  const Normaliser n = one(NormStepKind::kPhone);
  CHECK(apply(n, "+1 (555) 010-0000") == "+15550100000");
  CHECK(apply(n, "tel:+44 20 7946 0000") == "+442079460000");
  CHECK(apply(n, "1-555-010+0000") == "15550100000");
  CHECK(apply(n, "00 49 30 1234") == "0049301234");
  CHECK(apply(n, "no digits").empty());
  CHECK(apply(n, "+").empty());
}

TEST_CASE("url preset") {
  const Normaliser n = one(NormStepKind::kUrl);
  const std::pair<const char*, const char*> cases[] = {
      {"HTTP://Example.COM/", "http://example.com"},
      {"https://Example.com:443/a/b/", "https://example.com/a/b"},
      {"http://example.com:80", "http://example.com"},
      {"http://example.com:8080/", "http://example.com:8080"},
      {"https://example.com:80/x", "https://example.com:80/x"},
      {"http://example.com:/x", "http://example.com/x"},
      {"http://User:PW@Example.com/Path/?Q=1#Frag", "http://User:PW@example.com/Path?Q=1"},
      {"http://[2001:DB8::1]:80/", "http://[2001:db8::1]"},
      {"http://[2001:DB8::1]/", "http://[2001:db8::1]"},
      {"  Example.COM/Index.HTML  ", "example.com/Index.HTML"},
      {"example.com", "example.com"},
      {"WSS://h:443", "wss://h"},
      {"ftp://H:21/f", "ftp://h/f"},
      {"1http://x/", "1http://x"},  // not a scheme: treated as a host
      {"#only-fragment", ""},
      {"http://h/a//", "http://h/a/"},
  };
  for (const auto& [in, want] : cases) {
    INFO(in);
    CHECK(apply(n, in) == want);
  }
}

TEST_CASE("canonical text round-trips, with free text percent-encoded") {
  const std::string weird = std::string("a,b;c=d%e f\x01\xFF", 13) + std::string(1, '\0');
  const Normaliser n({{NormStepKind::kTrim, {}},
                      {NormStepKind::kLowercase, {}},
                      {NormStepKind::kStripPrefix, weird},
                      {NormStepKind::kEmail, {}},
                      {NormStepKind::kPhone, {}},
                      {NormStepKind::kUrl, {}}});
  const std::string text = n.to_string();
  CHECK(text == "trim,lowercase,strip-prefix=a%2Cb%3Bc%3Dd%25e%20f%01%FF%00,email,phone,url");
  CHECK(Normaliser::parse(text, "f").steps() == n.steps());
  CHECK(Normaliser::parse("", "f").empty());
  CHECK(Normaliser().to_string().empty());
  CHECK(Normaliser::parse("strip-prefix=mailto:", "f").steps()[0].arg == "mailto:");
  CHECK(Normaliser::parse("strip-prefix=%2c", "f").steps()[0].arg == ",");  // either hex case
}

TEST_CASE("text a reader cannot parse is unsupported, naming the file") {
  for (const char* bad : {"frobnicate", "trim,", ",trim", "TRIM", "trim,,lowercase",
                          "strip-prefix=", "strip-prefix", "strip-prefix=%4", "strip-prefix=%ZZ",
                          "strip-prefix=a b", "strip-prefix=a=b", "url2", "trim;lowercase"}) {
    INFO(bad);
    try {
      Normaliser::parse(bad, "x.bf");
      FAIL("accepted");
    } catch (const Error& e) {
      CHECK(e.code() == ErrorCode::kUnsupported);
      CHECK(std::string(e.what()).rfind("x.bf: unsupported key normalisation '", 0) == 0);
    }
  }
}

TEST_CASE("description for people") {
  CHECK(Normaliser().describe() == "none");
  CHECK(Normaliser::parse("trim,lowercase,strip-prefix=%22x%09", "f").describe() ==
        "trim ASCII whitespace, then lowercase ASCII letters, then strip prefix "
        "\"\\x22x\\x09\"");
  CHECK(Normaliser::parse("url", "f").describe() ==
        "url (lowercase scheme and host; drop default port, fragment, trailing /)");
}

TEST_CASE("presets by name") {
  CHECK(parse_norm_preset("email") == NormStepKind::kEmail);
  CHECK(parse_norm_preset("phone") == NormStepKind::kPhone);
  CHECK(parse_norm_preset("url") == NormStepKind::kUrl);
  CHECK_THROWS_AS(parse_norm_preset("ip"), Error);
}
