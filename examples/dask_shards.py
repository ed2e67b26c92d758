"""Building one Bloom filter on a Dask cluster, and checking keys against it on the workers.

docs/DASK.md explains this recipe; tests/python/test_dask.py runs it on a LocalCluster.
Each worker needs the bloomtool program (BLOOMTOOL, default: on PATH), the Python module and
read access to the key files; the shards themselves travel through Dask as bytes.
"""

import os
import subprocess
import tempfile

import dask.bag as db

import bloomtool

BLOOMTOOL = os.environ.get("BLOOMTOOL", "bloomtool")


def _run(args, created):
    # The same creation time everywhere (SOURCE_DATE_EPOCH): the union of the shards is then the
    # very file one build over all the keys writes.
    env = dict(os.environ, SOURCE_DATE_EPOCH=str(created))
    subprocess.run([BLOOMTOOL, *args], check=True, env=env, stdout=subprocess.DEVNULL)


def build_shard(key_files, plan, created):
    """One partition: its key files -> the bytes of one shard built with `plan`."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "shard.bf")
        _run(["build", "-q", *plan, "-o", out, *key_files], created)
        with open(out, "rb") as f:
            return f.read()


def union(shards, created):
    """Shard bytes -> the bytes of their union (bloomtool merge: exact for one plan)."""
    shards = list(shards)
    if len(shards) == 1:
        return shards[0]
    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        for i, data in enumerate(shards):
            paths.append(os.path.join(tmp, f"{i}.bf"))
            with open(paths[-1], "wb") as f:
                f.write(data)
        out = os.path.join(tmp, "union.bf")
        _run(["merge", "-q", "-o", out, *paths], created)
        with open(out, "rb") as f:
            return f.read()


def build_filter(client, key_files, out, plan, created, partitions, split_every=2):
    """A bag of key files -> one shard per partition -> a tree of unions -> `out` (written
    beside, then renamed into place)."""
    bag = db.from_sequence(key_files, npartitions=partitions)
    shards = bag.map_partitions(lambda files: [build_shard(list(files), plan, created)])
    merged = shards.reduction(lambda part: union(part, created),
                              lambda parts: union(parts, created), split_every=split_every)
    data = client.compute(merged).result()
    with open(out + ".tmp", "wb") as f:
        f.write(data)
    os.replace(out + ".tmp", out)


_filters = {}  # per worker process: each filter opened once, then shared by its tasks


def _filter(path):
    f = _filters.get(path)
    if f is None:
        f = _filters[path] = bloomtool.open(path)
    return f


def check_keys(client, path, keys, partitions):
    """Answers (True: may be present) for `keys`, checked on the workers against the filter at
    `path` (a path every worker can read)."""
    bag = db.from_sequence(keys, npartitions=partitions)
    answers = bag.map_partitions(lambda part: _filter(path).contains_many(list(part)))
    return client.compute(answers).result()
