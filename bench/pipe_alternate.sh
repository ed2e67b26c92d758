#!/usr/bin/env bash
# Times shell commands (pipelines included) in turn, round after round (command 1, 2, ..., then 1
# again), so that a machine whose speed drifts slows them alike; prints each command's median,
# minimum and maximum wall-clock seconds and the median of its per-round ratios to the last
# command (min-max after it). Output goes to /dev/null; a command that
# fails stops the run. Peak RSS of each command's processes: see bench/pipe_bench.sh.
#
#   bench/pipe_alternate.sh ROUNDS 'COMMAND 1' 'COMMAND 2' ... 'REFERENCE COMMAND'
set -euo pipefail
[ $# -ge 3 ] || { echo "usage: $0 ROUNDS COMMAND... REFERENCE" >&2; exit 2; }
rounds=$1
shift
cmds=("$@")
times=$(mktemp)
trap 'rm -f "$times"' EXIT
echo "== $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
for ((r = 0; r < rounds; r++)); do
  for i in "${!cmds[@]}"; do
    start=$(date +%s%N)
    bash -o pipefail -c "${cmds[$i]}" >/dev/null 2>&1 || { echo "bench: failed: ${cmds[$i]}" >&2; exit 1; }
    end=$(date +%s%N)
    echo "$r $i $(((end - start) / 1000))" >>"$times"
  done
done
echo "== load average after $(cut -d' ' -f1-3 /proc/loadavg); $rounds rounds"
python3 - "$times" "$@" <<'PY'
import statistics, sys
rows = [tuple(map(int, l.split())) for l in open(sys.argv[1])]
cmds = sys.argv[2:]
t = {(r, i): us / 1e6 for r, i, us in rows}
rounds = sorted({r for r, _, _ in rows})
last = len(cmds) - 1
for i, c in enumerate(cmds):
    s = [t[r, i] for r in rounds]
    q = [t[r, i] / t[r, last] for r in rounds]
    print(f"{c}\n    median {statistics.median(s):.3f} s (min {min(s):.3f}, max {max(s):.3f}); "
          f"{statistics.median(q):.2f}x the last (median of the per-round ratios; {min(q):.2f}-{max(q):.2f})")
PY
