#!/usr/bin/env bash
# A filter file where keys are read is a mistake (`query --absent n1.bf n2.bf` without `--` once
# printed n2.bf's bytes as "absent" records, exit 0): every command that reads keys (build,
# xor-build, query, stats --negatives) refuses every filter format the tool reads (bloomtool's
# kinds and codecs by their magic; DCSO plain or gzip by its header; Guava by a header that
# matches the file's size), also zstd- or gzip-compressed, from a file, stdin or '-'; query shows
# the '--' form.
source "$(dirname "$0")/lib.sh"

seq 1 500 | sed 's/^/k/' >keys.txt
"$BT" build -q --created 1700000000 -o n1.bf keys.txt || fail "setup"
"$BT" build -q --created 1700000000 -o n2.bf keys.txt || fail "setup"
"$BT" build -q --variant blocked -o blocked.bf keys.txt || fail "setup"
"$BT" build -q --codec raw -o raw.bf keys.txt || fail "setup"
"$BT" xor-build -q --layout xor -o xor.bf keys.txt || fail "setup"
"$BT" xor-build -q --layout fuse -o fuse.bf keys.txt || fail "setup"
"$BT" build -q --compat dcso -n 500 -o plain.dcso keys.txt || fail "setup"
"$BT" build -q --compat dcso --gzip -n 500 -o gz.dcso keys.txt || fail "setup"
"$BT" build -q --compat guava -n 500 -o filter.guava keys.txt || fail "setup"
zstd -q -c n2.bf >n2.bf.zst
gzip -c n2.bf >n2.bf.gz

declare -A what=(
  [n2.bf]="bloomtool filter file" [blocked.bf]="bloomtool filter file"
  [raw.bf]="bloomtool filter file" [xor.bf]="bloomtool filter file"
  [fuse.bf]="bloomtool filter file" [plain.dcso]="DCSO bloom filter file"
  [gz.dcso]="DCSO bloom filter file \(gzip-compressed\)"
  [filter.guava]="Guava BloomFilter filter file \(its header matches its size\)"
  [n2.bf.zst]="bloomtool filter file \(zstd-compressed\)"
  [n2.bf.gz]="bloomtool filter file \(gzip-compressed\)")
cp n1.bf out.bf
cp n1.bf out.orig
for file in "${!what[@]}"; do
  msg="is a ${what[$file]}, not keys"
  for how in path stdin dash; do
    name=$file in=/dev/null args=("$file")
    if [ $how != path ]; then
      name="<stdin>" in=$file args=()
      [ $how = dash ] && args=(-)
    fi
    # Guava files have no magic: through a pipe (no size to match) they are not recognised.
    if [ "$file" = filter.guava ] && [ $how != path ]; then
      run bash -c '"$0" build -q -o out.bf "$@" <"$1"' "$BT" "$file" "${args[@]}"
      # A redirect is a regular file: the size is known there too.
      expect_rc 2 "build $how <$file (a redirected regular file)"
      continue
    fi
    for cmd in build xor-build; do
      run "$BT" "$cmd" -q -o out.bf "${args[@]}" <"$in"
      expect_rc 2 "$cmd $how $file"
      expect_one_error_line "$cmd $how $file"
      expect_match "$ERR" "^bloomtool: $name: $msg$" "$cmd $how $file: message"
      expect_same_file out.bf out.orig "$cmd $how $file: old output untouched"
    done
    run "$BT" query --absent n1.bf "${args[@]}" <"$in"
    expect_rc 2 "query $how $file"
    expect_eq "$OUT" "" "query $how $file prints nothing"
    expect_one_error_line "query $how $file"
    expect_match "$ERR" "^bloomtool: $name: $msg; to ask several filters, end them with '--': bloomtool query n1\.bf $name -- INPUT\.\.\. \('-' for stdin\)$" \
      "query $how $file: shows the '--' form"
    run "$BT" query -f n1.bf --count "${args[@]}" <"$in"
    expect_match "$RC $ERR" "^2 bloomtool: $name: $msg; to ask it as a filter too, add -f $name$" \
      "query -f $how $file"
    neg=$file
    [ $how != path ] && neg=-
    run "$BT" stats n1.bf --negatives "$neg" <"$in"
    expect_rc 2 "stats --negatives $how $file"
    expect_match "$ERR" "$name: $msg" "stats --negatives $how $file"
  done
done
# Guava through a pipe: not recognisable, so read as keys (documented).
cat filter.guava | "$BT" build -q -o piped.bf
expect_eq "$?" "0" "a Guava file through a pipe has no magic to recognise"

# The issue's own command, and the form the message offers.
run bash -c "printf 'key1\n' | \"$BT\" query --absent n1.bf n2.bf"
expect_rc 2 "query --absent n1.bf n2.bf with keys on stdin"
expect_eq "$OUT" "" "no binary 'absent' records"
run bash -c "printf 'key1\nk7\n' | \"$BT\" query --absent n1.bf n2.bf -- -"
expect_eq "$RC $OUT" "0 key1" "query n1.bf n2.bf -- - asks both filters"
# A filter after keys: the error comes when it is reached, exit 2.
run "$BT" build -q -o out.bf keys.txt n2.bf
expect_match "$RC $ERR" "^2 bloomtool: n2.bf: is a bloomtool filter file, not keys$" "keys, then a filter"
expect_same_file out.bf out.orig "keys then a filter: old output untouched"
# With threads the file is never split into ranges and read as keys.
run "$BT" build -q --threads 4 -o out.bf n2.bf raw.bf
expect_rc 2 "--threads 4 with filters as inputs"

finish
