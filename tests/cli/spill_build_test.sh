#!/usr/bin/env bash
# build-static's --memory and --tmpdir: values refused with exit 2 before any key is read and the
# old output untouched; accepted values change nothing in the file. Once build-static spills
# hashes (the partitioned construction), SIGTERM, SIGINT and SIGKILL mid-spill leave the
# temporary directory empty (on a tmpfs, its space free) and the old output untouched, and a full
# --tmpdir is exit 2 naming it with the bytes needed against those free; until then those cases
# are skipped with a message. Mounting needs root (CI runs as root).
source "$(dirname "$0")/lib.sh"
export SOURCE_DATE_EPOCH=1700000000
mounts=()
cleanup() {
  for m in "${mounts[@]}"; do umount "$m" 2>/dev/null; done
  rm -rf "$WORK"
}
trap cleanup EXIT

awk 'BEGIN{for(i=0;i<3000;i++) printf "https://old.example/%d\n", i}' >old-keys
awk 'BEGIN{for(i=0;i<20000;i++) printf "https://new.example/%d\n", i}' >keys
"$BT" build-static -q --kind fuse -o old.bf old-keys
"$BT" build-static -q --kind fuse -o new.bf keys

# --- Values refused before any key is read ---------------------------------------------------
touch afile
check_refused() {  # DESCRIPTION MESSAGE ARGS...
  local what=$1 message=$2
  shift 2
  cp old.bf out.bf
  run "$BT" build-static -q --kind fuse -o out.bf "$@" keys
  expect_rc 2 "$what"
  expect_one_error_line "$what"
  expect_eq "$ERR" "$message" "$what: message"
  expect_same_file out.bf old.bf "$what: old output untouched"
}
check_refused "--memory below 16MiB" "bloomtool: --memory: must be at least 16MiB, not 1MiB" \
  --memory 1MiB
check_refused "--memory not a size" \
  "bloomtool: --memory: 'lots' has an unknown suffix (bytes: B, KiB, MiB, GiB, TiB, KB, MB, GB)" \
  --memory lots
cp old.bf out.bf
run "$BT" build-static -q --kind fuse -o out.bf --memory 1000000TiB keys
expect_rc 2 "--memory beyond the machine"
expect_match "$ERR" \
  "^bloomtool: --memory: 1000000.00 TiB is more than the memory available \([0-9.]+ [KMGT]iB\)$" \
  "--memory beyond the machine: message"
expect_same_file out.bf old.bf "--memory beyond the machine: old output untouched"
check_refused "--tmpdir missing" \
  "bloomtool: no/such/dir: cannot create a temporary file: No such file or directory" \
  --tmpdir no/such/dir
check_refused "--tmpdir a file" "bloomtool: afile: cannot create a temporary file: Not a directory" \
  --tmpdir afile
TMPDIR=$WORK/no/such check_refused "\$TMPDIR missing" \
  "bloomtool: $WORK/no/such: cannot create a temporary file: No such file or directory (\$TMPDIR; --tmpdir DIR chooses another)"
if [ "$(id -u)" -ne 0 ]; then  # root writes anywhere
  mkdir ro && chmod 555 ro
  check_refused "--tmpdir not writable" \
    "bloomtool: ro: cannot create a temporary file: Permission denied" --tmpdir ro
fi

# --- Accepted values change nothing in the file ------------------------------------------------
mkdir tmp
for args in "--memory 16MiB --tmpdir tmp" "--memory 64MiB" "--tmpdir tmp"; do
  # shellcheck disable=SC2086
  run "$BT" build-static -q --kind fuse -o out.bf $args keys
  expect_rc 0 "$args"
  expect_same_file out.bf new.bf "$args: the same file"
done
expect_eq "$(ls -A tmp)" "" "nothing left in --tmpdir"

