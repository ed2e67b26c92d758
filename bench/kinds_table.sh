#!/bin/sh
# Every kind at the same rates, whole processes: bits per key of the whole file, file bytes, build
# seconds, `query --count` seconds over non-members, the build's peak RSS and the measured rate.
#
#   bench/kinds_table.sh BLOOMTOOL KEYS NONMEMBERS [RUNS] [THREADS]
#
# KEYS holds distinct keys, one per line (bench/gen_keys urls); NONMEMBERS keys none of which is
# in KEYS (bench/gen_keys nonmembers). Build and query times are medians of RUNS runs (default 5),
# the kinds taken in turn within each run so that load changes hit them alike. Rows: standard and
# blocked Bloom and Ribbon at each rate; binary fuse at the rate it gives (fuse8 2^-8 = 0.39 %,
# fuse16 2^-16 = 0.0015 %), shown in the rows of the rates it meets.
set -eu
bt=${1:?bloomtool binary}
keys=${2:?key file}
non=${3:?non-member file}
runs=${4:-5}
threads=${5:-2}
n=$(wc -l <"$keys")
probes=$(wc -l <"$non")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# name|build command (output file appended)
specs() {
  for p in 1% 0.39% 0.1% 0.0015%; do
    echo "$p bloom|build -n $n -p $p --no-measure -q --threads $threads $keys -o"
    echo "$p blocked|build -n $n -p $p --variant blocked --no-measure -q --threads $threads $keys -o"
    echo "$p ribbon|build-static --kind ribbon -p $p --no-measure -q --threads $threads $keys -o"
    case $p in
      1% | 0.39%) echo "$p fuse8|build-static --kind fuse -f 8 --no-measure -q --threads $threads $keys -o" ;;
      *) echo "$p fuse16|build-static --kind fuse -f 16 --no-measure -q --threads $threads $keys -o" ;;
    esac
  done
}

r=0
while [ "$r" -lt "$runs" ]; do
  specs | while IFS='|' read -r name cmd; do
    id=$(echo "$name" | tr ' %.' '_pd')
    # shellcheck disable=SC2086
    /usr/bin/time -f '%e %M' -o "$tmp/t" "$bt" $cmd "$tmp/$id.bf"
    echo "$name|$(tail -1 "$tmp/t")" >>"$tmp/build"
    /usr/bin/time -f '%e' -o "$tmp/q" "$bt" query --count "$tmp/$id.bf" "$non" >"$tmp/count" || true
    echo "$name|$(tail -1 "$tmp/q")|$(cat "$tmp/count")|$(stat -c %s "$tmp/$id.bf")" >>"$tmp/query"
  done
  r=$((r + 1))
done

echo "n = $n keys, $probes non-members, $threads threads, medians of $runs"
printf '%-8s %-8s %9s %12s %8s %8s %9s %10s\n' rate kind bits/key "file bytes" "build s" "query s" "peak MiB" "measured"
specs | while IFS='|' read -r name cmd; do
  b=$(grep "^$name|" "$tmp/build" | cut -d'|' -f2 | cut -d' ' -f1 | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
  rss=$(grep "^$name|" "$tmp/build" | cut -d'|' -f2 | cut -d' ' -f2 | sort -g | tail -1)
  q=$(grep "^$name|" "$tmp/query" | cut -d'|' -f2 | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
  c=$(grep "^$name|" "$tmp/query" | head -1 | cut -d'|' -f3)
  bytes=$(grep "^$name|" "$tmp/query" | head -1 | cut -d'|' -f4)
  set -- $name
  awk -v rate="$1" -v kind="$2" -v bytes="$bytes" -v n="$n" -v b="$b" -v q="$q" -v rss="$rss" -v c="$c" -v pr="$probes" \
    'BEGIN { printf "%-8s %-8s %9.3f %12d %8.2f %8.2f %9.1f %9.4f%%\n", rate, kind, 8 * bytes / n, bytes, b, q, rss / 1024, 100 * c / pr }'
done
