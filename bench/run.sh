#!/usr/bin/env bash
# The benchmark harness behind every performance figure in docs/PERFORMANCE.md and the README.
#
#   bench/run.sh            10M URL-like keys, 10M phone numbers, 1M non-members
#   bench/run.sh --100m     also 100M URL-like keys (about 6 GiB of input)
#   RUNS=5 bench/run.sh     repetitions per command (default 5; medians are reported)
#
# It builds the release preset, generates the data sets into bench/data/ (kept between runs),
# warms the page cache, times bloomtool and every peer it finds installed (Debian:
# golang-github-dcso-bloom-cli's `bloom`, libbloom-dev through bench/peers/libbloom_driver.c)
# with hyperfine, measures peak RSS with /usr/bin/time, and prints a Markdown table (also saved
# under bench/results/).
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-5}
BIG=0
[ "${1:-}" = "--100m" ] && BIG=1

for tool in hyperfine jq /usr/bin/time; do
  command -v "$tool" >/dev/null || { echo "bench: $tool is missing (apt-get install hyperfine jq time)" >&2; exit 2; }
done
cmake --preset release >/dev/null
cmake --build --preset release -j2 >/dev/null
BT=$PWD/build/release/apps/bloomtool/bloomtool
GEN=$PWD/build/release/bench/gen_keys
LIBBLOOM=$PWD/build/release/bench/libbloom_driver
MINIMAL=$PWD/build/release/bench/minimal_build
DATA=$PWD/bench/data
OUTDIR=$(mktemp -d)
trap 'rm -rf "$OUTDIR"' EXIT
mkdir -p "$DATA" bench/results

