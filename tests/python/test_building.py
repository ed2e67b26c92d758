"""Building from Python (python/bloomtool/building.py) against the bloomtool program: BloomFilter
and build() write byte for byte the CLI's files for the same keys and plan (SOURCE_DATE_EPOCH
fixed), for standard and blocked Bloom filters, a binary fuse and an xor filter; the union of
shards is the file of the whole; saved files are read (and gated by signature) by the CLI; bytes
and pickles round-trip; bad input raises the module's exceptions. The extension
bloomtool._speedups gives what the pure-Python path gives (files, answers, errors, keys added).

Run by ctest (python.building) with BLOOMTOOL, BLOOMTOOL_LIBRARY, TESTDATA set.
"""

import copy
import errno
import os
import pickle
import subprocess
import sys
import tempfile
import unittest
from array import array
from pathlib import Path

os.environ["SOURCE_DATE_EPOCH"] = "1700000000"

import bloomtool  # noqa: E402
from bloomtool import building  # noqa: E402

BT = os.environ["BLOOMTOOL"]
TESTDATA = Path(os.environ["TESTDATA"])
URLS = (TESTDATA / "urls-10k.txt").read_bytes().split(b"\n")[:-1]
# Keys with repeats, an empty one, and ones that differ only by case and spaces.
KEYS = URLS + URLS[:50] + [b"", b"  Mixed Case ", b"mixed case", "caf\u00e9 \u2603"]


class Base(unittest.TestCase):
    def setUp(self):
        self._dir = tempfile.TemporaryDirectory()
        self.dir = Path(self._dir.name)
        self.keys_file = self.dir / "keys.txt"
        self.keys_file.write_bytes(b"".join(
            (k.encode() if isinstance(k, str) else k) + b"\n" for k in KEYS))

    def tearDown(self):
        self._dir.cleanup()

    def cli(self, *args):
        r = subprocess.run([BT, *map(str, args)], capture_output=True,
                           env=dict(os.environ, SOURCE_DATE_EPOCH="1700000000"))
        return r.returncode, r.stdout.decode(), r.stderr.decode()

    def cli_file(self, *args):
        out = self.dir / "cli.bf"
        rc, _, err = self.cli(*args, "-q", "-o", out, self.keys_file)
        self.assertEqual(rc, 0, err)
        return out.read_bytes()


class ByteIdentity(Base):
    def test_bloom_filter_standard_and_blocked(self):
        for variant, flags in (("standard", []), ("blocked", ["--variant", "blocked"])):
            with self.subTest(variant=variant):
                f = bloomtool.BloomFilter(12000, 0.01, variant=variant)
                f.update(KEYS)
                self.assertEqual(f.to_bytes(), self.cli_file("build", "-n", 12000, "-p", 0.01,
                                                             *flags))
                path = self.dir / f"py-{variant}.bf"
                f.save(path)
                self.assertEqual(path.read_bytes(), f.to_bytes())

    def test_normalise_seed_label_and_key_by_key(self):
        f = bloomtool.BloomFilter(20000, 0.02, seed=255, normalize="trim,lowercase",
                                  label="daily")
        for k in KEYS:
            f.add(k)
        self.assertEqual(f.to_bytes(), self.cli_file(
            "build", "-n", 20000, "-p", 0.02, "--seed", "00000000000000ff", "--trim",
            "--lowercase", "--label", "daily"))
        self.assertIn("  MIXED case", f)  # normalised as the plan says

    def test_static_kinds(self):
        for kind, cli in (("fuse8", ["xor-build"]), ("xor16", ["xor-build", "--layout", "xor",
                                                               "-f", "16"]),
                          ("bloom", ["build", "-p", 0.001])):
            with self.subTest(kind=kind):
                path = self.dir / f"{kind}.bf"
                f = bloomtool.build(iter(KEYS), kind=kind,
                                    fpr=0.001 if kind == "bloom" else None, path=path)
                self.assertEqual(path.read_bytes(), self.cli_file(*cli))
                self.assertTrue(all(f.contains_many(k for k in KEYS if k)))
        f = bloomtool.build(KEYS, kind="binary-fuse", fpr=1e-4)
        self.assertEqual(f.info["k"], 16)

    def test_static_kinds_partitioned_as_the_cli(self):
        """Above 2^21 distinct keys xor-build partitions a static filter: build() writes the same
        partitioned file."""
        keys = [b"%d" % i for i in range(2_100_000)]
        path = self.dir / "many.txt"
        path.write_bytes(b"\n".join(keys) + b"\n")
        out = self.dir / "many.bf"
        rc, _, err = self.cli("xor-build", "-q", "-o", out, path)
        self.assertEqual(rc, 0, err)
        f = bloomtool.build(keys, kind="fuse8", path=self.dir / "py.bf")
        self.assertEqual((self.dir / "py.bf").read_bytes(), out.read_bytes())
        rc, text, err = self.cli("stats", out)
        self.assertRegex(text, r"partitions +2 \(by the top 1 hash bits\)")
        self.assertTrue(all(f.contains_many(keys[::997])))

    def test_union_of_shards_is_the_whole(self):
        shards = []
        for part in (KEYS[:3000], KEYS[3000:7000], KEYS[7000:]):
            s = bloomtool.BloomFilter(12000, 0.01)
            s.update(part)
            shards.append(pickle.loads(pickle.dumps(s)))  # as from another process
        whole = shards[0] | shards[1]
        whole |= shards[2]
        self.assertEqual(whole.to_bytes(), self.cli_file("build", "-n", 12000, "-p", 0.01))
        self.assertEqual(shards[0].keys_added, 3000)  # the operands are unchanged


