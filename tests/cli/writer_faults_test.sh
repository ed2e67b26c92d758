#!/usr/bin/env bash
# Writer faults: builds killed at random points never publish a broken file and leave no temp
# file behind after the next successful run; SIGTERM cleans up at once; a full disk, a read-only
# directory, a missing directory and a full stdout each give exit 2 naming the path and the reason,
# with the previous file byte-identical. Mounting needs root (CI runs as root); without it those
# cases are skipped with a message.
source "$(dirname "$0")/lib.sh"
export SOURCE_DATE_EPOCH=1700000000
mounts=()
cleanup() {
  for m in "${mounts[@]}"; do umount "$m" 2>/dev/null; done
  rm -rf "$WORK"
}
trap cleanup EXIT

awk 'BEGIN{for(i=0;i<100000;i++) printf "https://kill.example/%d\n", i}' >keys
awk 'BEGIN{for(i=0;i<3000;i++) printf "https://old.example/%d\n", i}' >old-keys
"$BT" build -q -p 1% -o new.bf keys
"$BT" build -q -p 1% -o old.bf old-keys
temps() { find "$1" -maxdepth 1 -name ".${2}.tmp.*" | wc -l; }

# --- SIGKILL at random points -------------------------------------------------------------
# kill_runs COUNT EXPECTED OUT CMD...: COUNT runs of CMD, which writes OUT, each killed with
# SIGKILL. Before each run OUT is absent (every third run) or old.bf; after it, OUT must be
# unchanged or byte-identical to EXPECTED. The first half of the runs are killed at a random time
# within the first 90 % of a run; the second half a random few milliseconds after their temp
# file appears, so they land in writing, fsync and rename however fast or slow this build of
# bloomtool is. Runs that finish before the kill lands still count as runs; at least 100 must
# really be killed.
runs=0 completed=0 killed_writing=0 bad=0
RANDOM=20240131
kill_runs() {
  local count=$1 expected=$2 out=$3
  shift 3
  local dir=${out%/*} base=${out##*/} start span_us i before delay_us delay_ms when rc pid state
  # The shortest of three runs: a first run slowed by a cold cache or a busy machine would put
  # the kill points late, and too few runs would then be killed before they finish.
  span_us=0
  for i in 1 2 3; do
    start=$(date +%s%N)
    "$@" 2>/dev/null
    local took=$((($(date +%s%N) - start) / 1000))
    if [ "$span_us" -eq 0 ] || [ "$took" -lt "$span_us" ]; then span_us=$took; fi
  done
  echo "writer faults: one run of $2 takes $((span_us / 1000)) ms (the shortest of three)"
  for ((i = 1; i <= count; i++)); do
    if [ $((i % 3)) -eq 0 ]; then rm -f "$out"; else cp old.bf "$out"; fi
    before=$([ -e "$out" ] && echo old || echo absent)
    if [ "$i" -le $((count / 2)) ]; then
      delay_us=$(((RANDOM * span_us * 9 / 10) / 32768))
      when="after ${delay_us}us"
      timeout --foreground -s KILL \
        "$(printf '%d.%06d' $((delay_us / 1000000)) $((delay_us % 1000000)))" "$@" 2>/dev/null
      rc=$?
    else
      "$@" 2>/dev/null &
      pid=$!
      until compgen -G "$dir/.$base.tmp.$pid.*" >/dev/null || ! kill -0 "$pid" 2>/dev/null; do
        sleep 0.001
      done
      delay_ms=$((RANDOM % 6))
      when="${delay_ms}ms after its temp file appeared"
      sleep "0.$(printf '%03d' "$delay_ms")"
      kill -KILL "$pid" 2>/dev/null
      wait "$pid"
      rc=$?
    fi
    runs=$((runs + 1))
    if [ -e "$out" ] && cmp -s "$out" "$expected"; then
      state=new
    elif [ -e "$out" ] && cmp -s "$out" old.bf; then
      state=old
    elif [ -e "$out" ]; then
      state=broken
    else
      state=absent
    fi
    CHECKS=$((CHECKS + 1))
    case "$before/$state" in
      absent/absent | absent/new | old/old | old/new) ;;
      *) fail "$* (exit $rc, killed $when): output went from $before to $state"; bad=$((bad + 1)) ;;
    esac
    if [ "$rc" -eq 0 ]; then
      completed=$((completed + 1))
      CHECKS=$((CHECKS + 1))
      [ "$(temps "$dir" "$base")" -eq 0 ] || fail "$* completed but left temp files: $(ls -A "$dir")"
    else
      [ "$(temps "$dir" "$base")" -gt 0 ] && killed_writing=$((killed_writing + 1))
    fi
  done
  run "$@"
  expect_rc 0 "$* after the killed runs"
  expect_same_file "$out" "$expected" "$* after the killed runs"
  expect_eq "$(temps "$dir" "$base")" "0" "no temp file left after the next successful $2"
}

