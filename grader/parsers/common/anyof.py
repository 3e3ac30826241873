"""Whether any of several regexes finds a match in a line, asked with a few searches instead of one per regex
(re-exported by ``grader.parsers.common``).

Python's ``re`` tries every alternative of ``^a|^b|c`` at every position of a line, while ``^(?:a|b)`` is tried at
the start only, and an alternation whose alternatives all start with a literal character is scanned for those
characters only: joining many patterns into one alternation as they are is often slower than searching them one by
one, joining them by the shape of their alternatives is faster. :func:`any_search` does that; :func:`literal_gate`
searches for the texts that any match must hold (``KV cache size: `` of ``KV cache size: (\\d+)``), which rules most
lines out with one cheap search.
"""

from __future__ import annotations

import functools
import re
from typing import Callable, Iterable

try:
    from re import _parser as _sre  # CPython's own reader of a pattern's text (private: without it, no gate)
except ImportError:  # pragma: no cover - Python 3.10
    import sre_parse as _sre  # type: ignore[no-redef]

_UNJOINABLE_RE = re.compile(r"\\[1-9]|\(\?P=|\(\?\(")  # back-references and conditionals name groups by number
_NAMED_GROUP_RE = re.compile(r"\(\?P<\w+>")
# an alternative whose first character is a literal one, not repeated: "Free memory", "\(pid", not "\bNCCL", "a*b"
_LITERAL_FIRST_RE = re.compile(r"(?:[^\\.^$*+?{}()\[\]|]|\\[^\w])(?![*+?{])")
_REPEATS = tuple(getattr(_sre, name) for name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT")
                 if hasattr(_sre, name))


def alternatives(pattern: str) -> list[str]:
    """The top-level alternatives of a regex's text, each with its named groups made plain ``(?:...)`` groups
    (a name may repeat across patterns joined into one): ``"^a(?P<x>b)|c"`` -> ``["^a(?:b)", "c"]``."""
    out: list[str] = []
    cur: list[str] = []
    depth, i, n = 0, 0, len(pattern)
    in_class = False
    while i < n:
        ch = pattern[i]
        if ch == "\\":
            cur.append(pattern[i:i + 2])
            i += 2
            continue
        if in_class:
            in_class = ch != "]"
        elif ch == "[":
            in_class = True
            j = i + 1 + (pattern.startswith("^", i + 1))
            if pattern.startswith("]", j):  # "[]x]" and "[^]x]": a "]" first is a member
                cur.append(pattern[i:j + 1])
                i = j + 1
                continue
        elif ch == "(":
            depth += 1
            m = _NAMED_GROUP_RE.match(pattern, i)
            if m:
                cur.append("(?:")
                i = m.end()
                continue
        elif ch == ")":
            depth -= 1
        elif ch == "|" and depth == 0:
            out.append("".join(cur))
            cur = []
            i += 1
            continue
        cur.append(ch)
        i += 1
    out.append("".join(cur))
    return out


class LazySearch:
    """``any_search([pattern])``, built when first called (a kind's line test: most pastes ask few kinds). Calling
    it is one attribute lookup more than calling the test itself; :meth:`once` asks without building it."""

    __slots__ = ("pattern", "search", "asked")

    def __init__(self, pattern: re.Pattern[str]) -> None:
        self.pattern: re.Pattern[str] = pattern
        self.search: Callable[[str], bool] = self._first
        self.asked = 0

    def once(self, text: str) -> bool:
        """The same answer, by the pattern's own search while it was asked so a few times only (a kind asked of a
        paste's first line, which another kind claims, is not built: compiling its test costs more than a search)."""
        if self.asked < ASK_BEFORE_BUILDING:
            self.asked += 1
            return self.pattern.search(text) is not None
        return self.search(text)

    def _first(self, text: str) -> bool:
        self.search = any_search([self.pattern])
        return self.search(text)

    def __call__(self, text: str) -> bool:
        return self.search(text)


ASK_BEFORE_BUILDING = 8
"""How many times :meth:`LazySearch.once` and :class:`LazyAnySearch` search with the patterns themselves before they
build the joined test."""


class LazyAnySearch:
    """``any_search(patterns)``, built at its ASK_BEFORE_BUILDING + 1-th call: the calls before are answered by the
    patterns' own searches (the same answers), as building it (compiling the patterns joined) costs more than a few of
    them, and a paste whose every line the kind around it claims asks it of one line or none."""

    __slots__ = ("patterns", "asked", "search")

    def __init__(self, patterns: Iterable[re.Pattern[str]]) -> None:
        self.patterns = tuple(patterns)
        self.asked = 0
        self.search: Callable[[str], bool] | None = None

    def __call__(self, text: str) -> bool:
        if self.search is None:
            self.asked += 1
            if self.asked <= ASK_BEFORE_BUILDING:
                return any(p.search(text) for p in self.patterns)
            self.search = any_search(self.patterns)
        return self.search(text)


