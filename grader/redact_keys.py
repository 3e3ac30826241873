"""Redaction, pass 1: private keys, whole (PEM blocks and PuTTY key files; see :mod:`grader.redact`,
which runs the passes and re-exports these names)."""

from __future__ import annotations

import re


KEY_REDACTED = "[private key redacted by clusterlab]"
"""What a private key (PEM or PuTTY) becomes."""

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
