"""ipywidgets calculators for lesson 3, over the pure functions in :mod:`grader.calc`.

Each ``*_calculator()`` returns an ``ipywidgets.VBox`` with two extra attributes: ``inputs`` (a
dict of the input widgets by name) and ``output`` (the HTML widget showing the result). Changing
an input recomputes the result. Importing this module needs neither ipywidgets nor a display; the
functions import ipywidgets when called and say how to install it if it is missing
(``pip install 'clusterlab[notebook]'``).

In a notebook::

    from grader.widgets.calculators import power_calculator
    power_calculator()
"""

from __future__ import annotations

import html
from typing import Any, Callable

from grader.calc import memory, pcie, power, specs, traffic

_OK = "#1a7f37"
_BAD = "#cf222e"
_WARN = "#9a6700"


def _ipywidgets() -> Any:
    try:
        import ipywidgets
    except ImportError:  # pragma: no cover - exercised only without the extra
        raise ImportError("the calculators need ipywidgets: pip install 'clusterlab[notebook]'") from None
    return ipywidgets


def _rows(rows: list[tuple[str, str]], note: str = "") -> str:
    body = "".join(f"<tr><td style='padding-right:1em'>{html.escape(k)}</td><td><b>{v}</b></td></tr>" for k, v in rows)
    return f"<table>{body}</table>" + (f"<p style='font-size:90%'>{note}</p>" if note else "")


def _coloured(text: str, good: bool | None) -> str:
    colour = _WARN if good is None else (_OK if good else _BAD)
    return f"<span style='color:{colour}'>{html.escape(text)}</span>"


def _error(err: Exception) -> str:
    return f"<span style='color:{_BAD}'>{html.escape(str(err))}</span>"


def _assemble(title: str, inputs: dict[str, Any], compute: Callable[[], str], extra: list[Any] | None = None) -> Any:
    w = _ipywidgets()
    out = w.HTML()

    def refresh(_: Any = None) -> None:
        try:
            out.value = compute()
        except ValueError as err:
            out.value = _error(err)

    for widget in inputs.values():
        widget.observe(refresh, names="value")
    refresh()
    box = w.VBox([w.HTML(f"<h4>{html.escape(title)}</h4>"), *inputs.values(), out, *(extra or [])])
    box.inputs = inputs
    box.output = out
    box.refresh = refresh
    return box


def _gpu_options() -> list[tuple[str, str]]:
    return [(s.name, s.id) for s in specs.load_gpus().values()]


def _figure_text(spec: specs.GpuSpec, key: str) -> str:
    fig = spec.figure(key)
    return html.escape(fig.describe()) if fig else "not in the table"


# --------------------------------------------------------------------------- PCIe

def pcie_calculator() -> Any:
    """PCIe bandwidth per direction for a generation and width, and what copies reach in practice."""
    w = _ipywidgets()
    inputs = {
        "gen": w.Dropdown(options=[(f"Gen{g}", g) for g in range(1, 7)], value=4, description="generation"),
        "lanes": w.Dropdown(options=[(f"x{n}", n) for n in (1, 2, 4, 8, 16)], value=16, description="width"),
    }

    def compute() -> str:
        gen, lanes = inputs["gen"].value, inputs["lanes"].value
        bw = pcie.link_bandwidth(gen, lanes)
        lo, hi = pcie.practical_bandwidth(gen, lanes)
        flo, fhi = pcie.practical_fraction()
        rows = [("line rate", f"{pcie.generation(gen).rate_gt_s:g} GT/s × {lanes} lanes = {bw.raw_gbit_s:g} Gbit/s raw"),
                ("encoding", html.escape(bw.encoding)),
                ("per direction", f"{bw.gbit_s:.2f} Gbit/s = {bw.gbyte_s:.2f} GB/s"),
                ("large copies reach", f"{lo:.1f}-{hi:.1f} GB/s ({flo:.0%}-{fhi:.0%})")]
        note = f"source: {html.escape(bw.source)} (trust {bw.trust})"
        if not bw.verified:
            note = _coloured("UNVERIFIED: the sources for this generation disagree. ", None) + note
        return _rows(rows, note)

    return _assemble("PCIe bandwidth (GB = 1e9 bytes, each direction at once)", inputs, compute)


