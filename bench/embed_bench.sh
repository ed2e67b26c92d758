#!/usr/bin/env bash
# In-process query speed, the figures of docs/PERFORMANCE.md "Embedded queries":
#   bench/embed_bench.sh [REPS]        (default 7 repetitions per figure; medians are reported)
# One thread each. Filters of 100,000 phone numbers at p = 1% (about 120 KiB: in cache) and, for
# contrast, of 10,000,000 (about 12 MiB); 1,000,000 queries of which the first 100,000 are members.
#   C       bench/embed_bench.c: bloomtool_contains_many over all keys (keys/s), and
#           bloomtool_contains key by key (ns/key)
#   Python  bench/embed_bench.py: f.contains_many(bytes keys), (str keys), and `key in f`
#   peers   Guava's BloomFilter.mightContain (Java, bench/peers/GuavaEmbed.java) and DCSO's
#           bloom.Check (Go, bench/peers/dcso_embed.go) in their own processes, same keys, n, p,
#           when libguava-java + default-jdk-headless / golang-github-dcso-bloom-dev are installed
# Rates are per CPU-second of the querying thread (its CPU time, so that other work on a shared
# machine does not count as ours), with wall-clock rates beside them. Prints a Markdown table and
# the machine's load before and after; the ratios of one run are what to quote.
set -euo pipefail
cd "$(dirname "$0")/.."
REPS=${1:-7}
cmake --preset release >/dev/null
cmake --build --preset release -j2 --target bloomtool gen_keys embed_bench bloomtool_c >/dev/null
B=$PWD/build/release
BT=$B/apps/bloomtool/bloomtool
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT

"$B/bench/gen_keys" phones 100000 >"$W/members-100k.txt"
"$B/bench/gen_keys" phones 1000000 >"$W/queries.txt"
"$BT" build -q -n 100000 -p 1% -o "$W/std-100k.bf" "$W/members-100k.txt"
"$BT" build -q -n 100000 -p 1% --variant blocked -o "$W/blocked-100k.bf" "$W/members-100k.txt"
"$BT" xor-build -q -f 8 -o "$W/fuse8-100k.bf" "$W/members-100k.txt"
"$B/bench/gen_keys" phones 10000000 | "$BT" build -q -n 10M -p 1% -o "$W/std-10m.bf" -

field() { sed -n "s/.*\\b$1=\\([^ ]*\\).*/\\1/p" <<<"$2"; }
mks() { awk -v x="$1" 'BEGIN{printf "%.1f", x / 1e6}'; }
ns() { awk -v x="$1" 'BEGIN{printf "%.0f", 1e9 / x}'; }
row() {  # row PATH FILTER CPU_KEYS_PER_S WALL_KEYS_PER_S
  rows+=("| $1 | $2 | $(mks "$3") | $(ns "$3") | $(mks "$4") |")
}
rows=()
echo "load before: $(uptime | sed 's/.*load average: //')" >&2
for f in std-100k blocked-100k fuse8-100k std-10m; do
  out=$("$B/bench/embed_bench" "$W/$f.bf" "$W/queries.txt" "$REPS")
  row "C \`bloomtool_contains_many\`" "$f" "$(field batch_keys_per_s "$out")" "$(field batch_wall_keys_per_s "$out")"
  row "C \`bloomtool_contains\`, key by key" "$f" "$(awk -v n="$(field single_ns "$out")" 'BEGIN{print 1e9 / n}')" \
    "$(awk -v n="$(field single_wall_ns "$out")" 'BEGIN{print 1e9 / n}')"
done
for f in std-100k std-10m; do
  out=$(BLOOMTOOL_LIBRARY=$B/lib/libbloomtool.so PYTHONPATH=$PWD/python python3 bench/embed_bench.py "$W/$f.bf" "$W/queries.txt" "$REPS")
  for kind in bytes str; do
    row "Python \`contains_many\` ($kind keys)" "$f" "$(field contains_many_${kind}_keys_per_s "$out")" \
      "$(field contains_many_${kind}_wall_keys_per_s "$out")"
  done
  row "Python \`key in f\`" "$f" "$(awk -v n="$(field in_ns "$out")" 'BEGIN{print 1e9 / n}')" \
    "$(awk -v n="$(field in_wall_ns "$out")" 'BEGIN{print 1e9 / n}')"
done
[ -s "$W/members-10m.txt" ] || "$B/bench/gen_keys" phones 10000000 >"$W/members-10m.txt"
if [ -f /usr/share/java/guava.jar ] && command -v javac >/dev/null; then
  javac -d "$W" -cp /usr/share/java/guava.jar bench/peers/GuavaEmbed.java
  for n in 100k 10m; do
    count=$([ $n = 100k ] && echo 100000 || echo 10000000)
    out=$(java -cp "/usr/share/java/guava.jar:$W" GuavaEmbed "$W/members-$n.txt" $count 0.01 "$W/queries.txt" "$REPS")
    row "Guava \`mightContain\` (Java, String keys), key by key" "std-$n" "$(field keys_per_s "$out")" "$(field wall_keys_per_s "$out")"
  done
else
  echo "embed_bench: Guava not measured (apt-get install libguava-java default-jdk-headless)" >&2
fi
if [ -d /usr/share/gocode/src/github.com/DCSO/bloom ] && command -v go >/dev/null; then
  (cd bench/peers && GOPATH=/usr/share/gocode GO111MODULE=off GOCACHE=$W/gocache go build -o "$W/dcso_embed" dcso_embed.go)
  for n in 100k 10m; do
    count=$([ $n = 100k ] && echo 100000 || echo 10000000)
    out=$("$W/dcso_embed" "$W/members-$n.txt" $count 0.01 "$W/queries.txt" "$REPS")
    row "DCSO \`Check\` (Go, []byte keys), key by key" "std-$n" "$(field keys_per_s "$out")" "$(field wall_keys_per_s "$out")"
  done
else
  echo "embed_bench: DCSO not measured (apt-get install golang-github-dcso-bloom-dev)" >&2
fi
echo "load after: $(uptime | sed 's/.*load average: //')" >&2
echo "| query path | filter | M keys/s (CPU time) | ns/key (CPU time) | M keys/s (wall clock) |"
echo "|---|---|---|---|---|"
printf '%s\n' "${rows[@]}"
