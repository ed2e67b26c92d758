"""Building filters from Python: a mutable :class:`BloomFilter` and :func:`build` for the static
kinds, over the C API's builder (``bloomtool_builder_*`` in ``bloomtool_c.h``).

Keys are ``bytes`` (or any bytes-like object: its bytes) or ``str`` (UTF-8), normalised as the
plan says and hashed exactly as ``bloomtool build`` hashes them: for the same keys and plan (and a
fixed creation time: ``created=`` or ``SOURCE_DATE_EPOCH``) :meth:`BloomFilter.save` writes byte
for byte the file of ``bloomtool build -n CAPACITY -p FPR`` over a file of the keys, one per line,
and :func:`build` the file of ``bloomtool xor-build``::

    import bloomtool

    seen = bloomtool.BloomFilter(1_000_000, 0.001)
    seen.update(urls)                  # batches of keys per call into the library
    if "https://example.com/" in seen:
        ...
    seen.save("seen.bf")               # `bloomtool query seen.bf` reads it
    both = seen | other                # same geometry: exactly the filter of both key sets
    static = bloomtool.build(keys, kind="fuse8")   # a binary fuse filter, queried in memory
"""

from __future__ import annotations

import ctypes
import os
from array import array
from itertools import accumulate, islice
from typing import Any, Iterable, Iterator, List, Optional, Sequence, Tuple, Union

from . import (_ANY_LENGTH, _INVALID_ARGUMENT, _OK, _SEP, ArgumentError, Filter, Key, PathArg,
               _argument_error, _as_bytes, _at, _error, _fast, _joined, _lib, _path_bytes)

__all__ = ["BloomFilter", "build", "from_bytes"]

# bloomtool_c.h
_KINDS = {"bloom": 0, "standard": 0, "blocked": 1, "blocked-bloom": 1, "xor": 2,
          "binary-fuse": 3, "fuse": 3}
_STATIC_KINDS = {"fuse8": (3, 8), "fuse16": (3, 16), "xor8": (2, 8), "xor16": (2, 16),
                 "binary-fuse": (3, 0), "fuse": (3, 0), "xor": (2, 0)}
_SEED_DEFAULT, _SEED_GIVEN, _SEED_RANDOM = 0, 1, 2
_CODEC_RAW = 1
_FINISH_KEEP = 2
_FORMATS = {"bloomtool": 0, "auto": 1, "guava": 2, "dcso": 3}
# Keys per call into the library by update() and contains_many(): few enough that the join's
# keys are still in the cache when the library reads them (faster than larger batches split
# between threads, and no thread competes with the rest of the program).
_CHUNK = 8192
# With the extension (bloomtool._speedups): keys per call into the library, multiples of _CHUNK,
# packed in one C pass (no join). update() adds 32,768 at a time: the library inserts a batch below
# 65,536 keys on one thread, with plain stores and the packed keys still in the cache, which beat
# larger batches inserted by two threads with atomic ors (faster over 10 million URLs, the more
# so while other processes use the cores). contains_many() queries 262,144 at a time, which
# the library splits between its threads (reads need no atomics).
_ADD_SPAN = 1 << 15
_QUERY_SPAN = 1 << 18
# bloomtool_builder_add_many refuses a longer key: pack() leaves such a key to the _CHUNK path,
# whose error names the key as it always has.
_MAX_KEY = 1 << 20


class _Plan(ctypes.Structure):
    # bloomtool_plan, member for member.
    _fields_ = [
        ("size", ctypes.c_size_t),
        ("kind", ctypes.c_int32),
        ("k", ctypes.c_uint32),
        ("n", ctypes.c_uint64),
        ("p", ctypes.c_double),
        ("m", ctypes.c_uint64),
        ("fingerprint_bits", ctypes.c_uint32),
        ("max_attempts", ctypes.c_uint32),
        ("seed_mode", ctypes.c_int32),
        ("allow_overfill", ctypes.c_int32),
        ("seed", ctypes.c_uint64),
        ("normalisation", ctypes.c_char_p),
        ("label", ctypes.c_char_p),
        ("created_unix", ctypes.c_int64),
        ("created_set", ctypes.c_int32),
        ("threads", ctypes.c_uint32),
    ]