# --------------------------------------------------------------------------- traffic

def traffic_calculator() -> Any:
    """Per-token traffic of TP and layer split, its link time, and batch-1 decode predictions."""
    w = _ipywidgets()
    links = specs.load_pcie()["links"]
    first = traffic.MODELS["llama-3.1-70b"]
    inputs = {
        "model": w.Dropdown(options=[(m.name, k) for k, m in traffic.MODELS.items()], value="llama-3.1-70b",
                            description="model"),
        "hidden": w.BoundedIntText(value=first.hidden_size, min=1, max=1_000_000, description="hidden size"),
        "layers": w.BoundedIntText(value=first.num_layers, min=1, max=10_000, description="layers"),
        "tp": w.Dropdown(options=[2, 4, 8], value=2, description="GPUs"),
        "bytes": w.Dropdown(options=[("BF16/FP16 (2 B)", 2), ("FP32 (4 B)", 4)], value=2, description="activations"),
        "link": w.Dropdown(options=[(f.label, k) for k, f in links.items()], value="pcie4-no-p2p", description="link"),
        "weights_gb": w.BoundedFloatText(value=40.0, min=0.1, max=10_000, description="weights GB/token"),
        "gpu": w.Dropdown(options=_gpu_options(), value="rtx4090", description="card"),
    }

    def on_model(change: Any) -> None:
        m = traffic.MODELS[change["new"]]
        inputs["hidden"].value, inputs["layers"].value = m.hidden_size, m.num_layers

    inputs["model"].observe(on_model, names="value")

    def compute() -> str:
        hidden, layers, n = inputs["hidden"].value, inputs["layers"].value, inputs["tp"].value
        link = links[inputs["link"].value]
        tp = traffic.tp_traffic(hidden, layers, n, inputs["bytes"].value)
        pp = traffic.pp_traffic(hidden, n, inputs["bytes"].value)
        tp_s = traffic.tp_link_time_s(tp, link.bandwidth_gbs, link.latency_us)
        pp_s = traffic.pp_link_time_s(pp, link.bandwidth_gbs, link.latency_us)
        rows = [("TP all-reduces per token", f"{tp.allreduces} × {tp.message_bytes:,} B ({tp.message_bytes / 1024:g} KiB)"),
                ("TP bytes sent per rank per token", f"{tp.sent_per_step_bytes / 2**20:.2f} MiB"),
                ("layer split sends per token", f"{pp.boundaries} × {pp.activation_bytes:,} B"),
                ("link time per token, TP", f"{tp_s * 1e3:.3f} ms"),
                ("link time per token, layer split", f"{pp_s * 1e3:.4f} ms")]
        spec = specs.gpu(inputs["gpu"].value)
        bw_fig = spec.figure("memory_bandwidth_gbs")
        note = (f"link: {html.escape(link.label)}, {link.bandwidth_gbs:g} GB/s, {link.latency_us:g} µs; "
                f"{html.escape(link.source)} (trust {link.trust})")
        if bw_fig is not None:
            pred = traffic.predict_decode(inputs["weights_gb"].value * 1e9, float(bw_fig.value), hidden, layers,
                                          link.bandwidth_gbs, link.latency_us, n, inputs["bytes"].value)
            rows += [("decode, llama.cpp layer split", f"≤ {pred.layer_split_tok_s:.1f} tok/s"),
                     ("decode, vLLM tensor parallel", f"≤ {pred.tp_tok_s:.1f} tok/s "
                      f"({pred.tp_speedup_over_split:.2f}× layer split)")]
            note += (f"<br>memory bandwidth of one {html.escape(spec.name)}: {_figure_text(spec, 'memory_bandwidth_gbs')}."
                     " Roofline upper bounds at batch 1: real engines reach a fraction of them.")
        return _rows(rows, note)

    return _assemble("What crosses the link per token", inputs, compute)


