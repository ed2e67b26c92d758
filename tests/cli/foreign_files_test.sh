#!/usr/bin/env bash
# Guava and DCSO files without the peers: the golden peer files answer the golden keys through
# `query --from` and convert to the golden bloomtool files and back byte for byte; bad files (the
# issue's examples and each check of the readers) get exit 2 and one line naming the file and the
# fault; every truncation and every bit flip of the golden peer files is either read or refused
# that way (these formats have no checksums, so a flipped bit in the bit array is a valid file),
# never a crash; an enormous claim allocates nothing; build --compat, convert and merge refuse what
# they cannot do, naming the option or field.
source "$(dirname "$0")/lib.sh"
G=$TESTDATA/golden
keys=$G/keys.txt

# --- the golden files --------------------------------------------------------------------------
for entry in guava-mitz64.bin:guava:v1.1-bloom-guava-mitz64.bf:40 \
  guava-mitz32.bin:guava:v1.1-bloom-guava-mitz32.bf:40 \
  dcso.bloom:dcso:v1.1-bloom-dcso.bf:40 dcso.bloom.gz:dcso:v1.1-bloom-dcso-gzip.bf:40; do
  IFS=: read -r peer from bt found <<<"$entry"
  run "$BT" query --from "$from" -c "$G/$peer" "$keys"
  expect_eq "$OUT" "$found" "$peer: golden keys found"
  run "$BT" query -c "$G/$bt" "$keys"
  expect_eq "$OUT" "$found" "$bt: golden keys found"
  run "$BT" convert -q "$G/$bt" --to "$from" -o back
  expect_rc 0 "convert $bt --to $from"
  expect_same_file back "$G/$peer" "$bt converted back is $peer"
  cp "$G/$peer" src
  run "$BT" convert -q src --from "$from" -o again.bf
  run "$BT" stats --json again.bf
  expect_match "$OUT" "\"format_version\": \"1.1\"" "$peer converted: format 1.1"
done
run "$BT" stats --from dcso "$G/dcso.bloom" --verify --json
expect_rc 0 "stats --verify of a DCSO file"
expect_match "$OUT" '"keys_added": 40' "DCSO's N shown as keys added"
expect_match "$OUT" '"checksums": "none"' "a DCSO file has no checksums"

