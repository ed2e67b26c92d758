"""The Dask recipe (examples/dask_shards.py, quoted whole in docs/DASK.md) on a real
dask.distributed LocalCluster of two worker processes: 8 key files in 4 partitions, a shard per
partition, a tree of unions (split_every=2) -> a file byte-identical to one `bloomtool build`
over all the keys; then the workers check members and non-members against the filter (opened once
per worker) and agree with `bloomtool query`.

Run by ctest (python.dask): exit 77 (reported skipped) when Dask is not installed or the cluster
cannot start; installs nothing.
"""

import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SKIP = 77
ROOT = Path(__file__).resolve().parents[2]
BT = os.environ["BLOOMTOOL"]


def main():
    recipe = (ROOT / "examples" / "dask_shards.py").read_text()
    doc = (ROOT / "docs" / "DASK.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", doc, re.S)
    assert recipe in blocks, "docs/DASK.md does not quote examples/dask_shards.py whole"

    try:
        from dask.distributed import Client, LocalCluster
    except ImportError as e:
        # Debian's python3-dask and python3-distributed are the system interpreter's: run there
        # when this one (e.g. pyenv's) lacks them.
        system = "/usr/bin/python3"
        if (os.path.exists(system) and os.path.realpath(sys.executable) != os.path.realpath(system)
                and "BLOOMTOOL_DASK_REEXEC" not in os.environ):
            os.environ["BLOOMTOOL_DASK_REEXEC"] = "1"
            sys.stdout.flush()
            os.execv(system, [system, os.path.abspath(__file__)])
        print(f"SKIP: Dask is not installed ({e}); Debian: python3-dask python3-distributed")
        return SKIP
    # The workers import the recipe and the bloomtool module as this process does.
    sys.path.insert(0, str(ROOT / "examples"))
    paths = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    os.environ["PYTHONPATH"] = os.pathsep.join([str(ROOT / "examples")] + paths)
    import dask_shards

    start = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        key_files = []
        for i in range(8):
            key_files.append(str(tmp / f"keys-{i}.txt"))
            Path(key_files[-1]).write_text("".join(f"k{i}-{j}\n" for j in range(5000)))
        plan = ["-m", "256KiB", "-k", "7", "--seed", "42"]
        created = 1700000000
        try:
            cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                   dashboard_address=None, local_directory=str(tmp / "dask"))
        except Exception as e:  # noqa: BLE001 (whatever keeps Dask from starting)
            print(f"SKIP: the Dask LocalCluster did not start: {e}")
            return SKIP
        try:
            with Client(cluster) as client:
                assert len(client.scheduler_info()["workers"]) == 2
                out = str(tmp / "dask.bf")
                dask_shards.build_filter(client, key_files, out, plan, created, partitions=4)

                single = str(tmp / "single.bf")
                subprocess.run([BT, "build", "-q", *plan, "-o", single, *key_files], check=True,
                               env=dict(os.environ, SOURCE_DATE_EPOCH=str(created)))
                a, b = Path(out).read_bytes(), Path(single).read_bytes()
                assert a == b, f"the Dask build differs from the single one ({len(a)}, {len(b)} B)"

                members = [f"k{i}-{j}".encode() for i in range(8) for j in range(0, 5000, 97)]
                others = [f"x{j}".encode() for j in range(2000)]
                queries = members + others
                answers = dask_shards.check_keys(client, out, queries, partitions=4)
                qfile = tmp / "queries.txt"
                qfile.write_bytes(b"".join(k + b"\n" for k in queries))
                r = subprocess.run([BT, "query", "--count", out, str(qfile)], capture_output=True)
                expected = int(r.stdout.decode().split()[0])
                assert all(answers[:len(members)]), "a member answered absent"
                assert sum(answers) == expected, (sum(answers), expected)
        finally:
            cluster.close()
    print(f"ok: Dask build byte-identical ({len(a)} bytes) and {len(queries)} keys checked on 2 "
          f"workers in {time.monotonic() - start:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
