# Helpers sourced by the CLI tests (tests/cli/*_test.sh). CTest sets BLOOMTOOL (the binary under
# test), TESTDATA and TOOLS. Each test runs in its own temporary directory, removed at exit.
set -uo pipefail
: "${BLOOMTOOL:?BLOOMTOOL must name the bloomtool binary}"
: "${TESTDATA:?TESTDATA must name the testdata directory}"
BT=$BLOOMTOOL
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cd "$WORK" || exit 2
FAILURES=0
CHECKS=0

fail() {
  echo "FAIL: $*" >&2
  FAILURES=$((FAILURES + 1))
}

# run CMD...: runs a command, capturing stdout in $OUT, stderr in $ERR and the status in $RC.
run() {
  "$@" >"$WORK/.out" 2>"$WORK/.err"
  RC=$?
  OUT=$(cat "$WORK/.out")
  ERR=$(cat "$WORK/.err")
}

# expect_rc N DESCRIPTION: the last run exited with N.
expect_rc() {
  CHECKS=$((CHECKS + 1))
  [ "$RC" -eq "$1" ] || fail "$2: exit $RC, expected $1; stderr: $ERR"
}

# expect_eq ACTUAL EXPECTED DESCRIPTION
expect_eq() {
  CHECKS=$((CHECKS + 1))
  [ "$1" == "$2" ] || fail "$3: got '$1', expected '$2'"
}

# expect_match TEXT REGEX DESCRIPTION (extended regex)
expect_match() {
  CHECKS=$((CHECKS + 1))
  grep -Eq -- "$2" <<<"$1" || fail "$3: '$1' does not match /$2/"
}

# expect_same_file A B DESCRIPTION: byte-identical files.
expect_same_file() {
  CHECKS=$((CHECKS + 1))
  cmp -s "$1" "$2" || fail "$3: $1 and $2 differ"
}

# One error line: "bloomtool: ..." and nothing else on stderr.
expect_one_error_line() {
  CHECKS=$((CHECKS + 1))
  local lines
  lines=$(printf '%s\n' "$ERR" | grep -c .)
  [ "$lines" -eq 1 ] && [[ "$ERR" == bloomtool:* ]] || fail "$1: stderr is not one 'bloomtool:' line: $ERR"
}

finish() {
  echo "$((CHECKS - FAILURES)) passed, $FAILURES failed"
  [ "$FAILURES" -eq 0 ]
  exit $?
}

# base_without CMD NAME...: the words of ${base[CMD]} (an associative array the test declares: a
# command's base arguments) without each option NAME and the value after it, one per line.
base_without() {
  local -a words
  read -ra words <<<"${base[$1]}"
  shift
  local i=0 out=()
  while [ $i -lt ${#words[@]} ]; do
    local w=${words[$i]} skip=0
    for n in "$@"; do [ "$w" = "$n" ] && skip=1; done
    if [ $skip -eq 1 ]; then i=$((i + 2)); else out+=("$w"); i=$((i + 1)); fi
  done
  printf '%s\n' "${out[@]}"
}
