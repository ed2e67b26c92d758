#!/usr/bin/env bash
# --json of build, xor-build, merge, convert and query --count: one object each, parsed by python3
# (json.load), its members exactly those documented in bloomtool-build(1) JSON OUTPUT (query's in
# bloomtool-query(1)), each shared member equal to what `stats --json` (with the same quick
# measurement) says of the file written, and the text summary's figures equal to the JSON's.
source "$(dirname "$0")/lib.sh"
MAN=$(dirname "$0")/../../man

seq 1 3000 >keys.txt
seq 2001 5000 >more.txt
export SOURCE_DATE_EPOCH=1700000000

run "$BT" build -p 1% -o b.bf --json keys.txt
expect_rc 0 "build --json"
expect_eq "$ERR" "" "build --json: nothing on stderr"
printf '%s\n' "$OUT" >build.json
run "$BT" build -p 1% -o b2.bf keys.txt
text_build=$ERR
run "$BT" build -p 1% -o b3.bf more.txt
run "$BT" xor-build -o x.xf --json keys.txt
expect_rc 0 "xor-build --json"
printf '%s\n' "$OUT" >xor.json
run "$BT" merge -o m.bf --json b.bf b3.bf
expect_rc 0 "merge --json"
printf '%s\n' "$OUT" >merge.json
run "$BT" merge -o m2.bf b.bf b3.bf
text_merge=$ERR
run "$BT" convert --codec raw -o c.bf --json b.bf
expect_rc 0 "convert --json"
printf '%s\n' "$OUT" >convert.json
run "$BT" build --compat guava -n 3000 -o g.bin --json keys.txt
expect_rc 0 "build --compat guava --json"
printf '%s\n' "$OUT" >guava.json
# -o -: the filter on stdout, the object on stderr.
"$BT" build -p 1% -o - --json keys.txt >piped.bf 2>piped.json
expect_same_file piped.bf b.bf "build -o - --json: the filter on stdout, unchanged"
run "$BT" query b.bf --count --json more.txt
expect_rc 0 "query --count --json"
printf '%s\n' "$OUT" >query.json
run "$BT" query b.bf --count more.txt
text_query=$OUT
run "$BT" query b.bf --json more.txt
expect_rc 2 "query --json without --count"
expect_one_error_line "query --json without --count"

for f in b x m c; do
  ext=bf
  [ $f = x ] && ext=xf
  "$BT" stats $f.$ext --json --measure 100000 >stats-$f.json || fail "stats $f.$ext"
done
"$BT" stats g.bin --from guava --json --measure 100000 >stats-g.json || fail "stats g.bin"
"$BT" stats b.bf --json >stats-b-nomeasure.json

# The documented members: the .B lines after .TP/.TQ of each JSON section.
documented() {
  awk -v sec="$2" '/^\.SH /{on=($0 ~ sec)} on && prev ~ /^\.T[PQ]$/ && /^\.B /{print $2} {prev=$0}' "$1"
}
documented "$MAN/bloomtool-build.1" "JSON OUTPUT" >written-fields
expect_eq "$(wc -l <written-fields | tr -d ' ')" "30" "30 written-filter members documented"

cat >check.py <<'PY'
import json, re, sys
written = [l.strip() for l in open('written-fields')]
only = {'command', 'path', 'inputs', 'distinct_exact', 'input_bytes'}
def load(p): return json.load(open(p))
def check(name, obj, stats, optional=()):
    keys = list(obj)
    want = [k for k in written if k in keys or k not in optional]
    if keys != want:
        print(f'FAIL {name}: members {keys} != documented {want}')
    for k in keys:
        if k in only: continue
        if k not in stats:
            print(f'FAIL {name}: {k} is not a stats --json member')
        elif obj[k] != stats[k]:
            print(f'FAIL {name}: {k} = {obj[k]!r}, stats says {stats[k]!r}')
    print(f'ok {name}')
check('build', load('build.json'), load('stats-b.json'), optional=('inputs', 'input_bytes'))
check('xor-build', load('xor.json'), load('stats-x.json'), optional=('inputs', 'input_bytes'))
check('merge', load('merge.json'), load('stats-m.json') | {'measurement': None},
      optional=('distinct_exact', 'input_bytes'))
check('convert', load('convert.json'), load('stats-c.json') | {'measurement': None, 'fill_fpr': None, 'set_bits': None, 'fill': None},
      optional=('distinct_exact',))
# A Guava file records no input options, lines or keys added: the build's own counts differ.
check('build --compat guava', load('guava.json'),
      load('stats-g.json') | {k: load('guava.json')[k] for k in ('input_options', 'lines_read', 'keys_added')},
      optional=('inputs', 'input_bytes'))
check('build -o -', load('piped.json') | {'path': 'b.bf'}, load('stats-b.json'), optional=('inputs', 'input_bytes'))
b, x, m, c = load('build.json'), load('xor.json'), load('merge.json'), load('convert.json')
print('values', b['command'], b['distinct_exact'], x['command'], x['kind'], m['command'],
      ','.join(m['inputs']), c['command'], ','.join(c['inputs']), c['codec'],
      c['input_bytes'] == load('stats-b-nomeasure.json')['file_bytes'])
# The text summaries give the same figures.
tb, tm = open('text-build').read(), open('text-merge').read()
def row(text, name): return re.search(r'^  ' + name + r' +(.*)$', text, re.M).group(1)
print('text', row(tb, 'k') == str(b['k']), row(tb, 'distinct keys') == f"{b['distinct_keys']} (exact)",
      row(tb, 'file size').endswith(f"({b['file_bytes']} bytes)"),
      row(tb, 'model p').startswith(f"{b['model_fpr']:.6g} "),
      row(tm, 'bits set').startswith(f"{m['set_bits']} "),
      row(tm, 'fill p').startswith(f"{m['fill_fpr']:.6g} "))
q = load('query.json')
print('query', list(q), q['matched'] == int(open('text-query').read()), q['keys'], q['filters'])
PY
printf '%s\n' "$text_build" >text-build
printf '%s\n' "$text_merge" >text-merge
printf '%s\n' "$text_query" >text-query
result=$(python3 check.py 2>&1)
grep '^FAIL' <<<"$result" | while read -r line; do echo "$line" >&2; done
expect_eq "$(grep -c '^FAIL' <<<"$result")" "0" "every member documented and equal to stats --json"
expect_eq "$(grep -c '^ok' <<<"$result")" "6" "six objects checked"
expect_eq "$(grep '^values' <<<"$result")" \
  "values build True xor-build binary-fuse merge b.bf,b3.bf convert b.bf raw True" "command-specific members"
expect_eq "$(grep '^text' <<<"$result")" "text True True True True True True" "text summaries give the JSON's figures"
expect_eq "$(grep '^query' <<<"$result")" \
  "query ['command', 'filters', 'match', 'all', 'lines_read', 'empty_lines', 'keys', 'empty_keys', 'bad_lines', 'matched'] True 3000 ['b.bf']" \
  "query --count --json: members and the count of the text output"
# query's members are documented in its man page.
for field in command filters match all lines_read empty_lines keys empty_keys bad_lines matched; do
  CHECKS=$((CHECKS + 1))
  grep -q "^\.B $field\$" "$MAN/bloomtool-query.1" || fail "bloomtool-query.1 does not document $field"
done
finish