class Behaviour(Base):
    def test_queries_len_intersection(self):
        a = bloomtool.BloomFilter(5000, 0.001)
        a.update(URLS[:4000])
        b = bloomtool.BloomFilter(5000, 0.001)
        b.update(URLS[2000:6000])
        self.assertTrue(all(a.contains_many(URLS[:4000])))
        self.assertLess(sum(a.contains_many(URLS[6000:])), 20)
        self.assertLess(abs(len(a) - 4000), 100)
        both = a & b
        self.assertTrue(all(both.contains_many(URLS[2000:4000])))
        self.assertLess(len(both), len(a))
        self.assertEqual(len(bloomtool.BloomFilter(10, 0.1)), 0)
        self.assertNotIn(b"", a)

    def test_bytes_pickle_copy_and_cli(self):
        f = bloomtool.BloomFilter(1000, 0.01, label="x")
        f.update([b"one", "two", bytearray(b"three")])
        for g in (bloomtool.BloomFilter.from_bytes(f.to_bytes()), pickle.loads(pickle.dumps(f)),
                  copy.copy(f), copy.deepcopy(f)):
            self.assertEqual(g.to_bytes(), f.to_bytes())
            g.add("four")
            self.assertIn("four", g)
            self.assertNotIn("four", f)
        path = self.dir / "f.bf"
        f.save(path, codec="raw")
        rc, out, err = self.cli("query", path, "-")  # the CLI reads it
        self.assertEqual(bloomtool.BloomFilter.load(path).to_bytes(), f.to_bytes())
        with bloomtool.open(path) as opened:
            self.assertIn("two", opened)
        static = bloomtool.build(["a", "b"], kind="fuse16")
        self.assertIn("a", pickle.loads(pickle.dumps(static)))
        self.assertIn("b", copy.copy(static))

    def test_signed_save_gated_by_cli(self):
        rc, _, err = self.cli("keygen", "-o", self.dir / "k")
        self.assertEqual(rc, 0, err)
        f = bloomtool.BloomFilter(100, 0.01)
        f.add("key")
        f.save(self.dir / "s.bf", signing_key=self.dir / "k.key")
        (self.dir / "q.txt").write_text("key\n")
        rc, out, err = self.cli("query", "--trusted-key", self.dir / "k.pub", self.dir / "s.bf",
                                self.dir / "q.txt")
        self.assertEqual((rc, out), (0, "key\n"), err)
        with bloomtool.open(self.dir / "s.bf", trusted_key=self.dir / "k.pub") as g:
            self.assertTrue(g.info["signature"]["verified"])

    def test_open_formats(self):
        guava = TESTDATA / "golden" / "guava-mitz64.bin"
        with bloomtool.open(guava, format="guava") as f:
            self.assertEqual(f.info["hash"], "guava-mitz64")
        with bloomtool.open(TESTDATA / "golden" / "dcso.bloom", format="auto") as f:
            self.assertEqual(f.info["hash"], "dcso-fnv1")
        g = bloomtool.from_bytes(guava.read_bytes(), format="guava")
        self.assertEqual(pickle.loads(pickle.dumps(g)).info["m"], g.info["m"])
        with self.assertRaises(bloomtool.FilterFileError):
            bloomtool.open(guava)  # not a bloomtool file
        with self.assertRaises(bloomtool.ArgumentError):
            bloomtool.open(guava, format="parquet")


