#!/usr/bin/env bash
# stats: measured rate against the model, distinct estimate, JSON fields, gates, errors.
source "$(dirname "$0")/lib.sh"
# The --max-age gates compare creation times with now: files made here carry the real time.
unset SOURCE_DATE_EPOCH
: "${JSON_QUERY:?JSON_QUERY must name the json_query test helper}"
: "${CRAFT_FILTER:?CRAFT_FILTER must name the craft_filter test helper}"
JQ=$JSON_QUERY
MAN=$TESTDATA/../man
SEED=20240131

# jget FILE POINTER: one value of a JSON file.
jget() { "$JQ" "$1" "$2"; }

awk 'BEGIN{for(i=0;i<300000;i++) printf "https://host%d.example/path/%d\n", i%1000, i}' >keys300k
head -n 100000 keys300k >keys100k

# --- Must show: "consistent" for p in {10%, 1%, 0.1%}, blocked, 25% and 300% of capacity -----
run "$BT" build -q -p 10% -o p10.bf keys100k
run "$BT" build -q -p 1% -o p1.bf keys100k
run "$BT" build -q -p 0.1% -o p01.bf keys100k
run "$BT" build -q -p 1% --variant blocked -o blocked.bf keys100k
run "$BT" build -q -n 400000 -p 1% -o under.bf keys100k
run "$BT" build -q -n 100000 -p 1% --allow-overfill -o over.bf keys300k
expect_rc 0 "build the overfilled filter"
for f in p10 p1 p01 blocked under over; do
  run "$BT" stats "$f.bf" --measure 1000000 --seed "$SEED" --json
  expect_rc 0 "stats --measure $f"
  printf '%s\n' "$OUT" >"$f.json"
  expect_eq "$(jget "$f.json" /measurement/verdict)" "consistent" "$f: measured rate consistent with the model"
  expect_eq "$(jget "$f.json" /measurement/probes)" "1000000" "$f: probes"
done
# The filters really span the range: about 10%, 1%, 0.1%, a tiny rate and a large one.
in_range() { awk -v x="$1" -v lo="$2" -v hi="$3" 'BEGIN{exit !(x >= lo && x <= hi)}'; }
for spec in "p10 0.09 0.11" "p1 0.009 0.011" "p01 0.0009 0.0011" "under 0 1e-5" "over 0.3 0.6"; do
  set -- $spec
  rate=$(jget "$1.json" /measurement/rate)
  CHECKS=$((CHECKS + 1))
  in_range "$rate" "$2" "$3" || fail "$1: measured rate $rate outside [$2, $3]"
done
# Xor and binary fuse filters: the same measurement against p = 2^-f.
for spec in "fuse 8 0.00390625" "xor 8 0.00390625" "fuse 16 1.52587890625e-05"; do
  set -- $spec
  run "$BT" xor-build -q --layout "$1" -f "$2" -o "$1$2.xf" keys100k
  expect_rc 0 "xor-build $1 $2"
  run "$BT" stats "$1$2.xf" --measure 1000000 --seed "$SEED" --json --max-fill 0.5 --verify
  expect_rc 0 "stats --measure $1$2 with --max-fill and --verify"
  printf '%s\n' "$OUT" >"$1$2.json"
  expect_eq "$(jget "$1$2.json" /measurement/verdict)" "consistent" "$1$2: measured rate consistent with 2^-$2"
  expect_eq "$(jget "$1$2.json" /model_fpr)" "$3" "$1$2: model p = 2^-$2"
  expect_eq "$(jget "$1$2.json" /k)" "$2" "$1$2: k is the fingerprint width"
  expect_eq "$(jget "$1$2.json" /fill)/$(jget "$1$2.json" /set_bits)/$(jget "$1$2.json" /fill_fpr)/$(jget "$1$2.json" /variant)" \
    "null/null/null/null" "$1$2: no fill, no variant"
  expect_eq "$(jget "$1$2.json" /gates/0/status)" "not_applicable" "$1$2: --max-fill does not apply"
  expect_eq "$(jget "$1$2.json" /gates/1/status)" "passed" "$1$2: --verify passes"
  expect_eq "$(jget "$1$2.json" /filter_bits)" "$(($(jget "$1$2.json" /m) * $2))" "$1$2: filter bits = slots * f"
