#!/usr/bin/env bash
# The C builder API (builder_check, plain C over bloomtool_c.h) against the CLI: for the same keys
# and plan, bloomtool_builder_finish writes byte for byte the file `bloomtool build` / `xor-build`
# writes (SOURCE_DATE_EPOCH fixed), for standard and blocked Bloom filters sized by n and p or by
# the exact distinct count, with normalisation and a seed, and for binary fuse and xor filters;
# finish_bytes gives the same bytes, which open with bloomtool_open_bytes and hold every key.
# Bad input (capi_check api): NULL handles and arguments, impossible plans, huge keys, adding
# after finish, a missing signing key or directory, corrupt bytes: statuses and messages.
source "$(dirname "$0")/../cli/lib.sh"
: "${BUILDER_CHECK:?BUILDER_CHECK must name the builder_check program}"
: "${GEN_KEYS:?GEN_KEYS must name bench/gen_keys}"
C=$BUILDER_CHECK
export SOURCE_DATE_EPOCH=1700000000

# 20,000 keys, with repeats, an empty line and keys that differ only in case and spaces.
"$GEN_KEYS" urls 19990 7 >keys.txt || fail "gen_keys"
head -n 5 keys.txt >>keys.txt
printf '\n  Mixed Case Key \nmixed case key\n\n' >>keys.txt
cat "$TESTDATA/golden/keys.txt" >>keys.txt

# name | CLI command (output appended) | builder_check arguments after KEYS OUT
cases=(
  "bloom-n-p|build -n 20000 -p 0.01 keys.txt|bloom 20000 0.01"
  "bloom-exact|build -p 0.001 keys.txt|bloom 0 0.001"
  "bloom-norm-seed|build -n 25000 -p 0.02 --trim --lowercase --seed 00000000000000ff keys.txt|bloom 25000 0.02 trim,lowercase 255"
  "blocked-n-p|build --variant blocked -n 20000 -p 0.01 keys.txt|blocked 20000 0.01"
  "blocked-exact|build --variant blocked -p 0.01 keys.txt|blocked 0 0.01"
  "fuse|xor-build keys.txt|fuse"
  "xor|xor-build --layout xor keys.txt|xor"
)
for c in "${cases[@]}"; do
  IFS='|' read -r name cli args <<<"$c"
  read -ra cli_words <<<"$cli"
  read -ra c_words <<<"$args"
  run "$BT" "${cli_words[@]}" -q -o "cli-$name.bf"
  expect_rc 0 "$name: bloomtool $cli"
  kind=${c_words[0]}
  run "$C" build "$kind" keys.txt "c-$name.bf" "${c_words[@]:1}"
  expect_rc 0 "$name: builder_check build $args"
  expect_same_file "c-$name.bf" "cli-$name.bf" "$name: C-built file is the CLI's"
done

run "$C" api
expect_rc 0 "builder_check api"
expect_eq "$OUT" "" "builder_check api prints nothing"

# 200,000 keys: builder_check's add_separated call (one batch) is hashed and inserted on several
# threads, its bytes the same.
"$GEN_KEYS" urls 200000 11 >keys-200k.txt || fail "gen_keys 200k"
run "$BT" build -n 200000 -p 0.01 -q -o cli-200k.bf keys-200k.txt
expect_rc 0 "200k: bloomtool build"
run "$C" build bloom keys-200k.txt c-200k.bf 200000 0.01
expect_rc 0 "200k: builder_check build"
expect_same_file c-200k.bf cli-200k.bf "200k: C-built file is the CLI's"

# The error of an automatic refresh (refresh_seconds): kept on the handle for any thread.
seq -f "a%g" 1 100 >a.txt
"$BT" build -q -n 100 -p 1% -o followed.bf a.txt || fail "build followed.bf"
head -c 100 followed.bf >truncated.bf
run "$C" refresh-error followed.bf truncated.bf
expect_rc 0 "builder_check refresh-error"
expect_eq "$OUT" "followed.bf: truncated: file has 100 bytes, its header declares 188" \
  "bloomtool_last_refresh_error's message"

# A full disk at finish (a 256 KiB tmpfs, mounted as tests/cli/writer_faults_test.sh does):
# BLOOMTOOL_ERR_IO naming the path and the reason, the old file byte for byte, no temp file.
mkdir full
if mount -t tmpfs -o size=256k tmpfs full 2>/dev/null; then
  trap 'umount "$WORK/full" 2>/dev/null; rm -rf "$WORK"' EXIT
  cp followed.bf old.bf
  for kind in bloom fuse; do
    cp old.bf full/out.bf
    run "$C" full full/out.bf $kind
    expect_rc 0 "builder_check full ($kind)"
    expect_eq "$OUT" "i/o error|full/out.bf: No space left on device" "full disk ($kind)"
    expect_same_file full/out.bf old.bf "full disk leaves the old file ($kind)"
    expect_eq "$(find full -name '.out.bf.tmp.*' | wc -l)" "0" "no temp file left ($kind)"
  done
  umount full
else
  echo "builder_test: SKIPPED full-disk case (cannot mount a tmpfs; needs root)"
fi

# The usage line for a bad command.
run "$C" build nosuchkind keys.txt x.bf
expect_rc 2 "builder_check with an unknown kind"
finish
