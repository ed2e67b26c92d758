"""Building from Python against flor (Debian python3-flor) and the CLI, in one run:
    python3 bench/python_build_bench.py KEYFILE [FLOR_KEYS]
KEYFILE holds the keys, one per line (bench/gen_keys urls 10000000 > keys.txt). bloomtool:
BloomFilter(len(keys), 0.01).update(keys) (a list of bytes), then `key in f` for every key, and
contains_many(keys); flor: BloomFilter(n, 0.01), add() and `in` key by key over the first
FLOR_KEYS keys (default: all). Then `bloomtool build -n N -p 0.01 KEYFILE` and `bloomtool query`
on the same keys (per-key wall time of the whole command). Times are wall-clock seconds of the
phase, in this process; prints one line of name=value pairs (keys/s and ratios). flor must be
importable (/usr/bin/python3 with python3-flor), python/ on PYTHONPATH, BLOOMTOOL_LIBRARY and
BLOOMTOOL set for a build tree."""

import os
import subprocess
import sys
import tempfile
import time

import bloomtool


def rate(count: int, seconds: float) -> float:
    return count / seconds if seconds > 0 else float("inf")


def main() -> None:
    path = sys.argv[1]
    keys = open(path, "rb").read().split(b"\n")[:-1]
    n = len(keys)
    flor_n = int(sys.argv[2]) if len(sys.argv) > 2 else n
    out = {"keys": n, "flor_keys": flor_n}

    t = time.perf_counter()
    f = bloomtool.BloomFilter(n, 0.01)
    f.update(keys)
    out["bt_update_s"] = time.perf_counter() - t
    t = time.perf_counter()
    hits = sum(1 for k in keys if k in f)
    out["bt_in_s"] = time.perf_counter() - t
    assert hits == n
    t = time.perf_counter()
    answers = f.contains_many(keys)
    out["bt_contains_many_s"] = time.perf_counter() - t
    assert all(answers)

    import flor
    sub = keys[:flor_n]
    t = time.perf_counter()
    g = flor.BloomFilter(n=max(flor_n, 1), p=0.01)
    for k in sub:
        g.add(k)
    out["flor_add_s"] = time.perf_counter() - t
    t = time.perf_counter()
    assert sum(1 for k in sub if k in g) == flor_n
    out["flor_in_s"] = time.perf_counter() - t

    bt = os.environ.get("BLOOMTOOL", "bloomtool")
    with tempfile.TemporaryDirectory() as d:
        t = time.perf_counter()
        subprocess.run([bt, "build", "-q", "-n", str(n), "-p", "0.01", "-o", f"{d}/f.bf", path],
                       check=True)
        out["cli_build_s"] = time.perf_counter() - t
        t = time.perf_counter()
        subprocess.run([bt, "query", "--count", f"{d}/f.bf", path], check=False,
                       stdout=subprocess.DEVNULL)
        out["cli_query_s"] = time.perf_counter() - t

    bt_both = rate(2 * n, out["bt_update_s"] + out["bt_in_s"])
    flor_both = rate(2 * flor_n, out["flor_add_s"] + out["flor_in_s"])
    out.update({
        "bt_update_keys_per_s": rate(n, out["bt_update_s"]),
        "bt_in_keys_per_s": rate(n, out["bt_in_s"]),
        "bt_contains_many_keys_per_s": rate(n, out["bt_contains_many_s"]),
        "flor_add_keys_per_s": rate(flor_n, out["flor_add_s"]),
        "flor_in_keys_per_s": rate(flor_n, out["flor_in_s"]),
        "bt_over_flor_add_plus_in": bt_both / flor_both,
        "update_over_cli_build_per_key": out["bt_update_s"] / out["cli_build_s"],
        "contains_many_over_cli_query_per_key": out["bt_contains_many_s"] / out["cli_query_s"],
    })
    print(" ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}"
                   for k, v in out.items()))


if __name__ == "__main__":
    main()