done
expect_eq "$(jget fuse8.json /kind)/$(jget xor8.json /kind)" "binary-fuse/xor" "kinds named"
run "$BT" stats fuse8.xf
expect_match "$OUT" "^  kind +binary-fuse, 8-bit fingerprints$" "human kind line for fuse"
run "$BT" stats fuse8.xf --max-fpr 0.3%
expect_rc 1 "--max-fpr below 2^-8 fails a fuse8 filter"
expect_match "$ERR" "--max-fpr failed: the model's rate 0\.003906 is above 0\.003" "the model's rate is what a fuse filter is gated on"
expect_eq "$(jget over.json /variant)" "standard" "overfilled: standard variant"
expect_eq "$(jget blocked.json /variant)" "blocked" "blocked variant reported"

# Same seed, same answer; the human table carries the same verdict.
run "$BT" stats p1.bf --measure 1000000 --seed "$SEED" --json
expect_eq "$(printf '%s' "$OUT" | "$JQ" - /measurement/false_positives)" "$(jget p1.json /measurement/false_positives)" "same seed, same count"
run "$BT" stats p1.bf --measure 1M --seed "$SEED"
expect_match "$OUT" "^  measured p +[0-9.e-]+ \([0-9]+ of 1000000 probes; 95% CI .*\); fill p .* is consistent" "human measured line"

# A measurement that must deviate: the members themselves as "negatives" all pass.
run "$BT" stats p1.bf --negatives keys100k --json --max-fpr 2%
expect_rc 1 "members as negatives fail --max-fpr"
printf '%s\n' "$OUT" >neg.json
expect_eq "$(jget neg.json /measurement/rate)" "1.0" "every member passes"
expect_eq "$(jget neg.json /measurement/verdict)" "deviates" "members as negatives deviate"
expect_eq "$(jget neg.json /measurement/source)" "negatives" "source negatives"
awk 'BEGIN{for(i=0;i<50000;i++) printf "https://other%d.example/q/%d\n", i%1000, i}' >nonmembers
run "$BT" stats p1.bf --negatives nonmembers --json
expect_rc 0 "real non-members"
printf '%s\n' "$OUT" >nonmem.json
expect_eq "$(jget nonmem.json /measurement/probes)" "50000" "one probe per non-member"
expect_eq "$(jget nonmem.json /measurement/verdict)" "consistent" "non-members consistent"
expect_eq "$(jget nonmem.json /measurement/seed)" "null" "no seed with --negatives"
# --negatives shapes keys with the filter's normalisation, like query: upper-cased members of a
# --lowercase filter are members.
head -n 1000 keys100k >lower1k
tr a-z A-Z <lower1k >upper1k
"$BT" build -q -p 1% --lowercase -o lower.bf lower1k
run "$BT" stats lower.bf --negatives upper1k --json
expect_eq "$(printf '%s' "$OUT" | "$JQ" - /measurement/false_positives)" "1000" "normalisation applied to --negatives"

# --- Must show: distinct estimate within 1% for 1,000,000 keys with duplicates ---------------
awk 'BEGIN{for(i=0;i<1000000;i++) printf "user-%d@example.org\n", i;
           for(i=0;i<300000;i++) printf "user-%d@example.org\n", (i*7919)%1000000}' >dups
