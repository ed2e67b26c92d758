#!/usr/bin/env bash
# Output targets of the writers (build, xor-build, merge): -o /dev/null and other character devices
# and FIFOs are written as streams and stay what they are; symbolic links (chains, relative,
# dangling) are followed and only their final target is replaced; sockets, block devices and
# directories are refused with exit 2; an output that is also an input (same name, ./x, dir/../x,
# a symlink, a hard link, stdin) is refused before anything is read, except merge's in-place
# update of a regular file; a rebuilt file keeps its mode, owner and group; a closed stdout is
# "standard output is closed". Runs as root in CI; the owner case needs root and is skipped
# otherwise.
source "$(dirname "$0")/lib.sh"
export SOURCE_DATE_EPOCH=1700000000

awk 'BEGIN{for(i=0;i<20000;i++) printf "key-%d\n", i}' >keys
awk 'BEGIN{for(i=20000;i<25000;i++) printf "key-%d\n", i}' >more-keys
"$BT" build -q -m 200000 -k 7 -o shard1.bf keys
"$BT" build -q -m 200000 -k 7 -o shard2.bf more-keys

# The three writers, each as: writer_<name> OUT [extra options...]. Each writes the same bytes
# for the same OUT kind (fixed creation time), so expected files are made once per writer.
writer_build() { "$BT" build -q -p 1% -o "$@" keys; }
writer_xor() { "$BT" xor-build -q -o "$@" keys; }
writer_merge() { "$BT" merge -q -o "$@" shard1.bf shard2.bf; }
writers=(build xor merge)
for w in "${writers[@]}"; do
  "writer_$w" "expected-$w.bf" || fail "$w: cannot write the expected file"
done
# A file that is not the output of any writer, to tell "replaced" from "untouched".
"$BT" build -q -p 10% -o old.bf more-keys