def any_search(patterns: Iterable[re.Pattern[str]]) -> Callable[[str], bool]:
    """A test true for a text exactly when ``p.search(text)`` finds a match for some pattern ``p``.

    The patterns' top-level alternatives that start with ``^`` are tried once, at the start of the text
    (``^(?:a|b|...)``); those that start with a literal character are searched as one alternation (which ``re``
    scans for their first characters only); each of the others behind a search for the texts it requires (see
    :func:`literal_gate`), those without such texts as one more alternation. Patterns with flags, back-references or
    conditionals are searched one by one as they are. Never raises for patterns that compiled.
    """
    pats = list(dict.fromkeys(patterns))
    if any(p.flags != re.UNICODE or _UNJOINABLE_RE.search(p.pattern) for p in pats):
        return lambda text: any(p.search(text) for p in pats)
    anchored: dict[str, None] = {}
    literal: dict[str, None] = {}
    other: dict[str, None] = {}
    for p in pats:
        for alt in alternatives(p.pattern):
            if alt.startswith("^"):
                anchored[alt[1:]] = None
            else:
                (literal if _LITERAL_FIRST_RE.match(alt) else other)[alt] = None
    try:  # an alternative holds no top-level "|", so alternatives are joined as they are
        tests: list[Callable[[str], object]] = []
        if anchored:
            tests.append(re.compile("^(?:" + "|".join(anchored) + ")").match)
        if literal:
            tests.append(re.compile("|".join(literal)).search)
        ungated = [alt for alt in other if not _required_sets(alt)]
        if ungated:
            tests.append(re.compile("|".join(ungated)).search)
        tests += [_gated(alt) for alt in other if alt not in ungated]
    except re.error:  # an alternative that only compiles within its own pattern
        return lambda text: any(p.search(text) for p in pats)
    if not tests:
        return lambda text: False
    return _first_found(tuple(tests))


def _first_found(tests: tuple[Callable[[str], object], ...]) -> Callable[[str], bool]:
    """Whether one of ``tests`` is true for a text, the test that was true last time asked first: the lines of one
    output mostly have one shape, so the search that found the last line's match mostly finds this one's, and the
    others are not run. The answer is the same in any order; a new order is a new tuple (threads may share it)."""
    order = tests

    def found(text: str) -> bool:
        nonlocal order
        tried = order
        for i, test in enumerate(tried):
            if test(text):
                if i:
                    order = (test,) + tried[:i] + tried[i + 1:]
                return True
        return False

    return found


@functools.lru_cache(maxsize=1024)  # the same alternative is joined into several tests
def _gated(alternative: str) -> Callable[[str], bool]:
    """The search for one alternative that starts with no literal character, behind searches for the texts it
    requires (its two most telling sets of them: a text must hold one of each), each a fraction of the cost of a
    search that tries the alternative at every character. While the texts asked hold a match (the lines of one
    output mostly do), the next is searched without the gates: they would only add to the search that answers."""
    gates = tuple(_texts_search(texts) for texts in _strongest(_required_sets(alternative), 2))
    search = re.compile(alternative).search
    held = False  # whether the last text asked held a match (only how fast the answer comes depends on it)

    def test(text: str) -> bool:
        nonlocal held
        if not held:
            for gate in gates:  # a loop, not a generator: asked for every line of a paste
                if gate(text) is None:
                    return False
        held = search(text) is not None
        return held

    return test


def literal_gate(patterns: Iterable[re.Pattern[str]]) -> Callable[[str], bool]:
    """A test false only for a text in which none of ``patterns`` can find a match: one search for the texts that
    every match of some pattern holds (:func:`required_texts`), cheaper than searching each pattern. True for every
    text when a pattern holds no such text, or has flags."""
    pats = list(patterns)
    gate = None if any(p.flags != re.UNICODE for p in pats) else _gate([p.pattern for p in pats])
    if gate is None:
        return lambda text: True
    return lambda text: gate(text) is not None


def gated_search(pattern: re.Pattern[str]) -> Callable[[str], re.Match[str] | None]:
    """``pattern.search``, asked only of a text that holds one of the texts every match holds (:func:`literal_gate`;
    a search for those costs a fraction of one that tries the pattern at every character): the same answers."""
    gate = None if pattern.flags != re.UNICODE else _gate([pattern.pattern])
    if gate is None:
        return pattern.search
    search = pattern.search
    return lambda text: search(text) if gate(text) is not None else None


def _gate(patterns: Iterable[str]) -> Callable[[str], re.Match[str] | None] | None:
    """The search for the required texts of every pattern (by its text), or None when one has none."""
    texts: set[str] = set()
    for pattern in patterns:
        required = required_texts(pattern)
        if required is None:
            return None
        texts |= required
    return _texts_search(frozenset(texts))


def _texts_search(texts: frozenset[str]) -> Callable[[str], re.Match[str] | None]:
    """A search that finds a match where one of ``texts`` is (not necessarily that one's match), written as a trie
    (``N(?:CCL error|o module named )|...``): ``re`` tries an alternation's branches one by one at each character,
    so texts that start alike are tried together, one branch for their common start. A text that holds another is
    left out: where it is, the other is too."""
    return re.compile(_trie(sorted(t for t in texts if not any(o != t and o in t for o in texts)))).search


