"""In-process query speed of the Python module, for bench/embed_bench.sh:
    python3 bench/embed_bench.py FILTER KEYFILE [REPS]
contains_many over all keys of KEYFILE (bytes, then str), REPS times (default 7): median keys/s;
`key in f` key by key over the first 100,000 keys: median ns per key. Times are the thread's CPU
time (time.thread_time: other work on a shared machine does not count), with wall-clock figures
too (*_wall). Prints one line of name=value pairs. python/ must be on PYTHONPATH (and
BLOOMTOOL_LIBRARY set for a build tree)."""

import statistics
import sys
import time

import bloomtool


def main() -> None:
    path, keys_path = sys.argv[1], sys.argv[2]
    reps = int(sys.argv[3]) if len(sys.argv) > 3 else 7
    keys = open(keys_path, "rb").read().split(b"\n")[:-1]
    strs = [k.decode() for k in keys]
    with bloomtool.open(path) as f:
        f.contains_many(keys)  # warm-up

        def timed(fn):
            cpu, wall = [], []
            for _ in range(reps):
                w0, t0 = time.perf_counter(), time.thread_time()
                result = fn()
                cpu.append(time.thread_time() - t0)
                wall.append(time.perf_counter() - w0)
            return statistics.median(cpu), statistics.median(wall), result

        out = {"keys": len(keys)}
        for name, batch in (("bytes", keys), ("str", strs)):
            cpu, wall, flags = timed(lambda: f.contains_many(batch))
            out[f"contains_many_{name}_keys_per_s"] = f"{len(batch) / cpu:.0f}"
            out[f"contains_many_{name}_wall_keys_per_s"] = f"{len(batch) / wall:.0f}"
            if name == "bytes":
                expected = flags
            assert flags == expected
        few = keys[:100000]
        cpu, wall, present = timed(lambda: sum(1 for k in few if k in f))
        assert present == sum(expected[:100000])
        out["in_ns"] = f"{cpu * 1e9 / len(few):.0f}"
        out["in_wall_ns"] = f"{wall * 1e9 / len(few):.0f}"
        out["present"] = sum(expected)
    print(" ".join(f"{k}={v}" for k, v in out.items()))


if __name__ == "__main__":
    main()
