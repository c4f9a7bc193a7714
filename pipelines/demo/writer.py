"""Deterministic streaming writers and small helpers shared by the demo generator."""

from __future__ import annotations

import csv
import datetime as _dt
import gzip
import io
import random
import struct
import zlib
from pathlib import Path

COMPRESSLEVEL = 2

# All generated times are integer seconds since 2100-01-01 00:00:00 (MIMIC-style shifted dates).
_EPOCH_ORDINAL = _dt.date(2100, 1, 1).toordinal()
_DAY_CACHE: dict[int, str] = {}
DAY = 86400
HOUR = 3600
MINUTE = 60


def day_str(sec: int) -> str:
    d = sec // DAY
    s = _DAY_CACHE.get(d)
    if s is None:
        s = _DAY_CACHE[d] = _dt.date.fromordinal(_EPOCH_ORDINAL + d).isoformat()
    return s


def ts(sec: int) -> str:
    """``YYYY-MM-DD HH:MM:SS``."""
    r = sec % DAY
    h, r = divmod(r, HOUR)
    m, s = divmod(r, MINUTE)
    return f"{day_str(sec)} {h:02d}:{m:02d}:{s:02d}"


def ts_midnight(sec: int) -> str:
    return day_str(sec) + " 00:00:00"


def year_start(year: int) -> int:
    return (_dt.date(year, 1, 1).toordinal() - _EPOCH_ORDINAL) * DAY


def clock_12h(sec: int) -> str:
    """``10:25PM`` as in discharge-summary lab lines."""
    r = sec % DAY
    h, r = divmod(r, HOUR)
    m = r // MINUTE
    suffix = "AM" if h < 12 else "PM"
    h12 = h % 12 or 12
    return f"{h12:02d}:{m:02d}{suffix}"


def make_rng(seed: int, kind: str, index: int) -> random.Random:
    """Independent, reproducible stream per (seed, kind, index); str seeds hash via SHA-512."""
    return random.Random(f"clinverse-demo/{seed}/{kind}/{index}")


def scramble(n: int, base: int, modulus: int = 89_999_999, mult: int = 7_919_123) -> int:
    """Injective pseudo-random looking id for n < modulus (mult is coprime with modulus)."""
    return base + (n * mult) % modulus


def weighted(rng: random.Random, items):
    """The value of one ``(value, weight)`` pair of ``items`` (a sequence), drawn by weight."""
    total = 0.0
    for _, w in items:
        total += w
    x = rng.random() * total
    for v, w in items:
        x -= w
        if x <= 0:
            return v
    return items[-1][0]


def fmt_num(x: float, decimals: int) -> str:
    if decimals <= 0:
        return str(int(round(x)))
    return f"{x:.{decimals}f}"


class _CsvRows:
    """CSV rows (``\\n`` line ends, minimal quoting) into a binary stream, counted in ``rows``."""

    def _open_csv(self, binary) -> None:
        self._txt = io.TextIOWrapper(binary, encoding="utf-8", newline="")
        self._txt._CHUNK_SIZE = 1 << 16  # fewer, larger compress calls
        self._w = csv.writer(self._txt, lineterminator="\n")
        self.rows = 0

    def write(self, row) -> None:
        self._w.writerow(row)
        self.rows += 1

    def write_many(self, rows: list) -> None:
        self._w.writerows(rows)
        self.rows += len(rows)


class CsvGz(_CsvRows):
    """A gzip CSV file written row by row: header row, ``\\n`` line ends, minimal quoting, gzip mtime 0."""

    def __init__(self, path: Path, header: tuple[str, ...] | list[str], level: int = COMPRESSLEVEL):
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._raw = open(path, "wb")
        self._gz = gzip.GzipFile(filename="", mode="wb", fileobj=self._raw, compresslevel=level, mtime=0)
        self._open_csv(self._gz)
        self._w.writerow(header)

    def close(self) -> None:
        self._txt.flush()
        self._txt.detach()
        self._gz.close()
        self._raw.close()


# ------------------------------------------------------------------------------------------
# Segmented gzip: chunks are compressed independently (in parallel) as sync-flushed raw deflate
# segments and concatenated into ONE gzip member, so the bytes do not depend on the worker count.
# ------------------------------------------------------------------------------------------


def _gf2_times(mat: list[int], vec: int) -> int:
    s = 0
    i = 0
    while vec:
        if vec & 1:
            s ^= mat[i]
        vec >>= 1
        i += 1
    return s


def _gf2_square(mat: list[int]) -> list[int]:
    return [_gf2_times(mat, mat[n]) for n in range(32)]