def _declare() -> None:
    if not hasattr(_lib, "bloomtool_builder_new"):
        raise ImportError("bloomtool: the loaded libbloomtool is older than this module (no "
                          "bloomtool_builder_new)", name="bloomtool")
    vp, u64p = ctypes.c_void_p, ctypes.POINTER(ctypes.c_uint64)
    sigs = {
        "bloomtool_builder_new": [ctypes.POINTER(_Plan), ctypes.POINTER(vp)],
        "bloomtool_builder_add": [vp, ctypes.c_char_p, ctypes.c_size_t],
        "bloomtool_builder_add_many": [vp, ctypes.c_char_p, vp, ctypes.c_size_t],
        "bloomtool_builder_add_separated": [vp, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_uint8,
                                            ctypes.c_size_t],
        "bloomtool_builder_contains_separated": [vp, ctypes.c_char_p, ctypes.c_size_t,
                                                 ctypes.c_uint8, ctypes.c_size_t, vp],
        "bloomtool_builder_size": [vp, u64p],
        "bloomtool_builder_finish": [vp, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_uint32],
        "bloomtool_builder_finish_bytes": [vp, ctypes.c_char_p, ctypes.c_uint32,
                                           ctypes.POINTER(vp), ctypes.POINTER(ctypes.c_size_t)],
        "bloomtool_builder_contains_many": [vp, ctypes.c_char_p, vp, ctypes.c_size_t, vp],
        "bloomtool_builder_merge": [vp, vp, ctypes.c_int32],
        "bloomtool_builder_contains": [vp, ctypes.c_char_p, ctypes.c_size_t],
        "bloomtool_builder_estimate": [vp, u64p],
        "bloomtool_builder_from_bytes": [ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(vp)],
        "bloomtool_open_bytes": [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_int32,
                                 ctypes.c_char_p, ctypes.POINTER(vp)],
        "bloomtool_open_format": [ctypes.c_char_p, ctypes.c_int32, ctypes.c_char_p,
                                  ctypes.POINTER(vp)],
    }
    for name, args in sigs.items():
        fn = getattr(_lib, name)
        fn.argtypes = args
        fn.restype = ctypes.c_int
    _lib.bloomtool_builder_free.argtypes = [vp]
    _lib.bloomtool_builder_free.restype = None
    _lib.bloomtool_free.argtypes = [vp]
    _lib.bloomtool_free.restype = None


_declare()
_contains = _lib.bloomtool_builder_contains


def _check(status: int, path: Optional[str] = None) -> None:
    if status != _OK:
        raise _error(status, path)


def _normalisation(normalize: Union[None, str, Sequence[str]]) -> bytes:
    if normalize is None:
        return b""
    if isinstance(normalize, str):
        return normalize.encode("utf-8")
    if isinstance(normalize, (list, tuple)) and all(isinstance(s, str) for s in normalize):
        return ",".join(normalize).encode("utf-8")
    raise _argument_error(f"normalize: expected None, a str such as 'trim,lowercase' or a list of "
                          f"steps, got {type(normalize).__name__}")


