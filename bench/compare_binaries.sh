#!/usr/bin/env bash
# Times two bloomtool binaries side by side on the same data (the before/after table of a change
# in docs/PERFORMANCE.md) and checks that they write the same filter payloads.
#
#   bench/compare_binaries.sh OLD_BINARY NEW_BINARY     (RUNS=5 by default)
#
# Queries: a zstd file, a raw (chunk-read) file and a Guava file, 1M non-members each.
# Data: 10M URL-like keys and 1M non-members from gen_keys (kept in bench/data/). Needs hyperfine.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -eq 2 ] || { echo "usage: $0 OLD_BINARY NEW_BINARY" >&2; exit 2; }
OLD=$(realpath "$1")
NEW=$(realpath "$2")
RUNS=${RUNS:-5}
command -v hyperfine >/dev/null || { echo "bench: hyperfine is missing (apt-get install hyperfine)" >&2; exit 2; }
cmake --preset release >/dev/null
cmake --build --preset release -j2 --target gen_keys >/dev/null
GEN=$PWD/build/release/bench/gen_keys
DATA=$PWD/bench/data
mkdir -p "$DATA"
[ -f "$DATA/urls-10m.txt" ] || "$GEN" urls 10000000 1 >"$DATA/urls-10m.txt"
[ -f "$DATA/nonmembers-1m.txt" ] || "$GEN" nonmembers 1000000 2 >"$DATA/nonmembers-1m.txt"
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
cat "$DATA/urls-10m.txt" "$DATA/nonmembers-1m.txt" >/dev/null  # into the page cache
U=$DATA/urls-10m.txt

# The same payloads (the header differs in the tool version only, with a fixed creation time).
export SOURCE_DATE_EPOCH=1700000000
for kind in "build -n 10M -p 1%" "build --variant blocked -n 10M -p 1%" "build -p 1%" "xor-build"; do
  # shellcheck disable=SC2086
  "$OLD" $kind -q -o "$OUT/old.bf" "$U"
  # shellcheck disable=SC2086
  "$NEW" $kind -q -o "$OUT/new.bf" "$U"
  if cmp -s <(tail -c +200 "$OUT/old.bf") <(tail -c +200 "$OUT/new.bf"); then
    echo "same payload: $kind"
  else
    echo "DIFFERENT payload: $kind"
  fi
done
"$NEW" build -q -n 10M -p 1% -o "$OUT/q.bf" "$U"
"$NEW" build -q -n 10M -p 1% --codec raw -o "$OUT/q-raw.bf" "$U"
"$NEW" build -q -n 10M -p 1% --compat guava -o "$OUT/q.guava" "$U"

args=()
for cmd in "build -q --no-measure -n 10M -p 1% -o $OUT/x.bf $U" \
           "build -q --no-measure --variant blocked -n 10M -p 1% -o $OUT/x.bf $U" \
           "build -q --no-measure -p 1% -o $OUT/x.bf $U" \
           "query $OUT/q.bf --count $DATA/nonmembers-1m.txt" \
           "query $OUT/q-raw.bf --count $DATA/nonmembers-1m.txt" \
           "query --from guava $OUT/q.guava --count $DATA/nonmembers-1m.txt" \
           "xor-build -q --no-measure -o $OUT/x.bxf $U"; do
  args+=("$OLD $cmd" "$NEW $cmd")
done
hyperfine -N -w 1 -r "$RUNS" -i --export-markdown "$OUT/table.md" "${args[@]}" >/dev/null
cat "$OUT/table.md"
