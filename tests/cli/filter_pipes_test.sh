#!/usr/bin/env bash
# Filters through pipes: `build -o - | stats -`, `query - keys`, `merge -o OUT - b.bf` read the
# filter from standard input and check it exactly as a file is checked (the same message for every
# truncation, flipped byte and trailing byte, naming <stdin>); a header that claims a large payload
# costs no memory the stream did not deliver; stdin asked for twice is a usage error.
source "$(dirname "$0")/lib.sh"
: "${CRAFT_FILTER:?CRAFT_FILTER must name the craft_filter helper}"
awk 'BEGIN{for(i=0;i<3000;i++) printf "https://pipe.example/%d\n", i}' >keys
awk 'BEGIN{for(i=2000;i<5000;i++) printf "https://pipe.example/%d\n", i}' >probe
"$BT" build -q -p 1% --created 1700000000 -o f.bf keys
"$BT" xor-build -q --created 1700000000 -o x.bf keys

# stats -: the report of the file, under the name '-'; the age line moves with the clock.
strip() { grep -v -e '^  created' -e '"age_seconds"' -e '^f.bf$' -e '^-$' -e '"path"'; }
"$BT" stats f.bf | strip >stats.file
run bash -c "'$BT' build -q -p 1% --created 1700000000 -o - keys | '$BT' stats -"
expect_rc 0 "build -o - | stats -"
expect_eq "$(head -1 <<<"$OUT")" "-" "stats - names the filter '-'"
expect_eq "$(strip <<<"$OUT")" "$(cat stats.file)" "stats - reports what stats FILE reports"
run bash -c "'$BT' stats --json - <f.bf"
expect_match "$OUT" '"path": "-",' "stats --json -"
expect_eq "$(strip <<<"$OUT")" "$("$BT" stats --json f.bf | strip)" "stats --json - = FILE"
run bash -c "'$BT' stats f.bf - <x.bf"
expect_rc 0 "stats FILE - : two filters, one from stdin"

# query -: the filter on stdin, the keys from files.
"$BT" query f.bf probe >hits.file
run bash -c "'$BT' build -q -p 1% -o - keys | '$BT' query - probe"
expect_rc 0 "build -o - | query - keys"
expect_eq "$OUT" "$(cat hits.file)" "query - = query FILE"
run bash -c "'$BT' xor-build -q -o - keys | '$BT' query --count - probe"
expect_eq "$OUT" "$("$BT" query --count x.bf probe)" "xor-build -o - | query -"
run bash -c "'$BT' query -f - -f x.bf --which probe <f.bf"
expect_eq "$OUT" "$("$BT" query -f f.bf -f x.bf --which probe | sed 's/^f\.bf/-/')" \
  "-f - among several filters; --which names it '-'"
# A signed filter through a pipe is checked against the trusted key like a file.
"$BT" keygen -o signer >/dev/null 2>&1
run bash -c "'$BT' build -q -p 1% --sign signer.key -o - keys | '$BT' query --trusted-key signer.pub - probe"
expect_rc 0 "a signed filter through a pipe, trusted"
expect_eq "$OUT" "$(cat hits.file)" "signed through a pipe: same answers"
run bash -c "'$BT' query --trusted-key signer.pub - probe <f.bf"
"$BT" query --trusted-key signer.pub f.bf probe 2>file.err >/dev/null
expect_rc 2 "an unsigned filter through a pipe with --trusted-key"
expect_eq "$ERR" "$(sed 's/f\.bf/<stdin>/' file.err)" "unsigned through a pipe: the file's message"
run bash -c "'$BT' query --absent - probe </dev/null"
expect_rc 2 "empty stdin"
expect_eq "$ERR" "bloomtool: <stdin>: truncated: the file is empty" "empty stdin message"

# Keys cannot come from stdin too, nor two filters: usage errors before anything is read.
refused() {  # MESSAGE COMMAND...
  local msg=$1
  shift
  run bash -c "$* <f.bf"
  expect_rc 2 "refused: $*"
  expect_eq "$ERR" "$msg" "refused: $*"
}
refused "bloomtool: -: the filter is read from standard input, so the keys cannot be; give them as INPUT files" \
  "'$BT'" query -
refused "bloomtool: -: the filter is read from standard input, so the keys cannot be; give them as INPUT files" \
  "'$BT'" query - -
refused "bloomtool: -: standard input can be read only once; give one filter as '-'" \
  "'$BT'" query -f - -f - probe
refused "bloomtool: -: standard input can be read only once; give one filter as '-'" "'$BT'" stats - -
refused "bloomtool: --negatives -: the filter is read from standard input, so the keys cannot be; give them as a file" \
  "'$BT'" stats --negatives - -
refused "bloomtool: -: standard input can be read only once; give one filter as '-'" \
  "'$BT'" merge -o m.bf - -
[ ! -e m.bf ] || fail "a refused merge wrote its output"