# Under the sanitizers (each run several times slower, the same code paths) a third of the runs.
build_runs=260 other_runs=20 min_killed=100
if [ "${BLOOMTOOL_SANITIZED:-0}" = 1 ]; then build_runs=86 other_runs=8 min_killed=33; fi
mkdir kill
kill_runs $build_runs new.bf kill/out.bf "$BT" build -q -p 1% -o kill/out.bf keys
run "$BT" query kill/out.bf keys --count
expect_eq "$OUT" "100000" "the published filter finds every key"
# merge publishes the same way.
head -50000 keys >shard1
tail -n +50001 keys >shard2
"$BT" build -q -m 958505 -k 7 -o shard1.bf shard1
"$BT" build -q -m 958505 -k 7 -o shard2.bf shard2
"$BT" merge -q -o merged.bf shard1.bf shard2.bf
kill_runs $other_runs merged.bf kill/merged.bf "$BT" merge -q -o kill/merged.bf shard1.bf shard2.bf
# xor-build too.
"$BT" xor-build -q -o xor.bf keys
kill_runs $other_runs xor.bf kill/xor.bf "$BT" xor-build -q -o kill/xor.bf keys
echo "writer faults: $runs SIGKILL runs of build, merge and xor-build: $completed completed," \
  "$((runs - completed)) killed ($killed_writing of them after creating the temp file)," \
  "$bad broken outputs"
CHECKS=$((CHECKS + 1))
[ "$killed_writing" -gt 0 ] || fail "no run was killed while writing: kill points miss the write"
CHECKS=$((CHECKS + 1))
[ $((runs - completed)) -ge $min_killed ] ||
  fail "only $((runs - completed)) runs were killed before they finished (want $min_killed)"
start=$(date +%s%N)
# Timed on kill/out.bf itself: its commit also clears temp files the SIGKILL runs above left.
"$BT" build -q -p 1% -o kill/out.bf keys
span_us=$((($(date +%s%N) - start) / 1000))

# SIGTERM and SIGINT remove the temp file at once.
for sig in TERM INT; do
  for i in 1 2 3 4 5; do
    cp old.bf kill/out.bf
    delay_us=$((span_us * i / 6))
    timeout --foreground -s "$sig" "$(printf '0.%06d' "$delay_us")" "$BT" build -q -p 1% -o kill/out.bf keys
    rc=$?
    CHECKS=$((CHECKS + 1))
    { cmp -s kill/out.bf old.bf || cmp -s kill/out.bf new.bf; } ||
      fail "SIG$sig after ${delay_us}us: output is neither the old nor the new file"
    CHECKS=$((CHECKS + 1))
    [ "$(temps kill out.bf)" -eq 0 ] || fail "SIG$sig after ${delay_us}us (exit $rc) left a temp file: $(ls -la kill/ | grep tmp)"
    runs=$((runs + 1))
  done
done

# --- Missing directory, full stdout --------------------------------------------------------
run "$BT" build -q -p 1% -o no/such/dir/out.bf keys
expect_rc 2 "missing directory"
expect_one_error_line "missing directory"
expect_match "$ERR" "^bloomtool: no/such/dir/out.bf: No such file or directory$" "missing directory message"
"$BT" build -q -p 1% -o - keys >/dev/full 2>err
RC=$?
ERR=$(cat err)
expect_rc 2 "-o - to a full device"
expect_one_error_line "-o - to a full device"
expect_match "$ERR" "^bloomtool: <stdout>: No space left on device$" "full stdout message"
"$BT" query new.bf keys >/dev/full 2>err
RC=$?
ERR=$(cat err)
expect_rc 2 "query to a full device"
expect_match "$ERR" "^bloomtool: <stdout>: No space left on device$" "query full stdout message"
"$BT" xor-build -q -o - keys >/dev/full 2>err
RC=$?
ERR=$(cat err)
expect_rc 2 "xor-build -o - to a full device"
expect_match "$ERR" "^bloomtool: <stdout>: No space left on device$" "xor-build full stdout message"
"$BT" merge -q -o - shard1.bf shard2.bf >/dev/full 2>err
RC=$?
ERR=$(cat err)
expect_rc 2 "merge -o - to a full device"
expect_match "$ERR" "^bloomtool: <stdout>: No space left on device$" "merge full stdout message"
faults=6  # kill runs aside: missing dir, full stdout (build, query, xor-build, merge), and below

