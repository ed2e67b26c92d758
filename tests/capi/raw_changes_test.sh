#!/usr/bin/env bash
# A raw (codec 2) filter truncated, and rewritten in place, under an open C API handle
# (raw_changes_check): the batch query fails with BLOOMTOOL_ERR_CORRUPT naming the file and the
# chunk, and no key-by-key answer is a wrong "absent" (each is found, from a chunk verified before
# the change, or that error). Never a signal.
source "$(dirname "$0")/../cli/lib.sh"
: "${RAW_CHANGES_CHECK:?RAW_CHANGES_CHECK must name the raw_changes_check program}"
C=$RAW_CHANGES_CHECK

# 64 MiB of payload in 1,024 chunks of 64 KiB: the first key reads 7 of them, the rest many more.
seq 1 15000 >keys.txt
"$BT" build -q --codec raw -m 64MiB -k 7 -o base.bf keys.txt || fail "build"
seq 100001 115000 | "$BT" build -q --codec raw -m 64MiB -k 7 -o other.bf || fail "build other"
expect_eq "$(stat -c %s other.bf)" "$(stat -c %s base.bf)" "same layout, so dd-style rewrites"

cp base.bf live.bf
run "$C" truncate live.bf keys.txt
expect_rc 0 "truncated under the handle: $OUT"
expect_match "$(head -1 <<<"$OUT")" \
  "^corrupt: live\.bf: truncated: payload chunk [0-9]+ at byte offset [0-9]+ \(65536 bytes\): file now has 100000 bytes" \
  "the batch names the file, the chunk and the new length"
expect_match "$(tail -1 <<<"$OUT")" "^single: [0-9]+ found, [1-9][0-9]* errors$" "keys one by one"

cp base.bf live.bf
run "$C" rewrite live.bf keys.txt other.bf
expect_rc 0 "rewritten in place under the handle: $OUT"
expect_match "$(head -1 <<<"$OUT")" \
  "^corrupt: live\.bf: corrupt: payload chunk [0-9]+ at byte offset [0-9]+ \(65536 bytes\): checksum mismatch$" \
  "the batch names the chunk that no longer matches"
expect_match "$(tail -1 <<<"$OUT")" "^single: [0-9]+ found, [1-9][0-9]* errors$" "keys one by one"

echo "$CHECKS checks, $FAILURES failed"
[ "$FAILURES" -eq 0 ]
