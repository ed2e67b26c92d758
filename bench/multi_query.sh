#!/usr/bin/env bash
# Seven daily filters queried at once against querying each alone (docs/PERFORMANCE.md, "Several
# filters at once"): first checks that `query d1.bf ... d7.bf -- keys` (any, --all, --absent) gives
# exactly the records that the seven separate queries combined with sort/comm give, then times
# the one multi-filter query against the seven separate queries run one after the other.
#
#   bench/multi_query.sh [BLOOMTOOL]     (RUNS=5, KEYS=1000000 by default)
#
# Data: 3.2M URL-like keys from gen_keys; day d holds keys (d-1)*200k+1 .. (d-1)*200k+2M (sliding
# windows: keys 1.2M-2M are in every day);
# the KEYS queried are half members spread over the days, half non-members. The dailies are four
# standard Bloom filters, a blocked one, a binary fuse and an xor filter, at 1% and 8 bits. Needs
# hyperfine.
set -euo pipefail
cd "$(dirname "$0")/.."
BT=$(realpath "${1:-build/release/apps/bloomtool/bloomtool}")
RUNS=${RUNS:-5}
KEYS=${KEYS:-1000000}
command -v hyperfine >/dev/null || { echo "bench: hyperfine is missing (apt-get install hyperfine)" >&2; exit 2; }
cmake --preset release >/dev/null
cmake --build --preset release -j2 --target gen_keys >/dev/null
GEN=$PWD/build/release/bench/gen_keys
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
cd "$W"

"$GEN" urls 3200000 11 >all.txt
"$GEN" nonmembers $((KEYS / 2)) 12 >strangers.txt
{ awk -v n=$((KEYS / 2)) 'NR % int(3200000 / n) == 0 { print; if (++c == n) exit }' all.txt
  cat strangers.txt; } | shuf --random-source=<(yes 2>/dev/null || true) >keys.txt
[ "$(wc -l <keys.txt)" -eq "$KEYS" ] || { echo "bench: expected $KEYS keys" >&2; exit 2; }
kinds=("build -p 1%" "build -p 1%" "build -p 1%" "build -p 1%" "build -p 1% --variant blocked"
       "xor-build" "xor-build --layout xor")
F=()
for d in 1 2 3 4 5 6 7; do
  awk -v from=$((d * 200000 - 200000 + 1)) 'NR >= from { print } NR == from + 1999999 { exit }' \
    all.txt >day.txt
  # shellcheck disable=SC2086
  "$BT" ${kinds[d - 1]} -q -o d$d.bf day.txt
  F+=(d$d.bf)
done
rm -f day.txt all.txt

# Identical results: each filter alone, combined with sort/comm, against one query of all seven.
sort keys.txt >keys.sorted
for f in "${F[@]}"; do { "$BT" query "$f" keys.txt || [ $? -eq 1 ]; } | sort >"$f.sorted"; done
sort -u ./*.bf.sorted >any.expected
cp d1.bf.sorted all.expected
for f in "${F[@]:1}"; do comm -12 all.expected "$f.sorted" >t && mv t all.expected; done
comm -23 keys.sorted any.expected >none.expected
check() {  # EXPECTED ARGS...
  local expected=$1
  shift
  if { "$BT" query "${F[@]}" "$@" -- keys.txt || [ $? -eq 1 ]; } | sort | cmp -s - "$expected"; then
    echo "identical: query ${F[*]} $* -- keys.txt ($(wc -l <"$expected") records)"
  else
    echo "DIFFERENT: query ${F[*]} $* -- keys.txt" >&2
    exit 1
  fi
}
check any.expected
check all.expected --all
check none.expected --absent

echo "load before timing: $(uptime)"
hyperfine -N -w 1 -r "$RUNS" --export-markdown table.md \
  -n "one query, 7 filters" "$BT query ${F[*]} -- keys.txt" \
  -n "one query, 7 filters, --which" "$BT query --which ${F[*]} -- keys.txt" \
  -n "7 separate queries" "bash -c 'for f in ${F[*]}; do $BT query \$f keys.txt >/dev/null; done'" \
  -n "one query, 1 filter (d1)" "$BT query d1.bf keys.txt" >/dev/null
echo "load after timing: $(uptime)"
cat table.md
