#!/usr/bin/env bash
# Keys through a pipe give what the same keys in a file give, for every input format and every
# command that reads keys: a pipe is read on another path than a file (one reader handing batches
# to the hashing threads, zstd and gzip decoded on the way), and none of it may change a byte of a
# filter (build, build-static, xor-build) or of query's ordered output, or stats --negatives'
# answer. A damaged zstd or gzip stream through a pipe is an error naming stdin and the compressed
# byte (exit 2, the old output untouched).
source "$(dirname "$0")/lib.sh"

# 120,000 records (several gathered batches of 32,768 keys, more than one pipe buffer), some keys
# repeated, an empty line, a CRLF line and mixed case for the normaliser.
awk 'BEGIN { for (i = 0; i < 120000; i++) printf "Key-%d%s\n", i % 100000, (i == 5 ? "\r" : "");
             print "" }' >keys.txt
tr -d '\r' <keys.txt | awk '{ printf "{\"id\":\"%s\",\"n\":%d}\n", $1, NR }' | grep -v '"id":""' >keys.ndjson
tr -d '\r' <keys.txt | awk '{ printf "%d\t%s\tx\n", NR, $1 }' >keys.tsv
tr -d '\r' <keys.txt | awk '{ printf "%d,\"%s, quoted\"\n", NR, $1 }' >keys.csv
seq 0 3 150000 | sed 's/^/Key-/' >probes.txt

formats=(
  "keys.txt"
  "keys.txt --lowercase"
  "keys.ndjson --field /id"
  "keys.tsv --input-format tsv --column 2"
  "keys.csv --input-format csv --column 2"
)
for f in "${formats[@]}"; do
  read -r file opts <<<"$f"
  # shellcheck disable=SC2086
  for variant in standard blocked; do
    "$BT" build -q --created 1700000000 --variant $variant -n 100000 -o want.bf $opts "$file" ||
      fail "setup: build $f"
    for t in 1 2; do
      for how in "cat $file" "gzip -c $file" "zstd -q -c $file"; do
        CHECKS=$((CHECKS + 1))
        $how | "$BT" build -q --created 1700000000 --variant $variant -n 100000 --threads $t \
          -o got.bf $opts 2>err || fail "build $variant $f --threads $t from '$how |': $(cat err)"
        cmp -s got.bf want.bf || fail "build $variant $f --threads $t from '$how |' differs from the file"
      done
    done
  done
  "$BT" xor-build -q --created 1700000000 -o want.bxf $opts "$file" || fail "setup: xor-build $f"
  "$BT" build-static -q --created 1700000000 -o want.brf $opts "$file" || fail "setup: build-static $f"
  for t in 1 2; do
    CHECKS=$((CHECKS + 1))
    cat "$file" | "$BT" xor-build -q --created 1700000000 --threads $t -o got.bxf $opts 2>err ||
      fail "xor-build $f --threads $t from a pipe: $(cat err)"
    cmp -s got.bxf want.bxf || fail "xor-build $f --threads $t from a pipe differs from the file"
    CHECKS=$((CHECKS + 1))
    gzip -1 -c "$file" | "$BT" build-static -q --created 1700000000 --threads $t -o got.brf $opts 2>err ||
      fail "build-static $f --threads $t from a gzip pipe: $(cat err)"
    cmp -s got.brf want.brf || fail "build-static (Ribbon) $f --threads $t from a gzip pipe differs from the file"
  done
done

# query: ordered output (the records themselves, for lines and a column of TSV) through a pipe is
# the output from the file, on any thread count.
"$BT" build -q --created 1700000000 -n 100000 -o ref.bf keys.txt || fail "setup ref.bf"
awk '{ printf "%d\t%s\n", NR, $1 }' probes.txt >probes.tsv
awk '{ printf "{\"id\":\"%s\"}\n", $1 }' probes.txt >probes.ndjson
awk '{ printf "%d,\"%s\"\n", NR, $1 }' probes.txt >probes.csv
for q in "probes.txt" "probes.txt --absent" "probes.txt --count" "probes.tsv --column 2" \
  "probes.tsv --column 2 --absent" "probes.ndjson --field /id --absent" \
  "probes.csv --input-format csv --column 2"; do
  read -r file opts <<<"$q"
  # shellcheck disable=SC2086
  "$BT" query ref.bf $opts "$file" >want.q || fail "setup query $q"
  for t in 1 2; do
    for how in "cat $file" "gzip -c $file" "zstd -q -c $file"; do
      CHECKS=$((CHECKS + 1))
      # shellcheck disable=SC2086
      $how | "$BT" query ref.bf $opts --threads $t >got.q 2>err || fail "query $q from '$how |': $(cat err)"
      cmp -s got.q want.q || fail "query $q --threads $t from '$how |' differs from the file"
    done
  done
done
"$BT" stats ref.bf --negatives probes.txt --json | grep -E '"(probes|false_positives)"' >want.s
for how in "cat probes.txt" "gzip -c probes.txt" "zstd -q -c probes.txt"; do
  CHECKS=$((CHECKS + 1))
  $how | "$BT" stats ref.bf --negatives - --json | grep -E '"(probes|false_positives)"' >got.s
  cmp -s got.s want.s || fail "stats --negatives from '$how |' differs from the file"
