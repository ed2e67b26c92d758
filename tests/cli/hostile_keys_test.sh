#!/usr/bin/env bash
# Hostile key input: a 4 GiB single line (piped, never stored) and a zstd bomb are refused by
# --max-key-bytes at once, with peak memory bounded by the limit, not by the line; keys at the
# limit pass, with or without CRLF and a byte-order mark.
source "$(dirname "$0")/lib.sh"
rss_slack_kib=$((40 * 1024))
[ "${BLOOMTOOL_SANITIZED:-0}" = 1 ] && rss_slack_kib=$((400 * 1024))  # ASan's shadow and quarantine
have_time=0
[ -x /usr/bin/time ] && have_time=1 || echo "hostile keys: /usr/bin/time missing, RSS checks skipped"

# check_rss LIMIT_KIB DESCRIPTION: the last run's "maxrss N" line (from /usr/bin/time) is below.
check_rss() {
  [ "$have_time" -eq 1 ] || return 0
  local rss
  rss=$(grep -o 'maxrss [0-9]*' "$WORK/.rss" | grep -o '[0-9]*$')
  CHECKS=$((CHECKS + 1))
  [ "${rss:-999999999}" -lt "$1" ] || fail "$2: peak RSS ${rss} KiB, limit $1 KiB"
  echo "hostile keys: $2: peak RSS ${rss} KiB"
}
timed() {
  if [ "$have_time" -eq 1 ]; then /usr/bin/time -o "$WORK/.rss" -f 'maxrss %M' "$@"; else "$@"; fi
}

# A 4 GiB line of 'x' through a pipe, default limit (1 MiB) and 16 MiB.
for limit in "" 16MiB; do
  args=()
  [ -n "$limit" ] && args=(--max-key-bytes "$limit")
  start=$(date +%s%N)
  head -c 4G /dev/zero | tr '\0' x | timed "$BT" build "${args[@]}" -o big.bf 2>err
  RC=${PIPESTATUS[2]}
  ms=$((($(date +%s%N) - start) / 1000000))
  ERR=$(cat err)
  expect_rc 2 "4 GiB line, limit ${limit:-default}"
  bytes=$([ -z "$limit" ] && echo 1048576 || echo 16777216)
  expect_eq "$ERR" "bloomtool: <stdin>: line 1: key longer than the maximum key length ($bytes bytes)" "4 GiB line message"
  [ ! -e big.bf ] || fail "a filter was written for the 4 GiB line"
  check_rss $((bytes / 1024 * 2 + rss_slack_kib)) "4 GiB line, limit ${limit:-1MiB}"
  CHECKS=$((CHECKS + 1))
  [ "$ms" -lt 20000 ] || fail "4 GiB line took $ms ms to refuse"
done
# The same line fed to query.
"$BT" build -q -o small.bf <<<"one-key"
head -c 4G /dev/zero | tr '\0' x | timed "$BT" query small.bf 2>err
RC=${PIPESTATUS[2]}
expect_rc 2 "query of a 4 GiB line"
expect_match "$(cat err)" "line 1: key longer than the maximum key length" "query 4 GiB line message"
check_rss $((2048 + rss_slack_kib)) "query of a 4 GiB line"

# A zstd bomb: 64 MiB of NUL bytes in ~2 KiB, one line; and a bomb of many short lines (fine).
head -c 64M /dev/zero | zstd -q -1 -c >bomb.zst
run timed "$BT" build -o bomb.bf bomb.zst
expect_rc 2 "zstd bomb with one huge line"
expect_eq "$ERR" "bloomtool: bomb.zst: line 1: key longer than the maximum key length (1048576 bytes)" "zstd bomb message"
check_rss $((2048 + rss_slack_kib)) "zstd bomb"
yes 'same-key' | head -n 2000000 | zstd -q -1 -c >dups.zst
run "$BT" build -o dups.bf dups.zst
expect_rc 0 "2M copies of one key"
expect_match "$ERR" "keys added +2000000" "every duplicate read"
expect_match "$ERR" "distinct keys +1 \(exact\)" "one distinct key"
run timed "$BT" build -n 1000 -o dups.bf dups.zst
expect_rc 0 "2M copies of one key, streaming"
check_rss $((2048 + rss_slack_kib)) "2M copies of one key, streaming (-n)"

# Keys at the limit pass: CRLF and a byte-order mark do not count towards it.
printf '\xef\xbb\xbf1234567' >bom7
printf '\xef\xbb\xbf1234567\r\n7654321\r\n' >bom7crlf
for f in bom7 bom7crlf; do
  run "$BT" build --max-key-bytes 7 -o "$f.bf" "$f"
  expect_rc 0 "$f: 7-byte keys with --max-key-bytes 7"
done
run "$BT" query bom7.bf bom7crlf
expect_eq "$OUT" "1234567" "the BOM is not part of the key"
printf '\xef\xbb\xbf12345678' >bom8
run "$BT" build --max-key-bytes 7 -o bom8.bf bom8
expect_rc 2 "8-byte key after a BOM"
# xor-build on duplicate-heavy input terminates (duplicates are removed before peeling, which
# would otherwise never succeed) with bounded time and memory; an empty set too.
run timeout 120 "$BT" xor-build -o dups-xor.bf dups.zst
expect_rc 0 "xor-build of 2M copies of one key"
expect_match "$ERR" "duplicates +1999999 \\(removed\\)" "xor-build counts the duplicates"
expect_match "$ERR" "distinct keys +1 \\(exact\\)" "xor-build: one distinct key"
awk 'BEGIN{for(i=0;i<1000000;i++) printf "k%d\n", i%3}' | zstd -q -1 -c >three.zst
for layout in fuse xor; do
  start=$(date +%s%N)
  run timed timeout 120 "$BT" xor-build --layout "$layout" -o three.bf three.zst
  ms=$((($(date +%s%N) - start) / 1000000))
  expect_rc 0 "xor-build --layout $layout of 1M lines of 3 keys"
  expect_match "$ERR" "distinct keys +3 \\(exact\\)" "xor-build --layout $layout: three distinct keys"
  check_rss $((48 * 1024 + rss_slack_kib)) "xor-build --layout $layout, 1M lines of 3 keys (${ms} ms)"
  run "$BT" query three.bf <<<"k2"
  expect_eq "$OUT" "k2" "xor-build --layout $layout: the keys are found"
done
run timeout 60 "$BT" xor-build -o empty.bf /dev/null
expect_rc 0 "xor-build of no keys"
run "$BT" query empty.bf <<<"anything"
expect_rc 1 "an empty xor filter holds nothing"

finish