# --- bad files: exit 2 and the exact reason ------------------------------------------------------
bad() {  # bad FILE FORMAT MESSAGE
  run "$BT" query --from "$2" "$1" "$keys"
  expect_rc 2 "$1"
  expect_one_error_line "$1"
  expect_eq "$ERR" "bloomtool: $1: $3" "$1 message"
  run "$BT" stats --from "$2" "$1"
  expect_rc 2 "stats $1"
  run "$BT" convert --from "$2" "$1" -o out.bf
  expect_rc 2 "convert $1"
  [ -e out.bf ] && fail "convert of $1 wrote out.bf"
}
printf '\x01\x07\x7f\xff\xff\xff\x00\x00\x00\x00\x00\x00\x00\x00' >huge.bin
bad huge.bin guava "guava: data length 2147483647 longs at offset 2 (17179869176 bytes) exceeds the file (8 bytes after the header)"
printf '\x01\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x00' >k0.bin
bad k0.bin guava "guava: k = 0 at offset 1 (must be 1..255)"
printf '\x05\x03\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x00' >ordinal.bin
bad ordinal.bin guava "guava: strategy ordinal 5 at offset 0 is not MURMUR128_MITZ_32 (0) or MURMUR128_MITZ_64 (1)"
printf '\x01\x03\x00\x00\x00\x00' >w0.bin
bad w0.bin guava "guava: data length 0 longs at offset 2 (must be positive)"
{ cat "$G/guava-mitz64.bin"; printf 'x'; } >trailing.bin
bad trailing.bin guava "guava: 1 trailing bytes at offset 38 after the 4 longs of the bit array"
: >empty.bin
bad empty.bin guava "guava: truncated: file has 0 bytes, the header needs 6 (strategy, k, word count)"
dcso_header() {  # flags n p k m N as decimal u64s, little-endian
  for v in "$@"; do printf "$(printf '\\x%02x' $((v & 255)) $((v >> 8 & 255)) $((v >> 16 & 255)) \
    $((v >> 24 & 255)) $((v >> 32 & 255)) $((v >> 40 & 255)) $((v >> 48 & 255)) $((v >> 56 & 255)))"; done
}
{ dcso_header 1 40 0 0 64 0; head -c 8 /dev/zero; } >k0.bloom
bad k0.bloom dcso "dcso: k = 0 at offset 24 (must be at least 1)"
{ dcso_header 1 40 0 3 0 0; } >m0.bloom
bad m0.bloom dcso "dcso: m = 0 bits at offset 32 (must be at least 1)"
{ dcso_header 2 40 0 3 64 0; head -c 8 /dev/zero; } >v2.bloom
bad v2.bloom dcso "dcso: version byte 2 at offset 0 (only version 1 exists; a gzip file needs gzip decompression)"
{ dcso_header 1 40 0 300 64 0; head -c 8 /dev/zero; } >k300.bloom
bad k300.bloom dcso "dcso: k = 300 at offset 24 exceeds bloomtool's limit of 255"
{ dcso_header 1 40 0 3 $((1 << 60)) 0; } >huge.bloom
bad huge.bloom dcso "dcso: m = 1152921504606846976 bits at offset 32 exceeds bloomtool's limit of 2^40"
{ dcso_header 1 40 0 3 $((1 << 41)) 0; } >big.bloom
bad big.bloom dcso "dcso: m = 2199023255552 bits at offset 32 exceeds bloomtool's limit of 2^40"
{ dcso_header 1 40 0 3 100 0; head -c 8 /dev/zero; } >short.bloom
bad short.bloom dcso "dcso: m = 100 bits at offset 32 needs 16 bytes of bit array, the file has 8 after the header"
{ dcso_header 1 40 0 3 100 0; head -c 8 /dev/zero; printf '\0\0\0\0\0\0\0\x80'; } >beyond.bloom
bad beyond.bloom dcso "dcso: bits set beyond m = 100 in the last word (offset 56)"
head -c 40 "$G/dcso.bloom.gz" >cut.bloom.gz
run "$BT" query --from dcso cut.bloom.gz "$keys"
expect_rc 2 "truncated gzip"
expect_match "$ERR" "^bloomtool: cut.bloom.gz: gzip: truncated: " "truncated gzip message"
# The wrong format, either way round.
run "$BT" query "$G/guava-mitz64.bin" "$keys"
expect_rc 2 "a Guava file read as a bloomtool file"
expect_one_error_line "a Guava file read as a bloomtool file"
run "$BT" query --from guava "$G/v1.1-bloom-guava-mitz64.bf" "$keys"
expect_rc 2 "a bloomtool file read as a Guava file"
expect_one_error_line "a bloomtool file read as a Guava file"
run "$BT" query --from java "$G/guava-mitz64.bin" "$keys"
expect_rc 2 "--from java"
expect_eq "$ERR" "bloomtool: --from: 'java' is not a format (bloomtool, guava or dcso)" "--from message"
# An enormous claim allocates nothing.
if [ -x /usr/bin/time ]; then
  for f in huge.bin:guava big.bloom:dcso; do
    run /usr/bin/time -f 'maxrss %M' "$BT" query --from "${f#*:}" "${f%%:*}" "$keys"
    rss=$(grep -o 'maxrss [0-9]*' <<<"$ERR" | grep -o '[0-9]*$')
    limit=$((64 * 1024))
    [ "${BLOOMTOOL_SANITIZED:-0}" = 1 ] && limit=$((512 * 1024))
    CHECKS=$((CHECKS + 1))
    [ "${rss:-999999999}" -lt "$limit" ] || fail "$f: peak RSS $rss KiB"
  done
fi

