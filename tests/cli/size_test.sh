#!/usr/bin/env bash
# size: every row against the closed-form formulas (computed here in awk) to 6 significant digits,
# tiny p and sizes beyond 2^40 bits included; JSON fields; impossible input.
source "$(dirname "$0")/lib.sh"
: "${JSON_QUERY:?JSON_QUERY must name the json_query test helper}"
JQ=$JSON_QUERY
MAN=$TESTDATA/../man

# calc EXPR: evaluates an awk expression with ceil() and rnd() available, printed exactly.
calc() {
  awk "function ceil(x) { return x == int(x) ? x : int(x) + 1 }
       function rnd(x) { return int(x + 0.5) }
       BEGIN { printf \"%.17g\n\", $1 }"
}
# same6 ACTUAL EXPECTED DESCRIPTION: equal to 6 significant digits (relative error below 1e-6).
same6() {
  CHECKS=$((CHECKS + 1))
  awk -v a="$1" -v b="$2" 'BEGIN{d=a-b; if(d<0)d=-d; m=b<0?-b:b; exit !(d <= 1e-6*m)}' ||
    fail "$3: got $1, expected $2"
}
# same3 ACTUAL EXPECTED DESCRIPTION: within 0.1% (the standard rows model the index scheme, whose
# coinciding positions add a little to the closed form).
same3() {
  CHECKS=$((CHECKS + 1))
  awk -v a="$1" -v b="$2" 'BEGIN{d=a-b; if(d<0)d=-d; m=b<0?-b:b; exit !(d <= 1e-3*m)}' ||
    fail "$3: got $1, expected $2"
}
# grown ACTUAL CLOSED_FORM MAX_FACTOR DESCRIPTION: at least the closed form, at most FACTOR times it.
grown() {
  CHECKS=$((CHECKS + 1))
  awk -v a="$1" -v b="$2" -v f="$3" 'BEGIN{exit !(a >= b && a <= b * f)}' ||
    fail "$4: got $1, closed form $2"
}
row() { "$JQ" size.json "/rows/$1/$2"; }  # 0 standard, 1 blocked, 2 xor8, 3 xor16, 4 fuse8, 5 fuse16, 6 ribbon, 7 lower_bound

# -n and -p: m = ceil(-n ln p / ln^2 2), k = round(m/n ln 2), p = (1 - e^(-kn/m))^k.
for case in "1000000 0.01 false" "1000000000 1e-9 false" "100000000000 1e-9 true" "1000000 1e-12 false"; do
  set -- $case
  n=$1 p=$2 above=$3
  "$BT" size -n "$n" -p "$p" --json >size.json
  expect_eq "$("$JQ" size.json /rows/0/filter)" "standard" "row order"
  m=$(calc "ceil(-$n * log($p) / (log(2) ^ 2))")
  k=$(calc "rnd($m / $n * log(2))")
  # Grown only where the index scheme costs more than 0.1% (p = 1e-12, k = 40: about 18x).
  grown "$(row 0 bits)" "$(calc "$m")" "$(awk -v p="$p" 'BEGIN{print (p < 1e-10) ? 20 : 1.001}')" "n=$n p=$p: standard bits"
  expect_eq "$(row 0 bytes)" "$(calc "ceil($(row 0 bits) / 8)")" "n=$n p=$p: standard bytes"
  expect_eq "$(row 0 k)" "$k" "n=$n p=$p: standard k"
  [ "$p" = 1e-12 ] || same3 "$(row 0 fpr)" "$(calc "(1 - exp(-$k * $n / $m)) ^ $k")" "n=$n p=$p: standard p"
  same6 "$(row 0 bits_per_key)" "$(calc "$(row 0 bits) / $n")" "n=$n p=$p: standard bits/key"
  expect_eq "$(row 0 above_build_limit)" "$above" "n=$n p=$p: build limit flag"
  expect_eq "$(row 7 bits)" "$(calc "ceil($n * log(1 / $p) / log(2))")" "n=$n p=$p: lower bound bits"
  same6 "$(row 7 bits_per_key)" "$(calc "log(1 / $p) / log(2)")" "n=$n p=$p: lower bound bits/key"
  xor_slots=$(calc "int((ceil(1.23 * $n) + 32 + 2) / 3) * 3")
  expect_eq "$(row 2 bits)" "$(calc "$xor_slots * 8")" "n=$n: xor8 bits"
  expect_eq "$(row 3 bits)" "$(calc "$xor_slots * 16")" "n=$n: xor16 bits"
  same6 "$(row 2 fpr)" "0.00390625" "xor8 p = 2^-8"
  same6 "$(row 5 fpr)" "$(calc "2 ^ -16")" "fuse16 p = 2^-16"
done
CHECKS=$((CHECKS + 1))
awk -v p="$(row 0 fpr)" 'BEGIN{exit !(p > 0.99e-12 && p < 1.01e-12)}' || fail "p = 1e-12 is kept: $(row 0 fpr)"
# The table shows the same figures and marks sizes beyond the build limit.
run "$BT" size -n 100000000000 -p 1e-9
expect_rc 0 "size table"
expect_match "$OUT" "^standard Bloom +100000000000 +43132[0-9]{8}\* +53915[0-9]{7} +502\.1[0-9] GiB +43\.13[0-9]+ +30 +1\.000[0-9]+e-09$" "standard row"
expect_match "$OUT" "^\* more than 2\^40 bits" "build limit footnote"
expect_match "$OUT" "^xor 8-bit .* 0\.00390625!$" "xor8 cannot reach 1e-9"

# -n and -m: k = round(m/n ln 2), p = (1 - e^(-kn/m))^k; lower bound p = 2^(-m/n).
for case in "1000000 1MiB 8388608" "100000000000 512GiB 4398046511104" "1000 1000 1000"; do
  set -- $case
  n=$1 m=$3
  "$BT" size -n "$n" -m "$2" --json >size.json
  k=$(calc "rnd($m / $n * log(2))")
  expect_eq "$(row 0 bits)" "$m" "n=$n m=$2: bits"
  expect_eq "$(row 0 k)" "$k" "n=$n m=$2: k"
  same3 "$(row 0 fpr)" "$(calc "(1 - exp(-$k * $n / $m)) ^ $k")" "n=$n m=$2: standard p"
  same6 "$(row 7 fpr)" "$(calc "2 ^ (-$m / $n)")" "n=$n m=$2: lower bound p"
  expect_eq "$("$JQ" size.json /query/m)" "$m" "n=$n m=$2: query echoed in bits"
done
expect_eq "$(row 1 bits)" "1024" "blocked rounds 1000 bits up to two blocks"
"$BT" size -n 100000000000 -m 512GiB --json >size.json
expect_eq "$(row 0 above_build_limit)" "true" "2^42 bits is above the build limit"
CHECKS=$((CHECKS + 1))
awk -v p="$(row 0 fpr)" 'BEGIN{exit !(p < 1e-8)}' || fail "2^42 bits for 1e11 keys: p below 1e-8"

# -p and -m: capacity n = floor(m ln^2 2 / -ln p); lower bound n = floor(m / log2(1/p)).
for case in "0.01 1MiB 8388608" "1e-10 256GiB 2199023255552"; do
  set -- $case
  p=$1 m=$3
  "$BT" size -p "$p" -m "$2" --json >size.json
  n=$(calc "int($m * log(2) ^ 2 / -log($p))")
  k=$(calc "rnd($m / $n * log(2))")
  expect_eq "$(row 0 keys)" "$n" "p=$p m=$2: standard capacity"
  expect_eq "$(row 0 k)" "$k" "p=$p m=$2: k"
  same3 "$(row 0 fpr)" "$(calc "(1 - exp(-$k * $n / $m)) ^ $k")" "p=$p m=$2: p at capacity"
  expect_eq "$(row 7 keys)" "$(calc "int($m * log(2) / -log($p))")" "p=$p m=$2: lower bound capacity"
done

# -k fixes k: m = ceil(-kn / ln(1 - p^(1/k))).
"$BT" size -n 1000000 -p 1% -k 4 --json >size.json
expect_eq "$(row 0 bits)" "$(calc "ceil(-4 * 1000000 / log(1 - 0.01 ^ (1 / 4)))")" "-k 4 bits"
expect_eq "$(row 1 k)" "4" "-k applies to blocked"

# JSON: documented fields equal the emitted ones.
awk '/^\.SH /{sec=($0 ~ /JSON OUTPUT/)} sec && prev ~ /^\.T[PQ]$/ && /^\.B /{print $2} {prev=$0}' \
  "$MAN/bloomtool-size.1" | sort -u >doc-fields
"$BT" size -n 1M -p 1% --json >size.json
"$JQ" --paths size.json >json-fields
CHECKS=$((CHECKS + 1))
[ "$(wc -l <doc-fields)" -ge 15 ] || fail "too few documented size fields"
expect_eq "$(comm -3 doc-fields json-fields | tr '\n' ' ')" "" "size JSON fields equal the documented ones"

# Impossible input: exit 2, one line, nothing on stdout.
for args in "-n 0 -p 1%" "-n 1M -p 0" "-n 1M -p 1" "-n 1M -p 100%" "-n 1M -p -0.1" "-n 1M" \
  "-n 1M -p 1% -m 1MiB" "-p 1%" "-n 1e18 -p 1%" "-n 5e17 -p 1e-10" "-m 0 -p 1%" "-m 8 -p 1e-9" \
  "-n 1M -p 1% -k 0" "-n 1M -p 1% -k 65" "-n 1M -m 99999999999TiB" "-n 18446744073709551616 -p 1%" \
  "-n 1M -p 1% -m 1MiB"; do
  # shellcheck disable=SC2086
  run "$BT" size $args
  expect_rc 2 "size $args"
  expect_one_error_line "size $args"
  expect_eq "$OUT" "" "size $args prints nothing on stdout"
done
run "$BT" size -n 5e17 -p 1e-10
expect_match "$ERR" "would need 2\^64 bits or more" "overflow named"

finish
