#!/usr/bin/env bash
# Key normalisation is recorded in the filter and applied by query with no flag; query prints whole
# records of NDJSON and delimited input, like grep; a filter whose normalisation this bloomtool
# cannot parse is refused as unsupported.
source "$(dirname "$0")/lib.sh"
export SOURCE_DATE_EPOCH=1700000000

awk 'BEGIN{for(i=0;i<2000;i++) printf "user%d.name@example%d.com\n", i, i%7}' >emails
# The same addresses as people type them: mixed case, padded, some with mailto:.
awk '{u=toupper(substr($0,1,1)) substr($0,2); if (NR%3==0) u="MailTo:" u; if (NR%2==0) u="  " toupper(u) "\t"; print u}' \
  emails >emails.messy
awk 'BEGIN{for(i=0;i<2000;i++) printf "other%d@example.org\n", i}' >others

run "$BT" build -o plain.bf emails
run "$BT" build -o norm.bf --normalize email emails.messy
expect_rc 0 "build with --normalize email"
expect_match "$ERR" "normalisation   email \(trim, lowercase, drop \"mailto:\"\)" "summary names it"
grep -aq 'email' norm.bf || fail "normalisation not recorded in the file"

run "$BT" query norm.bf emails --count
expect_rc 0 "query the canonical forms"
expect_eq "$OUT" "2000" "canonical forms all present"
run "$BT" query norm.bf emails.messy --count
expect_eq "$OUT" "2000" "messy forms all present with no flag given to query"
run "$BT" query norm.bf others --absent --count
others_absent=$OUT
[ "$others_absent" -ge 1940 ] || fail "non-members mostly absent: $others_absent"
# Without normalisation the messy forms are (nearly all) absent: the normalisation did the work.
run "$BT" query plain.bf emails.messy --count
[ "$OUT" -le 60 ] || fail "plain filter matched $OUT messy keys"
# Threads see the same normalised and unescaped keys: same file, same records, in order.
# (The tab as JSON's \t escape: sed, since awk implementations differ on backslashes in gsub.)
sed 's/\t/\\t/g' emails.messy | awk '{ printf "{\"n\":%d,\"e\":\"%s\"}\n", NR, $0 }' >messy.ndjson
run "$BT" build --threads 1 -o t1.bf --field /e --normalize email messy.ndjson
run "$BT" build --threads 2 -o t2.bf --field /e --normalize email messy.ndjson
expect_same_file t1.bf t2.bf "--threads 2 builds the same filter from NDJSON"
"$BT" query --threads 1 norm.bf messy.ndjson --field /e >q1.out
"$BT" query --threads 2 norm.bf messy.ndjson --field /e >q2.out
expect_same_file q1.out messy.ndjson "every NDJSON record printed whole"
expect_same_file q1.out q2.out "--threads 2 prints the same records in the same order"

# query prints the input line as it was, not the normalised key.
printf '  USER5.NAME@EXAMPLE5.COM\t\nnobody@nowhere.invalid\n' >two
run "$BT" query norm.bf two
expect_eq "$OUT" "$(printf '  USER5.NAME@EXAMPLE5.COM\t')" "record printed as read"
run "$BT" query norm.bf two --absent
expect_eq "$OUT" "nobody@nowhere.invalid" "--absent prints the other record"

# --trim --lowercase --strip-prefix, recorded in canonical form.
printf 'www.Example.com\nwww.other.org\n' >hosts
run "$BT" build -p 1e-6 -o hosts.bf --trim --lowercase --strip-prefix www. hosts
expect_rc 0 "build with trim, lowercase, strip-prefix"
grep -aq 'trim,lowercase,strip-prefix=www.' hosts.bf || fail "canonical text not in the file"
printf '  EXAMPLE.COM \nwww.OTHER.org\nexample.net\n' >hostq
run "$BT" query hosts.bf hostq
expect_eq "$OUT" "$(printf '  EXAMPLE.COM \nwww.OTHER.org')" "padded and cased keys match"
run "$BT" query hosts.bf --lowercase hostq
expect_rc 2 "query takes no normalisation flags"
run "$BT" build -o x.bf --lowercase --strip-prefix WWW. hosts
expect_rc 2 "an upper-case prefix after --lowercase can never match"
expect_eq "$ERR" "bloomtool: --strip-prefix: 'WWW.' has upper-case letters, so it never matches after --lowercase" "its error"
run "$BT" build -o x.bf --normalize ip hosts
expect_rc 2 "unknown preset"
expect_eq "$ERR" "bloomtool: --normalize: 'ip' is not one of email, phone, url" "its error"

