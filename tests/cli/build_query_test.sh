#!/usr/bin/env bash
# build and query end to end: formats of the same keys, determinism, exit codes, errors.
source "$(dirname "$0")/lib.sh"

awk 'BEGIN{for(i=0;i<20000;i++) printf "https://site%d.example/p/%d\n", i%50, i}' >keys.lf
awk 'BEGIN{for(i=0;i<20000;i++) printf "https://other%d.example/q/%d\n", i%50, i}' >nonmembers
sed 's/$/\r/' keys.lf >keys.crlf
head -c -1 keys.lf >keys.nofinal
zstd -q -19 keys.lf -o keys.zst
export SOURCE_DATE_EPOCH=1700000000

for f in keys.lf keys.crlf keys.nofinal keys.zst; do
  run "$BT" build -p 1% -o "$f.bf" "$f"
  expect_rc 0 "build $f"
done
expect_same_file keys.lf.bf keys.crlf.bf "CRLF gives the same filter"
expect_same_file keys.lf.bf keys.nofinal.bf "no final newline gives the same filter"
expect_same_file keys.lf.bf keys.zst.bf "zstd input gives the same filter"
run "$BT" build -p 1% -o again.bf keys.lf
expect_same_file keys.lf.bf again.bf "same input twice"
run "$BT" build -p 1% -o - keys.lf
expect_rc 0 "build to stdout"
"$BT" build -p 1% -o - keys.lf 2>/dev/null >stdout.bf
expect_same_file keys.lf.bf stdout.bf "-o - writes the same bytes"
cat keys.lf | "$BT" build -p 1% -o stdin.bf 2>/dev/null
expect_same_file keys.lf.bf stdin.bf "stdin gives the same filter"
run "$BT" build -p 1% -o created.bf --created 2023-11-14T22:13:20Z keys.lf
expect_same_file keys.lf.bf created.bf "--created equals SOURCE_DATE_EPOCH"

# Summary on stderr, nothing on stdout.
run "$BT" build -p 1% -o summary.bf keys.lf
expect_eq "$OUT" "" "build prints nothing on stdout"
expect_match "$ERR" "lines read +20000" "summary: lines read"
expect_match "$ERR" "distinct keys +20000 \(exact\)" "summary: distinct keys"
expect_match "$ERR" "k +7" "summary: k"

# Query: every member present, exit codes like grep.
run "$BT" query keys.lf.bf keys.lf --count
expect_rc 0 "query members"
expect_eq "$OUT" "20000" "0 false negatives"
run "$BT" query keys.lf.bf keys.lf --absent --count
expect_rc 1 "no member is absent"
expect_eq "$OUT" "0" "absent count of members"
run "$BT" query keys.lf.bf nonmembers --absent --count
expect_rc 0 "non-members absent"
absent=$OUT
[ "$absent" -gt 19500 ] && [ "$absent" -lt 20000 ] || fail "non-members mostly absent: $absent"
printf 'https://site1.example/p/1\nnot-a-member-at-all-xyz\n' >two
run "$BT" query keys.lf.bf two
expect_eq "$OUT" "https://site1.example/p/1" "query prints present keys"
run "$BT" query keys.lf.bf two --absent
expect_eq "$OUT" "not-a-member-at-all-xyz" "query --absent prints absent keys"
run "$BT" query keys.lf.bf two -q
expect_rc 0 "-q exit 0 on a match"
expect_eq "$OUT" "" "-q prints nothing"
printf 'not-a-member-at-all-xyz\n' | "$BT" query keys.lf.bf -q
RC=$?
expect_rc 1 "-q exit 1 without match"
run "$BT" query keys.lf.bf keys.crlf --count
expect_eq "$OUT" "20000" "query reads CRLF"
run "$BT" query keys.lf.bf keys.zst --count
expect_eq "$OUT" "20000" "query reads zstd"

# Empty lines are skipped and counted.
printf 'a\n\nb\n\r\n\nc' >blanks
run "$BT" build -p 1% -o blanks.bf blanks
expect_match "$ERR" "lines read +6" "blank lines counted as lines"
expect_match "$ERR" "empty lines +3" "blank lines skipped"
expect_match "$ERR" "keys added +3" "three keys"

# Bad parameters: exit 2, one line, no file.
for args in "-p 0" "-p 1" "-p 100%" "-n 0" "-k 0" "-m 0" "-n 1e30" "-m 99999999999TiB" "-p 1% -m 1MiB" "-k 65 -m 1000" "--variant fancy"; do
  # shellcheck disable=SC2086
  run "$BT" build $args -o bad.bf keys.lf
  expect_rc 2 "build $args"
  expect_one_error_line "build $args"
  [ ! -e bad.bf ] || fail "build $args wrote a file"
done
run "$BT" build -p 1% keys.lf
expect_rc 2 "missing -o"
run "$BT" build -p 1% -o nodir/x.bf keys.lf
expect_rc 2 "missing output directory"
expect_match "$ERR" "nodir/x.bf" "error names the path"
run "$BT" build -p 1% -o x.bf no-such-input
expect_rc 2 "missing input"
expect_match "$ERR" "^bloomtool: no-such-input: No such file or directory$" "missing input message"
run "$BT" query no-such.bf keys.lf
expect_rc 2 "missing filter"
run "$BT" query keys.lf keys.lf
expect_rc 2 "not a filter"
expect_match "$ERR" "not a bloomtool filter file" "bad magic message"

# Capacity guard: 20000 keys into -n 10000 fails, old file untouched.
cp keys.lf.bf guarded.bf
run "$BT" build -n 10000 -p 1% -o guarded.bf keys.lf
expect_rc 2 "capacity guard"
expect_match "$ERR" "more than 20% over -n 10000" "capacity guard message"
expect_same_file keys.lf.bf guarded.bf "capacity guard leaves the old file"
run "$BT" build -n 10000 -p 1% --allow-overfill -o guarded.bf keys.lf
expect_rc 0 "--allow-overfill"
run "$BT" build -n 18000 -p 1% -o within.bf keys.lf
expect_rc 0 "11% over capacity is accepted"

# Long keys: at the limit accepted, one byte over refused.
head -c 100 /dev/zero | tr '\0' x >long100
run "$BT" build -p 1% --max-key-bytes 100 -o long.bf long100
expect_rc 0 "key at --max-key-bytes"
head -c 101 /dev/zero | tr '\0' x >long101
run "$BT" build -p 1% --max-key-bytes 100 -o long.bf long101
expect_rc 2 "key one byte over --max-key-bytes"
expect_match "$ERR" "^bloomtool: long101: line 1: key longer than the maximum key length \(100 bytes\)$" "long key message"

# A truncated zstd input is an error, not a short input.
head -c 200 keys.zst >trunc.zst
run "$BT" build -p 1% -o trunc.bf trunc.zst
expect_rc 2 "truncated zstd input"
expect_match "$ERR" "truncated zstd stream" "truncated zstd message"

# Closed stdout pipe: quiet, prompt.
seq 1 2000000 >many
"$BT" build -p 1% -o many.bf many 2>/dev/null
out=$("$BT" query many.bf many 2>err | head -1)
expect_eq "$out" "1" "head -1 gets the first key"
expect_eq "$(cat err)" "" "nothing on stderr when head closes the pipe"

finish
