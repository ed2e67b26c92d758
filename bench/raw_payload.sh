#!/usr/bin/env bash
# The raw payload codec at scale (issue 14, "must show"): a >= 4 GiB raw standard Bloom filter of
# 100M keys against the same filter stored with zstd. Prints, for each: one-key query wall time
# and peak RSS (warm page cache, then cold when the cache can be dropped), 1,000,000 queries (the
# CLI, then bench/raw_query_bench: mapped vs in-memory in one process, and the chunk size sweep),
# stats and merge peak RSS. Needs ~20 GB of free disk in WORK and /usr/bin/time.
#
#   bench/raw_payload.sh [BLOOMTOOL] [WORK]      (default build/release/apps/bloomtool/bloomtool,
#                                                  /tmp/rawbench; big files are deleted at the end
#                                                  unless KEEP=1)
set -euo pipefail
BT=$(realpath "${1:-build/release/apps/bloomtool/bloomtool}")
RQB=$(realpath "${RQB:-$(dirname "$BT")/../../bench/raw_query_bench}")
WORK=${2:-/tmp/rawbench}
mkdir -p "$WORK"
cd "$WORK"
export SOURCE_DATE_EPOCH=1700000000

# rss_time CMD...: runs CMD with stdin from $IN, prints "wall_s peak_rss_KiB" from time -v.
rss_time() {
  /usr/bin/time -v "$@" <"${IN:-/dev/null}" >/dev/null 2>time.out || { cat time.out >&2; return 1; }
  local wall rss
  wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' time.out |
    awk -F: '{ if (NF == 3) print $1 * 3600 + $2 * 60 + $3; else print $1 * 60 + $2 }')
  rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' time.out)
  echo "$wall $rss"
}
# best of 5 wall times (and the RSS of that run)
best_of() {
  local best="" r
  for _ in 1 2 3 4 5; do
    r=$(rss_time "$@")
    if [ -z "$best" ] || awk -v a="${r% *}" -v b="${best% *}" 'BEGIN{exit !(a < b)}'; then best=$r; fi
  done
  echo "$best"
}
# drop_cache FILE: evicts FILE from the page cache (drop_caches, else POSIX_FADV_DONTNEED).
drop_cache() {
  sync
  if ! (echo 3 >/proc/sys/vm/drop_caches) 2>/dev/null; then
    python3 -c 'import os,sys; fd=os.open(sys.argv[1], os.O_RDONLY); os.posix_fadvise(fd,0,0,os.POSIX_FADV_DONTNEED)' "$1"
  fi
}

echo "# $(uname -m), $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB RAM; load: $(uptime | sed 's/.*load average: //')"
[ -s keys.txt ] || seq -f 'key-%.0f' 1 100000000 >keys.txt
if [ ! -s big.raw.bf ]; then
  echo "build: $(rss_time "$BT" build -q -m 4GiB -n 100M --codec raw -o big.raw.bf keys.txt)"
fi
[ -s big.zstd.bf ] || "$BT" convert -q big.raw.bf -o big.zstd.bf
[ -s big2.raw.bf ] || cp big.raw.bf big2.raw.bf
if [ ! -s q1m.txt ]; then  # half members, half non-members, shuffled
  shuf -n 500000 --random-source=<(yes) keys.txt >q.tmp
  seq -f 'absent-%.0f' 1 500000 >>q.tmp
  shuf --random-source=<(yes) q.tmp >q1m.txt
  rm q.tmp
fi
ls -l big.raw.bf big.zstd.bf
"$BT" stats big.raw.bf | grep -E '^  (m|k|file size|fill check)'

echo "key-42" >one.txt
echo "## one key (best of 5; wall s, peak RSS KiB)"
IN=one.txt
echo "raw  warm: $(best_of "$BT" query big.raw.bf)"
echo "zstd warm: $(best_of "$BT" query big.zstd.bf)"
drop_cache big.raw.bf
echo "raw  cold: $(rss_time "$BT" query big.raw.bf)"
drop_cache big.zstd.bf
echo "zstd cold: $(rss_time "$BT" query big.zstd.bf)"
unset IN
echo "## 1,000,000 keys (q1m.txt), bloomtool query -c, default threads (wall s, peak RSS KiB)"
echo "raw  warm: $(IN=/dev/null best_of "$BT" query -c big.raw.bf q1m.txt)"
drop_cache big.raw.bf
echo "raw  cold: $(rss_time "$BT" query -c big.raw.bf q1m.txt)"
# In one process, so that only the query path differs: the filter read whole into memory (huge
# pages) against fresh mappings of the raw file, and the chunk size sweep. How the kernel holds
# the file in its page cache (2 MiB folios or 4 KiB pages) moves the mapped figures: say which.
echo "## in-process: mapped vs in-memory, chunk sizes (page cache: $(grep FileHugePages /proc/meminfo | tr -s ' '))"
"$RQB" big.raw.bf q1m.txt 16 64 256 1024 4096
cmp <("$BT" query big.raw.bf q1m.txt) <("$BT" query big.zstd.bf q1m.txt) && echo "  same answers"
echo "## stats (wall s, peak RSS KiB)"
echo "raw : $(rss_time "$BT" stats big.raw.bf)"
echo "zstd: $(rss_time "$BT" stats big.zstd.bf)"
echo "## merge of two raw files into raw (output filter: $(stat -c %s big.raw.bf) bytes)"
echo "raw : $(rss_time "$BT" merge -q --codec raw -o merged.raw.bf big.raw.bf big2.raw.bf)"
cmp merged.raw.bf big.raw.bf >/dev/null 2>&1 || true
rm -f merged.raw.bf
if [ "${KEEP:-0}" != 1 ]; then rm -f big.raw.bf big2.raw.bf big.zstd.bf keys.txt q1m.txt; fi
