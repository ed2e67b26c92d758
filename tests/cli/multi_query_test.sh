#!/usr/bin/env bash
# query with several filters (FILTER... -- INPUT..., or -f repeatable): seven daily filters of
# every kind, seed and normalisation answer exactly what querying each alone and combining the
# results with sort/comm gives, for any (default), --all, --absent, --which and --count, with
# grep's exit codes; the one-filter forms keep their meaning; bad combinations are usage errors.
MAN_DIR=$(cd "$(dirname "$0")/../../man" && pwd)
source "$(dirname "$0")/lib.sh"
: "${CRAFT_FILTER:?CRAFT_FILTER must name the craft_filter helper}"

# Day d holds users d*200 .. d*200+2999 (sliding windows: users 1400-3199 are in all seven), as
# built by that day's job.
for d in 1 2 3 4 5 6 7; do
  awk -v d="$d" 'BEGIN{for(i=d*200;i<d*200+3000;i++) printf "user%d@example.com\n", i}' >day$d
done
"$BT" build -q -p 1% -o d1.bf day1
"$BT" build -q -p 1% --variant blocked -o d2.bf day2
"$BT" xor-build -q -o d3.bf day3
"$BT" xor-build -q --layout xor --fingerprint 16 -o d4.bf day4
"$BT" build -q -p 1% --lowercase -o d5.bf day5
"$BT" build -q -p 1% --normalize email -o d6.bf day6
"$BT" build -q -p 0.1% -o d7.bf day7
F=(d1.bf d2.bf d3.bf d4.bf d5.bf d6.bf d7.bf)
FARGS=()
for f in "${F[@]}"; do FARGS+=(-f "$f"); done

# Queries: members of every day, in several shapes (case, spaces: only the lowercase and email
# filters fold them), and strangers; one record per line, all distinct.
awk 'BEGIN{for(i=0;i<5000;i++){ if(i%3==0) printf "user%d@example.com\n", i;
     else if(i%3==1) printf "User%d@Example.COM\n", i; else printf " user%d@example.com\n", i }}' >keys
sort keys >keys.sorted

# Each filter alone, then combined.
for f in "${F[@]}"; do
  "$BT" query "$f" keys >"$f.hits"
  sort "$f.hits" >"$f.sorted"
