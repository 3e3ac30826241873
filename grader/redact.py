"""Redaction: what must never reach evidence, and how it is found.

Every raw output (stdout and stderr of every probe) goes through :func:`redact` before it is
hashed, saved, graded or printed (grader.evidence.RawOutput), and again when an evidence file is
read back (so the sha256 check compares like with like). Three passes, structure first:

1. **Private keys**, whole: PEM blocks (``-----BEGIN ... PRIVATE KEY-----``, ``BEGIN OPENSSH
   PRIVATE KEY``, ``BEGIN ENCRYPTED PRIVATE KEY``, ``BEGIN PGP PRIVATE KEY BLOCK``, ssh.com's
   ``---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----``) from BEGIN to END (to the end of the text when
   the END is missing), and PuTTY key files (``PuTTY-User-Key-File-N:`` through ``Private-MAC:`` or
   ``Private-Hash:``; a ``Private-Lines: N`` line and its N lines wherever they stand). The logs
   are read with ``tail -c 4000000``, so a window can start inside a key: an END line (or a PuTTY
   ``Private-MAC:``) with no BEGIN before it takes everything from the start of the text (or the
   previous key) to it, whatever it looks like. Each becomes
   ``[private key redacted by clusterlab]``.
2. **Netplan YAML by structure**: in the ``netplan`` probe's listing (``=== <mode> <owner:group>
   <path>`` then the file's text, grader.probes.lesson1.NETPLAN_LISTING) each file is parsed as
   YAML (composed only: aliases are never expanded, so an alias bomb costs nothing); the values of
   secret keys (:func:`is_secret_yaml_key`: ``password``, ``psk``, ``auth`` passwords,
   ``client-key-password``, ``private-key-password``, NetworkManager passthrough ``*.psk`` /
   ``*.password`` / ``wep-key0``, WireGuard ``key`` / ``keys: {private, shared}``, modem ``pin``...)
   and any other scalar the free-text pass would change become the string ``"[redacted]"``, spliced
   into the original text in place (comments, layout and every other value kept; comments get the
   free-text pass). The result is parsed again and must have the same structure, so
   grader.parsers.netplan reads the same addresses as before redaction (L1.netplan on a correct
   file with a Wi-Fi password still passes); failing that the redacted tree is re-emitted by the
   YAML serializer, and a file that does not parse at all is redacted line by line
   (:func:`redact_yaml_lines`: block scalars, quoted values with escapes, multi-line values).
3. **Free text** (:func:`redact_text`): Hugging Face tokens anywhere (``hf_...``), ``Bearer`` /
   ``Basic`` credentials, ``scheme://user:pass@``, ``sshpass -p``, and values by variable name
   (:func:`is_secret_name`) in every form the grader meets: ``NAME=value`` (environments),
   ``name: value`` (YAML-ish, logs), ``"name": "value"`` (JSON, also JSON inside a JSON string,
   ``\\"name\\": \\"value\\"``), ``'name': ['value']`` (vLLM's "non-default args", a Python dict),
   ``--name value`` / ``--name=value`` (command lines). Quoted values end at their real closing
   quote (backslash escapes and YAML's ``''`` honoured; an unclosed quote runs to the end of the
   line); a name that starts its line takes its unquoted value to the end of the line (a password
   may contain spaces) and the indented lines below it (YAML block scalars ``|``/``>-`` and
   continuation lines). Each becomes ``[redacted]``.

Why not patterns alone: issue 12 found a netplan password with spaces becoming
``password: [redacted] s3cond half``, block scalars and ``''`` leaking, a JSON ``\\"`` cutting a
value short, keys leaking when the window started inside them, PuTTY's ``Private-Lines`` kept, and
pattern redaction turning valid netplan into invalid YAML (L1.netplan failed a correct setup).
Reproducers: ../shared/fixtures/adversarial/C/ (secrets.json, secrets-leak-excerpts.txt).

Guarantees: **idempotent** (``redact(redact(t)) == redact(t)``: an already ``[redacted]`` value is
left alone, which load_evidence relies on), and **linear time** (no regex that can backtrack over
a long line: possessive quantifiers, bounded name lengths, literal-led searches, every scan
consumes what it reads): a 4 MB log, one line or many, in about 0.1 s of CPU; 4 MB of nothing but
secret assignments (crafted) in under 2 s. Over-redaction is preferred to a leak, but nothing a
check reads is a secret's value, so redaction never changes a verdict.
"""

