#!/usr/bin/env bash
# merge: shards merged equal one build (whole files, byte for byte), bloomtool-merge(1)'s recipe,
# intersections, every compatibility mismatch, bad inputs, and peak memory.
source "$(dirname "$0")/lib.sh"
: "${CRAFT_FILTER:?CRAFT_FILTER must name the craft_filter test helper}"
export SOURCE_DATE_EPOCH=1700000000

# hdr FILE OFFSET BYTES: an unsigned little-endian header field.
hdr() { od -An -t "u$3" -j "$2" -N "$3" "$1" | tr -d ' '; }
# payload FILE: the stored payload bytes (everything after the header).
payload() { tail -c +"$(($(hdr "$1" 12 4) + 1))" "$1"; }

# --- Property: random key sets split at random into 2-8 parts. Each part is built with the same
# explicit geometry; the merge of the parts must be the single build over all keys. When the parts
# partition the lines, every header count adds up too, so the whole files are compared; when some
# lines go to several parts, the payload, m and k are compared and keys added is the sum.
geometries=("-m 64KiB -k 7" "-m 100003 -k 3" "-m 32KiB -k 5 --variant blocked" "-n 5000 -p 1%"
            "-n 5000 -p 0.1% --variant blocked" "-n 3000 -p 5% -k 2")