for w in "${writers[@]}"; do
  exp="expected-$w.bf"

  # --- Character devices: written as a stream, never replaced ----------------------------
  run "writer_$w" /dev/null
  expect_rc 0 "$w -o /dev/null"
  CHECKS=$((CHECKS + 1))
  [ -c /dev/null ] || fail "$w -o /dev/null: /dev/null is no longer a character device"
  # /dev/stdout is the descriptor, written as it is: into a file, and appended to one.
  "writer_$w" /dev/stdout >"stdout-file-$w.bf"
  RC=$? ERR=""
  expect_rc 0 "$w -o /dev/stdout > file"
  expect_same_file "stdout-file-$w.bf" "$exp" "$w -o /dev/stdout into a file"
  { echo header && "writer_$w" /dev/stdout && echo trailer; } >"bundle-$w"
  { echo header && cat "$exp" && echo trailer; } >"bundle-expected-$w"
  expect_same_file "bundle-$w" "bundle-expected-$w" "$w -o /dev/stdout within a redirection"
  "writer_$w" /dev/fd/1 >"fd1-$w.bf"
  expect_same_file "fd1-$w.bf" "$exp" "$w -o /dev/fd/1"
  "writer_$w" /dev/stdout | cat >"stdout-$w.bf"
  expect_same_file "stdout-$w.bf" "$exp" "$w -o /dev/stdout into a pipe"
  run "writer_$w" /dev/null --max-shrink 10%
  expect_rc 2 "$w -o /dev/null --max-shrink"
  expect_match "$ERR" "max-shrink.*device, FIFO" "$w --max-shrink with a device"

  # --- FIFO: a reader gets the whole filter; the FIFO stays a FIFO --------------------------
  rm -f fifo "fifo-$w.bf"
  mkfifo fifo
  cat fifo >"fifo-$w.bf" &
  reader=$!
  run "writer_$w" fifo
  expect_rc 0 "$w -o fifo"
  wait "$reader"
  CHECKS=$((CHECKS + 1))
  [ -p fifo ] || fail "$w -o fifo: fifo is no longer a FIFO"
  expect_same_file "fifo-$w.bf" "$exp" "$w -o fifo: the reader's bytes"
  run "$BT" stats "fifo-$w.bf"
  expect_rc 0 "$w: the filter read from the FIFO loads"

  # --- Symbolic links: the link stays, its final target is replaced ------------------------
  rm -rf links && mkdir -p links/sub links/other
  cp old.bf links/sub/2026-11-30.bf
  ln -s sub/2026-11-30.bf links/current.bf
  run "writer_$w" links/current.bf
  expect_rc 0 "$w -o symlink"
  CHECKS=$((CHECKS + 1))
  [ -L links/current.bf ] && [ "$(readlink links/current.bf)" = sub/2026-11-30.bf ] ||
    fail "$w -o symlink: the link was replaced: $(ls -l links)"
  expect_same_file links/sub/2026-11-30.bf "$exp" "$w -o symlink: target holds the new filter"
  expect_eq "$(find links -name '.*tmp*' | wc -l)" "0" "$w -o symlink: no temp file left"

  # A relative chain across directories: other/a -> ../chain-b -> sub/final.bf.
  cp old.bf links/sub/final.bf
  ln -s sub/final.bf links/chain-b
  ln -s ../chain-b links/other/a
  run "writer_$w" links/other/a
  expect_rc 0 "$w -o relative symlink chain"
  CHECKS=$((CHECKS + 1))
  [ -L links/other/a ] && [ -L links/chain-b ] || fail "$w: a link of the chain was replaced"
  expect_same_file links/sub/final.bf "$exp" "$w -o chain: final target holds the new filter"
  CHECKS=$((CHECKS + 1))
  [ -z "$(ls -A links/other | grep -v '^a$')" ] || fail "$w -o chain: files left next to the link"

  # Dangling link: the file it points at is created (like a shell redirection).
  ln -s sub/new-day.bf links/dangling
  run "writer_$w" links/dangling
  expect_rc 0 "$w -o dangling symlink"
  CHECKS=$((CHECKS + 1))
  [ -L links/dangling ] || fail "$w -o dangling symlink: the link was replaced"
  expect_same_file links/sub/new-day.bf "$exp" "$w -o dangling symlink creates its target"
  # A dangling link into a missing directory: exit 2, nothing created.
  ln -s no/such/dir/x.bf links/dangling-nodir
  run "writer_$w" links/dangling-nodir
  expect_rc 2 "$w -o dangling symlink into a missing directory"
  expect_one_error_line "$w -o dangling symlink into a missing directory"
  expect_match "$ERR" "^bloomtool: links/dangling-nodir: symbolic link to .*No such file or directory$" \
    "$w dangling symlink message"
  # A symlink loop.
  ln -s loop2 links/loop1
  ln -s loop1 links/loop2
  run "writer_$w" links/loop1
  expect_rc 2 "$w -o symlink loop"
  expect_match "$ERR" "links/loop1: Too many levels of symbolic links" "$w symlink loop message"
  CHECKS=$((CHECKS + 1))
  [ -L links/loop1 ] && [ -L links/loop2 ] || fail "$w -o symlink loop: a link was replaced"

  # --- Refused: socket, directory, block device, and a link to one of them ------------------
  rm -rf sock dir && mkdir dir && cp old.bf dir/keep.bf
  python3 -c 'import socket,sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' sock
  ln -sf sock sock-link
  for target in sock sock-link; do
    run "writer_$w" "$target"
    expect_rc 2 "$w -o $target (a socket)"
    expect_one_error_line "$w -o $target"
    expect_match "$ERR" "^bloomtool: $target: is a socket; .*nothing written$" "$w socket message"
    CHECKS=$((CHECKS + 1))
    [ -S sock ] || fail "$w -o $target: the socket was replaced"
  done
  run "writer_$w" dir
  expect_rc 2 "$w -o a directory"
  expect_match "$ERR" "^bloomtool: dir: Is a directory$" "$w directory message"
  expect_same_file dir/keep.bf old.bf "$w -o dir leaves the directory's files"
  CHECKS=$((CHECKS + 1))
  [ -d dir ] && [ "$(ls -A dir)" = keep.bf ] || fail "$w -o dir changed the directory: $(ls -A dir)"
  rm -f blk
  if mknod blk b 7 250 2>/dev/null; then
    run "writer_$w" blk
    expect_rc 2 "$w -o a block device"
    expect_match "$ERR" "^bloomtool: blk: is a block device; " "$w block device message"
    CHECKS=$((CHECKS + 1))
    [ -b blk ] || fail "$w -o blk: the block device was replaced"
  fi
  # Nothing is published next to the refused targets.
  expect_eq "$(find . -maxdepth 1 -name '.*.tmp.*' | wc -l)" "0" "$w: no temp file after refusals"
done