within_1pct() { awk -v x="$1" 'BEGIN{d=(x-1000000)/1000000; if(d<0)d=-d; exit !(d<0.01)}'; }
for variant in "standard -p 1%" "blocked -p 0.01%"; do
  set -- $variant
  run "$BT" build -q -n 1000000 "$2" "$3" --variant "$1" -o "dups-$1.bf" dups
  expect_rc 0 "build $1 with duplicates"
  run "$BT" stats "dups-$1.bf" --json
  printf '%s\n' "$OUT" >"dups-$1.json"
  expect_eq "$(jget "dups-$1.json" /keys_added)" "1300000" "$1: duplicates counted as added"
  for field in distinct_keys distinct_from_fill; do
    v=$(jget "dups-$1.json" /$field)
    CHECKS=$((CHECKS + 1))
    within_1pct "$v" || fail "$1: $field $v not within 1% of 1000000"
  done
done
run "$BT" build -q -p 1% -o dups-exact.bf dups
run "$BT" stats dups-exact.bf --json
expect_eq "$(printf '%s' "$OUT" | "$JQ" - /distinct_keys)" "1000000" "exact count without -n"

# --- JSON: every documented field is present, and every field present is documented ----------
documented() {
  awk '/^\.SH /{sec=($0 ~ /JSON OUTPUT/)} sec && prev ~ /^\.T[PQ]$/ && /^\.B /{print $2} {prev=$0}' "$1" | sort -u
}
documented "$MAN/bloomtool-stats.1" >doc-fields
CHECKS=$((CHECKS + 1))
[ "$(wc -l <doc-fields)" -ge 50 ] || fail "too few documented stats fields: $(wc -l <doc-fields)"
"$BT" stats p1.bf --json --measure 1000 --max-fpr 1% --max-fill 0.9 --min-keys 1 --max-age 1d --verify >full.json
expect_eq "$(jget full.json /ok)" "true" "all gates passed"
"$JQ" --paths full.json >json-fields
expect_eq "$(comm -3 doc-fields json-fields | tr '\n' ' ')" "" "stats JSON fields equal the documented ones"
while read -r field; do
  CHECKS=$((CHECKS + 1))
  ptr="/$(printf '%s' "$field" | sed 's/\[\]/.0/g; s/\./\//g')"
  "$JQ" full.json "$ptr" >/dev/null || fail "documented field $field missing"
done <doc-fields
"$BT" stats fuse8.xf --json --measure 1000 --max-fpr 1% --max-fill 0.9 --min-keys 1 --max-age 1d --verify >xor-full.json
"$JQ" --paths xor-full.json >xor-json-fields
expect_eq "$(comm -3 doc-fields xor-json-fields | tr '\n' ' ')" "" "xor stats JSON fields equal the documented ones"
expect_eq "$(jget full.json /kind)" "bloom" "kind"
expect_eq "$(jget full.json /seed)" "0x9e3779b97f4a7c15" "seed as hex text"
expect_eq "$(jget full.json /keys_added)" "100000" "keys_added"
expect_eq "$(jget full.json /checksums)" "verified" "checksums"
expect_eq "$(jget full.json /gates/4/name)" "verify" "gates in documented order"
# Several files: an array, in order.
run "$BT" stats p1.bf p10.bf --json
printf '%s\n' "$OUT" >two.json
expect_eq "$(jget two.json /0/path)/$(jget two.json /1/path)" "p1.bf/p10.bf" "array of two objects"
# A label with quotes, control characters and invalid UTF-8 still gives valid JSON.
printf 'a\nb\n' >ab
"$BT" build -q -p 1% -o label.bf --label "$(printf 'say "hi"\t\\ \xff end')" ab
run "$BT" stats label.bf --json
expect_rc 0 "stats of a hostile label"
expect_eq "$(printf '%s' "$OUT" | "$JQ" - /label)" "$(printf 'say "hi"\t\\ \xef\xbf\xbd end')" "label escaped, invalid byte replaced"
run "$BT" stats label.bf
expect_match "$OUT" '^  label +say "hi"\\x09\\ ' "control bytes shown escaped in the table"

