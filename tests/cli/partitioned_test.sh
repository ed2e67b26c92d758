#!/usr/bin/env bash
# Partitioned static filters end to end: build-static --partitions for each kind (byte-identical
# for any thread count), zero false negatives and a measured rate in its interval, part files and
# assemble (byte-identical to one build; refusals), query of several filters, stats text and
# JSON, convert zstd <-> raw and queries of the raw file, signatures, merge refusal, bad options.
source "$(dirname "$0")/lib.sh"
export SOURCE_DATE_EPOCH=1700000000

# 40,000 distinct keys, 4,000 repeats; 40,000 keys that are not members.
awk 'BEGIN{for(i=0;i<40000;i++) printf "https://site%d.example/p/%d\n", i%50, i;
           for(i=0;i<4000;i++) printf "https://site%d.example/p/%d\n", (i*7)%50, i*7}' >keys
awk 'BEGIN{for(i=0;i<40000;i++) printf "https://other%d.example/q/%d\n", i%50, i}' >non
u32_at() { od -An -t u4 -j "$2" -N 4 --endian=little "$1" | tr -d ' '; }
u16_at() { od -An -t u2 -j "$2" -N 2 --endian=little "$1" | tr -d ' '; }

# --- a fuse8 filter of 8 partitions: summary, header, thread count ---
run "$BT" build-static --kind fuse --partitions 8 --threads 2 -o f8.bf keys
expect_rc 0 "build-static --partitions 8"
expect_match "$ERR" "^bloomtool: wrote f8.bf: binary fuse \(8-bit fingerprints\), partitioned" "title"
expect_match "$ERR" "duplicates +4000 \(removed\)" "duplicates removed per partition"
expect_match "$ERR" "distinct keys +40000 \(exact\)" "distinct keys"
expect_match "$ERR" "partitions +8 \(by the top 3 hash bits; largest [0-9]+ keys\)" "partitions line"
expect_match "$ERR" "model p +0.00390625 " "model p 2^-8"
expect_match "$ERR" "measured p .* is consistent" "quick measurement consistent"
expect_eq "$(u16_at f8.bf 10)" "3" "format minor 3"
expect_eq "$(u32_at f8.bf 24)" "3" "kind 3 = binary fuse"
"$BT" build-static --kind fuse --partitions 8 --threads 1 -q -o f8-t1.bf keys
"$BT" build-static --kind fuse --partitions 8 --threads 3 -q -o f8-t3.bf keys
expect_same_file f8.bf f8-t1.bf "the same file on 1 and 2 threads"
expect_same_file f8.bf f8-t3.bf "the same file on 3 threads"
# Unpartitioned files stay as they were: --partitions 1 and the automatic choice below 2^21 keys.
"$BT" build-static --kind fuse --partitions 1 -q -o f1.bf keys
"$BT" build-static --kind fuse -q -o fauto.bf keys
expect_eq "$(u16_at f1.bf 10)" "0" "--partitions 1: format 1.0"
expect_same_file f1.bf fauto.bf "auto below 2^21 keys: no partitions"

# --- zero false negatives, measured rate, query of several filters ---
run "$BT" query --count f8.bf keys
expect_eq "$OUT" "44000" "every key found (repeats included)"
run "$BT" query --count f8.bf non
# 2^-8 of 40,000: 156 expected; 99.9999% Poisson interval about 100 to 225.
[ "$OUT" -ge 100 ] && [ "$OUT" -le 225 ] || fail "false positives $OUT outside [100, 225]"
"$BT" build-static --kind xor -f 16 --partitions 4 -q -o x16.bf keys
"$BT" build-static --kind ribbon -p 1% --partitions 2 -q -o r.bf keys
run "$BT" query --count --all f8.bf x16.bf r.bf -- keys
expect_eq "$OUT" "44000" "every key in all three partitioned filters"
run "$BT" query --count x16.bf non
[ "$OUT" -le 8 ] || fail "xor16: $OUT false positives of 40,000 (2^-16 expects 0.6)"
run "$BT" query --count r.bf non
[ "$OUT" -ge 300 ] && [ "$OUT" -le 520 ] || fail "ribbon 1%: $OUT false positives outside [300, 520]"

# --- stats ---
run "$BT" stats f8.bf
expect_rc 0 "stats"
expect_match "$OUT" "partitions +8 \(by the top 3 hash bits\), [0-9]+ to [0-9]+ keys each" "stats: partitions"
expect_match "$OUT" "partition spread +consistent" "stats: spread consistent"
expect_match "$OUT" "model p +0.003906 for 40000 distinct keys" "stats: model p"
"$BT" stats --json --measure 20000 r.bf >r.json
expect_eq "$("$JSON_QUERY" r.json /partitions/count)" "2" "JSON: partition count"
expect_eq "$("$JSON_QUERY" r.json /partitions/verdict)" "consistent" "JSON: spread verdict"
expect_match "$("$JSON_QUERY" r.json /measurement/verdict)" "consistent" "JSON: measured rate consistent"

# --- convert: raw and back; the raw file answers the same ---
run "$BT" convert --codec raw -o f8.raw f8.bf
expect_rc 0 "convert to raw"
run "$BT" query --count f8.raw keys
expect_eq "$OUT" "44000" "raw partitioned file: every key found"
run "$BT" query --count f8.raw non
expect_eq "$OUT" "$("$BT" query --count f8.bf non)" "raw and zstd files answer alike"
"$BT" convert --codec zstd -o back.bf f8.raw 2>/dev/null
expect_same_file back.bf f8.bf "zstd -> raw -> zstd gives the same file"
run "$BT" stats f8.raw
expect_match "$OUT" "partitions +8 " "stats of the raw file (streamed)"

