#!/usr/bin/env python3
"""docs/DESIGN.md stays true: every file, function, type and command-line option it names in
`code spans` exists in the tree. Prints each name that does not, with its line."""
import os
import re
import sys

root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")
doc = os.path.join(root, "docs", "DESIGN.md")
SOURCE_DIRS = ["lib", "apps", "python", "tests", "bench", "tools", "examples", "cmake", "man"]
TEXT_EXT = (".cpp", ".h", ".c", ".py", ".sh", ".txt", ".in", ".cmake", ".1", ".map")

files, basenames, corpus = set(), set(), []
for top in SOURCE_DIRS + ["docs", "abi", "testdata", "packaging", ".ci"]:
    for dirpath, subdirs, names in os.walk(os.path.join(root, top)):
        # The benchmarks' data and results (ignored by git; gigabytes of keys) are not the tree.
        if top == "bench":
            subdirs[:] = [d for d in subdirs if d not in ("data", "results")]
        for name in names:
            rel = os.path.relpath(os.path.join(dirpath, name), root)
            files.add(rel)
            basenames.add(name)
            if top in SOURCE_DIRS and name.endswith(TEXT_EXT) or name == "CMakeLists.txt":
                with open(os.path.join(dirpath, name), encoding="utf-8", errors="replace") as f:
                    corpus.append(f.read())
for name in os.listdir(root):
    files.add(name)
    basenames.add(name)
corpus = "\n".join(corpus)
dirs = set()
for f in files:
    d = os.path.dirname(f)
    while d:
        dirs.add(d)
        d = os.path.dirname(d)
dirs |= {d + "/" for d in dirs}

def exists_path(token):
    """A path from the top, or the tail of one (keys/hash.cpp for lib/src/keys/hash.cpp); a
    generated file by its template (version.h for version.h.in); a pattern such as
    tests/cli/*.sh or filters/<kind>.h by what precedes the wildcard."""
    token = token.rstrip("/")
    names = files | dirs
    if "*" in token or "<" in token:
        prefix = re.split(r"[*<]", token)[0]
        return any(f.startswith(prefix) or ("/" + prefix) in f for f in names | basenames)
    return any(f == token or f.endswith("/" + token) or f == token + ".in" or
               f.endswith("/" + token + ".in") for f in names)

bad = []
for lineno, line in enumerate(open(doc, encoding="utf-8"), 1):
    for span in re.findall(r"`([^`]+)`", line):
        for token in span.split():
            token = token.strip(",.;:()")
            if not token:
                continue
            if token.startswith("--") and re.fullmatch(r"--[a-z][a-z0-9-]*(=.*)?", token):
                opt = token.split("=")[0]
                if f'"{opt}' not in corpus and f"{opt}," not in corpus and f",{opt}" not in corpus:
                    bad.append(f"docs/DESIGN.md:{lineno}: option {opt} not found in the sources")
            elif re.search(r"\.(cpp|h|c|py|sh|md|txt|cmake|json|1)$", token) or "/" in token:
                if re.fullmatch(r"[\w./*<>+-]+", token) and not exists_path(token):
                    bad.append(f"docs/DESIGN.md:{lineno}: file {token} does not exist")
            elif re.fullmatch(r"[A-Za-z_]\w*(::\w+)*(\(\))?", token):
                name = token.rstrip("()").split("::")[-1]
                looks_like_code = "_" in name or re.search(r"[a-z][A-Z]", name) or token.endswith("()")
                if looks_like_code and not re.search(r"\b" + re.escape(name) + r"\b", corpus):
                    bad.append(f"docs/DESIGN.md:{lineno}: name {token} not found in the sources")
for line in bad:
    print(line)
sys.exit(1 if bad else 0)