done

# --- Damaged streams through a pipe: exit 2, stdin and the compressed byte named --------------
cp ref.bf old.orig
gzip -c keys.txt >keys.gz
zstd -q -c keys.txt >keys.zst
zsize=$(stat -c %s keys.zst)
cp keys.zst corrupt.zst  # a damaged block in the middle of the frame
printf '\xff\xff\xff\xff\xff\xff\xff\xff' | dd of=corrupt.zst bs=1 seek=$((zsize / 2)) conv=notrunc status=none
head -c $((zsize / 2)) keys.zst >half.zst
head -c $(($(stat -c %s keys.gz) / 2)) keys.gz >half.gz
for c in "half.zst:truncated zstd stream \(ends inside a frame, at compressed byte [0-9]+\)" \
  "corrupt.zst:zstd: .* \(compressed byte [0-9]+\)" \
  "half.gz:truncated gzip stream \(ends inside a member, at compressed byte [0-9]+\)"; do
  file=${c%%:*}
  want=${c#*:}
  for t in 1 2; do
    run bash -c "cat $file | '$BT' build -q --threads $t -o ref.bf"
    expect_rc 2 "cat $file | build --threads $t"
    expect_one_error_line "cat $file | build --threads $t"
    expect_match "$ERR" "^bloomtool: <stdin>: $want" "cat $file | build --threads $t: names stdin and the byte"
    expect_same_file ref.bf old.orig "cat $file | build --threads $t: old output untouched"
  done
  run bash -c "cat $file | '$BT' build -q -o ref.bf $file"
  expect_rc 2 "build $file"
  expect_match "$ERR" "^bloomtool: $file: $want" "build $file: names the file and the byte"
  expect_same_file ref.bf old.orig "build $file: old output untouched"
  run bash -c "cat $file | '$BT' query old.orig --absent"
  expect_rc 2 "cat $file | query --absent"
  expect_match "$ERR" "<stdin>: $want" "cat $file | query --absent: names stdin and the byte"
done

# Multi-member gzip and multi-frame zstd through a pipe; a bad CRC through a pipe; xz and bzip2
# through a pipe refused by name.
{ head -50000 keys.txt | gzip -c; tail -n +50001 keys.txt | gzip -1 -c; } >multi.gz
{ head -50000 keys.txt | zstd -q -c; tail -n +50001 keys.txt | zstd -q -c; } >multi.zst
"$BT" build -q --created 1700000000 -n 100000 -o want.bf keys.txt || fail "setup want.bf"
for file in multi.gz multi.zst; do
  for t in 1 2; do
    CHECKS=$((CHECKS + 1))
    cat $file | "$BT" build -q --created 1700000000 -n 100000 --threads $t -o got.bf 2>err ||
      fail "cat $file | build --threads $t: $(cat err)"
    cmp -s got.bf want.bf || fail "cat $file | build --threads $t differs from the file"
  done
done
cp keys.gz badcrc.gz
gsize=$(stat -c %s keys.gz)
printf '\x00\x00\x00\x00' | dd of=badcrc.gz bs=1 seek=$((gsize - 8)) conv=notrunc status=none
xz -c keys.txt >keys.xz
bzip2 -c keys.txt >keys.bz2
for c in "badcrc.gz:gzip: incorrect data check \(compressed byte [0-9]+\)" \
  "keys.xz:xz-compressed, which bloomtool does not read .*'xz -dc'" \
  "keys.bz2:bzip2-compressed, which bloomtool does not read .*'bzip2 -dc'"; do
  file=${c%%:*}
  want=${c#*:}
  for t in 1 2; do
    run bash -c "cat $file | '$BT' build -q --threads $t -o ref.bf"
    expect_rc 2 "cat $file | build --threads $t"
    expect_one_error_line "cat $file | build --threads $t"
    expect_match "$ERR" "^bloomtool: <stdin>: $want" "cat $file | build --threads $t: the reason"
    expect_same_file ref.bf old.orig "cat $file | build --threads $t: old output untouched"
  done
done

# A run that stops early while the writer of a compressed stream keeps the pipe open and idle
# ends at once: the decompressing thread's wait for input is cancelled (timeout turns a hang into
# exit 124).
printf 'short\n%s\nmore\n' "$(printf '%0100d' 0)" >longline.txt
zstd -q -c longline.txt >longline.zst
gzip -c longline.txt >longline.gz
mkfifo idle
for file in longline.zst longline.gz; do
  timeout 10 "$BT" build -q --threads 2 --max-key-bytes 8 -o x.bf <idle 2>err &
  bt=$!
  exec 7>idle
  cat $file >&7
  wait $bt
  rc=$?
  exec 7>&-
  expect_eq "$rc $(cat err)" \
    "2 bloomtool: <stdin>: line 2: key longer than the maximum key length (8 bytes)" \
    "$file from an idle writer: the error at once"
done
finish
