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

# The usage line for a bad command.
run "$C" build nosuchkind keys.txt x.bf
expect_rc 2 "builder_check with an unknown kind"
finish
