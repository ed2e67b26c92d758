#!/usr/bin/env bash
# xor-build end to end: summary, query round trip for every layout and width, determinism,
# header fields, construction failure, bad options.
source "$(dirname "$0")/lib.sh"

# 20,000 distinct keys plus 2,000 repeats, and 20,000 keys that are not members.
awk 'BEGIN{for(i=0;i<20000;i++) printf "https://site%d.example/p/%d\n", i%50, i;
           for(i=0;i<2000;i++) printf "https://site%d.example/p/%d\n", (i*7)%50, i*7}' >keys.lf
awk 'BEGIN{for(i=0;i<20000;i++) printf "https://other%d.example/q/%d\n", i%50, i}' >nonmembers
sed 's/$/\r/' keys.lf >keys.crlf
zstd -q keys.lf -o keys.zst
export SOURCE_DATE_EPOCH=1700000000

# u64 at byte offset $2 of file $1 (little-endian, as the format stores it).
u64_at() { od -An -t u8 -j "$2" -N 8 --endian=little "$1" | tr -d ' '; }
u32_at() { od -An -t u4 -j "$2" -N 4 --endian=little "$1" | tr -d ' '; }

run "$BT" xor-build -o fuse8.bf keys.lf
expect_rc 0 "xor-build default"
expect_eq "$OUT" "" "xor-build prints nothing on stdout"
expect_match "$ERR" "^bloomtool: wrote fuse8.bf: binary fuse \(8-bit fingerprints\)" "summary title"
expect_match "$ERR" "lines read +22000" "summary: lines read"
expect_match "$ERR" "keys added +22000" "summary: keys added"
expect_match "$ERR" "duplicates +2000 \(removed\)" "summary: duplicates"
expect_match "$ERR" "distinct keys +20000 \(exact\)" "summary: distinct keys"
expect_match "$ERR" "model p +0.00390625 \(2\^-8\)" "summary: model p"
expect_match "$ERR" "attempts +[0-9]+" "summary: attempts"

# Header fields, read at their offsets in docs/FORMAT.md.
expect_eq "$(u32_at fuse8.bf 24)" "3" "kind 3 = binary fuse"
expect_eq "$(u32_at fuse8.bf 36)" "8" "k = fingerprint bits"
expect_eq "$(u64_at fuse8.bf 56)" "22000" "lines_read"
expect_eq "$(u64_at fuse8.bf 64)" "22000" "keys_added counts repeats"
expect_eq "$(u64_at fuse8.bf 72)" "20000" "distinct_estimate is the exact distinct count"
slots=$(u64_at fuse8.bf 48)
expect_match "$ERR" "slots +$slots " "summary slots equal the header's m"

for layout in fuse xor; do
  for f in 8 16; do
    name=$layout$f
    run "$BT" xor-build --layout "$layout" --fingerprint "$f" -o "$name.bf" keys.lf
    expect_rc 0 "xor-build $name"
    run "$BT" query "$name.bf" keys.lf --count
    expect_rc 0 "query $name members"
    expect_eq "$OUT" "22000" "$name: no false negatives (every line, repeats included)"
    run "$BT" query "$name.bf" nonmembers --count
    fp=$OUT
    # 99.9% intervals for 20,000 trials: p = 2^-8 -> [52, 104]; p = 2^-16 -> [0, 2].
    if [ "$f" = 8 ]; then
      [ "$fp" -ge 52 ] && [ "$fp" -le 104 ] || fail "$name: $fp false positives in 20000"
    else
      [ "$fp" -le 2 ] || fail "$name: $fp false positives in 20000"
    fi
    CHECKS=$((CHECKS + 1))
  done
done
expect_eq "$(u32_at xor16.bf 24)" "2" "kind 2 = xor"
expect_eq "$(u32_at xor16.bf 36)" "16" "xor16: k = 16"

