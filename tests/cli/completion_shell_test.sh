#!/usr/bin/env bash
# The completion scripts in real interactive shells: bash and zsh started in a private tmux
# server, the scripts `bloomtool completions` prints loaded, keys typed with send-keys (Tab, and
# zsh's list-choices ^D) and the screen read with capture-pane. Checks the values of the options
# with fixed values, filter files for filter positionals (key files after them), and zsh's
# description of --delimiter with its \t. Skipped (77) without tmux (tools/quickstart.sh test
# installs it) or zsh.
source "$(dirname "$0")/lib.sh"

command -v tmux >/dev/null || { echo "SKIPPED: tmux is missing" >&2; exit 77; }
command -v zsh >/dev/null || { echo "SKIPPED: zsh is missing" >&2; exit 77; }

mkdir -p bin zfunc files
ln -s "$BT" bin/bloomtool
"$BT" completions bash >bloomtool.bash || fail "completions bash"
"$BT" completions zsh >zfunc/_bloomtool || fail "completions zsh"
touch files/a.bf files/b.xf files/keys.txt

# start NAME SHELL-COMMAND SETUP: a tmux server of its own (socket NAME) running the shell, SETUP
# typed into it.
start() {
  SOCK=$1-$$
  SOCKETS+=("$SOCK")
  tmux -L "$SOCK" -f /dev/null new-session -d -s t -x 200 -y 30 \
    "env -i HOME=$WORK TERM=xterm PATH=$WORK/bin:/usr/bin:/bin $2" || fail "tmux could not start $2"
  tmux -L "$SOCK" send-keys -t t "$3" Enter
  wait_for READY >/dev/null
}
SOCKETS=()
trap 'for s in "${SOCKETS[@]}"; do tmux -L "$s" kill-server 2>/dev/null; done; rm -rf "$WORK"' EXIT

# wait_for LINE: LINE once the screen shows it as a whole line (trailing blanks aside), else
# after 5 s the last line that starts with the prompt or names a.bf (what the screen shows).
wait_for() {
  local screen i
  for ((i = 0; i < 50; i++)); do
    screen=$(tmux -L "$SOCK" capture-pane -p -t t | sed 's/ *$//')
    if grep -Fxq -- "$1" <<<"$screen"; then
      printf '%s\n' "$1"
      return
    fi
    sleep 0.1
  done
  grep -E '^[$%] |a\.bf' <<<"$screen" | tail -1
}

# typed TEXT KEYS... LINE: clears the command line, types TEXT and KEYS, waits for LINE.
typed() {
  tmux -L "$SOCK" send-keys -t t C-u "$1" "${@:2:$#-2}"
  wait_for "${!#}"
}

# expect_typed NAME TEXT KEYS... LINE: the screen shows LINE after TEXT and KEYS.
expect_typed() {
  local name=$1
  shift
  expect_eq "$(typed "$@")" "${!#}" "$name"
}

check_shell() {  # check_shell NAME PROMPT: the same keys in either shell
  local sh=$1 p=$2
  expect_typed "$sh: --variant" "bloomtool build --variant bl" Tab "$p bloomtool build --variant blocked"
  expect_typed "$sh: --input-format" "bloomtool build --input-format cs" Tab "$p bloomtool build --input-format csv"
  expect_typed "$sh: --normalize" "bloomtool build --normalize ph" Tab "$p bloomtool build --normalize phone"
  expect_typed "$sh: --to=" "bloomtool convert --to=gu" Tab "$p bloomtool convert --to=guava"
  expect_typed "$sh: --from" "bloomtool stats --from dc" Tab "$p bloomtool stats --from dcso"
  expect_typed "$sh: --compat" "bloomtool build --compat gu" Tab "$p bloomtool build --compat guava"
  expect_typed "$sh: --fingerprint" "bloomtool build-static --fingerprint 1" Tab "$p bloomtool build-static --fingerprint 16"
  expect_typed "$sh: --layout" "bloomtool build-static --layout x" Tab "$p bloomtool build-static --layout xor"
  expect_typed "$sh: --kind" "bloomtool build-static --kind r" Tab "$p bloomtool build-static --kind ribbon"
  expect_typed "$sh: --codec lists its two values" "bloomtool build --codec " Tab Tab "raw   zstd"
  # Filter files for a filter positional, key files after it.
  expect_typed "$sh: stats offers the filter files" "bloomtool stats " Tab Tab "a.bf  b.xf"
  expect_typed "$sh: merge completes a filter" "bloomtool merge -o m.bf a" Tab "$p bloomtool merge -o m.bf a.bf"
  expect_typed "$sh: query's key file after the filter" "bloomtool query a.bf k" Tab "$p bloomtool query a.bf keys.txt"
  tmux -L "$SOCK" send-keys -t t C-u
}

start bt-bash "bash --norc --noprofile -i" "source $WORK/bloomtool.bash; PS1='\$ '; cd $WORK/files; echo READY"
check_shell bash '$'

start bt-zsh "zsh -f -i" "fpath=($WORK/zfunc \$fpath); autoload -U compinit; compinit -u -d $WORK/.zcompdump; PS1='%% '; cd $WORK/files; echo READY"
check_shell zsh '%'
# zsh shows option descriptions: --delimiter's has a backslash-t, not a bare t.
expect_typed "zsh: the description of --delimiter shows \\t" "bloomtool build --delim" C-d \
  "--delimiter  -- Column delimiter, one character or \\t (implies delimited; default tab, or comma for csv)"
finish
