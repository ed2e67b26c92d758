// The public FilterInfo of a header, read_filter_info, and telling file formats apart.
#include "api/facts.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <ctime>
#include <string_view>
#include <vector>

#include "analysis/stats.h"
#include "api/load_filter.h"
#include "base/word_buffer.h"
#include "bloomtool/error.h"
#include "filters/bloom.h"
#include "format/signature.h"
#include "keys/byte_source.h"
#include "keys/hash.h"

namespace bloomtool {

FilterInfo filter_info_of(const FilterHeader& h, uint64_t file_bytes, FilterFormat format) {
  FilterInfo info;
  info.format = format;
  info.kind = filter_kind_name(h.kind);
  if (h.kind == FilterKind::kBloom)
    info.variant = bloom_variant_name(static_cast<BloomVariant>(h.variant));
  if (h.kind == FilterKind::kRibbon) info.variant = h.variant == 1 ? "bumped" : "standard";
  info.format_version = std::to_string(h.major) + "." + std::to_string(h.minor);
  info.m = h.m;
  info.k = h.k;
  info.distinct_keys = h.distinct_estimate;
  info.keys_added = h.keys_added;
  info.lines_read = h.lines_read;
  info.empty_lines = h.empty_lines;
  info.model_fpr = model_fpr_for(h, static_cast<double>(h.distinct_estimate));
  info.label = h.label;
  info.created_unix = h.created_unix;
  info.tool_version = h.tool_version;
  info.normalisation = h.normalisation;
  info.input_options = h.input_options;
  info.hash = hash_scheme_name(h.hash_id);
  info.hash_id = h.hash_id;
  info.seed = h.seed;
  info.codec = payload_codec_name(h.codec);
  info.file_bytes = file_bytes;
  if (h.signature) {
    info.signature_signed = true;
    if (h.signature->algorithm == kSignatureEd25519Blake2b)
      info.signature_key_id = key_id_hex(h.signature->key_id);
  }
  return info;
}

FilterFormat detect_format(std::span<const uint8_t> head, std::optional<uint64_t> size) {
  const std::string_view text(reinterpret_cast<const char*>(head.data()), head.size());
  switch (classify_input_head(text, size).kind) {
    case InputKind::kGuava:
      return FilterFormat::kGuava;
    case InputKind::kDcso:
    case InputKind::kGzip:  // the one filter format that comes gzip-compressed
      return FilterFormat::kDcso;
    default:
      return FilterFormat::kBloomtool;
  }
}

FilterFormat resolve_format(const std::string& path, FilterFormat format) {
  if (format != FilterFormat::kAuto) return format;
  if (path == "-") return FilterFormat::kBloomtool;
  // A pipe or device cannot be read twice: only regular files are told apart (never opened
  // here otherwise, so that a FIFO is opened once, by its reader).
  struct stat st;
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return FilterFormat::kBloomtool;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return FilterFormat::kBloomtool;  // the reader reports it in its own words
  uint8_t head[kSniffBytes];
  size_t got = 0;
  while (got < sizeof head) {
    const ssize_t r = ::read(fd, head + got, sizeof head - got);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;  // the reader that follows reports a read error in its own words
    got += static_cast<size_t>(r);
  }
  ::close(fd);
  const std::optional<uint64_t> size = static_cast<uint64_t>(st.st_size);
  return detect_format(std::span<const uint8_t>(head, got), size);
}

FileFormat internal_format(FilterFormat format) {
  switch (format) {
    case FilterFormat::kGuava:
      return FileFormat::kGuava;
    case FilterFormat::kDcso:
      return FileFormat::kDcso;
    default:
      return FileFormat::kBloomtool;
  }
}

int64_t creation_time(const std::optional<int64_t>& created) {
  if (created) return *created;
  const char* sde = std::getenv("SOURCE_DATE_EPOCH");
  if (sde == nullptr || *sde == '\0') return static_cast<int64_t>(std::time(nullptr));
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(sde, &end, 10);
  if (*end != '\0' || errno != 0 || v < 0)
    throw FieldError("SOURCE_DATE_EPOCH", std::string("'") + sde + "' is not a number of seconds");
  return static_cast<int64_t>(v);
}

bool is_bloom(Kind kind) noexcept {
  return kind == Kind::kBloom || kind == Kind::kBlockedBloom;
}

PayloadCodec internal_codec(Codec codec) {
  return codec == Codec::kRaw ? PayloadCodec::kRawChunked : PayloadCodec::kZstd;
}

const char* filter_format_name(FilterFormat format) noexcept {
  switch (format) {
    case FilterFormat::kAuto:
      return "auto";
    case FilterFormat::kBloomtool:
      return "bloomtool";
    case FilterFormat::kGuava:
      return "guava";
    case FilterFormat::kDcso:
      return "dcso";
  }
  return "auto";
}

FilterInfo read_filter_info(const std::string& path, FilterFormat format) {
  const FilterFormat f = resolve_format(path, format);
  if (f != FilterFormat::kBloomtool) {
    const LoadedFilter loaded = load_filter_as(path, internal_format(f), false);
    return filter_info_of(loaded.header, loaded.file_bytes, f);
  }
  if (path == "-") {
    const std::vector<uint8_t> image = read_filter_stream_image(STDIN_FILENO, "<stdin>");
    return read_filter_info(image, FilterFormat::kBloomtool, "<stdin>");
  }
  const FilterHeader header = read_filter_header(path);
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) throw_io_error(path, errno);
  return filter_info_of(header, static_cast<uint64_t>(st.st_size), f);
}

FilterInfo read_filter_info(std::span<const uint8_t> bytes, FilterFormat format,
                            const std::string& name) {
  const FilterFormat f =
      format != FilterFormat::kAuto
          ? format
          : detect_format(bytes.first(std::min(bytes.size(), kSniffBytes)), bytes.size());
  if (f != FilterFormat::kBloomtool) {
    const LoadedFilter loaded =
        parse_foreign(bytes, internal_format(f), name, available_memory_bytes());
    return filter_info_of(loaded.header, bytes.size(), f);
  }
  const FilterHeader header = parse_filter_header(
      bytes.first(std::min<size_t>(bytes.size(), kMaxHeaderBytes)), bytes.size(), name);
  return filter_info_of(header, bytes.size(), f);
}

}  // namespace bloomtool