# --- Signals mid-spill, a full --tmpdir (need build-static to spill) ---------------------------
# The spill file has no name: a build is mid-spill once one of its descriptors points into the
# directory at a file holding data. Prints that file's size, or nothing.
spill_size() {
  local fd link
  for fd in /proc/"$1"/fd/*; do
    link=$(readlink "$fd" 2>/dev/null) || continue
    [[ $link == "$2"/* ]] || continue
    stat -L -c %s "$fd" 2>/dev/null
  done | sort -n | tail -1
}
mkdir sig
on_tmpfs=0
if mount -t tmpfs -o size=64m tmpfs sig 2>/dev/null; then
  mounts+=("$WORK/sig")
  on_tmpfs=1
fi
used() { df --output=used -k "$1" | tail -1 | tr -d ' '; }
base=$(used sig)
sigdir=$(cd sig && pwd -P)  # as /proc shows it
seq 2500000 >many-keys  # two runs of 16MiB / 16 bytes a hash
# The summary says what went to disk: 2.5M hashes of 8 bytes in three runs (the threads' staging
# buffers take their share of the 16 MiB), each followed by its index of 65,537 offsets of 8 bytes.
run "$BT" build-static --no-measure --threads 2 --kind fuse --memory 16MiB --tmpdir sig \
  -o spilled.bf many-keys
expect_rc 0 "a spilled build"
expect_match "$ERR" "  spilled         [0-9.]+ MiB \(21572888 bytes\) of hashes in 3 sorted runs under sig" \
  "the summary's spill line"
rm -f spilled.bf
spills=1
for sig in TERM INT KILL; do
  cp old.bf out.bf
  "$BT" build-static -q --kind fuse --threads 2 --memory 16MiB --tmpdir "$WORK/sig" \
    -o out.bf many-keys 2>sig.err &
  pid=$!
  size=
  while kill -0 "$pid" 2>/dev/null; do
    size=$(spill_size "$pid" "$sigdir")
    [ -n "$size" ] && [ "$size" -gt 0 ] && break
    sleep 0.002
  done
  if [ -z "$size" ] || [ "$size" -eq 0 ]; then
    wait "$pid"
    rc=$?
    if [ "$rc" -eq 0 ]; then
      echo "spill build: SKIPPED the signal and full --tmpdir cases: build-static did not spill" \
        "2.5M keys within --memory 16MiB (needs the partitioned construction to use --memory" \
        "and --tmpdir)"
      spills=0
      break
    fi
    fail "SIG$sig: the build ended (exit $rc) before it spilled: $(cat sig.err)"
    continue
  fi
  expect_eq "$(ls -A sig)" "" "SIG$sig: no name while spilling"
  kill -s "$sig" "$pid"
  wait "$pid"
  rc=$?
  expect_eq "$rc" "$((128 + $(kill -l "$sig")))" "SIG$sig ends the build"
  expect_eq "$(ls -A sig)" "" "SIG$sig: nothing left in --tmpdir"
  [ "$on_tmpfs" = 1 ] && expect_eq "$(used sig)" "$base" "SIG$sig: the tmpfs space is free again"
  expect_same_file out.bf old.bf "SIG$sig: old output untouched"
done

mkdir full
if [ "$spills" = 1 ] && mount -t tmpfs -o size=1m tmpfs full 2>/dev/null; then
  mounts+=("$WORK/full")
  cp old.bf out.bf
  run "$BT" build-static -q --kind fuse --memory 16MiB --tmpdir full -o out.bf many-keys
  expect_rc 2 "full --tmpdir"
  expect_one_error_line "full --tmpdir"
  expect_match "$ERR" \
    "^bloomtool: full: not enough free space for spilled hashes: needs [0-9.]+ MiB, [0-9.]+ [KM]iB free$" \
    "full --tmpdir: message"
  expect_same_file out.bf old.bf "full --tmpdir: old output untouched"
  expect_eq "$(ls -A full)" "" "full --tmpdir: nothing left"
  expect_eq "$(used full)" "0" "full --tmpdir: its space free again"
elif [ "$spills" = 1 ]; then
  echo "spill build: SKIPPED full --tmpdir (cannot mount a tmpfs; needs root)"
fi

finish
