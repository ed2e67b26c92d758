#!/usr/bin/env bash
# Option values that must fail loudly: every value-taking option of every subcommand refuses an
# empty or blank value (an unset variable must not switch a gate or guard off); sizes the machine
# cannot give and thread counts it cannot start are errors, not OOM kills or aborts; overflowing,
# negative and impossible values (dates, durations, counts) are refused; usage errors are one line.
source "$(dirname "$0")/lib.sh"

"$BT" build -q --created 1700000000 -o f.bf "$TESTDATA/urls-10k.txt" || fail "setup build"
cp f.bf f.orig

# --- Every value-taking option, read from each command's --help, with '' and '  ' -------------
commands=(build xor-build query merge stats size)
declare -A base=(
  [build]="-o out.bf $TESTDATA/urls-10k.txt" [xor-build]="-o out.bf $TESTDATA/urls-10k.txt"
  [query]="f.bf $TESTDATA/urls-10k.txt" [merge]="-o out.bf f.bf f.bf" [stats]="f.bf"
  [size]="-n 1000 -p 1%")
tested=0
for cmd in "${commands[@]}"; do
  # Option lines look like "  -n,--capacity N   help" or "  --max-fpr P   help".
  mapfile -t opts < <("$BT" "$cmd" --help |
    sed -nE 's/^  (-[a-zA-Z],)?(--[a-z0-9-]+) [A-Z]+( .*)?$/\1\2/p')
  [ "${#opts[@]}" -ge 1 ] || fail "$cmd: no value-taking options found in --help"
  for spec in "${opts[@]}"; do
    long=${spec#*,}
    names=("$long")
    [[ "$spec" == *,* ]] && names+=("${spec%%,*}")
    mapfile -t args < <(base_without "$cmd" "${names[@]}")
    for name in "${names[@]}"; do
      for value in "" "  "; do
        # --field '' is RFC 6901's pointer to the whole line (attached_values_test.sh).
        [ "$long" = --field ] && [ -z "$value" ] && continue
        run "$BT" "$cmd" "${args[@]}" "$name" "$value"
        expect_rc 2 "$cmd $name '$value'"
        expect_one_error_line "$cmd $name '$value'"
        expect_match "$ERR" "^bloomtool: $long: ((empty|blank) value|'  ' is not one character)" \
          "$cmd $name '$value' names $long"
        tested=$((tested + 1))
      done
    done
    [ "$long" = --field ] && continue
    run "$BT" "$cmd" "${args[@]}" "$long="
    expect_rc 2 "$cmd $long= (empty after =)"
  done
done
[ "$tested" -ge 75 ] || fail "only $tested empty-value cases found; is --help parsed right?"
expect_same_file f.bf f.orig "no empty-value case touched the filter"
# --delimiter takes a space (a real delimiter) but not an empty value.
printf 'a b\nc d\n' >spaced.txt
run "$BT" build -q --delimiter ' ' --column 2 -o sp.bf spaced.txt
expect_rc 0 "--delimiter ' ' is a space delimiter"
run "$BT" query sp.bf --count <<<"d"
expect_eq "$OUT" "1" "column 2 after a space delimiter"
# Positionals too: an empty input or filter path.
run "$BT" build -q -o out.bf ""
expect_rc 2 "build ''"
run "$BT" stats ""
expect_rc 2 "stats ''"
# The guard the issue found disabled: --max-shrink '' must not let a tiny filter replace a big one.
head -100 "$TESTDATA/urls-10k.txt" >small.txt
run "$BT" build -q --max-shrink '' -o f.bf small.txt
expect_rc 2 "--max-shrink ''"
expect_same_file f.bf f.orig "--max-shrink '' left the filter alone"
LIMIT=
run "$BT" stats f.bf --max-fpr "$LIMIT"
expect_rc 2 "stats --max-fpr \"\$LIMIT\" with LIMIT unset"

# --- Memory and threads the machine cannot give ---------------------------------------------
run "$BT" build -q -m 128GiB -o big.bf "$TESTDATA/urls-10k.txt"
expect_rc 2 "-m 128GiB on a machine without 128 GiB"
expect_match "$ERR" "^bloomtool: big.bf: a filter of 128.00 GiB needs more memory than is available" \
  "names the size"
[ -e big.bf ] && fail "-m 128GiB left big.bf behind"
if [ "${BLOOMTOOL_SANITIZED:-0}" != 1 ]; then  # ASan cannot run under a small address space
  run bash -c "ulimit -v 3000000; exec \"$BT\" build -q -m 4GiB -o big.bf \"$TESTDATA/urls-10k.txt\""
  expect_rc 2 "-m 4GiB under a 3 GB address-space limit"
  expect_match "$ERR" "needs more memory than is available" "limit honoured"
fi
for cmd in build xor-build query; do
  args=(-o out.bf)
  [ "$cmd" = query ] && args=(f.bf)
  run "$BT" "$cmd" "${args[@]}" --threads 100000 "$TESTDATA/urls-10k.txt"
  expect_rc 2 "$cmd --threads 100000"
  expect_match "$ERR" "^bloomtool: --threads: '100000' is more than the 1024 threads allowed" \
    "$cmd --threads 100000 message"
  run "$BT" "$cmd" "${args[@]}" --threads -1 "$TESTDATA/urls-10k.txt"
  expect_rc 2 "$cmd --threads -1"
done
# A process limit that refuses threads: an error line, not "terminate called" (exit 134). Root
# ignores RLIMIT_NPROC, so as root the command runs as nobody.
as_limited() {  # as_limited CMD...: runs CMD with at most a few processes for its user
  if [ "$(id -u)" -eq 0 ]; then
    command -v setpriv >/dev/null || return 3
    setpriv --reuid=nobody --regid=nogroup --clear-groups bash -c 'ulimit -u 4; exec "$@"' _ "$@"
  else
    bash -c 'ulimit -u 4; exec "$@"' _ "$@"
  fi
}
PRIV=$(mktemp -d /tmp/bloomtool-threads.XXXXXX)
chmod 755 "$PRIV"
cp "$BT" "$PRIV/bloomtool"
seq 1 300000 >"$PRIV/keys.txt"
cp f.bf "$PRIV/f.bf"
chmod 777 "$PRIV"
chmod 644 "$PRIV/keys.txt" "$PRIV/f.bf"
for cmd in build xor-build query; do
  args=(-o "$PRIV/out.bf")
  [ "$cmd" = query ] && args=("$PRIV/f.bf" --count)
  for input in file stdin; do
    if [ "$input" = file ]; then
      run as_limited "$PRIV/bloomtool" "$cmd" "${args[@]}" --threads 64 "$PRIV/keys.txt"
    else
      run as_limited bash -c 'exec "$@" <"$0"' "$PRIV/keys.txt" "$PRIV/bloomtool" "$cmd" \
        "${args[@]}" --threads 64
    fi
    [ "$RC" -eq 3 ] && break
    # Sanitized builds may get their threads; either way, never an abort.
    if [ "$RC" -ne 0 ]; then
      expect_rc 2 "$cmd ($input) with threads refused"
      expect_match "$ERR" "^bloomtool: cannot start 64 threads: " "$cmd ($input): says why"
    fi
    CHECKS=$((CHECKS + 1))
    [[ "$ERR" == *terminate* ]] && fail "$cmd ($input): aborted: $ERR"
  done
done
rm -rf "$PRIV"

# --- query --count -q --------------------------------------------------------------------------
run "$BT" query f.bf --count -q "$TESTDATA/urls-10k.txt"
expect_rc 2 "query --count -q is refused"
expect_match "$ERR" "^bloomtool: --count: cannot be combined with --quiet" "says why"
run "$BT" query f.bf --count "$TESTDATA/urls-10k.txt"
expect_eq "$OUT" "10000" "query --count counts every match"

# --- Overflow, negative and impossible values --------------------------------------------------
check_refused() {  # check_refused REGEX ARGS...: exit 2 and one error line matching REGEX
  local want=$1
  shift
  run "$BT" "$@"
  expect_rc 2 "$*"
  expect_one_error_line "$*"
  expect_match "$ERR" "$want" "$*"
}
check_refused "'18446744073709551616s' is too large" stats f.bf --max-age 18446744073709551616s
check_refused "'99999999999999999999' is too large" stats f.bf --max-age 99999999999999999999
check_refused "'1h30' has no unit after 30" stats f.bf --max-age 1h30
check_refused "must not be negative" stats f.bf --max-age -1h
for date in 2023-02-31 2023-02-29 2016-12-31T23:59:60Z 2024-13-01 2024-04-31T00:00:00Z; do
  check_refused "--created: '$date' is not a (valid date|Unix time)" build -q --created "$date" -o x.bf \
    "$TESTDATA/urls-10k.txt"
done
check_refused "--created: '99999999999999' is out of range" build -q --created 99999999999999 \
  -o x.bf "$TESTDATA/urls-10k.txt"
[ -e x.bf ] && fail "a refused --created wrote x.bf"
run "$BT" build -q --created 2024-02-29T23:59:59Z -o leap.bf "$TESTDATA/urls-10k.txt"
expect_rc 0 "a real leap day is accepted"
run "$BT" stats leap.bf --json
expect_match "$OUT" '"created": "2024-02-29T23:59:59Z"' "recorded as given"
# A file from the future fails the age gate with its own message; a little skew passes.
future=$(($(date +%s) + 86400))
"$BT" build -q --created "$future" -o future.bf "$TESTDATA/urls-10k.txt" || fail "future build"
run "$BT" stats future.bf --max-age 1h
expect_rc 1 "created a day in the future fails --max-age 1h"
expect_match "$ERR" "--max-age failed: created [0-9]+ s in the future, more than the 300 s of clock skew" \
  "future message"
"$BT" build -q --created $(($(date +%s) + 60)) -o skew.bf "$TESTDATA/urls-10k.txt"
run "$BT" stats skew.bf --max-age 1h
expect_rc 0 "a minute of clock skew passes"
check_refused "need more than 2\^40 bits" build -n 2000000000000000000 -o x.bf "$TESTDATA/urls-10k.txt"
check_refused "need more than 2\^40 bits|limit" size -n 2000000000000000000 -p 1%
for opt in -n -m -k --min-keys; do
  check_refused "^bloomtool: (-n|-m|-k|--min-keys|--capacity|--bits|--hashes): '-5' must not be negative" \
    build -q "$opt" -5 -o x.bf "$TESTDATA/urls-10k.txt"
done
check_refused "--measure: '-5' must not be negative" stats f.bf --measure -5
check_refused "--max-key-bytes: '-1' must not be negative" build -q --max-key-bytes -1 -o x.bf
check_refused "--max-key-bytes: '1x' has an unknown suffix \(bytes: " build -q --max-key-bytes 1x -o x.bf
run "$BT" build -q --max-key-bytes 64KiB -o x.bf "$TESTDATA/urls-10k.txt"
expect_rc 0 "--max-key-bytes 64KiB"

# --- Usage errors: one line, in the tool's words ----------------------------------------------
check_refused "^bloomtool: --capacity: given 2 times; give it once; see 'bloomtool build --help'$" \
  build -n 1 -n 2 -o x.bf
check_refused "^bloomtool: bogus: unknown command \(commands: build, build-static, query, merge, assemble, stats, size, keygen, convert\)" bogus
check_refused "^bloomtool: --quiet-please: unknown option; see 'bloomtool --help'$" --quiet-please
check_refused "^bloomtool: --output: required; see 'bloomtool build --help'$" build "$TESTDATA/urls-10k.txt"
check_refused "^bloomtool: FILTER: argument required" query
check_refused "^bloomtool: --no-such: unknown option" build -o x.bf --no-such
check_refused "^bloomtool: --measure: cannot be combined with --negatives" stats f.bf --measure 1 --negatives f.bf
check_refused "^bloomtool: extra: unexpected argument" size -n 1 -p 1% extra
check_refused "^bloomtool: --json: 'maybe' is not a valid value" stats --json=maybe f.bf
if [ -w /dev/full ]; then
  for args in "--help" "build --help" "--version"; do
    # shellcheck disable=SC2086
    run bash -c "\"$BT\" $args >/dev/full"
    expect_rc 2 "$args >/dev/full"
    expect_match "$ERR" "^bloomtool: <stdout>: No space left on device" "$args >/dev/full says why"
  done
fi

finish
