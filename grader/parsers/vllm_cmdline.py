"""The ``vllm serve`` command line and the Python literals a vLLM log prints, read leniently.

A paste may show the command that started the server (``vllm serve MODEL --flag value ...``,
``python -m vllm.entrypoints.openai.api_server ...``); the log prints the non-default arguments as
a Python dict (``non-default args: {...}``) or, in V0, ``args: Namespace(...)``, and the engine's
config as ``key=value`` fields. These readers never ``eval`` and never raise.
"""

from __future__ import annotations

import ast
import re
import shlex
from typing import Any

_SERVE_CMD_RE = re.compile(r"(?:^|[\s;&|/'\"])vllm\s+serve\s+(?P<rest>.*)$")
# in a log message, a command line only where one is shown (start of the message, after a colon
# or a prompt character), not in prose such as "Restart vllm serve with --enable-scale-out"
_SERVE_IN_LOG_RE = re.compile(r"(?:^|[:$#]\s*|\bexec\b.*\s)(?:\S*/)?vllm\s+serve\s+(?!with\b)\S")
"""The definition :func:`_serve_in_log` answers for, in linear time (searched as is, it tries every ``:`` and
``exec`` of a line against the rest of it: quadratic)."""
_SERVE_WORDS_RE = re.compile(r"vllm\s++serve\s++(?!with\b)\S")
_EXEC_WORD_RE = re.compile(r"\bexec\b")


def _serve_in_log(msg: str) -> bool:
    """Whether ``_SERVE_IN_LOG_RE.search(msg)`` would match: ``vllm serve X`` (X not ``with``), maybe behind a
    path (``/usr/bin/``), at the start of the message, after ``:``/``$``/``#`` and blanks, or after a blank
    that follows the word ``exec``."""
    if "vllm" not in msg:  # the word first: most messages have none, and every match holds it
        return False
    if "\n" in msg:  # ``.`` stops at a newline; messages are single lines, so this is never hot
        return bool(_SERVE_IN_LOG_RE.search(msg))
    exec_word = _EXEC_WORD_RE.search(msg)
    exec_end = exec_word.end() if exec_word else None

    def shown_at(q: int) -> bool:  # does a command context end at q (where the path, or vllm, starts)?
        if q == 0:
            return True
        before = msg[q - 1]
        if before in ":$#":
            return True
        if not before.isspace():
            return False
        if exec_end is not None and exec_end <= q - 1:
            return True
        j = q - 1
        while j >= 0 and msg[j].isspace():
            j -= 1
        return j >= 0 and msg[j] in ":$#"

    pos = 0
    while True:
        m = _SERVE_WORDS_RE.search(msg, pos)
        if m is None:
            return False
        v = m.start()
        if shown_at(v):
            return True
        if v > 0 and msg[v - 1] == "/":  # behind a path: it may start anywhere in the word ending at v
            r = v - 1
            while r > 0 and not msg[r - 1].isspace():
                r -= 1
            word = msg[r:v - 1]  # the characters before each later start of the path
            if shown_at(r) or ":" in word or "$" in word or "#" in word:
                return True
        pos = v + 1
_API_SERVER_CMD_RE = re.compile(r"-m\s+vllm\.entrypoints\.openai\.api_server\s+(?P<rest>.*)$")


# --------------------------------------------------------------------------- python literals

MAX_ARGS_CHARS = 262_144
"""The most characters (256 Ki) of a logged ``non-default args: {...}`` / ``Namespace(...)`` read (one is a few KB;
the reader steps through it character by character in Python). A longer one reads as cut off."""


def parse_python_mapping(text: str, opener: str = "{") -> tuple[dict[str, Any], bool]:
    """Read a printed Python dict (``{'a': 1, ...}``) or ``Namespace(a=1, ...)`` body leniently.

    ``text`` starts at the opening ``{`` (or just after ``Namespace(`` with ``opener="("``).
    Each top-level item is read with ``ast.literal_eval`` (never ``eval``); a value that is not a
    literal (``<CompilationMode.X: 2>``, ``CompilationConfig(...)``) is kept as its source text.
    A text cut off before the closing bracket gives the complete items read so far and
    ``truncated=True``. Returns ``(mapping, truncated)``. Never raises.
    """
    body = text[1:] if opener == "{" and text.startswith("{") else text
    closer = "}" if opener == "{" else ")"
    items: list[str] = []
    depth, quote, escaped, start = 0, "", False, 0
    end = None
    for i, ch in enumerate(body):
        if quote:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == quote:
                quote = ""
            continue
        if ch in "'\"":
            quote = ch
        elif ch in "([{<":
            depth += 1
        elif ch in ")]}>" and depth > 0:
            depth -= 1
        elif ch == closer and depth == 0:
            end = i
            break
        elif ch == "," and depth == 0:
            items.append(body[start:i])
            start = i + 1
    truncated = end is None
    if not truncated:
        items.append(body[start:end])
    out: dict[str, Any] = {}
    sep = ":" if opener == "{" else "="
    for item in items:
        item = item.strip()
        if not item:
            continue
        key, value = _split_item(item, sep)
        if key is None:
            continue
        out[key] = _literal(value)
    return out, truncated


