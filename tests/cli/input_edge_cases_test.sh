#!/usr/bin/env bash
# Input edge cases, one table row each: the bytes of the input, the build options, the exact exit
# status, and then either the counts the build summary must print or the exact error line. Rows
# with a probe then query the filter (with no options: query takes the normalisation from the file)
# and check how many probe lines match.
source "$(dirname "$0")/lib.sh"
export SOURCE_DATE_EPOCH=1700000000

ROWS=0

# row NAME INPUT ARGS RC EXPECT [PROBE MATCHES]
#   INPUT   printf-style bytes ('\n', '\r', '\x00', '\\u' for a JSON \u escape), written to file
#           "in"; or "@big:N:CHAR", N bytes of CHAR with no newline, piped on stdin.
#   ARGS    build options (split on spaces)
#   EXPECT  space-separated checks on the summary: keys=N distinct=N empty=N emptykeys=N bad=N
#           lines=N; or "err=<the exact stderr line>".
#   PROBE   printf-style lines given to `query in.bf`; MATCHES: how many it must print.
row() {
  local name=$1 input=$2 args=$3 rc=$4 expect=$5 probe=${6-} matches=${7-}
  local -a argv
  # The second pass only re-runs the NDJSON rows, whose messages come from simdjson.
  if [ -n "${JSON_ONLY-}" ] && [[ $args != *--field* && $args != *ndjson* ]]; then return 0; fi
  ROWS=$((ROWS + 1))
  name="$name${SIMDJSON_FORCE_IMPLEMENTATION:+ (simdjson $SIMDJSON_FORCE_IMPLEMENTATION)}"
  read -ra argv <<<"$args"
  rm -f in in.bf
  if [[ $input == @big:* ]]; then
    IFS=: read -r _ n ch <<<"$input"
    run "$BT" build -o in.bf "${argv[@]}" - < <(head -c "$n" /dev/zero | tr '\0' "$ch")
  else
    printf "$input" >in
    run "$BT" build -o in.bf "${argv[@]}" in
  fi
  expect_rc "$rc" "[$name] exit status"
  local check
  if [[ $expect == err=* ]]; then
    expect_eq "$ERR" "${expect#err=}" "[$name] error line"
    [ ! -e in.bf ] || fail "[$name] wrote a filter despite the error"
    return
  fi
  for check in $expect; do
    local key=${check%%=*} want=${check#*=} label
    case $key in
      keys) label="keys added" ;;
      distinct) label="distinct keys" ;;
      empty) label="empty lines" ;;
      emptykeys) label="empty keys" ;;
      bad) label="bad lines" ;;
      lines) label="lines read" ;;
      *) fail "[$name] unknown check $key"; continue ;;
    esac
    local got
    got=$(sed -n "s/^  $label  *\([0-9]*\).*/\1/p" <<<"$ERR")
    if [ "$key" = emptykeys ] && [ -z "$got" ]; then got=0; fi
    expect_eq "$got" "$want" "[$name] $label"
  done
  if [ -n "$probe" ]; then
    printf "$probe" >probe
    run "$BT" query in.bf --count probe
    expect_eq "$OUT" "$matches" "[$name] probe matches"
  fi
}