class BadInput(Base):
    def test_errors(self):
        f = bloomtool.BloomFilter(100, 0.01)
        cases = [
            (lambda: bloomtool.BloomFilter(0, 0.01), bloomtool.ArgumentError, "capacity"),
            (lambda: bloomtool.BloomFilter(10, 1.5), bloomtool.ArgumentError, "fpr"),
            (lambda: bloomtool.BloomFilter(10, 0.1, variant="x"), bloomtool.ArgumentError,
             "variant"),
            (lambda: bloomtool.BloomFilter(10, 0.1, seed=-1), bloomtool.ArgumentError, "seed"),
            (lambda: bloomtool.BloomFilter(10, 0.1, normalize="shout"), bloomtool.ArgumentError,
             "normalisation: 'shout'"),
            (lambda: f.add(5), bloomtool.ArgumentError, "expected bytes"),
            (lambda: f.add("\ud800"), bloomtool.ArgumentError, "UTF-8"),
            (lambda: f.update("abc"), bloomtool.ArgumentError, "single str"),
            (lambda: f.update(5), bloomtool.ArgumentError, "iterable"),
            (lambda: f.add(b"x" * (2 << 20)), bloomtool.FilterFileError, "longer than"),
            (lambda: f | bloomtool.BloomFilter(100, 0.01, seed=1), ValueError,
             "seed: the filters differ"),
            (lambda: f.save(self.dir / "no" / "x.bf"), FileNotFoundError, "x.bf"),
            (lambda: bloomtool.BloomFilter.load(self.dir / "none.bf"), FileNotFoundError, ""),
            (lambda: bloomtool.BloomFilter.from_bytes(b"junk"), bloomtool.FilterFileError,
             "<memory>"),
            (lambda: bloomtool.BloomFilter.from_bytes(bloomtool.build(["a"]).to_bytes()
                                                      if False else
                                                      (TESTDATA / "golden" / "v1-fuse-8.bf")
                                                      .read_bytes()),
             bloomtool.FilterFileError, "not a Bloom filter"),
            (lambda: bloomtool.build(["a"], kind="cuckoo"), bloomtool.ArgumentError, "kind"),
            (lambda: bloomtool.build(["a"], kind="fuse8", fpr=0.1), bloomtool.ArgumentError,
             "fpr"),
            (lambda: f.to_bytes(codec="lz4"), bloomtool.ArgumentError, "codec"),
        ]
        for call, cls, text in cases:
            with self.subTest(text=text):
                with self.assertRaises(cls) as cm:
                    call()
                self.assertIn(text, str(cm.exception))
        self.assertEqual(f.keys_added, 0)  # nothing was added by the failures
        over = bloomtool.BloomFilter(10, 0.01)
        over.update(URLS[:100])
        target = self.dir / "over.bf"
        target.write_bytes(b"old")
        with self.assertRaises(bloomtool.FilterFileError):
            over.save(target)
        self.assertEqual(target.read_bytes(), b"old")  # the old file untouched

    def test_full_disk(self):
        """A save or build to a full file system (a 256 KiB tmpfs, mounted as
        tests/cli/writer_faults_test.sh does): OSError ENOSPC naming the path, old file intact."""
        full = self.dir / "full"
        full.mkdir()
        if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(full)],
                          capture_output=True).returncode != 0:
            self.skipTest("cannot mount a tmpfs (needs root)")
        try:
            target = full / "out.bf"
            keys = [b"big-%d" % i for i in range(300000)]
            f = bloomtool.BloomFilter(300000, 0.001)  # about 540 KB
            f.update(keys)
            calls = [lambda: f.save(target),
                     lambda: bloomtool.build(keys, kind="fuse8", path=target)]  # about 330 KB
            for call in calls:
                target.write_bytes(b"old")
                with self.assertRaises(bloomtool.OpenError) as cm:
                    call()
                self.assertEqual(str(cm.exception), f"{target}: No space left on device")
                self.assertEqual(cm.exception.errno, errno.ENOSPC)
                self.assertEqual(cm.exception.filename, str(target))
                self.assertEqual(target.read_bytes(), b"old")
                self.assertEqual(sorted(p.name for p in full.iterdir()), ["out.bf"])
            self.assertTrue(f.contains_many(keys[:1000]) == [True] * 1000)  # still usable
        finally:
            subprocess.run(["umount", str(full)], check=True)


