#!/usr/bin/env bash
# Typos get help: an unknown command or option is reported as unknown, before any other usage
# error, with the nearest known name when one is near; `bloomtool help [COMMAND]` is --help.
source "$(dirname "$0")/lib.sh"
COMMANDS="build, build-static, query, merge, assemble, stats, size, keygen, convert"
seq 1 10 >keys.txt

# usage_error EXPECTED ARGS...: exit 2, one error line equal to "bloomtool: EXPECTED", nothing
# written.
usage_error() {
  local expected=$1
  shift
  run "$BT" "$@"
  expect_rc 2 "bloomtool $*"
  expect_eq "$ERR" "bloomtool: $expected" "bloomtool $*: message"
  expect_eq "$OUT" "" "bloomtool $*: nothing on stdout"
}

usage_error "biuld: unknown command; did you mean build? (commands: $COMMANDS); see 'bloomtool --help'" biuld keys.txt
usage_error "stast: unknown command; did you mean stats? (commands: $COMMANDS); see 'bloomtool --help'" stast x.bf
usage_error "frobnicate: unknown command (commands: $COMMANDS); see 'bloomtool --help'" frobnicate
# A misspelt required option is unknown, not "--output: required".
usage_error "--outptu: unknown option; did you mean --output?; see 'bloomtool build --help'" build --outptu x.bf keys.txt
usage_error "--outptu: unknown option; did you mean --output?; see 'bloomtool build --help'" build --outptu=x.bf keys.txt
[ -e x.bf ] && fail "a misspelt --output wrote x.bf"
usage_error "--versoin: unknown option; did you mean --version?; see 'bloomtool --help'" --versoin
usage_error "--meaure: unknown option; did you mean --measure?; see 'bloomtool stats --help'" stats --meaure 1M x.bf
usage_error "--fpr-max: unknown option; see 'bloomtool stats --help'" stats --fpr-max 1% x.bf
usage_error "--inputformat: unknown option; did you mean --input-format?; see 'bloomtool query --help'" query x.bf --inputformat csv
usage_error "-z: unknown option; see 'bloomtool build --help'" build -z -o x.bf keys.txt
# Values that look like options are values; after -- everything is a positional.
run "$BT" build --label --not-an-option -o lab.bf -q keys.txt
expect_rc 0 "an option's value that starts with --"
run "$BT" query lab.bf --count -- keys.txt
expect_eq "$RC/$OUT" "0/10" "arguments after -- are not checked as options"
# help [COMMAND].
run "$BT" help build
expect_rc 0 "help build"
help_build=$OUT
run "$BT" build --help
expect_eq "$help_build" "$OUT" "help build is build --help"
run "$BT" help
expect_eq "$(head -2 <<<"$OUT" | tail -1)" "Usage: bloomtool [OPTIONS] SUBCOMMAND" "help alone is --help"
usage_error "help: biuld: unknown command; did you mean build? (commands: $COMMANDS); see 'bloomtool --help'" help biuld
usage_error "help: give one command; see 'bloomtool --help'" help build stats
finish
