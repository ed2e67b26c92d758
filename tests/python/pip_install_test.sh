#!/usr/bin/env bash
# `pip install` of the Python module from the source tree into a virtual environment, without
# network (Debian's python3-venv and python3-setuptools; --no-build-isolation --no-index), from a
# copy of python/ (the source tree stays clean); the installed module, run from outside the tree,
# loads the built libbloomtool.so.0 ($BLOOMTOOL_LIBRARY), builds a filter and reads it back. The
# optional extension bloomtool._speedups is installed with it and in use when the Python headers
# are there (Debian's python3-dev), and the module works without it when they are not.
# Skipped (exit 77) with a message when venv, pip or setuptools are missing.
set -uo pipefail
: "${PYTHON_SRC:?PYTHON_SRC must name the python/ directory}"
: "${BLOOMTOOL_LIBRARY:?BLOOMTOOL_LIBRARY must name the built libbloomtool.so.0}"
PY=${SYSTEM_PYTHON:-/usr/bin/python3}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
if ! "$PY" -c 'import venv, ensurepip, setuptools' 2>/dev/null; then
  echo "SKIP: $PY lacks venv, ensurepip or setuptools (Debian: python3-venv python3-setuptools)"
  exit 77
fi
cp -r "$PYTHON_SRC" "$WORK/src"
rm -rf "$WORK/src/build" "$WORK/src"/*.egg-info
"$PY" -m venv --system-site-packages "$WORK/venv" || { echo "FAIL: python3 -m venv"; exit 1; }
"$WORK/venv/bin/pip" install -q --no-build-isolation --no-index "$WORK/src" >"$WORK/pip.log" 2>&1 ||
  { echo "FAIL: pip install"; cat "$WORK/pip.log"; exit 1; }
cd "$WORK" || exit 1
out=$(WORK=$WORK PYTHONPATH= "$WORK/venv/bin/python" - <<'PY'
import bloomtool, os
assert os.path.dirname(bloomtool.__file__).startswith(os.environ["WORK"] + "/venv/"), bloomtool.__file__
import sysconfig
headers = os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h"))
assert (bloomtool._fast is not None) == headers, (bloomtool._fast, headers)
if headers:
    assert os.path.dirname(bloomtool._fast.__file__) == os.path.dirname(bloomtool.__file__)
f = bloomtool.BloomFilter(100, 0.01)
f.update(["a", "b"])
f.save("x.bf")
with bloomtool.open("x.bf") as g:
    print("a" in g, "zz" in g, g.info["kind"])
PY
)
[ "$out" == "True False bloom" ] || { echo "FAIL: the installed module printed '$out'"; exit 1; }
echo "1 passed, 0 failed"
