#!/usr/bin/env bash
# DCSO bloom v1 against the real `bloom` CLI (golang-github-dcso-bloom-cli): the same sizing, the
# same file bytes for the same keys (plain; gzip compared after decompression, since Go's deflate
# differs from zlib's), the same `bloom check` answers both ways, trailing data and the element
# count kept.
source "$(dirname "$0")/lib.sh"
BLOOM_CLI=$(command -v "${DCSO_BLOOM:-bloom}") ||
  skip "dcso peer: the 'bloom' CLI is missing (apt-get install golang-github-dcso-bloom-cli)"
bloom() { "$BLOOM_CLI" "$@"; }
bloom --version 2>&1 | grep -q 'version 0\.2' || echo "note: $(bloom --version 2>&1) (tested with 0.2.4)"

# 1. Sizing: m and k as Initialize(n, p) computes them, for a grid of n and p.
: >grid
for n in 1 2 3 7 10 100 999 1000 4096 10000 65536 100000 123457 1000000 10000000; do
  for p in 0.5 0.3 0.1 0.05 0.03 0.01 0.005 0.001 0.0001 1e-06 1e-09; do echo "$n $p" >>grid; done
done
must "$TOOL" dcso-size <grid >ours.size
: >peer.size
while read -r n p; do
  bloom create -n "$n" -p "$p" grid.bloom </dev/null
  od -An -t u8 -j 24 -N 16 grid.bloom | awk -v n="$n" -v p="$p" '{ print n, p, $2, $1 }' >>peer.size
done <grid
expect_same_file ours.size peer.size "sizing: m and k for $(wc -l <grid) (n, p) pairs"

# 2. Same keys, same n and p: identical bytes (the element count N included).
N=200000
make_keys member $N members
make_keys other $N others
cat members others >all
must bloom create -n $N -p 0.01 peer.bloom <members
must "$TOOL" dcso-build $N 0.01 members ours.bloom
expect_same_file ours.bloom peer.bloom "plain file, n = $N, p = 0.01, $(wc -l <members) keys"

# Overfilled and tiny filters too (N counts only keys that set a new bit).
head -n 5000 members >few
must bloom create -n 1000 -p 0.05 peer-over.bloom <few
must "$TOOL" dcso-build 1000 0.05 few ours-over.bloom
expect_same_file ours-over.bloom peer-over.bloom "overfilled file, n = 1000, p = 0.05, 5000 keys"

# 3. Answers: `bloom check` prints the matching lines; our reader must print the same lines for
# the peer's file, and `bloom check` on our file the same as our reader.
must bloom check peer.bloom <all >peer.check
must "$TOOL" dcso-query peer.bloom all >ours.check
expect_same_file ours.check peer.check "our reader on bloom's file: $(wc -l <all) keys, $(wc -l <peer.check) matches"
members_found=$(grep -c -F -x -f members ours.check)
expect_eq "$members_found" "$(wc -l <members)" "every member matches"
must bloom check ours.bloom <all >peer-on-ours.check
expect_same_file peer-on-ours.check peer.check "bloom check on our file"

# 4. gzip both ways (`bloom --gzip`): Go's deflate output differs from zlib's, so compare the
# decompressed bytes; the answers must agree exactly.
must bloom --gzip create -n $N -p 0.01 peer.bloom.gz <members
must "$TOOL" dcso-build $N 0.01 members ours.bloom.gz gzip
must gzip -dc peer.bloom.gz >peer.gz.plain
must gzip -dc ours.bloom.gz >ours.gz.plain
expect_same_file ours.gz.plain peer.gz.plain "gzip file, decompressed"
expect_same_file ours.gz.plain peer.bloom "gzip file decompresses to the plain file"
must bloom --gzip check ours.bloom.gz <all >peer-on-ours-gz.check
expect_same_file peer-on-ours-gz.check peer.check "bloom --gzip check on our gzip file"
must "$TOOL" dcso-query peer.bloom.gz all >ours-on-peer-gz.check
expect_same_file ours-on-peer-gz.check peer.check "our reader on bloom's gzip file"
must "$TOOL" dcso-copy peer.bloom.gz copy.plain
expect_same_file copy.plain peer.gz.plain "bloom's gzip file read and written back plain"
expect_eq "$(head -c 10 ours.bloom.gz | od -An -t x1 | tr -d ' \n')" \
  "$(head -c 10 peer.bloom.gz | od -An -t x1 | tr -d ' \n')" "gzip header bytes as Go writes them"

# 5. insert and set-data: bloom's insert keeps N counting in order; set-data appends a trailing
# block that our reader keeps and writes back.
head -n 100000 members >part1
tail -n +100001 members >part2
must bloom create -n $N -p 0.01 grown.bloom <part1
must bloom insert grown.bloom <part2
expect_same_file grown.bloom ours.bloom "bloom create + insert in two parts vs our build"
printf 'source: nightly\nline two\n' | must bloom set-data grown.bloom
must "$TOOL" dcso-copy grown.bloom grown.copy
expect_same_file grown.copy grown.bloom "file with a data block (bloom set-data) written back"
expect_eq "$("$TOOL" dcso-show grown.bloom | awk '{ print $7 }')" 25 "data block size"
must "$TOOL" dcso-copy grown.bloom grown.copy.gz gzip
expect_eq "$(bloom --gzip get-data grown.copy.gz)" "$(printf 'source: nightly\nline two')" \
  "bloom get-data on our gzip copy"

# 6. A power-of-two m (the peer never picks one, but reads any): the wrapped 64-bit products of
# the index sequence must be reproduced exactly there too.
must "$TOOL" dcso-build-mk 1048576 7 few pow2.bloom
must bloom check pow2.bloom <all >peer-pow2.check
must "$TOOL" dcso-query pow2.bloom all >ours-pow2.check
expect_same_file ours-pow2.check peer-pow2.check "m = 2^20, k = 7: $(wc -l <peer-pow2.check) matches"

# 7. A file bloom rejects, we reject too (version byte 2).
cp peer-over.bloom bad.bloom
printf '\x02' | dd of=bad.bloom bs=1 seek=0 conv=notrunc status=none
bloom check bad.bloom </dev/null >/dev/null 2>&1 && fail "bloom accepted version 2"
"$TOOL" dcso-query bad.bloom few >/dev/null 2>err
expect_eq "$?" 2 "our reader rejects version 2"
grep -q "bad.bloom: dcso: version byte 2 at offset 0" err || fail "error message: $(cat err)"
finish