from __future__ import annotations

import bisect
import functools
import re
from typing import Any

import yaml

REDACTED = "[redacted]"
"""What a secret value becomes in free text."""
YAML_REDACTED = '"[redacted]"'
"""What a secret value becomes in YAML: the string "[redacted]" (quoted, so the file stays valid YAML)."""
KEY_REDACTED = "[private key redacted by clusterlab]"
"""What a private key (PEM or PuTTY) becomes."""

MAX_YAML_CHARS = 256_000
"""A netplan file larger than this is redacted line by line, not parsed (real ones are under 10 kB)."""

# --------------------------------------------------------------------------- private keys

_PEM = re.compile(r"-{4,5} ?(BEGIN|END) [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)? ?-{4,5}")
_PUTTY = re.compile(r"(PuTTY-User-Key-File-\d{1,3}:)|(Private-Lines:[ \t]*+(\d{1,9}))|(Private-(?:MAC|Hash):)")
_KEY_LITERALS = ("PRIVATE KEY", "PuTTY-User-Key-File-", "Private-")
"""Every key marker holds one of these: they are found with str.find (fast), then checked in place."""
_PUTTY_LINE = re.compile(r"[A-Za-z][A-Za-z0-9-]{0,40}:[^\n]*+|[A-Za-z0-9+/=]++")
_B64_LINE = re.compile(r"[ \t]*+[A-Za-z0-9+/=]++[ \t\r]*+")
_REST_OF_LINE = re.compile(r"[^\n]*+")


def _key_mark(text: str, lit: str, q: int, lo: int) -> re.Match[str] | None:
    """The key marker holding the literal ``lit`` found at ``q`` (starting at or after ``lo``), or None."""
    if lit == "PRIVATE KEY":
        m = _PEM.search(text, max(lo, q - 60), q + 40)
        return m if m is not None and m.start() <= q < m.end() else None
    return _PUTTY.match(text, q)


class _Marks:
    """The key markers of a text in order: each literal's next occurrence is kept, so the whole text
    is searched once per literal however often it is asked."""

    def __init__(self, text: str, literals: tuple[str, ...] = _KEY_LITERALS) -> None:
        self.text, self.next = text, {lit: text.find(lit) for lit in literals}

    def find(self, pos: int) -> re.Match[str] | None:
        text = self.text
        while True:
            live = [(q, lit) for lit, q in self.next.items() if q >= 0]
            if not live:
                return None
            for q, lit in live:  # occurrences a redaction jumped over: look again from pos
                if q < pos and (lit != "PRIVATE KEY" or q + 60 < pos):
                    self.next[lit] = text.find(lit, pos)
            live = sorted((q, lit) for lit, q in self.next.items() if q >= 0)
            if not live:
                return None
            q, lit = live[0]
            m = _key_mark(text, lit, q, pos)
            self.next[lit] = text.find(lit, q + 1)
            if m is not None and m.start() >= pos:
                return m


def _line_end(text: str, i: int) -> int:
    """Index of the newline ending the line that holds ``i`` (or len(text)); linear in the distance."""
    return _REST_OF_LINE.match(text, i).end()


def _after_lines(text: str, i: int, count: int, line: re.Pattern[str]) -> int:
    """End of the last of up to ``count`` lines after position ``i``'s line that fully match ``line``."""
    end = _line_end(text, i)
    for _ in range(count):
        if end >= len(text):
            break
        nxt = _line_end(text, end + 1)
        if not line.fullmatch(text, end + 1, nxt):
            break
        end = nxt
    return end


