"""Redaction, pass 3: free text, and which names are secret (:func:`is_secret_name`,
:func:`is_secret_yaml_key`); see :mod:`grader.redact`, which runs the passes and re-exports these names."""

from __future__ import annotations

import functools
import re
from typing import Any


from grader.redact_keys import _line_end

REDACTED = "[redacted]"
"""What a secret value becomes in free text."""

# --------------------------------------------------------------------------- names

_SECRET_PARTS = ("SECRET", "PASSWORD", "PASSWD", "PASSPHRASE", "APIKEY", "PSK", "PRIVATEKEY")
_SECRET_INSIDE = ("PASSWORD", "PASSWD", "PASSPHRASE")
"""A part containing one of these is a secret's (DBPASSWORD, wpa_passphrase)."""
_NOT_SECRET_TOKENS = {"BOS", "EOS", "PAD", "UNK", "SEP", "CLS", "MASK", "SPECIAL", "ADDED", "START", "END",
                      "FIRST", "LAST", "NEXT", "PER", "OUTPUT", "INPUT", "PROMPT", "NUM", "MAX", "MIN", "TOTAL",
                      "GENERATED", "DECODE", "PREFILL", "IMAGE", "VIDEO", "AUDIO"}
"""Words before a final TOKEN that make it a tokenizer's token or a figure (eos_token, time_to_first_token)."""
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")


def is_secret_name(name: str) -> bool:
    """Whether a variable, option or key named ``name`` holds a secret (free text).

    Split into parts at ``_``, ``-``, ``.`` and camelCase humps: a part SECRET, PASSWORD, PASSWD,
    PASSPHRASE, APIKEY or PSK (API_KEY and PRIVATE_KEY count as APIKEY and PRIVATEKEY), a part that
    contains PASSWORD/PASSWD/PASSPHRASE or ends in SECRET, or a last part TOKEN not after a tokenizer's
    or a metric's word. HF_TOKEN, token, auth-token, AWS_SECRET_ACCESS_KEY, clientSecret,
    client-key-password, api_key, --api-key, apiKey, wifi-security.psk; not total_token_throughput,
    max_num_batched_tokens, token_budgets, eos_token, time_to_first_token.
    """
    parts = [p for p in re.split(r"[_.\-]+", _CAMEL.sub("_", name).upper()) if p]
    if not parts:
        return False
    if parts[-1] == "TOKEN":
        return len(parts) < 2 or parts[-2] not in _NOT_SECRET_TOKENS
    pairs = [parts[i] + parts[i + 1] for i in range(len(parts) - 1)]
    return (any(p in _SECRET_PARTS for p in parts + pairs) or any(p.endswith("SECRET") for p in parts)
            or any(s in p for p in parts for s in _SECRET_INSIDE))


_YAML_SECRET_WORDS = ("password", "passwd", "passphrase", "secret", "token", "psk", "private-key", "private_key",
                      "privatekey", "api-key", "api_key", "apikey", "wep-key", "wep_key")


def is_secret_yaml_key(key: str, path: tuple[str, ...] = ()) -> bool:
    """Whether a netplan key holds a secret. ``path``: the keys above it, outermost first.

    Any key whose name contains password, passwd, passphrase, secret, token, psk, private-key,
    api-key or wep-key (netplan's ``password`` for Wi-Fi and ``auth``, ``client-key-password``,
    ``private-key-password``, NetworkManager passthrough ``wifi-security.psk``, ``802-1x.password``,
    ``wifi-security.wep-key0``, ``wireguard.private-key``...), a ``pin`` (modems), and WireGuard's
    ``private``/``shared`` under ``key``/``keys`` and a tunnel's ``key``. Sources: netplan's YAML
    reference (netplan.readthedocs.io, "Properties for device type wifis/tunnels/modems"; the
    ``auth`` block) and NetworkManager's settings (nm-settings-nmcli: wifi-sec.psk, 802-1x.password).
    """
    k = key.strip().lower()
    if any(w in k for w in _YAML_SECRET_WORDS):
        return True
    if "pin" in re.split(r"[-_.]", k):
        return True
    parent = path[-1].lower() if path else ""
    if k in ("private", "shared") and parent in ("key", "keys"):
        return True
    return k == "key" and len(path) >= 2 and path[-2].lower() == "tunnels"


