#!/usr/bin/env bash
# The raw payload codec and `convert`: raw files answer exactly as zstd files do; converting to raw
# and back gives back the original bytes (zstd files stay as 1.0 wrote them); convert keeps every
# header fact, writes atomically, refuses damaged input with one error line and exit 2.
source "$(dirname "$0")/lib.sh"
export SOURCE_DATE_EPOCH=1700000000
G=$TESTDATA/golden

# Every golden 1.0 file, to raw and back: byte for byte the original.
for f in "$G"/v1-*.bf; do
  name=$(basename "$f")
  run "$BT" convert -q --codec raw "$f" -o "raw-$name"
  expect_rc 0 "convert --codec raw $name"
  run "$BT" stats "raw-$name"
  expect_rc 0 "stats of raw $name"
  expect_match "$OUT" "format +1\.1" "raw $name is format 1.1"
  run "$BT" convert -q "raw-$name" -o "back-$name"
  expect_rc 0 "convert back $name"
  if [[ $name == *signed* ]]; then  # the signature covers the old bytes: not carried over
    run "$BT" stats "back-$name"
    expect_match "$OUT" "unsigned" "converted $name is unsigned"
  else
    expect_same_file "back-$name" "$f" "$name to raw and back"
  fi
  # Raw and zstd answer alike, members and non-members.
  cat "$G/keys.txt" "$TESTDATA/nonmembers-10k.txt" >probe.txt
  expect_eq "$("$BT" query "raw-$name" probe.txt | md5sum)" "$("$BT" query "$f" probe.txt | md5sum)" \
    "query answers of raw $name"
done

# build --codec raw equals build + convert; xor-build and merge too.
seq 1 20000 >keys.txt
"$BT" build -q -p 1% -o z.bf keys.txt
"$BT" build -q -p 1% --codec raw -o r.bf keys.txt
"$BT" convert -q --codec raw z.bf -o zr.bf
expect_same_file r.bf zr.bf "build --codec raw equals convert --codec raw"
"$BT" xor-build -q -o xz.bf keys.txt
"$BT" xor-build -q --codec raw -o xr.bf keys.txt
"$BT" convert -q --codec raw xz.bf -o xzr.bf
expect_same_file xr.bf xzr.bf "xor-build --codec raw equals convert --codec raw"
"$BT" merge -q --codec raw -o m.bf r.bf z.bf
"$BT" merge -q -o mz.bf r.bf z.bf
"$BT" convert -q --codec raw mz.bf -o mzr.bf
expect_same_file m.bf mzr.bf "merge --codec raw equals convert --codec raw"
expect_eq "$("$BT" query mz.bf keys.txt probe.txt | md5sum)" "$("$BT" query z.bf keys.txt probe.txt | md5sum)" \
  "merge of a raw and a zstd input: the same bits"
size=$(stat -c %s r.bf)
run "$BT" stats --json r.bf
expect_match "$OUT" '"codec": *"raw"' "stats --json names the codec"

# Standard output and in place.
"$BT" convert -q --codec raw z.bf -o - >stdout.bf
expect_same_file stdout.bf r.bf "convert -o - writes the same bytes"
cp r.bf inplace.bf
run "$BT" convert -q inplace.bf -o inplace.bf
expect_rc 0 "convert in place"
expect_same_file inplace.bf z.bf "convert in place"
run "$BT" convert z.bf -o sum.bf --codec raw
expect_match "$ERR" "wrote sum.bf: bloom filter, payload raw" "summary line"

# Errors: one line, exit 2, output untouched.
cp z.bf keep.bf
head -c 5000 r.bf >cut.bf
run "$BT" convert cut.bf -o keep.bf
expect_rc 2 "truncated input"
expect_one_error_line "truncated input"
expect_match "$ERR" "^bloomtool: cut.bf: (corrupt|truncated)" "names the file"
expect_same_file keep.bf z.bf "output untouched after a refused input"
cp r.bf flip.bf
printf '\xff' | dd of=flip.bf bs=1 seek=$((size - 10)) conv=notrunc status=none
run "$BT" convert flip.bf -o keep.bf
expect_rc 2 "flipped payload byte"
expect_match "$ERR" "^bloomtool: flip.bf: corrupt: payload chunk [0-9]+ at byte offset [0-9]+" \
  "flipped byte named by chunk and offset"