def _make_plan(kind: int, *, n: int = 0, p: float = 0.0, fingerprint_bits: int = 0,
               seed: Union[None, int, str] = None, normalize: Any = None,
               label: Optional[str] = None, created: Optional[int] = None,
               allow_overfill: bool = False) -> _Plan:
    plan = _Plan()
    plan.size = ctypes.sizeof(_Plan)
    plan.kind = kind
    plan.n = n
    plan.p = p
    plan.fingerprint_bits = fingerprint_bits
    if seed is None:
        plan.seed_mode = _SEED_DEFAULT
    elif seed == "random":
        plan.seed_mode = _SEED_RANDOM
    elif isinstance(seed, int) and not isinstance(seed, bool) and 0 <= seed < 2 ** 64:
        plan.seed_mode = _SEED_GIVEN
        plan.seed = seed
    else:
        raise _argument_error(f"seed: expected None, 'random' or an int in [0, 2**64), got "
                              f"{seed!r}")
    plan.normalisation = _normalisation(normalize)
    plan.label = (label or "").encode("utf-8")
    if created is not None:
        plan.created_unix = int(created)
        plan.created_set = 1
    plan.allow_overfill = 1 if allow_overfill else 0
    return plan


def _batch(keys: List[Any]) -> Tuple[bytes, array]:
    """Keys as the C API's batch: their bytes back to back and count + 1 offsets."""
    if keys and type(keys[0]) is str:
        try:
            text = "".join(keys)
        except TypeError:
            text = None
        if text is not None and text.isascii():
            data = text.encode("ascii")
            return data, array("Q", accumulate(map(len, keys), initial=0))
    if not all(type(k) is bytes for k in keys):
        keys = [_as_bytes(k, "key") for k in keys]
    return b"".join(keys), array("Q", accumulate(map(len, keys), initial=0))


def _chunks(keys: Iterable[Key]) -> Iterator[List[Any]]:
    if isinstance(keys, (str, bytes, bytearray, memoryview)):
        raise _argument_error(f"keys: expected an iterable of keys, got a single "
                              f"{type(keys).__name__} (use [key] or add(key))")
    if type(keys) is list:
        for start in range(0, len(keys), _CHUNK):
            yield keys[start:start + _CHUNK]
        return
    try:
        it = iter(keys)
    except TypeError:
        raise _argument_error(f"keys: expected an iterable of keys, got "
                              f"{type(keys).__name__}") from None
    while True:
        chunk = list(islice(it, _CHUNK))
        if not chunk:
            return
        yield chunk


def _spans(keys: Iterable[Key], span: int) -> Iterator[Tuple[Sequence[Any], int, int]]:
    """(items, start, stop) for the extension's pack(): a list or tuple in place, `span` keys at
    a time; any other iterable read as _chunks reads it and gathered `span` keys at a time. Every
    span starts at a multiple of _CHUNK keys, so a span falls back to the _CHUNK path on the very
    chunks _chunks would give. When the iterable raises, the whole chunks read before come first
    (the library takes them, as it would have one by one), then the exception."""
    if type(keys) is list or type(keys) is tuple:
        count = len(keys)
        for start in range(0, count, span):
            yield keys, start, min(start + span, count)
        return
    chunks = _chunks(keys)
    pending: List[Any] = []
    while True:
        try:
            chunk = next(chunks, None)
        except BaseException:
            if pending:
                yield pending, 0, len(pending)
            raise
        if chunk is None:
            break
        pending += chunk
        if len(pending) >= span:
            yield pending, 0, len(pending)
            pending = []
    if pending:
        yield pending, 0, len(pending)


def _packed(keys: Iterable[Key], span: int, limit: int, slow: Any, fast: Any) -> None:
    """Feeds `keys` to the library through the extension: fast(data, offsets, count) for each
    packed run of keys (their bytes and count + 1 offsets, in two buffers reused from call to
    call), slow(chunk) for each _CHUNK-aligned chunk holding a key pack() leaves to the
    pure-Python path (another type, a str not encodable as UTF-8, longer than `limit`)."""
    data, offsets = bytearray(), bytearray()
    for items, start, stop in _spans(keys, span):
        while start < stop:
            packed = _fast.pack(items, start, stop, data, offsets, limit)
            whole = packed if start + packed == stop else packed - packed % _CHUNK
            if whole:
                fast(data, offsets, whole)
                start += whole
            if start < stop:
                end = min(start + _CHUNK, stop)
                slow(items[start:end])
                start = end


