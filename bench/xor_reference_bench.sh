#!/usr/bin/env bash
# Binary fuse 8 and 16 construction, side by side in one run: the C reference implementation
# (FastFilter/xor_singleheader's binary_fuse{8,16}_populate, with one line corrected) and
# bloomtool's build_xor_filter, on the same N distinct random 64-bit keys (default 10,000,000).
#
#   XOR_SINGLEHEADER=/path/to/binaryfusefilter.h bench/xor_reference_bench.sh [N] [RUNS]
#   bench/xor_reference_bench.sh --header /path/to/binaryfusefilter.h [N] [RUNS]
#
# The header is not part of this repository. The script copies it to a temporary directory and
# corrects the start position of each bucket in binary_fuse8_populate,
#   startPos[i] = (uint32_t)((uint64_t)i * size) >> blockBits;      (as shipped: the cast
#   startPos[i] = (uint32_t)(((uint64_t)i * size) >> blockBits);     truncates before the shift)
# which is how binary_fuse16_populate already reads; it stops if that line is not found exactly
# once. The driver, bench/xor_reference_driver.c, is compiled with `gcc -std=c11 -O3
# -march=native` (the flags the reference's benchmarks use); bloomtool is the release preset
# (RelWithDebInfo: -O2 -g, generic x86-64).
#
# RUNS rounds (default 5); each round runs, one process each and in this order, for fuse8 and
# then fuse16: the reference; bloomtool on 1 thread without de-duplication (assume_distinct: keys
# grouped by their top bits, as the reference's own first pass does, but not de-duplicated);
# bloomtool on 1 thread with de-duplication (what xor-build does); bloomtool on 2 threads with
# de-duplication. Medians over the rounds are printed. On one thread the CPU time of the building
# thread (CLOCK_THREAD_CPUTIME_ID) is the figure to compare on a shared machine; the 2-thread row
# is wall-clock time and means something only on an idle machine.
#
# What is compared: 64-bit keys in memory, hashing of key bytes excluded on both sides (each side
# still mixes its keys with the seed); the reference detects repeats during its counting pass and
# its time includes that check. Huge pages: bloomtool maps its arrays with MADV_HUGEPAGE; the
# reference uses malloc/calloc, so it is run with GLIBC_TUNABLES=glibc.malloc.hugetlb=1 (glibc
# >= 2.35 then madvises its large chunks the same way) unless REF_HUGEPAGES=0. Both only matter
# when /sys/kernel/mm/transparent_hugepage/enabled is "always" or "madvise"; the script prints it.
# Peak memory is the process's ru_maxrss, keys included, per key. With WITH_UNCORRECTED=1 each
# round also runs the header as shipped (a "reference, as shipped" row).
set -euo pipefail
cd "$(dirname "$0")/.."

header=${XOR_SINGLEHEADER:-}
if [ "${1:-}" = "--header" ]; then
  header=${2:?--header needs a path}
  shift 2
fi
n=${1:-10000000}
runs=${2:-5}
if [ -z "$header" ] || [ ! -r "$header" ]; then
  echo "xor_reference_bench.sh: set XOR_SINGLEHEADER (or --header) to a readable copy of" \
    "FastFilter/xor_singleheader's include/binaryfusefilter.h" >&2
  exit 2
fi

build=build/release
if [ ! -x "$build/bench/xor_build_bench" ]; then
  cmake --preset release >/dev/null
  cmake --build --preset release --target xor_build_bench
fi
bench=$build/bench/xor_build_bench
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

defect='startPos[i] = (uint32_t)((uint64_t)i * size) >> blockBits;'
fixed='startPos[i] = (uint32_t)(((uint64_t)i * size) >> blockBits);'
if [ "$(grep -cF -- "$defect" "$header")" != 1 ]; then
  echo "xor_reference_bench.sh: $header: the line to correct ('$defect') is not there exactly" \
    "once; this script is written for the versions of the header that have it" >&2
  exit 1
fi
sed 's/startPos\[i\] = (uint32_t)((uint64_t)i \* size) >> blockBits;/startPos[i] = (uint32_t)(((uint64_t)i * size) >> blockBits);/' \
  "$header" >"$tmp/binaryfusefilter.h"
if grep -qF -- "$defect" "$tmp/binaryfusefilter.h" ||
  [ "$(grep -cF -- "$fixed" "$tmp/binaryfusefilter.h")" != 2 ]; then
  echo "xor_reference_bench.sh: the correction did not apply" >&2
  exit 1
