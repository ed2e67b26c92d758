// Builds a Bloom filter from three keys, writes it to a file, reads it back and queries it,
// using only the installed library: #include <bloomtool/bloomtool.h>, link bloomtool::bloomtool.
#include <bloomtool/bloomtool.h>

#include <cstdio>
#include <fstream>
#include <string>

int main(int argc, char** argv) {
  const std::string path = argc > 1 ? argv[1] : "example.bf";
  const std::string keys_path = path + ".keys";
  std::ofstream(keys_path) << "apple\nbanana\ncherry\n";

  // The keys are read, hashed and sized for exactly (-p 1% without -n) as `bloomtool build` does.
  bloomtool::KeyStream keys({keys_path}, bloomtool::InputOptions{});
  bloomtool::BloomPlan plan;
  plan.fpr = 0.01;
  bloomtool::BuildProvenance provenance;
  provenance.label = "example";
  bloomtool::BloomBuild built = bloomtool::build_bloom(keys, plan, provenance);
  built.write(path);  // atomically, with its header and checksums

  const bloomtool::LoadedFilter loaded = bloomtool::load_filter(path);
  for (const char* key : {"apple", "cherry", "durian"}) {
    const bool maybe = loaded.filter->contains_hash(bloomtool::hash_key(key, loaded.header.seed));
    std::printf("%s: %s\n", key, maybe ? "maybe present" : "absent");
  }
  std::remove(keys_path.c_str());
  return 0;
}