class Batches(Base):
    def test_keys_holding_the_separator_and_mixed_types(self):
        """update/contains_many join keys with b"\\n": keys holding it, or of mixed types, take
        the slower path and give the same filter and answers as add() key by key."""
        odd = [b"a\nb", "line\nbreak", b"", "caf\u00e9", bytearray(b"ba"), memoryview(b"mv"),
               b"plain"]
        for keys in (odd, [b"x\n", b"\n", b"y"], ["s\n", "t"], URLS[:3] + ["str"]):
            with self.subTest(keys=keys[:3]):
                batch, single = bloomtool.BloomFilter(100, 0.01), bloomtool.BloomFilter(100, 0.01)
                batch.update(keys)
                for k in keys:
                    single.add(k)
                self.assertEqual(batch.to_bytes(), single.to_bytes())
                self.assertEqual(batch.contains_many(keys), [k in single for k in keys])
                opened = bloomtool.from_bytes(batch.to_bytes())
                self.assertEqual(opened.contains_many(keys), [k in single for k in keys])
                self.assertEqual(opened.contains_many(iter(keys)), batch.contains_many(keys))

    def test_large_batches(self):
        """A list of 100,000 keys through a Filter's single call (split between threads by the
        library), and through BloomFilter's batches: every key found, the file the CLI's."""
        keys = [b"k%d" % i for i in range(100000)]
        path = self.dir / "large.txt"
        path.write_bytes(b"".join(k + b"\n" for k in keys))
        f = bloomtool.BloomFilter(100000, 0.01)
        f.update(keys)
        self.assertTrue(all(f.contains_many(keys)))
        out = self.dir / "large.bf"
        rc, _, err = self.cli("build", "-n", 100000, "-p", 0.01, "-q", "-o", out, path)
        self.assertEqual(rc, 0, err)
        self.assertEqual(f.to_bytes(), out.read_bytes())
        with bloomtool.open(out) as g:
            self.assertTrue(all(g.contains_many(keys)))
            self.assertTrue(all(g.contains_many([k.decode() for k in keys])))
            absent = [b"absent-%d" % i for i in range(100000)]
            self.assertEqual(g.contains_many(absent), [k in g for k in absent])

    def test_batches_overlapped_with_the_library(self):
        """update/contains_many across several 8,192-key batches: the answers stay in order
        across batches (the separator's slow path in a middle batch included), and an error stops
        the run after the batches before it (with the extension too: it falls back on the very
        batch that holds the bad key)."""
        chunk = 8192
        keys = [b"key-%d" % i for i in range(3 * chunk + 5)]
        keys[chunk + 7] = b"holds\nthe separator"
        f = bloomtool.BloomFilter(len(keys), 0.001)
        f.update(keys)
        self.assertEqual(f.keys_added, len(keys))
        probes = [k for pair in zip(keys, (b"absent-%d" % i for i in range(len(keys))))
                  for k in pair]
        self.assertEqual(f.contains_many(probes), [k in f for k in probes])
        self.assertEqual(f.contains_many(iter(probes)), [k in f for k in probes])
        self.assertEqual(sum(f.contains_many(probes)[0::2]), len(keys))

        def failing():
            yield from keys[:2 * chunk + 100]
            raise ValueError("the producer failed")

        g = bloomtool.BloomFilter(len(keys), 0.001)
        with self.assertRaisesRegex(ValueError, "the producer failed"):
            g.update(failing())
        self.assertEqual(g.keys_added, 2 * chunk)
        self.assertTrue(all(g.contains_many(keys[:2 * chunk])))

        h = bloomtool.BloomFilter(len(keys), 0.001)
        bad = keys[:chunk] + [12345] + keys[chunk:]
        with self.assertRaises(bloomtool.ArgumentError):
            h.update(bad)
        self.assertEqual(h.keys_added, chunk)
        with self.assertRaises(bloomtool.ArgumentError):
            h.contains_many(bad)


