#!/usr/bin/env bash
# The two figures issue-style scaling checks ask for, taken so that a machine whose speed drifts
# slows every command alike: the minimal one-thread loop (bench/minimal_build.cpp), `bloomtool
# build --threads 1` and `--threads 2`, one after another, round after round, on the 10M URL keys
# at -n 10M -p 1%. Prints each command's median wall-clock seconds and mean CPU seconds (user +
# system), then 1 thread / 2 threads and 1 thread / minimal loop from the medians; then the same
# two ratios taken within each round (the commands of a round ran seconds apart, so a drift of
# the machine's speed cancels out): their median and a distribution-free 95 % interval for it
# (order statistics of the binomial(n, 1/2); 9 rounds or more). Each round also runs two minimal
# loops at once, each on half the lines at half the n (the same total filter size, no data shared
# between the two): what two cores give work split with no communication, at that minute, as a
# yardstick for the two-thread ratio.
#
#   bench/scaling.sh [ROUNDS] [standard|blocked]      (default 15 rounds, both variants)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-15}
variants=${2:-standard blocked}
cmake --preset release >/dev/null
cmake --build --preset release -j2 >/dev/null
BT=$PWD/build/release/apps/bloomtool/bloomtool
MINIMAL=$PWD/build/release/bench/minimal_build
U=$PWD/bench/data/urls-10m.txt
[ -s "$U" ] || build/release/bench/gen_keys urls 10000000 1 >"$U"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
split -n l/2 -d "$U" "$out/half"
cat "$U" "$out/half00" "$out/half01" >/dev/null
echo "== $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%Y-%m-%dT%H:%M:%SZ), $rounds rounds"
for v in $variants; do
  # timed NAME COMMAND...: appends "wall user system" seconds to $out/NAME (wall from the shell's
  # microsecond clock: GNU time's %e has 10 ms steps).
  timed() {
    local name=$1 start end
    shift
    start=$EPOCHREALTIME
    /usr/bin/time -o "$out/cpu" -f '%U %S' "$@" >/dev/null
    end=$EPOCHREALTIME
    echo "$(awk -v a="$start" -v b="$end" 'BEGIN{printf "%.6f", b - a}') $(cat "$out/cpu")" >>"$out/$name"
  }
  for ((r = 0; r < rounds; r++)); do
    timed min "$MINIMAL" "$v" "$U" 10000000 0.01
    timed pair bash -c '"$1" "$2" "$3" 5000000 0.01 & a=$!; "$1" "$2" "$4" 5000000 0.01 && wait "$a"' _ \
      "$MINIMAL" "$v" "$out/half00" "$out/half01"
    for t in 1 2; do
      timed "t$t" "$BT" build -q --threads "$t" --variant "$v" -n 10M -p 1% -o "$out/f.bf" "$U"
    done
  done
  summary() {  # summary FILE: median wall, mean cpu
    sort -n "$1" | awk '{w[NR]=$1; c+=$2+$3} END{m=(NR%2)?w[(NR+1)/2]:(w[NR/2]+w[NR/2+1])/2; printf "%.3f %.3f", m, c/NR}'
  }
  read -r mw mc <<<"$(summary "$out/min")"
  read -r w1 c1 <<<"$(summary "$out/t1")"
  read -r w2 c2 <<<"$(summary "$out/t2")"
  read -r pw pc <<<"$(summary "$out/pair")"
  printf '%s: minimal loop %s s (cpu %s), two on halves at once %s s (cpu %s), 1 thread %s s (cpu %s), 2 threads %s s (cpu %s)\n' \
    "$v" "$mw" "$mc" "$pw" "$pc" "$w1" "$c1" "$w2" "$c2"
  awk -v a="$w1" -v b="$w2" -v m="$mw" -v v="$v" \
    'BEGIN{printf "%s: 1 thread / 2 threads %.2fx, 1 thread / minimal loop %.2fx\n", v, a/b, a/m}'
  # Per-round ratios: line r of each file is round r.
  paired() {  # paired NUM DEN: the median of NUM/DEN over rounds and its 95 % interval
    paste -d' ' "$out/$1" "$out/$2" | awk '{print $1 / $4}' | sort -g | awk '
      {x[NR] = $1}
      END {
        n = NR; m = (n % 2) ? x[(n + 1) / 2] : (x[n / 2] + x[n / 2 + 1]) / 2
        # The largest k with P(Binomial(n, 1/2) < k) <= 2.5 %: [x_k, x_(n+1-k)] covers the median
        # with at least 95 %.
        k = 0; p = 0.5 ^ n; c = p
        for (i = 1; i <= n && c <= 0.025; i++) { k = i; p = p * (n - i + 1) / i; c += p }
        if (k >= 1) printf "%.2fx (95%% interval %.2f-%.2f)", m, x[k], x[n + 1 - k]
        else printf "%.2fx (too few rounds for an interval)", m
      }'
  }
  printf '%s, per round: 1 thread / 2 threads %s, 1 thread / minimal loop %s\n' "$v" \
    "$(paired t1 t2)" "$(paired t1 min)"
  printf '%s, per round: minimal loop / two on halves at once %s\n' "$v" "$(paired min pair)"
  rm -f "$out/min" "$out/t1" "$out/t2" "$out/pair"
done
echo "== load average after $(cut -d' ' -f1-3 /proc/loadavg)"