def redact_private_keys(text: str) -> str:
    """``text`` with every PEM or PuTTY private key replaced by :data:`KEY_REDACTED` (see the module
    docstring). An END line (or a PuTTY ``Private-MAC:``) whose BEGIN is not in the text takes
    everything since the previous key, or the start of the text, with it: the window began inside a
    key (``tail -c``), and nothing says where the key began."""
    if not any(lit in text for lit in _KEY_LITERALS):
        return text
    marks, ends = _Marks(text), _Marks(text, ("PRIVATE KEY",))
    out, pos = [], 0
    while (m := marks.find(pos)) is not None:
        start, end = m.start(), m.end()
        if m.re is _PEM and m.group(1) == "BEGIN":
            while (e := ends.find(end)) is not None and e.group(1) != "END":
                pass
            end = len(text) if e is None else e.end()
        elif m.re is _PEM or m.group(4):
            # an END (or a PuTTY MAC) whose BEGIN is not in the text: the window started inside the
            # key, or the BEGIN was cut; all since the last key (or the start) may be key material
            if m.re is not _PEM:
                end = _line_end(text, end)
            start = pos
        elif m.group(1):  # PuTTY: the header, then `Key: value` and base64 lines, through Private-MAC
            end = _line_end(text, end)
            while end < len(text):
                nxt = _line_end(text, end + 1)
                ln = text[end + 1:nxt].rstrip("\r")
                if not ln or not _PUTTY_LINE.fullmatch(ln):
                    break
                end = nxt
                if ln.startswith(("Private-MAC:", "Private-Hash:")):
                    break
        else:  # Private-Lines: N outside a PuTTY header we saw (the window cut it): those N lines
            end = _after_lines(text, start, int(m.group(3)), _B64_LINE)
            if end < len(text) and text.startswith(("Private-MAC:", "Private-Hash:"), end + 1):
                end = _line_end(text, end + 1)
        out += [text[pos:start], KEY_REDACTED]
        pos = end
        if end == len(text):
            break
    return "".join(out) + text[pos:] if out else text


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


# --------------------------------------------------------------------------- YAML

_YAML_KEY_LINE = re.compile(
    r"""(?P<ind>[ \t]*+)(?P<dash>(?:-[ \t]++)*+)"""
    r"""(?P<key>"(?:[^"\\\n]++|\\.)*+"|'(?:[^'\n]++|'')*+'|[^\s#'"{}\[\],&*!|>%@`?:][^:#\n]{0,200}?)"""
    r"""[ \t]*+:(?=[ \t]|$)[ \t]*+""", re.M)


def _yaml_key_text(key: str) -> str:
    if key[:1] == '"':
        return key[1:-1].replace('\\"', '"')
    if key[:1] == "'":
        return key[1:-1].replace("''", "'")
    return key.strip()


def redact_yaml_lines(text: str) -> str:
    """A YAML text that does not parse, redacted line by line: each ``key: value`` line whose key is a
    secret's (:func:`is_secret_yaml_key`, with the keys above it by indentation) gets ``"[redacted]"``
    for its value: a plain value to the end of the line, a quoted one to its closing quote (escapes
    honoured), a block scalar (``|``, ``>-``) or a value continued on deeper-indented lines with those
    lines. Then the free-text pass."""
    out, pos, i = [], 0, 0
    stack: list[tuple[int, str]] = []
    n = len(text)
    while i <= n:
        e = _line_end(text, i)
        m = _YAML_KEY_LINE.match(text, i, e)
        if m is None or not m.group("key").strip():
            i = e + 1
            continue
        col = m.end("dash") - i
        key = _yaml_key_text(m.group("key"))
        while stack and stack[-1][0] >= col:
            stack.pop()
        path = tuple(k for _, k in stack)
        stack.append((col, key))
        v, nxt = m.end(), e + 1
        if is_secret_yaml_key(key, path):
            span = _yaml_value_span(text, v, e, col)
            if span is not None:
                out += [text[pos:span[0]], YAML_REDACTED]
                pos = span[1]
                nxt = _line_end(text, span[1]) + 1
        i = nxt
    return redact_text("".join(out) + text[pos:] if out else text)


def _yaml_value_span(text: str, v: int, eol: int, col: int) -> tuple[int, int] | None:
    c = text[v] if v < eol else ""
    if c == "#":
        c = ""
    closed, end = False, eol
    if c in ("'", '"'):
        end, closed = _quoted_end(text, v)
    elif c in ("[", "{"):
        end, closed = _bracket_end(text, v)
    if closed and _junk_after(text, end):
        end = eol
    end = max(end, _continuation_end(text, _line_end(text, end), col))  # deeper lines belong to it
    while end > v and text[end - 1] in " \t\r\n":
        end -= 1
    if end <= v or _ALREADY.fullmatch(text, v, end) or text[v:end] in _EMPTY:
        return None
    return v, end


