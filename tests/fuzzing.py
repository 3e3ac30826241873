"""Mutations of the shapes pastes and hand-edited evidence come in: shared by the fuzz tests and the benchmark.

Two kinds:

- :func:`mutate_text` takes a real command output and applies a chain of the edits the field shows:
  cut off anywhere (end or start), lines dropped, reordered or duplicated, garbage and random bytes
  inserted, numbers replaced by odd values, launcher prefixes and timestamps, shell prompts (a
  localised ``sudo`` one too), a command line with ``\\`` continuations above the output, colour codes
  (real ESC and the literal ``^[[0;36m`` a copy from some terminals gives), CRLF, lines wrapped at 80
  columns, redacted hex fields, one huge line, non-ASCII, other tool versions' spellings.
- :func:`mutate_evidence` takes an evidence record (the JSON an ``evidence/<lesson>.json`` holds) and edits
  its tree: a key deleted, a value set to null, NaN, Infinity, a huge integer, a deep nesting, another
  type, an empty container, a lone surrogate, a text mutated as above.

Both draw their choices from a :class:`Chooser`, so one code serves hypothesis (:class:`DrawChooser`,
which can shrink a failing case) and the benchmark (:class:`RandomChooser`, a seeded ``random.Random``).

:data:`CASES` counts the cases each fuzz test ran; ``tests/conftest.py`` prints the counts at the end of
the run.
"""

from __future__ import annotations

import copy
import random
import re
from collections import Counter
from pathlib import Path
from typing import Any, Protocol, Sequence

CASES: Counter[str] = Counter()
"""Fuzz cases run in this pytest process, per family (printed by tests/conftest.py)."""


class Chooser(Protocol):
    """Where a mutation's choices come from."""

    def integer(self, lo: int, hi: int) -> int: ...
    def choice(self, seq: Sequence[Any]) -> Any: ...
    def text(self, max_size: int) -> str: ...
    def binary(self, max_size: int) -> bytes: ...
    def permutation(self, seq: Sequence[Any]) -> list[Any]: ...


class RandomChooser:
    """Choices from a seeded ``random.Random`` (the benchmark: repeatable with the same seed)."""

    def __init__(self, rnd: random.Random) -> None:
        self.rnd = rnd

    def integer(self, lo: int, hi: int) -> int:
        return self.rnd.randint(lo, hi)

    def choice(self, seq: Sequence[Any]) -> Any:
        return self.rnd.choice(list(seq))

    def text(self, max_size: int) -> str:
        n = self.rnd.randint(0, max_size)
        return "".join(chr(self.rnd.choice((self.rnd.randint(32, 126), self.rnd.randint(0xA0, 0x2FFF))))
                       for _ in range(n))

    def binary(self, max_size: int) -> bytes:
        return bytes(self.rnd.randint(0, 255) for _ in range(self.rnd.randint(0, max_size)))

    def permutation(self, seq: Sequence[Any]) -> list[Any]:
        out = list(seq)
        self.rnd.shuffle(out)
        return out


class DrawChooser:
    """Choices drawn by hypothesis (``draw`` of a ``@st.composite``), so a failing case shrinks."""

    def __init__(self, draw: Any) -> None:
        from hypothesis import strategies as st
        self.draw, self.st = draw, st

    def integer(self, lo: int, hi: int) -> int:
        return self.draw(self.st.integers(lo, hi))

    def choice(self, seq: Sequence[Any]) -> Any:
        return self.draw(self.st.sampled_from(list(seq)))

    def text(self, max_size: int) -> str:
        return self.draw(self.st.text(max_size=max_size))

    def binary(self, max_size: int) -> bytes:
        return self.draw(self.st.binary(max_size=max_size))

    def permutation(self, seq: Sequence[Any]) -> list[Any]:
        return self.draw(self.st.permutations(list(seq)))


# --------------------------------------------------------------------------- text

