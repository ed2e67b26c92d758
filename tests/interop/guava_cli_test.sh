#!/usr/bin/env bash
# The bloomtool CLI against Guava's jar (libguava-java + a JDK): `build --compat guava` makes the
# bytes BloomFilter.create + put + writeTo make; Guava's readFrom + mightContain on a bloomtool
# filter of 1,000,000 keys agrees with `bloomtool query` on 1,000,000 members and 1,000,000
# non-members (200,000 each in sanitizer builds); a filter Guava wrote answers identically
# through `query --from guava`, and `convert` to a bloomtool file and back reproduces Guava's
# bytes.
source "$(dirname "$0")/lib.sh"
: "${BLOOMTOOL:?BLOOMTOOL must name the bloomtool binary}"
JAR=${GUAVA_JAR:-/usr/share/java/guava.jar}
[ -r "$JAR" ] || skip "guava peer: $JAR is missing (apt-get install libguava-java)"
command -v javac >/dev/null 2>&1 && command -v java >/dev/null 2>&1 ||
  skip "guava peer: no JDK (apt-get install default-jdk-headless)"
must mkdir classes
must javac -d classes -cp "$JAR" "$INTEROP_DIR/GuavaPeer.java"
peer() { java -cp "$JAR:classes" GuavaPeer "$@"; }
bt() { "$BLOOMTOOL" "$@"; }

N=1000000
# Under ASan+UBSan 200,000 keys: the same paths, and the peers' own run time does not shrink.
[ "${BLOOMTOOL_SANITIZED:-0}" = 1 ] && N=200000
make_keys member $N members
make_keys other $N others
cat members others >all
echo "keys: $(wc -l <members) members, $(wc -l <others) non-members"

# 1. bloomtool builds, Guava reads: 0 disagreements over all 2,000,000+ keys.
must bt build --compat guava -n $N -p 1% -q -o ours.guava members
must peer check ours.guava all >guava-on-ours.txt
bt query --from guava ours.guava all >bt-on-ours.txt
expect_eq "$?" 0 "query --from guava exit status (matches found)"
expect_same_file bt-on-ours.txt guava-on-ours.txt \
  "Guava's mightContain on bloomtool's filter vs bloomtool query: $(wc -l <bt-on-ours.txt) maybe"
expect_eq "$(bt query --from guava -c ours.guava members)" "$(wc -l <members)" "every member found"
fp=$(($(wc -l <bt-on-ours.txt) - $(wc -l <members)))
# About 1% of the N non-members: 0.9% to 1.11% is wider than the 99.9% interval of the binomial
# (about +-330 around 10,000 at N = 1,000,000; +-147 around 2,000 at 200,000).
[ "$fp" -ge $((N * 9 / 1000)) ] && [ "$fp" -le $((N * 111 / 10000)) ] ||
  fail "non-members maybe: $fp, expected about 1%"
echo "ok: $fp of $(wc -l <others) non-members maybe"

# 2. Same create(n, p), same keys: Guava's bytes exactly (sizing, k, bits).
must peer create $N 0.01 64 members guava.bin
expect_same_file ours.guava guava.bin "build --compat guava vs BloomFilter.create + put + writeTo"

# 3. Guava builds, bloomtool reads (directly, and after convert); convert back is exact.
must peer create 300000 0.001 64 members guava-over.bin   # overfilled: 1,000,043 keys in 300,000
must peer check guava-over.bin all >guava-over.txt
bt query --from guava guava-over.bin all >bt-over.txt
expect_same_file bt-over.txt guava-over.txt "query --from guava on Guava's (overfilled) file"
must bt convert guava-over.bin -o over.bf --from guava --to bloomtool
bt query over.bf all >bt-over-converted.txt
expect_same_file bt-over-converted.txt guava-over.txt "query on the converted bloomtool file"
must bt convert over.bf -o over.back --from bloomtool --to guava
expect_same_file over.back guava-over.bin "convert guava -> bloomtool -> guava"
must peer create 200000 0.03 32 members mitz32.bin
must bt convert mitz32.bin -o mitz32.bf --from guava --to bloomtool
must bt convert mitz32.bf -o mitz32.back --from bloomtool --to guava
expect_same_file mitz32.back mitz32.bin "convert of a MURMUR128_MITZ_32 file and back"
must peer check mitz32.bin all >guava-mitz32.txt
bt query mitz32.bf all >bt-mitz32.txt
expect_same_file bt-mitz32.txt guava-mitz32.txt "MITZ_32: query on the converted file"

# 4. stats on Guava's 1% filter: the measured rate is consistent with the fill's.
must peer create $N 0.01 64 members guava1.bin
bt stats --from guava guava1.bin --measure 1M --max-fpr 1.2% >stats.txt
expect_eq "$?" 0 "stats --from guava --max-fpr 1.2% passes"
grep -q "is consistent" stats.txt || fail "stats --measure verdict: $(grep measured stats.txt)"
finish
