#!/usr/bin/env bash
# The manual: every page in man/ renders without a single groff warning; every subcommand has a
# page naming every long option its --help prints; bloomtool(1) lists every subcommand; and
# `cmake --install` puts the pages where man(1) finds them.
MAN_DIR=$(cd "$(dirname "$0")/../../man" && pwd)
source "$(dirname "$0")/lib.sh"

# A page's text with roff escapes for '-' and fonts undone, so options can be searched for.
page_text() { sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' -e 's/\\&//g' -e 's/\\|//g' "$1"; }

pages=("$MAN_DIR"/*.[1-8])
[ "${#pages[@]}" -ge 4 ] || fail "expected at least 4 pages in man/, found ${#pages[@]}"
for page in "${pages[@]}"; do
  name=$(basename "$page")
  warnings=$(groff -man -ww -z "$page" 2>&1)
  expect_eq "$warnings" "" "groff -man -ww -z $name"
  # The same through man(1), which also runs preconv and checks the page as installed pages are.
  warnings=$(MANWIDTH=80 man --warnings -l "$page" 2>&1 >/dev/null)
  expect_eq "$warnings" "" "man --warnings -l $name"
  section=${name##*.}
  title=$(sed -n 's/^\.TH \([^ ]*\) \([0-9]\).*/\1 \2/p' "$page" | sed 's/\\-/-/g')
  expect_eq "$title" "$(basename "$name" ".$section" | tr a-z A-Z) $section" ".TH of $name"
done

# Subcommands, as the top-level --help lists them.
mapfile -t commands < <("$BT" --help | sed -n '/^Subcommands:/,/^$/p' | sed -n 's/^  \([a-z][a-z-]*\) .*/\1/p')
[ "${#commands[@]}" -ge 2 ] || fail "no subcommands found in bloomtool --help"
overview=$(page_text "$MAN_DIR/bloomtool.1")
for cmd in "${commands[@]}"; do
  CHECKS=$((CHECKS + 1))
  grep -q "^\.B $cmd\$" <<<"$overview" || fail "bloomtool.1 does not describe '$cmd' under COMMANDS"
  page="$MAN_DIR/bloomtool-$cmd.1"
  CHECKS=$((CHECKS + 1))
  if [ ! -f "$page" ]; then
    fail "no man page for 'bloomtool $cmd' (man/bloomtool-$cmd.1)"
    continue
  fi
  text=$(page_text "$page")
  mapfile -t options < <("$BT" "$cmd" --help | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u)
  [ "${#options[@]}" -ge 2 ] || fail "no options found in 'bloomtool $cmd --help'"
  for opt in "${options[@]}"; do
    CHECKS=$((CHECKS + 1))
    grep -qF -- "$opt" <<<"$text" || fail "man/bloomtool-$cmd.1 does not mention $opt"
  done
done
for opt in --help --version; do
  CHECKS=$((CHECKS + 1))
  grep -qF -- "$opt" <<<"$overview" || fail "bloomtool.1 does not mention $opt"
done

# One date and one version on every page, the version the binary reports.
version=$("$BT" --version | head -1 | awk '{print $2}')
mapfile -t th_lines < <(for page in "${pages[@]}"; do
  sed -nE '1s/^\.TH [^ ]* [0-9] ([^ ]* "[^"]*").*/\1/p' "$page"
done | sort -u)
expect_eq "${#th_lines[@]}" "1" "every page has the same .TH date and version: ${th_lines[*]}"
expect_match "${th_lines[0]:-}" "\"bloomtool $version\"" ".TH version is the binary's ($version)"
# No option is described twice on a page (the same .TP item line twice).
for page in "${pages[@]}"; do
  dups=$(page_text "$page" | grep -A1 '^\.TP' | grep -E '^\.B[IR]? +-' | sort | uniq -d)
  expect_eq "$dups" "" "options described twice in $(basename "$page")"
done

# Installed by cmake --install, found by man.
build_dir=$(cd "$(dirname "$BT")/../.." && pwd)
if [ -f "$build_dir/CMakeCache.txt" ]; then
  run cmake --install "$build_dir" --prefix "$WORK/prefix"
  expect_rc 0 "cmake --install"
  for page in "${pages[@]}"; do
    name=$(basename "$page")
    CHECKS=$((CHECKS + 1))
    cmp -s "$page" "$WORK/prefix/share/man/man${name##*.}/$name" || fail "$name not installed"
  done
  found=$(MANPATH="$WORK/prefix/share/man" man -w bloomtool-query 2>/dev/null)
  expect_eq "$found" "$WORK/prefix/share/man/man1/bloomtool-query.1" "man finds the installed page"
  found=$(MANPATH="$WORK/prefix/share/man" man -w 5 bloomtool-format 2>/dev/null)
  expect_eq "$found" "$WORK/prefix/share/man/man5/bloomtool-format.5" "man finds the format page"
else
  fail "cannot find the build directory of $BT"
fi

finish
