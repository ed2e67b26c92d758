#!/usr/bin/env bash
# Partitioned static builds against the standard Bloom build (docs/PERFORMANCE.md, "Partitioned
# static filters"): whole-process wall time of, in turn each round,
#   A  bloomtool build -n 1e7 -p 0.39%        (standard Bloom at about the same rate as fuse8)
#   B  bloomtool build-static --kind fuse     (fuse8, automatic partitions) on T threads
#   C  the same on one thread
#   D  bloomtool build-static --kind fuse --partitions 1  (one unpartitioned filter) on T threads
# then the medians, the per-round ratios B/A and C/B, and each file's bits per key and measured
# rate over a million non-members.
#
#   bench/partitioned_bench.sh [ROUNDS] [THREADS]     (defaults 5 and 2)
# Needs bench/data/urls-10m.txt and bench/data/nonmembers-1m.txt (bench/gen_keys) and a release
# build.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5}
threads=${2:-2}
bt=build/release/apps/bloomtool/bloomtool
keys=bench/data/urls-10m.txt
non=bench/data/nonmembers-1m.txt
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export SOURCE_DATE_EPOCH=1700000000
secs() { local s e; s=$(date +%s%N); "$@" >/dev/null 2>&1; e=$(date +%s%N); echo "scale=3; ($e - $s) / 1000000000" | bc; }
echo "== $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) at the start"
: >"$tmp/times"
for ((r = 0; r < rounds; r++)); do
  a=$(secs "$bt" build -q --no-measure --threads "$threads" -n 1e7 -p 0.39% -o "$tmp/a.bf" "$keys")
  b=$(secs "$bt" build-static -q --no-measure --kind fuse --threads "$threads" -o "$tmp/b.bf" "$keys")
  c=$(secs "$bt" build-static -q --no-measure --kind fuse --threads 1 -o "$tmp/c.bf" "$keys")
  d=$(secs "$bt" build-static -q --no-measure --kind fuse --partitions 1 --threads "$threads" -o "$tmp/d.bf" "$keys")
  cmp -s "$tmp/b.bf" "$tmp/c.bf" || { echo "the 1-thread file differs" >&2; exit 1; }
  echo "$a $b $c $d" | tee -a "$tmp/times"
done
echo "== load average $(cut -d' ' -f1-3 /proc/loadavg) at the end"
python3 - "$tmp/times" <<'PY'
import statistics, sys
rows = [list(map(float, l.split())) for l in open(sys.argv[1])]
cols = list(zip(*rows))
names = ["A bloom build", "B fuse8 auto partitions", "C fuse8 one thread", "D fuse8 unpartitioned"]
for n, c in zip(names, cols):
    print(f"{n:26} median {statistics.median(c):.3f} s  (min {min(c):.3f}, max {max(c):.3f})")
ba = [r[1] / r[0] for r in rows]
cb = [r[2] / r[1] for r in rows]
db = [r[3] / r[1] for r in rows]
print(f"B/A per round: {' '.join(f'{x:.2f}' for x in ba)}  median {statistics.median(ba):.2f}")
print(f"C/B per round: {' '.join(f'{x:.2f}' for x in cb)}  median {statistics.median(cb):.2f}")
print(f"D/B per round: {' '.join(f'{x:.2f}' for x in db)}  median {statistics.median(db):.2f}")
PY
for f in b d; do
  bits=$("$bt" stats --json "$tmp/$f.bf" | python3 -c 'import json,sys; j=json.load(sys.stdin); print("%.4f bits/key, %d bytes" % (j["bits_per_key"], j["file_bytes"]))')
  fp=$("$bt" query --count "$tmp/$f.bf" "$non" || true)
  echo "$f.bf: $bits; $fp false positives of $(wc -l <"$non") non-members"
done