# --------------------------------------------------------------------------- memory

def memory_calculator() -> Any:
    """Weights + KV cache + overhead against a pair of cards."""
    w = _ipywidgets()
    m0 = traffic.MODELS["llama-3.1-70b"]
    inputs = {
        "params_b": w.BoundedFloatText(value=m0.params_billion, min=0.01, max=10_000, description="params (B)"),
        "bits": w.BoundedFloatText(value=4.5, min=0.5, max=32, description="bits/weight"),
        "layers": w.BoundedIntText(value=m0.num_layers, min=1, max=10_000, description="layers"),
        "kv_heads": w.BoundedIntText(value=m0.num_kv_heads, min=1, max=1024, description="KV heads"),
        "head_dim": w.BoundedIntText(value=m0.head_dim, min=1, max=4096, description="head dim"),
        "kv_bytes": w.Dropdown(options=[("BF16 (2 B)", 2), ("FP8 (1 B)", 1)], value=2, description="KV cache"),
        "context": w.BoundedIntText(value=32768, min=0, max=10_000_000, description="context"),
        "sequences": w.BoundedIntText(value=1, min=0, max=10_000, description="sequences"),
        "gpu": w.Dropdown(options=_gpu_options(), value="rtx4090", description="card"),
        "cards": w.BoundedIntText(value=2, min=1, max=16, description="cards"),
        "overhead_gib": w.BoundedFloatText(value=2.0, min=0, max=100, description="overhead GiB"),
        "utilization": w.BoundedFloatText(value=memory.DEFAULT_GPU_MEMORY_UTILIZATION, min=0.05, max=1.0, step=0.05,
                                          description="utilization"),
    }

    def compute() -> str:
        spec = specs.gpu(inputs["gpu"].value)
        mem = spec.figure("memory_gb")
        if mem is None:
            raise ValueError(f"{spec.name}: no memory figure in checks/specs/gpus.toml")
        weights = memory.weights_bytes(inputs["params_b"].value, inputs["bits"].value)
        per_tok = memory.kv_bytes_per_token(inputs["layers"].value, inputs["kv_heads"].value,
                                            inputs["head_dim"].value, inputs["kv_bytes"].value)
        kv = memory.kv_cache_bytes(per_tok, inputs["context"].value, inputs["sequences"].value)
        fit = memory.pair_fit(weights, kv, float(mem.value) * memory.GIB, inputs["cards"].value,
                              inputs["overhead_gib"].value * memory.GIB, inputs["utilization"].value, per_tok)
        verdict = _coloured("fits" if fit.fits else "does not fit", fit.fits)
        rows = [("weights", f"{weights / 1e9:.1f} GB"),
                ("KV cache", f"{per_tok / 1024:g} KiB/token × tokens = {kv / memory.GIB:.2f} GiB"),
                ("per card: need", f"{fit.need / memory.GIB:.2f} GiB (weights {fit.weights_per_card / memory.GIB:.2f} "
                                   f"+ KV {fit.kv_per_card / memory.GIB:.2f} + overhead {fit.overhead / memory.GIB:.2f})"),
                ("per card: budget", f"{fit.budget / memory.GIB:.2f} GiB ({inputs['utilization'].value:g} × "
                                     f"{_figure_text(spec, 'memory_gb')})"),
                ("verdict", f"{verdict}, headroom {fit.headroom / memory.GIB:+.2f} GiB per card"),
                ("KV tokens that fit beside the weights", f"{fit.max_kv_tokens:,}")]
        return _rows(rows, "Card memory is read as GiB (nvidia-smi reports MiB). The overhead is an assumption: "
                           "measure yours with nvidia-smi after loading the model.")

    return _assemble("Does the model fit the pair?", inputs, compute)


# --------------------------------------------------------------------------- power

