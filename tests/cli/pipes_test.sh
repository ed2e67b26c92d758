#!/usr/bin/env bash
# Pipes and closed descriptors: a reader that goes away (| head -1) ends query at once, quietly,
# with exit 0 — even on endless input; build -o - into a closed pipe is an error (the reader got
# an incomplete filter); closed or unusable stdin/stdout give one clear error line and exit 2.
source "$(dirname "$0")/lib.sh"
awk 'BEGIN{for(i=0;i<10000;i++) printf "https://pipe.example/%d\n", i}' >keys
"$BT" build -q -p 1% -o f.bf keys

# Endless input: only the closed pipe can end the run. timeout turns a hang into exit 124.
for mode in "" "--absent"; do
  key=https://pipe.example/5
  [ -n "$mode" ] && key=not-a-member-at-all
  start=$(date +%s%N)
  # shellcheck disable=SC2016
  statuses=$(timeout 20 bash -c 'yes "$1" | "$2" query "$3" $4 2>err | head -1 >first
                                 echo "${PIPESTATUS[@]}"' _ "$key" "$BT" f.bf "$mode")
  ms=$((($(date +%s%N) - start) / 1000000))
  expect_eq "$(cat first)" "$key" "query $mode | head -1 prints the first match"
  expect_eq "$(cut -d' ' -f2 <<<"$statuses")" "0" "query $mode exits 0 when head closes the pipe"
  expect_eq "$(cat err)" "" "query $mode prints nothing on stderr when head closes the pipe"
  CHECKS=$((CHECKS + 1))
  [ "$ms" -lt 5000 ] || fail "query $mode | head -1 took $ms ms"
done
# A large finite input behaves the same; -q stops at the first match without reading on.
seq 1 1000000 >many
"$BT" build -q -p 1% -o many.bf many
out=$("$BT" query many.bf many 2>err | head -1)
expect_eq "$out" "1" "query of 1M keys | head -1"
expect_eq "$(cat err)" "" "nothing on stderr"
run timeout 20 bash -c "yes https://pipe.example/5 | '$BT' query f.bf -q"
expect_rc 0 "query -q on endless input stops at the first match"

# build -o - into a closed pipe: the filter did not arrive, so it is an error. (The filter is
# larger than a pipe's buffer, so the write cannot complete before head exits.)
"$BT" build -q -p 0.01% -o - many 2>err | head -c 10 >/dev/null
expect_eq "${PIPESTATUS[0]}" "2" "build -o - | head -c 10 exits 2"
expect_eq "$(cat err)" "bloomtool: <stdout>: Broken pipe" "build -o - broken pipe message"

# Closed and unusable standard descriptors.
run "$BT" query f.bf <&-
expect_rc 2 "query with stdin closed"
expect_one_error_line "query with stdin closed"
expect_eq "$ERR" "bloomtool: <stdin>: standard input is closed" "closed stdin message"
run "$BT" build -q -p 1% -o x.bf <&-
expect_rc 2 "build with stdin closed"
expect_eq "$ERR" "bloomtool: <stdin>: standard input is closed" "build closed stdin message"
[ ! -e x.bf ] || fail "build with stdin closed wrote a file"
run "$BT" build -q -p 1% -o x.bf - <&-
expect_rc 2 "build - with stdin closed"
run "$BT" query f.bf </
expect_rc 2 "stdin is a directory"
expect_eq "$ERR" "bloomtool: <stdin>: is a directory" "directory stdin message"
"$BT" query f.bf keys >&- 2>err
RC=$?
expect_rc 2 "query with stdout closed"
expect_eq "$(cat err)" "bloomtool: <stdout>: standard output is closed" "closed stdout message"
"$BT" build -q -p 1% -o - keys >&- 2>err
RC=$?
expect_rc 2 "build -o - with stdout closed"
# Files opened during the run must not take the numbers of closed descriptors 1 and 2.
"$BT" build -p 1% -o closed.bf keys >&- 2>&-
RC=$?
expect_rc 0 "build with stdout and stderr closed still works"
run "$BT" query closed.bf keys --count
expect_eq "$OUT" "10000" "file built with closed stdout/stderr is intact"

finish
