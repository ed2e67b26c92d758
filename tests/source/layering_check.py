#!/usr/bin/env python3
"""The library's layering, checked: lib/src is in folders by concern, each allowed to include
only folders below it in the order of docs/DESIGN.md; the installed headers (lib/include) are the
public set of tests/package/public_headers.txt and include only each other and the standard
library. Prints every include that runs against the order."""
import os
import re
import sys

ORDER = ["base", "keys", "model", "format", "filters", "interop", "analysis", "api"]
# Includes that run against the order today, to be removed (an entry that no longer occurs is an
# error too, so the list can only shrink).
KNOWN = set()

root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")
src = os.path.join(root, "lib", "src")
include_re = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)
system_re = re.compile(r'^\s*#\s*include\s*<([^>]+)>', re.M)
bad, seen, layers_found = [], set(), set()
for layer in sorted(os.listdir(src)):
    path = os.path.join(src, layer)
    if not os.path.isdir(path):
        bad.append(f"lib/src/{layer}: a file outside the folders")
        continue
    if layer not in ORDER:
        bad.append(f"lib/src/{layer}: a folder not in the order")
        continue
    layers_found.add(layer)
    for name in sorted(os.listdir(path)):
        text = open(os.path.join(path, name), encoding="utf-8").read()
        for inc in include_re.findall(text):
            if "/" not in inc or inc.startswith("bloomtool/"):
                continue
            target = inc.split("/")[0]
            if target not in ORDER:
                continue
            if not os.path.exists(os.path.join(src, inc)):
                bad.append(f"lib/src/{layer}/{name}: includes {inc}, which does not exist")
            elif ORDER.index(target) > ORDER.index(layer):
                edge = f"{layer}/{name} -> {inc}"
                seen.add(edge)
                if edge not in KNOWN:
                    bad.append(f"lib/src/{edge}: {layer} may not include {target}")
for edge in sorted(KNOWN - seen):
    bad.append(f"{edge}: listed as known but gone; remove it from KNOWN")
pub = os.path.join(root, "lib", "include", "bloomtool")
# The public set is listed once, in tests/package/public_headers.txt (the package tests check the
# installed files against it): lib/include/bloomtool holds exactly it (version.h as version.h.in).
listed = set()
with open(os.path.join(root, "tests", "package", "public_headers.txt"), encoding="utf-8") as f:
    listed = {line.strip() for line in f if line.strip() and not line.startswith("#")}
present = {n[: -len(".in")] if n.endswith(".h.in") else n for n in os.listdir(pub)}
for name in sorted(present - listed):
    bad.append(f"lib/include/bloomtool/{name}: not in tests/package/public_headers.txt")
for name in sorted(listed - present):
    bad.append(f"tests/package/public_headers.txt: {name} is not in lib/include/bloomtool")
for name in sorted(os.listdir(pub)):
    text = open(os.path.join(pub, name), encoding="utf-8").read()
    for inc in system_re.findall(text):
        if "/" in inc and not inc.startswith("bloomtool/"):
            bad.append(f"lib/include/bloomtool/{name}: includes <{inc}>, not the standard library")
    for inc in include_re.findall(text):
        if not inc.startswith("bloomtool/"):
            bad.append(f"lib/include/bloomtool/{name}: includes \"{inc}\", not a public header")
        elif not os.path.exists(os.path.join(pub, inc.split("/", 1)[1])) and inc != "bloomtool/version.h":
            bad.append(f"lib/include/bloomtool/{name}: includes {inc}, not installed")
for line in bad:
    print(line)
sys.exit(1 if bad else 0)