def _span_text_is_redacted(text: str) -> bool:
    t = text.strip()
    return t in (REDACTED, YAML_REDACTED, "'[redacted]'", KEY_REDACTED) or t.strip("'\"") == REDACTED


def _walk_marks(root: yaml.Node, text: str) -> list[yaml.Node]:
    """The nodes to redact: every scalar under a secret key (keys kept; a value already redacted, even
    as ``[redacted]``, left alone) and every other scalar that the free-text pass would change. Each
    node once (aliases share nodes), without recursion."""
    marks: dict[int, yaml.Node] = {}
    seen: set[tuple[int, bool]] = set()
    todo: list[tuple[yaml.Node, tuple[str, ...], bool]] = [(root, (), False)]
    while todo:
        node, path, secret = todo.pop()
        if (id(node), secret) in seen:
            continue
        seen.add((id(node), secret))
        if secret and _span_text_is_redacted(text[node.start_mark.index:node.end_mark.index]):
            continue
        if isinstance(node, yaml.MappingNode):
            for k, v in node.value:
                kname = k.value if isinstance(k, yaml.ScalarNode) else ""
                if isinstance(k, yaml.ScalarNode) and not secret and redact_text(k.value) != k.value:
                    marks[id(k)] = k
                elif not isinstance(k, yaml.ScalarNode):
                    todo.append((k, path, secret))
                todo.append((v, path + (kname,), secret or is_secret_yaml_key(kname, path)))
        elif isinstance(node, yaml.SequenceNode):
            todo += [(item, path, secret) for item in node.value]
        elif isinstance(node, yaml.ScalarNode):
            if (secret and node.value.strip() and node.tag != "tag:yaml.org,2002:null") \
                    or redact_text(node.value) != node.value:
                marks[id(node)] = node
    return list(marks.values())


def _shape(roots: list[yaml.Node], marked: set[int]) -> list[Any]:
    """A comparable picture of composed documents (marked scalars as the string "[redacted]";
    a node met again as a reference, so aliases cost nothing)."""
    ids: dict[int, int] = {}
    out: list[Any] = []
    todo: list[yaml.Node] = list(reversed(roots))
    while todo:
        node = todo.pop()
        if id(node) in ids:
            out.append(("ref", ids[id(node)]))
            continue
        ids[id(node)] = len(ids)
        if isinstance(node, yaml.ScalarNode):
            out.append(("s", "tag:yaml.org,2002:str", REDACTED) if id(node) in marked else ("s", node.tag, node.value))
        elif isinstance(node, yaml.MappingNode):
            out.append(("m", node.tag, len(node.value)))
            todo += [x for kv in reversed(node.value) for x in reversed(kv)]
        else:
            out.append(("q", node.tag, len(node.value)))
            todo += list(reversed(node.value))
    return out


def _compose(text: str) -> list[yaml.Node]:
    return [d for d in yaml.compose_all(text, Loader=yaml.SafeLoader) if d is not None]


_ANCHOR_OR_TAG = re.compile(r"([&!][^\s]*+)[ \t\r\n]++")


def _splice_value(span: str) -> str:
    """A marked node's source text replaced: its anchor kept, its tag dropped, surrounding blanks kept."""
    core = span.rstrip()
    trail = span[len(core):]
    anchors, i = [], 0
    while (m := _ANCHOR_OR_TAG.match(core, i)) is not None:
        if m.group(1).startswith("&"):
            anchors.append(m.group(1) + " ")
        i = m.end()
    return "".join(anchors) + YAML_REDACTED + trail


def _comment_spans(text: str) -> list[tuple[int, int]]:
    """Where the comments are: ``#`` to the end of the line, outside every YAML token."""
    tokens = [(t.start_mark.index, t.end_mark.index) for t in yaml.scan(text, Loader=yaml.SafeLoader)
              if t.end_mark.index > t.start_mark.index]
    tokens.sort()
    starts = [s for s, _ in tokens]
    spans, i = [], 0
    while (h := text.find("#", i)) >= 0:
        k = bisect.bisect_right(starts, h) - 1
        if k >= 0 and tokens[k][1] > h:
            i = tokens[k][1]
            continue
        e = _line_end(text, h)
        spans.append((h, e))
        i = e
    return spans


