// `bloomtool assemble`: joins the part files of an across-hosts partitioned build (build-static
// --partitions P --part I-J on each host) into the one file a single build of all partitions
// writes, byte for byte (given the same creation time: SOURCE_DATE_EPOCH or --created). The
// parts must hold every partition exactly once and agree on kind, width, seed, partition count,
// input and key options; anything else is refused before the output is touched.
#include <cstdlib>
#include <memory>

#include "bloomtool/error.h"
#include "common.h"
#include "filters/partitioned_build.h"
#include "units_cli.h"
#include "written_json.h"

namespace bloomtool::cli {

namespace {

struct AssembleOptions {
  std::vector<std::string> parts;
  OutputArgs out;
};

int run_assemble(const AssembleOptions& o) {
  for (const std::string& p : o.parts) {
    if (p == "-") {
      throw Error(ErrorCode::kInvalidArgument,
                  "assemble: part files are read from files, not from standard input");
    }
  }
  const OutputArgs::Prepared out = o.out.prepare(o.parts);
  // The creation time: --created or SOURCE_DATE_EPOCH when given (prepare read them), else the
  // newest part's.
  const char* sde = std::getenv("SOURCE_DATE_EPOCH");
  std::optional<int64_t> created;
  if (!o.out.created.empty() || (sde != nullptr && *sde != '\0'))
    created = out.provenance.created_unix;
  std::optional<std::string> label;
  if (!o.out.label.empty()) label = o.out.label;
  AssembledFile a = assemble_part_files(o.parts, created, label);
  const FilterHeader& h = a.header;
  return publish(o.out, out, h.distinct_estimate, a, [&](uint64_t file_bytes) {
    if (o.out.json) {
      WrittenFacts f;
      f.command = "assemble";
      f.header = &a.header;
      f.file_bytes = file_bytes;
      f.distinct_exact = true;
      f.inputs = o.parts;
      return print_written_json(o.out, f);
    }
    fmt::print(stderr,
               "bloomtool: wrote {}: {} partitions of a {} filter from {} part files\n"
               "  distinct keys   {} (exact)\n"
               "  model p         {:.6g} (key-weighted mean over the partitions)\n"
               "  file size       {} ({} bytes)\n",
               o.out.name(), h.partitions->partitions(), filter_kind_name(h.kind), o.parts.size(),
               h.distinct_estimate, h.partitions->model_rate, format_bytes(file_bytes), file_bytes);
  });
}

}  // namespace

Command register_assemble(CLI::App& root) {
  auto o = std::make_shared<AssembleOptions>();
  CLI::App* app = root.add_subcommand(
      "assemble",
      "Join the part files of a partitioned static filter built across hosts (each host "
      "building a range of partitions with build-static) into the file one build writes");
  app->add_option("parts", o->parts,
                  "Part files that together hold every partition exactly once, in any order")
      ->required()
      ->type_name("PART");
  o->out.add_output(*app);
  o->out.add_to(*app, "Free text stored in the file (default: the parts' label)",
                "Print nothing but errors");
  return {app, [o] { return run_assemble(*o); }};
}

}  // namespace bloomtool::cli
