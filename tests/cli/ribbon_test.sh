#!/usr/bin/env bash
# build-static --kind ribbon end to end: summary, header, query round trip at several rates,
# determinism, stats (model, --measure, gates, JSON), size, merge refusal, convert, signatures,
# tiny inputs, the old spelling xor-build and option conflicts.
source "$(dirname "$0")/lib.sh"
: "${JSON_QUERY:?JSON_QUERY must name the json_query test helper}"
jget() { "$JSON_QUERY" "$1" "$2"; }

# 20,000 distinct keys plus 2,000 repeats, and 20,000 keys that are not members.
awk 'BEGIN{for(i=0;i<20000;i++) printf "https://site%d.example/p/%d\n", i%50, i;
           for(i=0;i<2000;i++) printf "https://site%d.example/p/%d\n", (i*7)%50, i*7}' >keys
awk 'BEGIN{for(i=0;i<20000;i++) printf "https://other%d.example/q/%d\n", i%50, i}' >nonmembers
export SOURCE_DATE_EPOCH=1700000000
u64_at() { od -An -t u8 -j "$2" -N 8 --endian=little "$1" | tr -d ' '; }
u32_at() { od -An -t u4 -j "$2" -N 4 --endian=little "$1" | tr -d ' '; }
u16_at() { od -An -t u2 -j "$2" -N 2 --endian=little "$1" | tr -d ' '; }

# build-static builds a bumped Ribbon filter at 1% by default.
run "$BT" build-static -o r.bf keys
expect_rc 0 "build-static default"
expect_eq "$OUT" "" "nothing on stdout"
expect_match "$ERR" "^bloomtool: wrote r.bf: Ribbon" "summary title"
expect_match "$ERR" "duplicates +2000 \(removed\)" "summary: duplicates"
expect_match "$ERR" "distinct keys +20000 \(exact\)" "summary: distinct keys"
expect_match "$ERR" "model p +0.0099[0-9]* \(asked for 0.01\)" "summary: model p"
expect_match "$ERR" "rows +[0-9]+ in 3 layers \([0-9]+ \+ [0-9]+ \+ [0-9]+; [0-9.]+ % of the keys bumped from the first\), 7 and 6 columns" "summary: layers"
expect_match "$ERR" "measured p .*is consistent" "summary: quick measurement"
expect_eq "$(u32_at r.bf 24)" "4" "kind 4 = Ribbon"
expect_eq "$(u16_at r.bf 10)" "3" "format 1.3"
expect_eq "$(u32_at r.bf 28)" "1" "variant 1 = bumped"
expect_eq "$(u32_at r.bf 36)" "6" "k = lower column count"
expect_eq "$(u64_at r.bf 72)" "20000" "distinct_estimate is exact"

# No false negatives; the non-members' rate inside the 99.9% binomial interval of 20,000 trials.
# p = 1%: [160, 241]; 0.39%: [52, 104]; 0.1%: [6, 35].
for spec in "1% 160 241" "0.39% 52 104" "0.1% 6 35"; do
  set -- $spec
  run "$BT" build-static -q -p "$1" -o "p.bf" keys
  expect_rc 0 "build-static -p $1"
  run "$BT" query p.bf keys --count
  expect_eq "$OUT" "22000" "p=$1: every line found"
  run "$BT" query p.bf nonmembers --count
  [ "$OUT" -ge "$2" ] && [ "$OUT" -le "$3" ] || fail "p=$1: $OUT false positives in 20000"
  CHECKS=$((CHECKS + 1))
done
for p in 50% 1e-9; do
  run "$BT" build-static -q -p "$p" -o edge.bf keys
  expect_rc 0 "build-static -p $p"
  run "$BT" query edge.bf keys --count
  expect_eq "$OUT" "22000" "p=$p: every line found"
done

# The same keys give the same bytes, whatever the order and the thread count.
sort -R --random-source=keys keys >shuffled
run "$BT" build-static -q --threads 3 -o shuffled.bf shuffled
expect_same_file r.bf shuffled.bf "order and --threads 3"
awk 'BEGIN{for(i=0;i<300000;i++) printf "k%d\n", i}' >big
for t in 1 2; do "$BT" build-static -q --threads "$t" -o "big-$t.bf" big; done
expect_same_file big-1.bf big-2.bf "300,000 keys, 1 and 2 threads"

# stats: the model, the mixed columns, a measurement consistent with the model, gates, JSON.
run "$BT" stats r.bf
expect_rc 0 "stats"
expect_match "$OUT" "kind +ribbon, 6- and 7-bit fingerprints" "stats kind"
expect_match "$OUT" "format +1.3" "stats format"
expect_match "$OUT" "m +[0-9]+ rows in 3 layers \([0-9]+ \+ [0-9]+ \+ 192\), [0-9.]+ % of the first layer's starts bumped" "stats rows"
expect_match "$OUT" "uniformity +not applicable" "no fill"
run "$BT" stats r.bf --measure 200000 --json
expect_rc 0 "stats --measure"
echo "$OUT" >r.json
expect_eq "$(jget r.json /kind)" "ribbon" "JSON kind"
expect_eq "$(jget r.json /variant)" "bumped" "JSON variant"
expect_eq "$(jget r.json /measurement/verdict)" "consistent" "measured rate consistent with the model"
bits=$(jget r.json /filter_bits)
expect_eq "$bits" "$(( ($(u64_at r.bf 88)) * 8 ))" "filter bits are the payload's"
run "$BT" stats r.bf --max-fpr 0.5%
expect_rc 1 "gate --max-fpr fails"
expect_match "$ERR" "^bloomtool: r.bf: --max-fpr failed: the model's rate 0.0099[0-9]* is above 0.005$" "gate message"
run "$BT" stats r.bf --max-fpr 2%
expect_rc 0 "gate --max-fpr passes"

