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

  // The keys are read, hashed and sized for exactly (p = 1% without n) as `bloomtool build` does,
  // and the file is written atomically, with its header and checksums.
  bloomtool::KeySource keys;
  keys.paths = {keys_path};
  bloomtool::Plan plan;
  plan.p = 0.01;
  plan.label = "example";
  bloomtool::build_filter(keys, plan, path);

  const bloomtool::Reader filter = bloomtool::open_filter(path);
  for (const char* key : {"apple", "cherry", "durian"})
    std::printf("%s: %s\n", key, filter.contains(key) ? "maybe present" : "absent");
  std::remove(keys_path.c_str());
  return 0;
}