fi
gcc -std=c11 -O3 -march=native -I "$tmp" -o "$tmp/reference" bench/xor_reference_driver.c -lm
uncorrected=${WITH_UNCORRECTED:-0}
if [ "$uncorrected" = 1 ]; then
  mkdir "$tmp/shipped"
  cp "$header" "$tmp/shipped/binaryfusefilter.h"
  gcc -std=c11 -O3 -march=native -I "$tmp/shipped" -o "$tmp/shipped/reference" \
    bench/xor_reference_driver.c -lm
fi

ref_env=(env GLIBC_TUNABLES=glibc.malloc.hugetlb=1)
[ "${REF_HUGEPAGES:-1}" = 0 ] && ref_env=(env)

echo "== $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%Y-%m-%dT%H:%M:%SZ)"
echo "== bloomtool $(git rev-parse --short HEAD 2>/dev/null || echo '?'); header sha256" \
  "$(sha256sum "$header" | cut -c1-16), corrected as above; $n keys, $runs rounds"
echo "== transparent huge pages: $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null ||
  echo unknown); reference: ${ref_env[*]:1}"
seed=1
for ((r = 1; r <= runs; r++)); do
  for fp in 8 16; do
    "${ref_env[@]}" "$tmp/reference" "fuse$fp" "$n" "$seed" | sed 's/^/ref1 /' >>"$tmp/rows"
    if [ "$uncorrected" = 1 ]; then
      "${ref_env[@]}" "$tmp/shipped/reference" "fuse$fp" "$n" "$seed" | sed 's/^/shipped1 /' >>"$tmp/rows"
    fi
    "$bench" random "$n" "$seed" "$fp" 1 0 | sed 's/^/nodedup1 /' >>"$tmp/rows"
    "$bench" random "$n" "$seed" "$fp" 1 1 | sed 's/^/dedup1 /' >>"$tmp/rows"
    "$bench" random "$n" "$seed" "$fp" 2 1 | sed 's/^/dedup2 /' >>"$tmp/rows"
  done
done
echo "== load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

# Rows: tag side fuseF n cpu wall peak [group count peel assign (CPU), the same (wall)].
median() { sort -g | awk '{v[NR]=$1} END{print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
col() { awk -v t="$1" -v f="fuse$2" -v c="$3" '$1==t && $3==f {print $c}' "$tmp/rows" | median; }
ns() { awk -v s="$1" -v n="$n" 'BEGIN{printf "%.1f", s*1e9/n}'; }
printf '\n| fuse | construction | threads | CPU ns/key | wall ns/key | group | count | peel | assign | peak bytes/key |\n'
printf '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n'
for fp in 8 16; do
  tags="ref1 nodedup1 dedup1 dedup2"
  [ "$uncorrected" = 1 ] && tags="shipped1 $tags"
  for tag in $tags; do
    case $tag in
      shipped1) what="reference, as shipped"; th=1 ;;
      ref1) what="reference, corrected"; th=1 ;;
      nodedup1) what="bloomtool, de-duplication excluded"; th=1 ;;
      dedup1) what="bloomtool, de-duplication included"; th=1 ;;
      dedup2) what="bloomtool, de-duplication included"; th=2 ;;
    esac
    phases="— | — | — | —"
    if [ "$tag" != ref1 ] && [ "$tag" != shipped1 ]; then
      # Phase split: thread CPU time on 1 thread, wall-clock time on 2.
      off=8
      [ "$th" = 2 ] && off=12
      phases=""
      for k in 0 1 2 3; do phases+="$(ns "$(col "$tag" "$fp" $((off + k)))") | "; done
      phases=${phases% | }
    fi
    peak=$(awk -v p="$(col "$tag" "$fp" 7)" -v n="$n" 'BEGIN{printf "%.1f", p/n}')
    printf '| %s | %s | %s | %s | %s | %s | %s |\n' "$fp" "$what" "$th" \
      "$(ns "$(col "$tag" "$fp" 5)")" "$(ns "$(col "$tag" "$fp" 6)")" "$phases" "$peak"
  done
done
echo
echo "Medians of $runs rounds. Phase columns: ns/key of thread CPU time (1 thread) or wall-clock"
echo "time (2 threads): group = grouping by top bits (+ de-duplication), count = counting pass,"
echo "peel = peeling, assign = assignment. Ratios (CPU, 1 thread, medians):"
for fp in 8 16; do
  awk -v f="$fp" -v r="$(col ref1 "$fp" 5)" -v a="$(col nodedup1 "$fp" 5)" \
    -v b="$(col dedup1 "$fp" 5)" 'BEGIN{printf "  fuse%s: bloomtool / reference = %.2f without de-duplication, %.2f with\n", f, a/r, b/r}'
done
