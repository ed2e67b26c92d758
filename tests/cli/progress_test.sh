#!/usr/bin/env bash
# The progress line: only on stderr, forced by --progress, silenced by --quiet, off by default when
# stderr is not a terminal, on when it is one (through script(1)); bytes of a known total (the
# compressed size for zstd input), or bytes read when the total is unknown (a pipe).
source "$(dirname "$0")/lib.sh"
export SOURCE_DATE_EPOCH=1700000000

awk 'BEGIN{for(i=0;i<200000;i++) printf "key-%d\n", i}' >keys
size=$(stat -c %s keys)
zstd -q -19 keys -o keys.zst
zsize=$(stat -c %s keys.zst)
# Bytes as bloomtool prints them: "237 B", "1.83 MiB".
human() {
  awk -v b="$1" 'BEGIN { split("B KiB MiB GiB", u, " "); i = 1; v = b
    while (v >= 1024 && i < 4) { v /= 1024; i++ }
    if (i == 1) printf "%d B", b; else printf "%.2f %s", v, u[i] }'
}

# The last progress state: the text after the last '\r' of the first line of stderr.
last_progress() { head -n1 <<<"$ERR" | tr '\r' '\n' | tail -n1 | sed 's/ *$//'; }

run "$BT" build -o keys.bf keys
expect_rc 0 "build"
[[ "$ERR" != *$'\r'* ]] || fail "no progress by default when stderr is a file"

run "$BT" build -o keys.bf --progress keys
expect_rc 0 "build --progress"
expect_eq "$OUT" "" "nothing on stdout"
expect_match "$(last_progress)" "^bloomtool: .* of .* \(100%\), 200\.0k keys, [0-9.]+[kMG]? keys/s, ETA 0:00$" \
  "final state: all bytes of the total, all keys"
expect_match "$(last_progress)" " of $(human "$size") " "total is the file size"
expect_match "$(sed -n 2p <<<"$ERR")" "^bloomtool: wrote keys.bf" "summary starts on a fresh line"

run "$BT" build -o keys.bf --progress keys.zst
expect_match "$(last_progress)" "^bloomtool: $(human "$zsize") of $(human "$zsize") \(100%\), 200\.0k keys" \
  "zstd input: compressed bytes of the compressed size"

cat keys | { run "$BT" build -o keys.bf --progress -; echo "$ERR" >pipe.err; }
ERR=$(cat pipe.err)
expect_match "$(last_progress)" "^bloomtool: $(human "$size") read, 200\.0k keys, [0-9.]+[kMG]? keys/s$" \
  "a pipe: bytes read, no total, no ETA"

run "$BT" build -o keys.bf --progress --quiet keys
expect_eq "$ERR" "" "--quiet wins over --progress"

# query: results alone on stdout, progress on stderr.
head -n 3 keys >three
run "$BT" query keys.bf --progress three
expect_eq "$OUT" "$(cat three)" "stdout holds only the results"
expect_match "$(last_progress)" "^bloomtool: .* \(100%\), 3 keys" "query progress on stderr"
run "$BT" query keys.bf --progress -q three
expect_eq "$ERR" "" "query -q prints no progress"

# A terminal on stderr turns progress on without --progress. The input arrives slowly, so the
# line is drawn at least once before the end.
if script -qec true /dev/null >/dev/null 2>&1; then
  script -qec "{ head -n 1000 keys; sleep 0.6; tail -n 1000 keys; } | '$BT' build -o tty.bf -" \
    /dev/null >tty.out 2>&1
  tty=$(tr -d '\r' <tty.out)
  expect_match "$tty" "bloomtool: [0-9.]+ KiB read, 2\.0k keys" "progress drawn on a terminal"
  expect_match "$tty" "wrote tty.bf" "and the summary follows"
else
  echo "script(1) cannot run here: terminal case skipped"
fi

finish
