#!/usr/bin/env bash
# Raw (codec 2) files changed under a running `query`, and one larger than the machine's memory.
# - Truncated (as `cp new.bf live.bf` does first) and rewritten in place (as `dd conv=notrunc` or
#   `rsync --inplace` do) while a query reads its keys from a FIFO: the query stops with exit 2
#   and one line naming the file and the chunk, never a signal; what it printed before (the
#   answers of keys read before the change) stays on stdout, and nothing it printed is wrong.
# - A raw file converted to a peer's format gives the peer's file (every chunk read first).
# - A sparse raw filter whose payload is larger than this machine's memory opens and answers
#   with a peak RSS under 64 MiB (skipped only where the filesystem has no sparse files).
# The C API and the Python module are checked alike in tests/capi/raw_changes_test.sh and
# tests/python/test_raw_changes.py.
source "$(dirname "$0")/lib.sh"
: "${SPARSE_RAW:?SPARSE_RAW must name the sparse_raw test helper}"

# Three long members first: the answer to each (300 KB, more than stdout's buffer) goes to stdout
# at once, so the test knows the query has read one before it changes the file. 64 MiB of payload in 1,024 chunks:
# those three keys read 21 of them at most, the 15,000 keys after the change read almost all.
for i in 1 2 3; do printf "long$i-%0300000d\n" 0; done >long.txt
seq 1 15000 >keys.txt
cat long.txt keys.txt | "$BT" build -q --codec raw -m 64MiB -k 7 -o base.bf || fail "build"
seq 100001 115000 | "$BT" build -q --codec raw -m 64MiB -k 7 -o other.bf || fail "build other"
expect_eq "$(stat -c %s other.bf)" "$(stat -c %s base.bf)" "same layout, so dd-style rewrites"

# query_while CHANGE...: runs `query live.bf` on a FIFO, feeds long.txt, waits for its answers
# on stdout, runs CHANGE, feeds keys.txt and closes the FIFO. Sets RC, OUT (stdout's file) and
# ERR.
query_while() {
  cp base.bf live.bf
  rm -f keys.fifo q.out q.err
  mkfifo keys.fifo
  "$BT" query live.bf <keys.fifo >q.out 2>q.err &
  local pid=$!
  exec 3>keys.fifo
  cat long.txt >&3
  local waited=0
  while [ ! -s q.out ] && [ "$waited" -lt 300 ]; do sleep 0.1; waited=$((waited + 1)); done
  echo "waited $waited tenths of a second for the first answers; now: $*"
  "$@"
  cat keys.txt >&3 2>/dev/null
  exec 3>&-
  wait "$pid"
  RC=$?
  ERR=$(cat q.err)
}

# expect_printed WHAT: q.out holds the first long member, printed before WHAT, and only members.
expect_printed() {
  expect_eq "$(head -1 q.out | cksum)" "$(head -1 long.txt | cksum)" \
    "the answers printed before $1 are kept"
  expect_eq "$(sort -u q.out long.txt keys.txt | wc -l)" "$(sort -u long.txt keys.txt | wc -l)" \
    "every line printed before $1 is a member"
}

query_while truncate -s 100000 live.bf
expect_rc 2 "truncated under the query (not a signal: 135 would be SIGBUS)"
expect_match "$ERR" \
  "^bloomtool: live\.bf: truncated: payload chunk [0-9]+ at byte offset [0-9]+ \(65536 bytes\): file now has 100000 bytes, [0-9]+ of the chunk's bytes read \(it changed while open\)$" \
  "one line naming the file, the chunk and the new length"
expect_printed "the change"

query_while dd if=other.bf of=live.bf conv=notrunc status=none
expect_rc 2 "rewritten in place under the query"
expect_match "$ERR" \
  "^bloomtool: live\.bf: corrupt: payload chunk [0-9]+ at byte offset [0-9]+ \(65536 bytes\): checksum mismatch$" \
  "one line naming the chunk that no longer matches its checksum"
expect_printed "the rewrite"

# The same file replaced by `cp` (truncated, then written) before a new query: the new file.
cp base.bf live.bf
cp other.bf live.bf
run "$BT" query -c live.bf keys.txt
expect_eq "$OUT" "0" "after cp, the new filter's answers"

# A raw file converted to a peer's format: its words are read whole first (not left unread).
run "$BT" convert -q --codec raw -o g64.bf "$TESTDATA/golden/v1.1-bloom-guava-mitz64.bf"
run "$BT" convert -q --to guava -o g64.bin g64.bf
expect_rc 0 "raw to guava"
expect_eq "$(cmp g64.bin "$TESTDATA/golden/guava-mitz64.bin" && echo same)" "same" \
  "raw to guava gives the golden peer file"

# --- larger than memory --------------------------------------------------------------------------
mem=$(($(awk '/^MemTotal:/ { print $2 }' /proc/meminfo) * 1024))
size=$((1 << 30))
while [ "$size" -le "$mem" ]; do size=$((size * 2)); done
if [ "$size" -gt $((1 << 37)) ]; then
  echo "SKIP: more than 128 GiB of memory, no valid filter is larger"
else
  echo a | "$BT" build -q --codec raw -m 64KiB -o small.bf || fail "build small"
  "$SPARSE_RAW" small.bf huge.bf "$size" || fail "sparse_raw"
  if [ "$(($(stat -c %b huge.bf) * 512))" -gt $((64 << 20)) ]; then
    echo "SKIP: no sparse files here (huge.bf takes $(stat -c %b huge.bf) blocks)"
  else
    printf 'a\nb\nkey-42\n' >few.txt
    /usr/bin/time -f %M -o rss.txt "$BT" query huge.bf few.txt >q.out 2>q.err
    RC=$?
    ERR=$(cat q.err)
    expect_rc 1 "a $size-byte raw filter (memory: $mem bytes) opens and answers: nothing found"
    expect_eq "$(cat q.out)" "" "no key of an empty filter"
    if [ "${BLOOMTOOL_SANITIZED:-0}" != 1 ]; then  # ASan: shadow memory
      CHECKS=$((CHECKS + 1))
      [ "$(tail -1 rss.txt)" -lt 65536 ] || fail "peak RSS $(tail -1 rss.txt) KiB, not under 64 MiB"
    fi
  fi
fi

echo "$CHECKS checks, $FAILURES failed"
[ "$FAILURES" -eq 0 ]