def _trie(texts: list[str]) -> str:
    """The alternation of ``texts`` (sorted, none empty, none the start of another) grouped by their first characters."""
    groups: dict[str, list[str]] = {}
    for text in texts:
        groups.setdefault(text[0], []).append(text[1:])
    return "|".join(re.escape(first + rests[0]) if len(rests) == 1 else f"{re.escape(first)}(?:{_trie(rests)})"
                    for first, rests in groups.items())


def required_texts(pattern: str) -> frozenset[str] | None:
    """Texts of which every match of the regex ``pattern`` (its text, no flags) holds one at least:
    ``Error|Exception`` -> ``{"rror", "xception"}`` (``re`` reads it as ``E(?:rror|xception)``),
    ``KV cache size: (\\d+)`` -> ``{"KV cache size: "}``; None when no such text can be told (``\\d+``)."""
    return next(iter(_strongest(_required_sets(pattern), 1)), None)


def _strongest(sets: Iterable[frozenset[str]], n: int) -> list[frozenset[str]]:
    """The ``n`` sets whose shortest text is longest (the first of equals first)."""
    return sorted(sets, key=lambda texts: -min(map(len, texts)))[:n]


@functools.lru_cache(maxsize=1024)
def _required_sets(pattern: str) -> tuple[frozenset[str], ...]:
    """Sets of texts of which every match of the regex ``pattern`` holds one of each set; [] when none can be told
    (``\\d+``, or a form this does not read: no gate then, never a wrong one)."""
    try:
        return tuple(_sequence_sets(list(_sre.parse(pattern))))
    except Exception:  # noqa: BLE001
        return ()


def _sequence_sets(items: list) -> list[frozenset[str]]:
    """The required sets of a sequence of parsed items: each item must match, so each literal run gives one text,
    each group without flags of its own and each item repeated at least once gives its own sets, and an
    alternation whose every branch has a set gives their union."""
    sets: list[frozenset[str]] = []
    run: list[str] = []
    for op, av in items + [(None, None)]:  # the end closes the last run
        if op is _sre.LITERAL:
            run.append(chr(av))
            continue
        if run:
            sets.append(frozenset({"".join(run)}))
            run = []
        if op is _sre.SUBPATTERN and not av[1] and not av[2]:
            sets += _sequence_sets(list(av[3]))
        elif op is _sre.BRANCH:
            branches = [_strongest(_sequence_sets(list(a)), 1) for a in av[1]]
            if all(branches):
                sets.append(frozenset().union(*(b[0] for b in branches)))
        elif op in _REPEATS and av[0] >= 1:
            sets += _sequence_sets(list(av[2]))
    return sets


ONE_PASS_CHARS = 1 << 16
"""A text at least this long (in characters) is worth :func:`texts_in` when many texts are asked of it: the diagnoses'
gates (:meth:`grader.diagnoses.Entry.may_match`, within one_text_gated) are then answered from one pass."""

MAX_TEXT_HITS = 10_000
""":func:`texts_in` stops its one pass after this many occurrences of its texts in all, and searches for the texts
not found by then one by one: a paste full of one of them costs no more than the searches one by one did."""


TEXTS_SLICE = 1 << 18
""":func:`texts_in` reads a long text in slices of this many characters: the automaton reads a copy of what it is
given (4 bytes a character), so a 5 MB paste whole would cost 20 MB more memory."""


@functools.lru_cache(maxsize=8)
def _automaton(texts: frozenset[str]):  # noqa: ANN202 - ahocorasick.Automaton, imported when first needed
    import ahocorasick  # pyahocorasick: an Aho-Corasick automaton in C

    automaton = ahocorasick.Automaton()
    for text in texts:
        automaton.add_word(text, text)
    automaton.make_automaton()
    return automaton


def texts_in(text: str, texts: frozenset[str]) -> frozenset[str]:
    """Which of ``texts`` occur in ``text``, with one pass of an Aho-Corasick automaton (pyahocorasick) over it
    rather than one search per text: the 90 gate texts of checks/diagnoses.toml over 5 MB of a vLLM log take about
    30 ms, searched one by one about 120 ms. The same answer as ``{t for t in texts if t in text}``; an empty text
    of ``texts`` is in every text."""
    wanted = frozenset(t for t in texts if t)
    found: set[str] = set()
    hits, overlap = 0, max(map(len, wanted), default=1) - 1
    for start in range(0, len(text) if wanted else 0, TEXTS_SLICE):  # slices, each as long as the longest text
        for _, t in _automaton(wanted).iter(text[start:start + TEXTS_SLICE + overlap]):  # more, so none is cut
            found.add(t)
            hits += 1
            if hits >= MAX_TEXT_HITS:  # one of them again and again: the others searched one by one
                return frozenset(found | {t for t in wanted - found if t in text} | (texts - wanted))
        if len(found) == len(wanted):
            break
    return frozenset(found | (texts - wanted))