# --- Output = input: refused before anything is read ----------------------------------------
# A FIFO without a writer comes first among the inputs: were it opened, the run would hang.
rm -f nowriter && mkfifo nowriter
mkdir -p d
cp keys input.txt
ln -sf input.txt input-link
ln -f input.txt input-hard
for cmd in build xor-build; do
  for spelling in input.txt ./input.txt d/../input.txt input-link input-hard "$WORK/input.txt"; do
    run timeout 10 "$BT" "$cmd" -q -o "$spelling" nowriter input.txt
    expect_rc 2 "$cmd -o $spelling nowriter input.txt"
    expect_one_error_line "$cmd -o $spelling"
    expect_match "$ERR" "^bloomtool: input.txt: is both an input and the output; nothing written$" \
      "$cmd -o $spelling message"
    expect_same_file input.txt keys "$cmd -o $spelling leaves the input"
  done
  # The input spelled differently from the output.
  run timeout 10 "$BT" "$cmd" -q -o input.txt nowriter ./d/../input-link
  expect_rc 2 "$cmd -o input.txt ./d/../input-link"
  expect_match "$ERR" "^bloomtool: ./d/../input-link: is both an input and the output" \
    "$cmd message names the input as given"
  # Standard input redirected from the output file.
  run timeout 10 "$BT" "$cmd" -q -o input.txt <input.txt
  expect_rc 2 "$cmd -o input.txt < input.txt"
  expect_match "$ERR" "^bloomtool: <stdin>: is both an input and the output; nothing written$" \
    "$cmd stdin message"
  run timeout 10 "$BT" "$cmd" -q -o input-link - <input.txt
  expect_rc 2 "$cmd -o input-link - < input.txt"
  expect_same_file input.txt keys "$cmd: stdin cases leave the input"
  # A FIFO as both input and output.
  run timeout 10 "$BT" "$cmd" -q -o nowriter nowriter
  expect_rc 2 "$cmd -o fifo fifo"
  expect_match "$ERR" "is both an input and the output" "$cmd fifo in and out"
done
# /dev/null as both input and output is no conflict: an empty filter to nowhere.
run "$BT" build -q -o /dev/null </dev/null
expect_rc 0 "build -o /dev/null < /dev/null"

# --- merge: in place is allowed (atomic replacement after every input is read) --------------
"$BT" merge -q -o expected-inplace.bf shard1.bf shard2.bf
for spelling in a.bf ./a.bf d/../a.bf a-link a-hard; do
  cp shard1.bf a.bf
  ln -sf a.bf a-link
  ln -f a.bf a-hard
  run "$BT" merge -q -o "$spelling" a.bf shard2.bf
  expect_rc 0 "merge -o $spelling a.bf shard2.bf (in place)"
  # A hard link is replaced under the name given (the other name keeps the old bytes).
  replaced=$([ "$spelling" = a-hard ] && echo a-hard || echo a.bf)
  expect_same_file "$replaced" expected-inplace.bf "merge -o $spelling in place: the union"
  CHECKS=$((CHECKS + 1))
  [ -L a-link ] || fail "merge -o $spelling in place replaced the link"
done
# ... but never into a stream that is also an input.
run timeout 10 "$BT" merge -q -o nowriter nowriter shard1.bf
expect_rc 2 "merge -o fifo fifo shard1.bf"
expect_match "$ERR" "is both an input and the output" "merge fifo in and out"

# --- Mode, owner and group survive a rebuild ------------------------------------------------
# An existing non-root group (nogroup or daemon) is used, so the machine is left as it was; a
# group is created only when neither exists.
group=""
if [ "$(id -u)" -eq 0 ]; then
  for g in nogroup daemon; do getent group "$g" >/dev/null && group=$g && break; done
  if [ -z "$group" ] && { getent group bloomtool-test >/dev/null || groupadd bloomtool-test; }; then
    group=bloomtool-test
  fi
fi
owner=""
[ "$(id -u)" -eq 0 ] && getent passwd daemon >/dev/null && owner=daemon
for w in "${writers[@]}"; do
  cp old.bf perm.bf
  chmod 0640 perm.bf
  [ -n "$group" ] && chgrp "$group" perm.bf
  [ -n "$owner" ] && chown "$owner" perm.bf
  before=$(stat -c '%a %U %G' perm.bf)
  run "writer_$w" perm.bf
  expect_rc 0 "$w rebuild of a 0640 file"
  expect_eq "$(stat -c '%a %U %G' perm.bf)" "$before" "$w keeps mode, owner and group"
  expect_same_file perm.bf "expected-$w.bf" "$w rebuilt perm.bf"
  # Through a symlink, the target's attributes count; the link's own do not matter.
  cp old.bf perm-target.bf
  chmod 0604 perm-target.bf
  [ -n "$group" ] && chgrp "$group" perm-target.bf
  ln -sf perm-target.bf perm-link
  before=$(stat -c '%a %U %G' perm-target.bf)
  run "writer_$w" perm-link
  expect_rc 0 "$w rebuild through a link"
  expect_eq "$(stat -c '%a %U %G' perm-target.bf)" "$before" "$w keeps the link target's mode"
  # New files: 0666 less the umask.
  rm -f new022.bf new027.bf
  (umask 022 && "writer_$w" new022.bf)
  (umask 027 && "writer_$w" new027.bf)
  expect_eq "$(stat -c '%a' new022.bf)" "644" "$w new file under umask 022"
  expect_eq "$(stat -c '%a' new027.bf)" "640" "$w new file under umask 027"
