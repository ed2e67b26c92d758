#!/usr/bin/env bash
# Signed filters through the real binary: keygen (modes, no overwrite), --sign on build, xor-build
# and merge, stats --verify-signature and query --trusted-key / BLOOMTOOL_TRUSTED_KEY refusing
# (exit 2, one line) unsigned files, files signed by another key, a sample of bit flips of the
# signed golden file and a targeted edit with both checksums fixed; loose key permissions refused.
# The exhaustive bit-flip sweep runs in-process in tests/unit/signature_test.cpp.
source "$(dirname "$0")/lib.sh"
: "${CRAFT:?CRAFT must name the craft_files helper}"
: "${CRAFT_FILTER:?CRAFT_FILTER must name the craft_filter helper}"
keys=$TESTDATA/urls-10k.txt
unset BLOOMTOOL_TRUSTED_KEY

# keygen: NAME.key 0600, NAME.pub, never overwritten; the key id is in both files.
umask 022
run "$BT" keygen -o fleet
expect_rc 0 "keygen"
expect_eq "$(stat -c %a fleet.key)" "600" "secret key mode"
expect_eq "$(stat -c %a fleet.pub)" "644" "public key mode"
id=$(awk 'NR == 1 { print $6 }' fleet.pub)
expect_match "$id" '^[0-9a-f]{16}$' "key id in fleet.pub"
expect_eq "$(awk 'NR == 1 { print $6 }' fleet.key)" "$id" "same key id in fleet.key"
expect_match "$ERR" "key id +$id" "keygen names the key id"
cp fleet.key fleet.key.before
run "$BT" keygen -o fleet
expect_rc 2 "keygen over an existing pair"
expect_one_error_line "keygen over an existing pair"
expect_eq "$ERR" "bloomtool: fleet.key: exists; not replaced (keys are never overwritten: remove it or choose another name)" "keygen refusal"
expect_same_file fleet.key fleet.key.before "existing key untouched"
run "$BT" keygen -o other.key
expect_rc 2 "keygen -o NAME.key"
run "$BT" keygen -q -o other
expect_rc 0 "second key"
other_id=$(awk 'NR == 1 { print $6 }' other.pub)

# build --sign: stats shows the signature; --verify-signature with the right key passes.
run "$BT" build -o signed.bf --sign fleet.key "$keys"
expect_rc 0 "build --sign"
expect_match "$ERR" "signed +by key $id \(fleet.key\)" "build summary names the key"
run "$BT" stats signed.bf
expect_rc 0 "stats of a signed file"
expect_match "$OUT" "signature +signed by key $id \(not verified" "stats shows signed, not verified"
expect_match "$OUT" "format +1\.1," "a signed file is format 1.1"
run "$BT" stats signed.bf --verify-signature fleet.pub
expect_rc 0 "stats --verify-signature, right key"
expect_match "$OUT" "signature +verified: signed by the trusted key $id" "stats shows verified"
run "$BT" stats --json signed.bf --verify-signature fleet.pub
expect_match "$(tr -d ' \n' <<<"$OUT")" "\"signature\":\{\"signed\":true,\"algorithm\":\"ed25519-blake2b512\",\"key_id\":\"$id\",\"verified\":true\}" "stats --json signature"
run "$BT" query --trusted-key fleet.pub signed.bf "$keys" --count
expect_rc 0 "query --trusted-key, right key"
expect_eq "$OUT" "10000" "query --trusted-key finds every key"

# An unsigned file: refused when a key is required, accepted (shown unsigned) when not.
run "$BT" build -q -o plain.bf "$keys"
run "$BT" stats plain.bf
expect_rc 0 "stats of an unsigned file"
expect_match "$OUT" "signature +none \(unsigned\)" "stats shows unsigned"
run "$BT" stats --json plain.bf
expect_match "$(tr -d ' \n' <<<"$OUT")" "\"signature\":\{\"signed\":false,\"algorithm\":null,\"key_id\":null,\"verified\":false\}" "stats --json unsigned"
for cmd in "stats plain.bf --verify-signature fleet.pub" "query --trusted-key fleet.pub plain.bf $keys"; do
  # shellcheck disable=SC2086
  run "$BT" $cmd
  expect_rc 2 "$cmd"
  expect_one_error_line "$cmd"
  expect_eq "$ERR" "bloomtool: plain.bf: not signed; the trusted key $id (fleet.pub) is required" "$cmd: message"
