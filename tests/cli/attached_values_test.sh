#!/usr/bin/env bash
# Values attached with '=': "--opt=" is the empty value and is refused as "--opt ''" is, for every
# value-taking option of every subcommand, and never takes the next argument as its value (a
# `build --label= keys.txt` once read stdin and replaced the filter with an empty one);
# "--opt=VALUE" and "-x=VALUE" mean "--opt VALUE" and "-x VALUE"; --field '' and --field= are
# both RFC 6901's pointer to the whole line.
source "$(dirname "$0")/lib.sh"

seq 1 2000 >keys.txt
"$BT" build -q --created 1700000000 -o f.bf keys.txt || fail "setup build"
"$BT" keygen -q -o signer || fail "setup keygen"
cp f.bf f.orig

# --- Every value-taking option of every subcommand, "--opt=" before other arguments ----------
commands=(build xor-build query merge stats size keygen convert)
declare -A base=(
  [build]="-o out.bf keys.txt" [xor-build]="-o out.bf keys.txt" [query]="f.bf keys.txt"
  [merge]="-o out.bf f.bf f.bf" [stats]="f.bf" [size]="-n 1000 -p 1%" [keygen]="-o kk -q"
  [convert]="-o out.bf f.bf")
tested=0
for cmd in "${commands[@]}"; do
  mapfile -t opts < <("$BT" "$cmd" --help |
    sed -nE 's/^  (-[a-zA-Z],)?(--[a-z0-9-]+) [A-Z]+( .*)?$/\1\2/p')
  [ "${#opts[@]}" -ge 1 ] || fail "$cmd: no value-taking options found in --help"
  for spec in "${opts[@]}"; do
    long=${spec#*,}
    names=("$long")
    [[ "$spec" == *,* ]] && names+=("${spec%%,*}")
    [ "$long" = --field ] && continue  # below: '' is the whole line
    mapfile -t args < <(base_without "$cmd" "${names[@]}")
    for name in "${names[@]}"; do
      cp f.orig out.bf
      # stdin is empty: an option that took the next argument would read no keys from it.
      run "$BT" "$cmd" "$name=" "${args[@]}" </dev/null
      expect_rc 2 "$cmd $name= ${args[*]}"
      expect_one_error_line "$cmd $name="
      expect_match "$ERR" "^bloomtool: $long: empty value; see 'bloomtool $cmd --help'$" \
        "$cmd $name= is refused as '$long' with an empty value"
      expect_same_file out.bf f.orig "$cmd $name= left out.bf alone"
      tested=$((tested + 1))
    done
  done
done
[ "$tested" -ge 60 ] || fail "only $tested '--opt=' cases found; is --help parsed right?"
[ -e kk.key ] && fail "keygen -o= wrote a key"
expect_same_file f.bf f.orig "no '--opt=' case touched the filter"

# The issue's own command: the filter is left alone.
cp f.orig pub.bf
run "$BT" build -q -p 1% -o pub.bf --label= keys.txt </dev/null
expect_rc 2 "build --label= keys.txt"
expect_eq "$ERR" "bloomtool: --label: empty value; see 'bloomtool build --help'" "--label= message"
expect_same_file pub.bf f.orig "build --label= kept pub.bf"
# A short option in a cluster: -qo= is -q -o ''.
run "$BT" build -qo= keys.txt </dev/null
expect_rc 2 "build -qo= keys.txt"
expect_match "$ERR" "^bloomtool: --output: empty value" "-qo= message"
# A value that merely looks like '--opt=' is a value.
run "$BT" build -q --created 1700000000 -o lab.bf --label --strip-prefix= keys.txt
expect_rc 0 "--label --strip-prefix= takes the word as the label"
run "$BT" stats lab.bf --json
expect_match "$OUT" '"label": "--strip-prefix="' "the label is the word"

# --- "--opt=VALUE" and "-x=VALUE" mean what "--opt VALUE" and "-x VALUE" mean -------------------
build() { "$BT" build -q --created 1700000000 "$@"; }
build -o a.bf -p 1% --label x keys.txt || fail "build -o a.bf"
build -o=b.bf -p=1% --label=x keys.txt || fail "build -o=b.bf -p=1% --label=x"
build --output=c.bf --fpr=1% --label=x keys.txt || fail "build --output=c.bf"
build -qo=d.bf -p 1% --label x keys.txt || fail "build -qo=d.bf"
for f in b c d; do expect_same_file a.bf $f.bf "$f.bf: the '=' spellings build the same file"; done
[ -e "=b.bf" ] && fail "-o=b.bf wrote a file named '=b.bf'"
printf 'a\t1\nb\t2\n' >cols.tsv
build -o col1.bf --delimiter '\t' --column 2 cols.tsv || fail "--column 2"
build -o col2.bf --delimiter='\t' --column=2 cols.tsv || fail "--column=2"
expect_same_file col1.bf col2.bf "--delimiter= --column= as with spaces"
printf '{"k":"a"}\n"b"\n' >mixed.ndjson
printf '"a"\n"b"\n' >strings.ndjson
build -o whole1.bf --input-format ndjson strings.ndjson || fail "ndjson, no --field"
build -o whole2.bf --field '' strings.ndjson || fail "--field ''"
build -o whole3.bf --field= strings.ndjson || fail "--field="
expect_same_file whole2.bf whole3.bf "--field= is --field ''"
run "$BT" query whole2.bf --count <<<"b"
expect_eq "$OUT" "1" "--field '' is the whole line"
run "$BT" query --field= whole2.bf --count strings.ndjson
expect_eq "$OUT" "2" "query --field= reads the whole line"
run "$BT" build -q -o mixed.bf --field= mixed.ndjson
expect_rc 2 "--field '' on an object line"
expect_match "$ERR" "^bloomtool: mixed.ndjson: line 1: " "names the line"
run "$BT" build -q -o bad.bf --field=k strings.ndjson
expect_match "$ERR" "--field: 'k' is not a JSON pointer \(RFC 6901: '/name/0/inner', '' for the whole line\)" \
  "the message's advice is accepted"
"$BT" convert -q --sign=signer.key -o=signed.bf f.bf || fail "convert --sign= -o="
run "$BT" query --trusted-key=signer.pub --from=bloomtool signed.bf --count keys.txt
expect_eq "$RC:$OUT" "0:2000" "query --trusted-key= --from="
run "$BT" stats --verify-signature=signer.pub --negatives=keys.txt --json signed.bf
expect_rc 0 "stats --verify-signature= --negatives="
expect_match "$OUT" '"negatives_file": "keys.txt"' "--negatives= names the file"
run "$BT" query -f=f.bf --count keys.txt
expect_eq "$RC:$OUT" "0:2000" "query -f=FILTER"

finish
