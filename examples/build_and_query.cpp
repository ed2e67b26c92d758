// Builds a Bloom filter from three keys, writes it to a file, reads it back and queries it,
// using only the installed library: #include <bloomtool/bloomtool.h>, link bloomtool::bloomtool.
#include <bloomtool/bloomtool.h>

#include <cstdio>
#include <string>

int main(int argc, char** argv) {
  const std::string path = argc > 1 ? argv[1] : "example.bf";
  const char* keys[] = {"apple", "banana", "cherry"};

  const bloomtool::model::BloomSize size = bloomtool::model::standard_size(3, 0.01);
  bloomtool::BloomFilter filter(size.m_bits, size.k);
  for (const char* key : keys) filter.add(bloomtool::hash_key(key, bloomtool::kDefaultSeed));

  bloomtool::FilterHeader header;  // kind Bloom, standard variant
  header.hash_id = bloomtool::kHashXxh3_64;
  header.seed = bloomtool::kDefaultSeed;
  header.m = filter.bits();
  header.k = filter.k();
  header.keys_added = header.distinct_estimate = 3;
  header.tool_version = std::string("build_and_query ") + bloomtool::kToolVersion;
  bloomtool::write_filter_file(path, header, filter.words(), filter.words().size() * 8);

  const bloomtool::LoadedFilter loaded = bloomtool::load_filter(path);
  for (const char* key : {"apple", "cherry", "durian"}) {
    const bool maybe = loaded.filter->contains_hash(bloomtool::hash_key(key, loaded.header.seed));
    std::printf("%s: %s\n", key, maybe ? "maybe present" : "absent");
  }
  return 0;
}