class _Builder:
    """Owns one bloomtool_builder handle."""

    def __init__(self, handle: int) -> None:
        self.handle = handle

    def __del__(self) -> None:
        handle, self.handle = getattr(self, "handle", None), None
        if handle is not None:
            try:
                _lib.bloomtool_builder_free(handle)
            except Exception:  # interpreter shutdown
                pass

    def add_many(self, keys: Iterable[Key]) -> None:
        if _fast is None:
            for chunk in _chunks(keys):
                self._add_chunk(chunk)
            return

        def fast(data: bytearray, offsets: bytearray, count: int) -> None:
            _check(_lib.bloomtool_builder_add_many(self.handle, _at(data), _at(offsets), count))

        _packed(keys, _ADD_SPAN, _MAX_KEY, self._add_chunk, fast)

    def _add_chunk(self, chunk: List[Any]) -> None:
        joined = _joined(chunk)
        if joined is not None and _lib.bloomtool_builder_add_separated(
                self.handle, joined, len(joined), _SEP, len(chunk)) == _OK:
            return
        data, offsets = _batch(chunk)
        _check(_lib.bloomtool_builder_add_many(self.handle, data, offsets.buffer_info()[0],
                                               len(chunk)))

    def contains_chunk(self, chunk: List[Any]) -> bytearray:
        """One answer byte per key of `chunk` (a _CHUNK of keys), the pure-Python way: one join."""
        results = bytearray(len(chunk))
        buffer = (ctypes.c_uint8 * len(chunk)).from_buffer(results)
        joined = _joined(chunk)
        if joined is None or _lib.bloomtool_builder_contains_separated(
                self.handle, joined, len(joined), _SEP, len(chunk), buffer) != _OK:
            data, offsets = _batch(chunk)
            _check(_lib.bloomtool_builder_contains_many(
                self.handle, data, offsets.buffer_info()[0], len(chunk), buffer))
        del buffer  # the export, before the caller appends to `results` or copies it
        return results

    def contains_many(self, keys: Iterable[Key]) -> List[bool]:
        if _fast is None:
            out: List[bool] = []
            for chunk in _chunks(keys):
                out.extend(map(bool, self.contains_chunk(chunk)))
            return out
        answers = bytearray()

        def fast(data: bytearray, offsets: bytearray, count: int) -> None:
            at = len(answers)
            answers.extend(bytes(count))
            _check(_lib.bloomtool_builder_contains_many(self.handle, _at(data), _at(offsets),
                                                        count, _at(answers, at)))

        def slow(chunk: List[Any]) -> None:
            answers.extend(self.contains_chunk(chunk))

        _packed(keys, _QUERY_SPAN, _ANY_LENGTH, slow, fast)
        return _fast.bools(answers)

    def finish_bytes(self, flags: int, signing_key: Optional[bytes] = None) -> bytes:
        data = ctypes.c_void_p()
        size = ctypes.c_size_t()
        _check(_lib.bloomtool_builder_finish_bytes(self.handle, signing_key, flags,
                                                   ctypes.byref(data), ctypes.byref(size)))
        try:
            return ctypes.string_at(data.value, size.value)
        finally:
            _lib.bloomtool_free(data)


def _new_builder(plan: _Plan) -> _Builder:
    handle = ctypes.c_void_p()
    _check(_lib.bloomtool_builder_new(ctypes.byref(plan), ctypes.byref(handle)))
    return _Builder(handle.value)


def _codec_flag(codec: str) -> int:
    if codec == "zstd":
        return 0
    if codec == "raw":
        return _CODEC_RAW
    raise _argument_error(f"codec: expected 'zstd' or 'raw', got {codec!r}")


