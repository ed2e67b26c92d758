#!/usr/bin/env bash
# Times several bloomtool binaries on the same command in turn, round after round (binary 1, 2,
# ..., then 1 again), so that a machine whose speed drifts during the run slows them alike; prints
# each binary's median, minimum and maximum wall-clock seconds and the ratio of each median to the
# last binary's. Output goes to /dev/null; a binary that fails stops the run.
#
#   bench/alternate.sh ROUNDS BINARY... -- ARGUMENTS...
#
# e.g. the code a change started from against the change, on 2 threads:
#   bench/alternate.sh 15 /tmp/old/bloomtool build/release/apps/bloomtool/bloomtool -- \
#       xor-build -q --threads 2 -o /tmp/x.bxf bench/data/urls-10m.txt
set -euo pipefail
[ $# -ge 4 ] || { echo "usage: $0 ROUNDS BINARY... -- ARGUMENTS..." >&2; exit 2; }
rounds=$1
shift
bins=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
  bins+=("$1")
  shift
done
if [ "${1:-}" != "--" ] || [ ${#bins[@]} -eq 0 ]; then
  echo "usage: $0 ROUNDS BINARY... -- ARGUMENTS..." >&2
  exit 2
fi
shift
times=$(mktemp)
trap 'rm -f "$times"' EXIT
echo "== $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%Y-%m-%dT%H:%M:%SZ)"
for ((r = 0; r < rounds; r++)); do
  for i in "${!bins[@]}"; do
    start=$(date +%s%N)
    "${bins[$i]}" "$@" >/dev/null 2>&1 || { echo "bench: failed: ${bins[$i]} $*" >&2; exit 1; }
    end=$(date +%s%N)
    echo "$i $(((end - start) / 1000))" >>"$times"
  done
done
echo "== load average after $(cut -d' ' -f1-3 /proc/loadavg); $rounds rounds of: $*"
last=$((${#bins[@]} - 1))
median() { awk -v b="$1" '$1 == b {print $2}' "$times" | sort -n |
  awk '{a[NR] = $1} END {print (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2) / 1e6}'; }
ref=$(median "$last")
for i in "${!bins[@]}"; do
  m=$(median "$i")
  awk -v b="$i" '$1 == b {print $2}' "$times" | sort -n |
    awk -v name="${bins[$i]}" -v m="$m" -v ref="$ref" \
      '{a[NR] = $1} END {printf "%s: median %.3f s, min %.3f, max %.3f (%.2fx the last)\n", name, m, a[1] / 1e6, a[NR] / 1e6, m / ref}'
done
