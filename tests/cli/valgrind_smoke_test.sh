#!/usr/bin/env bash
# The main CLI paths under valgrind memcheck: no invalid access, no use of uninitialised memory,
# no definite or indirect leak, on success and on error exits. Skipped (with a message) in
# sanitizer builds, which valgrind cannot run, or when valgrind is missing.
source "$(dirname "$0")/lib.sh"
if [ "${BLOOMTOOL_SANITIZED:-0}" = 1 ]; then
  echo "valgrind smoke: SKIPPED (sanitizer build)"
  exit 0
fi
if ! command -v valgrind >/dev/null; then
  echo "valgrind smoke: SKIPPED (valgrind not installed: apt-get install valgrind)"
  exit 0
fi
vg() {
  valgrind -q --error-exitcode=99 --leak-check=full --show-leak-kinds=definite,indirect \
    --errors-for-leak-kinds=definite,indirect "$@"
}
# vrun RC DESCRIPTION ARGS...: bloomtool ARGS under valgrind exits RC and valgrind reports nothing.
runs=0
vrun() {
  local want=$1 what=$2
  shift 2
  run vg "$BT" "$@"
  runs=$((runs + 1))
  expect_rc "$want" "valgrind: $what"
  CHECKS=$((CHECKS + 1))
  ! grep -q '^==[0-9]*==' <<<"$ERR" || fail "valgrind: $what: $ERR"
}

awk 'BEGIN{for(i=0;i<3000;i++) printf "https://vg.example/%d\n", i}' >keys
awk 'BEGIN{for(i=0;i<3000;i++) printf "https://other.example/%d\n", i}' >others
zstd -q keys -o keys.zst
export SOURCE_DATE_EPOCH=1700000000

# One run per path worth watching (memcheck costs about a second of start-up per run).
vrun 0 "build exact" build -p 1% -o exact.bf keys
vrun 0 "build streaming blocked from zstd, 2 threads" build -q -n 3000 --variant blocked --threads 2 -o blocked.bf keys.zst
vrun 0 "build -m -k to stdout, from stdin" build -q -m 64KiB -k 4 -o - - <keys
vrun 0 "query --absent, 2 threads" query blocked.bf others --absent --count --threads 2
vrun 1 "query -q, nothing matches" query exact.bf -q <<<"not-a-member"
vrun 2 "query, payload checksum mismatch" query "$TESTDATA/bad/payload-checksum.bf" keys
vrun 2 "query, damaged zstd payload" query "$TESTDATA/bad/zstd-bad-block.bf" keys
vrun 2 "query, unsupported file" query "$TESTDATA/bad/major-2.bf" keys
vrun 2 "build, key too long" build --max-key-bytes 10 -o x.bf keys
vrun 2 "build, --max-shrink refusal" build -q --max-shrink 1% -o exact.bf <(head -100 keys)
vrun 0 "merge of two filters" merge -q -o merged.bf blocked.bf blocked.bf
vrun 2 "merge, truncated input" merge -q -o merged.bf exact.bf "$TESTDATA/bad/payload-truncated.bf"
vrun 0 "xor-build fuse, 2 threads" xor-build -q --threads 2 -o fuse.bf keys
vrun 0 "xor-build xor 16-bit" xor-build -q --layout xor -f 16 -o xor.bf keys
vrun 0 "query a fuse filter" query fuse.bf others --absent --count
vrun 0 "stats with a measured rate" stats exact.bf --measure 20000 --seed 1
vrun 2 "stats of a bad xor file" stats "$TESTDATA/bad/xor-padding.bf"
vrun 0 "size" size -n 1M -p 1%
vrun 0 "query printing keys" query exact.bf keys
expect_eq "$OUT" "$(cat keys)" "valgrind: query prints every member"
echo "valgrind smoke: $runs runs under memcheck, no errors"

finish