# --------------------------------------------------------------------------- free text

_PATTERNS = [  # each starts with a literal (a fast scan), or is tried only when its word is there
    (None, re.compile(r"hf_(?<!\whf_)[A-Za-z0-9]{20,}+\b"), "hf_[redacted]"),
    ((b"bearer", b"basic"), re.compile(r"(?i)\b(Bearer|Basic)[ \t]++(?!\[redacted\])[A-Za-z0-9._~+/=-]{8,}+"),
     r"\1 [redacted]"),
    (None, re.compile(r"(://[^/\s:@]++:)(?!\[redacted\])[^@\s/]++@"), r"\1[redacted]@"),
    (None, re.compile(r"""(sshpass(?<!\wsshpass)[ \t]++-p[ \t]*+)(?!\[redacted\])("[^"\n]*+"|'[^'\n]*+'|\S++)"""),
     r"\1[redacted]"),
    # NGC API keys (docker login nvcr.io -p nvapi-...), GitHub tokens (also a URL's user: https://ghp_...@github.com),
    # OpenAI-style keys (sk-..., sk-proj-...), and docker login's password option
    (None, re.compile(r"nvapi-(?<!\wnvapi-)[A-Za-z0-9_-]{20,}+"), "nvapi-[redacted]"),
    (None, re.compile(r"gh[pousr]_(?<!\wgh[pousr]_)[A-Za-z0-9]{30,}+|github_pat_[A-Za-z0-9_]{20,}+"), "[redacted]"),
    (None, re.compile(r"sk-(?<!\wsk-)(?:proj-)?[A-Za-z0-9_-]{20,}+"), "sk-[redacted]"),
    (None, re.compile(r"((?:docker|podman)[ \t]++login\b[^\n]{0,300}?[ \t](?:-p|--password)[ \t=]++)(?!\[redacted\])"
                      r"(\S++)"), r"\1[redacted]"),
]

# On the text lowercased (ASCII, one byte per character, so positions agree): a secret-ish word,
# the rest of its name, an optional closing quote (also \" in JSON inside a string), then `=` or
# `:`; or a long option followed by blanks (--api-key sk-...). Names are bounded (64) and every
# quantifier possessive, so no input makes the search backtrack.
_CANDIDATE = re.compile(
    rb"""(?:passw|passp|secret|token|api[_-]?key|psk|private[_-]?key)[a-z0-9_.-]{0,64}+"""
    rb"""(?P<q>\\*+["'])?+(?P<sep>[ \t]*+[=:][ \t]*+)""")
_OPTION = re.compile(rb"""--(?<![a-z0-9_-]--)(?=[a-z0-9_.-]{0,63}?(?:passw|passp|secret|token|api[_-]?key|psk|private[_-]?key))"""
                     rb"""(?P<opt>[a-z][a-z0-9_.-]{0,63}+)[ \t]++""")
"""Two searches, not one alternation: each alone is a fast scan (sre skips by first character)."""
_NAME_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-"
_LINE_PREFIX = re.compile(r"""[ \t]*+(?:#[ \t]*+)?(?:-[ \t]++)*+(?:(?:export|declare[ \t]++-x|setenv|set)[ \t]++)?"""
                          r"""(\\*+["'])?""")
_ALREADY = re.compile(r"""\[redacted\]|\[private key redacted by clusterlab\]|(\\*+)(["'])\[redacted\]\1\2""")
_BLOCK_HEADER = re.compile(r"[|>][-+0-9]{0,2}+[ \t]*+(?:#[^\n]*+)?")
_UNQUOTED = re.compile(r"(?:[^\s,;}\[\]]++|\[[^\s\[\]]*+\])++")
"""An unquoted value mid-line: up to a blank, ``,``, ``;``, ``}`` or ``]`` (``hf_[redacted]`` is one value)."""
_WORD = re.compile(r"[^\s,;]++")
_VALUE_ENDS = frozenset(" \t\r\n,;})]")
_UNTIL = {'"': re.compile(r'[^"\n]*+'), "'": re.compile(r"[^'\n]*+")}
_QUOTED = {'"': re.compile(r'"(?:[^"\\\n]++|\\.)*+(")?'), "'": re.compile(r"'(?:[^'\\\n]++|\\.|'')*+(')?")}
"""A quoted value on one line: backslash escapes (JSON, Python) and YAML's ``''``; group 1: the closing quote."""
_BRACKET_STOP = re.compile(r"""[^\[\]{}"'\n]*+""")
_OPENS, _CLOSES = re.compile(r"[\[{]++"), re.compile(r"[\]}]++")
_INDENT = re.compile(r"[ \t]*+")
_EMPTY = ('""', "''", "[]", "{}")
"""Values with nothing to hide: left as they are."""


