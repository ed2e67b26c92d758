#!/usr/bin/env bash
# Hash seeds: --seed random draws a new seed each build (different bits, different false
# positives, the same measured rate), --seed HEX is reproducible, stats tells the public default
# from a chosen seed, and merge refuses filters of different seeds, naming both.
source "$(dirname "$0")/lib.sh"
JQ=${JSON_QUERY:?JSON_QUERY must name the json_query helper}
keys=$TESTDATA/urls-10k.txt
non=$TESTDATA/nonmembers-10k.txt
export SOURCE_DATE_EPOCH=1700000000

# Two random seeds: same keys and geometry, different seeds, different bits.
for i in 1 2; do
  run "$BT" build -q -p 1% --seed random -o "r$i.bf" "$keys"
  expect_rc 0 "build --seed random ($i)"
  run "$BT" query "r$i.bf" "$keys" --count
  expect_eq "$OUT" "10000" "random seed $i: every member found"
  "$BT" query "r$i.bf" "$non" >"fp$i.txt"
  "$BT" stats --json --measure 1M "r$i.bf" >"r$i.json"
  expect_eq "$("$JQ" "r$i.json" /seed_default)" "false" "random seed $i: not the default"
  # The model p is 0.01004; a million probes measure it to +-0.0001 (1 sd). The bounds are about
  # 15 sd wide: two healthy filters never fall outside, a wrong seed path would.
  rate=$("$JQ" "r$i.json" /measurement/rate)
  CHECKS=$((CHECKS + 1))
  awk -v r="$rate" 'BEGIN { exit !(r > 0.0085 && r < 0.0115) }' ||
    fail "random seed $i: measured rate $rate outside [0.0085, 0.0115]"
done
seed1=$("$JQ" r1.json /seed)
seed2=$("$JQ" r2.json /seed)
CHECKS=$((CHECKS + 1))
[ "$seed1" != "$seed2" ] || fail "two --seed random builds got the same seed $seed1"
expect_eq "$("$JQ" r1.json /m)" "$("$JQ" r2.json /m)" "same geometry for both seeds"
CHECKS=$((CHECKS + 1))
# About 100 false positives each among 10,000 non-members; other bits, other false positives.
! cmp -s fp1.txt fp2.txt || fail "both random seeds give the same false positives"
CHECKS=$((CHECKS + 1))
[ "$(wc -l <fp1.txt)" -gt 40 ] && [ "$(wc -l <fp2.txt)" -gt 40 ] || fail "too few false positives to compare"

# An explicit seed: reproducible, shown as chosen; the default shown as public.
"$BT" build -q -m 64KiB -k 5 --seed 5eed -o a.bf "$keys"
"$BT" build -q -m 64KiB -k 5 --seed 0x0000000000005EED -o a2.bf "$keys"
expect_same_file a.bf a2.bf "the same hex seed, spelled two ways, gives the same file"
run "$BT" stats a.bf
expect_match "$OUT" "hash +xxh3-64, seed 0x0000000000005eed \(chosen at build\)" "stats: chosen seed"
run "$BT" build -m 64KiB -k 5 --seed 5eed --no-measure -o a3.bf "$keys"
expect_match "$ERR" "hash seed +0x0000000000005eed \(not the public default\)" "build summary: seed"
"$BT" build -q -m 64KiB -k 5 -o d.bf "$keys"
run "$BT" stats d.bf
expect_match "$OUT" "seed 0x9e3779b97f4a7c15 \(public default\)" "stats: public default"
run "$BT" stats --json d.bf
expect_match "$OUT" '"seed_default": true' "stats --json: public default"
run "$BT" build -m 64KiB -k 5 --no-measure -o d2.bf "$keys"
CHECKS=$((CHECKS + 1))
! grep -q "hash seed" <<<"$ERR" || fail "the build summary shows a default seed"

# xor-build takes the same seeds.
"$BT" xor-build -q --seed 5eed -o x1.bf "$keys"
"$BT" xor-build -q --seed 5eed -o x2.bf "$keys"
expect_same_file x1.bf x2.bf "xor-build --seed HEX is reproducible"
run "$BT" query x1.bf "$keys" --count
expect_eq "$OUT" "10000" "xor-build with a chosen seed finds every member"
run "$BT" stats --json x1.bf
expect_match "$OUT" '"seed": "0x0000000000005eed"' "xor-build records the seed"

# Bad seeds are usage errors, before any input is read.
for bad in xyz 12345678901234567 0x -1 "+5" ""; do
  run "$BT" build -q --seed "$bad" -o bad.bf "$keys"
  expect_rc 2 "--seed '$bad'"
  expect_one_error_line "--seed '$bad'"
  [ ! -e bad.bf ] || fail "--seed '$bad' wrote a file"
done

# Shards with one seed merge into the whole; different seeds are refused, naming both.
head -5000 "$keys" >p1
tail -n +5001 "$keys" >p2
for p in p1 p2; do "$BT" build -q -m 64KiB -k 5 --seed 5eed -o "$p.bf" "$p"; done
run "$BT" merge -q -o whole.bf p1.bf p2.bf
expect_rc 0 "merge of shards with one seed"
expect_same_file whole.bf a.bf "the merge of the shards is the build of the whole"
"$BT" build -q -m 64KiB -k 5 --seed 5eee -o other.bf p2
run "$BT" merge -q -o bad.bf p1.bf other.bf
expect_rc 2 "merge of different seeds"
expect_eq "$ERR" "bloomtool: other.bf: cannot merge: seed is 0x0000000000005eee here but 0x0000000000005eed in p1.bf" "merge names both seeds"
[ ! -e bad.bf ] || fail "a refused merge wrote a file"

finish
