"""Building from Python against flor (Debian python3-flor) and the CLI, in one run:
    python3 bench/python_build_bench.py KEYFILE [FLOR_KEYS]
KEYFILE holds the keys, one per line (bench/gen_keys urls 10000000 3 > keys.txt). Each contender
runs as a process of its own, timed whole (interpreter start, import, reading and splitting
KEYFILE into a list of bytes, the work):
  bloomtool  BloomFilter(n, 0.01).update(keys), then `key in f` for every key
  flor       BloomFilter(n=n, p=0.01), add() then `in` key by key, over the first FLOR_KEYS keys
             (default: all)
  load       only reading and splitting KEYFILE (the part every Python process shares)
and, in the bloomtool process and one more, the phases alone: update, `in`, contains_many. Then
`bloomtool build -n N -p 0.01 KEYFILE` and `bloomtool query --count` on the same keys, whole
process. Prints one line of name=value pairs: seconds, keys/s, and the ratios
  bt_over_flor_whole        flor's whole-process time per key over bloomtool's (add + in each)
  update_over_cli_build     update's phase time per key over the CLI build's whole-process time
                            per key (the CLI also reads and splits the file; 2 threads)
  contains_many_over_cli_query  the same for contains_many and `query --count`
flor must be importable (/usr/bin/python3 with python3-flor), build/release/python on PYTHONPATH
(the module with its extension bloomtool._speedups; BLOOMTOOL_NO_SPEEDUPS=1 times the pure-Python
path), BLOOMTOOL_LIBRARY and BLOOMTOOL set for a build tree."""

import os
import subprocess
import sys
import tempfile
import time


def load(path: str):
    with open(path, "rb") as f:
        return f.read().split(b"\n")[:-1]


def child(mode: str, path: str, limit: int) -> None:
    """One contender's process: prints its phase times as name=value pairs."""
    keys = load(path)
    out = {}
    if mode == "bloomtool" or mode == "bloomtool-many":
        import bloomtool
        n = len(keys)
        t = time.perf_counter()
        f = bloomtool.BloomFilter(n, 0.01)
        f.update(keys)
        out["update_s"] = time.perf_counter() - t
        t = time.perf_counter()
        if mode == "bloomtool":
            assert sum(1 for k in keys if k in f) == n
            out["in_s"] = time.perf_counter() - t
        else:
            assert all(f.contains_many(keys))
            out["contains_many_s"] = time.perf_counter() - t
    elif mode == "flor":
        import flor
        sub = keys[:limit]
        t = time.perf_counter()
        g = flor.BloomFilter(n=max(len(sub), 1), p=0.01)
        for k in sub:
            g.add(k)
        out["add_s"] = time.perf_counter() - t
        t = time.perf_counter()
        assert sum(1 for k in sub if k in g) == len(sub)
        out["in_s"] = time.perf_counter() - t
    print(" ".join(f"{k}={v}" for k, v in out.items()))


def run(args, **kwargs):
    t = time.perf_counter()
    r = subprocess.run(args, check=True, stdout=subprocess.PIPE, text=True, **kwargs)
    wall = time.perf_counter() - t
    phases = dict(item.split("=") for item in r.stdout.split()) if "=" in r.stdout else {}
    return wall, {k: float(v) for k, v in phases.items()}


def rate(count: int, seconds: float) -> float:
    return count / seconds if seconds > 0 else float("inf")


def main() -> None:
    if sys.argv[1] == "--child":
        child(sys.argv[2], sys.argv[3], int(sys.argv[4]))
        return
    path = sys.argv[1]
    n = sum(1 for _ in open(path, "rb"))
    flor_n = int(sys.argv[2]) if len(sys.argv) > 2 else n
    me = [sys.executable, os.path.abspath(__file__), "--child"]
    out = {"keys": n, "flor_keys": flor_n}

    out["load_whole_s"], _ = run(me + ["load", path, "0"])
    out["bt_whole_s"], phases = run(me + ["bloomtool", path, "0"])
    out["bt_update_s"], out["bt_in_s"] = phases["update_s"], phases["in_s"]
    _, phases = run(me + ["bloomtool-many", path, "0"])
    out["bt_contains_many_s"] = phases["contains_many_s"]
    out["flor_whole_s"], phases = run(me + ["flor", path, str(flor_n)])
    out["flor_add_s"], out["flor_in_s"] = phases["add_s"], phases["in_s"]

    bt = os.environ.get("BLOOMTOOL", "bloomtool")
    with tempfile.TemporaryDirectory() as d:
        out["cli_build_s"], _ = run([bt, "build", "-q", "-n", str(n), "-p", "0.01", "-o",
                                     f"{d}/f.bf", path])
        out["cli_query_s"], _ = run([bt, "query", "--count", f"{d}/f.bf", path])

    out.update({
        "bt_whole_keys_per_s": rate(2 * n, out["bt_whole_s"]),
        "flor_whole_keys_per_s": rate(2 * flor_n, out["flor_whole_s"]),
        "bt_update_keys_per_s": rate(n, out["bt_update_s"]),
        "bt_in_keys_per_s": rate(n, out["bt_in_s"]),
        "bt_contains_many_keys_per_s": rate(n, out["bt_contains_many_s"]),
        "flor_add_keys_per_s": rate(flor_n, out["flor_add_s"]),
        "flor_in_keys_per_s": rate(flor_n, out["flor_in_s"]),
        "cli_build_keys_per_s": rate(n, out["cli_build_s"]),
        "cli_query_keys_per_s": rate(n, out["cli_query_s"]),
        "bt_over_flor_whole": rate(2 * n, out["bt_whole_s"]) /
        rate(2 * flor_n, out["flor_whole_s"]),
        "bt_over_flor_phases": rate(2 * n, out["bt_update_s"] + out["bt_in_s"]) /
        rate(2 * flor_n, out["flor_add_s"] + out["flor_in_s"]),
        "update_over_cli_build": out["bt_update_s"] / out["cli_build_s"],
        "contains_many_over_cli_query": out["bt_contains_many_s"] / out["cli_query_s"],
    })
    print(" ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}"
                   for k, v in out.items()))


if __name__ == "__main__":
    main()