expect_same_file keep.bf z.bf "output untouched after a corrupt chunk"
# Lazy verification: one key with k = 1 probes one of four 64 KiB chunks. A flipped byte in that
# chunk fails the query (exit 2, the chunk's offset, no answer printed); a flip anywhere else
# leaves the answer alone, and stats (which reads every chunk) refuses the file.
echo a | "$BT" build -q --codec raw -m 256KiB -k 1 -o four.bf
off=$(( $(stat -c %s four.bf) - 262144 ))
failed=0
for c in 0 1 2 3; do
  cp four.bf flip$c.bf
  printf '\x5a' | dd of=flip$c.bf bs=1 seek=$((off + c * 65536 + 777)) conv=notrunc status=none
  run "$BT" query flip$c.bf <<<a
  if [ "$RC" -eq 2 ]; then
    failed=$((failed + 1))
    expect_eq "$OUT" "" "no answer from a bad chunk"
    expect_eq "$ERR" "bloomtool: flip$c.bf: corrupt: payload chunk $c at byte offset $((off + c * 65536)) (65536 bytes): checksum mismatch" "query names the chunk"
  else
    expect_rc 0 "a flip in a chunk the query does not touch"
    expect_eq "$OUT" "a" "the untouched answer"
  fi
  run "$BT" stats flip$c.bf
  expect_rc 2 "stats reads every chunk (flip in chunk $c)"
  expect_match "$ERR" "payload chunk $c at byte offset $((off + c * 65536)) " "stats names chunk $c"
done
expect_eq "$failed" "1" "exactly the probed chunk fails the query"

# The writer cuts a raw file at 2 MiB boundaries of the file offset (so the page cache can hold it
# in 2 MiB folios and a mapping of it take 2 MiB pages): every write to the output but the last
# ends on such a boundary. Checked for build, xor-build, merge and convert.
if command -v strace >/dev/null; then
  seq 1 300000 >big-keys.txt
  "$BT" build -q -m 9MiB -k 3 -o nine.bf big-keys.txt
  # check_writes DESCRIPTION CMD...: traces CMD's writes to the descriptor it opens for its output.
  check_writes() {
    local what=$1
    shift
    rm -f out.bf
    strace -f -qq -e trace=openat,write -e signal=none -s 0 -o trace.txt "$@"
    local fd ends
    fd=$(sed -nE 's/.*openat\(.*"[^"]*\.out\.bf\.[^"]*".* += ([0-9]+)$/\1/p' trace.txt | tail -1)
    ends=$(sed -nE "s/.* write\($fd, [^,]*, [0-9]+\) += ([0-9]+)$/\1/p" trace.txt |
      awk '{ at += $1; print at }')
    CHECKS=$((CHECKS + 1))
    if [ -z "$fd" ] || [ "$(wc -l <<<"$ends")" -lt 3 ]; then
      fail "$what: no writes to the output traced (fd '$fd')"
      return
    fi
    expect_eq "$(tail -1 <<<"$ends")" "$(stat -c %s out.bf)" "$what: the writes add up to the file"
    expect_eq "$(head -n -1 <<<"$ends" | awk '$1 % 2097152 != 0' | wc -l)" "0" \
      "$what: every write but the last ends on a 2 MiB boundary ($(tr '\n' ' ' <<<"$ends"))"
  }
  check_writes "build --codec raw" "$BT" build -q -m 9MiB -k 3 --codec raw -o out.bf big-keys.txt
  seq 1 2000000 >xor-keys.txt  # a 4.5 MB payload at 16 bits
  check_writes "xor-build --codec raw" "$BT" xor-build -q -f 16 --codec raw -o out.bf xor-keys.txt
  check_writes "merge --codec raw" "$BT" merge -q --codec raw -o out.bf nine.bf nine.bf
  check_writes "convert --codec raw" "$BT" convert -q --codec raw nine.bf -o out.bf
  "$BT" keygen -q -o signer
  check_writes "build --codec raw --sign" "$BT" build -q -m 9MiB -k 3 --codec raw --sign signer.key \
    -o out.bf big-keys.txt
  run "$BT" query --trusted-key signer.pub out.bf <<<1
  expect_eq "$RC $OUT" "0 1" "the signed raw file verifies"
else
  echo "raw_codec_test: strace not installed: the 2 MiB write pattern is not checked" >&2
fi

run "$BT" convert --codec lz4 z.bf -o keep.bf
expect_rc 2 "unknown codec"
expect_eq "$ERR" "bloomtool: --codec: unknown payload codec 'lz4' (expected zstd or raw)" "codec error"
run "$BT" build -q --codec lz4 -o never.bf keys.txt
expect_rc 2 "build --codec lz4"
CHECKS=$((CHECKS + 1))
[ ! -e never.bf ] || fail "build --codec lz4 wrote a file"
finish