# --- part files and assemble ---
"$BT" build-static --kind fuse --partitions 8 --part 0-2 -q -o p0.bf keys
"$BT" build-static --kind fuse --partitions 8 --part 3 -q -o p3.bf keys
"$BT" build-static --kind fuse --partitions 8 --part 4-7 --threads 1 -q -o p4.bf keys
run "$BT" assemble -o as.bf p4.bf p0.bf p3.bf
expect_rc 0 "assemble three parts in any order"
expect_same_file as.bf f8.bf "assembled file = one build"
run "$BT" query f8.bf p0.bf -- keys
expect_rc 2 "a part file is not queried"
expect_match "$ERR" "^bloomtool: p0.bf: unsupported: a part file holding partitions 0-2 of 8" "part file refused"
# stats reports a part file from its header and partition table: no rate to measure.
run "$BT" stats p0.bf
expect_rc 0 "stats of a part file"
expect_match "$OUT" "partitions +0-2 of 8 \(by the top 3 hash bits; a part file: assemble the parts to query them\), [0-9]+ to [0-9]+ keys each" "stats: the part's partitions"
expect_match "$OUT" "checksums +verified" "stats: the part's checksums"
parts_keys=0
for p in p0 p3 p4; do
  "$BT" stats --json $p.bf >$p.json || fail "stats --json $p.bf"
  parts_keys=$((parts_keys + $("$JSON_QUERY" $p.json /distinct_keys)))
done
expect_eq "$("$JSON_QUERY" p4.json /partitions/first) $("$JSON_QUERY" p4.json /partitions/count) $("$JSON_QUERY" p4.json /partitions/of) $("$JSON_QUERY" p4.json /partitions/part_file)" \
  "4 4 8 true" "JSON: the part's range"
expect_eq "$parts_keys" "$("$BT" stats --json f8.bf | "$JSON_QUERY" - /distinct_keys)" "the parts' keys add up to the whole"
run "$BT" stats --measure 1000 p0.bf
expect_rc 2 "no measurement of a part file"
expect_eq "$ERR" "bloomtool: p0.bf: unsupported: a part file holding partitions 0-2 of 8 answers for some keys only, so its rate cannot be measured; assemble the parts into one file first" "measurement refused"
echo old >out.bf
run "$BT" assemble -o out.bf p0.bf p4.bf
expect_rc 2 "a missing partition"
expect_eq "$ERR" "bloomtool: partition 3 is in none of the parts (p4.bf starts at 4)" "missing partition named"
run "$BT" assemble -o out.bf p0.bf p3.bf p4.bf p3.bf
expect_rc 2 "a part named twice"
"$BT" build-static --kind fuse --partitions 8 --part 2-3 -q -o p23.bf keys
run "$BT" assemble -o out.bf p0.bf p23.bf p4.bf
expect_rc 2 "a partition held twice"
expect_eq "$ERR" "bloomtool: p23.bf: partition 2 is held by another part too" "overlap named"
"$BT" build-static --kind fuse --partitions 16 --part 8-15 -q -o q.bf keys
run "$BT" assemble -o out.bf p0.bf p3.bf q.bf
expect_eq "$ERR" "bloomtool: q.bf: does not belong with p0.bf: partition count 16 vs 8" "another P"
head -n 100 keys | "$BT" build-static --kind fuse --partitions 8 --part 3 -q -o other.bf
run "$BT" assemble -o out.bf p0.bf other.bf p4.bf
expect_match "$ERR" "^bloomtool: other.bf: does not belong with p0.bf: input options|lines read" "another input"
run "$BT" assemble -o out.bf p0.bf p3.bf f1.bf
expect_eq "$ERR" "bloomtool: f1.bf: not a part file of a partitioned build (no partition table)" "a plain file"
expect_eq "$(cat out.bf)" "old" "every refusal left the output untouched"

# --- signatures: a signed partitioned build and a signed assembly verify ---
"$BT" keygen -q -o signer 2>/dev/null || "$BT" keygen -o signer >/dev/null 2>&1
"$BT" build-static --kind fuse --partitions 8 --sign signer.key -q -o signed.bf keys
run "$BT" query --count --trusted-key signer.pub signed.bf keys
expect_eq "$OUT" "44000" "a signed partitioned file verifies and answers"
"$BT" assemble --sign signer.key -q -o signed-as.bf p0.bf p3.bf p4.bf
expect_same_file signed-as.bf signed.bf "a signed assembly = a signed build"
"$BT" build-static --kind fuse --partitions 8 --part 3 --sign signer.key -q -o signed-p3.bf keys
run "$BT" stats --verify-signature signer.pub signed-p3.bf
expect_rc 0 "stats of a signed part file"
expect_match "$OUT" "signature +verified" "a signed part's signature verified"
run "$BT" stats --verify-signature signer.pub p3.bf
expect_rc 2 "an unsigned part file refused with a trusted key"

# --- refusals ---
run "$BT" merge -o m.bf f8.bf f8.bf
expect_rc 2 "merge of partitioned filters refused"
expect_match "$ERR" "cannot merge xor/binary fuse filters" "merge refusal"
run "$BT" build-static --kind fuse --partitions 6 -o bad.bf keys
expect_eq "$ERR" "bloomtool: --partitions: must be auto, 1 or a power of two from 2 to 65536, not '6'" "P not a power of two"
run "$BT" build-static --kind fuse --part 1 -o bad.bf keys
expect_eq "$ERR" "bloomtool: --part: give the partition count too (--partitions P, the same on every host)" "--part without P"
run "$BT" build-static --kind fuse --partitions 4 --part 2-5 -o bad.bf keys
expect_eq "$ERR" "bloomtool: --part: '2-5' is not I or I-J with I <= J < 4" "range beyond P"
[ ! -e bad.bf ] || fail "a refused build wrote bad.bf"

finish
