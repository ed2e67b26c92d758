#!/usr/bin/env bash
# Bytes read per lookup from a raw (codec 2) filter, cold cache: a 4 GiB raw standard Bloom filter
# (1M keys, k = 7, 64 KiB chunks), 1,000 random keys (500 members, 500 not), the file dropped
# from the page cache first. Prints the blocks the query read (rusage, /usr/bin/time %I), the
# file's pages in the page cache after it (fincore), both per key, and the query's wall time and
# peak RSS. Needs root (drop_caches, else POSIX_FADV_DONTNEED via dd), ~4.3 GB of disk in WORK,
# /usr/bin/time and fincore (util-linux).
#
#   bench/raw_lookup_io.sh [BLOOMTOOL] [WORK]    (defaults: build/release/apps/bloomtool/bloomtool,
#                                                /tmp/rawio; the filter is kept for reruns)
set -euo pipefail
BT=$(realpath "${1:-build/release/apps/bloomtool/bloomtool}")
WORK=${2:-/tmp/rawio}
mkdir -p "$WORK"
cd "$WORK"

if [ ! -f big.raw.bf ]; then
  seq -f 'key-%.0f' 1 1000000 | "$BT" build -q --codec raw -m 4GiB -k 7 -o big.raw.bf
fi
{
  seq -f 'key-%.0f' 1 1000000 | shuf -n 500 --random-source=<(yes)
  seq -f 'other-%.0f' 1 1000000 | shuf -n 500 --random-source=<(yes)
} >keys1000.txt

drop_cache() {
  sync
  if ! (echo 3 >/proc/sys/vm/drop_caches) 2>/dev/null; then
    dd if="$1" iflag=nocache count=0 status=none
    dd of="$1" oflag=nocache conv=notrunc,fdatasync count=0 status=none
  fi
}

drop_cache big.raw.bf
before=$(fincore -bno RES big.raw.bf)
/usr/bin/time -f '%e %M %I' -o time.out "$BT" query -c big.raw.bf keys1000.txt >count.out || true
after=$(fincore -bno RES big.raw.bf)
read -r wall rss blocks <time.out
keys=$(wc -l <keys1000.txt)
echo "file: $(stat -c %s big.raw.bf) bytes; keys: $keys; found: $(cat count.out)"
echo "read by the query (rusage): $((blocks * 512)) bytes, $((blocks * 512 / keys)) per key"
echo "page cache of the file: $before bytes before, $after after: $(((after - before) / keys)) per key"
echo "wall: ${wall} s; peak RSS: ${rss} KiB"
echo "expected at most: k x chunk = 7 x 65536 = 458752 bytes per key"