def _quoted_end(text: str, v: int) -> tuple[int, bool]:
    """(end, closed) of the quoted value at ``v``: ``"..."``/``'...'``, or ``\\"...\\"`` (k backslashes:
    JSON inside a string). It ends at a quote after r backslashes with r = k mod 2k+2 (so ``\\"`` in a
    JSON string, ``\\\\\\"`` in a doubly escaped one, and YAML's ``''`` do not end it); unclosed: the line's end."""
    if text[v] != "\\":
        m = _QUOTED[text[v]].match(text, v)
        return m.end(), m.group(1) is not None
    k = 0
    while text[v + k] == "\\":
        k += 1
    q, i, n, mod = text[v + k], v + k + 1, len(text), 2 * k + 2
    while True:
        j = _UNTIL[q].match(text, i).end()
        if j >= n or text[j] == "\n":
            return j, False
        r, b = 0, j - 1
        while b >= i and text[b] == "\\":
            r, b = r + 1, b - 1
        if r % mod == k % mod:
            if q == "'" and k == 0 and text.startswith("'", j + 1):  # YAML's '' is a quote inside
                i = j + 2
                continue
            return j + 1, True
        i = j + 1


def _bracket_end(text: str, v: int) -> tuple[int, bool]:
    """(end, closed) of the ``[...]`` or ``{...}`` at ``v`` (nested, quotes honoured); unclosed: the line's end."""
    depth, i, n = 0, v, len(text)
    while i < n:
        c = text[i]
        if c in "[{":
            run = _OPENS.match(text, i).end()
            depth, i = depth + run - i, run
        elif c in "]}":
            run = _CLOSES.match(text, i).end()
            if run - i >= depth:
                return i + depth, True
            depth, i = depth - (run - i), run
        elif c in "\"'":
            i, closed = _quoted_end(text, i)
            if not closed:
                return i, False
        elif c == "\n":
            return i, False
        else:
            i = _BRACKET_STOP.match(text, i).end()
    return n, False


def _continuation_end(text: str, eol: int, col: int) -> int:
    """End of the lines after the line ending at ``eol`` that are indented deeper than ``col`` (blank
    lines between them included): a YAML value's block or continuation. ``eol`` if there are none."""
    end, i, n = eol, eol, len(text)
    if eol + 1 < n and text[eol + 1] not in " \t\r\n":
        return eol  # the next line starts at column 0: not deeper than any name
    while i < n:
        s = i + 1
        e = _line_end(text, s)
        line = text[s:e]
        if line.strip():
            if _INDENT.match(line).end() <= col:
                break
            end = e
        i = e
    return end


def _value_span(text: str, v: int, line_col: int | None, bare_name: bool, eq: bool = False) -> tuple[int, int] | None:
    """The span of the value starting at ``v`` (after a secret name and its separator), or None when
    there is nothing to redact. ``line_col``: the name's column when it starts its line (else None);
    ``bare_name``: the name is not quoted (YAML, an environment; not JSON); ``eq``: the separator was
    ``=`` (an environment's ``NAME=value`` runs to the end of its line unless a ``,``/``;`` ends the
    first word, as in ``HF_TOKEN=x, token=y``; a YAML ``name: value`` always does)."""
    n = len(text)
    c = text[v] if v < n else "\n"
    closed = True
    if c in "\"'\\":
        if c == "\\" and not re.match(r"\\++[\"']", text[v:v + 16]):
            end = _UNQUOTED.match(text, v).end()
        else:
            end, closed = _quoted_end(text, v)
    elif c in "[{":
        end, closed = _bracket_end(text, v)
    elif c in "\r\n":
        if line_col is None:
            return None
        end, closed = v, False
    elif line_col is not None and c in "|>" and (h := _BLOCK_HEADER.match(text, v)) and \
            (h.end() == n or text[h.end()] in "\r\n"):
        end, closed = h.end(), False
    elif line_col is not None and bare_name and not (
            eq and (t := _WORD.match(text, v).end()) < n and text[t] in ",;"):
        end, closed = _line_end(text, v), False
    else:
        m = _UNQUOTED.match(text, v)
        end = v if m is None else m.end()
    if closed and end < n and text[end] not in _VALUE_ENDS and (g := _UNQUOTED.match(text, end)):
        end = g.end()  # `"x"y` is one shell word; `[redacted]JsonTail"` (an old partial redaction) one value
    if closed and line_col is not None and bare_name and not eq:
        # YAML-ish: `password: [redacted] s3cond half` is all value, and so are deeper lines below it
        end, closed = (_line_end(text, end) if _junk_after(text, end) else end), False
    if not closed and line_col is not None:
        end = max(end, _continuation_end(text, _line_end(text, end), line_col))
    while end > v and text[end - 1] in " \t\r":
        end -= 1
    if end <= v or _ALREADY.fullmatch(text, v, end) or text[v:end] in _EMPTY:
        return None
    return v, end