def power_calculator() -> Any:
    """Cards + CPU + rest against a PSU and a wall circuit; heat; what `nvidia-smi -pl` does."""
    w = _ipywidgets()
    inputs = {
        "gpu": w.Dropdown(options=_gpu_options(), value="rtx4090", description="card"),
        "cards": w.BoundedIntText(value=2, min=1, max=8, description="cards"),
        "limit_w": w.BoundedFloatText(value=0, min=0, max=2000, description="-pl W (0=TGP)"),
        "cpu_w": w.BoundedFloatText(value=253, min=0, max=1500, description="CPU W"),
        "rest_w": w.BoundedFloatText(value=100, min=0, max=2000, description="rest W"),
        "psu_w": w.BoundedFloatText(value=1300, min=100, max=5000, description="PSU W"),
        "atx3": w.Checkbox(value=True, description="ATX 3.x PSU"),
        "volts": w.Dropdown(options=[("120 V", 120), ("230 V", 230)], value=120, description="circuit"),
        "amps": w.BoundedFloatText(value=15, min=1, max=63, description="breaker A"),
        "efficiency": w.BoundedFloatText(value=0.90, min=0.5, max=1.0, step=0.01, description="PSU efficiency"),
    }
    notes = w.Accordion(children=[w.HTML(f"<pre>{html.escape(power.POWER_LIMIT_NOTES)}</pre>")])
    notes.set_title(0, "What nvidia-smi -pl does and does not do")

    def compute() -> str:
        spec = specs.gpu(inputs["gpu"].value)
        tgp = spec.figure("tgp_watts")
        if tgp is None:
            raise ValueError(f"{spec.name}: no TGP in checks/specs/gpus.toml")
        card_w = inputs["limit_w"].value or float(tgp.value)
        n = inputs["cards"].value
        load = power.system_load_w([card_w] * n, inputs["cpu_w"].value, inputs["rest_w"].value)
        spike = spec.figure("transient_watts")
        factor = float(spike.value) / float(tgp.value) if spike is not None else power.RTX5090_TRANSIENT_FACTOR
        transient = power.transient_load_w([card_w] * n, inputs["cpu_w"].value, inputs["rest_w"].value, factor)
        psu = power.psu_check(load, inputs["psu_w"].value, transient, inputs["atx3"].value)
        circuit = power.circuit_capacity(inputs["volts"].value, inputs["amps"].value)
        wall = power.wall_draw_w(load, inputs["efficiency"].value)
        rows = [("card", f"{html.escape(spec.name)}: TGP {html.escape(tgp.describe())}"),
                ("sustained DC load", f"{n} × {card_w:g} + {inputs['cpu_w'].value:g} + {inputs['rest_w'].value:g} "
                                      f"= {load:g} W"),
                ("PSU", _coloured(f"{psu.load_fraction:.0%} of {psu.psu_w:g} W: "
                                  + ("within its rating" if psu.sustained_ok else "OVER its rating"), psu.sustained_ok)),
                ("spikes ≥ 0.1 s (estimate)", _coloured(f"≈ {transient:.0f} W", psu.transient_ok)),
                ("ATX 3 excursion (100 µs)", f"{psu.excursion_limit_w:g} W" if psu.atx3 else "not promised"),
                ("wall draw", f"{wall:.0f} W at {inputs['efficiency'].value:.0%} efficiency"),
                ("circuit", _coloured(f"{circuit.continuous_w:g} W continuous of {circuit.nominal_w:g} W nominal: "
                                      + ("OK" if wall <= circuit.continuous_w else "OVER the 80% rule"),
                                      wall <= circuit.continuous_w if circuit.verified else None)),
                ("heat", f"{power.btu_per_hour(wall):,.0f} BTU/h")]
        note = "Spike factor: " + (f"this card's measured {html.escape(spike.describe())}" if spike is not None
                                   else f"{power.reference_spike_words()}, assumed for this card (UNVERIFIED)") + "."
        if not circuit.verified:
            note += " The 80% rule at 230 V is arithmetic only (UNVERIFIED)."
        return _rows(rows, note)

    return _assemble("Power, PSU and circuit for the box", inputs, compute, [notes])