# --- Gates -----------------------------------------------------------------------------------
gate() {  # gate DESCRIPTION EXPECTED_RC ARGS...
  local what=$1 want=$2
  shift 2
  run "$BT" stats "$@"
  expect_rc "$want" "$what"
}
gate "--max-fpr above the fill rate" 0 p1.bf --max-fpr 1.2%
gate "--max-fpr below the fill rate" 1 p1.bf --max-fpr 0.5%
expect_match "$ERR" "^bloomtool: p1.bf: --max-fpr failed: the rate implied by the fill 0\.0[0-9]+ is above 0\.005$" "max-fpr failure named"
expect_eq "$OUT" "$(printf '%s' "$OUT" | grep -v '^bloomtool')" "nothing but the table on stdout"
gate "--max-fpr on the measured rate" 1 p1.bf --max-fpr 0.5% --measure 100k --json
expect_eq "$(printf '%s' "$OUT" | "$JQ" - /gates/0/value)" "$(printf '%s' "$OUT" | "$JQ" - /measurement/rate)" "measured rate is what --max-fpr compares"
expect_eq "$(printf '%s' "$OUT" | "$JQ" - /failed_gates)" '["max_fpr"]' "failed_gates lists it"
expect_eq "$(printf '%s' "$OUT" | "$JQ" - /ok)" "false" "ok false"
gate "--max-fill 0.6" 0 p1.bf --max-fill 0.6
gate "--max-fill 40%" 1 p1.bf --max-fill 40%
expect_match "$ERR" "^bloomtool: p1.bf: --max-fill failed: fill 0\.[0-9]+ is above 0\.4$" "max-fill failure named"
gate "--min-keys 100000" 0 p1.bf --min-keys 100000
gate "--min-keys 100001" 1 p1.bf --min-keys 100001
expect_match "$ERR" "--min-keys failed: 100000 distinct keys, fewer than the minimum 100001" "min-keys failure named"
gate "--min-keys 1M on the underfilled one" 1 under.bf --min-keys 1M
"$BT" build -q -p 1% --created 2020-01-01 -o old.bf ab
gate "--max-age of an old file" 1 old.bf --max-age 26h
expect_match "$ERR" "^bloomtool: old.bf: --max-age failed: created [0-9]+ s ago, beyond the limit of 93600 s$" "max-age failure named"
env -u SOURCE_DATE_EPOCH "$BT" build -q -p 1% -o fresh.bf ab
gate "--max-age of a fresh file" 0 fresh.bf --max-age 1h
gate "--verify" 0 p1.bf --verify
gate "--verify of an overfilled filter" 0 over.bf --verify
# A header that lies about its bits: two keys recorded, half of 8 Mbit set (craft_filter rewrites
# the payload and keeps the checksums valid, so only --verify can tell).
"$BT" build -q -m 1MiB -k 7 -o few.bf ab
"$CRAFT_FILTER" few.bf lying.bf fill=1
gate "stats of the lying file without --verify" 0 lying.bf
gate "--verify of a lying header" 1 lying.bf --verify
expect_match "$ERR" "^bloomtool: lying.bf: --verify failed: the header disagrees with the filter: .*more than k=7 per key for 2 keys; 2 distinct keys recorded but the fill implies [0-9]+(;.*)?$" "verify failure named"
# Two failures in one file, both named; with several files the status is the worst.
gate "two failed gates" 1 old.bf --max-age 1h --min-keys 3 --json
expect_eq "$(printf '%s' "$OUT" | "$JQ" - /failed_gates)" '["min_keys","max_age"]' "both failures in JSON"
CHECKS=$((CHECKS + 1))
[ "$(printf '%s\n' "$ERR" | grep -c 'failed:')" -eq 2 ] || fail "two failure lines on stderr: $ERR"
gate "one file fails, one passes" 1 p1.bf old.bf --max-age 26h

