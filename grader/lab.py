"""The lab's analysis: the pair against one machine, a decode roofline, and the plots.

``runs`` everywhere is ``{label: {concurrency: metrics}}`` where label is ``"pair"`` (the model
served across both machines) or ``"baseline"`` (the same model on one machine, same load), and
metrics is a flat dict with vLLM's key names as :meth:`grader.metrics.RunMetrics.flat` gives
(``output_throughput``, ``median_tpot_ms``, ``p99_ttft_ms``...), always recomputed from the
per-request data.

Roofline: decode reads every weight (a dense model; for a MoE, the active experts) once per
step, so one stream cannot decode faster than ``memory bandwidth / bytes read per token``
(docs/research/figures.md §2.1: "Decode is bandwidth-bound"). The bandwidth comes from the
profile's ``memory_bandwidth_gbs`` in checks/ranges.toml, with its source (DGX Spark: 273 GB/s,
LPDDR5x 256 bit at 8533 MT/s). The measured single-stream decode rate is 1000 / mean TPOT (ms).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from grader.ranges import expected_range

LABELS = ("pair", "baseline")
LABEL_TEXT = {"pair": "pair (both machines)", "baseline": "baseline (one machine)"}
PERCENTILES = ("median", "p90", "p99")


def compare(runs: dict[str, dict[int, dict[str, Any]]]) -> list[dict[str, Any]]:
    """Per concurrency level measured for both: the pair's figures over the baseline's.

    ``throughput_ratio`` > 1: the pair serves more tokens per second; ``tpot_ratio`` and
    ``ttft_ratio`` > 1: the pair is slower per token / to the first token.
    """
    pair, base = runs.get("pair", {}), runs.get("baseline", {})
    rows = []
    for c in sorted(set(pair) & set(base)):
        p, b = pair[c], base[c]

        def ratio(key: str) -> float | None:
            x, y = p.get(key), b.get(key)
            return x / y if isinstance(x, (int, float)) and isinstance(y, (int, float)) and y else None

        rows.append({"concurrency": c, "pair_tok_s": p.get("output_throughput"),
                     "baseline_tok_s": b.get("output_throughput"), "throughput_ratio": ratio("output_throughput"),
                     "tpot_ratio": ratio("median_tpot_ms"), "ttft_ratio": ratio("median_ttft_ms")})
    return rows


def decode_rate(metrics: dict[str, Any]) -> float | None:
    """Single-stream decode tokens/s: 1000 / mean TPOT in ms (None without a TPOT)."""
    t = metrics.get("mean_tpot_ms")
    return 1000.0 / t if isinstance(t, (int, float)) and t > 0 else None


def memory_bandwidth_gbs(profile: str) -> float | None:
    """One machine's peak memory bandwidth for ``profile``, GB/s (1e9 bytes/s): the ``memory_bandwidth_gbs``
    range's max (its min where it has none), checks/ranges.toml; None where the profile has no such range."""
    bw = expected_range(profile, "memory_bandwidth_gbs")
    return None if bw is None else float(bw.get("max", bw.get("min")))


def roofline(decode_tok_s: float | None, bytes_per_token: float | None, profile: str,
             nodes: int = 1) -> dict[str, Any] | None:
    """Decode rate as a fraction of the bandwidth ceiling ``nodes × bandwidth / bytes per token``.

    ``nodes`` = 2 for tensor parallel across the pair (each machine reads half the weights);
    None when the profile has no bandwidth figure or a value is missing.
    """
    bw = expected_range(profile, "memory_bandwidth_gbs")
    if bw is None or not decode_tok_s or not bytes_per_token:
        return None
    gbs = memory_bandwidth_gbs(profile)
    ceiling = nodes * gbs * 1e9 / bytes_per_token
    return {"decode_tok_s": decode_tok_s, "bytes_per_token": bytes_per_token, "bandwidth_gbs": gbs, "nodes": nodes,
            "ceiling_tok_s": ceiling, "fraction": decode_tok_s / ceiling, "bandwidth_source": bw["source"]}


# --------------------------------------------------------------------------- plots

def _series(runs: dict[str, dict[int, dict[str, Any]]], label: str, key: str) -> tuple[list[int], list[float]]:
    levels = sorted(c for c, m in runs.get(label, {}).items() if isinstance(m.get(key), (int, float)))
    return levels, [runs[label][c][key] for c in levels]


def _levels_axis(ax: Any, runs: dict[str, dict[int, dict[str, Any]]]) -> None:
    """Log-2 x axis labelled with the measured concurrency levels as plain numbers."""
    levels = sorted({c for per in runs.values() for c in per})
    ax.set_xscale("log", base=2)
    if levels:
        ax.set_xticks(levels)
        ax.set_xticklabels([str(c) for c in levels])
        ax.minorticks_off()