# The same keys give the same bytes, however they arrive.
run "$BT" xor-build -o again.bf keys.lf
expect_same_file fuse8.bf again.bf "same input twice"
run "$BT" xor-build -o crlf.bf keys.crlf
expect_same_file fuse8.bf crlf.bf "CRLF input"
run "$BT" xor-build -o zst.bf keys.zst
expect_same_file fuse8.bf zst.bf "zstd input"
"$BT" xor-build -o stdin.bf <keys.lf 2>/dev/null
expect_same_file fuse8.bf stdin.bf "stdin input"
"$BT" xor-build -o - keys.lf 2>/dev/null >stdout.bf
expect_same_file fuse8.bf stdout.bf "-o - writes the same bytes"
sort -R --random-source=keys.lf keys.lf >shuffled
run "$BT" xor-build -o shuffled.bf shuffled
expect_same_file fuse8.bf shuffled.bf "key order does not matter"
run "$BT" xor-build --threads 1 -o t1.bf keys.lf
expect_same_file fuse8.bf t1.bf "--threads 1"
run "$BT" xor-build --threads 3 -o t3.bf keys.zst
expect_same_file fuse8.bf t3.bf "--threads 3"
run "$BT" xor-build -o created.bf --created 2023-11-14T22:13:20Z keys.lf
expect_same_file fuse8.bf created.bf "--created equals SOURCE_DATE_EPOCH"
run "$BT" xor-build -q -o quiet.bf keys.lf
expect_eq "$ERR" "" "-q prints nothing"

# Above 2^18 keys grouping, de-duplication and counting run on several threads: the bytes do not
# change with --threads (300,000 distinct keys, 30,000 repeats).
awk 'BEGIN{for(i=0;i<300000;i++) printf "k%d\n", i; for(i=0;i<30000;i++) printf "k%d\n", i*9}' >big
for f in 8 16; do
  for t in 1 2 3; do
    "$BT" xor-build -q --fingerprint "$f" --threads "$t" -o "big$f-$t.bf" big
  done
  expect_same_file "big$f-1.bf" "big$f-2.bf" "fuse$f of 300,000 keys, 2 threads"
  expect_same_file "big$f-1.bf" "big$f-3.bf" "fuse$f of 300,000 keys, 3 threads"
done
run "$BT" query big16-2.bf big --count
expect_eq "$OUT" "330000" "fuse16 of 300,000 keys on 2 threads: no false negatives"

# Normalisation is recorded and query applies it; NDJSON fields are keys like lines.
printf 'Ann@Example.COM\nbob@example.com\n' >emails
run "$BT" xor-build --normalize email -o emails.bf emails
expect_rc 0 "xor-build --normalize email"
expect_match "$ERR" "normalisation" "summary names the normalisation"
printf '  MAILTO:ann@example.com\nBOB@EXAMPLE.COM\ncarol@example.com\n' >probe
run "$BT" query emails.bf probe --count
expect_eq "$OUT" "2" "query applies the recorded normalisation"
printf '{"user":{"email":"ann@example.com"}}\n{"user":{"email":"bob@example.com"}}\n' >rows.ndjson
run "$BT" xor-build --field /user/email --layout xor -o rows.bf rows.ndjson
expect_rc 0 "xor-build --field"
expect_match "$ERR" "distinct keys +2 " "two NDJSON keys"
printf 'ann@example.com\nbob@example.com\n' >plain
run "$BT" query rows.bf plain --input-format lines --count
expect_eq "$OUT" "2" "NDJSON field values are the keys"

# Empty and tiny inputs.
: >empty
run "$BT" xor-build -o empty.bf empty
expect_rc 0 "empty input"
expect_match "$ERR" "distinct keys +0 \(exact\)" "empty: no keys"
printf 'alpha\n' >one
run "$BT" xor-build -o one.bf one
expect_rc 0 "one key"
run "$BT" query one.bf one
expect_eq "$OUT" "alpha" "one key: found"
printf 'alpha\nbeta\nalpha\n\n' >two
run "$BT" xor-build --layout xor -o two.bf two
expect_rc 0 "two keys"
expect_match "$ERR" "empty lines +1 \(skipped\)" "two keys: empty line counted"
expect_match "$ERR" "duplicates +1 \(removed\)" "two keys: one repeat"
run "$BT" query two.bf two --count
expect_eq "$OUT" "3" "two keys: every line found"

