#!/usr/bin/env bash
# Output is byte-identical whatever --threads is: build (streaming and exact sizing, both
# variants), xor-build and query (records in input order). Files of 2 MiB and more are split at
# line ends and read by all threads at once (the keys file here is about 6 MB), so this also
# checks that no line is lost or read twice at a split, whatever the line endings, and that an
# input error is reported exactly as a single reader reports it.
source "$(dirname "$0")/lib.sh"
export SOURCE_DATE_EPOCH=1700000000
awk 'BEGIN{for(i=0;i<300000;i++) printf "key-%d-%x\n", i, i*2654435761%4294967296}' >keys
awk 'BEGIN{for(i=0;i<100000;i++) printf "probe-%d\n", i}' >probes
cat keys probes >mixed

for t in 1 2 3 8; do
  "$BT" build -q --threads $t -n 300k -p 1% -o "std-$t.bf" keys
  "$BT" build -q --threads $t --variant blocked -n 300k -p 1% -o "blk-$t.bf" keys
  "$BT" build -q --threads $t -p 0.1% -o "exact-$t.bf" - <keys
  "$BT" build -q --threads $t -p 0.1% -o "exactf-$t.bf" keys probes
  "$BT" xor-build -q --threads $t -o "fuse-$t.bf" keys probes keys
  "$BT" query --threads $t std-1.bf mixed >"q-$t.out"
done
for t in 2 3 8; do
  expect_same_file std-1.bf "std-$t.bf" "standard build, $t threads"
  expect_same_file blk-1.bf "blk-$t.bf" "blocked build, $t threads"
  expect_same_file exact-1.bf "exact-$t.bf" "exact-sized build, $t threads"
  expect_same_file exactf-1.bf "exactf-$t.bf" "exact-sized build of two files, $t threads"
  expect_same_file fuse-1.bf "fuse-$t.bf" "xor-build of three files, $t threads"
  expect_same_file q-1.out "q-$t.out" "query output, $t threads"
done
# The split files really were read in pieces: the keys equal the lines, and a query finds all.
run "$BT" query --count std-2.bf keys
expect_eq "$OUT" "300000" "every key of the split file is in the 2-thread filter"
run "$BT" stats --json exactf-3.bf
expect_match "$OUT" '"lines_read": ?400000' "lines read from two split files, 3 threads"

# Line ends: CRLF, no final newline, a byte-order mark, empty lines: same file for 1 and 4 threads.
awk 'BEGIN{printf "\xef\xbb\xbf"; for(i=0;i<200000;i++){printf "crlf-%d\r\n", i; if (i%1000==0) printf "\r\n"}; printf "last"}' >crlf
for t in 1 4; do
  "$BT" build -q --threads $t -n 200k -p 1% -o "crlf-$t.bf" crlf
  "$BT" xor-build -q --threads $t -o "crlf-fuse-$t.bf" crlf
done
expect_same_file crlf-1.bf crlf-4.bf "CRLF file with a BOM and no final newline, 4 threads"
expect_same_file crlf-fuse-1.bf crlf-fuse-4.bf "xor-build of the CRLF file, 4 threads"
run "$BT" query --count crlf-4.bf - <<<"crlf-0
crlf-199999
last"
expect_eq "$OUT" "3" "first key (after the BOM), last CRLF key and the unterminated last line"

# An error deep in a split file names the same line for 1 and 2 threads.
{ head -250000 keys; printf '%s\n' "$(head -c 2000 /dev/zero | tr '\0' x)"; tail -50000 keys; } >long
for t in 1 2; do
  run "$BT" build -q --threads $t --max-key-bytes 1000 -n 300k -p 1% -o "long-$t.bf" long
  expect_rc 2 "over-long line, $t threads"
  expect_one_error_line "over-long line, $t threads"
  eval "err_$t=\$ERR"
  expect_eq "$([ -e "long-$t.bf" ] && echo written || echo absent)" "absent" "nothing written, $t threads"
done
expect_eq "$err_2" "$err_1" "the same message for 1 and 2 threads"
expect_match "$err_1" "line 250001" "the message names the line"
awk 'BEGIN{for(i=0;i<150000;i++) printf "{\"k\":\"v%d\"}\n", i; print "{\"k\":"; for(i=0;i<10;i++) printf "{\"k\":\"w%d\"}\n", i}' >json
for t in 1 2; do
  run "$BT" xor-build -q --threads $t --input-format ndjson --field /k -o "json-$t.bf" json
  expect_rc 2 "malformed ndjson line, $t threads"
  eval "jerr_$t=\$ERR"
done
expect_eq "$jerr_2" "$jerr_1" "the same ndjson message for 1 and 2 threads"
expect_match "$jerr_1" "line 150001" "the ndjson message names the line"
expect_eq "$(head -300000 q-1.out | cmp - keys && echo same)" "same" "members come out first, in input order"

# query splits files of 8 MiB and more into 4 MiB pieces read at once; records still come out in
# input order (this 16 MB file is four pieces).
cat mixed mixed >mixed2
for t in 1 2 3 8; do
  "$BT" query --threads $t std-1.bf mixed2 >"q2-$t.out"
  "$BT" query --threads $t --absent std-1.bf mixed2 keys >"q2a-$t.out"
done
for t in 2 3 8; do
  expect_same_file q2-1.out "q2-$t.out" "query of a split file, $t threads"
  expect_same_file q2a-1.out "q2a-$t.out" "query --absent of split files, $t threads"
done
expect_eq "$(wc -l <q2-1.out)" "$((2 * $(wc -l <q-1.out)))" "the doubled file prints twice the records"
run "$BT" query --threads 2 -q std-1.bf mixed2
expect_rc 0 "query -q on a split file finds a member"
expect_eq "$OUT$ERR" "" "query -q prints nothing"
start=$(date +%s%N)
"$BT" query --threads 2 std-1.bf mixed2 mixed2 mixed2 2>qerr | head -1 >qhead
rc=${PIPESTATUS[0]}
elapsed_ms=$((($(date +%s%N) - start) / 1000000))
expect_eq "$(cat qhead)" "$(head -1 keys)" "query | head -1 on split files: the first record"
expect_eq "$(cat qerr)" "" "query | head -1 on split files: nothing on stderr"
expect_eq "$rc" "0" "query | head -1 on split files exits 0"
CHECKS=$((CHECKS + 1))
[ "$elapsed_ms" -lt 20000 ] || fail "query | head -1 on split files took ${elapsed_ms} ms"
run "$BT" query --threads 2 std-1.bf mixed --count
expect_eq "$OUT" "$(wc -l <q-1.out)" "count equals printed lines"
run "$BT" query --threads 1 std-1.bf mixed --count --absent
absent_1=$OUT
run "$BT" query --threads 3 std-1.bf mixed keys --count --absent
expect_eq "$OUT" "$absent_1" "absent count over split files, 3 threads (keys add no absent ones)"
finish
