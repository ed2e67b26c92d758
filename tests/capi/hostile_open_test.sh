#!/usr/bin/env bash
# bloomtool_open and bloomtool_open_trusted on paths no reader should read to the end or wait on:
# devices and an endless FIFO as the filter, a FIFO and a device as the trusted key. Each returns
# an error status at once (no hang, no growth), its message naming the path.
source "$(dirname "$0")/../cli/lib.sh"
: "${CAPI_CHECK:?CAPI_CHECK must name the capi_check program}"
C=$CAPI_CHECK
BF=$TESTDATA/golden/v1-bloom-standard.bf
RSS_LIMIT=$((64 * 1024))
[ "${BLOOMTOOL_SANITIZED:-0}" = 1 ] && RSS_LIMIT=$((512 * 1024))

opens() {  # DESCRIPTION EXPECTED-OUTPUT-REGEX CMD...
  local what=$1 re=$2
  shift 2
  if [ -x /usr/bin/time ]; then
    run timeout 5 /usr/bin/time -o "$WORK/.rss" -f '%M' "$@"
    CHECKS=$((CHECKS + 1))
    [ "$(tail -n 1 "$WORK/.rss")" -lt "$RSS_LIMIT" ] 2>/dev/null ||
      fail "$what: peak RSS $(tail -n 1 "$WORK/.rss") KiB"
  else
    run timeout 5 "$@"
  fi
  expect_rc 2 "$what"
  expect_match "$OUT" "$re" "$what message"
}

for dev in /dev/zero /dev/urandom; do
  opens "open $dev" "^corrupt: $dev: corrupt: not a bloomtool filter file \(bad magic\)$" "$C" open "$dev"
done
mkfifo endless
{ cat "$BF"; cat /dev/zero; } >endless 2>/dev/null &
opens "open an endless FIFO" "^corrupt: endless: corrupt: more than 1048576 bytes after the payload$" \
  "$C" open endless
wait
mkfifo key
opens "trusted key a FIFO" "^invalid argument: key: a FIFO, not a key file" "$C" trusted "$BF" key
opens "trusted key a device" "^invalid argument: /dev/null: a character device, not a key file" \
  "$C" trusted "$BF" /dev/null
finish