gen() {  # gen NAME KIND COUNT SEED
  [ -s "$DATA/$1" ] || "$GEN" "$2" "$3" "$4" >"$DATA/$1"
}
gen urls-10m.txt urls 10000000 1
gen phones-10m.txt phones 10000000 1
gen nonmembers-1m.txt nonmembers 1000000 7
[ $BIG -eq 1 ] && gen urls-100m.txt urls 100000000 1
cat "$DATA"/*.txt >/dev/null  # page cache

LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
ROWS=()
declare -A MEDIAN
# measure NAME KEYS COMMAND: median seconds over RUNS runs, and peak RSS from one more run.
measure() {
  local name=$1 keys=$2 cmd=$3
  hyperfine --runs "$RUNS" --warmup 1 --style none --export-json "$OUTDIR/h.json" "$cmd" >/dev/null 2>&1 ||
    { echo "bench: failed: $cmd" >&2; return 0; }
  local med rss
  med=$(jq '.results[0].median' "$OUTDIR/h.json")
  /usr/bin/time -o "$OUTDIR/rss" -f '%M' bash -c "$cmd" >/dev/null 2>&1 || true
  rss=$(tail -1 "$OUTDIR/rss")
  MEDIAN[$name]=$med
  local nskey
  nskey=$(awk -v t="$med" -v n="$keys" 'BEGIN{ if (n > 0) printf "%.1f", t * 1e9 / n; else print "-" }')
  ROWS+=("| $name | $(printf '%.3f' "$med") | $nskey | $(awk -v k="$rss" 'BEGIN{printf "%.1f", k/1024}') |")
}

U=$DATA/urls-10m.txt
P=$DATA/phones-10m.txt
NM=$DATA/nonmembers-1m.txt
T=$OUTDIR
threads=$(nproc)

measure "wc -l, 10M URLs" 10000000 "wc -l $U"
# The one-thread yardstick: read, split, hash, insert and nothing else (bench/minimal_build.cpp).
measure "minimal loop standard -n 10M -p 1% (1 thread)" 10000000 "$MINIMAL standard $U 10000000 0.01"
measure "minimal loop blocked -n 10M -p 1% (1 thread)" 10000000 "$MINIMAL blocked $U 10000000 0.01"
# What two cores give the same work split with nothing shared: two minimal loops at once, each on
# half the lines at half the n (the same total filter size).
split -n l/2 -d "$U" "$T/half"
cat "$T/half00" "$T/half01" >/dev/null
for v in standard blocked; do
  measure "two minimal loops $v at once, each on half the keys" 10000000 \
    "bash -c '$MINIMAL $v $T/half00 5000000 0.01 & a=\$!; $MINIMAL $v $T/half01 5000000 0.01 && wait \$a'"
done
measure "bloomtool build standard -n 10M -p 1%, 1 thread" 10000000 "$BT build -q --threads 1 -n 10M -p 1% -o $T/s1.bf $U"
measure "bloomtool build standard -n 10M -p 1%, 2 threads" 10000000 "$BT build -q --threads 2 -n 10M -p 1% -o $T/s2.bf $U"
measure "bloomtool build blocked -n 10M -p 1%, 1 thread" 10000000 "$BT build -q --threads 1 --variant blocked -n 10M -p 1% -o $T/b1.bf $U"
measure "bloomtool build blocked -n 10M -p 1%, 2 threads" 10000000 "$BT build -q --threads 2 --variant blocked -n 10M -p 1% -o $T/b2.bf $U"
if [ "$threads" -gt 2 ]; then
  measure "bloomtool build standard -n 10M -p 1%, $threads threads" 10000000 "$BT build -q -n 10M -p 1% -o $T/s.bf $U"
  measure "bloomtool build blocked -n 10M -p 1%, $threads threads" 10000000 "$BT build -q --variant blocked -n 10M -p 1% -o $T/b.bf $U"
fi
measure "bloomtool build standard -p 1% (no -n: exact sizing)" 10000000 "$BT build -q -p 1% -o $T/x.bf $U"
if "$BT" xor-build --help >/dev/null 2>&1; then
  measure "bloomtool xor-build fuse8" 10000000 "$BT xor-build -q -o $T/f8.bf $U"
fi
if command -v bloom >/dev/null; then
  measure "DCSO bloom create -n 10M -p 0.01" 10000000 "bloom create -n 10000000 -p 0.01 $T/dcso.bloom < $U"
fi
if [ -x "$LIBBLOOM" ]; then
  measure "libbloom build (C driver)" 10000000 "$LIBBLOOM build 10000000 0.01 $T/lb.bits < $U"
fi
measure "wc -l, 10M phone numbers" 10000000 "wc -l $P"
measure "bloomtool build standard -n 10M -p 1%, phones" 10000000 "$BT build -q -n 10M -p 1% -o $T/p.bf $P"
measure "bloomtool build blocked -n 10M -p 1%, phones" 10000000 "$BT build -q --variant blocked -n 10M -p 1% -o $T/pb.bf $P"

# Queries: 1M non-members against the 10M-key filters.
"$BT" build -q -n 10M -p 1% -o "$T/q.bf" "$U"
"$BT" build -q --variant blocked -n 10M -p 1% -o "$T/qb.bf" "$U"
measure "bloomtool query standard, 1M non-members" 1000000 "$BT query $T/q.bf --count $NM"
measure "bloomtool query blocked, 1M non-members" 1000000 "$BT query $T/qb.bf --count $NM"
if command -v bloom >/dev/null; then
  bloom create -n 10000000 -p 0.01 "$T/qd.bloom" <"$U"
  measure "DCSO bloom check, 1M non-members" 1000000 "bloom check $T/qd.bloom < $NM"
fi
if [ -x "$LIBBLOOM" ]; then
  "$LIBBLOOM" build 10000000 0.01 "$T/ql.bits" <"$U"
  measure "libbloom check (C driver), 1M non-members" 1000000 "$LIBBLOOM query 10000000 0.01 $T/ql.bits < $NM"
fi
if [ $BIG -eq 1 ]; then
  H=$DATA/urls-100m.txt
  measure "wc -l, 100M URLs" 100000000 "wc -l $H"
  measure "minimal loop standard -n 100M -p 1%, 100M URLs" 100000000 "$MINIMAL standard $H 100000000 0.01"
  measure "minimal loop blocked -n 100M -p 1%, 100M URLs" 100000000 "$MINIMAL blocked $H 100000000 0.01"
  measure "bloomtool build standard -n 100M -p 1%, 100M URLs, 1 thread" 100000000 "$BT build -q --threads 1 -n 100M -p 1% -o $T/big.bf $H"
  measure "bloomtool build standard -n 100M -p 1%, 100M URLs, 2 threads" 100000000 "$BT build -q --threads 2 -n 100M -p 1% -o $T/big.bf $H"
  measure "bloomtool build blocked -n 100M -p 1%, 100M URLs, 1 thread" 100000000 "$BT build -q --threads 1 --variant blocked -n 100M -p 1% -o $T/bigb.bf $H"
  measure "bloomtool build blocked -n 100M -p 1%, 100M URLs, 2 threads" 100000000 "$BT build -q --threads 2 --variant blocked -n 100M -p 1% -o $T/bigb.bf $H"
fi

ratio() {  # ratio A B: MEDIAN[A] / MEDIAN[B]
  local a=${MEDIAN[$1]:-} b=${MEDIAN[$2]:-}
  [ -n "$a" ] && [ -n "$b" ] && awk -v a="$a" -v b="$b" 'BEGIN{printf "%.2f", a/b}' || echo "n/a"
}

report=bench/results/$(date -u +%Y-%m-%d).md
{
  echo "Machine: $(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB; $(uname -r); $(date -u +%Y-%m-%dT%H:%MZ)"
  echo "Command: RUNS=$RUNS bench/run.sh $*  (medians of $RUNS runs, inputs in page cache)"
  echo "Load average before: $LOAD_BEFORE; after: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo
  echo "| command | median s | ns/key | peak RSS MiB |"
  echo "|---|---:|---:|---:|"
  printf '%s\n' "${ROWS[@]}"
  echo
  S="bloomtool build standard -n 10M -p 1%, 2 threads"
  B="bloomtool build blocked -n 10M -p 1%, 2 threads"
  S1="bloomtool build standard -n 10M -p 1%, 1 thread"
  B1="bloomtool build blocked -n 10M -p 1%, 1 thread"
  echo "| ratio | value |"
  echo "|---|---:|"
  echo "| libbloom build / bloomtool standard build, 2 threads | $(ratio "libbloom build (C driver)" "$S") |"
  echo "| DCSO build / bloomtool standard build, 2 threads | $(ratio "DCSO bloom create -n 10M -p 0.01" "$S") |"
  echo "| libbloom build / bloomtool blocked build, 2 threads | $(ratio "libbloom build (C driver)" "$B") |"
  echo "| DCSO build / bloomtool blocked build, 2 threads | $(ratio "DCSO bloom create -n 10M -p 0.01" "$B") |"
  echo "| bloomtool standard build / wc -l | $(ratio "$S" "wc -l, 10M URLs") |"
  echo "| bloomtool blocked build / wc -l | $(ratio "$B" "wc -l, 10M URLs") |"
  echo "| 1 thread / 2 threads, standard build | $(ratio "$S1" "$S") |"
  echo "| 1 thread / 2 threads, blocked build | $(ratio "$B1" "$B") |"
  echo "| minimal loop / two at once on halves, standard | $(ratio "minimal loop standard -n 10M -p 1% (1 thread)" "two minimal loops standard at once, each on half the keys") |"
  echo "| minimal loop / two at once on halves, blocked | $(ratio "minimal loop blocked -n 10M -p 1% (1 thread)" "two minimal loops blocked at once, each on half the keys") |"
  echo "| bloomtool 1 thread / minimal loop, standard | $(ratio "$S1" "minimal loop standard -n 10M -p 1% (1 thread)") |"
  echo "| bloomtool 1 thread / minimal loop, blocked | $(ratio "$B1" "minimal loop blocked -n 10M -p 1% (1 thread)") |"
  echo "| libbloom query / bloomtool query (standard) | $(ratio "libbloom check (C driver), 1M non-members" "bloomtool query standard, 1M non-members") |"
  echo "| DCSO query / bloomtool query (standard) | $(ratio "DCSO bloom check, 1M non-members" "bloomtool query standard, 1M non-members") |"
  if [ $BIG -eq 1 ]; then
    BS="bloomtool build standard -n 100M -p 1%, 100M URLs"
    BB="bloomtool build blocked -n 100M -p 1%, 100M URLs"
    echo "| 100M: 1 thread / 2 threads, standard build | $(ratio "$BS, 1 thread" "$BS, 2 threads") |"
    echo "| 100M: 1 thread / 2 threads, blocked build | $(ratio "$BB, 1 thread" "$BB, 2 threads") |"
    echo "| 100M: bloomtool 1 thread / minimal loop, standard | $(ratio "$BS, 1 thread" "minimal loop standard -n 100M -p 1%, 100M URLs") |"
    echo "| 100M: bloomtool 1 thread / minimal loop, blocked | $(ratio "$BB, 1 thread" "minimal loop blocked -n 100M -p 1%, 100M URLs") |"
    echo "| ns/key 100M / 10M, standard, 2 threads | $(awk -v a="${MEDIAN["$BS, 2 threads"]}" -v b="${MEDIAN[$S]}" 'BEGIN{printf "%.2f", (a/100)/(b/10)}') |"
  fi
  echo
  echo "File sizes: standard $(stat -c %s "$T/q.bf") B, blocked $(stat -c %s "$T/qb.bf") B$( [ -f "$T/qd.bloom" ] && echo ", DCSO $(stat -c %s "$T/qd.bloom") B")$( [ -f "$T/ql.bits" ] && echo ", libbloom raw bits $(stat -c %s "$T/ql.bits") B")$( [ -f "$T/f8.bf" ] && echo ", fuse8 $(stat -c %s "$T/f8.bf") B")"
} | tee "$report"
