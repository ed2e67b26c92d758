// Opening a signed filter file: reading (filter_file.h) and verifying (signature.h) composed, so
// the signature is checked over the very bytes that are then decoded or, for a raw payload, used
// in place (one open file).
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <memory>
#include <vector>

#include "api/load_filter.h"
#include "bloomtool/error.h"
#include "format/file_reader.h"
#include "format/filter_file.h"
#include "format/raw_payload.h"

namespace bloomtool {

LoadedFilter load_verified_filter(const std::string& path, const PublicKey& key) {
  if (path == "-") {  // standard input, read whole as load_filter reads it
    const std::vector<uint8_t> image = read_filter_stream_image(STDIN_FILENO, "<stdin>");
    const FilterHeader header = parse_filter_header(
        std::span<const uint8_t>(image).first(std::min<size_t>(image.size(), kMaxHeaderBytes)),
        image.size(), "<stdin>");
    verify_file_signature(image, header, key, "<stdin>");
    return make_filter(parse_filter_file(image, "<stdin>"), "<stdin>");
  }
  const ReadFile file(path);
  if (file.regular() && std::endian::native == std::endian::little &&
      read_filter_header(path).codec == PayloadCodec::kRawChunked) {
    // A raw file is opened as load_filter opens it; the signature is checked over the header the
    // reader holds and the rest of the file read once with pread(). The header covers the chunk
    // table's checksum and the reader checks every chunk against that table when it reads it, so
    // what queries use is what was signed.
    auto view = std::make_shared<const RawPayloadView>(path);
    std::vector<uint8_t> head(static_cast<size_t>(view->header().header_bytes));
    file.pread_exact(head.data(), head.size(), 0);
    if (head != view->head())
      throw Error(ErrorCode::kIOError, path + ": the file changed while it was being read");
    verify_file_signature(
        head, view->header(), view->file_bytes() - head.size(),
        [&](uint64_t at, std::span<uint8_t> buf) {
          file.pread_exact(buf.data(), buf.size(), head.size() + at);
        },
        key, path);
    return make_raw_filter(std::move(view), path);
  }
  if (file.regular()) check_image_fits_memory(read_filter_header(path), path);
  const std::vector<uint8_t> bytes = file.read_all();
  const FilterHeader header = parse_filter_header(
      std::span<const uint8_t>(bytes).first(std::min<size_t>(bytes.size(), kMaxHeaderBytes)),
      bytes.size(), path);
  verify_file_signature(bytes, header, key, path);
  return make_filter(parse_filter_file(bytes, path), path);
}

}  // namespace bloomtool