# Construction that runs out of attempts: exit 2, one line, the old file untouched.
# 11,510 keys sit just after the segment length doubles, where the first seed does not peel.
seq 1 11510 >awkward
run "$BT" xor-build -o awkward.bf awkward
expect_rc 0 "awkward size builds"
expect_match "$ERR" "attempts +2$" "awkward size takes a second attempt"
cp fuse8.bf kept.bf
run "$BT" xor-build --max-attempts 1 -o kept.bf awkward
expect_rc 2 "out of attempts"
expect_one_error_line "out of attempts"
expect_eq "$ERR" "bloomtool: kept.bf: binary fuse filter construction failed after 1 attempt (11510 distinct keys); nothing written" "out of attempts message"
expect_same_file fuse8.bf kept.bf "failed construction leaves the old file"
run "$BT" xor-build --max-attempts 1 -o fresh.bf awkward
[ ! -e fresh.bf ] || fail "failed construction wrote a file"
CHECKS=$((CHECKS + 1))

# merge refuses static filters.
run "$BT" merge -o merged.bf fuse8.bf fuse8.bf
expect_rc 2 "merge refuses binary fuse filters"
expect_eq "$ERR" "bloomtool: fuse8.bf: cannot merge xor/binary fuse filters; rebuild from the keys with build-static" "merge message"
[ ! -e merged.bf ] || fail "merge wrote a file"
CHECKS=$((CHECKS + 1))

# Bad options: exit 2, one line, no file.
for args in "--fingerprint 12" "--fingerprint x" "-f 0" "--layout bloom" "--max-attempts 0" "--max-attempts 10001"; do
  # shellcheck disable=SC2086
  run "$BT" xor-build $args -o bad.bf keys.lf
  expect_rc 2 "xor-build $args"
  expect_one_error_line "xor-build $args"
  [ ! -e bad.bf ] || fail "xor-build $args wrote a file"
done
run "$BT" xor-build --fingerprint 12 -o bad.bf keys.lf
expect_eq "$ERR" "bloomtool: --fingerprint: must be 8 or 16, not '12'" "bad width message"
run "$BT" xor-build --layout bloom -o bad.bf keys.lf
expect_eq "$ERR" "bloomtool: --layout: unknown layout 'bloom' (expected fuse or xor)" "bad layout message"
run "$BT" xor-build keys.lf
expect_rc 2 "missing -o"
run "$BT" xor-build -o nodir/x.bf keys.lf
expect_rc 2 "missing output directory"
expect_match "$ERR" "nodir/x.bf" "error names the path"
run "$BT" xor-build -o x.bf no-such-input
expect_rc 2 "missing input"
expect_eq "$ERR" "bloomtool: no-such-input: No such file or directory" "missing input message"

# A corrupt kind parameter is refused by query (header checksum recomputed so only the field is
# wrong): the segment length at the start of the kind_params value becomes 3. Needs python3; the
# unit tests cover the same checks without it.
if command -v python3 >/dev/null; then
python3 - fuse8.bf badparams.bf <<'PY' || fail "could not craft badparams.bf"
import struct, sys
data = bytearray(open(sys.argv[1], "rb").read())
hb = struct.unpack_from("<I", data, 12)[0]
at = 128
while at < hb - 8:
    tag, flags, length = struct.unpack_from("<HHI", data, at)
    if tag == 5:
        struct.pack_into("<Q", data, at + 8, 3)
    at += 8 + length
import ctypes, ctypes.util
lib = ctypes.CDLL(ctypes.util.find_library("xxhash"))
lib.XXH3_64bits.restype = ctypes.c_uint64
lib.XXH3_64bits.argtypes = [ctypes.c_char_p, ctypes.c_size_t]
struct.pack_into("<Q", data, hb - 8, lib.XXH3_64bits(bytes(data[:hb - 8]), hb - 8))
open(sys.argv[2], "wb").write(data)
PY
run "$BT" query badparams.bf keys.lf
expect_rc 2 "query refuses a corrupt segment length"
expect_eq "$ERR" "bloomtool: badparams.bf: corrupt: segment length 3 is not a power of two <= 2^18" "corrupt segment length message"
fi

finish
