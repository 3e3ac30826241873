"""What a person's way of pasting put around an output's lines, taken off by :func:`grader.parsers.common.clean_lines`:
a forum's or a mail reader's quote marks, an editor's or ``cat -n``'s line numbers. Each is decided by the paste's
first non-blank line (line numbers: its first few), so most pastes cost one look."""

from __future__ import annotations

import re

QUOTE_MARKS = (">", "\u258e", "+")
"""Marks a forum, a mail reader or a chat puts in front of each quoted line (``> ``, and ``▎ `` of some
renderers), and a diff's ``+`` in front of each added line (a result pasted into a pull request): a paste quoted
whole has one on (nearly) every line."""
MIN_QUOTED_RUN = 3
"""A run of at least this many lines each starting ``> `` is a quoted part of a paste (a reply quoting an output's
header, the rest pasted plain), its marks taken off."""


_NUMBERED_RE = re.compile(r"^\s*+(?:>\s*+)?(\d{1,7})(?:\t|[ ](?=\s*+[^\s\d.+-])|(?=\[))")
"""A line number (after a quote mark on that line alone, as a forum's highlight puts on one): a tab after it (``cat
-n``), or a space and then no figure, or ``[`` glued to it. A space and then a figure is a table's row index
(p2pBandwidthLatencyTest's matrices, ``lscpu -e``), never taken off."""
_ANY_NUMBER_RE = re.compile(r"^\s*+(?:>\s*+)?(\d{1,7})(?=[ \t])")
"""A number that starts a line, whatever follows: a line number inside a run of sure ones (``96   1 node_...``)."""
FIRST_LINES = 3
"""Line numbers are looked for when one of the paste's first this many non-blank lines has one (a caption above the
numbered lines: ``Print Ray status``)."""
MIN_NUMBERED_RUN = 4
"""An editor's or ``cat -n``'s line numbers are taken off lines numbered n, n+1, n+2 ... at least this many in a run."""


def unnumbered(lines: list[str]) -> list[str]:
    """``lines`` without the line numbers an editor or ``cat -n`` put in front of them (``1700[   22.3] mlx5_core
    ...``, ``1701 [   22.3] ...``, ``     3\tNCCL INFO ...``): numbers that go up by one from each numbered line to the
    next, in a run with at least :data:`MIN_NUMBERED_RUN` sure ones (:data:`_NUMBERED_RE`; a number followed by a figure
    counts in a run, not towards it; lines between them that carry no number, a wrapped line's rest, stay in the run). An output whose lines start with other numbers (nccl-tests' sizes, a count) is left
    as it is. Decided by the first few non-blank lines (:data:`FIRST_LINES`); linear."""
    firsts = [x for x in lines[:64] if x.strip()][:FIRST_LINES]
    if not any(_NUMBERED_RE.match(x) for x in firsts):  # most pastes
        return lines
    runs: list[list[tuple[int, int, bool]]] = []  # (index, where the number's text ends, a sure line number)
    last = None
    for i, line in enumerate(lines):
        m = _NUMBERED_RE.match(line) or _ANY_NUMBER_RE.match(line)  # (a figure after it: numbered if its run is)
        if m is None:
            continue
        n = int(m.group(1))
        if last is None or n != last + 1:
            runs.append([])
        runs[-1].append((i, m.end(1) + (line[m.end(1):m.end(1) + 1] in " \t"), m.re is _NUMBERED_RE))
        last = n
    out = list(lines)
    for run in runs:
        if sum(sure for _, _, sure in run) >= MIN_NUMBERED_RUN:  # a table's row indexes alone never make one
            for i, end, _ in run:
                out[i] = out[i][end:]
    return out


def unquoted(lines: list[str]) -> list[str]:
    """``lines`` without the quote mark (:data:`QUOTE_MARKS`, and the one space after it) that starts at least
    90% of the non-blank lines, and at least two of them, up to three levels deep (``> > ``). A lone ``> ``
    line (bash's continuation prompt, a redirection) leaves the text as it is."""
    for _ in range(3):
        first = next((x for x in lines if x.strip()), "")
        mark = next((m for m in QUOTE_MARKS if first.startswith(m)), None)
        if mark is None or mark == "+" and first[1:2] in ("-", "=", "+"):  # most pastes: decided by their first line
            return _quoted_runs(lines) if mark is None else lines  # (`+-----+`: a table's border, not a diff's line)
        filled = [x for x in lines if x.strip()]
        if len(filled) < 2 or sum(x.startswith(mark) for x in filled) < 0.9 * len(filled):
            return _quoted_runs(lines) if mark == ">" else lines
        cut = len(mark)
        lines = [(x[cut + 1:] if x[cut:cut + 1] == " " else x[cut:]) if x.startswith(mark) else x for x in lines]
    return lines


MIN_COMMENTED_RUN = 5
"""A run of at least this many lines each starting ``#`` and a tab is an output kept as comments in a shell script
or notes file (``ethtool -m enp134s0f0`` above ``#\tIdentifier : 0x03 (SFP)``...): the marks are taken off. No
program's output starts its lines so (nccl-tests' ``#`` is followed by spaces)."""


def _quoted_runs(lines: list[str]) -> list[str]:
    """``lines`` with the ``> `` taken off each run of at least :data:`MIN_QUOTED_RUN` lines that start with it (a
    reply that quoted part of an output: perftest's header quoted, its results pasted plain), and the ``#`` + tab off
    each run of at least :data:`MIN_COMMENTED_RUN` lines that start with that."""
    out, run, commented = list(lines), [], []
    for i, line in enumerate(lines + [""]):
        if line.startswith("#\t"):
            commented.append(i)
        elif len(commented) >= MIN_COMMENTED_RUN:
            for j in commented:
                out[j] = lines[j][2:]
            commented = []
        else:
            commented = []
        if line.startswith("> ") or line == ">":
            run.append(i)
            continue
        if len(run) >= MIN_QUOTED_RUN:
            for j in run:
                out[j] = lines[j][2:]
        run = []
    return out