def _split_item(item: str, sep: str) -> tuple[str | None, str]:
    if sep == ":":
        m = re.match(r"""^(?P<q>['"])(?P<k>.*?)(?P=q)\s*:\s*(?P<v>.*)$""", item, re.S)
        if not m:
            return None, ""
        return m.group("k"), m.group("v")
    m = re.match(r"^(?P<k>[A-Za-z_]\w*)\s*=\s*(?P<v>.*)$", item, re.S)
    return (m.group("k"), m.group("v")) if m else (None, "")


def _literal(value: str) -> Any:
    value = value.strip()
    try:
        return ast.literal_eval(value)
    except (ValueError, SyntaxError, MemoryError, RecursionError, TypeError):
        return value


_CONFIG_FIELD_RE = re.compile(r"(?:^|,\s*)(?P<k>[a-z_]+)=(?P<v>'(?:[^'\\]|\\.)*'|[^,]*)")


def _config_fields(cfg: str) -> dict[str, Any]:
    """The simple ``key=value`` fields of an engine config line (nested ones are skipped)."""
    out: dict[str, Any] = {}
    end = len(cfg.rstrip())
    for m in _CONFIG_FIELD_RE.finditer(cfg):
        if m.end() >= end:  # the last field may be cut off mid-value (pasted lines are cut): skip it
            break
        key, raw = m.group("k"), m.group("v").strip()
        if key in out:
            continue
        out[key] = _literal(raw) if raw[:1] == "'" or re.fullmatch(r"-?\d+(?:\.\d+)?|True|False|None", raw) else raw
    return out


# --------------------------------------------------------------------------- command lines

_FLAG_ALIASES = {"-tp": "tensor_parallel_size", "-pp": "pipeline_parallel_size", "-dp": "data_parallel_size",
                 "-dpl": "data_parallel_size_local", "-ep": "enable_expert_parallel", "-q": "quantization"}
_BOOL_FLAGS = {"headless", "enable_expert_parallel", "enforce_eager", "trust_remote_code",
               "enable_auto_tool_choice", "enable_prefix_caching", "disable_log_requests"}


def parse_serve_command(command: str) -> dict[str, str]:
    """The options of a ``vllm serve MODEL --flag value ...`` command line, keys as vLLM's
    argument names (``--tensor-parallel-size 2`` and ``-tp 2`` -> ``tensor_parallel_size: "2"``),
    values as text; the model under ``model``. Boolean flags give ``"True"``. Never raises."""
    m = _SERVE_CMD_RE.search(command) or _API_SERVER_CMD_RE.search(command)
    if not m:
        return {}
    try:
        tokens = shlex.split(m.group("rest"), comments=False)
    except ValueError:
        tokens = m.group("rest").split()
    out: dict[str, str] = {}
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if tok in ("|", "&&", ";", "||", ">", "2>&1", "&"):
            break
        if tok.startswith("-"):
            name, eq, value = tok.partition("=")
            key = _FLAG_ALIASES.get(name, name.lstrip("-").replace("-", "_"))
            if eq:
                out[key] = value
            elif key in _BOOL_FLAGS or i + 1 >= len(tokens) or tokens[i + 1].startswith("--"):
                out[key] = "True"
            else:
                out[key] = tokens[i + 1]
                i += 1
        elif "model" not in out:
            out["model"] = tok
        i += 1
    return out


def _as_int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    try:
        return int(str(value).replace(",", ""))
    except (TypeError, ValueError):
        return None


def _as_float(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def _as_bool(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in ("true", "false"):
        return value.lower() == "true"
    return None