class BloomFilter:
    """A Bloom filter sized for `capacity` distinct keys at false-positive rate `fpr`, that takes
    keys and answers queries at any time.

    `variant`: 'standard' (k bits anywhere) or 'blocked' (all k bits of a key in one 64-byte
    block: faster, slightly larger). `seed`: None (bloomtool's public seed), an int, or 'random'
    (drawn from the operating system and recorded in the file). `normalize`: None, or the steps
    applied to every key before hashing and recorded in the file ('trim,lowercase', 'email',
    'url', ['trim', 'phone'], ...). `label` and `created` (seconds since 1970; default
    SOURCE_DATE_EPOCH, else now) are stored in the file. With `allow_overfill`, save() writes
    even when the keys exceed the capacity by more than 20%.

    :meth:`save` writes the file ``bloomtool build -n CAPACITY -p FPR`` writes for the same keys
    (one per line) and options. ``len()`` is the number of distinct keys estimated from the fill
    (what the file records). Filters of the same geometry (capacity, fpr, variant, seed,
    normalize) combine with ``|`` (exactly the filter of both key sets) and ``&``. Pickling and
    copying go through :meth:`to_bytes`. Not for concurrent use from several threads without a
    lock of your own (the library serialises calls, so nothing breaks, but nothing is gained).
    """

    def __init__(self, capacity: int, fpr: float = 0.01, *, variant: str = "standard",
                 seed: Union[None, int, str] = None,
                 normalize: Union[None, str, Sequence[str]] = None, label: Optional[str] = None,
                 created: Optional[int] = None, allow_overfill: bool = False) -> None:
        if variant not in ("standard", "blocked"):
            raise _argument_error(f"variant: expected 'standard' or 'blocked', got {variant!r}")
        if not isinstance(capacity, int) or isinstance(capacity, bool) or capacity < 1:
            raise _argument_error(f"capacity: expected an int of at least 1, got {capacity!r}")
        if not isinstance(fpr, (int, float)) or not 0 < fpr < 1:
            raise _argument_error(f"fpr: expected a number between 0 and 1, got {fpr!r}")
        plan = _make_plan(_KINDS[variant], n=capacity, p=float(fpr), seed=seed,
                          normalize=normalize, label=label, created=created,
                          allow_overfill=allow_overfill)
        self._builder = _new_builder(plan)
        self._handle = self._builder.handle  # for the queries (the builder owns it)
        self.capacity: Optional[int] = capacity
        self.fpr: Optional[float] = float(fpr)

    @classmethod
    def from_bytes(cls, data: Union[bytes, bytearray, memoryview]) -> "BloomFilter":
        """The filter of a bloomtool Bloom file image (from :meth:`to_bytes`, or a file's bytes),
        to query and add more keys to; its counts, label, creation time, seed and normalisation
        carry on. Another kind raises FilterFileError."""
        raw = _as_bytes(data, "data")
        handle = ctypes.c_void_p()
        _check(_lib.bloomtool_builder_from_bytes(raw, len(raw), ctypes.byref(handle)))
        self = cls.__new__(cls)
        self._builder = _Builder(handle.value)
        self._handle = self._builder.handle
        self.capacity = None
        self.fpr = None
        return self

    @classmethod
    def load(cls, path: PathArg) -> "BloomFilter":
        """:meth:`from_bytes` of the file at `path` (FileNotFoundError when it is missing)."""
        with open(os.fsdecode(_path_bytes(path, "path")), "rb") as f:
            return cls.from_bytes(f.read())

    def add(self, key: Key) -> None:
        """Adds one key (bytes, bytes-like or str)."""
        key = key if type(key) is bytes else _as_bytes(key)
        _check(_lib.bloomtool_builder_add(self._builder.handle, key, len(key)))

    def update(self, keys: Iterable[Key]) -> None:
        """Adds every key of the iterable `keys`. With the extension (bloomtool._speedups), keys
        that are exactly bytes or str go 32,768 per call into the library, packed in one C pass.
        Without it, 8,192 per
        call: a list of bytes or of str in one join per call; keys holding b"\\n", or of mixed
        types, take a slower path. The filter is the same either way."""
        self._builder.add_many(keys)

    def contains(self, key: Key) -> bool:
        """True if `key` may have been added, False if it certainly was not."""
        if type(key) is not bytes:
            key = _as_bytes(key)
        r = _contains(self._handle, key, len(key))
        if r < 0:
            raise _error(-r)
        return r == 1

    __contains__ = contains

    def contains_many(self, keys: Iterable[Key]) -> List[bool]:
        """One answer per key, in order: 262,144 keys per call into the library with the
        extension (bloomtool._speedups), else 8,192."""
        return self._builder.contains_many(keys)

    def __len__(self) -> int:
        distinct = ctypes.c_uint64()
        _check(_lib.bloomtool_builder_estimate(self._builder.handle, ctypes.byref(distinct)))
        return distinct.value

    @property
    def keys_added(self) -> int:
        """Keys added so far, repeats and empty ones included (the file's input lines)."""
        size = ctypes.c_uint64()
        _check(_lib.bloomtool_builder_size(self._builder.handle, ctypes.byref(size)))
        return size.value

    def _merged(self, other: "BloomFilter", intersect: int, in_place: bool) -> "BloomFilter":
        if not isinstance(other, BloomFilter):
            return NotImplemented  # type: ignore[return-value]
        target = self if in_place else self.copy()
        _check(_lib.bloomtool_builder_merge(target._builder.handle, other._builder.handle,
                                            intersect))
        return target

    def union(self, other: "BloomFilter") -> "BloomFilter":
        """A new filter holding the keys of both (same geometry, else ArgumentError, a
        ValueError): bit for bit the filter of both key sets."""
        return self._merged(other, 0, False)

    def intersection(self, other: "BloomFilter") -> "BloomFilter":
        """A new filter of the bits both have (same geometry, else ArgumentError): it holds at
        least the keys both hold."""
        return self._merged(other, 1, False)

    __or__ = union
    __and__ = intersection

    def __ior__(self, other: "BloomFilter") -> "BloomFilter":
        return self._merged(other, 0, True)

    def __iand__(self, other: "BloomFilter") -> "BloomFilter":
        return self._merged(other, 1, True)

    def to_bytes(self, *, codec: str = "zstd") -> bytes:
        """The bloomtool file's bytes (the filter stays as it is). `codec`: 'zstd' or 'raw'."""
        return self._builder.finish_bytes(_FINISH_KEEP | _codec_flag(codec))

    def save(self, path: PathArg, *, signing_key: Optional[PathArg] = None,
             codec: str = "zstd") -> None:
        """Writes the bloomtool file to `path` atomically (the old file stays whole on any
        error), signed with the secret key file `signing_key` (NAME.key of ``bloomtool keygen``)
        if given; the filter stays as it is and takes more keys."""
        encoded = _path_bytes(path, "path")
        key = None if signing_key is None else _path_bytes(signing_key, "signing_key")
        _check(_lib.bloomtool_builder_finish(self._builder.handle, encoded, key,
                                             _FINISH_KEEP | _codec_flag(codec)),
               os.fsdecode(encoded))

    def copy(self) -> "BloomFilter":
        """An independent filter with the same bits and counts."""
        twin = BloomFilter.from_bytes(self.to_bytes(codec="raw"))
        twin.capacity, twin.fpr = self.capacity, self.fpr
        return twin

    __copy__ = copy

    def __deepcopy__(self, memo: Any) -> "BloomFilter":
        return self.copy()

    def __reduce__(self) -> Tuple[Any, ...]:
        return (_unpickle, (self.to_bytes(), self.capacity, self.fpr))

    def __repr__(self) -> str:
        return f"<bloomtool.BloomFilter capacity={self.capacity} fpr={self.fpr}>"