done
sort -u ./*.bf.sorted >any.expected
cp d1.bf.sorted all.expected
for f in "${F[@]:1}"; do comm -12 all.expected "$f.sorted" >all.tmp && mv all.tmp all.expected; done
comm -23 keys.sorted any.expected >none.expected
comm -23 keys.sorted all.expected >notall.expected
CHECKS=$((CHECKS + 1))
[ "$(wc -l <any.expected)" -gt 2000 ] && [ "$(wc -l <all.expected)" -lt "$(wc -l <any.expected)" ] &&
  [ "$(wc -l <none.expected)" -gt 100 ] || fail "the key set does not exercise any/all/absent"

check_mode() {  # EXPECTED DESCRIPTION ARGS...
  local expected=$1 what=$2
  shift 2
  run "$BT" query "${FARGS[@]}" "$@" keys
  expect_rc 0 "$what: exit status"
  expect_eq "$(sort <<<"$OUT")" "$(cat "$expected")" "$what: same records as alone + sort/comm"
  expect_eq "$(grep -Fvxf keys <<<"$OUT" | head -1)" "" "$what: records printed as read"
  run "$BT" query "${FARGS[@]}" "$@" --count keys
  expect_eq "$OUT" "$(wc -l <"$expected")" "$what: --count"
}
check_mode any.expected "any"
check_mode all.expected "--all" --all
check_mode none.expected "--absent" --absent
check_mode notall.expected "--all --absent" --all --absent

# Input order is kept (records come out in the order of the keys).
run "$BT" query "${FARGS[@]}" keys
expect_eq "$OUT" "$(grep -Fxf any.expected keys)" "any: records in input order"
run "$BT" query "${FARGS[@]}" --threads 1 keys
expect_eq "$OUT" "$(grep -Fxf any.expected keys)" "any, one thread: same output"

# --which: the filters (as named) that may contain the key, comma-separated, a tab, the record.
awk -v n=${#F[@]} 'FNR==1{f++} f<=n{hit[f, $0]=1; next}
  { s=""; for(i=1;i<=n;i++) if(hit[i, $0]) s = s (s==""?"":",") "d" i ".bf"; print s "\t" $0 }' \
  d1.bf.hits d2.bf.hits d3.bf.hits d4.bf.hits d5.bf.hits d6.bf.hits d7.bf.hits keys >which.all
run "$BT" query "${FARGS[@]}" --which keys
expect_eq "$OUT" "$(grep -v $'^\t' which.all)" "--which: exact lines"
run "$BT" query "${FARGS[@]}" --which --all keys
expect_eq "$OUT" "$(grep '^d1.bf,d2.bf,d3.bf,d4.bf,d5.bf,d6.bf,d7.bf'$'\t' which.all)" "--which --all"
run "$BT" query "${FARGS[@]}" --which --absent keys
expect_eq "$OUT" "$(grep $'^\t' which.all)" "--which --absent: empty list, tab, record"
run "$BT" query "${FARGS[@]}" --which --all --absent keys
expect_eq "$OUT" "$(grep -v '^d1.bf,d2.bf,d3.bf,d4.bf,d5.bf,d6.bf,d7.bf'$'\t' which.all)" \
  "--which --all --absent"
# Names as given on the command line, also for one filter.
run "$BT" query -f ./d1.bf --which keys
expect_eq "$OUT" "$(sed 's|^|./d1.bf\t|' d1.bf.hits)" "--which names one filter as given"

# Spot checks by hand: shapes that only the normalising filters fold.
printf 'User2000@Example.COM\nuser1@example.com\n  user3000@example.com \nuser2500@example.com\n' >spot
run "$BT" query "${FARGS[@]}" --which spot
expect_eq "$OUT" "d5.bf,d6.bf	User2000@Example.COM
d6.bf	  user3000@example.com 
d1.bf,d2.bf,d3.bf,d4.bf,d5.bf,d6.bf,d7.bf	user2500@example.com" "--which on hand-picked keys"
expect_rc 0 "--which exit status"

# The positional form FILTER... -- INPUT... is the same query; '-' after '--' reads stdin.
run "$BT" query "${F[@]}" --which -- keys
expect_eq "$OUT" "$(grep -v $'^\t' which.all)" "FILTER... -- INPUT: same as -f"
run bash -c "'$BT' query --all ${F[*]} -- - <keys"
expect_eq "$OUT" "$(grep -Fxf all.expected keys)" "FILTER... -- - reads the keys from stdin"

# Filters with another seed: the bits of d1 set again under seed 12345's header, so that filter
# answers differently, and each filter must be asked with its own seed.
"$CRAFT_FILTER" d1.bf d1s.bf seed=12345
"$BT" query d1s.bf keys >d1s.hits
CHECKS=$((CHECKS + 1))
[ "$(wc -l <d1s.hits)" -lt "$(wc -l <d1.bf.hits)" ] || fail "the crafted seed changes the answers"
run "$BT" query -f d1.bf -f d1s.bf --which keys
expect_eq "$OUT" "$(awk 'FNR==1{f++} f<3{hit[f, $0]=1; next}
  { s=""; if(hit[1, $0]) s="d1.bf"; if(hit[2, $0]) s = s (s==""?"":",") "d1s.bf";
    if(s!="") print s "\t" $0 }' d1.bf.hits d1s.hits keys)" "two seeds: --which as each alone"

# Exit codes like grep: 0 something matched, 1 nothing did; -q stops at the first match.
printf 'stranger-1\nstranger-2\n' >strangers
run "$BT" query "${FARGS[@]}" strangers
expect_rc 1 "no match: exit 1"
expect_eq "$OUT" "" "no match: nothing printed"
run "$BT" query "${FARGS[@]}" --count strangers
expect_rc 1 "--count with no match: exit 1"
expect_eq "$OUT" "0" "--count with no match prints 0"
run "$BT" query "${FARGS[@]}" -q strangers
expect_rc 1 "-q, no match"
run "$BT" query "${FARGS[@]}" -q keys
expect_rc 0 "-q, a match"
expect_eq "$OUT$ERR" "" "-q prints nothing"
run "$BT" query "${FARGS[@]}" --absent -q strangers
expect_rc 0 "--absent -q, strangers"
printf 'user4300@example.com\n' | "$BT" query "${FARGS[@]}" --all -q
RC=$?
expect_rc 1 "--all -q: a key of day 7 only is not in all"

# A key that one filter's normalisation empties is absent from that filter only; a key every
# filter's normalisation empties is skipped, as one filter skips it.
printf 'x\n' >x.keys
"$BT" build -q -p 1% --strip-prefix x -o strip.bf x.keys
"$BT" build -q -p 1% -o plainx.bf x.keys
run "$BT" query -f strip.bf -f plainx.bf --which x.keys
expect_eq "$OUT" "plainx.bf	x" "a key emptied by one normalisation"
run "$BT" query -f strip.bf -f strip.bf --absent --count x.keys
expect_eq "$OUT" "0" "a key emptied by every normalisation is skipped"
run "$BT" query strip.bf --absent --count x.keys
expect_eq "$OUT" "0" "as one filter skips it"

# One filter: the positional FILTER and -f FILTER answer alike; --all changes nothing.
"$BT" query d5.bf keys >one.pos
run "$BT" query -f d5.bf keys
expect_eq "$OUT" "$(cat one.pos)" "-f FILTER = FILTER"
run "$BT" query -f d5.bf --all keys
expect_eq "$OUT" "$(cat one.pos)" "--all with one filter"
# Today's forms keep their meaning: FILTER [INPUT...]; '--' with nothing before it, or one
# FILTER before it, or nothing after it.
cp keys ./-odd
run "$BT" query d5.bf -- -odd
expect_eq "$OUT" "$(cat one.pos)" "FILTER -- INPUT"
run "$BT" query d5.bf -- strangers -odd
expect_eq "$OUT" "$(cat one.pos)" "FILTER -- INPUT INPUT"
run "$BT" query -- d5.bf strangers -odd
expect_eq "$OUT" "$(cat one.pos)" "-- FILTER INPUT INPUT"
run "$BT" query d5.bf strangers keys --
expect_eq "$OUT" "$(cat one.pos)" "FILTER INPUT INPUT --: nothing after '--'"
run "$BT" query --count d5.bf -- keys
expect_eq "$OUT" "$(wc -l <one.pos)" "an option before FILTER -- INPUT"
run "$BT" query --threads 2 d5.bf -- keys
expect_eq "$OUT" "$(cat one.pos)" "an option value before '--' is not a filter"
# '--' as an option's value is not the separator.
run "$BT" query --delimiter -- d5.bf keys
expect_match "$ERR" "^bloomtool: --delimiter: '--' is not one character" "'--' as a value"
# With -f every positional argument is an input, the first one too, before '--' or after it.
run "$BT" query -f d5.bf strangers keys
expect_eq "$OUT" "$(cat one.pos)" "-f: positional arguments are inputs"
run "$BT" query -f d5.bf strangers -- keys
expect_eq "$OUT" "$(cat one.pos)" "-f: positional arguments on both sides of '--' are inputs"
run "$BT" query -f d5.bf -f d6.bf -- -odd
expect_eq "$OUT" "$(sort -u d5.bf.hits d6.bf.hits | grep -Fxf - keys)" "-f ... -- INPUT"
# Keys from stdin with -f.
run bash -c "'$BT' query -f d5.bf <keys"
expect_eq "$OUT" "$(cat one.pos)" "-f with keys on stdin"

# Usage errors: one line, exit 2.
refused() {  # REGEX ARGS...
  local re=$1
  shift
  run "$BT" query "$@"
  expect_rc 2 "refused: $*"
  expect_one_error_line "refused: $*"
  expect_match "$ERR" "$re" "refused: $* says why"
}
refused "^bloomtool: FILTER: argument required \(or several: FILTER\.\.\. -- INPUT\.\.\., or -f FILTER\)"
refused "^bloomtool: FILTER: argument required" --count --
refused "^bloomtool: inputs: empty value" d1.bf d2.bf -- ''
refused "^bloomtool: keys: corrupt: not a bloomtool filter file" d1.bf keys -- strangers
refused "^bloomtool: --which: cannot be combined with --count" -f d1.bf --which --count keys
refused "^bloomtool: --which: cannot be combined with --quiet" -f d1.bf --which -q keys
refused "^bloomtool: --count: cannot be combined with --quiet" -f d1.bf -f d2.bf -c -q keys
refused "^bloomtool: --filter: needs a value" keys -f
cp d1.bf 'a,b.bf'
refused "^bloomtool: --which: the filter name 'a,b.bf' holds a comma" -f 'a,b.bf' --which keys
run "$BT" query -f 'a,b.bf' keys
expect_eq "$OUT" "$(cat d1.bf.hits)" "a comma in a name is fine without --which"
refused "^bloomtool: keys: corrupt: not a bloomtool filter file" -f keys -f d1.bf keys
refused "^bloomtool: -: standard input can be read only once" -f - -f - keys
refused "^bloomtool: -: the filter is read from standard input, so the keys cannot be" -f - -f d1.bf
refused "^bloomtool: -: the filter is read from standard input, so the keys cannot be" - d1.bf -- -
refused "^bloomtool: no-such.bf: No such file or directory" -f d1.bf -f no-such.bf keys

# The DAILY ROTATION recipe of bloomtool-query(1), run as written (its key directory moved here):
# eight older dailies and today's; the recipe keeps the newest seven and queries them together.
recipe() {  # N: the Nth example block of the DAILY ROTATION section, roff escapes undone
  awk -v n="$1" '/^\.SH DAILY ROTATION/ { on = 1; next } /^\.SH/ { on = 0 }
    on && /^\.EX$/ { i++; ex = 1; next } /^\.EE$/ { ex = 0 } on && ex && i == n' \
    "$MAN_DIR/bloomtool-query.1" |
    sed -e 's/\\-/-/g' -e 's/\\e/\\/g' -e "s|/data/keys/|$WORK/data/|g"
}
mkdir -p daily data
for d in 1 2 3 4 5 6 7 8; do
  awk -v d="$d" 'BEGIN{for(i=d*100;i<d*100+100;i++) printf "event%d\n", i}' >"data/2000-01-0$d.txt"
  "$BT" build -q -p 0.1% -o "daily/2000-01-0$d.bf" "data/2000-01-0$d.txt"
done
awk 'BEGIN{for(i=900;i<1000;i++) printf "event%d\n", i}' >"data/$(date -u +%F).txt"
awk 'BEGIN{for(i=0;i<1100;i++) printf "event%d\n", i}' >candidates.txt
recipe 1 >rotate.sh
grep -q '^bloomtool query --absent daily/\*.bf -- candidates.txt' rotate.sh ||
  fail "the rotation recipe is not the one expected: $(cat rotate.sh)"
run env PATH="$(dirname "$BT"):$PATH" sh -eu rotate.sh
expect_rc 0 "the rotation recipe runs"
expect_eq "$(ls daily | tr '\n' ' ')" "2000-01-03.bf 2000-01-04.bf 2000-01-05.bf 2000-01-06.bf 2000-01-07.bf 2000-01-08.bf $(date -u +%F).bf " \
  "the recipe keeps the newest seven dailies"
expect_eq "$(cat unseen.txt)" "$(awk 'BEGIN{for(i=0;i<300;i++) printf "event%d\n", i; for(i=1000;i<1100;i++) printf "event%d\n", i}')" \
  "keys in none of the seven: those of the dropped days and the new ones"

finish
