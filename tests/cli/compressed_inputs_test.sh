#!/usr/bin/env bash
# Compressed key inputs are recognised by their magic bytes, whatever they are called: zstd and
# gzip (one member or several) are decompressed for every command that reads keys (build,
# xor-build, query, stats --negatives), from a file, from stdin and from '-'; a damaged or
# truncated stream is an error naming the input (exit 2, the old output untouched); xz, bzip2 and
# lz4 are refused in one line naming the tool that decompresses them. A zstd file of several frames
# of known size decompresses them on several threads, in order, with the same result.
source "$(dirname "$0")/lib.sh"

seq 1 3000 | sed 's/^/key-/' >keys.txt
gzip -c keys.txt >keys.gz
zstd -q -c keys.txt >keys.zst
cp keys.gz keys.txt.data  # no telling suffix
{ head -1000 keys.txt | gzip -c; tail -n +1001 keys.txt | gzip -1 -c; } >multi.gz
{ head -1000 keys.txt | zstd -q -c; tail -n +1001 keys.txt | zstd -q -c; } >multi.zst
# Frames whose headers give their size (zstd compressing files, not a pipe), with a skippable
# frame among them: with four threads or more they decompress on threads of their own.
split -l 400 -a 2 keys.txt part.
for p in part.??; do zstd -q -c "$p"; done >frames.zst
{ zstd -q -c part.aa; printf '\x50\x2a\x4d\x18\x03\x00\x00\x00abc'; zstd -q -c part.ab
  cat part.ac | zstd -q -c; for p in part.a[d-h]; do zstd -q -c "$p"; done; } >mixed.zst
printf 'key-5\nnope\n' >probe.txt

# read_as CMD SOURCE FILE: runs the command on FILE given as a path, on stdin or as '-', and
# prints what it wrote (the filter for the builders, the answer for query and stats).
read_as() {
  local cmd=$1 how=$2 file=$3 args=()
  case $how in
    path) args=("$file") ;;
    dash) args=(-) ;;
    stdin) args=() ;;
  esac
  local in=/dev/null
  [ "$how" != path ] && in=$file
  case $cmd in
    build | xor-build)
      "$BT" "$cmd" -q --created 1700000000 --no-measure -o out.bf "${args[@]}" <"$in" && cat out.bf
      ;;
    query) "$BT" query ref.bf --count "${args[@]}" <"$in" ;;
    stats)
      local neg=$file
      [ "$how" = dash ] && neg=-
      [ "$how" = stdin ] && neg=/dev/stdin
      "$BT" stats ref.bf --negatives "$neg" --json <"$in" | grep -E '"(probes|false_positives)"'
      ;;
  esac
}
"$BT" build -q --created 1700000000 -o ref.bf probe.txt || fail "setup"
for cmd in build xor-build query stats; do
  read_as "$cmd" path keys.txt >want.$cmd 2>/dev/null
  [ -s want.$cmd ] || fail "$cmd: nothing from the plain keys"
  for file in keys.gz keys.zst keys.txt.data multi.gz multi.zst frames.zst mixed.zst; do
    for how in path stdin dash; do
      [ "$cmd" = stats ] && [ "$how" = stdin ] && continue  # --negatives names a file or '-'
      read_as "$cmd" "$how" "$file" >got 2>err
      CHECKS=$((CHECKS + 1))
      cmp -s got want.$cmd || fail "$cmd: $file from $how differs from the plain keys: $(cat err)"
    done
  done
done

