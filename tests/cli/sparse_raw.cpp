// Test helper: writes a raw (codec 2) Bloom filter whose payload is all zero bits, as a sparse
// file: the header and chunk table are written, the payload is a hole (ftruncate), so a filter
// larger than the machine's memory costs no disk. Usage: sparse_raw TEMPLATE OUT PAYLOAD_BYTES
// (TEMPLATE: a small filter file whose header fields are kept, but for the size). PAYLOAD_BYTES
// is a multiple of 64 KiB. Exit 0 on success, 2 on error.
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "format/filter_file.h"
#include "format/raw_payload.h"
#include "base/byte_order.h"
#include "base/checksum.h"

int main(int argc, char** argv) {
  using namespace bloomtool;
  if (argc != 4) {
    std::fputs("usage: sparse_raw TEMPLATE OUT PAYLOAD_BYTES\n", stderr);
    return 2;
  }
  try {
    FilterHeader h = read_filter_header(argv[1]);
    const uint64_t raw = std::stoull(argv[3]);
    const uint64_t chunk = kDefaultRawChunkBytes;
    if (raw == 0 || raw % chunk != 0)
      throw std::runtime_error("PAYLOAD_BYTES: not a multiple of 64 KiB");
    h.kind = FilterKind::kBloom;
    h.variant = 0;
    h.m = raw * 8;
    h.signature.reset();
    // Every chunk is zero: one checksum, repeated.
    const std::vector<uint8_t> zero(chunk, 0);
    const uint64_t sum = detail::checksum_bytes(zero.data(), zero.size());
    std::vector<uint8_t> table(raw / chunk * 8);
    for (size_t i = 0; i < table.size(); i += 8) le::store<uint64_t>(&table[i], sum);
    const std::vector<uint8_t> head = raw_file_head(h, raw, chunk, table);
    const int fd = ::open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) throw std::runtime_error(std::string("cannot create ") + argv[2]);
    const bool ok =
        ::pwrite(fd, head.data(), head.size(), 0) == static_cast<ssize_t>(head.size()) &&
        ::ftruncate(fd, static_cast<off_t>(head.size() + raw)) == 0;
    ::close(fd);
    if (!ok) throw std::runtime_error(std::string("cannot write ") + argv[2]);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sparse_raw: %s\n", e.what());
    return 2;
  }
  return 0;
}
