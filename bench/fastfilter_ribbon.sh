#!/bin/sh
# bloomtool's Ribbon construction next to the Ribbon variants of the FastFilter benchmark harness
# (github.com/FastFilter/fastfilter_cpp, built outside this repository: `cd benchmarks && make
# bulk-insert-and-query.exe`; nothing of it is vendored). Both run in memory on one thread from
# random 64-bit keys; the harness times its own add and query loops, bench/ribbon_bench times
# bloomtool's construction and contains_batch.
#
#   bench/fastfilter_ribbon.sh HARNESS_EXE RIBBON_BENCH [N] [RUNS]
#
# For each harness filter: the median over RUNS runs of its construction ns/key and its query
# ns/key at 0 % members, its bits/key and measured rate (the harness's "ε%"). Then bloomtool's
# Ribbon at the rates those filters reach, from `ribbon_bench compare N P RUNS`.
set -eu
exe=${1:?harness bulk-insert-and-query.exe}
rb=${2:?bench/ribbon_bench}
n=${3:-10000000}
runs=${4:-5}
# 3076 StandardRibbon64_7, 1076 HomogRibbon64_7, 2076 BalancedRibbon64Pack_7,
# 2776 BalancedRibbon64Pack_7.7, 116 XorBinaryFuse8, 41 Bloom12
ids=${FASTFILTER_IDS:-3076,1076,2076,2776,116,41}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
i=0
while [ "$i" -lt "$runs" ]; do
  "$exe" "$n" "$ids" 2>/dev/null | awk 'NF == 14 && $2 ~ /^[0-9.]+$/ { print $1, $2, $4, $10, $11 }' \
    >>"$tmp/rows"
  i=$((i + 1))
done
echo "harness filter: construction ns/key, query ns/key (0 % members), rate %, bits/key (medians of $runs, n = $n)"
awk '{ add[$1] = add[$1] " " $2; q[$1] = q[$1] " " $3; eps[$1] = $4; bits[$1] = $5; order[$1] = NR }
  function median(s,   a, k, i, j, t) {
    k = split(s, a, " ")
    for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
    return a[int((k + 1) / 2)]
  }
  END { for (f in add) printf "%-28s %8.1f %8.1f %8.4f %6.2f\n", f, median(add[f]), median(q[f]), eps[f], bits[f] }' \
  "$tmp/rows" | sort
echo
echo "bloomtool (bench/ribbon_bench compare $n P $runs): P = 1 %, 0.78 %, 0.51 %"
for p in 0.01 0.0078 0.0051; do
  "$rb" compare "$n" "$p" "$runs"
done