def _unpickle(data: bytes, capacity: Optional[int], fpr: Optional[float]) -> BloomFilter:
    f = BloomFilter.from_bytes(data)
    f.capacity, f.fpr = capacity, fpr
    return f


def from_bytes(data: Union[bytes, bytearray, memoryview], *, format: str = "bloomtool",
               trusted_key: Optional[PathArg] = None) -> Filter:
    """Opens a filter file image in memory (copied) for querying, with every check
    :func:`bloomtool.open` makes; `format`: 'bloomtool', 'auto', 'guava' or 'dcso'. The filter
    pickles by its bytes."""
    raw = _as_bytes(data, "data")
    if format not in _FORMATS:
        raise _argument_error(f"format: expected one of {', '.join(_FORMATS)}, got {format!r}")
    key = None if trusted_key is None else _path_bytes(trusted_key, "trusted_key")
    handle = ctypes.c_void_p()
    _check(_lib.bloomtool_open_bytes(raw, len(raw), _FORMATS[format], key, ctypes.byref(handle)),
           "<memory>")
    f = Filter.__new__(Filter)
    f._handle = handle.value
    f._closed = False
    f.path = "<memory>"
    f._info = f._read_info()
    f._reopen = None
    f._image = (raw, format)  # type: ignore[attr-defined]
    return f


