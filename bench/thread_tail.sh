#!/usr/bin/env bash
# Where a multi-threaded build loses time at its end, from CPU samples: runs a command RUNS times
# under `perf record -F 4000 -g` and, per run, prints A/B/C in ms: A, how long the two reading
# threads' last samples in the key pipeline (reading, hashing, inserting) lie apart (the wait for
# the last piece of input; absolute value); B, from the later of them to the process's last
# sample (the serial tail: or-in, compression, write, rename); C, the whole run. Then the means.
# perf adds its own overhead, so compare binaries with this in the same minutes, not with
# hyperfine's times.
#
#   bench/thread_tail.sh RUNS COMMAND...
#   e.g. bench/thread_tail.sh 8 build/release/apps/bloomtool/bloomtool build -q --threads 2 \
#            --variant blocked -n 10M -p 1% -o /tmp/b.bf bench/data/urls-10m.txt
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: $0 RUNS COMMAND..." >&2; exit 2; }
command -v perf >/dev/null || { echo "thread_tail: perf is missing (apt-get install linux-perf)" >&2; exit 2; }
runs=$1
shift
data=$(mktemp)
trap 'rm -f "$data"' EXIT
for ((i = 0; i < runs; i++)); do
  perf record -q -F 4000 -g -o "$data" "$@" >/dev/null 2>&1
  perf script -i "$data" -F pid,tid,time,ip,sym 2>/dev/null | awk '
    /^ *[0-9]+\/[0-9]+ +[0-9.]+: *$/ {
      split($1, p, "/"); t = $2; sub(":", "", t); if (!t0) t0 = t; last = t
      tid = p[2]; main = (p[1] == p[2]); if (!main && !helper) helper = tid
      inrec = 1; pipe = 0; next
    }
    inrec && NF >= 2 {
      if ($2 ~ /hash_key|add_impl|next_records|memchr|pread|KeyReader|route|drain|set_positions|run_range/) pipe = 1
      next
    }
    inrec && NF == 0 { if (pipe) { if (main) lm = t; else if (tid == helper) lh = t }; inrec = 0 }
    END {
      d = lm - lh; if (d < 0) d = -d
      printf "%.1f %.1f %.1f\n", d * 1000, (last - (lm > lh ? lm : lh)) * 1000, (last - t0) * 1000
    }'
done | awk '{printf "%s/%s/%s  ", $1, $2, $3; a += $1; b += $2; c += $3}
  END {printf "\nmean: last pieces %.1f ms apart, tail %.1f ms, run %.1f ms\n", a / NR, b / NR, c / NR}'
