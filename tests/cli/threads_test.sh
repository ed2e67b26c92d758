#!/usr/bin/env bash
# Output is byte-identical whatever --threads is: build (streaming and exact sizing, both
# variants) and query (records in input order).
source "$(dirname "$0")/lib.sh"
export SOURCE_DATE_EPOCH=1700000000
awk 'BEGIN{for(i=0;i<300000;i++) printf "key-%d-%x\n", i, i*2654435761%4294967296}' >keys
awk 'BEGIN{for(i=0;i<100000;i++) printf "probe-%d\n", i}' >probes
cat keys probes >mixed

for t in 1 2 3 8; do
  "$BT" build -q --threads $t -n 300k -p 1% -o "std-$t.bf" keys
  "$BT" build -q --threads $t --variant blocked -n 300k -p 1% -o "blk-$t.bf" keys
  "$BT" build -q --threads $t -p 0.1% -o "exact-$t.bf" - <keys
  "$BT" query --threads $t std-1.bf mixed >"q-$t.out"
done
for t in 2 3 8; do
  expect_same_file std-1.bf "std-$t.bf" "standard build, $t threads"
  expect_same_file blk-1.bf "blk-$t.bf" "blocked build, $t threads"
  expect_same_file exact-1.bf "exact-$t.bf" "exact-sized build, $t threads"
  expect_same_file q-1.out "q-$t.out" "query output, $t threads"
done
expect_eq "$(head -300000 q-1.out | cmp - keys && echo same)" "same" "members come out first, in input order"
run "$BT" query --threads 2 std-1.bf mixed --count
expect_eq "$OUT" "$(wc -l <q-1.out)" "count equals printed lines"
finish
