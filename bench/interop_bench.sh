#!/usr/bin/env bash
# build --compat against the peers themselves: bloomtool's Guava- and DCSO-compatible builds of
# 10M URL-like keys next to Guava (BloomFilter.create + put + writeTo, bench/peers/GuavaBuild.java)
# and DCSO's `bloom create`, in the same run; the bytes must be identical (checked, not assumed).
# Also the query side: `query --from guava|dcso` and `bloom check` on 1M non-members, next to a
# bloomtool (XXH3) filter.
#
#   bench/interop_bench.sh           RUNS=3 by default; BENCH_DATA=dir to reuse generated keys
#
# Needs hyperfine, jq, libguava-java + a JDK, golang-github-dcso-bloom-cli. Prints a Markdown
# table and the ratios, with the machine's load average (other work running skews absolute times;
# the ratios come from the same run).
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-3}
JAR=${GUAVA_JAR:-/usr/share/java/guava.jar}
for tool in hyperfine jq javac java bloom; do
  command -v "$tool" >/dev/null || { echo "interop_bench: $tool is missing" >&2; exit 2; }
done
[ -r "$JAR" ] || { echo "interop_bench: $JAR is missing (apt-get install libguava-java)" >&2; exit 2; }
cmake --preset release >/dev/null
cmake --build --preset release -j2 >/dev/null
BT=$PWD/build/release/apps/bloomtool/bloomtool
GEN=$PWD/build/release/bench/gen_keys
DATA=${BENCH_DATA:-$PWD/bench/data}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
mkdir -p "$DATA" bench/results
[ -s "$DATA/urls-10m.txt" ] || "$GEN" urls 10000000 1 >"$DATA/urls-10m.txt"
[ -s "$DATA/nonmembers-1m.txt" ] || "$GEN" nonmembers 1000000 7 >"$DATA/nonmembers-1m.txt"
U=$DATA/urls-10m.txt
NM=$DATA/nonmembers-1m.txt
cat "$U" "$NM" >/dev/null  # page cache
javac -d "$T" -cp "$JAR" bench/peers/GuavaBuild.java

declare -A MEDIAN
ROWS=()
measure() {  # measure NAME COMMAND
  hyperfine --runs "$RUNS" --warmup 1 --style none --export-json "$T/h.json" "$2" >/dev/null 2>&1 ||
    { echo "interop_bench: failed: $2" >&2; return 1; }
  MEDIAN[$1]=$(jq '.results[0].median' "$T/h.json")
  ROWS+=("| $1 | $(printf '%.3f' "${MEDIAN[$1]}") |")
}
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
measure "Guava create + put + writeTo (java)" "java -cp $JAR:$T GuavaBuild 10000000 0.01 $U $T/guava.bin"
measure "bloomtool build --compat guava" "$BT build -q --no-measure --compat guava -n 10M -p 1% -o $T/ours.bin $U"
measure "bloomtool build --compat guava, 1 thread" "$BT build -q --no-measure --threads 1 --compat guava -n 10M -p 1% -o $T/ours1.bin $U"
measure "DCSO bloom create" "bloom create -n 10000000 -p 0.01 $T/dcso.bloom < $U"
measure "bloomtool build --compat dcso" "$BT build -q --no-measure --compat dcso -n 10M -p 1% -o $T/ours.bloom $U"
measure "bloomtool build --compat dcso, 1 thread" "$BT build -q --no-measure --threads 1 --compat dcso -n 10M -p 1% -o $T/ours1.bloom $U"
measure "bloomtool build (XXH3 standard)" "$BT build -q --no-measure -n 10M -p 1% -o $T/own.bf $U"
measure "DCSO bloom check, 1M non-members" "bloom check $T/dcso.bloom < $NM"
measure "bloomtool query --from dcso, 1M non-members" "$BT query --from dcso -c $T/dcso.bloom $NM"
measure "bloomtool query --from guava, 1M non-members" "$BT query --from guava -c $T/guava.bin $NM"
measure "bloomtool query (XXH3 standard), 1M non-members" "$BT query -c $T/own.bf $NM"
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
same() { cmp -s "$1" "$2" && echo identical || echo DIFFERENT; }
ratio() { awk -v a="${MEDIAN[$1]}" -v b="${MEDIAN[$2]}" 'BEGIN{printf "%.1f", a/b}'; }
{
  echo "Machine: $(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) cores; load average before $load_before, after $load_after; $(date -u +%Y-%m-%dT%H:%MZ)"
  echo "Command: RUNS=$RUNS bench/interop_bench.sh (medians; 10M URL keys, inputs in page cache)"
  echo
  echo "| command | median s |"
  echo "|---|---:|"
  printf '%s\n' "${ROWS[@]}"
  echo
  echo "| ratio | value |"
  echo "|---|---:|"
  echo "| Guava / build --compat guava | $(ratio "Guava create + put + writeTo (java)" "bloomtool build --compat guava") |"
  echo "| bloom create / build --compat dcso | $(ratio "DCSO bloom create" "bloomtool build --compat dcso") |"
  echo "| bloom check / query --from dcso | $(ratio "DCSO bloom check, 1M non-members" "bloomtool query --from dcso, 1M non-members") |"
  echo "| build --compat guava / XXH3 build | $(ratio "bloomtool build --compat guava" "bloomtool build (XXH3 standard)") |"
  echo "| query --from guava / XXH3 query | $(ratio "bloomtool query --from guava, 1M non-members" "bloomtool query (XXH3 standard), 1M non-members") |"
  echo
  echo "Bytes: build --compat guava vs Guava: $(same "$T/ours.bin" "$T/guava.bin"); build --compat dcso vs bloom create: $(same "$T/ours.bloom" "$T/dcso.bloom"); 1 thread vs 2: $(same "$T/ours1.bin" "$T/ours.bin"), $(same "$T/ours1.bloom" "$T/ours.bloom")"
} | tee "bench/results/interop-$(date -u +%Y-%m-%d).md"
