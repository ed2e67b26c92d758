#!/usr/bin/env bash
# The bloomtool CLI against DCSO's `bloom` (golang-github-dcso-bloom-cli): `build --compat dcso`
# makes the bytes `bloom create` makes (N included); `bloom check` on a bloomtool filter of
# 1,000,000 keys (plain and gzip) prints exactly the lines `bloomtool query` prints for 1,000,000
# members and 1,000,000 non-members (200,000 each in sanitizer builds); a filter `bloom create`
# made answers identically through `query --from dcso` and round-trips through `convert` (plain:
# byte for byte; gzip: same gzip header and decompressed bytes); stats says "consistent" for a 1%
# filter and "deviates" for a power-of-two m.
source "$(dirname "$0")/lib.sh"
: "${BLOOMTOOL:?BLOOMTOOL must name the bloomtool binary}"
BLOOM_CLI=$(command -v "${DCSO_BLOOM:-bloom}") ||
  skip "dcso peer: the 'bloom' CLI is missing (apt-get install golang-github-dcso-bloom-cli)"
bloom() { "$BLOOM_CLI" "$@"; }
bt() { "$BLOOMTOOL" "$@"; }

N=1000000
# Under ASan+UBSan 200,000 keys: the same paths, and the peers' own run time does not shrink.
[ "${BLOOMTOOL_SANITIZED:-0}" = 1 ] && N=200000
make_keys member $N members
make_keys other $N others
cat members others >all

# 1. bloomtool builds (plain and gzip), bloom checks: the same lines, 0 disagreements.
must bt build --compat dcso -n $N -p 1% -q -o ours.bloom members
must bt build --compat dcso --gzip -n $N -p 1% -q -o ours.bloom.gz members
must bloom check ours.bloom <all >bloom-on-ours.txt
bt query --from dcso ours.bloom all >bt-on-ours.txt
expect_eq "$?" 0 "query --from dcso exit status (matches found)"
expect_same_file bt-on-ours.txt bloom-on-ours.txt \
  "bloom check vs bloomtool query on bloomtool's filter: $(wc -l <bt-on-ours.txt) maybe"
must bloom --gzip check ours.bloom.gz <all >bloom-on-ours-gz.txt
bt query --from dcso ours.bloom.gz all >bt-on-ours-gz.txt
expect_same_file bt-on-ours-gz.txt bloom-on-ours-gz.txt "the same on the gzip file"
expect_same_file bloom-on-ours-gz.txt bloom-on-ours.txt "gzip and plain answer alike"
expect_eq "$(bt query --from dcso -c ours.bloom members)" "$(wc -l <members)" "every member found"
fp=$(($(wc -l <bt-on-ours.txt) - $(wc -l <members)))
# About 1% of the N non-members: 0.9% to 1.11% is wider than the 99.9% interval of the binomial.
[ "$fp" -ge $((N * 9 / 1000)) ] && [ "$fp" -le $((N * 111 / 10000)) ] ||
  fail "non-members maybe: $fp, expected about 1%"

# 2. Same n, p and keys: the bytes of `bloom create` (N counted in input order), and after
# decompression the same for gzip.
must bloom create -n $N -p 0.01 peer.bloom <members
expect_same_file ours.bloom peer.bloom "build --compat dcso vs bloom create"
must gzip -dc ours.bloom.gz >ours.gz.plain
expect_same_file ours.gz.plain peer.bloom "build --compat dcso --gzip, decompressed"

# 3. bloom creates, bloomtool reads; convert round trips.
printf 'nightly 2024-05-01\n' | must bloom set-data peer.bloom
bt query --from dcso peer.bloom all >bt-on-peer.txt
must bloom check peer.bloom <all >bloom-on-peer.txt
expect_same_file bt-on-peer.txt bloom-on-peer.txt "query --from dcso on bloom's file (with a data block)"
must bt convert peer.bloom -o peer.bf --from dcso --to bloomtool
bt query peer.bf all >bt-on-converted.txt
expect_same_file bt-on-converted.txt bloom-on-peer.txt "query on the converted bloomtool file"
must bt convert peer.bf -o peer.back --from bloomtool --to dcso
expect_same_file peer.back peer.bloom "convert dcso -> bloomtool -> dcso (plain, data block kept)"
must bloom --gzip create -n 300000 -p 0.001 peer-over.bloom.gz <members
must bt convert peer-over.bloom.gz -o over.bf --from dcso --to bloomtool
must bt convert over.bf -o over.back.gz --from bloomtool --to dcso
expect_eq "$(head -c 10 over.back.gz | od -An -t x1)" "$(head -c 10 peer-over.bloom.gz | od -An -t x1)" \
  "gzip round trip: the same member header"
must gzip -dc over.back.gz >over.back.plain
must gzip -dc peer-over.bloom.gz >peer-over.plain
expect_same_file over.back.plain peer-over.plain \
  "gzip round trip (overfilled filter): the same decompressed bytes"
must bloom --gzip check peer-over.bloom.gz <others >bloom-over.txt
bt query over.bf others >bt-over.txt
expect_same_file bt-over.txt bloom-over.txt "overfilled gzip filter: the same answers"

# 4. stats: a 1% filter is consistent; a power-of-two m deviates, and build warns about it.
bt stats --from dcso peer.bloom --measure 1M --max-fpr 1.2% >stats.txt
expect_eq "$?" 0 "stats --from dcso --max-fpr 1.2% passes"
grep -q "is consistent" stats.txt || fail "1% filter: $(grep measured stats.txt)"
head -n 100000 members >few
must bt build --compat dcso -n 100000 -m 1048576 -k 7 --no-measure -o pow2.bloom few 2>warn.txt
grep -q "m = 1048576 is a power of two" warn.txt || fail "no power-of-two warning: $(cat warn.txt)"
bt stats --from dcso pow2.bloom --measure 1M --json >pow2.json
grep -q '"verdict": "deviates"' pow2.json || fail "power-of-two m not flagged: $(cat pow2.json)"
bt stats --from dcso pow2.bloom --measure 1M | grep -q "deviates" || fail "no 'deviates' line"
finish