# --- Damaged streams: exit 2, one line naming the input, the old output untouched -------------
"$BT" build -q --created 1700000000 -o old.bf keys.txt || fail "setup old.bf"
cp old.bf old.orig
size=$(stat -c %s keys.gz)
head -c $((size / 2)) keys.gz >half.gz
head -c $((size - 4)) keys.gz >no-trailer.gz
cp keys.gz badcrc.gz
printf '\x00\x00\x00\x00' | dd of=badcrc.gz bs=1 seek=$((size - 8)) conv=notrunc status=none
{ cat keys.gz; printf 'trailing junk'; } >junk.gz
head -c $(($(stat -c %s keys.zst) / 2)) keys.zst >half.zst
check_damaged() {  # check_damaged FILE REGEX
  for cmd in build xor-build; do
    run "$BT" "$cmd" -q -o old.bf "$1"
    expect_rc 2 "$cmd $1"
    expect_one_error_line "$cmd $1"
    expect_match "$ERR" "^bloomtool: $1: $2" "$cmd $1: names the input"
    expect_same_file old.bf old.orig "$cmd $1: old output untouched"
  done
  run "$BT" build -q -o old.bf - <"$1"
  expect_rc 2 "build - <$1"
  expect_match "$ERR" "^bloomtool: <stdin>: $2" "build - <$1: names stdin"
  run "$BT" query ref.bf --count "$1"
  expect_rc 2 "query $1"
  expect_match "$ERR" "^bloomtool: $1: $2" "query $1"
  run "$BT" stats ref.bf --negatives "$1"
  expect_rc 2 "stats --negatives $1"
  expect_match "$ERR" "$1: $2" "stats --negatives $1"
}
check_damaged half.gz "truncated gzip stream \(ends inside a member, at compressed byte [0-9]+\)"
check_damaged no-trailer.gz "truncated gzip stream"
check_damaged badcrc.gz "gzip: incorrect data check \(compressed byte [0-9]+\)"
check_damaged junk.gz "gzip: incorrect header check"
check_damaged half.zst "truncated zstd stream"

# --- Frames of known size, decompressed on several threads: the filter of the plain file, and a
# damaged frame in the middle named by the byte it starts at (the frames before it are read) ----
"$BT" build -q --created 1700000000 --no-measure -o want.bf keys.txt || fail "setup want.bf"
for t in 4 5; do
  for file in frames.zst mixed.zst; do
    CHECKS=$((CHECKS + 2))
    "$BT" build -q --created 1700000000 --no-measure --threads $t -o got.bf $file 2>err ||
      fail "build --threads $t $file: $(cat err)"
    cmp -s got.bf want.bf || fail "build --threads $t $file differs from the plain keys"
    "$BT" build -q --created 1700000000 --no-measure --threads $t -o got.bf <$file 2>err ||
      fail "build --threads $t <$file: $(cat err)"
    cmp -s got.bf want.bf || fail "build --threads $t <$file differs from the plain keys"
  done
  run "$BT" query ref.bf --threads $t frames.zst
  expect_eq "$RC $OUT" "0 key-5" "query --threads $t frames.zst"
done
# A frame of more than 8 MiB (more than the threads take whole) after a small one: the streaming
# decoder reads it and the rest, with the same filter.
seq 1 1000000 | sed 's/^/big-/' >big.txt
[ "$(stat -c %s big.txt)" -gt $((8 << 20)) ] || fail "setup: big.txt is not over 8 MiB"
cat part.aa big.txt part.ab >bigframe.txt
{ zstd -q -c part.aa; zstd -q -c big.txt; zstd -q -c part.ab; } >bigframe.zst
"$BT" build -q --created 1700000000 --no-measure -o want-big.bf bigframe.txt || fail "setup big"
for how in path stdin; do
  CHECKS=$((CHECKS + 1))
  if [ $how = path ]; then
    "$BT" build -q --created 1700000000 --no-measure --threads 4 -o got.bf bigframe.zst 2>err
  else
    "$BT" build -q --created 1700000000 --no-measure --threads 4 -o got.bf <bigframe.zst 2>err
  fi || fail "build --threads 4 bigframe.zst ($how): $(cat err)"
  cmp -s got.bf want-big.bf || fail "build --threads 4 bigframe.zst ($how) differs from the plain keys"
