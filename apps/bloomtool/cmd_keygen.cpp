// `bloomtool keygen -o NAME`: a new Ed25519 key pair for signing filter files, written to NAME.key
// (secret, mode 0600) and NAME.pub (public), neither ever replacing an existing file.
#include <sys/stat.h>

#include <memory>

#include "bloomtool/error.h"
#include "format/signature.h"
#include "common.h"

namespace bloomtool::cli {

namespace {

struct KeygenOptions {
  std::string name;
  bool quiet = false;
};

int run_keygen(const KeygenOptions& o) {
  if (o.name.empty() || o.name == "-") {
    throw Error(ErrorCode::kInvalidArgument,
                "-o: give a file name (NAME.key and NAME.pub are written)");
  }
  // The last component of NAME names the files: "dir/" or "." would write hidden files
  // (dir/.key, ..key); an existing directory is a place, not a name.
  const std::string base = o.name.substr(o.name.find_last_of('/') + 1);
  struct stat st;
  if (base.empty() || base == "." || base == ".." ||
      (::stat(o.name.c_str(), &st) == 0 && S_ISDIR(st.st_mode))) {
    const std::string dir = o.name.ends_with('/') ? o.name : o.name + "/";
    throw Error(ErrorCode::kInvalidArgument,
                "-o: '" + o.name + "' is a directory, not a key name; give NAME, e.g. '" + dir +
                    "signing' (NAME.key and NAME.pub are written)");
  }
  for (const char* ext : {".key", ".pub"}) {
    if (o.name.ends_with(ext)) {
      throw Error(ErrorCode::kInvalidArgument, "-o: '" + o.name + "' ends in " + ext +
                                                   "; give NAME without it (NAME.key and " +
                                                   "NAME.pub are written)");
    }
  }
  const KeyId id = generate_key_files(o.name);
  if (!o.quiet) {
    fmt::print(stderr,
               "bloomtool: wrote {0}.key (secret key, mode 0600: keep it private) and {0}.pub "
               "(public key)\n"
               "  key id          {1}\n",
               o.name, key_id_hex(id));
  }
  return kExitOk;
}

}  // namespace

Command register_keygen(CLI::App& root) {
  auto o = std::make_shared<KeygenOptions>();
  CLI::App* app = root.add_subcommand(
      "keygen", "Make an Ed25519 key pair for signing filters: NAME.key (secret) and NAME.pub");
  app->add_option("-o,--output", o->name,
                  "Writes NAME.key (mode 0600) and NAME.pub; existing files are never replaced")
      ->required()
      ->type_name("NAME");
  app->add_flag("-q,--quiet", o->quiet, "Print nothing but errors");
  app->footer(kTrustFooter);
  return {app, [o] { return run_keygen(*o); }};
}

}  // namespace bloomtool::cli