# --- every truncation and every bit flip of the golden peer files --------------------------------
one_line_re="^bloomtool: [^"$'\n'"]*"$'\n'"$"
sweep() {  # sweep FILE FORMAT: exit 0, 1 (no key found) or 2 with one line naming it
  "$BT" query --from "$2" -c "$1" "$keys" >/dev/null 2>err
  local rc=$? e=""
  IFS= read -r -d '' e <err
  CHECKS=$((CHECKS + 1))
  if [ "$rc" -eq 2 ]; then
    [[ "$e" =~ $one_line_re ]] && [[ "$e" == "bloomtool: $1"* ]] || fail "$3: stderr: $e"
  else
    [ "$rc" -le 1 ] && [ -z "$e" ] || fail "$3: exit $rc, stderr: $e"
  fi
  return "$rc"
}
cases=0
# Under ASan+UBSan every third of these cases (a subset of the release run's: the same paths, and
# tests/unit/ sweeps every truncation and bit in-process under ASan too).
step=1
[ "${BLOOMTOOL_SANITIZED:-0}" = 1 ] && step=3
for f in guava-mitz64.bin:guava dcso.bloom:dcso dcso.bloom.gz:dcso; do
  name=${f%%:*} from=${f#*:}
  size=$(stat -c %s "$G/$name")
  # Shorter than the header and bit array needs: always refused (a DCSO data block may shrink).
  need=$size
  [ "$name" = dcso.bloom ] && need=$((size - 18))
  for ((len = 0; len < size; len += step)); do
    head -c "$len" "$G/$name" >cut
    sweep cut "$from" "$name cut to $len bytes"
    rc=$?
    CHECKS=$((CHECKS + 1))
    [ "$len" -lt "$need" ] && [ "$rc" -ne 2 ] && fail "$name cut to $len bytes was accepted"
    cases=$((cases + 1))
  done
  for ((bit = size % 3; bit < size * 8; bit += 3 * step)); do  # every third bit
    "$CRAFT" flip "$G/$name" "$bit" flipped
    sweep flipped "$from" "$name with bit $bit flipped"
    cases=$((cases + 1))
  done
done
echo "foreign files: $cases truncations and bit flips"

# --- what the commands refuse ----------------------------------------------------------------------
run "$BT" build --compat guava -o x.bin "$keys"
expect_rc 2 "--compat without -n"
expect_eq "$ERR" "bloomtool: -n: required with --compat guava (the peer sizes its filter from n)" "-n message"
run "$BT" build --compat guava -n 40 --variant blocked -o x.bin "$keys"
expect_eq "$ERR" "bloomtool: --variant: not with --compat guava: the peer's filter is a standard Bloom filter" "--variant refused"
run "$BT" build --compat guava -n 40 --gzip -o x.bin "$keys"
expect_eq "$ERR" "bloomtool: --gzip: not with --compat guava: only DCSO files are gzip-compressed" "--gzip refused"
run "$BT" build --compat guava -n 40 --lowercase -o x.bin "$keys"
expect_eq "$ERR" "bloomtool: key normalisation: not with --compat guava: the peer's file cannot record it" "normalisation refused"
run "$BT" build --compat guava -n 40 -k 256 -o x.bin "$keys"
expect_eq "$ERR" "bloomtool: -k: must be between 1 and 255" "-k 256 refused"
run "$BT" build --compat bloomtool -n 40 -o x.bin "$keys"
expect_eq "$ERR" "bloomtool: --compat: 'bloomtool' is not a peer (guava or dcso)" "--compat bloomtool"
[ -e x.bin ] && fail "a refused build wrote x.bin"
run "$BT" build --gzip -o x.bf "$keys"
expect_eq "$ERR" "bloomtool: --gzip: only with --compat dcso" "--gzip without --compat"
"$BT" build -q -m 1024 -k 5 -o own.bf "$keys"
run "$BT" convert own.bf --to guava -o x.bin
expect_rc 2 "an XXH3 filter as a Guava file"
expect_eq "$ERR" "bloomtool: own.bf: cannot write a guava file: the filter uses hash scheme xxh3-64 (hash id 1), not guava-mitz64 or guava-mitz32" "convert xxh3 -> guava"
run "$BT" convert "$G/v1.1-bloom-dcso.bf" --to guava -o x.bin
expect_eq "$ERR" "bloomtool: $G/v1.1-bloom-dcso.bf: cannot write a guava file: the filter uses hash scheme dcso-fnv1 (hash id 4)" "convert dcso -> guava"
run "$BT" convert "$G/v1.1-bloom-guava-mitz64.bf" --gzip -o x.bf
expect_eq "$ERR" "bloomtool: --gzip/--no-gzip: only with --to dcso" "convert --gzip without --to dcso"
# A plain DCSO file converted with --gzip, and a gzip one with --no-gzip: same content.
run "$BT" convert -q "$G/v1.1-bloom-dcso.bf" --to dcso --gzip -o z.gz
expect_eq "$(gzip -dc z.gz | cmp - "$G/dcso.bloom" && echo same)" "same" "--gzip: the plain file, compressed"
run "$BT" convert -q "$G/v1.1-bloom-dcso-gzip.bf" --to dcso --no-gzip -o plain
expect_eq "$(gzip -dc "$G/dcso.bloom.gz" | cmp - plain && echo same)" "same" "--no-gzip: decompressed"
# Merge: same scheme only, naming the field; DCSO's N summed as its Join sums it.
run "$BT" merge -o m.bf "$G/v1.1-bloom-guava-mitz64.bf" "$G/v1.1-bloom-guava-mitz32.bf"
expect_rc 2 "merge of two Guava strategies"
expect_eq "$ERR" "bloomtool: $G/v1.1-bloom-guava-mitz32.bf: cannot merge: hash id is 3 here but 2 in $G/v1.1-bloom-guava-mitz64.bf" "merge message"
run "$BT" merge -q -o m.bf "$G/v1.1-bloom-dcso.bf" "$G/v1.1-bloom-dcso-gzip.bf"
expect_rc 0 "merge of two DCSO filters"
"$BT" convert -q m.bf --to dcso --no-gzip -o m.bloom
expect_eq "$(od -An -t u8 -j 40 -N 8 m.bloom | tr -d ' ')" "80" "merged N is the sum"
expect_eq "$("$BT" query --from dcso -c m.bloom "$keys")" "40" "merged DCSO filter finds the keys"
"$BT" build -q --compat dcso -n 41 -p 5% -o other.bloom "$keys"
"$BT" convert -q other.bloom --from dcso -o other.bf
run "$BT" merge -o m2.bf "$G/v1.1-bloom-dcso.bf" other.bf
expect_rc 2 "merge of DCSO filters sized for another n"
expect_match "$ERR" "cannot merge: (m is|DCSO n \(field 7\) is)" "merge names the field"
# size: the peers' sizing (Guava: 9585058 bits rounded up to 149767 words; DCSO: the floor).
run "$BT" size --compat guava -n 1M -p 1%
expect_match "$OUT" '^Guava create\(n, p\)  1000000  9585088  1198136 .* 7  0\.0100391$' "size --compat guava"
run "$BT" size --compat dcso -n 1M -p 1%
expect_match "$OUT" '^DCSO Initialize\(n, p\)  1000000  9585058  1198133 .* 7  0\.0100392$' "size --compat dcso"
run "$BT" size --compat dcso -p 1% -m 1MiB
expect_eq "$ERR" "bloomtool: -n: required with a peer's sizing (it sizes from n)" "size --compat without -n"
# Several filters in one query, schemes mixed: a Guava-scheme and a DCSO-scheme bloomtool file
# (probed with the key bytes) next to XXH3 filters, one of them lowercasing (so each filter gets
# its own normalisation): exactly each filter alone, combined with sort/comm.
awk 'BEGIN{for(i=0;i<600;i++) printf "Key%d\n", i}' >mix.keys
awk 'BEGIN{for(i=0;i<300;i++) printf "Key%d\n", i}' >mix.a
awk 'BEGIN{for(i=200;i<500;i++) printf "Key%d\n", i}' >mix.b
"$BT" build -q --compat guava -n 300 -p 1% -o mix-g.bin mix.a
"$BT" convert -q --from guava mix-g.bin -o mix-g.bf
"$BT" build -q --compat dcso -n 300 -p 1% -o mix-d.bloom mix.b
"$BT" convert -q --from dcso mix-d.bloom -o mix-d.bf
"$BT" build -q -p 1% --lowercase -o mix-l.bf mix.b
"$BT" build -q -p 1% -o mix-x.bf mix.a
MIX=(mix-g.bf mix-d.bf mix-l.bf mix-x.bf)
for f in "${MIX[@]}"; do "$BT" query "$f" mix.keys | sort >"$f.hits"; done
sort -u ./mix-*.bf.hits >mix.any
run "$BT" query "${MIX[@]}" -- mix.keys
expect_rc 0 "several filters of mixed schemes"
expect_eq "$(sort <<<"$OUT")" "$(cat mix.any)" "any of mixed schemes = each alone combined"
cp mix-g.bf.hits mix.all
for f in "${MIX[@]:1}"; do comm -12 mix.all "$f.hits" >mix.tmp && mv mix.tmp mix.all; done
run "$BT" query --all "${MIX[@]}" -- mix.keys
expect_eq "$(sort <<<"$OUT")" "$(cat mix.all)" "--all of mixed schemes = each alone intersected"
run "$BT" query --which mix-g.bf mix-d.bf -- mix.keys
expect_eq "$(grep -c $'^mix-g.bf,mix-d.bf\tKey2[0-9][0-9]$' <<<"$OUT")" "100" \
  "--which names both peer-scheme filters for the keys both hold"
# --from applies to every filter; a peer's file arrives through a pipe like any filter.
run "$BT" query --from guava mix-g.bin mix-g.bin -- mix.keys
expect_eq "$(sort <<<"$OUT")" "$(cat mix-g.bf.hits)" "--from guava with two filters"
OUT=$(cat mix-d.bloom | "$BT" query --from dcso - mix.keys | sort)
expect_eq "$OUT" "$(cat mix-d.bf.hits)" "a DCSO file on standard input"
run "$BT" query --from dcso - mix.keys </dev/null
expect_rc 2 "an empty DCSO file on standard input"
expect_match "$ERR" '^bloomtool: <stdin>: ' "named <stdin>"
OUT=$(cat "$G/guava-mitz64.bin" | "$BT" stats --from guava - | sed -n 4p)
expect_eq "$OUT" "  created           unknown (the format records no time, and standard input has none)" \
  "stats of a peer's file on standard input: no invented age"
finish