def _junk_after(text: str, end: int) -> bool:
    """Whether something other than blanks or a ``#`` comment follows ``end`` on its line."""
    rest = text[end:_line_end(text, end)].strip()
    return bool(rest) and not rest.startswith("#")


def _line_col(text: str, start: int) -> tuple[int | None, bool]:
    """(the column of the name starting at ``start`` if only a line prefix (indent, ``#``, ``- ``,
    ``export``, an opening quote) stands before it on its line, else None; whether it is unquoted)."""
    lo = max(0, start - 200)
    nl = text.rfind("\n", lo, start)
    if nl < 0 and lo > 0:
        return None, True
    ls = nl + 1
    m = _LINE_PREFIX.fullmatch(text, ls, start)
    if m is None:
        return None, True
    return start - ls, m.group(1) is None


class _NoMatch:
    def start(self) -> int:
        return 1 << 62


_NONE: Any = _NoMatch()


def _ascii_lower(text: str) -> bytes:
    """``text`` lowercased as ASCII bytes, one byte per character (others become ``?``)."""
    return text.encode("ascii", "replace").lower()


def _redact_named(text: str) -> str:
    low = _ascii_lower(text)
    out, pos, i = [], 0, 0
    # the next hit of each search; None: used, search again from i; _NONE: there are no more
    mc, mo = _CANDIDATE.search(low) or _NONE, _OPTION.search(low) or _NONE
    while mc is not _NONE or mo is not _NONE:
        if mo is not _NONE and (mc is _NONE or mo.start() < mc.start()):
            m, mo = mo, None
            start, name_end, quote, eq = m.start("opt"), m.end("opt"), False, False
        else:
            m, mc = mc, None
            name_end = m.start("q") if m.group("q") else m.start("sep")
            lo = max(pos, m.start() - 64)
            start = lo + len(text[lo:m.start()].rstrip(_NAME_CHARS))
            quote, eq = m.group("q") is not None, b"=" in m.group("sep")
        v, i = m.end(), name_end
        if _secret_name(text[start:name_end].lstrip("0123456789_.-")):
            col, unquoted = (None, True) if m.re is _OPTION else _line_col(text, start)
            span = _value_span(text, v, col, unquoted and not quote, eq)
            if span is not None:
                out += [text[pos:span[0]], REDACTED]
                pos = i = span[1]
        if mc is None or (mc is not _NONE and mc.start() < i):
            mc = _CANDIDATE.search(low, i) or _NONE
        if mo is None or (mo is not _NONE and mo.start() < i):
            mo = _OPTION.search(low, i) or _NONE
    return "".join(out) + text[pos:] if out else text


@functools.lru_cache(maxsize=4096)
def _secret_name(name: str) -> bool:
    return bool(name) and is_secret_name(name)


def redact_text(text: str) -> str:
    """Free text: Hugging Face tokens, Bearer/Basic credentials, URL passwords, ``sshpass -p``, then
    values by variable name (see the module docstring). Private keys are :func:`redact_private_keys`'s."""
    low = None
    for words, pattern, repl in _PATTERNS:
        if words is not None:
            low = _ascii_lower(text) if low is None else low
            if not any(w in low for w in words):
                continue
        new = pattern.sub(repl, text)
        if new is not text and new != text:
            text, low = new, None
    return _redact_named(text)
