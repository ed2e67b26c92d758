#!/usr/bin/env bash
# The shell completions the build generates (bloomtool completions bash|zsh) and installs: every
# subcommand and every option that `bloomtool CMD --help` prints appears in both scripts; the
# bash script completes subcommands, options, and file names after options that take a path; the
# zsh script parses (zsh -n), when zsh is installed; and `cmake --install` puts them where
# bash-completion and zsh look.
source "$(dirname "$0")/../cli/lib.sh"
: "${BLOOMTOOL_COMPLETIONS:?BLOOMTOOL_COMPLETIONS must name the generated completions directory}"
bash_script=$BLOOMTOOL_COMPLETIONS/bloomtool
zsh_script=$BLOOMTOOL_COMPLETIONS/_bloomtool

# The build's scripts are what the binary prints now.
run "$BT" completions bash
expect_rc 0 "bloomtool completions bash"
expect_eq "$OUT" "$(cat "$bash_script")" "generated bash script is up to date"
run "$BT" completions zsh
expect_rc 0 "bloomtool completions zsh"
expect_eq "$OUT" "$(cat "$zsh_script")" "generated zsh script is up to date"
run "$BT" completions fish
expect_rc 2 "bloomtool completions fish"
run "$BT" --help
CHECKS=$((CHECKS + 1))
grep -q completions <<<"$OUT" && fail "the hidden completions command shows in --help"

# Every subcommand and option of --help is in both scripts.
mapfile -t commands < <("$BT" --help | sed -n '/^Subcommands:/,/^$/p' | sed -n 's/^  \([a-z][a-z-]*\) .*/\1/p')
[ "${#commands[@]}" -ge 5 ] || fail "found only ${#commands[@]} subcommands in bloomtool --help"
for cmd in "${commands[@]}"; do
  for script in "$bash_script" "$zsh_script"; do
    CHECKS=$((CHECKS + 1))
    grep -qE "^ *\(?$cmd[):]" "$script" || fail "$(basename "$script") has no case for '$cmd'"
  done
  mapfile -t options < <("$BT" "$cmd" --help | grep -oE -- '(^|[ ,])--?[a-zA-Z][a-z0-9-]*' | sed 's/^[ ,]//' | sort -u)
  [ "${#options[@]}" -ge 2 ] || fail "no options found in 'bloomtool $cmd --help'"
  # The command's own section of each script.
  bash_section=$(sed -n "/^    $cmd)\$/,/^      ;;\$/p" "$bash_script")
  zsh_section=$(sed -n "/^        ($cmd)\$/,/^          ;;\$/p" "$zsh_script")
  for opt in "${options[@]}"; do
    CHECKS=$((CHECKS + 2))
    grep -qE -- "(^|[ '|])$opt([ '|)]|\$)" <<<"$bash_section" || fail "bash: $cmd $opt missing"
    grep -qE -- "[{,' ]$opt[=+,}'[]" <<<"$zsh_section" || fail "zsh: $cmd $opt missing"
  done
done

# bash: the completion function, called as bash calls it.
complete_bash() {  # complete_bash WORD... : prints COMPREPLY, one per line, for the last word
  bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
           _bloomtool; printf "%s\n" "${COMPREPLY[@]}"' complete_bash "$bash_script" "$@"
}
expect_eq "$(complete_bash bloomtool bu)" "$(printf 'build\nbuild-static')" "bloomtool bu<TAB>"
expect_eq "$(complete_bash bloomtool build-)" "build-static" "bloomtool build-<TAB>"
expect_eq "$(complete_bash bloomtool build --var)" "--variant" "bloomtool build --var<TAB>"
expect_eq "$(complete_bash bloomtool query --ab)" "--absent" "bloomtool query --ab<TAB>"
expect_eq "$(complete_bash bloomtool --vers)" "--version" "bloomtool --vers<TAB>"
expect_eq "$(complete_bash bloomtool -q build --lower)" "--lowercase" "options before the command"
mkdir sub && touch sub/keys.txt sub/other.bf
expect_eq "$(complete_bash bloomtool build -o sub/o)" "sub/other.bf" "build -o <path>"
expect_eq "$(complete_bash bloomtool build --output = sub/k)" "sub/keys.txt" "build --output=<path>"
expect_eq "$(complete_bash bloomtool build -n sub/k)" "" "no file names for -n N"
expect_eq "$(complete_bash bloomtool query sub/other.bf sub/k)" "sub/keys.txt" "query inputs"
size_opts=$(complete_bash bloomtool size "")
expect_match "$size_opts" "^--json$" "size offers its options"

# zsh: the script parses.
if command -v zsh >/dev/null; then
  run zsh -n "$zsh_script"
  expect_rc 0 "zsh -n _bloomtool: $ERR"
  run zsh -fc "autoload -Uz compinit && compinit -u -d '$WORK/zcompdump' && source '$zsh_script' && echo \${_comps[bloomtool]}"
  expect_eq "$OUT" "_bloomtool" "zsh: sourcing _bloomtool registers it for bloomtool"
else
  echo "SKIP: zsh is not installed; _bloomtool not syntax-checked (tools/quickstart.sh installs it)"
fi

# Installed where bash-completion and zsh's vendor completions live.
build_dir=$(cd "$(dirname "$BT")/../.." && pwd)
run cmake --install "$build_dir" --prefix "$WORK/prefix"
expect_rc 0 "cmake --install"
expect_same_file "$bash_script" "$WORK/prefix/share/bash-completion/completions/bloomtool" "installed bash completion"
expect_same_file "$zsh_script" "$WORK/prefix/share/zsh/vendor-completions/_bloomtool" "installed zsh completion"

finish
