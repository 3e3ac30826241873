"""Views of a pairwise bandwidth judgment (:mod:`grader.facts.pairwise`): a terminal table, a JSON-able
dict, and a heat map for the notebook. Rows are the sending node, columns the receiving node
(``a -> b``: iperf3's client on ``a``); cells are Gbit/s. Importing this module needs no matplotlib:
:func:`heatmap` imports it when called (``pip install 'clusterlab[notebook]'``).

In a notebook::

    from grader.facts.pairwise import judge_pairs
    from grader.widgets.pairwise import heatmap
    heatmap(judge_pairs(measured, profile="spark-pair"), nodes=[n.name for n in inv.nodes])
"""

from __future__ import annotations

import os
from typing import Any, Sequence

from grader.facts.pairwise import CounterVerdict, PairwiseJudgment, matrix

MARK = {"pass": "", "flag": "!", "fail": "X"}
"""The mark after a cell's Gbit/s: none for a pass, ``!`` flagged (measure it again), ``X`` failed."""
MIRRORED = "~"
"""Before a cell's value: only the other direction was measured, shown in both cells."""
_COLOUR = {"pass": "\033[32m", "flag": "\033[33m", "fail": "\033[31m", "unmeasured": "\033[90m"}
_FACE = {"pass": "#1a7f37", "flag": "#bf8700", "fail": "#cf222e"}  # the outline of a flagged or failed cell


def _cell(verdict_mirrored: Any, colour: bool) -> str:
    if verdict_mirrored is None:
        return "."
    v, mirrored = verdict_mirrored
    text = f"{MIRRORED if mirrored else ''}{v.final_gbps:.1f}{MARK[v.status]}"
    return f"{_COLOUR[v.status]}{text}\033[0m" if colour and v.status != "pass" else text


def render_table(judgment: PairwiseJudgment, nodes: Sequence[str] | None = None, colour: bool = False,
                 counters: Sequence[CounterVerdict] = ()) -> str:
    """The matrix as plain text: a header naming the unit, the best pair and the bar, one row per sending
    node (``nodes`` order, default the pairs' own), each cell the latest Gbit/s with its mark (:data:`MARK`,
    :data:`MIRRORED`), then one line per pair that is not a pass with its reasons, and one per link of
    ``counters`` that is not a pass. ``colour``: ANSI colours on flagged and failed cells."""
    names, cells = matrix(judgment, nodes)
    rows = [[_cell(c, False) for c in row] for row in cells]
    w = max([len(n) for n in names] + [len(c) for r in rows for c in r] + [6])
    j = judgment
    lines = [f"Pairwise bandwidth, Gbit/s (row -> column): best {j.best[0]} -> {j.best[1]} {j.best_gbps:.1f}, "
             + (f"bar {j.min_fraction_of_best * 100:g}% = {j.bar_gbps:.1f}" if j.min_fraction_of_best else
                "no best-pair bar on this profile (checks/pairwise.toml [relative] not_for)")
             + (f"; range {_range_text(j.range)}" if j.range else "") + f"; {j.status.upper()}",
             " " * w + "  " + "  ".join(f"{n:>{w}}" for n in names)]
    for name, row, raw in zip(names, rows, cells):
        shown = [f"{c:>{w}}" for c in row]
        if colour:
            shown = [" " * (w - len(c)) + _cell(r, True) for c, r in zip(row, raw)]
        lines.append(f"{name:<{w}}  " + "  ".join(shown))
    lines.append(f"marks: {MARK['flag']} below the bar, measure again; {MARK['fail']} failed; "
                 f"{MIRRORED} only the other direction measured; . not measured")
    for v in j.pairs:
        if v.status != "pass":
            lines.append(f"{v.status.upper():<5} {v.a} -> {v.b}: " + "; ".join(v.reasons))
    for c in counters:
        if c.status != "pass":
            lines.append(f"{c.status.upper():<5} {c.link}: " + "; ".join(c.reasons))
    return "\n".join(lines)


def _range_text(r: dict[str, Any]) -> str:
    lo, hi = r.get("min"), r.get("max")
    if lo is not None and hi is not None:
        return f"{lo:g}-{hi:g} Gbit/s"
    return f">= {lo:g} Gbit/s" if lo is not None else f"<= {hi:g} Gbit/s"