class Extension(unittest.TestCase):
    def test_loaded_when_built(self):
        """BLOOMTOOL_EXPECT_SPEEDUPS (set by ctest): ON when the build made the extension and the
        test does not turn it off, OFF otherwise."""
        expect = os.environ.get("BLOOMTOOL_EXPECT_SPEEDUPS")
        if expect is None:
            self.skipTest("BLOOMTOOL_EXPECT_SPEEDUPS is not set")
        self.assertEqual(bloomtool._fast is not None, expect == "ON", expect)


@unittest.skipIf(bloomtool._fast is None, "bloomtool._speedups not built or turned off")
class Speedups(Base):
    """bloomtool._speedups on its own, and the paths using it against the pure-Python ones (the
    same process with the extension set aside), over spans of 2 chunks so that several spans
    and the fallback to a chunk in the middle of one are exercised on small lists."""

    def setUp(self):
        super().setUp()
        self.spans = building._ADD_SPAN, building._QUERY_SPAN
        building._ADD_SPAN = building._QUERY_SPAN = 2 * building._CHUNK

    def tearDown(self):
        building._ADD_SPAN, building._QUERY_SPAN = self.spans
        super().tearDown()

    def test_pack_and_bools(self):
        fast = bloomtool._fast
        data, offsets = bytearray(), bytearray()
        keys = [b"ab", "", "caf\u00e9", b"", "x" * 3]
        self.assertEqual(fast.pack(keys, 0, 5, data, offsets, 1 << 20), 5)
        self.assertEqual(bytes(data[:10]), b"abcaf\xc3\xa9xxx")
        self.assertEqual(array("Q", bytes(offsets[:48])).tolist(), [0, 2, 2, 7, 7, 10])
        self.assertEqual(fast.pack(tuple(keys), 2, 4, data, offsets, 1 << 20), 2)
        self.assertEqual(bytes(data[:5]), "caf\u00e9".encode())
        self.assertEqual(array("Q", bytes(offsets[:24])).tolist(), [0, 5, 5])
        self.assertEqual(fast.pack(keys, 5, 5, data, offsets, 0), 0)
        # Stops before a key it leaves to the pure-Python path.
        odd = (bytearray(b"x"), memoryview(b"x"), 7, None, "\ud800", type("S", (str,), {})("s"),
               type("B", (bytes,), {})(b"b"), [b"x"])
        for key in odd:
            with self.subTest(key=key):
                self.assertEqual(fast.pack([b"a", "b", key, b"c"], 0, 4, data, offsets, 9), 2)
        self.assertEqual(fast.pack([b"a", b"bbbb", b"c"], 0, 3, data, offsets, 3), 1)
        self.assertEqual(fast.pack([b"a", "\u00e9\u00e9"], 0, 2, data, offsets, 3), 1)
        self.assertEqual(fast.pack([b"a", "\u00e9\u00e9"], 0, 2, data, offsets, 4), 2)
        # A non-ASCII str keeps no UTF-8 copy (as str.encode, not PyUnicode_AsUTF8AndSize).
        text = "\u2603 snow" * 50
        size = sys.getsizeof(text)
        self.assertEqual(fast.pack([text], 0, 1, data, offsets, 1 << 20), 1)
        self.assertEqual(sys.getsizeof(text), size)
        # The buffers grow, never shrink; a buffer exported elsewhere cannot grow.
        big = [b"y" * 100000]
        self.assertEqual(fast.pack(big, 0, 1, data, offsets, 1 << 20), 1)
        self.assertGreaterEqual(len(data), 100000)
        view = memoryview(data)
        with self.assertRaises(BufferError):
            fast.pack([b"z" * (len(data) + 1)], 0, 1, data, offsets, 1 << 30)
        view.release()
        for args, error in (((iter(keys), 0, 1, data, offsets, 1), TypeError),
                            ((keys, 0, 1, b"", offsets, 1), TypeError),
                            ((keys, 0, 6, data, offsets, 1), ValueError),
                            ((keys, 2, 1, data, offsets, 1), ValueError),
                            ((keys, -1, 1, data, offsets, 1), ValueError),
                            ((keys, 0, 1, data, offsets, -1), ValueError)):
            with self.assertRaises(error):
                fast.pack(*args)
        self.assertEqual(fast.bools(b"\x00\x01\xff\x00"), [False, True, True, False])
        self.assertEqual(fast.bools(bytearray()), [])
        with self.assertRaises(TypeError):
            fast.bools([1, 0])

    @staticmethod
    def attempt(call):
        """call()'s answer, or (exception type, text)."""
        try:
            return call()
        except (bloomtool.Error, ValueError) as e:
            return type(e), str(e)

    def both(self, call):
        """attempt(call) with the extension, then without it."""
        out = []
        fast = bloomtool._fast
        for use in (fast, None):
            bloomtool._fast = building._fast = use
            try:
                out.append(self.attempt(call))
            finally:
                bloomtool._fast = building._fast = fast
        return out

    def test_same_as_pure_python(self):
        chunk = building._CHUNK
        base = [b"k%d" % i for i in range(5 * chunk + 17)]

        def having(*pairs):
            keys = list(base)
            for index, key in pairs:
                keys[index] = key
            return keys

        cases = {
            "bytes": base,
            "str": [k.decode() for k in base],
            "tuple": tuple(base),
            "mixed and non-ASCII": having((3, "caf\u00e9"), (chunk + 5, "s"), (9, b"a\nb")),
            "bytes-like in two spans": having((chunk + 1, bytearray(b"ba")),
                                              (3 * chunk, memoryview(b"mv")), (4 * chunk, b"")),
            "an int in the fourth chunk": having((3 * chunk + 2, 12345)),
            "a surrogate in the third": having((2 * chunk + 9, "\ud800")),
            "a key over 1 MiB in the fifth": having((4 * chunk + 3, b"x" * ((1 << 20) + 1))),
            "a key of 1 MiB": having((7, b"x" * (1 << 20))),
        }
        probes = base[::7] + [b"absent-%d" % i for i in range(3000)] + ["caf\u00e9", 5]
        for name, keys in cases.items():
            for feed in ("as is", "iterator"):
                with self.subTest(keys=name, feed=feed):
                    def run():
                        f = bloomtool.BloomFilter(len(base), 0.01)
                        added = self.attempt(
                            lambda: f.update(keys if feed == "as is" else iter(keys)))
                        opened = bloomtool.from_bytes(f.to_bytes())
                        return (added, f.keys_added, f.to_bytes(),
                                self.attempt(lambda: f.contains_many(keys)),
                                self.attempt(lambda: f.contains_many(probes[:-1])),
                                self.attempt(lambda: f.contains_many(iter(probes))),
                                self.attempt(lambda: opened.contains_many(keys)),
                                self.attempt(lambda: opened.contains_many(probes)))
                    with_fast, without = self.both(run)
                    self.assertEqual(with_fast, without)
                    if with_fast[0] is None:  # every key in, and found (an empty one never)
                        found = [k not in (b"", "") for k in keys]
                        self.assertEqual(with_fast[3], found)
                        self.assertEqual(with_fast[6], found)

    def test_failing_producer_and_build(self):
        """A generator raising in the third chunk: the two chunks before it are in the filter
        both ways. build() writes the same fuse8 file both ways."""
        chunk = building._CHUNK
        keys = [b"key-%d" % i for i in range(5 * chunk)]

        def failing():
            yield from keys[:2 * chunk + 100]
            raise ValueError("the producer failed")

        def run():
            f = bloomtool.BloomFilter(len(keys), 0.01)
            with self.assertRaisesRegex(ValueError, "the producer failed"):
                f.update(failing())
            return f.keys_added, f.to_bytes()

        with_fast, without = self.both(run)
        self.assertEqual(with_fast, without)
        self.assertEqual(with_fast[0], 2 * chunk)

        def static():
            path = self.dir / "s.bf"
            bloomtool.build(keys + ["caf\u00e9"], kind="fuse8", path=path)
            return path.read_bytes()

        with_fast, without = self.both(static)
        self.assertEqual(with_fast, without)


if __name__ == "__main__":
    unittest.main()
