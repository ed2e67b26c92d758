#!/usr/bin/env bash
# Signatures: the cost of signing and verifying a Bloom filter for N keys at 1% (default
# 10,000,000; bench/signature_bench.cpp, in-process), BLAKE2b throughput (what verifying a raw
# payload costs per byte), and the overhead of `query --trusted-key` on a small filter (hyperfine,
# the signed golden file and its 40 keys, with and without the key).
#
#   bench/signature_bench.sh [N]
#
# Figures depend on the machine and on what else runs on it: the script prints the core count and
# load average first; CPU times and ratios measured in one run are the figures to quote.
set -euo pipefail
cd "$(dirname "$0")/.."

n=${1:-10000000}
build=build/release
if [ ! -x "$build/bench/signature_bench" ] || [ ! -x "$build/apps/bloomtool/bloomtool" ]; then
  cmake --preset release >/dev/null
  cmake --build --preset release
fi
bt=$build/apps/bloomtool/bloomtool
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "== $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%Y-%m-%dT%H:%M:%SZ)"
echo "== sign and verify, in-process (best of 5)"
"$build/bench/signature_bench" "$tmp" "$n" 5

echo "== query on a small signed filter (416 bytes, 40 keys), with and without --trusted-key"
golden=testdata/golden/v1-bloom-signed.bf
keys=testdata/golden/keys.txt
pub=testdata/golden/golden-signing.pub
hyperfine -N --warmup 20 --runs 300 --export-json "$tmp/q.json" \
  "$bt query --count $golden $keys" \
  "$bt query --count --trusted-key $pub $golden $keys" 2>&1 | grep -v '^ *$'
python3 - "$tmp/q.json" <<'PY'
import json, statistics, sys
r = json.load(open(sys.argv[1]))["results"]
rows = [(statistics.median(x["times"]) * 1e3, min(x["times"]) * 1e3, x["user"] * 1e3 + x["system"] * 1e3)
        for x in r]
for name, (med, lo, cpu) in zip(("no key", "--trusted-key"), rows):
    print(f"  {name:14} median {med:6.2f} ms   min {lo:6.2f} ms   user+sys mean {cpu:6.2f} ms")
print(f"  overhead of --trusted-key: median {rows[1][0] - rows[0][0]:+.2f} ms, min {rows[1][1] - rows[0][1]:+.2f} ms, "
      f"user+sys {rows[1][2] - rows[0][2]:+.2f} ms")
PY

echo "== a raw (codec 2) filter of 256 MiB: one-key query without a key (lazy: one chunk verified)"
echo "   and with --trusted-key (every byte hashed first); page cache warm"
tmpkey=$tmp/bench
"$bt" keygen -q -o "$tmpkey"
head -1000 testdata/urls-10k.txt >"$tmp/k.txt"
"$bt" build -q -m 256MiB -k 7 --codec raw --sign "$tmpkey.key" -o "$tmp/raw.bf" "$tmp/k.txt"
head -1 "$tmp/k.txt" >"$tmp/one.txt"
cat "$tmp/raw.bf" >/dev/null
hyperfine -N --warmup 2 --runs 10 --export-json "$tmp/raw.json" \
  "$bt query --count $tmp/raw.bf $tmp/one.txt" \
  "$bt query --count --trusted-key $tmpkey.pub $tmp/raw.bf $tmp/one.txt" 2>&1 | grep -v '^ *$'
python3 - "$tmp/raw.json" <<'PY'
import json, statistics, sys
r = json.load(open(sys.argv[1]))["results"]
for name, x in zip(("no key", "--trusted-key"), r):
    print(f"  {name:14} median {statistics.median(x['times']) * 1e3:8.1f} ms   "
          f"user+sys mean {(x['user'] + x['system']) * 1e3:8.1f} ms")
PY
