# Helpers sourced by the interop tests (tests/interop/*_test.sh). CTest sets INTEROP_TOOL (the
# C++ driver of the library's foreign-format components) and INTEROP_DIR (this directory). Each
# test runs in its own temporary directory, removed at exit. Exit 77 means "skipped".
set -uo pipefail
: "${INTEROP_TOOL:?INTEROP_TOOL must name the interop_tool binary}"
: "${INTEROP_DIR:?INTEROP_DIR must name tests/interop}"
TOOL=$INTEROP_TOOL
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cd "$WORK" || exit 2
FAILURES=0
CHECKS=0

fail() {
  echo "FAIL: $*" >&2
  FAILURES=$((FAILURES + 1))
}

# skip MESSAGE: the peer is missing; CTest reports the test as skipped (SKIP_RETURN_CODE 77).
skip() {
  echo "SKIPPED: $*"
  exit 77
}

# must CMD...: runs a command that has to succeed; a failure ends the test.
must() {
  if ! "$@"; then
    echo "FAIL: command failed: $*" >&2
    exit 1
  fi
}

# expect_same_file A B DESCRIPTION: byte-identical files.
expect_same_file() {
  CHECKS=$((CHECKS + 1))
  if cmp -s "$1" "$2"; then
    echo "ok: $3 ($(wc -c <"$1") bytes identical)"
  else
    fail "$3: $1 and $2 differ: $(cmp "$1" "$2" 2>&1 | head -1)"
  fi
}

# expect_eq ACTUAL EXPECTED DESCRIPTION
expect_eq() {
  CHECKS=$((CHECKS + 1))
  [ "$1" == "$2" ] || fail "$3: got '$1', expected '$2'"
}

# make_keys PREFIX COUNT FILE: COUNT distinct URL-like keys, plus a few awkward ones (long keys,
# tabs, spaces, non-ASCII UTF-8) so every hash tail length and byte class is covered.
make_keys() {
  awk -v prefix="$1" -v n="$2" 'BEGIN {
    for (i = 1; i <= n; i++) printf "https://%s.example.com/item/%d?ref=%x\n", prefix, i, i * 2654435761 % 4294967296
    print prefix "\tタブ"; print prefix " ключ с пробелом"; print prefix "🙂"
    for (i = 0; i < 40; i++) { s = s "x"; print prefix s }
  }' >"$3"
}

finish() {
  echo "$((CHECKS - FAILURES)) passed, $FAILURES failed"
  [ "$FAILURES" -eq 0 ]
}
