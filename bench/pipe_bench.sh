#!/usr/bin/env bash
# Keys through a pipe, zstd and gzip, against the pipe's own floor (the same producer into
# `wc -l`) and against the minimal read + split + hash + insert loop (bench/minimal_build.cpp) or,
# for query, read + split + hash + probe loop (bench/minimal_query.cpp), fed by the same pipe. Each group is one bench/pipe_alternate.sh run (commands in turn, round
# after round; ratios per round).
#
#   bench/pipe_bench.sh           10M URL keys (plain, .zst, .gz), queries, 10^8 generated keys
#   bench/pipe_bench.sh --100m    also 100M URL keys from a file through cat (about 6 GiB), and
#                                 through zstdcat
#   ROUNDS=5 bench/pipe_bench.sh  rounds per group (default 5)
#   ONLY="query gen" bench/pipe_bench.sh   only these groups (cat zstd gzip query gen 100m)
#
# Filters are written to /dev/shm, so that the figures are those of the key path, not of the disk
# that takes the output. Peak RSS comes from one more run under /usr/bin/time.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-5}
BIG=0
[ "${1:-}" = "--100m" ] && BIG=1
ONLY=${ONLY:-cat zstd gzip query gen 100m}
want() { [[ " $ONLY " == *" $1 "* ]]; }
cmake --preset release >/dev/null
cmake --build --preset release -j2 >/dev/null
BT=$PWD/build/release/apps/bloomtool/bloomtool
GEN=$PWD/build/release/bench/gen_keys
MIN=$PWD/build/release/bench/minimal_build
MINQ=$PWD/build/release/bench/minimal_query
DATA=$PWD/bench/data
ALT=$PWD/bench/pipe_alternate.sh
OUT=$(mktemp -d /dev/shm/pipe_bench.XXXXXX)
trap 'rm -rf "$OUT"' EXIT
mkdir -p "$DATA"
U=$DATA/urls-10m.txt
[ -s "$U" ] || "$GEN" urls 10000000 1 >"$U"
[ -s "$U.zst" ] || zstd -q -T0 -o "$U.zst" "$U"
[ -s "$U.gz" ] || gzip -1 -c "$U" >"$U.gz"
# Frames of about 4 MiB, each with its size in its header: decompressed on several threads.
F=$DATA/urls-10m.frames.zst
if [ ! -s "$F" ]; then
  split -C 4M -a 4 "$U" "$OUT/part."
  for p in "$OUT"/part.*; do zstd -q -c "$p"; done >"$F"
  rm -f "$OUT"/part.*
fi
cat "$U" "$U.zst" "$U.gz" "$F" >/dev/null
B="$BT build -q -n 10M -p 1%"
echo "# $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-), load $(cut -d' ' -f1-3 /proc/loadavg)"

want cat && echo "## 10M URL keys through cat" && "$ALT" "$ROUNDS" \
  "cat $U | $B -o $OUT/a.bf" \
  "cat $U | $B --threads 1 -o $OUT/a.bf" \
  "cat $U | $B --variant blocked -o $OUT/a.bf" \
  "cat $U | $B --variant blocked --threads 1 -o $OUT/a.bf" \
  "cat $U | $MIN standard /dev/stdin 10000000 0.01" \
  "cat $U | $MIN blocked /dev/stdin 10000000 0.01" \
  "$B -o $OUT/a.bf $U" \
  "cat $U | wc -l"

want zstd && echo "## 10M URL keys, zstd (one frame; frames of 4 MiB)" && "$ALT" "$ROUNDS" \
  "$B -o $OUT/a.bf $U.zst" \
  "$B -o $OUT/a.bf $F" \
  "zstdcat $U.zst | $B -o $OUT/a.bf" \
  "zstdcat $U.zst | $B --threads 1 -o $OUT/a.bf" \
  "zstdcat $U.zst | $MIN standard /dev/stdin 10000000 0.01" \
  "zstdcat $U.zst | wc -l"

want gzip && echo "## 10M URL keys, gzip" && "$ALT" "$ROUNDS" \
  "$B -o $OUT/a.bf $U.gz" \
  "zcat $U.gz | $MIN standard /dev/stdin 10000000 0.01" \
  "zcat $U.gz | wc -l"

if want query; then
  echo "## query through cat (a filter of the first half of the keys: half of them absent)"
  head -5000000 "$U" | $B -o "$OUT/q.bf"
  "$ALT" "$ROUNDS" \
    "cat $U | $BT query --count $OUT/q.bf" \
    "cat $U | $BT query --absent $OUT/q.bf" \
    "cat $U | $BT query --count --threads 1 $OUT/q.bf" \
    "cat $U | $BT query --absent --threads 1 $OUT/q.bf" \
    "cat $U | $MINQ count $OUT/q.bf /dev/stdin" \
    "cat $U | $MINQ absent $OUT/q.bf /dev/stdin" \
    "cat $U | wc -l"
fi

G="$GEN urls 100000000 1"
want gen && echo "## 10^8 generated URL keys through a pipe" && "$ALT" "$ROUNDS" \
  "$G | $BT build -q -n 100M -p 1% -o $OUT/g.bf" \
  "$G | $BT build -q -n 100M -p 1% --threads 1 -o $OUT/g.bf" \
  "$G | $MIN standard /dev/stdin 100000000 0.01" \
  "$G | wc -l"
want gen && /usr/bin/time -f '%M' -o "$OUT/rss" bash -c "$G | $BT build -q -n 100M -p 1% -o $OUT/g.bf" &&
  echo "peak RSS of build: $(($(tail -1 "$OUT/rss") / 1024)) MiB; filter $(($(stat -c %s "$OUT/g.bf") / 1048576)) MiB"

if [ $BIG -eq 1 ] && want 100m; then
  V=$DATA/urls-100m.txt
  [ -s "$V" ] || "$GEN" urls 100000000 1 >"$V"
  cat "$V" >/dev/null
  echo "## 100M URL keys through cat"
  "$ALT" "$((ROUNDS < 5 ? ROUNDS : 5))" \
    "cat $V | $BT build -q -n 100M -p 1% -o $OUT/b.bf" \
    "cat $V | $BT build -q -n 100M -p 1% --threads 1 -o $OUT/b.bf" \
    "cat $V | $BT build -q -n 100M -p 1% --variant blocked -o $OUT/b.bf" \
    "cat $V | $BT build -q -n 100M -p 1% --variant blocked --threads 1 -o $OUT/b.bf" \
    "cat $V | $MIN standard /dev/stdin 100000000 0.01" \
    "cat $V | $MIN blocked /dev/stdin 100000000 0.01" \
    "cat $V | wc -l"
  [ -s "$V.zst" ] || zstd -q -T0 -o "$V.zst" "$V"
  echo "## 100M URL keys through zstdcat"
  "$ALT" "$((ROUNDS < 5 ? ROUNDS : 5))" \
    "zstdcat $V.zst | $BT build -q -n 100M -p 1% -o $OUT/b.bf" \
    "zstdcat $V.zst | $BT build -q -n 100M -p 1% --threads 1 -o $OUT/b.bf" \
    "zstdcat $V.zst | $MIN standard /dev/stdin 100000000 0.01" \
    "zstdcat $V.zst | wc -l"
fi