# --- Full disk: a 256 KiB tmpfs ------------------------------------------------------------
mkdir full
if mount -t tmpfs -o size=256k tmpfs full 2>/dev/null; then
  mounts+=("$WORK/full")
  cp old.bf full/out.bf
  awk 'BEGIN{for(i=0;i<300000;i++) printf "big-%d\n", i}' >big-keys  # a ~540 KB filter
  run "$BT" build -q -p 0.1% -o full/out.bf big-keys
  expect_rc 2 "full disk"
  expect_one_error_line "full disk"
  expect_match "$ERR" "^bloomtool: full/out.bf: No space left on device$" "full disk message"
  expect_same_file full/out.bf old.bf "full disk leaves the old file"
  expect_eq "$(temps full out.bf)" "0" "full disk leaves no temp file"
  # A payload of several MiB on two threads: the write fails on the thread that writes while the
  # next piece is compressed, and the error comes back the same way.
  awk 'BEGIN{for(i=0;i<2000000;i++) printf "huge-%d\n", i}' >huge-keys  # a 2.3 MiB filter
  run "$BT" build -q --threads 2 -p 1% -o full/out.bf huge-keys
  expect_rc 2 "full disk, two threads"
  expect_one_error_line "full disk, two threads"
  expect_match "$ERR" "^bloomtool: full/out.bf: No space left on device$" \
    "full disk message, two threads"
  expect_same_file full/out.bf old.bf "full disk leaves the old file, two threads"
  expect_eq "$(temps full out.bf)" "0" "full disk leaves no temp file, two threads"
  faults=$((faults + 2))
else
  echo "writer faults: SKIPPED full-disk case (cannot mount a tmpfs; needs root)"
fi

# --- Read-only directory: a tmpfs remounted read-only (root ignores permission bits) ---------
mkdir ro
if mount -t tmpfs -o size=1m tmpfs ro 2>/dev/null; then
  mounts+=("$WORK/ro")
  cp old.bf ro/out.bf
  if mount -o remount,ro "$WORK/ro" 2>/dev/null; then
    run "$BT" build -q -p 1% -o ro/out.bf keys
    expect_rc 2 "read-only directory"
    expect_one_error_line "read-only directory"
    expect_match "$ERR" "^bloomtool: ro/out.bf: Read-only file system$" "read-only message"
    expect_same_file ro/out.bf old.bf "read-only directory leaves the old file"
    run "$BT" merge -q -o ro/out.bf shard1.bf shard2.bf
    expect_rc 2 "merge into a read-only directory"
    expect_match "$ERR" "^bloomtool: ro/out.bf: Read-only file system$" "merge read-only message"
    expect_same_file ro/out.bf old.bf "merge leaves the old file in a read-only directory"
    faults=$((faults + 2))
  else
    echo "writer faults: SKIPPED read-only case (cannot remount read-only)"
  fi
elif [ "$(id -u)" -ne 0 ]; then
  chmod 555 ro
  cp old.bf ro/out.bf 2>/dev/null || { chmod 755 ro; cp old.bf ro/out.bf; chmod 555 ro; }
  run "$BT" build -q -p 1% -o ro/out.bf keys
  expect_rc 2 "unwritable directory"
  expect_match "$ERR" "^bloomtool: ro/out.bf: Permission denied$" "unwritable directory message"
  expect_same_file ro/out.bf old.bf "unwritable directory leaves the old file"
  chmod 755 ro
  faults=$((faults + 1))
else
  echo "writer faults: SKIPPED read-only case (cannot mount a tmpfs)"
fi
echo "writer faults: $runs kill/signal runs, $faults other fault cases"

finish