VARIANTS = [
    ("#wrong", "error"), ("   root", ""), ("time", "cputime"), ("Gb/sec", "MB/sec"), ("[Gb/sec]", "[MiB/sec]"),
    ("RoCE v2", "IB/RoCE v1"), ("ACTIVE", "INIT"), ("LINK_UP", "POLLING"), ("NET/IB", "NET/IBext_v8"),
    ("NET/IB/", "NET/IB/0/GDRDMA/"), ("P2P/CUMEM", "P2P/IPC/read"), ("Using network IB", "Using network Socket"),
    ("Group  0 ", ""), ("[000f:01:00]", "[0x01]"), ("NCCL INFO", "NCCL WARN"), ("state", "State"),
    ("Link layer: Ethernet", "Link layer: InfiniBand"), ("Rate: 200", "Rate: 2.5"), ("v2", "v1"),
    ("192.168.", "169.254."), ("enp1s0f1np1", "eth0"), ("rocep1s0f1", "mlx5_0"), ("float", "bfloat16"),
    ("OK", "FAILED"), ("Active", "Down"), ("Up)", "Down)"), ("mtu 9000", "mtu 1500"), ("200000Mb/s", "Unknown!"),
    ("NVIDIA GB10", "NVIDIA H100 80GB HBM3"), ("GB10", "GeForce RTX 4090"), ("rocep1s0f1", "rxe_0"),
]
"""Other versions' and other machines' spellings of the same outputs: (old, new)."""

PREFIXES = ["[1,0]<stdout>:", "[1,1]<stderr>: ", "(RayWorkerWrapper pid=123, ip=10.0.0.2) ", "2026-11-29T10:00:00.123Z ",
            "[default0]:", "    ", "\t", "> ", "vllm-head-1  | ", "^[[0;36m(EngineCore_DP0 pid=4242)^[[0;0m ",
            "\x1b[36m(EngineCore_DP0 pid=4242)\x1b[0m "]
"""Launchers', loggers' and terminals' prefixes, put before every line."""

PROMPTS = ["user@spark-a:~$ ", "root@spark-b:/# ", "[sudo] password for user: ", "[sudo] Passwort für user: ",
           "[sudo] mot de passe de user : ", "(venv) $ ", "PS C:\\> ", ">>> "]
"""Shell prompts a paste carries (a localised sudo prompt among them)."""

COMMAND_LINES = ["$ sudo ib_write_bw -d rocep1s0f1 \\\n    -x 3 --report_gbits \\\n    192.168.100.11",
                 "$ NCCL_DEBUG=INFO mpirun -np 2 -H spark-a,spark-b \\\n  ./build/all_gather_perf -b 8 -e 16G -f 2",
                 "$ vllm serve openai/gpt-oss-120b \\\n  --tensor-parallel-size 2 \\\n  --distributed-executor-backend ray",
                 "$ lspci -vv | grep -E 'LnkCap|LnkSta'", "$ nvidia-smi topo -p2p r"]
"""Command lines (with continuations) a person pastes above the output."""

ODD_NUMBERS = ["-1", "0", "nan", "inf", "1e309", "99999999999999999999999", "", "N/A", "0x1f", "1,5", "-0.0", "٣",
               "1.2.3", "1e", "--5", "+", "9" * 5000]
"""Values a number's place may hold in a mangled paste."""

GARBAGE = ["Authorization required, but no authorization protocol specified", "}", "{", "[", "#", "---",
           "Segmentation fault (core dumped)", "^C", "Killed", "...", "```", "$ ", "NCCL INFO", "link /1 state",
           "device", "/sys/class/infiniband/x/ports/1/gids/3:", "CA '", "Port 1:", " #bytes #iterations",
           "=== Serving Benchmark Result ===", "Traceback (most recent call last):", "&a &a &a", "*a", "- &x [*x]"]
"""Lines that open or close a structure some reader looks for, or none."""

_NUMBER_RE = re.compile(r"\d+(?:\.\d+)?")
_HEX_RE = re.compile(r"[0-9a-f]{4}(?=:)")

TEXT_OPS = ("cut", "cut_head", "drop", "shuffle", "dup", "garbage", "bytes", "number", "prefix", "variant", "crlf",
            "blank", "swap_lines", "prompt", "command", "ansi", "wrap", "redact", "huge_line", "non_ascii")