def build(keys: Iterable[Key], kind: str = "fuse8", fpr: Optional[float] = None, *,
          seed: Union[None, int, str] = None,
          normalize: Union[None, str, Sequence[str]] = None, label: Optional[str] = None,
          created: Optional[int] = None, path: Optional[PathArg] = None,
          signing_key: Optional[PathArg] = None, codec: str = "zstd") -> Filter:
    """Builds a static filter of exactly `keys` and returns it opened for querying (in memory).

    `kind`: 'fuse8', 'fuse16' (binary fuse, 8- or 16-bit fingerprints: rate 2^-8 or 2^-16),
    'xor8', 'xor16', or 'binary-fuse' / 'xor' with `fpr` choosing the fingerprint (8 bits when
    fpr >= 2^-8, else 16); also 'bloom' and 'blocked' sized for exactly the distinct keys at
    `fpr` (default 1%). With `path`, the file is also written there atomically (signed with
    `signing_key` if given): the file ``bloomtool xor-build`` (or ``build -p FPR``) writes for
    the same keys, one per line.
    """
    if kind in _STATIC_KINDS:
        code, bits = _STATIC_KINDS[kind]
        if bits and fpr is not None:
            raise _argument_error(f"fpr: {kind} sets the rate (2^-{bits}); give kind='binary-fuse'"
                                  f" or 'xor' with fpr instead")
        if not bits:
            bits = 8 if fpr is None or fpr >= 2 ** -8 else 16
            if fpr is not None and not 2 ** -16 <= fpr < 1:
                raise _argument_error(f"fpr: {kind} filters reach 2^-8 or 2^-16, got {fpr!r}")
        plan = _make_plan(code, fingerprint_bits=bits, seed=seed, normalize=normalize,
                          label=label, created=created)
    elif kind in ("bloom", "standard", "blocked"):
        plan = _make_plan(_KINDS[kind], p=0.01 if fpr is None else float(fpr), seed=seed,
                          normalize=normalize, label=label, created=created)
    else:
        raise _argument_error(f"kind: expected fuse8, fuse16, xor8, xor16, binary-fuse, xor, "
                              f"bloom or blocked, got {kind!r}")
    builder = _new_builder(plan)
    builder.add_many(keys)
    key = None if signing_key is None else _path_bytes(signing_key, "signing_key")
    if path is None:
        return from_bytes(builder.finish_bytes(_codec_flag(codec), key))
    encoded = _path_bytes(path, "path")
    _check(_lib.bloomtool_builder_finish(builder.handle, encoded, key, _codec_flag(codec)),
           os.fsdecode(encoded))
    with open(os.fsdecode(encoded), "rb") as f:
        return from_bytes(f.read())
