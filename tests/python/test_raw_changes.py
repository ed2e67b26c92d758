"""A raw (codec 2) filter truncated, and rewritten in place, under an open Python handle.

Run by ctest (python.raw_changes) like test_bloomtool.py: BLOOMTOOL and BLOOMTOOL_LIBRARY in the
environment, python/ on PYTHONPATH. The queries after the change raise FilterFileError naming the
file and the chunk; no answer is a wrong "absent"; the interpreter is never killed by a signal.
"""

import os
import re
import shutil
import subprocess
import tempfile
import unittest
from pathlib import Path

import bloomtool

BT = os.environ["BLOOMTOOL"]
KEYS = [str(i) for i in range(1, 15001)]


class RawFileChangedUnderHandle(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.dir = Path(cls.tmp.name)
        # 64 MiB of payload in 1,024 chunks of 64 KiB: one key reads 7 of them.
        (cls.dir / "keys.txt").write_text("\n".join(KEYS) + "\n")
        other = "\n".join(str(i) for i in range(100001, 115001)) + "\n"
        (cls.dir / "other.txt").write_text(other)
        for name, keys in (("base.bf", "keys.txt"), ("other.bf", "other.txt")):
            subprocess.run([BT, "build", "-q", "--codec", "raw", "-m", "64MiB", "-k", "7",
                            "-o", str(cls.dir / name), str(cls.dir / keys)], check=True)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def changed(self, change):
        live = self.dir / "live.bf"
        shutil.copyfile(self.dir / "base.bf", live)
        f = bloomtool.open(live)
        self.assertTrue(f.contains(KEYS[0]))
        change(live)
        with self.assertRaises(bloomtool.FilterFileError) as raised:
            f.contains_many(KEYS)
        found = errors = 0
        for key in KEYS:
            try:
                self.assertTrue(f.contains(key), key)  # never a wrong "absent"
                found += 1
            except bloomtool.FilterFileError:
                errors += 1
        self.assertGreater(errors, 0)
        f.close()
        return str(raised.exception)

    def test_truncated(self):
        message = self.changed(lambda p: os.truncate(p, 100000))
        self.assertRegex(message, r"^" + re.escape(str(self.dir / "live.bf")) +
                         r": truncated: payload chunk \d+ at byte offset \d+ \(65536 bytes\): "
                         r"file now has 100000 bytes")

    def test_rewritten_in_place(self):
        def rewrite(p):
            with open(p, "r+b") as out:  # no truncation, as dd conv=notrunc or rsync --inplace
                out.write((self.dir / "other.bf").read_bytes())
        message = self.changed(rewrite)
        self.assertRegex(message, r"^" + re.escape(str(self.dir / "live.bf")) +
                         r": corrupt: payload chunk \d+ at byte offset \d+ \(65536 bytes\): "
                         r"checksum mismatch$")


if __name__ == "__main__":
    unittest.main()