# A damaged stream gets, word for word, the message the same bytes get as a file.
size=$(stat -c %s f.bf)
hb=$(od -An -tu4 -j12 -N4 f.bf | tr -d ' ')
for n in 0 1 8 15 16 100 $((hb - 1)) "$hb" $((hb + 1)) $((size / 2)) $((size - 1)); do
  head -c "$n" f.bf >cut.bf
  "$BT" stats cut.bf 2>file.err >/dev/null
  run bash -c "head -c $n f.bf | '$BT' stats -"
  expect_rc 2 "stream cut at $n bytes"
  expect_one_error_line "stream cut at $n bytes"
  expect_eq "$ERR" "$(sed 's/cut\.bf/<stdin>/' file.err)" "stream cut at $n bytes: the file's message"
  expect_eq "$OUT" "" "stream cut at $n bytes: no report"
done
for at in 0 12 40 96 $((hb - 3)) $((hb + 5)) $((size - 2)); do
  cp f.bf flip.bf
  printf '\xff' | dd of=flip.bf bs=1 seek="$at" conv=notrunc status=none
  "$BT" query flip.bf probe 2>file.err >/dev/null
  run bash -c "'$BT' query - probe <flip.bf"
  expect_rc 2 "byte $at overwritten"
  expect_eq "$ERR" "$(sed 's/flip\.bf/<stdin>/' file.err)" "byte $at overwritten: the file's message"
done
{ cat f.bf; printf 'x'; } >long.bf
run bash -c "'$BT' stats - <long.bf"
expect_eq "$ERR" "bloomtool: <stdin>: corrupt: 1 bytes after the payload" "a trailing byte"
run timeout 20 bash -c "cat f.bf /dev/zero | '$BT' stats -"
expect_rc 2 "an endless stream after the filter ends the read"
expect_eq "$ERR" "bloomtool: <stdin>: corrupt: more than 1048576 bytes after the payload" \
  "endless trailing bytes"
run bash -c "echo hello | '$BT' stats -"
expect_eq "$ERR" "bloomtool: <stdin>: corrupt: not a bloomtool filter file (bad magic)" "not a filter"
run "$BT" stats - <&-
expect_eq "$ERR" "bloomtool: <stdin>: standard input is closed" "closed stdin"
run "$BT" stats - </
expect_eq "$ERR" "bloomtool: <stdin>: is a directory" "stdin is a directory"

# The header's claim does not drive memory: the header of a filter with a 64 MiB incompressible
# payload, followed by 1000 bytes, costs what a small filter costs.
if [ "${BLOOMTOOL_SANITIZED:-0}" != 1 ] && ! ldd "$BT" 2>/dev/null | grep -q libasan; then
  "$BT" build -q -m 64MiB -k 3 -o sparse.bf keys
  "$CRAFT_FILTER" sparse.bf dense.bf fill=7
  hb=$(od -An -tu4 -j12 -N4 dense.bf | tr -d ' ')
  head -c $((hb + 1000)) dense.bf >claim.bf
  /usr/bin/time -f %M -o small.rss "$BT" stats - <f.bf >/dev/null
  /usr/bin/time -f %M -o claim.rss "$BT" stats - <claim.bf >/dev/null 2>claim.err
  expect_match "$(cat claim.err)" "^bloomtool: <stdin>: truncated: file has $((hb + 1000)) bytes" \
    "a large claim, few bytes: truncated"
  CHECKS=$((CHECKS + 1))
  claim_kib=$(tail -1 claim.rss) small_kib=$(tail -1 small.rss)
  [ "$claim_kib" -lt $((small_kib + 8 * 1024)) ] ||
    fail "a 64 MiB claim with 1000 bytes took $claim_kib KiB (small filter: $small_kib KiB)"
  run bash -c "'$BT' query --count - probe <dense.bf"
  expect_eq "$OUT" "$("$BT" query --count dense.bf probe)" "a 64 MiB filter through a pipe"
fi

# merge: one input may be stdin; the result is the same bytes as from files.
awk 'BEGIN{for(i=3000;i<6000;i++) printf "https://pipe.example/%d\n", i}' >keys2
"$BT" build -q -m 64KiB -k 5 -o s1.bf keys
"$BT" build -q -m 64KiB -k 5 -o s2.bf keys2
"$BT" merge -q --created 1700000000 -o m.files.bf s1.bf s2.bf
run bash -c "'$BT' build -q -m 64KiB -k 5 -o - keys | '$BT' merge -q --created 1700000000 -o m.pipe.bf s2.bf -"
expect_rc 0 "build -o - | merge -o OUT FILE -"
expect_same_file m.files.bf m.pipe.bf "merge with stdin = merge of files"
run bash -c "'$BT' merge -q -o m.bad.bf - s2.bf <f.bf"
expect_rc 2 "merge of mismatched stdin"
expect_eq "$ERR" "bloomtool: s2.bf: cannot merge: m is 524288 bits here but $("$BT" stats --json f.bf | sed -n 's/^  "m": \([0-9]*\),/\1/p') bits in <stdin>" \
  "merge names stdin <stdin>"
run bash -c "head -c 300 s1.bf | '$BT' merge -q -o m.bad.bf - s2.bf"
expect_rc 2 "merge of a truncated stream"
expect_one_error_line "merge of a truncated stream"
[ ! -e m.bad.bf ] || fail "a failed merge wrote its output"

finish