# size: a Ribbon row next to the lower bound.
run "$BT" size -n 1M -p 1%
expect_match "$OUT" "Ribbon +1000000 +[0-9]+ .* 6\.78[0-9]* +- +0\.0099" "size: Ribbon row"

# merge refuses, convert keeps the answers, signatures work as for any kind.
run "$BT" merge -o merged.bf r.bf r.bf
expect_rc 2 "merge refuses Ribbon filters"
expect_eq "$ERR" "bloomtool: r.bf: cannot merge Ribbon filters: a static filter solves for its own key set and is no union of others; rebuild from all the keys with build-static --kind ribbon" "merge message"
run "$BT" convert -q --codec raw r.bf -o raw.bf
expect_rc 0 "convert to raw"
run "$BT" query raw.bf nonmembers --count
raw_fp=$OUT
run "$BT" query r.bf nonmembers --count
expect_eq "$raw_fp" "$OUT" "raw answers as zstd"
run "$BT" convert -q raw.bf -o back.bf
expect_same_file r.bf back.bf "raw and back gives the same bytes"
run "$BT" keygen -o signer
run "$BT" build-static -q --sign signer.key -o signed.bf keys
expect_rc 0 "build-static --sign"
run "$BT" stats signed.bf --verify-signature signer.pub
expect_rc 0 "signature verifies"
expect_eq "$(u16_at signed.bf 10)" "3" "a signed bumped Ribbon file stays 1.3"

# --standard-ribbon: one layer, format 1.2, as before bumping; larger, and answers the same way.
run "$BT" build-static --standard-ribbon -o std.bf keys
expect_rc 0 "build-static --standard-ribbon"
expect_match "$ERR" "rows +[0-9]+ \([0-9]+ of [0-9]+ blocks of 64 with 7 columns, the rest 6\)" "standard: mixed columns"
expect_eq "$(u16_at std.bf 10)" "2" "standard: format 1.2"
expect_eq "$(u32_at std.bf 28)" "0" "standard: variant 0"
# From 10^5 keys on, the bumped filter is the smaller (at 20,000 its small last layers cost more).
"$BT" build-static -q --standard-ribbon -o big-std.bf big
[ "$(stat -c %s big-std.bf)" -gt "$(( $(stat -c %s big-1.bf) * 102 / 100 ))" ] ||
  fail "300,000 keys: the standard filter is not 2% larger than the bumped one"
CHECKS=$((CHECKS + 1))
run "$BT" query std.bf keys --count
expect_eq "$OUT" "22000" "standard: every line found"
run "$BT" stats std.bf --measure 100000 --json
echo "$OUT" >std.json
expect_eq "$(jget std.json /measurement/verdict)" "consistent" "standard: measured rate consistent"
expect_eq "$(jget std.json /variant)" "standard" "standard: JSON variant"

# Tiny inputs.
: >empty
run "$BT" build-static -o empty.bf empty
expect_rc 0 "empty input"
run "$BT" query empty.bf keys --count
expect_eq "$OUT" "0" "the empty filter holds nothing"
printf 'alpha\n' >one
run "$BT" build-static -o one.bf one
run "$BT" query one.bf one
expect_eq "$OUT" "alpha" "one key: found"

# The first name of the command builds binary fuse filters as before; -p picks Ribbon there too.
run "$BT" xor-build -o fuse.bf keys
expect_match "$ERR" "^bloomtool: wrote fuse.bf: binary fuse \(8-bit fingerprints\)" "xor-build default"
run "$BT" xor-build -p 1% -o xr.bf keys
expect_match "$ERR" "^bloomtool: wrote xr.bf: Ribbon" "xor-build -p"
run "$BT" build-static -f 16 -o f16.bf keys
expect_match "$ERR" "binary fuse \(16-bit fingerprints\)" "build-static -f implies fuse"
run "$BT" --help
expect_match "$OUT" "build-static" "listed in --help"
[[ "$OUT" != *xor-build* ]] || fail "xor-build listed in --help"
CHECKS=$((CHECKS + 1))

# Bad options: exit 2, one line, no file.
check_bad() {
  local msg=$1; shift
  run "$BT" build-static "$@" -o bad.bf keys
  expect_rc 2 "build-static $*"
  expect_eq "$ERR" "bloomtool: $msg" "build-static $*"
  [ ! -e bad.bf ] || fail "build-static $* wrote a file"
}
check_bad "-p: a Ribbon filter's rate must be between 2^-30 (9.3e-10) and 50%, not 60%" -p 60%
check_bad "-p: a Ribbon filter's rate must be between 2^-30 (9.3e-10) and 50%, not 1e-10" -p 1e-10
check_bad "--fingerprint: Ribbon filters take any rate with -p instead" --kind ribbon -f 8
check_bad "-p: fuse filters have p = 2^-8 or 2^-16 (--fingerprint); -p is for --kind ribbon" --kind fuse -p 1%
check_bad "--kind: unknown kind 'bloom' (expected ribbon, fuse or xor)" --kind bloom
check_bad "--layout xor and --kind ribbon: give one of them" --kind ribbon --layout xor
check_bad "--standard-ribbon: fuse filters have no Ribbon variant" --kind fuse --standard-ribbon

finish