# --- Errors: exit 2 ---------------------------------------------------------------------------
gate "missing file" 2 no-such.bf
expect_one_error_line "missing file"
cp p1.bf flipped.bf
printf '\x55' | dd of=flipped.bf bs=1 seek=3000 conv=notrunc status=none
gate "bit-flipped payload" 2 flipped.bf
expect_match "$ERR" "^bloomtool: flipped.bf: corrupt" "corrupt named"
head -c 500 p1.bf >short.bf
gate "truncated file" 2 short.bf --json
printf '%s\n' "$OUT" >short.json
expect_eq "$(jget short.json /error_code)" "corrupt" "a single bad file still gets its JSON object"
expect_eq "$(jget short.json /path)" "short.bf" "the object names the bad file"
expect_match "$ERR" "^bloomtool: short.bf: truncated" "and the error line on stderr"
gate "good and bad files" 2 p1.bf flipped.bf p10.bf --json
printf '%s\n' "$OUT" >mixed.json
expect_eq "$(jget mixed.json /1/error_code)" "corrupt" "bad file reported in the array"
expect_eq "$(jget mixed.json /2/kind)" "bloom" "files after the bad one still reported"
gate "error wins over a failed gate" 2 old.bf flipped.bf --max-age 1h
for args in "--measure 0" "--measure 10 --negatives nonmembers" "--max-fpr 0" "--max-fpr 1" \
  "--max-fill 1.5" "--min-keys -1" "--max-age 5x" "--seed zz" "--negatives no-such-file"; do
  # shellcheck disable=SC2086
  gate "stats $args" 2 p1.bf $args
done
gate "--negatives - with two filters" 2 p1.bf p10.bf --negatives -
: >empty
gate "--negatives with no keys" 2 p1.bf --negatives empty
expect_match "$ERR" "no keys to measure with" "empty negatives named"

# --- build prints the measured-vs-model line unless told not to --------------------------------
run "$BT" build -p 1% -o m.bf keys100k
expect_match "$ERR" "measured p +[0-9.e-]+ \([0-9]+ of 100000 probes; 95% CI .*\); fill p 0\.0[0-9]* is consistent" "build's measured line"
run "$BT" build -p 1% --no-measure -o m.bf keys100k
CHECKS=$((CHECKS + 1))
grep -q "measured p" <<<"$ERR" && fail "--no-measure still measured"
run "$BT" build -q -p 1% -o m.bf keys100k
expect_eq "$ERR" "" "-q prints nothing"
run "$BT" xor-build -o m.xf keys100k
expect_match "$ERR" "measured p +[0-9.e-]+ \([0-9]+ of 100000 probes; 95% CI .*\); model 0\.003906 is consistent" "xor-build's measured line"
run "$BT" xor-build --no-measure -o m.xf keys100k
CHECKS=$((CHECKS + 1))
grep -q "measured p" <<<"$ERR" && fail "xor-build --no-measure still measured"

# --- 5% of the set bits cleared behind the header's back: fill check and --verify fail --------
seq 1 10000 | "$BT" build -q -n 10000 -p 1% -o healthy.bf
"$CRAFT_FILTER" healthy.bf cleared.bf clear_every=20
run "$BT" stats cleared.bf --json --verify
expect_rc 1 "--verify fails on cleared bits"
expect_eq "$(printf '%s' "$OUT" | "$JQ" - /fill_check/verdict)" "deviates" "JSON fill check deviates"
run "$BT" stats cleared.bf
expect_match "$OUT" "^  fill check +deviates: " "text fill check deviates"
run "$BT" stats healthy.bf --verify
expect_rc 0 "healthy filter passes --verify"
expect_match "$OUT" "^  fill check +consistent: " "text fill check consistent"

# --- one key at p = 1%: sized at the minimum, honest verdict; gate limits are whole numbers ---
echo 200000 | "$BT" build -q -o one.bf
run "$BT" stats one.bf --json --measure 1M --min-keys 1 --max-age 1000d --max-fpr 1%
expect_eq "$(printf '%s' "$OUT" | "$JQ" - /measurement/verdict)" "consistent" "one key: consistent"
expect_eq "$(printf '%s' "$OUT" | "$JQ" - /m)" "3136" "one key: minimum size for k = 7"
expect_match "$OUT" '"limit": 1,' "min_keys limit is an integer"
expect_match "$OUT" '"limit": 86400000,' "max_age limit is an integer"

finish
