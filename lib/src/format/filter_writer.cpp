// The filter file writer (format 1.x, docs/FORMAT.md). A regular file is written through an
// AtomicFile: the header goes first as a placeholder, the payload streams after it (zstd: as
// zstd fills each piece; raw: in 2 MiB-aligned pieces), and the header is then overwritten with
// the payload's length and checksum, so memory stays near the size of one filter. Standard
// output, character devices and FIFOs get the whole image encoded in memory and written as a
// stream. A signed file's signature is computed last, over the bytes read back from the file.
#include <xxhash.h>

#include <algorithm>
#include <bit>
#include <cstring>

#include "base/byte_order.h"
#include "base/checksum.h"
#include "bloomtool/error.h"
#include "format/atomic_file.h"
#include "format/filter_file.h"
#include "format/output_target.h"
#include "format/raw_payload.h"
#include "format/signature.h"
#include "format/zstd_payload.h"

namespace bloomtool {

namespace {

void check_payload_shape(const FilterHeader& h) {
  if (h.payload_raw_bytes % 8 != 0 || h.payload_raw_bytes == 0) {
    throw Error(ErrorCode::kInvalidArgument, "payload must be a non-empty multiple of 8 bytes");
  }
}

uint64_t chunk_bytes_of(const WriteOptions& options) {
  return options.raw_chunk_bytes == 0 ? kDefaultRawChunkBytes : options.raw_chunk_bytes;
}

void check_write_options(const WriteOptions& options) {
  if (options.codec == PayloadCodec::kZstd) return;
  if (options.codec != PayloadCodec::kRawChunked) {
    throw Error(ErrorCode::kInvalidArgument,
                "payload codec " + std::to_string(static_cast<uint32_t>(options.codec)) +
                    " cannot be written");
  }
  const uint64_t c = chunk_bytes_of(options);
  if (!std::has_single_bit(c) || c < kMinRawChunkBytes || c > kMaxRawChunkBytes) {
    throw Error(ErrorCode::kInvalidArgument,
                "raw chunk size " + std::to_string(c) + " is not a power of two from " +
                    std::to_string(kMinRawChunkBytes) + " to " + std::to_string(kMaxRawChunkBytes));
  }
}

// A signed file carries field 9 (format 1.1), reserved before the payload is written and filled in
// by sign_file_header once the whole file is; an unsigned one carries none.
void reserve_signature(FilterHeader& header, const WriteOptions& options) {
  header.signature.reset();
  if (options.signing_key == nullptr) return;
  SignatureField field;
  field.key_id = options.signing_key->id();
  header.signature = field;
  header.minor = std::max(header.minor, kFormatMinorLatest);
}

// Signs a finished file: `head` is its complete header as written (field 9 present, signature and
// header checksum bytes whatever they are), `tail_bytes` the bytes that follow it, read through
// `read`. Writes the signature into field 9 and recomputes the header checksum, in `head`.
void sign_file_header(std::span<uint8_t> head, const FilterHeader& header, uint64_t tail_bytes,
                      const TailReader& read, const SigningKey& key) {
  const SignatureField& field = header.signature.value();
  if (head.size() != header.header_bytes)
    throw Error(ErrorCode::kInvalidArgument, "signature field outside the header");
  const Signature sig =
      sign_bytes({head, field.signature_offset, kHeaderChecksumBytes, tail_bytes, read}, key);
  std::memcpy(head.data() + field.signature_offset, sig.data(), kSignatureBytes);
  le::store<uint64_t>(head.data() + head.size() - kHeaderChecksumBytes,
                      XXH3_64bits(head.data(), head.size() - kHeaderChecksumBytes));
}

}  // namespace

std::vector<uint8_t> encode_filter_file(FilterHeader& header, std::span<const uint64_t> words,
                                        uint64_t raw_bytes, const WriteOptions& options) {
  check_write_options(options);
  header.payload_raw_bytes = raw_bytes;
  check_payload_shape(header);
  reserve_signature(header, options);
  std::vector<uint8_t> out;
  if (options.codec == PayloadCodec::kRawChunked) {
    const uint64_t chunk = chunk_bytes_of(options);
    out = raw_file_head(header, raw_bytes, chunk, raw_chunk_table(words, raw_bytes, chunk));
    emit_raw_words(words, raw_bytes, out.size(),
                   [&](std::span<const uint8_t> b) { out.insert(out.end(), b.begin(), b.end()); });
  } else {
    std::vector<uint8_t> payload;
    const detail::XxhState state = detail::make_xxh_state();
    compress_zstd_payload(words, raw_bytes, options.threads, [&](std::span<const uint8_t> chunk) {
      detail::checksum_update(state.get(), chunk.data(), chunk.size());
      payload.insert(payload.end(), chunk.begin(), chunk.end());
    });
    header.payload_checksum = XXH3_64bits_digest(state.get());
    header.codec = PayloadCodec::kZstd;
    header.raw_chunk_bytes = header.raw_payload_offset = 0;
    header.payload_stored_bytes = payload.size();
    out = serialize_filter_header(header);
    out.insert(out.end(), payload.begin(), payload.end());
  }
  if (options.signing_key != nullptr) {
    sign_file_header(
        std::span<uint8_t>(out.data(), header.header_bytes), header, header.payload_stored_bytes,
        [&](uint64_t at, std::span<uint8_t> buf) {
          std::memcpy(buf.data(), out.data() + header.header_bytes + at, buf.size());
        },
        *options.signing_key);
  }
  return out;
}

uint64_t write_filter_file(const std::string& path, FilterHeader& header,
                           std::span<const uint64_t> words, uint64_t raw_bytes,
                           const WriteOptions& options) {
  check_write_options(options);
  const OutputTarget target = resolve_output_target(path);
  if (target.kind != OutputKind::kFile) {  // stdout, a character device or a FIFO: a stream
    const std::vector<uint8_t> image = encode_filter_file(header, words, raw_bytes, options);
    write_output_stream(target, image);
    return image.size();
  }
  header.payload_raw_bytes = raw_bytes;
  check_payload_shape(header);
  reserve_signature(header, options);
  AtomicFile file(path);
  if (options.codec == PayloadCodec::kRawChunked) {
    const uint64_t chunk = chunk_bytes_of(options);
    std::vector<uint8_t> head =
        raw_file_head(header, raw_bytes, chunk, raw_chunk_table(words, raw_bytes, chunk));
    // The head goes out with the payload's first piece, in one write up to the first 2 MiB
    // boundary (emit_raw_words).
    const size_t head_bytes = head.size();
    bool first = true;
    emit_raw_words(words, raw_bytes, head_bytes, [&](std::span<const uint8_t> b) {
      if (!first) return file.write(b);
      first = false;
      head.insert(head.end(), b.begin(), b.end());
      file.write(head);
      head.resize(head_bytes);
    });
    if (options.signing_key != nullptr) {
      head.resize(static_cast<size_t>(header.header_bytes));
      sign_file_header(
          head, header, header.payload_stored_bytes,
          [&](uint64_t at, std::span<uint8_t> buf) { file.pread(buf, head.size() + at); },
          *options.signing_key);
      file.pwrite(head, 0);
    }
    file.commit();
    return header.raw_payload_offset + raw_bytes;
  }
  header.codec = PayloadCodec::kZstd;
  header.raw_chunk_bytes = header.raw_payload_offset = 0;
  // The header's length does not depend on the payload, so a placeholder is written first and
  // replaced once the payload's length and checksum are known.
  std::vector<uint8_t> head = serialize_filter_header(header);
  file.write(head);
  uint64_t stored = 0;
  const detail::XxhState state = detail::make_xxh_state();
  compress_zstd_payload(words, raw_bytes, options.threads, [&](std::span<const uint8_t> chunk) {
    detail::checksum_update(state.get(), chunk.data(), chunk.size());
    stored += chunk.size();
    file.write(chunk);
  });
  header.payload_checksum = XXH3_64bits_digest(state.get());
  header.payload_stored_bytes = stored;
  head = serialize_filter_header(header);
  if (options.signing_key != nullptr) {
    sign_file_header(
        head, header, stored,
        [&](uint64_t at, std::span<uint8_t> buf) { file.pread(buf, head.size() + at); },
        *options.signing_key);
  }
  file.pwrite(head, 0);
  file.commit();
  return head.size() + stored;
}

}  // namespace bloomtool