done
run "$BT" query plain.bf "$keys" --count
expect_rc 0 "query without a trusted key accepts an unsigned file"

# Signed by another key.
run "$BT" build -q -o other.bf --sign other.key "$keys"
for cmd in "stats other.bf --verify-signature fleet.pub" "query --trusted-key fleet.pub other.bf $keys"; do
  # shellcheck disable=SC2086
  run "$BT" $cmd
  expect_rc 2 "$cmd"
  expect_one_error_line "$cmd"
  expect_eq "$ERR" "bloomtool: other.bf: signed by key $other_id, not by the trusted key $id (fleet.pub)" "$cmd: message"
done

# BLOOMTOOL_TRUSTED_KEY for fleets; --trusted-key wins over it.
BLOOMTOOL_TRUSTED_KEY=fleet.pub run "$BT" query other.bf "$keys" --count
expect_rc 2 "BLOOMTOOL_TRUSTED_KEY refuses another key"
expect_one_error_line "BLOOMTOOL_TRUSTED_KEY"
BLOOMTOOL_TRUSTED_KEY=fleet.pub run "$BT" query signed.bf "$keys" --count
expect_rc 0 "BLOOMTOOL_TRUSTED_KEY accepts its key"
BLOOMTOOL_TRUSTED_KEY=fleet.pub run "$BT" query --trusted-key other.pub other.bf "$keys" --count
expect_rc 0 "--trusted-key overrides BLOOMTOOL_TRUSTED_KEY"
BLOOMTOOL_TRUSTED_KEY=missing.pub run "$BT" query signed.bf "$keys" --count
expect_rc 2 "BLOOMTOOL_TRUSTED_KEY naming a missing file"
expect_eq "$ERR" "bloomtool: BLOOMTOOL_TRUSTED_KEY: missing.pub: No such file or directory" "missing key message"
BLOOMTOOL_TRUSTED_KEY= run "$BT" query plain.bf "$keys" --count
expect_rc 0 "empty BLOOMTOOL_TRUSTED_KEY requires nothing"

# Wrong kinds of key files, and a secret key others may read.
run "$BT" stats signed.bf --verify-signature fleet.key
expect_rc 2 "a secret key given as the public key"
expect_eq "$ERR" "bloomtool: --verify-signature: fleet.key: is a secret key file; give the public key (NAME.pub) here" "secret for public"
run "$BT" build -q -o x.bf --sign fleet.pub "$keys"
expect_rc 2 "a public key given to --sign"
expect_eq "$ERR" "bloomtool: --sign: fleet.pub: is a public key file; signing needs the secret key (NAME.key)" "public for secret"
head -c 60 fleet.pub >cut.pub
run "$BT" stats signed.bf --verify-signature cut.pub
expect_rc 2 "a truncated public key"
expect_one_error_line "a truncated public key"
cp fleet.key loose.key
chmod 640 loose.key
run "$BT" build -q -o loose.bf --sign loose.key "$keys"
expect_rc 2 "a secret key readable by the group"
expect_eq "$ERR" "bloomtool: --sign: loose.key: secret key file may be used by group or others (mode 0640); refused: run 'chmod 600 loose.key'" "loose key message"
[ ! -e loose.bf ] || fail "a refused --sign wrote a file"