def redact_yaml(text: str) -> str:
    """One YAML file (a netplan file) redacted by structure; see the module docstring.

    The result parses to the same documents, but with every secret key's value (and any scalar with a
    token, URL password... in it) the string "[redacted]": grader.parsers.netplan reads the same
    addresses. Not YAML (or over :data:`MAX_YAML_CHARS`): :func:`redact_yaml_lines`.
    """
    if len(text) > MAX_YAML_CHARS:
        return redact_yaml_lines(text)
    try:
        roots = _compose(text)
        marks = [] if not roots else [n for r in roots for n in _walk_marks(r, text)]
        marks = list({id(n): n for n in marks}.values())
        edits = []
        for node in marks:
            s, e = node.start_mark.index, node.end_mark.index
            if not _span_text_is_redacted(text[s:e]) and node.value not in (REDACTED,):
                edits.append((s, e, _splice_value(text[s:e])))
        for s, e in _comment_spans(text):
            red = redact_text(text[s:e])
            if red != text[s:e]:
                edits.append((s, e, red))
        if not edits:
            return text
        edits.sort()
        out, pos = [], 0
        for s, e, repl in edits:
            if s < pos:  # overlapping spans: cannot splice safely
                raise ValueError("overlapping edits")
            out += [text[pos:s], repl]
            pos = e
        spliced = "".join(out) + text[pos:]
        marked = {id(n) for n in marks}
        want = _shape(roots, marked)
        try:
            if _shape(_compose(spliced), set()) == want:
                return spliced
        except Exception:  # noqa: BLE001 - any failure: re-emit instead
            pass
        for node in marks:  # re-emit the redacted tree (comments are lost, structure kept)
            node.value, node.tag, node.style = REDACTED, "tag:yaml.org,2002:str", '"'
        emitted = yaml.serialize_all(roots, Dumper=yaml.SafeDumper)
        if _shape(_compose(emitted), set()) == want:
            return emitted
    except Exception:  # noqa: BLE001 - not YAML (or YAML this code cannot splice): line by line
        pass
    return redact_yaml_lines(text)


# --------------------------------------------------------------------------- listings and entry point

_LISTING_HEADER = re.compile(r"^=== \d{3,4} [^\s:]++:\S++ /\S*?\.ya?ml$", re.M)
"""A file header of the ``netplan`` probe (grader.probes.lesson1.NETPLAN_LISTING)."""


MAX_YAML_FILES = 64
"""Files of one listing parsed as YAML; any more (or more than :data:`MAX_YAML_CHARS` in all) are redacted
line by line, so a crafted listing cannot make the (pure Python) YAML parser the bottleneck."""


def _redact_listing(text: str, headers: list[re.Match[str]]) -> str:
    out = [redact_text(text[:headers[0].start()])]
    parsed, budget = 0, MAX_YAML_CHARS
    for k, h in enumerate(headers):
        body_start = min(h.end() + 1, len(text))
        body_end = headers[k + 1].start() - 1 if k + 1 < len(headers) else len(text)
        body_end = max(body_end, body_start)
        body = text[body_start:body_end]
        if body.strip() and body.strip() != "!!! unreadable" and (parsed >= MAX_YAML_FILES or len(body) > budget):
            out.append(redact_yaml_lines(text[h.start():]))  # the rest, headers and all, in one pass
            break
        out.append(text[h.start():body_start])
        if not body.strip() or body.strip() == "!!! unreadable":
            out.append(body)
        else:
            parsed, budget = parsed + 1, budget - len(body)
            out.append(redact_yaml(body))
        out.append(text[body_end:headers[k + 1].start()] if k + 1 < len(headers) else "")
    return "".join(out)


def redact(text: str) -> str:
    """``text`` with private keys, passwords, tokens and API keys removed (module docstring: what, how,
    why). A netplan listing is redacted by YAML structure, anything else as free text. Idempotent,
    linear time."""
    if not text:
        return text
    text = redact_private_keys(text)
    headers = list(_LISTING_HEADER.finditer(text)) if "=== " in text else []
    if headers:
        return _redact_listing(text, headers)
    return redact_text(text)
