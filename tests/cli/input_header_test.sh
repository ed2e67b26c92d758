#!/usr/bin/env bash
# --header and --column NAME for delimited, tsv and csv input: the first record of each input is
# skipped; a name picks the column in each input's own header (csv quotes removed); a missing name
# or --header with another format is one error line, exit 2; the file records the options.
source "$(dirname "$0")/lib.sh"

printf 'id,email,name\n1,a@x,"Al, Jr"\n2,b@x,Bo\n' >a.csv
printf '"email",id\nc@x,3\n' >b.csv
printf 'email\tid\nd@x\t4\n' >c.tsv

run "$BT" build --input-format csv --column email -o names.bf --json a.csv b.csv
expect_rc 0 "csv --column email"
expect_match "$OUT" '"input_options": "csv;delimiter=%2C;column_name=email;header=1"' "input options recorded"
expect_match "$OUT" '"lines_read": 5,' "headers are counted as lines read"
expect_match "$OUT" '"keys_added": 3,' "headers are not keys"
run "$BT" query names.bf <<<$'a@x\nb@x\nc@x\nid\nemail\n"email"\n1\n3'
expect_eq "$OUT" $'a@x\nb@x\nc@x' "the email column of each file, by its own header; no header name is a key"
# The same column by number, with --header: the same filter bits.
run "$BT" build --input-format csv --header --column 2 -o numbered.bf a.csv
expect_rc 0 "csv --header --column 2"
run "$BT" query numbered.bf --count <<<$'a@x\nb@x\nemail'
expect_eq "$OUT" "2" "--header skips the first record"
run "$BT" build --input-format csv --column 2 -o noheader.bf a.csv
run "$BT" query noheader.bf --count <<<$'email'
expect_eq "$OUT" "1" "without --header the header is a key"
# tsv, and query reading a header of its own.
run "$BT" build --input-format tsv --column email -o tsv.bf c.tsv
expect_rc 0 "tsv --column email"
run "$BT" query tsv.bf --input-format tsv --column email c.tsv
expect_eq "$OUT" $'d@x\t4' "query --column NAME prints the matching records, not the header"
run "$BT" query tsv.bf --input-format tsv --header --count c.tsv
expect_eq "$OUT" "1" "query --header"
# Errors: a name no header has, --header with lines or ndjson.
run "$BT" build --input-format csv --column mail -o bad.bf a.csv
expect_rc 2 "missing column name"
expect_eq "$ERR" "bloomtool: a.csv: line 1: the header has no column named 'mail'" "missing column: message"
[ -e bad.bf ] && fail "missing column: a file was written"
run "$BT" build --input-format csv --column id -o bad.bf a.csv c.tsv
expect_rc 2 "second input lacks the name"
expect_eq "$ERR" "bloomtool: c.tsv: line 1: the header has no column named 'id'" "second input: message"
run "$BT" build --header -o bad.bf a.csv
expect_rc 2 "--header with lines"
expect_eq "$ERR" "bloomtool: --header: only for --input-format delimited, tsv or csv" "--header with lines: message"
run "$BT" build --field /a --column email -o bad.bf a.csv
expect_rc 2 "--column NAME with --field"
expect_one_error_line "--column NAME with --field"
run "$BT" stats names.bf
expect_match "$OUT" "input options +csv;delimiter=%2C;column_name=email;header=1" "stats shows the options"
# A large input read by several threads: only the first piece holds the header.
{ echo "k,v"; seq 1 300000 | sed 's/$/,x/'; } >big.csv
run "$BT" build --input-format csv --header --threads 4 -o big.bf --json big.csv
expect_match "$OUT" '"keys_added": 300000,' "threads: one header skipped, every key read"
run "$BT" build --input-format csv --column k --threads 4 -o bign.bf big.csv
expect_eq "$("$BT" stats bign.bf | grep -E '^  (set bits|distinct keys)')" \
  "$("$BT" stats big.bf | grep -E '^  (set bits|distinct keys)')" "threads: the column by name gives the same bits"
finish
