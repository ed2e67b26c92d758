#!/usr/bin/env bash
# Input throughput of `bloomtool build` for the same keys as plain lines, as NDJSON records (the
# key in a nested field among others) and as TSV (the key in column 3): MB/s of input and keys/s,
# median of R runs on files in the page cache, next to `wc -l` on the same files. It ends by
# checking that the three inputs give the same filter payload.
#
#   bench/ndjson_bench.sh [BLOOMTOOL] [KEYS] [RUNS]
#   default: build/release/apps/bloomtool/bloomtool, 2000000 keys, 5 runs
set -euo pipefail
BT=${1:-build/release/apps/bloomtool/bloomtool}
N=${2:-2000000}
R=${3:-5}
BT=$(realpath "$BT")
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir"

# URL-like keys of about 60 bytes, and the same keys wrapped two ways.
awk -v n="$N" 'BEGIN { srand(7); for (i = 0; i < n; i++)
  printf "https://www%d.example-%d.com/path/%08x/item?id=%d\n", i % 97, i % 1013, int(rand() * 4294967295), i }' >keys.txt
awk '{ printf "{\"ts\":%d,\"user\":{\"id\":%d,\"url\":\"%s\",\"tags\":[\"a\",\"b\"]},\"ok\":true}\n", 1700000000 + NR, NR, $0 }' \
  keys.txt >keys.ndjson
awk '{ printf "2024-01-01T00:00:%02d\tGET\t%s\t200\t%d\n", NR % 60, $0, NR }' keys.txt >keys.tsv

median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
# time_runs CMD...: "wall cpu", the medians over R runs (after one warm-up run) of the wall-clock
# seconds and of the CPU seconds (user + system). The machine may be shared: CPU time is the
# steadier figure then.
time_runs() {
  "$@" >/dev/null 2>&1
  local TIMEFORMAT='%R %U %S' runs
  runs=$(for _ in $(seq "$R"); do { time "$@" >/dev/null 2>&1; } 2>&1; done)
  echo "$(awk '{ print $1 }' <<<"$runs" | median) $(awk '{ print $2 + $3 }' <<<"$runs" | median)"
}

printf '%s keys, %s runs each, medians; %s, %s cores, %s; load average %s\n' "$N" "$R" \
  "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')" "$(nproc)" "$(date -u +%F)" \
  "$(cut -d' ' -f1-3 /proc/loadavg)"
printf '| input | MB | wc -l wall s | build wall s | build CPU s | MB/s (CPU) | Mkeys/s (CPU) |\n'
printf '|---|---:|---:|---:|---:|---:|---:|\n'
row() {
  local name=$1 file=$2; shift 2
  local bytes wc bt
  bytes=$(stat -c %s "$file")
  wc=$(time_runs wc -l "$file")
  bt=$(time_runs "$BT" build -q -n "$N" -p 1% -o out.bf "$@" "$file")
  awk -v n="$name" -v b="$bytes" -v w="${wc%% *}" -v t="${bt%% *}" -v c="${bt##* }" -v k="$N" \
    'BEGIN { printf "| %s | %.1f | %.3f | %.3f | %.3f | %.0f | %.2f |\n", n, b / 1e6, w, t, c, b / c / 1e6, k / c / 1e6 }'
}
row "lines" keys.txt
row "ndjson --field /user/url" keys.ndjson --field /user/url
row "tsv --column 3" keys.tsv --input-format tsv --column 3

# The three inputs hold the same keys: the filter payloads (after the header, which records the
# input options) must be byte-identical.
"$BT" build -q -n "$N" -o a.bf keys.txt
"$BT" build -q -n "$N" -o b.bf --field /user/url keys.ndjson
"$BT" build -q -n "$N" -o c.bf --input-format tsv --column 3 keys.tsv
payload() { tail -c +$(($(od -An -tu4 -j12 -N4 "$1") + 1)) "$1"; }
if cmp -s <(payload a.bf) <(payload b.bf) && cmp -s <(payload a.bf) <(payload c.bf); then
  echo "same filter payload from all three inputs"
else
  echo "the filter payloads differ" >&2
  exit 1
fi