def mutate_text(text: str, c: Chooser, max_ops: int = 4, huge: int = 20_000) -> str:
    """``text`` with up to ``max_ops`` edits of :data:`TEXT_OPS`, chosen by ``c``. ``huge`` bounds the
    length of the one long line the ``huge_line`` edit makes (characters)."""
    for _ in range(c.integer(0, max_ops)):
        op = c.choice(TEXT_OPS)
        lines = text.split("\n")
        if op == "cut":
            text = text[:c.integer(0, len(text))]
        elif op == "cut_head":
            text = text[c.integer(0, len(text)):]
        elif op == "drop" and lines:
            i = c.integer(0, len(lines) - 1)
            text = "\n".join(lines[:i] + lines[i + c.integer(1, 5):])
        elif op == "shuffle" and len(lines) < 400:
            text = "\n".join(c.permutation(lines))
        elif op == "swap_lines" and len(lines) > 1:
            i, j = c.integer(0, len(lines) - 1), c.integer(0, len(lines) - 1)
            lines[i], lines[j] = lines[j], lines[i]
            text = "\n".join(lines)
        elif op == "dup" and lines:
            i = c.integer(0, len(lines) - 1)
            text = "\n".join(lines[:i + 1] + lines[i:i + c.integer(1, 3)] + lines[i + 1:])
        elif op == "garbage":
            i = c.integer(0, len(lines))
            junk = c.text(60) if c.integer(0, 2) == 0 else c.choice(GARBAGE)
            text = "\n".join(lines[:i] + [junk] + lines[i:])
        elif op == "bytes":
            i = c.integer(0, len(text))
            text = text[:i] + c.binary(24).decode("latin-1") + text[i:]
        elif op == "number":
            matches = list(_NUMBER_RE.finditer(text[:200_000]))
            if matches:
                m = c.choice(matches)
                text = text[:m.start()] + c.choice(ODD_NUMBERS) + text[m.end():]
        elif op == "prefix":
            p = c.choice(PREFIXES)
            text = "\n".join(p + x for x in lines)
        elif op == "variant":
            old, new = c.choice(VARIANTS)
            text = text.replace(old, new)
        elif op == "crlf":
            text = text.replace("\n", "\r\n").replace("Active", "\x1b[32mActive\x1b[0m")
        elif op == "blank" and lines:
            lines[c.integer(0, len(lines) - 1)] = ""
            text = "\n".join(lines)
        elif op == "prompt" and lines:
            i = c.integer(0, len(lines) - 1)
            lines[i] = c.choice(PROMPTS) + lines[i]
            text = "\n".join(lines)
        elif op == "command":
            text = c.choice(COMMAND_LINES) + "\n" + text
        elif op == "ansi":
            i = c.integer(0, len(text))
            text = text[:i] + c.choice(["\x1b[1;31m", "\x1b[0m", "^[[0;36m", "^[[0m", "\x1b]0;title\x07"]) + text[i:]
        elif op == "wrap":
            text = "\n".join(x[k:k + 80] for x in lines for k in range(0, max(len(x), 1), 80))
        elif op == "redact":
            text = _HEX_RE.sub("xxxx", text, count=c.integer(1, 50))
        elif op == "huge_line" and lines:
            i = c.integer(0, len(lines) - 1)
            lines[i] = (lines[i] or "x") * (huge // max(len(lines[i]), 1) + 1)
            text = "\n".join(lines)
        elif op == "non_ascii":
            i = c.integer(0, len(text))
            text = text[:i] + c.choice(["é", "ß", "中文", "\u200b", "\ufeff", "🙂", "\u00a0", "Ω"]) + text[i:]
    return text


# --------------------------------------------------------------------------- evidence

EVIDENCE_OPS = ("delete", "null", "nan", "inf", "huge_int", "deep", "retype", "empty", "surrogate", "text",
                "dup_item", "bool", "negative")


def _paths(tree: Any, prefix: tuple = (), out: list | None = None, limit: int = 5000) -> list[tuple]:
    """Every path (a tuple of keys and indexes) to a value in ``tree``, breadth of at most ``limit``."""
    out = [] if out is None else out
    if len(out) >= limit:
        return out
    if isinstance(tree, dict):
        for k, v in tree.items():
            out.append(prefix + (k,))
            _paths(v, prefix + (k,), out, limit)
    elif isinstance(tree, list):
        for i, v in enumerate(tree):
            out.append(prefix + (i,))
            _paths(v, prefix + (i,), out, limit)
    return out


_DEEP_RE = re.compile(r'"__DEEP_(\d+)__"')


def dump_evidence(data: dict[str, Any]) -> str:
    """``data`` (maybe mutated) as the text of an evidence file: NaN and Infinity as Python's ``json``
    writes them, surrogates escaped, and each deep-nesting marker :func:`mutate_evidence` left replaced
    by that many brackets (which ``json.dumps`` itself cannot write)."""
    import json
    text = json.dumps(data, allow_nan=True, ensure_ascii=True)
    return _DEEP_RE.sub(lambda m: "[" * int(m.group(1)) + "0" + "]" * int(m.group(1)), text)


def mutate_evidence(data: dict[str, Any], c: Chooser, max_ops: int = 3) -> dict[str, Any]:
    """A copy of ``data`` (an evidence record as its JSON holds it) with up to ``max_ops`` edits of
    :data:`EVIDENCE_OPS` at paths chosen by ``c``. The result may hold NaN, Infinity, lone surrogates and
    deep-nesting markers: write it with :func:`dump_evidence`."""
    data = copy.deepcopy(data)
    for _ in range(c.integer(1, max_ops)):
        paths = _paths(data)
        if not paths:
            break
        # raw outputs' texts are where most of a record is, and what the readers read: mangle them half
        # the time, as a paste is mangled
        texts = [p for p in paths if p and p[-1] in ("stdout", "stderr")]
        if texts and c.integer(0, 1) == 0:
            path, op = c.choice(texts), "text"
        else:
            path, op = c.choice(paths), c.choice(EVIDENCE_OPS)
        parent = data
        for k in path[:-1]:
            parent = parent[k]
        key = path[-1]
        old = parent[key]
        if op == "delete":
            del parent[key]
            continue
        new: Any
        if op == "null":
            new = None
        elif op == "nan":
            new = float("nan")
        elif op == "inf":
            new = c.choice([float("inf"), float("-inf")])
        elif op == "huge_int":
            new = c.choice([10 ** 30, -(10 ** 30), 2 ** 63, int("9" * 400)])
        elif op == "deep":
            new = f"__DEEP_{c.choice([50, 500, 5000])}__"  # made real by dump_evidence
        elif op == "retype":
            new = c.choice([0, 1.5, "x", "", [], {}, [old], {"value": old}, True, str(old)[:100]])
        elif op == "empty":
            new = type(old)() if isinstance(old, (dict, list, str)) else old
        elif op == "surrogate":
            new = (old if isinstance(old, str) else "") + "\ud800"
        elif op == "text":
            new = mutate_text(old, c, huge=4000) if isinstance(old, str) else old
        elif op == "dup_item":
            if isinstance(parent, list):
                parent.insert(key, copy.deepcopy(old))
            continue
        elif op == "bool":
            new = c.choice([True, False])
        else:  # negative
            new = -old if isinstance(old, (int, float)) and not isinstance(old, bool) else old
        parent[key] = new
    return data


def seed_texts(*roots: Path, limit: int = 400_000) -> list[str]:
    """The text of every output file under ``roots`` (folders that do not exist are skipped): the seeds the
    text mutations start from. Files of ``limit`` bytes or more and empty ones are left out."""
    out = []
    for root in roots:
        if root.is_dir():
            for p in sorted(root.rglob("*")):
                if p.is_file() and p.suffix in (".txt", ".log", ".json", ".out", "") and p.stat().st_size < limit:
                    text = p.read_text(encoding="utf-8", errors="replace")
                    if text.strip():
                        out.append(text)
    return out


def reseal(data: dict[str, Any]) -> dict[str, Any]:
    """``data`` sealed again as the grader would have written it after the edit: each raw output's sha256
    recomputed from its text, then the manifest (:func:`grader.evidence.seal`). What an edit then
    reaches is the readers and the checks, not the integrity check. Edits the seal cannot hash (a huge
    integer, a deep nesting) are left unsealed."""
    from grader.evidence import digest, seal
    raw = data.get("raw")
    for r in raw if isinstance(raw, list) else []:
        if isinstance(r, dict) and isinstance(r.get("stdout"), str) and isinstance(r.get("stderr"), str):
            r["sha256"] = digest(r["stdout"], r["stderr"])
    try:
        return seal(data)
    except (ValueError, RecursionError):
        return data
