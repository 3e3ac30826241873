"""Reading what a person supplied to ``explain`` (a file, a FIFO, standard input): bounded in size and in
waiting, so ``/dev/zero`` or a FIFO nobody writes to never hangs or fills memory."""

from __future__ import annotations

import os
import select
import stat
import sys
from dataclasses import dataclass
from typing import Callable

from .core import Finding, Section


MAX_INPUT_MB = 16
"""What ``explain`` reads of one input at most, in MB (2^20 bytes), unless CLUSTERLAB_MAX_INPUT_MB says
otherwise. A paste is kilobytes; the bound keeps ``/dev/zero`` or a runaway log from filling memory."""
IDLE_LIMIT_S = 10.0
"""A FIFO, device or socket that gives nothing for this many seconds has given all it will."""
_READ_CHUNK = 1 << 20


@dataclass(frozen=True)
class Paste:
    """Text a person supplied, as read: ``text`` (UTF-8, undecodable bytes replaced), ``read_bytes``
    how many bytes it came from, and ``note``, set when the reading stopped before the input's end:
    which part was kept (the first ``MAX_INPUT_MB`` MB, or what came before a FIFO fell silent)."""

    text: str
    read_bytes: int = 0
    note: str | None = None


def max_input_bytes() -> int:
    """The most bytes one input is read to: CLUSTERLAB_MAX_INPUT_MB megabytes (2^20 bytes; fractions
    allowed), or ``MAX_INPUT_MB`` when it is unset or not a positive number."""
    try:
        mb = float(os.environ.get("CLUSTERLAB_MAX_INPUT_MB", MAX_INPUT_MB))
    except ValueError:
        mb = MAX_INPUT_MB
    if not mb > 0 or mb == float("inf"):
        mb = MAX_INPUT_MB
    return max(1, int(mb * 2**20))


def _mb(n: int) -> str:
    return f"{n / 2**20:.3g} MB"


def _read_bounded(read: Callable[[int], bytes], limit: int,
                  wait: Callable[[], bool] | None = None) -> tuple[bytes, bool, bool]:
    """Read through ``read(n)`` in chunks of at most 1 MB until the end or ``limit + 1`` bytes; ``wait()``
    (when given) says whether more is ready within the idle limit. Returns (data up to ``limit`` bytes,
    cut: there was more, idle: stopped waiting)."""
    parts: list[bytes] = []
    total = 0
    while total <= limit:
        if wait is not None and not wait():
            return b"".join(parts), False, True
        try:
            block = read(min(_READ_CHUNK, limit + 1 - total))
        except BlockingIOError:  # a non-blocking FIFO said readable, then had nothing: ask again
            continue
        if not block:
            break
        parts.append(block)
        total += len(block)
    data = b"".join(parts)
    return data[:limit], total > limit, False


def read_paste(source: str, limit: int | None = None, idle_s: float = IDLE_LIMIT_S) -> Paste:
    """Read what a person supplied to ``explain``: a file's path, or ``-`` for standard input; at most ``limit``
    bytes (default :func:`max_input_bytes`), so an endless pipe stops there. A FIFO, device or socket is opened
    without blocking and read while data comes: opening a FIFO nobody writes to does not hang, and after ``idle_s``
    seconds without data the reading stops. Standard input is read to its end or the limit (a person typing or a
    slow command piping in is waited for). Raises OSError when the source cannot be opened."""
    limit = max_input_bytes() if limit is None else limit
    name = "standard input" if source == "-" else source
    idle = False
    if source == "-":
        buffer = getattr(sys.stdin, "buffer", None)
        if buffer is None:  # a text stream (a test's StringIO): characters stand for bytes
            text = sys.stdin.read(limit + 1)
            data, cut = text[:limit].encode("utf-8", "surrogatepass"), len(text) > limit
        else:
            data, cut, _ = _read_bounded(buffer.read, limit)
    elif stat.S_ISREG(os.stat(source).st_mode) or not hasattr(os, "O_NONBLOCK"):
        with open(source, "rb") as f:
            data, cut, _ = _read_bounded(f.read, limit)
    else:  # FIFO, character device, socket: never block, never wait forever
        fd = os.open(source, os.O_RDONLY | os.O_NONBLOCK)
        try:
            def ready() -> bool:
                return bool(select.select([fd], [], [], idle_s)[0])
            data, cut, idle = _read_bounded(lambda n: os.read(fd, n), limit, ready)
        finally:
            os.close(fd)
    note = None
    if cut:
        note = (f"{name} is longer than {_mb(limit)} (CLUSTERLAB_MAX_INPUT_MB): only its first {_mb(limit)} "
                "were read and explained")
    elif idle:
        note = (f"{name} gave nothing for {idle_s:g} s: only the {len(data):,} bytes that came before "
                "were read and explained")
    return Paste(data.decode("utf-8", errors="replace"), len(data), note)


def input_section(note: str) -> Section:
    """A Section (kind ``input``) carrying a :class:`Paste` note as a warning, shown first by the CLI."""
    return Section("input", None, {}, (Finding("warn", note),), None)


