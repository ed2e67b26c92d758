// --header of the delimited input formats: the first record of each input is a header, skipped,
// and where --column gives a name, the key's column is found in it (KeyReader).
#include "bloomtool/error.h"
#include "input_args.h"

namespace bloomtool::cli {

void InputArgs::add_header_flag(CLI::App& app) {
  app.add_flag("--header", header,
               "delimited, tsv, csv: the first line of each input is a header, not a key "
               "(implied by --column NAME)")
      ->group("Input");
}

void InputArgs::check_header_flag(InputOptions& o) const {
  const bool delimited = o.format == InputFormat::kDelimited || o.format == InputFormat::kCsv;
  if (header && !delimited) {
    throw Error(ErrorCode::kInvalidArgument,
                "--header: only for --input-format delimited, tsv or csv");
  }
  o.header = header || !o.column_name.empty();
}

}  // namespace bloomtool::cli