# xor-build and merge sign too.
run "$BT" xor-build -q -o fuse.bf --sign fleet.key "$keys"
expect_rc 0 "xor-build --sign"
run "$BT" query --trusted-key fleet.pub fuse.bf "$keys" --count
expect_eq "$OUT" "10000" "signed xor-build verifies"
head -5000 "$keys" >a.txt
tail -n +5001 "$keys" >b.txt
SOURCE_DATE_EPOCH=1700000000 "$BT" build -q -m 1MiB -k 7 -o a.bf a.txt
SOURCE_DATE_EPOCH=1700000000 "$BT" build -q -m 1MiB -k 7 -o b.bf b.txt
run "$BT" merge -q -o ab.bf --sign fleet.key a.bf b.bf
expect_rc 0 "merge --sign"
run "$BT" query --trusted-key fleet.pub ab.bf "$keys" --count
expect_eq "$OUT" "10000" "signed merge verifies"
# Signed inputs merged without --sign give the unsigned file, byte for byte (format 1.0).
export SOURCE_DATE_EPOCH=1700000000
"$BT" build -q -m 1MiB -k 7 --sign fleet.key -o a.s.bf a.txt
"$BT" build -q -m 1MiB -k 7 --sign other.key -o b.s.bf b.txt
"$BT" merge -q -o plain-merge.bf a.bf b.bf
"$BT" merge -q -o signed-inputs.bf a.s.bf b.s.bf
expect_same_file signed-inputs.bf plain-merge.bf "merging signed inputs without --sign"
run "$BT" stats signed-inputs.bf
expect_match "$OUT" "format +1\.0," "an unsigned merge is format 1.0"
unset SOURCE_DATE_EPOCH

# Raw (codec 2) payloads: signed when built or converted; every byte is verified before an
# answer, so a flipped payload bit is refused by the signature, not left to the lazy chunk check.
run "$BT" build -q --codec raw --sign fleet.key -o raw.bf "$keys"
expect_rc 0 "build --codec raw --sign"
run "$BT" query --trusted-key fleet.pub raw.bf "$keys" --count
expect_eq "$OUT" "10000" "a signed raw filter verifies and answers"
run "$BT" convert -o conv.bf --codec raw --sign fleet.key plain.bf
expect_rc 0 "convert --sign"
expect_match "$ERR" "signed +by key $id" "convert names the key"
run "$BT" stats --verify-signature fleet.pub conv.bf
expect_match "$OUT" "signature +verified: signed by the trusted key $id" "converted file verifies"
run "$BT" convert -q -o back.bf conv.bf
run "$BT" stats back.bf
expect_match "$OUT" "signature +none \(unsigned\)" "convert without --sign drops the signature"
size=$(stat -c %s raw.bf)
for bit in $(((size - 1) * 8)) $(((size - 5000) * 8 + 3)); do
  "$CRAFT" flip raw.bf "$bit" raw-flipped.bf
  run "$BT" query --trusted-key fleet.pub raw-flipped.bf "$keys" --count
  expect_rc 2 "raw payload bit $bit flipped"
  expect_eq "$ERR" "bloomtool: raw-flipped.bf: signature does not match the file (altered since it was signed by key $id)" "raw flip $bit: refused by the signature"
done

# The signed golden file and a sample of its bit flips (every 7th bit), refused under
# --verify-signature whatever layer notices.
golden=$TESTDATA/golden/v1-bloom-signed.bf
gpub=$TESTDATA/golden/golden-signing.pub
run "$BT" stats "$golden" --verify-signature "$gpub"
expect_rc 0 "the signed golden file verifies"
bits=$(($(stat -c %s "$golden") * 8))
step=7
[ "${BLOOMTOOL_SANITIZED:-0}" = 1 ] && step=21  # a subset under ASan+UBSan: the same paths
for ((bit = 3; bit < bits; bit += step)); do
  "$CRAFT" flip "$golden" "$bit" flipped.bf
  run "$BT" stats flipped.bf --verify-signature "$gpub"
  expect_rc 2 "bit $bit flipped"
  expect_one_error_line "bit $bit flipped"
done

# The targeted attack: clear the bits of one member, recompute both XXH3 checksums, keep the
# signature field. Checksums are fooled (the member is gone); the signature is not.
member=$(head -1 "$keys")
"$CRAFT_FILTER" signed.bf forged.bf "clear_key=$member" keep_signature=1
run "$BT" query forged.bf --count <<<"$member"
expect_eq "$OUT" "0" "the forged file lets the member through without a trusted key"
run "$BT" stats forged.bf
expect_match "$OUT" "signature +signed by key $id" "the forged file still claims the signature"
run "$BT" query --trusted-key fleet.pub forged.bf --count <<<"$member"
expect_rc 2 "query --trusted-key refuses the forged file"
expect_eq "$ERR" "bloomtool: forged.bf: signature does not match the file (altered since it was signed by key $id)" "forged file message"
run "$BT" stats forged.bf --verify-signature fleet.pub
expect_rc 2 "stats --verify-signature refuses the forged file"

finish
