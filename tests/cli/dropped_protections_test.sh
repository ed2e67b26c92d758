#!/usr/bin/env bash
# Options that protect a filter are never dropped silently: build --compat refuses --seed (the
# peer's scheme has no seed: the file came out byte-identical to an unseeded one) as it refuses
# --codec, --sign, --label and normalisation; convert says when a signed input's signature is not
# carried over, and --sign signs the output again; build --compat guava warns about keys that are
# not valid UTF-8 (Guava's string funnel never hashes those bytes).
source "$(dirname "$0")/lib.sh"

seq 1 500 | sed 's/^/k/' >keys.txt
"$BT" keygen -q -o signer || fail "setup keygen"

# --- build --compat: every protection it cannot keep is refused --------------------------------
"$BT" build -q --compat dcso -n 500 -o old.dcso keys.txt || fail "setup dcso"
cp old.dcso old.orig
for peer in guava dcso; do
  for opt in "--seed random" "--seed 0123456789abcdef" "--seed 1" "--created 1700000000" \
    "--sign signer.key" "--codec raw" "--label x" "--trim" "--normalize email" \
    "--strip-prefix k" "--max-shrink 10%"; do
    read -ra words <<<"$opt"
    run "$BT" build -q --compat $peer -n 500 "${words[@]}" -o old.dcso keys.txt
    expect_rc 2 "--compat $peer $opt"
    expect_one_error_line "--compat $peer $opt"
    expect_match "$ERR" "^bloomtool: (${words[0]}|key normalisation): not with --compat $peer: " \
      "--compat $peer $opt: names the option"
    expect_same_file old.dcso old.orig "--compat $peer $opt: old output untouched"
  done
done
run "$BT" build -q --compat guava -n 500 --seed random -o x.guava keys.txt
expect_eq "$ERR" "bloomtool: --seed: not with --compat guava: the peer's hash scheme has no seed" \
  "--seed message"
[ -e x.guava ] && fail "--compat guava --seed random wrote a file"
# The options that do apply still work.
run "$BT" build -q --compat guava -n 500 --min-keys 400 --threads 2 -o ok.guava keys.txt
expect_rc 0 "--compat guava with --min-keys and --threads"

# --- convert: a signature not carried over is said, --sign signs again ---------------------------
"$BT" build -q --sign signer.key -o signed.bf keys.txt || fail "setup signed"
cp signed.bf inplace.bf
id=$(head -1 signer.pub | awk '{print $NF}')
# The man page's tip: rewrite a file in place, same filter.
run "$BT" convert --codec raw inplace.bf -o inplace.bf
expect_rc 0 "convert --codec raw F -o F"
expect_match "$ERR" "^bloomtool: inplace.bf: unsigned: inplace.bf was signed \(key ID $id\), and a signature covers the old bytes only; sign the output again with --sign KEY$" \
  "in place: warns, offers --sign"
for args in "-q" "--codec zstd" "--codec raw -q"; do
  read -ra words <<<"$args"
  run "$BT" convert "${words[@]}" signed.bf -o out.bf
  expect_rc 0 "convert $args"
  expect_match "$ERR" "^bloomtool: out.bf: unsigned: signed.bf was signed \(key ID $id\)" \
    "convert $args: warns (also with -q)"
  run "$BT" query --trusted-key signer.pub out.bf keys.txt
  expect_rc 2 "convert $args: the output is really unsigned"
done
run "$BT" convert -q --codec raw --sign signer.key signed.bf -o resigned.bf
expect_eq "$RC:$ERR" "0:" "--sign: no warning"
run "$BT" query --trusted-key signer.pub --count resigned.bf keys.txt
expect_eq "$RC:$OUT" "0:500" "--sign: the output verifies"
run "$BT" convert -q --codec raw -o plain.bf "$("$BT" build -q -o unsigned.bf keys.txt && echo unsigned.bf)"
expect_eq "$RC:$ERR" "0:" "an unsigned input: no warning"
# Into a peer's format: no place for a signature.
"$BT" convert -q --from guava ok.guava -o g.bf || fail "setup guava as bloomtool"
"$BT" convert -q --sign signer.key g.bf -o g-signed.bf || fail "setup signed guava"
run "$BT" convert -q --to guava g-signed.bf -o back.guava
expect_rc 0 "signed to guava"
expect_match "$ERR" "^bloomtool: back.guava: unsigned: g-signed.bf was signed \(key ID $id\), and a guava file has no place for a signature$" \
  "to guava: says the signature is gone"
expect_same_file back.guava ok.guava "the Guava bytes are unchanged"

# --- build --compat guava: keys that are not valid UTF-8 ----------------------------------------
printf 'caf\xe9\nok\n\xed\xa0\x80surrogate\n\xc0\xafoverlong\ncaf\xc3\xa9\n\xf0\x9f\x98\x80\n' >mixed.txt
for threads in 1 3; do
  run "$BT" build -q --threads $threads --compat guava -n 100 -o u.guava mixed.txt
  expect_rc 0 "guava, mixed keys, $threads threads"
  expect_eq "$ERR" "bloomtool: u.guava: 3 of 6 keys are not valid UTF-8; a service using Guava's Funnels.stringFunnel(UTF_8) will not find them (it hashes a Java String's UTF-8 bytes, never these; Funnels.byteArrayFunnel() hashes the bytes as they are)" \
    "guava warns with the count ($threads threads)"
done
seq 1 200000 | sed 's/$/\xff/' >many.txt
run "$BT" build -q --threads 4 --compat guava -n 200000 -o many.guava many.txt
expect_match "$ERR" "^bloomtool: many.guava: 200000 of 200000 keys are not valid UTF-8" \
  "counted across threads"
run "$BT" build -q --compat guava -n 100 -o v.guava --input-format ndjson <<<'"caf\u00e9"'
expect_eq "$RC:$ERR" "0:" "valid UTF-8 (from JSON escapes): no warning"
run "$BT" build -q --compat dcso -n 100 -o u.dcso mixed.txt
expect_eq "$RC:$ERR" "0:" "dcso hashes bytes: no warning"

finish
