#!/usr/bin/env bash
# Following a replaced file (bloomtool_refresh, refresh_seconds) through refresh_check: 1,000
# atomic renames over the followed path, alternating two signed filters of different key sets,
# one in 10 a corrupt file and one in 10 a file signed by another key, while 4 threads query
# batches of 900 keys on one handle: every batch answers exactly as one whole good filter, no
# refused file is ever served, and bloomtool_refresh reports each bad replacement. Also run under
# ThreadSanitizer by tsan_threads.sh (REFRESH_CHECK from the tsan build) and under ASan.
source "$(dirname "$0")/../cli/lib.sh"
: "${REFRESH_CHECK:?REFRESH_CHECK must name the refresh_check program}"

"$BT" keygen -q -o signer || fail "setup keygen"
"$BT" keygen -q -o other || fail "setup keygen other"
for set in a b c; do seq -f "$set%g" 1 300 >"$set.txt"; done
cat a.txt b.txt c.txt >query.txt
"$BT" build -q -n 300 -p 0.1% --sign signer.key -o a.bf a.txt || fail "build a"
"$BT" build -q -n 300 -p 0.1% --sign signer.key -o b.bf b.txt || fail "build b"
"$BT" build -q -n 300 -p 0.1% --sign signer.key -o c.bf c.txt || fail "build c"
"$BT" build -q -n 300 -p 0.1% --sign other.key -o c-other.bf c.txt || fail "build c, other key"
# c.bf with one payload byte flipped (the last byte before the trailing 64 of the file).
cp c.bf c-corrupt.bf
size=$(stat -c %s c.bf)
printf '\xff' | dd of=c-corrupt.bf bs=1 seek=$((size - 100)) conv=notrunc status=none
cmp -s c.bf c-corrupt.bf && fail "setup: the corrupt file is not altered"

run "$REFRESH_CHECK" followed.bf signer.pub a.bf b.bf c-corrupt.bf c-other.bf query.txt 4 1000
expect_rc 0 "refresh_check"
expect_match "$OUT" "^1000 replacements \(800 good, [0-9]+ switched by refresh, 200 refused\)" \
  "refresh_check summary"
echo "$OUT"
finish
