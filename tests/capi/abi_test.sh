#!/usr/bin/env bash
# The ABI of libbloomtool.so: its SONAME is libbloomtool.so.0, it exports exactly the functions
# listed in abi/libbloomtool.symbols (nm -D --defined-only; a missing or an unlisted symbol fails),
# each is declared in bloomtool_c.h, and the version node BLOOMTOOL_0 is the only one defined.
source "$(dirname "$0")/../cli/lib.sh"
: "${LIBBLOOMTOOL:?LIBBLOOMTOOL must name the built libbloomtool.so}"
: "${ABI_DIR:?ABI_DIR must name the abi/ directory}"
header=$(dirname "$0")/../../lib/include/bloomtool/bloomtool_c.h

run readelf -d "$LIBBLOOMTOOL"
expect_match "$OUT" "\(SONAME\) +Library soname: \[libbloomtool\.so\.0\]" "SONAME"

grep -v '^#' "$ABI_DIR/libbloomtool.symbols" >expected
# Functions (T) and data (D, B, R) alike; the version node itself shows as an absolute symbol (A).
nm -D --defined-only --with-symbol-versions "$LIBBLOOMTOOL" | awk '$2 != "A" {print $3}' | sort >actual
CHECKS=$((CHECKS + 1))
if ! cmp -s expected actual; then
  fail "exported symbols differ from abi/libbloomtool.symbols (< listed only, > exported only):
$(diff expected actual | grep '^[<>]')"
fi
expect_eq "$(nm -D --defined-only "$LIBBLOOMTOOL" | awk '$2 == "A" {print $3}')" "BLOOMTOOL_0" \
  "version nodes"
# Every listed symbol is a documented function of the header.
while read -r sym; do
  name=${sym%%@*}
  CHECKS=$((CHECKS + 1))
  grep -qE "BLOOMTOOL_C_API .*[ *]$name\(" "$header" || fail "$name is not declared in bloomtool_c.h"
done <expected
expect_eq "$(wc -l <expected)" "$(grep -c 'BLOOMTOOL_C_API [a-z]' "$header")" \
  "as many symbols as declarations in bloomtool_c.h"
finish