def figures(runs: dict[str, dict[int, dict[str, Any]]], title: str = "") -> dict[str, Any]:
    """{"throughput": Figure, "latency": Figure} (matplotlib, Agg backend; not saved)."""
    import matplotlib
    if os.environ.get("MPLBACKEND") is None:
        matplotlib.use("Agg")
    from matplotlib.figure import Figure

    styles = {"pair": dict(color="tab:blue", marker="o"), "baseline": dict(color="tab:orange", marker="s")}
    thr = Figure(figsize=(6.4, 4.2), dpi=100)
    ax = thr.add_subplot(1, 1, 1)
    for label in LABELS:
        xs, ys = _series(runs, label, "output_throughput")
        if xs:
            ax.plot(xs, ys, label=LABEL_TEXT[label], **styles[label])
    _levels_axis(ax, runs)
    ax.set_ylim(bottom=0)
    ax.set_xlabel("concurrency (requests in flight)")
    ax.set_ylabel("output tokens/s (all requests)")
    ax.set_title(("Throughput against concurrency" + (f": {title}" if title else ""))[:90])
    ax.grid(True, alpha=0.3)
    ax.legend()
    thr.tight_layout()

    lat = Figure(figsize=(10, 4.2), dpi=100)
    for i, (metric, name) in enumerate((("ttft", "TTFT"), ("tpot", "TPOT (first token excluded)"))):
        ax = lat.add_subplot(1, 2, i + 1)
        for label in LABELS:
            for stat, dash in zip(PERCENTILES, ("-", "--", ":")):
                xs, ys = _series(runs, label, f"{stat}_{metric}_ms")
                if xs:
                    ax.plot(xs, ys, linestyle=dash, label=f"{label} {'p50' if stat == 'median' else stat}",
                            **styles[label])
        _levels_axis(ax, runs)
        ax.set_ylim(bottom=0)
        ax.set_xlabel("concurrency")
        ax.set_ylabel(f"{name.split(' ')[0]} (ms)")
        ax.set_title(name)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7)
    lat.tight_layout()
    return {"throughput": thr, "latency": lat}


def save_plots(runs: dict[str, dict[int, dict[str, Any]]], out_dir: str | os.PathLike[str],
               title: str = "") -> list[Path]:
    """Write ``lab_throughput.png`` and ``lab_latency.png`` into ``out_dir``; return their paths."""
    d = Path(out_dir)
    d.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, fig in figures(runs, title).items():
        p = d / f"lab_{name}.png"
        fig.savefig(p)
        paths.append(p)
    return paths


def show(paths: list[Path] | list[str]) -> None:
    """Display saved plots in a notebook (IPython); prints the paths elsewhere."""
    try:
        from IPython.display import Image, display
    except ImportError:
        print("\n".join(str(p) for p in paths))
        return
    for p in paths:
        display(Image(filename=str(p)))


def roofline_line(label: str, r: dict[str, Any] | None, profile: str) -> str:
    """One sentence for a roofline (or why there is none)."""
    if r is None:
        return (f"roofline ({label}): no memory-bandwidth figure for profile {profile!r} or no c1 decode rate "
                "/ bytes per token")
    return (f"roofline ({label}): {r['decode_tok_s']:.1f} tok/s at c1 = {100 * r['fraction']:.0f}% of "
            f"{r['nodes']} x {r['bandwidth_gbs']:g} GB/s / {r['bytes_per_token'] / 1e9:.2f} GB per token "
            f"= {r['ceiling_tok_s']:.1f} tok/s (bandwidth: {r['bandwidth_source'][:80]}...)")


def runs_from_facts(facts: dict[str, Any]) -> dict[str, dict[int, dict[str, Any]]]:
    """The ``runs`` shape from grader.facts.lab's facts (``{"pair": {"c1": {...}}}``)."""
    out: dict[str, dict[int, dict[str, Any]]] = {}
    for label in LABELS:
        for key, m in (facts.get(label) or {}).items():
            if key.startswith("c") and key[1:].isdigit() and isinstance(m, dict):
                out.setdefault(label, {})[int(key[1:])] = m
    return out


def table(rows: list[dict[str, Any]]) -> str:
    """The comparison as a small text table."""
    def f(x: Any, fmt: str) -> str:
        return format(x, fmt) if isinstance(x, (int, float)) else "-"

    out = [f"{'conc':>5} {'pair tok/s':>11} {'base tok/s':>11} {'ratio':>6} {'TPOT ratio':>10} {'TTFT ratio':>10}"]
    for r in rows:
        out.append(f"{r['concurrency']:>5} {f(r['pair_tok_s'], '11.1f')} {f(r['baseline_tok_s'], '11.1f')} "
                   f"{f(r['throughput_ratio'], '6.2f')} {f(r['tpot_ratio'], '10.2f')} {f(r['ttft_ratio'], '10.2f')}")
    return "\n".join(out)
