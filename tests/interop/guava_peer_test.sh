#!/usr/bin/env bash
# Guava's BloomFilter against the real jar (libguava-java + a JDK): the same sizing as
# BloomFilter.create(funnel, n, p), the same writeTo bytes for the same keys (MURMUR128_MITZ_64,
# and MURMUR128_MITZ_32 through reflection), and the same mightContain answers both ways
# (our reader on Guava's file, Guava's readFrom on ours).
source "$(dirname "$0")/lib.sh"
JAR=${GUAVA_JAR:-/usr/share/java/guava.jar}
[ -r "$JAR" ] || skip "guava peer: $JAR is missing (apt-get install libguava-java)"
command -v javac >/dev/null 2>&1 && command -v java >/dev/null 2>&1 ||
  skip "guava peer: no JDK (apt-get install default-jdk-headless)"

must mkdir classes
must javac -d classes -cp "$JAR" "$INTEROP_DIR/GuavaPeer.java"
peer() { java -cp "$JAR:classes" GuavaPeer "$@"; }

# 1. Sizing: words and k as create(n, p) computes them, for a grid of n and p.
: >grid
for n in 0 1 2 3 7 10 100 999 1000 4096 10000 65536 100000 123457 1000000 3000000; do
  for p in 0.5 0.3 0.1 0.05 0.03 0.01 0.005 0.001 0.0001 1e-06 1e-09 1e-12; do echo "$n $p" >>grid; done
done
must peer size <grid >peer.size
must "$TOOL" guava-size <grid >ours.size
expect_same_file ours.size peer.size "sizing: words and k for $(wc -l <grid) (n, p) pairs"

# 2. Same keys, n, p and strategy: identical writeTo bytes; then the answers of both readers on
# members and non-members, both ways.
N=200000
make_keys member $N members
make_keys other $N others
cat members others >all
check_case() {  # check_case NAME N P STRATEGY KEYS
  local name=$1 n=$2 p=$3 strategy=$4 keys=$5
  must peer create "$n" "$p" "$strategy" "$keys" "$name.peer"
  must "$TOOL" guava-build "$n" "$p" "$strategy" "$keys" "$name.ours"
  expect_same_file "$name.ours" "$name.peer" \
    "$name: MITZ_$strategy, n = $n, p = $p, $(wc -l <"$keys") keys, writeTo bytes"
  must peer query "$name.peer" all >"$name.peer.answers"
  must "$TOOL" guava-query "$name.peer" all >"$name.ours.answers"
  expect_same_file "$name.ours.answers" "$name.peer.answers" \
    "$name: our reader on Guava's file, $(wc -l <all) keys, $(grep -c 1 "$name.peer.answers") maybe"
  local members_yes
  members_yes=$(head -n "$(wc -l <"$keys")" "$name.peer.answers" | grep -c 1)
  [ "$keys" = members ] && expect_eq "$members_yes" "$(wc -l <members)" "$name: every member present"
  must peer query "$name.ours" all >"$name.peer-on-ours.answers"
  expect_same_file "$name.peer-on-ours.answers" "$name.peer.answers" \
    "$name: Guava's readFrom on our file"
}
check_case mitz64 $N 0.01 64 members
check_case mitz32 $N 0.03 32 members
head -n 20000 members >few
check_case overfilled 10000 0.001 64 few
check_case tiny 1 0.5 32 few

# 3. Our writer's file read back by our reader and written again: unchanged.
must "$TOOL" guava-copy mitz32.peer mitz32.copy
expect_same_file mitz32.copy mitz32.peer "Guava's MITZ_32 file read and written back"

# 4. Files Guava rejects we reject too, with the path and offset named.
printf '\x01\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x00' >k0.bin
peer query k0.bin few >/dev/null 2>&1 && fail "Guava accepted k = 0"
"$TOOL" guava-query k0.bin few >/dev/null 2>err
expect_eq "$?" 2 "our reader rejects k = 0"
grep -q "k0.bin: guava: k = 0 at offset 1" err || fail "error message: $(cat err)"
printf '\x01\x07\x7f\xff\xff\xff\x00\x00\x00\x00\x00\x00\x00\x00' >huge.bin
peer query huge.bin few >/dev/null 2>&1 && fail "Guava accepted 2^31-1 words in 14 bytes"
"$TOOL" guava-query huge.bin few >/dev/null 2>err
expect_eq "$?" 2 "our reader rejects a word count beyond the file"
grep -q "huge.bin: guava: data length 2147483647 longs at offset 2" err || fail "error message: $(cat err)"
finish