done
# The fifth frame starts after the first four; a byte in its data changes its checksum.
fifth=0
for p in part.aa part.ab part.ac part.ad; do fifth=$((fifth + $(zstd -q -c $p | wc -c))); done
cp frames.zst badframe.zst
printf '\xff\xff\xff\xff' | dd of=badframe.zst bs=1 seek=$((fifth + 100)) conv=notrunc status=none
for t in 4 5; do
  run "$BT" build -q --threads $t -o old.bf badframe.zst
  expect_rc 2 "build --threads $t badframe.zst"
  expect_one_error_line "build --threads $t badframe.zst"
  expect_match "$ERR" "^bloomtool: badframe.zst: zstd: .* \(in the frame at compressed byte $fifth\)$" \
    "build --threads $t badframe.zst: names the damaged frame's byte"
  expect_same_file old.bf old.orig "build --threads $t badframe.zst: old output untouched"
  run bash -c "cat badframe.zst | '$BT' query ref.bf --threads $t --count"
  expect_match "$RC $ERR" "^2 bloomtool: <stdin>: zstd: .* \(in the frame at compressed byte $fifth\)$" \
    "cat badframe.zst | query --threads $t"
done
for t in 1 2; do
  run "$BT" build -q --threads $t -o old.bf badframe.zst
  expect_match "$RC $ERR" "^2 bloomtool: badframe.zst: zstd: .* \(compressed byte [0-9]+\)$" \
    "build --threads $t badframe.zst: the streaming decoder's message"
done

# --- Formats bloomtool does not read: one line naming the tool ---------------------------------
xz -c keys.txt >keys.xz
bzip2 -c keys.txt >keys.bz2
lz4 -q -c keys.txt >keys.lz4
printf '\x02\x21\x4c\x18rest' >legacy.lz4
for f in keys.xz:xz keys.bz2:bzip2 keys.lz4:lz4 legacy.lz4:lz4; do
  file=${f%%:*} tool=${f#*:}
  want="-compressed, which bloomtool does not read \(it reads zstd and gzip\); decompress it first with '$tool -dc'$"
  for cmd in build xor-build; do
    run "$BT" "$cmd" -q -o old.bf "$file"
    expect_rc 2 "$cmd $file"
    expect_one_error_line "$cmd $file"
    expect_match "$ERR" "^bloomtool: $file: $tool$want" "$cmd $file names $tool"
    expect_same_file old.bf old.orig "$cmd $file: old output untouched"
  done
  run "$BT" query ref.bf "$file"
  expect_match "$RC $ERR" "^2 bloomtool: $file: $tool-compressed" "query $file"
  run "$BT" query ref.bf <"$file"
  expect_match "$RC $ERR" "^2 bloomtool: <stdin>: $tool-compressed" "query <$file"
  run "$BT" stats ref.bf --negatives - <"$file"
  expect_match "$RC $ERR" "^2 bloomtool: .*<stdin>: $tool-compressed" "stats --negatives - <$file"
done
gzip -c keys.xz >xz-in.gz
run "$BT" build -q -o old.bf xz-in.gz
expect_eq "$RC $ERR" "2 bloomtool: xz-in.gz: xz-compressed data inside gzip compression; decompress it before reading keys" \
  "compressed twice"

# --- Text that merely starts like a magic is keys ----------------------------------------------
printf 'BZh9 is a key\n\x1fnot gzip\n\x01short\n' >looks.txt
run "$BT" build -q -o looks.bf looks.txt
expect_rc 0 "text that starts like bzip2 is read as keys"
run "$BT" query looks.bf --count looks.txt
expect_eq "$OUT" "3" "every line is a key"
printf '\x01' | "$BT" build -q -o one.bf
expect_eq "$?" "0" "a one-byte input that starts like a DCSO header"
# A named FIFO gets the whole stream: it is opened once, by the reader.
mkfifo in.fifo
gzip -c keys.txt >in.fifo &
run "$BT" query ref.bf --count in.fifo
expect_eq "$RC $OUT" "0 1" "a gzip stream through a named FIFO"
wait

finish