table() {
# --- lines ---------------------------------------------------------------------------------------
row "empty input"              ''                          ''  0 "keys=0 lines=0 empty=0"
row "only a newline"           '\n'                        ''  0 "keys=0 lines=1 empty=1"
row "blank lines"              'a\n\n\nb\n\n'              ''  0 "keys=2 lines=5 empty=3"
row "CRLF"                     'a\r\nb\r\n'                ''  0 "keys=2 empty=0" 'a\nb\n' 2
row "lone CR inside a line"    'a\rb\n'                    ''  0 "keys=1" 'a\rb\n' 1
row "CR-only line is empty"    '\r\n\r\nx\r\n'             ''  0 "keys=1 empty=2"
row "UTF-8 BOM dropped"        '\xef\xbb\xbfa\nb\n'        ''  0 "keys=2" 'a\n' 1
row "BOM alone"                '\xef\xbb\xbf'              ''  0 "keys=0 lines=1 empty=1"
row "BOM only at the start"    'a\n\xef\xbb\xbfb\n'        ''  0 "keys=2" 'b\n' 0
row "NUL bytes are key bytes"  'a\x00b\n\x00\n'            ''  0 "keys=2 distinct=2" 'a\x00b\n' 1
row "invalid UTF-8 is a key"   '\xff\xfe\n\xc3\x28\n'      ''  0 "keys=2 distinct=2" '\xc3\x28\n' 1
row "no final newline"         'a\nb'                      ''  0 "keys=2" 'b\n' 1
row "duplicates counted"       'a\na\na\n'                 ''  0 "keys=3 distinct=1"
row "line at --max-key-bytes"  '12345678\n'                '--max-key-bytes 8' 0 "keys=1"
row "CR not counted in limit"  '12345678\r\n'              '--max-key-bytes 8' 0 "keys=1"
row "one byte over the limit"  'a\n123456789\n'            '--max-key-bytes 8' 2 \
  "err=bloomtool: in: line 2: key longer than the maximum key length (8 bytes)"
row "over, last line unended"  'a\n123456789'              '--max-key-bytes 8' 2 \
  "err=bloomtool: in: line 2: key longer than the maximum key length (8 bytes)"
row "100 MiB line, limit raised" '@big:104857600:x'        '--max-key-bytes 100MiB' 0 "keys=1 lines=1"
row "100 MiB line, default limit" '@big:104857600:x'       '' 2 \
  "err=bloomtool: <stdin>: line 1: key longer than the maximum key length (1048576 bytes)"

# --- ndjson --------------------------------------------------------------------------------------
row "ndjson strings"           '{"k":"a"}\n{"k":"b","x":[1,{"y":null}]}\n' '--field /k' 0 "keys=2" 'a\nb\nc\n' 2
row "nested field"             '{"a":{"b":{"c":"deep"}}}\n' '--field /a/b/c' 0 "keys=1" 'deep\n' 1
row "array index"              '{"a":["x","y"]}\n'         '--field /a/1' 0 "keys=1" 'y\nx\n' 1
row "pointer escapes ~1 ~0"    '{"a/b":{"~":"t"}}\n'       '--field /a~1b/~0' 0 "keys=1" 't\n' 1
row "numbers in canonical form" '{"k":1}\n{"k":1.0}\n{"k":1e0}\n{"k":-0}\n{"k":0.5}\n' \
  '--field /k' 0 "keys=5 distinct=3" '1\n0\n0.5\n1.0\n' 3
row "64-bit integers exact"    '{"k":18446744073709551615}\n{"k":-9223372036854775808}\n' \
  '--field /k' 0 "keys=2 distinct=2" '18446744073709551615\n-9223372036854775808\n' 2
row "integer beyond 64 bits"   '{"k":18446744073709551616}\n' '--field /k' 2 \
  "err=bloomtool: in: line 1: not valid JSON (bad number, or beyond 64-bit range)"
row "unicode escapes decoded"  '{"k":"caf\\u00e9 \\ud83d\\ude00"}\n' '--field /k' 0 "keys=1" \
  'caf\xc3\xa9 \xf0\x9f\x98\x80\n' 1
row "escaped NUL in a string"  '{"k":"a\\u0000b"}\n'       '--field /k' 0 "keys=1" 'a\x00b\n' 1
row "whitespace-only lines"    '  \n\t\n{"k":"a"}\n'       '--field /k' 0 "keys=1 empty=2"
row "ndjson CRLF and BOM"      '\xef\xbb\xbf{"k":"a"}\r\n{"k":"b"}\r\n' '--field /k' 0 "keys=2" 'a\n' 1
row "whole-line values"        '"a"\n7\n'                  '--input-format ndjson' 0 "keys=2" 'a\n7\n' 2
row "empty string skipped"     '{"k":""}\n{"k":"x"}\n'     '--field /k' 0 "keys=1 emptykeys=1"
row "malformed: unclosed"      '{"k":"a"}\n{"k":"a"\n'     '--field /k' 2 \
  "err=bloomtool: in: line 2: not valid JSON (bad structure)"
row "malformed after the field" '{"k":"a","z":tru}\n'      '--field /k' 2 \
  "err=bloomtool: in: line 1: not valid JSON (bad literal)"
row "two values on one line"   '{"k":"a"} {"k":"b"}\n'     '--field /k' 2 \
  "err=bloomtool: in: line 1: not valid JSON (bad structure)"
row "invalid UTF-8 in JSON"    '{"k":"\xff"}\n'            '--field /k' 2 \
  "err=bloomtool: in: line 1: not valid JSON (invalid UTF-8)"
row "raw NUL in JSON"          '{"k":"a\x00"}\n'           '--field /k' 2 \
  "err=bloomtool: in: line 1: not valid JSON (bad string)"
row "lone surrogate escape"    '{"k":"\\ud800"}\n'         '--field /k' 2 \
  "err=bloomtool: in: line 1: not valid JSON (bad string)"
row "missing field"            '{"k":"a"}\n{"j":"a"}\n'    '--field /k' 2 \
  "err=bloomtool: in: line 2: no field /k"
row "missing nested field"     '{"a":"flat"}\n'            '--field /a/b' 2 \
  "err=bloomtool: in: line 1: no field /a/b"
row "wrong type: boolean"      '{"k":true}\n'              '--field /k' 2 \
  "err=bloomtool: in: line 1: field /k is a boolean, not a string or a number"
row "wrong type: object"       '{"k":{}}\n'                '--field /k' 2 \
  "err=bloomtool: in: line 1: field /k is an object, not a string or a number"
row "wrong type: null"         '{"k":null}\n'              '--field /k' 2 \
  "err=bloomtool: in: line 1: field /k is null, not a string or a number"
row "skip bad lines"           '{"k":"a"}\nnot json\n{"j":1}\n{"k":"b"}\n' '--field /k --skip-bad-lines' \
  0 "keys=2 bad=2 lines=4" 'a\nb\n' 2
row "max-bad-lines reached"    'x\ny\n{"k":"a"}\n'         '--field /k --max-bad-lines 2' 0 "keys=1 bad=2"
row "max-bad-lines exceeded"   'x\n{"k":"a"}\ny\nz\n'      '--field /k --max-bad-lines 1' 2 \
  "err=bloomtool: in: line 3: not valid JSON (bad structure) (bad line 2, more than the 1 allowed)"
row "record over the limit"    '{"k":"a","pad":"xxxxxxxxxx"}\n' '--field /k --max-key-bytes 16' 2 \
  "err=bloomtool: in: line 1: line longer than the maximum line length (16 bytes)"

# --- delimited -----------------------------------------------------------------------------------
row "tsv column 2"             'x\ta\ny\tb\n'              '--input-format tsv --column 2' 0 "keys=2" 'a\nb\nx\n' 2
row "wrong column count"       'x\ta\ny\n'                 '--input-format tsv --column 2' 2 \
  "err=bloomtool: in: line 2: only 1 column (the key is in column 2)"
row "wrong column count skipped" 'x\ta\ny\n'               '--column 2 --skip-bad-lines' 0 "keys=1 bad=1"
row "empty column skipped"     'x\t\ty\nx\tz\n'            '--column 2' 0 "keys=1 emptykeys=1"
row "custom delimiter"         'a;b;c\n'                   '--delimiter ; --column 3' 0 "keys=1" 'c\n' 1
row "plain split keeps quotes" '"a,b",c\n'                 '--delimiter , --column 1' 0 "keys=1" '"a\n' 1
row "csv quoted comma"         '"a,b",c\n'                 '--input-format csv --column 1' 0 "keys=1" 'a,b\n' 1
row "csv doubled quotes"       'x,"say ""hi"""\n'          '--input-format csv --column 2' 0 "keys=1" 'say "hi"\n' 1
row "csv CRLF last column"     'a,b\r\n'                   '--input-format csv --column 2' 0 "keys=1" 'b\n' 1
row "csv unterminated quote"   '"abc,d\n'                  '--input-format csv' 2 \
  "err=bloomtool: in: line 1: unterminated quoted field in column 1"
row "csv text after a quote"   '"a"b,c\n'                  '--input-format csv --column 2' 2 \
  "err=bloomtool: in: line 1: text after the closing quote in column 1"

# --- normalisation -------------------------------------------------------------------------------
row "trim: blank keys skipped" '  \n a \n'                 '--trim' 0 "keys=1 emptykeys=1 empty=0" 'a\n  a\t\n' 2
row "lowercase"                'Foo\nfoo\nFOO\n'           '--lowercase' 0 "keys=3 distinct=1" 'fOO\n' 1
row "strip prefixes in order"  'mailto:a@x\nb@x\n'         '--strip-prefix mailto: --trim' 0 "keys=2 distinct=2" \
  ' mailto:b@x \n' 1
row "phone preset"             '+1 (555) 010-0000\n1-555-010-0000\n' '--normalize phone' 0 "keys=2 distinct=2" \
  '+15550100000\ntel:+1.555.010.0000\n15550100000\n' 3
row "email preset on ndjson"   '{"e":" Foo@Example.COM"}\n{"e":"mailto:foo@example.com"}\n' \
  '--field /e --normalize email' 0 "keys=2 distinct=1" 'FOO@EXAMPLE.COM\n' 1
row "url preset"               'HTTP://Example.com:80/a/\nhttp://example.com/a#top\n' '--normalize url' 0 \
  "keys=2 distinct=1" 'http://EXAMPLE.com/a/\n' 1
}

table
[ "$ROWS" -ge 30 ] || fail "only $ROWS rows"
echo "$ROWS input edge cases"
# simdjson may pick another kernel on another CPU: the messages must not depend on it.
JSON_ONLY=1 SIMDJSON_FORCE_IMPLEMENTATION=fallback table
finish
