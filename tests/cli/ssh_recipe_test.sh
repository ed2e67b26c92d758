#!/usr/bin/env bash
# bloomtool-merge(1)'s multi-host recipe, run for real: a throw-away sshd on 127.0.0.1 (its own
# host key, user key and port, all in this test's directory) stands for two hosts, and the
# recipe's two command lines are taken from the man page as written and run: GNU parallel ships
# four parts to "host1" and "host2" over ssh (--trc), bloomtool builds them there, and the merge
# of the returned filters must be byte-identical to one build of the whole key set. Skipped
# (exit 77, with the reason) when sshd, ssh, rsync or GNU parallel is missing or sshd cannot start;
# never passed without having run.
MAN_DIR=$(cd "$(dirname "$0")/../../man" && pwd)
source "$(dirname "$0")/lib.sh"
export SOURCE_DATE_EPOCH=1700000000

skip() {
  echo "SKIPPED: $*" >&2
  exit 77
}

SSHD=$(command -v sshd || echo /usr/sbin/sshd)
[ -x "$SSHD" ] || skip "no sshd (Debian package openssh-server)"
for tool in ssh ssh-keygen rsync parallel; do
  command -v "$tool" >/dev/null || skip "no $tool on PATH"
done

# The recipe: the .nf block of bloomtool-merge(1) that uses --sshlogin, roff escapes undone.
sed -n '/^\.nf$/,/^\.fi$/p' "$MAN_DIR/bloomtool-merge.1" |
  awk '/^\.nf$/ { block = ""; next } /^\.fi$/ { if (block ~ /--sshlogin/ || block ~ /\\-\\-sshlogin/) print block; next } { block = block $0 "\n" }' |
  sed -e 's/\\-/-/g' -e 's/\\e/\\/g' >recipe.sh
grep -q -- '--sshlogin 8/host1,8/host2 --trc' recipe.sh || fail "no --sshlogin recipe in bloomtool-merge(1): $(cat recipe.sh)"
grep -q '^bloomtool merge ' recipe.sh || fail "the recipe does not end with a merge: $(cat recipe.sh)"
# The static filter's recipe, from bloomtool-assemble(1): two hosts build half of the partitions
# each, and the parts are assembled.
sed -n '/^\.nf$/,/^\.fi$/p' "$MAN_DIR/bloomtool-assemble.1" |
  awk '/^\.nf$/ { block = ""; next } /^\.fi$/ { if (block ~ /\\-\\-sshlogin/) print block; next } { block = block $0 "\n" }' |
  sed -e 's/\\-/-/g' -e 's/\\e/\\/g' >static-recipe.sh
grep -q -- '--sshlogin 1/host1,1/host2 --basefile keys.txt' static-recipe.sh ||
  fail "no --sshlogin recipe in bloomtool-assemble(1): $(cat static-recipe.sh)"
grep -q '^bloomtool assemble ' static-recipe.sh || fail "the static recipe does not assemble: $(cat static-recipe.sh)"

# --- a private sshd: keys, config, a free port ---
mkdir -p ssh bin
ln -s "$BT" bin/bloomtool
ssh-keygen -q -t ed25519 -N '' -C bloomtool-test-host -f ssh/host_key || skip "ssh-keygen failed"
ssh-keygen -q -t ed25519 -N '' -C bloomtool-test-user -f ssh/user_key || skip "ssh-keygen failed"
cp ssh/user_key.pub ssh/authorized_keys
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])') ||
  skip "no free port"
cat >ssh/sshd_config <<EOF
Port $port
ListenAddress 127.0.0.1
HostKey $WORK/ssh/host_key
PidFile $WORK/ssh/sshd.pid
AuthorizedKeysFile $WORK/ssh/authorized_keys
StrictModes no
UsePAM no
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
AllowUsers $(id -un)
SetEnv PATH=$WORK/bin:/usr/local/bin:/usr/bin:/bin
EOF
# sshd run as root wants its privilege-separation directory; it is part of the system's sshd
# set-up, created here only if missing (and then removed again).
made_privsep=
if [ "$(id -u)" -eq 0 ] && [ ! -d /run/sshd ]; then
  mkdir -p /run/sshd && made_privsep=1
fi
stop_sshd() {
  if [ -s "$WORK/ssh/sshd.pid" ]; then
    kill "$(cat "$WORK/ssh/sshd.pid")" 2>/dev/null
    for _ in $(seq 50); do kill -0 "$(cat "$WORK/ssh/sshd.pid")" 2>/dev/null || break; sleep 0.1; done
  fi
  [ -z "$made_privsep" ] || rmdir /run/sshd 2>/dev/null
  rm -rf "$WORK"
}
trap stop_sshd EXIT
"$SSHD" -f "$WORK/ssh/sshd_config" -E "$WORK/ssh/sshd.log" ||
  skip "sshd cannot start: $(cat ssh/sshd.log 2>/dev/null)"
for _ in $(seq 50); do [ -s ssh/sshd.pid ] && break; sleep 0.1; done

# Two "hosts", both this sshd, known by their host key only (no prompt, no password).
echo "[127.0.0.1]:$port $(cat ssh/host_key.pub)" >ssh/known_hosts
cat >ssh/ssh_config <<EOF
Host host1 host2
  HostName 127.0.0.1
  Port $port
  User $(id -un)
  IdentityFile $WORK/ssh/user_key
  IdentitiesOnly yes
  UserKnownHostsFile $WORK/ssh/known_hosts
  StrictHostKeyChecking yes
  BatchMode yes
  ConnectTimeout 10
EOF
export PARALLEL_SSH="ssh -F $WORK/ssh/ssh_config"
ssh -F ssh/ssh_config host1 true 2>ssh/login.err ||
  skip "cannot log in to the test sshd: $(cat ssh/login.err ssh/sshd.log)"
run ssh -F ssh/ssh_config host2 bloomtool --version
expect_rc 0 "the remote side runs the bloomtool under test"

# --- the recipe: four parts, built "remotely", merged locally ---
export PATH="$WORK/bin:$PATH"
mkdir job
cd job || exit 2
seq -f 'https://example.com/item/%g' 1 40000 >keys.txt
split -n l/4 keys.txt part.
home_before=$(ls -A ~)
start=$(date +%s%N)
PARALLEL="--will-cite" run bash -e ../recipe.sh
expect_rc 0 "the recipe runs: $ERR"
echo "recipe wall time: $((($(date +%s%N) - start) / 1000000)) ms" >&2
for p in aa ab ac ad; do
  [ -s "part.$p.bf" ] || fail "part.$p.bf did not come back from the remote build"
done
expect_eq "$(ls -A ~)" "$home_before" "--trc removed the remote copies (home directory as before)"
bloomtool build -q -m 64MiB -k 7 -o whole.bf keys.txt
expect_same_file keys.bf whole.bf "merge of the remotely built parts = one build of the whole"
run bloomtool query keys.bf --count keys.txt
expect_eq "$OUT" "40000" "every key of every part is in the merged filter"

# --- the static recipe: halves of a partitioned fuse filter built "remotely", assembled ---
PARALLEL="--will-cite" run bash -e ../static-recipe.sh
expect_rc 0 "the static recipe runs: $ERR"
expect_eq "$(ls -A ~)" "$home_before" "--cleanup removed the remote key file and parts"
bloomtool build-static -q --kind fuse --partitions 16 -o whole-static.bf keys.txt
expect_same_file static.bf whole-static.bf "assembly of the remotely built halves = one build"
run bloomtool query static.bf --count keys.txt
expect_eq "$OUT" "40000" "every key is in the assembled static filter"

finish