def to_dict(judgment: PairwiseJudgment, nodes: Sequence[str] | None = None,
            counters: Sequence[CounterVerdict] = ()) -> dict[str, Any]:
    """JSON-able: :meth:`PairwiseJudgment.to_dict` plus ``"matrix"``: ``{"nodes": [...], "gbps": [[float|None]],
    "status": [[str|None]], "mirrored": [[bool]]}`` (row = sender, Gbit/s), and ``"counters"``: each link's
    :meth:`CounterVerdict.to_dict`."""
    names, cells = matrix(judgment, nodes)
    out = judgment.to_dict()
    out["matrix"] = {"nodes": names,
                     "gbps": [[None if c is None else round(c[0].final_gbps, 3) for c in row] for row in cells],
                     "status": [[None if c is None else c[0].status for c in row] for row in cells],
                     "mirrored": [[bool(c and c[1]) for c in row] for row in cells]}
    out["counters"] = [c.to_dict() for c in counters]
    return out


def heatmap(judgment: PairwiseJudgment, nodes: Sequence[str] | None = None, title: str = "") -> Any:
    """A heat map of the matrix (a matplotlib Figure, Agg backend unless $MPLBACKEND says otherwise; not
    saved): rows sending node, columns receiving node, colour the latest Gbit/s (grey: not measured), each
    cell's value written in it with its mark, flagged cells outlined amber and failed ones red; the title
    names the best pair and the bar. Raises ImportError saying what to install without matplotlib."""
    try:
        import matplotlib
    except ImportError:  # pragma: no cover - exercised only without the extra
        raise ImportError("the heat map needs matplotlib: pip install 'clusterlab[notebook]'") from None
    if os.environ.get("MPLBACKEND") is None:
        matplotlib.use("Agg")
    import numpy as np
    from matplotlib.figure import Figure
    from matplotlib.patches import Rectangle

    names, cells = matrix(judgment, nodes)
    n = len(names)
    data = np.array([[np.nan if c is None else c[0].final_gbps for c in row] for row in cells], dtype=float)
    side = max(3.8, 1.0 + 0.9 * n)
    fig = Figure(figsize=(side + 1.6, side), dpi=100)
    ax = fig.add_subplot(1, 1, 1)
    cmap = matplotlib.colormaps["viridis"].with_extremes(bad="#d0d7de")
    lo = min(judgment.bar_gbps * 0.8, float(np.nanmin(data))) if np.isfinite(data).any() else 0.0
    im = ax.imshow(data, cmap=cmap, vmin=lo, vmax=max(judgment.best_gbps, lo + 1e-9))
    bar = fig.colorbar(im, ax=ax, fraction=0.046, pad=0.04, label="Gbit/s")
    if judgment.min_fraction_of_best:
        bar.ax.axhline(judgment.bar_gbps, color=_FACE["fail"], lw=2)  # the best-pair bar on the scale
    ax.set_xticks(range(n), labels=names, rotation=30, ha="right")
    ax.set_yticks(range(n), labels=names)
    notes = [f"red line on the scale: the bar ({judgment.min_fraction_of_best * 100:g}% of the best pair)"
             if judgment.min_fraction_of_best else "no best-pair bar on this profile, only its range"]
    if any(c is not None and c[1] for row in cells for c in row):
        notes.append(f"{MIRRORED} only the other direction measured")
    ax.set_xlabel("receiving node (iperf3 server)\n" + "\n".join(notes), fontsize=9)
    ax.set_ylabel("sending node (iperf3 client)")
    mid = (lo + judgment.best_gbps) / 2
    for i, row in enumerate(cells):
        for k, c in enumerate(row):
            if c is None:
                ax.text(k, i, "-" if i != k else "", ha="center", va="center", color="#57606a", fontsize=9)
                continue
            v, mirrored = c
            text = f"{MIRRORED if mirrored else ''}{v.final_gbps:.1f}" + (f"\n{v.status}" if v.status != "pass" else "")
            ax.text(k, i, text, ha="center", va="center", fontsize=9, fontweight="bold" if v.status != "pass" else None,
                    color="white" if v.final_gbps < mid else "black")
            if v.status != "pass":
                ax.add_patch(Rectangle((k - 0.47, i - 0.47), 0.94, 0.94, fill=False, lw=2.5, ec=_FACE[v.status]))
    j = judgment
    head = (title + "\n") if title else ""
    bar_text = f"bar {j.min_fraction_of_best * 100:g}% = {j.bar_gbps:.1f}" if j.min_fraction_of_best else "no bar"
    ax.set_title(f"{head}best {j.best[0]} -> {j.best[1]} {j.best_gbps:.1f} Gbit/s; {bar_text}; {j.status}",
                 fontsize=10)
    fig.tight_layout()
    return fig
