#!/usr/bin/env bash
# The front door: the README's build dependencies are quickstart.sh's build_packages, which is all
# `quickstart.sh demo` installs (no JDK, ssh server, clang, valgrind or peer tools); the test
# set-up installs the rest, the renderer and tmux of the picture and completion tests included.
# And `size -m M -n N` says where k came from: chosen, or the -k given (with the best k beside it).
source "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
QS=$ROOT/tools/quickstart.sh

# The words of a bash array assignment NAME=(...) in quickstart.sh, one per line.
array() { sed -n "/^$1=(/,/)/p" "$QS" | sed "s/^$1=(//; s/)//" | tr -s ' \n' '\n' | grep -v '^$'; }
build=$(array build_packages | sort)
tests=$(array test_packages | sort)
readme=$(tr '\n' ' ' <"$ROOT/README.md" | grep -o 'on Debian 12: `[^`]*`' | sed 's/.*`\(.*\)`/\1/' | tr ' ' '\n' | grep -v '^$' | sort)
expect_eq "$readme" "$build" "README lists quickstart's build_packages"
expect_eq "$(wc -l <<<"$build" | tr -d ' ')" "11" "eleven build packages"
for heavy in default-jdk-headless openssh-server clang-14 valgrind golang-github-dcso-bloom-cli libguava-java catch2; do
  CHECKS=$((CHECKS + 1))
  grep -qx "$heavy" <<<"$build" && fail "demo installs $heavy"
  grep -qx "$heavy" <<<"$tests" || fail "the test set-up does not install $heavy"
done
for tool in librsvg2-bin tmux python3 zsh; do
  CHECKS=$((CHECKS + 1))
  grep -qx "$tool" <<<"$tests" || fail "the test set-up does not install $tool"
done
# demo installs only build_packages; test and test-release add test_packages.
expect_match "$(sed -n '/^packages=/,/^esac/p' "$QS")" 'test \| test-release\) packages\+=\("\$\{test_packages\[@\]\}"\)' \
  "test modes add test_packages"
bash -n "$QS" || fail "quickstart.sh does not parse"

run "$BT" size -m 1MiB -n 1M
expect_eq "$(tail -1 <<<"$OUT")" \
  "k: chosen by bloomtool, the best for these m and n (standard 6, blocked 6); -k K gives the p of another" \
  "size without -k says it chose k"
run "$BT" size -m 1MiB -n 1M -k 3
expect_eq "$(tail -1 <<<"$OUT")" \
  "k = 3 as given by -k: the p above is that k's; the best k for these m and n: standard 6, blocked 6" \
  "size -k says the rate is that k's"
expect_match "$(grep '^standard Bloom' <<<"$OUT")" ' 3 +0\.0271804$' "size -k 3: the standard rate of k = 3"
finish