# query on records: an access log filtered by a bad-IP filter, like grep.
printf '10.0.0.1\n10.0.0.7\n' >bad_ips
printf '2024-01-01\tGET /a\t10.0.0.1\t200\n2024-01-01\tGET /b\t10.0.0.2\t200\n2024-01-02\tPOST /c\t10.0.0.7\t500\nshort\tline\n' >access.log
run "$BT" build -p 1e-6 -o bad_ips.bf bad_ips
run "$BT" query bad_ips.bf --input-format tsv --column 3 access.log
expect_rc 2 "a short line is an error by default"
expect_eq "$ERR" "bloomtool: access.log: line 4: only 2 columns (the key is in column 3)" "short line named"
run "$BT" query bad_ips.bf --input-format tsv --column 3 --skip-bad-lines access.log
expect_rc 0 "query a TSV log"
expect_eq "$OUT" "$(printf '2024-01-01\tGET /a\t10.0.0.1\t200\n2024-01-02\tPOST /c\t10.0.0.7\t500')" \
  "whole log lines printed"
expect_eq "$ERR" "bloomtool: skipped 1 bad line (first: access.log: line 4: only 2 columns (the key is in column 3))" \
  "skipped lines reported on stderr"
run "$BT" query bad_ips.bf --input-format tsv --column 3 --skip-bad-lines --absent access.log
expect_eq "$OUT" "$(printf '2024-01-01\tGET /b\t10.0.0.2\t200')" "--absent prints the other record"
run "$BT" query bad_ips.bf --input-format tsv --column 3 --skip-bad-lines -q access.log
expect_eq "$ERR" "" "-q prints no warnings"
printf '{"ip":"10.0.0.7","n":1}\n{"ip":"10.9.9.9","n":2}\n' >events.ndjson
run "$BT" query bad_ips.bf --field /ip events.ndjson
expect_eq "$OUT" '{"ip":"10.0.0.7","n":1}' "whole NDJSON record printed"

# Input options are recorded too.
printf '{"user":{"email":"A@B.C"}}\n' >one.ndjson
run "$BT" build -o one.bf --field /user/email --normalize email one.ndjson
grep -aq 'ndjson;field=/user/email' one.bf || fail "input options not recorded"
expect_match "$ERR" "input           ndjson, field /user/email" "summary names the input format"
run "$BT" build -o tsv.bf --input-format tsv --column 3 access.log --skip-bad-lines
grep -aq 'delimited;delimiter=%09;column=3' tsv.bf || fail "delimited options not recorded"

# A normalisation this version does not know, or cannot parse: unsupported, exit 2, no output.
: "${CRAFT_FILTER:?CRAFT_FILTER must name the craft_filter test helper}"
for norm in 'url2' 'trim,frobnicate' 'strip-prefix=%ZZ' 'trim;lowercase'; do
  "$CRAFT_FILTER" hosts.bf patched.bf "normalisation=$norm" || fail "craft_filter $norm"
  run "$BT" query patched.bf hosts
  expect_rc 2 "normalisation '$norm' refused"
  expect_eq "$OUT" "" "nothing printed for '$norm'"
  expect_eq "$ERR" "bloomtool: patched.bf: unsupported key normalisation '$norm' (written by a newer bloomtool?)" \
    "unsupported '$norm', naming the file"
done
"$CRAFT_FILTER" hosts.bf crafted.bf "normalisation=strip-prefix=www.,lowercase,trim"
printf 'WWW.other.org\n' >upper
run "$BT" query hosts.bf upper
expect_rc 0 "trim,lowercase,strip-prefix: www. is stripped after lowercasing"
run "$BT" query crafted.bf upper
expect_rc 1 "strip-prefix first: WWW. is not stripped, so no match (the file's order rules)"

finish