def crc32_combine(crc1: int, crc2: int, len2: int) -> int:
    """CRC-32 of A+B from crc(A), crc(B), len(B) (zlib's crc32_combine)."""
    if len2 <= 0:
        return crc1
    odd = [0xEDB88320] + [1 << n for n in range(31)]
    even = _gf2_square(odd)
    odd = _gf2_square(even)
    while True:
        even = _gf2_square(odd)
        if len2 & 1:
            crc1 = _gf2_times(even, crc1)
        len2 >>= 1
        if not len2:
            break
        odd = _gf2_square(even)
        if len2 & 1:
            crc1 = _gf2_times(odd, crc1)
        len2 >>= 1
        if not len2:
            break
    return crc1 ^ crc2


class _DeflateSink(io.RawIOBase):
    def __init__(self, path: Path, level: int):
        self._f = open(path, "wb")
        self._c = zlib.compressobj(level, zlib.DEFLATED, -15, 9)
        self.crc = 0
        self.length = 0

    def writable(self) -> bool:
        return True

    def write(self, b) -> int:
        b = bytes(b)
        self.crc = zlib.crc32(b, self.crc)
        self.length += len(b)
        out = self._c.compress(b)
        if out:
            self._f.write(out)
        return len(b)

    def finish(self) -> None:
        self._f.write(self._c.flush(zlib.Z_SYNC_FLUSH))
        self._f.close()


class SegmentCsv(_CsvRows):
    """CSV rows (no header) into one raw-deflate segment; :meth:`close` returns (path, crc, length, rows)."""

    def __init__(self, path: Path, level: int = COMPRESSLEVEL):
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._sink = _DeflateSink(path, level)
        self._buf = io.BufferedWriter(self._sink, buffer_size=1 << 16)
        self._open_csv(self._buf)

    def write_text(self, text: str) -> None:
        self._txt.write(text)

    def close(self) -> tuple[str, int, int, int]:
        self._txt.flush()
        self._txt.detach()
        self._buf.flush()
        self._buf.detach()
        self._sink.finish()
        return str(self.path), self._sink.crc, self._sink.length, self.rows


def _append_file(f, segment: str, remove: bool) -> None:
    """Copy the file ``segment`` onto the open binary file ``f`` in 1 MiB blocks; delete it if ``remove``."""
    with open(segment, "rb") as s:
        while True:
            block = s.read(1 << 20)
            if not block:
                break
            f.write(block)
    if remove:
        Path(segment).unlink()


def header_segment(header, level: int = COMPRESSLEVEL) -> tuple[bytes, int, int]:
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerow(header)
    data = buf.getvalue().encode("utf-8")
    c = zlib.compressobj(level, zlib.DEFLATED, -15, 9)
    return c.compress(data) + c.flush(zlib.Z_SYNC_FLUSH), zlib.crc32(data), len(data)


def assemble_gzip(path: Path, head: tuple[bytes, int, int] | None, segments: list[tuple[str, int, int, int]],
                  level: int = COMPRESSLEVEL, remove: bool = True) -> None:
    """Write one gzip member (mtime 0, no name) from an optional in-memory head and segment files."""
    path.parent.mkdir(parents=True, exist_ok=True)
    xfl = 4 if level == 1 else (2 if level == 9 else 0)
    crc, total = 0, 0
    with open(path, "wb") as f:
        f.write(b"\x1f\x8b\x08\x00" + struct.pack("<I", 0) + bytes((xfl, 255)))
        if head is not None:
            data, c, n = head
            f.write(data)
            crc, total = c, n
        for seg_path, c, n, _rows in segments:
            _append_file(f, seg_path, remove)
            crc = crc32_combine(crc, c, n)
            total += n
        f.write(zlib.compressobj(level, zlib.DEFLATED, -15, 9).flush(zlib.Z_FINISH))
        f.write(struct.pack("<II", crc & 0xFFFFFFFF, total & 0xFFFFFFFF))


def assemble_text(path: Path, segments: list[str], remove: bool = True) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as f:
        for seg in segments:
            _append_file(f, seg, remove)


class SafeDict(dict):
    """``str.format_map`` mapping that leaves unknown placeholders de-identified."""

    def __missing__(self, key: str) -> str:
        return "___"


def wrap(text: str, width: int = 78) -> str:
    """Fast greedy hard wrap of one paragraph (radiology/discharge text style)."""
    out: list[str] = []
    line: list[str] = []
    n = 0
    for word in text.split(" "):
        if not word:
            continue
        if n and n + 1 + len(word) > width:
            out.append(" ".join(line))
            line, n = [word], len(word)
        else:
            line.append(word)
            n += len(word) + (1 if n else 0)
    if line:
        out.append(" ".join(line))
    return "\n".join(out)
