// Test helper: reads JSON with simdjson and answers the CLI tests' questions about it.
//   json_query FILE POINTER...  prints each value (strings raw, others as JSON), one per line;
//                               exit 1 if a pointer is missing
//   json_query --paths FILE     prints every field as a dotted path (array items as "[]"),
//                               sorted and unique
// FILE "-" is standard input. Exit 2 when the text is not valid JSON.
#include <simdjson.h>

#include <cstdio>
#include <iostream>
#include <iterator>
#include <set>
#include <string>

namespace {

void collect(simdjson::dom::element e, const std::string& prefix, std::set<std::string>& out) {
  simdjson::dom::object object;
  simdjson::dom::array array;
  if (e.get(object) == simdjson::SUCCESS) {
    for (auto [key, value] : object) {
      const std::string path = prefix.empty() ? std::string(key) : prefix + "." + std::string(key);
      out.insert(path);
      collect(value, path, out);
    }
  } else if (e.get(array) == simdjson::SUCCESS) {
    for (simdjson::dom::element item : array) collect(item, prefix + "[]", out);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fputs("usage: json_query FILE POINTER... | json_query --paths FILE\n", stderr);
    return 2;
  }
  const bool paths = std::string(argv[1]) == "--paths";
  const std::string file = argv[paths ? 2 : 1];
  std::string text;
  if (file == "-") {
    text.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
  } else {
    simdjson::padded_string loaded;
    if (simdjson::padded_string::load(file).get(loaded) != simdjson::SUCCESS) {
      std::fprintf(stderr, "json_query: cannot read %s\n", file.c_str());
      return 2;
    }
    text = std::string(loaded);
  }
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (const auto error = parser.parse(text).get(doc); error != simdjson::SUCCESS) {
    std::fprintf(stderr, "json_query: %s: %s\n", file.c_str(), simdjson::error_message(error));
    return 2;
  }
  if (paths) {
    std::set<std::string> out;
    collect(doc, "", out);
    for (const std::string& p : out) std::printf("%s\n", p.c_str());
    return 0;
  }
  int status = 0;
  for (int i = 2; i < argc; ++i) {
    simdjson::dom::element v;
    if (doc.at_pointer(argv[i]).get(v) != simdjson::SUCCESS) {
      std::fprintf(stderr, "json_query: %s: no %s\n", file.c_str(), argv[i]);
      status = 1;
      continue;
    }
    std::string_view s;
    if (v.get(s) == simdjson::SUCCESS)
      std::printf("%.*s\n", static_cast<int>(s.size()), s.data());
    else
      std::printf("%s\n", simdjson::minify(v).c_str());
  }
  return status;
}