for trial in $(seq 1 12); do
  geometry=${geometries[$((trial % ${#geometries[@]}))]}
  rm -rf t && mkdir t
  # Keys: random, with duplicates, blank lines, spaces and tabs; sometimes a few, sometimes 4000.
  awk -v seed="$trial" 'BEGIN {
    srand(seed); n = (seed % 3 == 0) ? int(rand() * 10) : 1000 + int(rand() * 3000)
    for (i = 0; i < n; i++) {
      r = rand()
      if (r < 0.02) print ""
      else if (r < 0.05) printf "key with\tspace %d\n", int(rand() * 500)
      else printf "k%d\n", int(rand() * n)
    }}' >t/keys
  parts=$((2 + trial % 7))
  dup=$(((trial / 6) % 2))  # trials 6-11 also copy some lines into a second part
  awk -v seed="$trial" -v parts="$parts" -v dup="$dup" 'BEGIN { srand(seed * 7919) } {
    p = int(rand() * parts); print > ("t/part." p)
    if (dup && rand() < 0.2) print > ("t/part." ((p + 1) % parts)) }' t/keys
  for p in $(seq 0 $((parts - 1))); do touch "t/part.$p"; done  # a part may be empty
  # shellcheck disable=SC2086
  "$BT" build -q $geometry -o t/all.bf t/keys || fail "trial $trial: build all"
  for p in $(seq 0 $((parts - 1))); do
    # shellcheck disable=SC2086
    "$BT" build -q $geometry -o "t/part.$p.bf" "t/part.$p" || fail "trial $trial: build part $p"
  done
  run "$BT" merge -q -o t/merged.bf t/part.*.bf
  expect_rc 0 "trial $trial ($geometry, $parts parts): merge"
  if [ "$dup" -eq 0 ]; then
    expect_same_file t/merged.bf t/all.bf "trial $trial ($geometry, $parts parts): whole file"
  else
    CHECKS=$((CHECKS + 1))
    cmp -s <(payload t/merged.bf) <(payload t/all.bf) ||
      fail "trial $trial ($geometry, $parts parts, duplicated lines): payloads differ"
    expect_eq "$(hdr t/merged.bf 48 8)/$(hdr t/merged.bf 36 4)" \
      "$(hdr t/all.bf 48 8)/$(hdr t/all.bf 36 4)" "trial $trial: m/k"
    keys=0
    for f in t/part.*.bf; do keys=$((keys + $(hdr "$f" 64 8))); done
    expect_eq "$(hdr t/merged.bf 64 8)" "$keys" "trial $trial: keys added is the sum over parts"
  fi
done

# --- bloomtool-merge(1)'s shard recipe, verbatim but for paths: split, build in parallel, merge.
seq -f 'https://example.com/item/%g' 1 40000 >keys.txt
"$BT" build -q -m 1MiB -k 7 -o whole.bf keys.txt
split -n l/4 keys.txt part.
ls part.?? | parallel --will-cite -j2 "$BT" build -q -m 1MiB -k 7 -o {}.bf {}
run "$BT" merge -o keys.bf part.??.bf
expect_rc 0 "recipe with GNU parallel: merge"
expect_same_file keys.bf whole.bf "recipe with GNU parallel: same file as one build"
expect_match "$ERR" "union of 4 bloom \(standard\) filters" "summary: what was merged"
expect_match "$ERR" "keys added +40000 \(sum over the inputs" "summary: keys added"
expect_match "$ERR" "lines read +40000" "summary: lines read"
rm -f part.*.bf
printf '%s\n' part.?? | xargs -P2 -I{} "$BT" build -q -m 1MiB -k 7 -o {}.bf {}
run "$BT" merge -q -o keys-xargs.bf part.??.bf
expect_same_file keys-xargs.bf whole.bf "recipe with xargs -P: same file as one build"
# Merging is associative: a tree of merges gives the same file.
"$BT" merge -q -o left.bf part.aa.bf part.ab.bf && "$BT" merge -q -o right.bf part.ac.bf part.ad.bf
run "$BT" merge -q -o tree.bf right.bf left.bf
expect_same_file tree.bf whole.bf "merge of merges, in another order"
# Sizing by -n must be the same -n for every part (the total), not each part's own count.
for f in part.??; do "$BT" build -q -o "$f.auto.bf" "$f"; done
run "$BT" merge -o auto.bf part.??.auto.bf
expect_rc 2 "parts sized from their own key counts cannot be merged"
expect_match "$ERR" "^bloomtool: part.ab.auto.bf: cannot merge: m is [0-9]+ bits here but [0-9]+ bits in part.aa.auto.bf$" "auto-sized parts: m differs"

# --- Options and outputs.
"$BT" merge -q -o - part.??.bf >stdout.bf
RC=$?
expect_rc 0 "-o -"
expect_same_file stdout.bf whole.bf "-o - writes the same bytes"
cp part.aa.bf self.bf
run "$BT" merge -q -o self.bf self.bf part.ab.bf part.ac.bf part.ad.bf
expect_rc 0 "output may be one of the inputs"
expect_same_file self.bf whole.bf "output over an input"
run "$BT" merge -q -o idem.bf whole.bf whole.bf
CHECKS=$((CHECKS + 1))
cmp -s <(payload idem.bf) <(payload whole.bf) || fail "union with itself keeps the bits"
expect_eq "$(hdr idem.bf 64 8)" 80000 "union with itself: keys added summed"
run "$BT" merge -q --label "nightly shards" --created 2024-01-31T12:00:00Z -o labelled.bf part.??.bf
expect_eq "$(hdr labelled.bf 80 8)" 1706702400 "--created is recorded"
CHECKS=$((CHECKS + 1))
grep -q "nightly shards" labelled.bf || fail "--label is recorded"
run "$BT" query keys.bf keys.txt --count
expect_eq "$OUT" 40000 "merged filter: no false negatives"

# --- Intersection: holds every common key; says "maybe" only where the filter built from the
# union of the key sets does too.
seq -f 'key%g' 1 6000 >a.txt
seq -f 'key%g' 4001 10000 >b.txt
seq -f 'key%g' 4001 6000 >common.txt
cat a.txt b.txt >union.txt
seq -f 'other%g' 1 50000 >probe.txt
cat union.txt >>probe.txt
for s in a b common union; do "$BT" build -q -m 16KiB -k 4 -o "$s.bf" "$s.txt"; done
run "$BT" merge --intersect -o both.bf a.bf b.bf
expect_rc 0 "--intersect"
expect_match "$ERR" "intersection of 2 bloom \(standard\) filters" "intersection summary"
expect_match "$ERR" "keys added +6000 \(the smallest input's" "intersection keys added"
expect_match "$ERR" "approximate for an intersection" "intersection distinct is approximate"
run "$BT" query both.bf common.txt --count
expect_eq "$OUT" 2000 "intersection: every common key present"
"$BT" query both.bf probe.txt | sort >maybe.both
"$BT" query union.bf probe.txt | sort >maybe.union
"$BT" query common.bf probe.txt | sort >maybe.common
expect_eq "$(comm -23 maybe.both maybe.union | wc -l)" 0 "intersection maybe => union-built maybe"
expect_eq "$(comm -23 maybe.common maybe.both | wc -l)" 0 "common-built maybe => intersection maybe"
[ "$(wc -l <maybe.both)" -lt "$(wc -l <maybe.union)" ] || fail "intersection answers fewer maybes"
run "$BT" merge --intersect -q -o both2.bf b.bf a.bf
CHECKS=$((CHECKS + 1))
cmp -s <(payload both.bf) <(payload both2.bf) || fail "intersection is commutative"

# --- Compatibility: every mismatch is exit 2, one line naming the field, both values and both
# files, and no output file.
"$BT" build -q -m 16KiB -k 4 -o ref.bf a.txt
"$BT" build -q -m 32KiB -k 4 -o m.bf a.txt
"$BT" build -q -m 16KiB -k 5 -o k.bf a.txt
"$BT" build -q -m 16KiB -k 4 --variant blocked -o variant.bf a.txt
"$CRAFT_FILTER" ref.bf seed.bf seed=42
"$CRAFT_FILTER" ref.bf hash.bf hash_id=7
"$CRAFT_FILTER" ref.bf norm.bf normalisation=lowercase,trim
"$CRAFT_FILTER" ref.bf input.bf input_options=ndjson:/url
"$CRAFT_FILTER" ref.bf params.bf kind_params=3
"$CRAFT_FILTER" ref.bf xor.bf kind=2 k=8
"$CRAFT_FILTER" ref.bf fuse.bf kind=3 k=16
check_mismatch() {  # FILE EXPECTED-MESSAGE
  rm -f out.bf
  run "$BT" merge -o out.bf ref.bf a.bf "$1"
  expect_rc 2 "mismatch $1"
  expect_one_error_line "mismatch $1"
  expect_eq "$ERR" "bloomtool: $1: $2" "mismatch $1: message"
  [ ! -e out.bf ] || fail "mismatch $1 wrote a file"
}
check_mismatch m.bf "cannot merge: m is 262144 bits here but 131072 bits in ref.bf"
check_mismatch k.bf "cannot merge: k is 5 here but 4 in ref.bf"
check_mismatch variant.bf "cannot merge: variant is blocked here but standard in ref.bf"
check_mismatch seed.bf "cannot merge: seed is 0x000000000000002a here but 0x9e3779b97f4a7c15 in ref.bf"
check_mismatch hash.bf "cannot merge: hash id is 7 here but 1 in ref.bf"
check_mismatch norm.bf "cannot merge: normalisation is 'lowercase,trim' here but (none) in ref.bf"
check_mismatch input.bf "cannot merge: input options is 'ndjson:/url' here but 'lines' in ref.bf"
check_mismatch params.bf "cannot merge: kind parameters is [3] here but (none) in ref.bf"
check_mismatch xor.bf "cannot merge xor/binary fuse filters; rebuild from the keys with build-static"
check_mismatch fuse.bf "cannot merge xor/binary fuse filters; rebuild from the keys with build-static"
run "$BT" merge -o out.bf xor.bf ref.bf
expect_eq "$ERR" "bloomtool: xor.bf: cannot merge xor/binary fuse filters; rebuild from the keys with build-static" "xor as the first input"
# A mismatch in the last file is found before any payload is read: the old output survives.
cp whole.bf keep.bf
run "$BT" merge -o keep.bf part.aa.bf part.ab.bf part.ac.bf k.bf
expect_rc 2 "mismatch in the last input"
expect_same_file keep.bf whole.bf "a failed merge leaves the old output"

# --- Bad inputs.
run "$BT" merge -o out.bf ref.bf
expect_rc 2 "one filter"
expect_eq "$ERR" "bloomtool: merge: give at least two filter files" "one filter: message"
run "$BT" merge ref.bf a.bf
expect_rc 2 "missing -o"
run "$BT" merge -o out.bf ref.bf no-such.bf
expect_rc 2 "missing input"
expect_eq "$ERR" "bloomtool: no-such.bf: No such file or directory" "missing input: message"
run "$BT" merge -o out.bf ref.bf a.txt
expect_rc 2 "not a filter"
expect_match "$ERR" "^bloomtool: a.txt: corrupt: not a bloomtool filter file" "not a filter: message"
cp ref.bf flipped.bf
size=$(stat -c %s flipped.bf)
printf '\xff' | dd of=flipped.bf bs=1 seek=$((size - 5)) conv=notrunc status=none
run "$BT" merge -o out.bf ref.bf flipped.bf
expect_rc 2 "corrupt payload"
expect_eq "$ERR" "bloomtool: flipped.bf: corrupt: payload checksum mismatch" "corrupt payload: message"
[ ! -e out.bf ] || fail "corrupt payload wrote a file"
run "$BT" merge -o out.bf ref.bf <(cat ref.bf)
expect_rc 2 "input from a pipe"
expect_match "$ERR" "^bloomtool: /dev/fd/[0-9]+: cannot merge from a pipe or device \(each input is read twice\); save it to a file first, or give it as '-' on standard input$" "pipe: message"
run "$BT" merge -o out.bf ref.bf .
expect_rc 2 "a directory as input"
expect_eq "$ERR" "bloomtool: .: Is a directory" "directory: message"
run "$BT" merge -o nodir/out.bf ref.bf ref.bf
expect_rc 2 "missing output directory"

# --- Memory: merging 8 dense 16 MiB filters (random bits: nothing compresses) peaks near one
# output filter, not at the inputs' total. The limit is 2x one filter; sanitiser builds, whose
# allocator keeps its own reserves, are exempt.
if [ "${BLOOMTOOL_SANITIZED:-0}" != 1 ] && ! ldd "$BT" 2>/dev/null | grep -q libasan; then
  "$BT" build -q -m 16MiB -k 7 -o base.bf a.txt
  for i in 1 2 3 4 5 6 7 8; do "$CRAFT_FILTER" base.bf "dense$i.bf" fill="$i"; done
  /usr/bin/time -f '%M' -o rss "$BT" merge -q -o dense.bf dense?.bf
  rss_kib=$(tail -1 rss)
  CHECKS=$((CHECKS + 1))
  [ "$rss_kib" -le $((2 * 16 * 1024)) ] ||
    fail "merging 8 dense 16 MiB filters peaked at $rss_kib KiB, over 2 x 16 MiB"
  echo "peak RSS merging 8 dense 16 MiB filters: $rss_kib KiB"
  # Loading one filter whole (query) holds it twice: the file's bytes and the words.
  /usr/bin/time -f '%M' -o rss "$BT" query dense1.bf /dev/null
  CHECKS=$((CHECKS + 1))
  [ "$rss_kib" -le "$(tail -1 rss)" ] ||
    fail "merging 8 filters ($rss_kib KiB) took more memory than loading one ($(tail -1 rss) KiB)"
fi

finish
