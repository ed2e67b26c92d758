#!/usr/bin/env bash
# Binary fuse 8 construction at N keys (default 10,000,000): ns/key with hashing excluded and
# included, peak resident memory per key of the library alone and of `bloomtool xor-build` on a
# key file with 10% repeated lines. With --accuracy, also builds all four layouts from that file
# and checks false negatives and the false-positive rate against 2^-f on N non-member keys.
#
#   bench/xor_build_bench.sh [N] [--accuracy]
#
# The figures depend on the machine and on what else runs on it: the script prints the core count
# and load average first. Needs GNU time (/usr/bin/time).
set -euo pipefail
cd "$(dirname "$0")/.."

n=10000000
accuracy=0
for arg in "$@"; do
  case "$arg" in
    --accuracy) accuracy=1 ;;
    *) n=$arg ;;
  esac
done

build=build/release
if [ ! -x "$build/bench/xor_build_bench" ] || [ ! -x "$build/apps/bloomtool/bloomtool" ]; then
  cmake --preset release >/dev/null
  cmake --build --preset release
fi
bench=$build/bench/xor_build_bench
bt=$build/apps/bloomtool/bloomtool
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

peak_kib() { sed -n 's/^[[:space:]]*Maximum resident set size (kbytes): //p' "$1"; }
elapsed() { sed -n 's/^[[:space:]]*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$1"; }

echo "== $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%Y-%m-%dT%H:%M:%SZ)"
echo "== speed (CPU time is the figure to quote on a shared machine)"
"$bench" speed "$n" 3

echo "== peak memory, library: hashes + construction"
/usr/bin/time -v "$bench" memory "$n" 2>"$tmp/time" | sed 's/^/  /'
awk -v k="$(peak_kib "$tmp/time")" -v n="$n" \
  'BEGIN{printf "  /usr/bin/time: max RSS %.1f MiB = %.2f bytes/key\n", k/1024, k*1024/n}'

echo "== peak memory, bloomtool xor-build: $n distinct keys + $((n / 10)) repeated lines"
awk -v n="$n" 'BEGIN{for(i=0;i<n;i++) printf "bench-key-%d\n", i;
                     for(i=0;i<n/10;i++) printf "bench-key-%d\n", i*10}' >"$tmp/keys"
/usr/bin/time -v "$bt" xor-build -o "$tmp/fuse8.bf" "$tmp/keys" 2>"$tmp/time"
grep -E "distinct keys|bits per key|attempts" "$tmp/time" | sed 's/^ */  /'
awk -v k="$(peak_kib "$tmp/time")" -v n="$n" -v t="$(elapsed "$tmp/time")" \
  'BEGIN{printf "  max RSS %.1f MiB = %.2f bytes/distinct key, wall %s\n", k/1024, k*1024/n, t}'

[ "$accuracy" = 1 ] || exit 0
echo "== accuracy: members (all lines) and $n non-members"
awk -v n="$n" 'BEGIN{for(i=0;i<n;i++) printf "other-key-%d\n", i}' >"$tmp/others"
for layout in fuse xor; do
  for f in 8 16; do
    "$bt" xor-build -q --layout "$layout" --fingerprint "$f" -o "$tmp/f.bf" "$tmp/keys"
    present=$("$bt" query "$tmp/f.bf" "$tmp/keys" --count)
    fp=$("$bt" query "$tmp/f.bf" "$tmp/others" --count || true)
    m=$(od -An -t u8 -j 48 -N 8 --endian=little "$tmp/f.bf" | tr -d ' ')
    awk -v l="$layout" -v f="$f" -v present="$present" -v lines="$((n + n / 10))" -v fp="$fp" \
        -v n="$n" -v m="$m" 'BEGIN{
      p = 2^-f; mean = n*p; sd = sqrt(n*p*(1-p));
      inside = (fp >= mean - 3.2905*sd && fp <= mean + 3.2905*sd) ? "inside" : "OUTSIDE";
      printf "  %s%-2d false negatives %d, false positives %d/%d = %.3g (2^-%d = %.3g, %s the 99.9%% interval), %.3f bits/key\n",
             l, f, lines - present, fp, n, fp/n, f, p, inside, m*f/n }'
  done
done
