#!/usr/bin/env bash
# Hostile filter files through the real binary (query, merge, stats): every known-bad file in
# testdata/bad/ (as listed in its README), a sample of truncations and bit flips of the golden files, files that claim
# enormous payloads (peak memory stays small), and unreadable paths. Each must give exit 2 and
# exactly one "bloomtool: <path>: ..." line; none may be accepted. The exhaustive sweeps (every
# truncation, every bit) run in-process in tests/unit/corruption_test.cpp.
source "$(dirname "$0")/lib.sh"
: "${CRAFT:?CRAFT must name the craft_files helper}"
keys=$TESTDATA/golden/keys.txt

# The bad files are reproducible from the golden files.
mkdir regenerated
"$CRAFT" bad "$TESTDATA/golden" regenerated
CHECKS=$((CHECKS + 1))
diff -r -x README.md "$TESTDATA/bad" regenerated >/dev/null ||
  fail "craft_files no longer reproduces testdata/bad/ (rerun tools/make_golden.sh)"

# Every row of testdata/bad/README.md.
rows=0
while IFS='|' read -r _ file code message _; do
  file=$(tr -d ' `' <<<"$file")
  code=$(sed 's/^ *//; s/ *$//' <<<"$code")
  message=$(sed 's/^ *`//; s/` *$//' <<<"$message")
  rows=$((rows + 1))
  # merge streams its inputs through another reader path; it must refuse the same files.
  run "$BT" merge -q -o merged.bf "$TESTDATA/golden/v1-bloom-standard.bf" "$TESTDATA/bad/$file"
  if [ "$code" = "ok" ]; then
    expect_rc 0 "merge with $file"
  else
    expect_rc 2 "merge with $file"
    expect_one_error_line "merge with $file"
    expect_match "$ERR" "^bloomtool: $TESTDATA/bad/$file: " "merge names $file"
    [ ! -e merged.bf ] || fail "merge with $file wrote a file"
  fi
  rm -f merged.bf
  # stats reads the whole file too (it does not look keys up, so an unknown normalisation is
  # reported, not refused).
  run "$BT" stats "$TESTDATA/bad/$file"
  if [ "$code" = "ok" ] || [ "$file" = normalisation-unknown.bf ]; then
    expect_rc 0 "stats of $file"
  else
    expect_rc 2 "stats of $file"
    expect_one_error_line "stats of $file"
  fi
  run "$BT" query "$TESTDATA/bad/$file" "$keys" --count
  if [ "$code" = "ok" ]; then
    expect_rc 0 "$file loads"
    expect_eq "$OUT" "40" "$file finds every golden key"
    continue
  fi
  expect_rc 2 "$file"
  expect_one_error_line "$file"
  [ "$file" = larger-than-memory.bf ] && continue  # the message depends on the machine's memory
  CHECKS=$((CHECKS + 1))
  [[ "$ERR" == "bloomtool: $TESTDATA/bad/$file: "*"$message"* ]] ||
    fail "$file: stderr '$ERR' lacks '$message'"
done < <(grep '^| `' "$TESTDATA/bad/README.md")
CHECKS=$((CHECKS + 1))
[ "$rows" -ge 40 ] || fail "only $rows rows in testdata/bad/README.md"

# A sample of truncations and bit flips of each golden file (all of them: unit tests).
# rejected FILE DESCRIPTION: exit 2 and one line "bloomtool: FILE: <reason>: ..." (builtins only:
# this runs a few hundred times).
one_line_re="^bloomtool: [^:]*: (truncated|corrupt|unsupported): [^"$'\n'"]*"$'\n'"$"
rejected() {
  "$BT" query "$1" "$keys" --count >/dev/null 2>err
  local rc=$? e=""
  IFS= read -r -d '' e <err
  CHECKS=$((CHECKS + 1))
  [ "$rc" -eq 2 ] && [[ "$e" =~ $one_line_re ]] && [[ "$e" == "bloomtool: $1: "* ]] ||
    fail "$2: exit $rc, stderr: $e"
}
RANDOM=8  # a fixed sample
cases=0
for golden in "$TESTDATA"/golden/*.bf; do
  name=$(basename "$golden")
  size=$(stat -c %s "$golden")
  # Every 23rd length through the header; past 512 bytes (a raw file's chunk table, zero padding
  # and payload) every 251st: the CLI's cost per case is a process start, under ASan a slow one.
  for ((len = 0; len < size; len += (len < 512 ? 23 : 251))); do
    head -c "$len" "$golden" >cut.bf
    rejected cut.bf "$name cut to $len bytes"
    cases=$((cases + 1))
  done
  for _ in $(seq 16); do
    bit=$(((RANDOM * 32768 + RANDOM) % (size * 8)))
    "$CRAFT" flip "$golden" "$bit" flipped.bf
    rejected flipped.bf "$name with bit $bit flipped"
    cases=$((cases + 1))
  done
done
echo "corruption: $rows known-bad files, $cases truncations and bit flips through the CLI"

# Enormous claims are refused before anything is allocated: peak RSS stays small.
rss_limit_kib=$((64 * 1024))
[ "${BLOOMTOOL_SANITIZED:-0}" = 1 ] && rss_limit_kib=$((512 * 1024))  # ASan's shadow memory
if [ -x /usr/bin/time ]; then
  for f in raw-2pow60-bits.bf raw-near-2pow64.bf larger-than-memory.bf payload-stored-huge.bf; do
    run /usr/bin/time -f 'maxrss %M' "$BT" query "$TESTDATA/bad/$f" "$keys"
    expect_rc 2 "$f"
    rss=$(grep -o 'maxrss [0-9]*' <<<"$ERR" | grep -o '[0-9]*$')
    CHECKS=$((CHECKS + 1))
    [ "${rss:-999999999}" -lt "$rss_limit_kib" ] || fail "$f: peak RSS ${rss} KiB"
  done
else
  echo "corruption: /usr/bin/time missing, RSS checks skipped (apt-get install time)"
fi

# Paths that are not readable filter files.
run "$BT" query no-such.bf "$keys"
expect_rc 2 "missing filter file"
expect_match "$ERR" "^bloomtool: no-such.bf: No such file or directory$" "missing filter message"
mkdir adir
run "$BT" query adir "$keys"
expect_rc 2 "directory as filter"
expect_match "$ERR" "^bloomtool: adir: Is a directory$" "directory message"
run "$BT" query /dev/null "$keys"
expect_rc 2 "empty device as filter"
expect_match "$ERR" "^bloomtool: /dev/null: truncated: the file is empty$" "/dev/null message"
"$BT" query <(cat "$TESTDATA/golden/v1-bloom-standard.bf") "$keys" --count >piped 2>&1
RC=$?
expect_rc 0 "filter read from a pipe"
expect_eq "$(cat piped)" "40" "filter from a pipe finds every key"
head -c 200 "$TESTDATA/golden/v1-bloom-standard.bf" >cut.bf
"$BT" query <(cat cut.bf) "$keys" >/dev/null 2>piped
RC=$?
expect_rc 2 "truncated filter from a pipe"
expect_match "$(cat piped)" "truncated" "truncated pipe message"

finish
