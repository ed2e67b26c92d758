#!/usr/bin/env bash
# Hashes spilled to a temporary file (lib/src/format/hash_spill.h, through tests/cli/spill_driver):
# the same hashes read back for any memory budget and thread count; a temporary directory that is
# missing or a file is exit 2 before any hash is added; SIGTERM, SIGINT and SIGKILL mid-spill leave
# the directory empty and, on a tmpfs, its space free again; a full tmpfs is exit 2 naming the
# directory and the bytes needed against those free, checked up front when the count is known.
# Mounting needs root (CI runs as root); without it the tmpfs cases are skipped with a message.
source "$(dirname "$0")/lib.sh"
: "${SPILL_DRIVER:?SPILL_DRIVER must name tests/cli/spill_driver}"
SD=$SPILL_DRIVER
mounts=()
cleanup() {
  for m in "${mounts[@]}"; do umount "$m" 2>/dev/null; done
  rm -rf "$WORK"
}
trap cleanup EXIT

mkdir tmp
# --- The same partitions for any budget and thread count --------------------------------------
run "$SD" tmp 0 200000 1
expect_rc 0 "no budget"
expected=${OUT#runs=0 }
expect_match "$OUT" "^runs=0 distinct=200000 checksum=" "no budget: nothing spilled"
for args in "65536 1" "65536 2" "1048576 2" "0 2"; do
  run "$SD" tmp ${args% *} 200000 ${args#* }
  expect_rc 0 "memory ${args% *}, ${args#* } threads"
  expect_eq "${OUT#runs=* }" "$expected" "memory ${args% *}, ${args#* } threads: same hashes"
done
expect_match "$(run "$SD" tmp 65536 200000 2; echo "$OUT")" "^runs=(1[0-9]|[2-9][0-9])" \
  "a 64 KiB budget spills many runs"
expect_eq "$(ls -A tmp)" "" "nothing left in the temporary directory"

# --- The temporary directory: missing, a file -------------------------------------------------
run "$SD" no/such/dir 65536 1000 1
expect_rc 2 "missing directory"
expect_eq "$ERR" "spill_driver: no/such/dir: cannot create a temporary file: No such file or directory" \
  "missing directory message"
touch afile
run "$SD" afile 65536 1000 1
expect_rc 2 "a file"
expect_eq "$ERR" "spill_driver: afile: cannot create a temporary file: Not a directory" \
  "not a directory message"

# --- Signals mid-spill ------------------------------------------------------------------------
mkdir sig
on_tmpfs=0
if mount -t tmpfs -o size=64m tmpfs sig 2>/dev/null; then
  mounts+=("$WORK/sig")
  on_tmpfs=1
else
  echo "spill: tmpfs not mounted (needs root): the signal cases check the directory only"
fi
used() { df --output=used -k "$1" | tail -1 | tr -d ' '; }
base=$(used sig)
sigdir=$(cd sig && pwd -P)  # as /proc shows it
# The size of the file PID holds open in directory $2, or nothing (the spill file has no name).
spill_size() {
  local fd link
  for fd in /proc/"$1"/fd/*; do
    link=$(readlink "$fd" 2>/dev/null) || continue
    [[ $link == "$2"/* ]] || continue
    stat -L -c %s "$fd" 2>/dev/null
  done | sort -n | tail -1
}
for sig in TERM INT KILL; do
  # The child opens sig.out after the fork: emptied here first, so that a line from the run
  # before is never taken for this one's.
  : >sig.out
  "$SD" sig 65536 0 2 >sig.out 2>sig.err &
  pid=$!
  for _ in $(seq 500); do
    grep -q spilling sig.out 2>/dev/null && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.01
  done
  CHECKS=$((CHECKS + 1))
  grep -q spilling sig.out || fail "SIG$sig: the driver never spilled: $(cat sig.err)"
  # The file is in use, in the directory, and has data, but no name.
  size=$(spill_size "$pid" "$sigdir")
  CHECKS=$((CHECKS + 1))
  [ -n "$size" ] && [ "$size" -gt 0 ] || fail "SIG$sig: no open file with data in the directory"
  expect_eq "$(ls -A sig)" "" "SIG$sig: no name while spilling"
  if [ "$on_tmpfs" = 1 ]; then
    CHECKS=$((CHECKS + 1))
    [ "$(used sig)" -gt "$base" ] || fail "SIG$sig: the spill file holds no space on the tmpfs"
  fi
  kill -s "$sig" "$pid"
  wait "$pid"
  rc=$?
  expect_eq "$rc" "$((128 + $(kill -l "$sig")))" "SIG$sig ends the driver"
  expect_eq "$(ls -A sig)" "" "SIG$sig: nothing left"
  [ "$on_tmpfs" = 1 ] && expect_eq "$(used sig)" "$base" "SIG$sig: the tmpfs space is free again"
done

# --- A full tmpfs -----------------------------------------------------------------------------
mkdir full
if mount -t tmpfs -o size=1m tmpfs full 2>/dev/null; then
  mounts+=("$WORK/full")
  # Runs of 120 KiB with a 512 KiB index: the first fits in 1 MiB, the second does not.
  run "$SD" full 262144 300000 1
  expect_rc 2 "full tmpfs"
  expect_match "$ERR" \
    "^spill_driver: full: not enough free space for spilled hashes: needs [0-9.]+ KiB, [0-9.]+ KiB free$" \
    "full tmpfs message"
  expect_eq "$(ls -A full)" "" "full tmpfs: nothing left"
  expect_eq "$(used full)" "0" "full tmpfs: its space free again"
  # Told the count, the check comes before any hash.
  run "$SD" full 262144 300000 1 330000
  expect_rc 2 "full tmpfs, count known"
  expect_match "$ERR" \
    "^spill_driver: full: not enough free space for spilled hashes: needs [0-9.]+ MiB, 1.00 MiB free$" \
    "full tmpfs, count known: message"
else
  echo "spill: SKIPPED full tmpfs (cannot mount a tmpfs; needs root)"
fi

finish
