#!/usr/bin/env bash
# build --min-keys / --max-shrink: a filter built from truncated input is not published (exit 2,
# old file byte-identical); a normal rebuild passes.
source "$(dirname "$0")/lib.sh"
export SOURCE_DATE_EPOCH=1700000000
seq 1 1000 | sed 's/^/key-/' >k1000
head -900 k1000 >k900
head -899 k1000 >k899
cat k1000 k1000 >k1000twice  # 2000 lines, 1000 distinct keys

run "$BT" build -q -p 1% -o out.bf k1000
expect_rc 0 "first build"
cp out.bf before.bf

# --max-shrink compares distinct keys with the file being replaced.
run "$BT" build -q -p 1% --max-shrink 10% -o out.bf k899
expect_rc 2 "899 of 1000 keys is more than 10% fewer"
expect_one_error_line "--max-shrink refusal"
expect_eq "$ERR" "bloomtool: out.bf: 899 distinct keys, 10.1% fewer than the 1000 in the file being replaced (--max-shrink 10%); nothing written" "--max-shrink message"
expect_same_file out.bf before.bf "--max-shrink refusal leaves the old file"
run "$BT" build -q -p 1% --max-shrink 0.1 -o out.bf k899
expect_rc 2 "--max-shrink as a fraction"
run "$BT" build -q -p 1% --max-shrink 10% -o out.bf k1000twice
expect_rc 0 "duplicates do not count as growth or shrink"
run "$BT" build -q -p 1% --max-shrink 10% -o out.bf k900
expect_rc 0 "exactly 10% fewer is allowed"
run "$BT" build -q -p 1% --max-shrink 0 -o out.bf k1000
expect_rc 0 "growth always passes"
run "$BT" build -q -n 2000 -p 1% --max-shrink 5% -o out.bf k899
expect_rc 2 "--max-shrink with -n uses the fill estimate"
expect_match "$ERR" "fewer than the 1000 in the file being replaced" "--max-shrink with -n message"
run "$BT" build -q -p 1% --max-shrink 10% -o first.bf k899
expect_rc 0 "--max-shrink on a first build (no file yet)"

# --min-keys
cp out.bf before.bf
run "$BT" build -q -p 1% --min-keys 1000 -o out.bf k899
expect_rc 2 "--min-keys refusal"
expect_eq "$ERR" "bloomtool: out.bf: 899 distinct keys, fewer than --min-keys 1000; nothing written" "--min-keys message"
expect_same_file out.bf before.bf "--min-keys refusal leaves the old file"
run "$BT" build -q -p 1% --min-keys 1k -o out.bf k1000
expect_rc 0 "--min-keys met"
run "$BT" build -q -p 1% --min-keys 1 -o none.bf /dev/null
expect_rc 2 "--min-keys 1 refuses empty input"
[ ! -e none.bf ] || fail "--min-keys wrote a file"
run "$BT" build -q -p 1% --min-keys 1000 -o - k899
expect_rc 2 "--min-keys with -o -"
expect_eq "$OUT" "" "--min-keys with -o - writes nothing"

# merge takes the same guards: a nightly union that lost a shard is not published.
head -500 k1000 >s1
tail -n +501 k1000 >s2
tail -n +801 k1000 >s3  # 200 keys: a shard cut short
for f in s1 s2 s3; do "$BT" build -q -m 9600 -k 7 -o "$f.bf" "$f"; done
run "$BT" merge -q -o union.bf s1.bf s2.bf
expect_rc 0 "merge of two shards"
cp union.bf union-before.bf
run "$BT" merge -q --max-shrink 10% -o union.bf s1.bf s3.bf
expect_rc 2 "merge with a short shard and --max-shrink"
expect_match "$ERR" "^bloomtool: union.bf: [0-9]+ distinct keys, [0-9.]+% fewer than the [0-9]+ in the file being replaced \(--max-shrink 10%\); nothing written$" "merge --max-shrink message"
expect_same_file union.bf union-before.bf "merge --max-shrink leaves the old file"
run "$BT" merge -q --min-keys 900 -o union2.bf s1.bf s3.bf
expect_rc 2 "merge --min-keys"
[ ! -e union2.bf ] || fail "merge --min-keys wrote a file"
run "$BT" merge -q --max-shrink 10% --min-keys 900 -o union.bf s1.bf s2.bf
expect_rc 0 "merge of the full shards passes the guards"

# xor-build takes the same guards.
run "$BT" xor-build -q -o x.bf k1000
expect_rc 0 "xor-build"
cp x.bf x-before.bf
run "$BT" xor-build -q --max-shrink 10% -o x.bf k899
expect_rc 2 "xor-build --max-shrink refusal"
expect_eq "$ERR" "bloomtool: x.bf: 899 distinct keys, 10.1% fewer than the 1000 in the file being replaced (--max-shrink 10%); nothing written" "xor-build --max-shrink message"
expect_same_file x.bf x-before.bf "xor-build --max-shrink leaves the old file"
run "$BT" xor-build -q --min-keys 1000 -o x2.bf k1000twice
expect_rc 0 "xor-build --min-keys counts distinct keys"
run "$BT" xor-build -q --min-keys 1001 -o x3.bf k1000twice
expect_rc 2 "xor-build --min-keys refusal"
[ ! -e x3.bf ] || fail "xor-build --min-keys wrote a file"

# Unusable settings and targets.
run "$BT" build -q -p 1% --max-shrink 10% -o - k1000
expect_rc 2 "--max-shrink with -o -"
expect_match "$ERR" "not possible with -o -" "--max-shrink with -o - message"
for bad in 150% -1 abc; do
  run "$BT" build -q -p 1% --max-shrink "$bad" -o out.bf k1000
  expect_rc 2 "--max-shrink $bad"
  expect_one_error_line "--max-shrink $bad"
done
run "$BT" build -q -p 1% --min-keys lots -o out.bf k1000
expect_rc 2 "--min-keys lots"
cp k1000 notafilter.bf
run "$BT" build -q -p 1% --max-shrink 10% -o notafilter.bf k1000
expect_rc 2 "--max-shrink over a file that is not a filter"
expect_match "$ERR" "^bloomtool: notafilter.bf: corrupt: .*--max-shrink compares with the file being replaced" "unreadable target message"
expect_same_file notafilter.bf k1000 "unreadable target left alone"

finish