done
[ -n "$group" ] || echo "output targets: group case ran without a group change (no usable group)"

# A writer that is not root keeps what it may: its own group and the set-group-ID bit go when the
# old group is one it does not belong to; a group of its own and a set-user-ID bit of its own stay.
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null && getent group daemon >/dev/null &&
  getent passwd nobody >/dev/null; then
  chmod 711 "$WORK"
  mkdir np
  cp keys old.bf np/
  chown -R nobody:nogroup np
  as_nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups -- "$@"; }
  cp old.bf np/foreign.bf && chown nobody:daemon np/foreign.bf && chmod 2664 np/foreign.bf
  cp old.bf np/own.bf && chown nobody:nogroup np/own.bf && chmod 4640 np/own.bf
  run as_nobody "$BT" build -q -p 1% -o np/foreign.bf np/keys
  expect_rc 0 "non-root rebuild of a file of a foreign group"
  expect_eq "$(stat -c '%a %U %G' np/foreign.bf)" "664 nobody nogroup" \
    "non-root: foreign group and its set-group-ID bit dropped, mode kept"
  run as_nobody "$BT" xor-build -q -o np/own.bf np/keys
  expect_rc 0 "non-root rebuild of its own file"
  expect_eq "$(stat -c '%a %U %G' np/own.bf)" "4640 nobody nogroup" \
    "non-root: own owner, group and set-user-ID bit kept"
else
  echo "output targets: SKIPPED the non-root case (needs root, setpriv, users nobody and daemon)"
fi

# --- Standard output: closed, and its name in messages ---------------------------------------
for cmd in "build -p 1%" "xor-build" "merge"; do
  if [ "$cmd" = merge ]; then ins=(shard1.bf shard2.bf); else ins=(keys); fi
  # shellcheck disable=SC2086
  "$BT" $cmd -q -o - "${ins[@]}" >&- 2>err
  RC=$?
  ERR=$(cat err)
  expect_rc 2 "$cmd -o - with stdout closed"
  expect_one_error_line "$cmd -o - with stdout closed"
  expect_eq "$ERR" "bloomtool: <stdout>: standard output is closed" "$cmd closed stdout message"
  # shellcheck disable=SC2086
  "$BT" $cmd -q -o /dev/stdout "${ins[@]}" >&- 2>err
  RC=$?
  ERR=$(cat err)
  expect_rc 2 "$cmd -o /dev/stdout with stdout closed"
  expect_eq "$ERR" "bloomtool: /dev/stdout: standard output is closed" \
    "$cmd -o /dev/stdout closed stdout message"
done
run "$BT" build -q -n 100 -o - keys
expect_rc 2 "build -n 100 -o - (overfilled)"
expect_match "$ERR" "^bloomtool: <stdout>: about [0-9]+ distinct keys" "overfill names <stdout>"
run "$BT" build -q --min-keys 1M -o - keys
expect_rc 2 "build --min-keys -o -"
expect_match "$ERR" "^bloomtool: <stdout>: " "--min-keys names <stdout>"
"$BT" build -o - keys >/dev/null 2>err
ERR=$(cat err)
expect_match "$ERR" "^bloomtool: wrote <stdout>: " "summary names <stdout>"

# --max-shrink reads the file a symlink leads to.
"$BT" build -q -p 1% -o shrink-target.bf keys
ln -sf shrink-target.bf shrink-link
run "$BT" build -q -p 1% --max-shrink 10% -o shrink-link more-keys
expect_rc 2 "--max-shrink through a symlink compares with its target"
expect_same_file shrink-target.bf expected-build.bf "--max-shrink refusal leaves the target"
CHECKS=$((CHECKS + 1))
[ -L shrink-link ] || fail "--max-shrink refusal replaced the link"

finish
