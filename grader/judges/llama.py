"""Judge of llama.cpp's load log and Ollama's offload line (grader.parsers.llama_log): how many of the model's layers
the GPUs took, where its weights, KV cache and compute buffers went, remote GPUs of rpc-server, and the speed printed.

A layer left on the CPU is one every token waits for (llama.cpp's layer split runs the layers in turn, each on its
device), so a partial offload is a warning; the speeds are said, not judged (they depend on the model and the cards).
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from ..parsers.common import command_argv, option_value
from .common import info, ok, on_spark, warn
from .context import context
from .model import HEALTHY_RUN, NO_ERROR_SEEN, Finding, Summary

_GPU_PREFIXES = ("CUDA", "ROCm", "Vulkan", "Metal", "SYCL", "RPC")


def _gib(mib: float) -> str:
    return f"{mib / 1024:.1f} GiB" if mib >= 1024 else f"{mib:.0f} MiB"


def _placed(per_device: dict[str, float]) -> str:
    return ", ".join(f"{dev} {_gib(mib)}" for dev, mib in per_device.items())


_SETTING_MEANS = {"nkvo": {"1": "keeps the KV cache in host memory (--no-kv-offload): every step reads it over PCIe"},
                  "fa": {"1": "turns flash attention on", "0": "turns flash attention off"},
                  "ngl": {"0": "runs every layer on the CPU"}}
"""What a llama-bench setting's value means, where the comparison says it."""


def setting_findings(rows: list[Any]) -> list[Finding]:
    """llama-bench's rows of one model, backend and test that differ in one setting column only (``-nkvo 0,1``, ``-fa 0,1``,
    ``-ngl``, ``-b``): their rates side by side and how far apart, so that what the setting costs is read as its cost
    (llama.cpp#4812: nkvo 1, the KV cache in host memory, pp512 17x slower on one RTX 3090 Ti)."""
    groups: dict[tuple, list[Any]] = {}
    for r in rows:  # rows of one model, size, backend and test (another backend is another build, not one setting)
        if r.settings and r.depth is None and r.concurrency is None:
            groups.setdefault((r.model, r.test, r.size, r.backend), []).append(r)
    out = []
    for (model, test, _, _), rs in groups.items():
        sets = [dict(r.settings) for r in rs]
        differ = [k for k in sets[0] if len({x.get(k) for x in sets}) > 1]
        if len(rs) < 2 or len(differ) != 1 or any(len(x) != len(sets[0]) for x in sets):
            continue
        k = differ[0]
        slow, fast = min(rs, key=lambda r: r.tps), max(rs, key=lambda r: r.tps)
        means = [f"{k} {v} {_SETTING_MEANS[k][v]}" for v in dict.fromkeys(x[k] for x in sets)
                 if v in _SETTING_MEANS.get(k, {})]
        apart = f": {fast.tps / slow.tps:.2f}x apart, the slower with {k} {dict(slow.settings)[k]}" if slow.tps else ""
        out.append(info(f"{model} {test}: " + ", ".join(f"{r.tps:g} tok/s with {k} {x[k]}" for r, x in zip(rs, sets))
                        + apart + "." + (f" ({'; '.join(means)}.)" if means else "")))
    return out


def gpu_findings(devices: list[str], alone: bool = False, found: int | None = None) -> list[Finding]:
    """The GPUs of llama.cpp's device list (``NAME (compute capability X.Y)`` each), said; different models named, with
    what that means for a split (llama-bench's judge says it too). ``alone``: a runner's log (Ollama's, llama-server's)
    where one GPU is found, off a Spark: whether the machine has another, hidden from it, is another output's to say.
    ``found``: the count llama.cpp printed, where the paste lists fewer (a list cut with ``...``: blind batch vt003)."""
    n = len(devices)
    if found and found > n:  # (none listed in the CUDA shape: ROCm's `gfx1100` lines, break-it 28 F8: the count alone)
        return [info(f"llama.cpp found {found} GPU{'s' if found > 1 else ''}" + (
            f"; the paste lists {n} of them: {', '.join(devices)}." if n else "."))]
    out = [info(f"llama.cpp found {n} GPU{'s' if n > 1 else ''}: {', '.join(devices)}"
                + ("; it can use only that one GPU. A second GPU in the machine, if there is one, is not visible to "
                   "this process (CUDA_VISIBLE_DEVICES in its environment, a card of another vendor, a driver that "
                   "does not see it): `nvidia-smi -L` and the service's environment decide." if n == 1 and alone and
                   not on_spark(None) and "GB10" not in devices[0] else "."))] if devices else []
    names = {d.split(" (compute capability")[0] for d in devices}
    if len(names) > 1:
        out.append(info(f"Different GPUs ({', '.join(sorted(names))}): llama.cpp's layer split (its default) gives "
                        "each card layers by its free memory (--tensor-split sets the shares), and each token "
                        "waits on every card in turn; a row split or tensor parallel runs at the slower card's pace."))
    if any(d.startswith("NVIDIA GB10 ") and ", VRAM " in d for d in devices):  # blind batch wf: a DGX Spark
        out.append(info("The GB10's \"VRAM\" figure is the DGX Spark's unified memory, shared with the CPU and the "
                        "OS (LPDDR5X, not a GPU's own memory): the model, its cache and every other process draw on "
                        "the same pool, so what is free moves with them."))
    return out


_MIB_IN_32_BITS = 2 ** 32 // 2 ** 20
"""The megabytes a byte count of 32 bits holds (4 GiB): a larger --mem, multiplied into bytes in a 32-bit integer
(``unsigned long`` under MSVC), comes out as the request less whole multiples of it."""


def _mem_asked(offered: int, asked: str | None) -> list[Finding]:
    """rpc-server's ``--mem`` (MB) against the backend memory it says it offers: a figure that wrapped around 32 bits
    (llama.cpp#8417: 10000 asked, 1808 offered) is a warn, as the client splits the model by what it offers."""
    if not asked or not asked.isdigit() or int(asked) == offered:
        return []
    wanted = int(asked)
    if wanted >= _MIB_IN_32_BITS and offered == wanted % _MIB_IN_32_BITS:
        return [warn(f"rpc-server was asked for {wanted:,} MB (`--mem {asked}`) but advertises {offered:,} MB of "
                     f"backend memory: the request less {wanted // _MIB_IN_32_BITS} x {_MIB_IN_32_BITS:,} MB, so its "
                     "byte count overflowed a 32-bit integer (wrapped modulo 4 GiB: a 32-bit `unsigned long`, as in a "
                     "Windows/MSVC build). Clients split the model's layers by the advertised figure, so this server "
                     "gets far less (or, for other values, more) than meant. Give --mem below "
                     f"{_MIB_IN_32_BITS:,}, or leave it out (the server then reports the device's free memory).")]
    return [info(f"rpc-server was asked for {wanted:,} MB (`--mem {asked}`) and advertises {offered:,} MB: clients "
                 "split the model's layers by the advertised figure.")]


_RPC_ASKED_RE = re.compile(r"\b(?:llama-cli|llama-server|llama-bench|llama-cli\.exe|llama-server\.exe)\b[^\n]{0,400}?\s--rpc[ =]")


_RPC_ADDR_RE = re.compile(r"\s--rpc[ =](?P<a>[^\s\"']{1,400})")
_LOOPBACK_RE = re.compile(r"^(?:127\.\d{1,3}\.\d{1,3}\.\d{1,3}|localhost|\[?::1\]?)(?::\d{1,5})?$", re.I)


_LOADED_RE = re.compile(r"\bmodel loaded\b|\ball slots are idle\b")  # (not `listening`: printed before loading)


def _weights_fill(log: Any, on_gpu: dict[str, float]) -> list[Finding]:
    """A CUDA device whose weights alone take checks/specs/memory.toml [llama_weights] nearly_full_share of its card's
    memory (checks/specs/gpus.toml memory_gb, the card named in llama.cpp's device list): its KV cache and compute
    buffers, allocated after, have little room left (a warn, per card)."""
    from ..calc.specs import match_gpu, row
    names = {i: name for i, name, _ in log.devices}
    out = []
    for dev, mib in on_gpu.items():
        spec = match_gpu(names.get(int(dev[4:]))) if re.fullmatch(r"CUDA\d{1,3}", dev) else None
        card = spec.figure("memory_gb") if spec else None
        if card is None or mib < row("memory.toml", "llama_weights").graded("nearly_full_share") * card.value * 1024 \
                or mib > card.value * 1024:  # (more than the card holds: several runs' lines summed, break-it 29 G9)
            continue
        up = log.eval_tps is not None or bool(_LOADED_RE.search(context().paste or ""))  # (the server up: vz003)
        if log.mib("compute").get(dev) and up and (log.mib("KV").get(dev) or "KV self size" in (context().paste or "")):
            out.append(info(f"{dev} ({names[int(dev[4:])]}, {card.value:g} GB) holds {mib / 1024:.1f} GiB of weights, "
                            "nearly full, yet its KV cache and compute buffers were allocated after them and the model "
                            "loaded (or the run generated tokens): it fits at this context, with little headroom; a "
                            "longer context or more parallel sequences may not."))
            continue
        out.append(warn(f"{dev} ({names[int(dev[4:])]}, {card.value:g} GB) holds {mib / 1024:.1f} GiB of weights: nearly "
                        "full before its KV cache and compute buffers, which llama.cpp allocates after the weights, so "
                        "they have little room left and an out-of-memory at their allocation (or at a longer context) "
                        "is near. Leave headroom: fewer layers on it (-ngl, Ollama's num_gpu), a --tensor-split that "
                        "gives it less, or a shorter context."))
    return out


def summarise_llama_log(log, command: str | None) -> Summary:
    """``log``: a grader.parsers.llama_log.LlamaLog."""
    findings = gpu_findings([f"{name} (compute capability {cc})" for _, name, cc in log.devices], alone=True, found=log.found)
    weights = log.mib("model")
    on_gpu = {d: m for d, m in weights.items() if d.startswith(_GPU_PREFIXES) and not d.endswith("_Host")}
    has_gpu = bool(log.devices or log.remote or on_gpu or log.found or log.gpu_backend)
    on_cpu = sum(m for d, m in weights.items() if d.startswith("CPU"))
    if log.offloaded is not None and log.layers:
        rest = log.layers - log.offloaded
        if rest <= 0 and on_gpu and on_cpu >= max(1024.0, sum(on_gpu.values()) / 2):  # (break-it review of session 34)
            findings.append(info(f"All {log.layers} layers are assigned to the GPU(s) (`offloaded {log.offloaded}/"
                                 f"{log.layers}`), but {_gib(on_cpu)} of the weights stay in host memory (CPU "
                                 f"buffers) against {_gib(sum(on_gpu.values()))} on the GPUs: tensors kept on the CPU "
                                 "(-ot/--override-tensor or --cpu-moe, a MoE's experts most often), which every token "
                                 "reads at the host memory's speed."))
        elif rest <= 0:
            findings.append(ok(f"All {log.layers} layers are on the GPU(s) (`offloaded {log.offloaded}/{log.layers}`)"
                               + (f": weights {_placed(on_gpu)}." if on_gpu else ".")))
        elif log.offloaded == 0 and has_gpu:
            findings.append(warn(f"No layer is on a GPU (`offloaded 0/{log.layers}`): the whole model runs on the CPU "
                                 "though llama.cpp has a GPU device, which then does nothing. Give it the layers: "
                                 "`-ngl 99` (--n-gpu-layers); Ollama chooses by the GPU's free memory (its "
                                 "`memory.available`): free the GPU, or set num_gpu."))
        elif log.offloaded:
            findings.append(warn(f"{log.offloaded} of {log.layers} layers are on the GPU(s), the other {rest} on the CPU: "
                                 "each token waits for those, so generation runs at a fraction of the all-GPU speed. "
                                 "Fit them: raise -ngl if the cards have room left, shorten the context (-c) or "
                                 "quantize the KV cache (-ctk/-ctv q8_0), use a smaller quantization, or add a card."))
    findings += _weights_fill(log, on_gpu) + _all_on_cpu(log, has_gpu, command)
    idle = [i for i, n in enumerate(log.split) if n == 0]
    if idle and len(log.split) > 1:
        findings.append(warn(f"Ollama's split gives GPU {', '.join(map(str, idle))} no layer (`layers.split="
                             f"{','.join(map(str, log.split))}`): it holds nothing of the model. Ollama leaves out a "
                             "GPU whose free memory is below what a layer and its share of the context need; a "
                             "shorter context (num_ctx) or freeing that GPU brings it in."))
    if log.rpc_server:
        at, mb, accepted, closed = log.rpc_server
        findings.append(info(f"rpc-server listening on {at}, offering {mb:,} MB of its backend's memory; {accepted} client "
                             f"connection(s) accepted, {closed} closed."))
        findings.append(info(f"{NO_ERROR_SEEN} of the rpc-server's console: a connection closing is a client's session "
                             "(or its query of the server's memory) ending. How fast the client ran, and any error of "
                             "its own, are not shown here: the client's log has them."))
        if (log.found or 0) > 1:  # (this console's one-backend form: llama.cpp before rpc-server took several devices)
            findings.append(warn(f"This rpc-server serves one device (its one backend, {mb:,} MB: device 0) of the "
                                 f"{log.found} GPUs llama.cpp found: the other {log.found - 1} sit idle for its "
                                 "clients. Start one rpc-server per GPU (CUDA_VISIBLE_DEVICES=i, each on its own port) "
                                 "and name each in the client's --rpc, or use a newer rpc-server, which lists every "
                                 "device it serves (`Devices:`)."))
    argv = command_argv(command) if command else []
    if log.rpc_server:  # (-m is --mem for rpc-server only: llama-server's -m is the model)
        server = bool(argv) and argv[0].rsplit("/", 1)[-1] in ("rpc-server", "rpc-server.exe")
        findings += _mem_asked(log.rpc_server[1], option_value(argv, *(("--mem", "-m") if server else ("--mem",))))
    if log.rpc_server or (argv and argv[0].rsplit("/", 1)[-1] == "rpc-server"):  # corpus ze019: ~50% busy on each side
        findings.append(info("rpc-server lends this machine's GPU to a llama.cpp client elsewhere (`--rpc`): the client "
                             "splits the model by layers between its devices and the servers', so each GPU computes "
                             "its layers in turn and waits while the others run theirs (about 1/N busy over N "
                             "devices: expected), and activations cross the network at every hand-off."))
    if log.remote:
        findings.append(info(f"Remote GPUs through rpc-server: {', '.join(log.remote)}. With layers split across "
                             "machines, each token's activations cross the network at every hand-off, and the weights "
                             "are sent over it at load."))
    rpc = [a for m in _RPC_ADDR_RE.finditer(f"{command or ''}\n{context().paste or ''}") for a in m["a"].split(",")] + [
        r[4:-1] for r in log.remote]
    local = bool(rpc) and all(_LOOPBACK_RE.match(a) for a in rpc)
    if log.load_ms is not None and local:
        findings.append(info(f"Load took {log.load_ms / 1000:.1f} s (`load time`), with rpc-server(s) on this machine "
                             f"(`--rpc {rpc[0]}`, a loopback address): the weights and each token's activations go "
                             "through the local loopback, no network link; the RPC layer's copies and round trips "
                             "still cost time against the GPU used directly."))
    elif log.load_ms is not None and (log.remote or _RPC_ASKED_RE.search(context().paste or command or "")):
        findings.append(info(f"Load took {log.load_ms / 1000:.1f} s (`load time`), with rpc-server(s) (`--rpc`): the "
                             "client sends every weight it offloads to them over the network at load, so the link's "
                             "bandwidth sets the load time, and each token then makes round trips to them, so the "
                             "link's latency sets much of the decode speed; a server reached over a public address or "
                             "a slow link makes both slow. `iperf3` and `ping` between the machines measure the link."))
    for what, words in (("KV", "KV cache"), ("compute", "compute buffers")):
        placed = {d: m for d, m in log.mib(what).items() if m > 0}
        if placed:
            findings.append(info(f"{words[0].upper() + words[1:]}: {_placed(placed)}."))
    if log.prompt_tps is not None or log.eval_tps is not None:
        said = [f"{label} {tps:g} tokens/s" for label, tps in (("prompt", log.prompt_tps), ("generation", log.eval_tps))
                if tps is not None]
        findings.append(info(f"Speed printed: {', '.join(said)}."))
    facts = {"found": log.found, "devices": [list(d) for d in log.devices], "offloaded": log.offloaded,
             "layers": log.layers, "split": list(log.split), "weights_mib": weights, "kv_mib": log.mib("KV"),
             "compute_mib": log.mib("compute"), "remote": list(log.remote), "prompt_tps": log.prompt_tps,
             "eval_tps": log.eval_tps}
    return facts, findings


_CPU_BUILD_RE = re.compile(r"no usable GPU found|compiled without GPU support")
# A build WITH the CUDA backend: ggml-cuda's init ran (and failed), or the backend library was loaded.
_CUDA_INIT_RE = re.compile(r"ggml_cuda_init: failed to initialize CUDA: (?P<why>[^\n]{1,200})|load_backend: loaded CUDA backend")


def _cuda_not_started(why: str | None) -> str:
    """-ngl ignored by a build that HAS the CUDA backend (`ggml_cuda_init: failed to initialize CUDA: ...` or `loaded
    CUDA backend`): the driver or the GPUs this process can see are the cause, not the build."""
    said = ("Every buffer in this log is on the CPU though -ngl asked for layers on a GPU, and this build has CUDA "
            + (f"but could not start it (`ggml_cuda_init: failed to initialize CUDA: {why.strip()}`)" if why else
               "(`loaded CUDA backend`) but found no usable GPU")
            + ": the driver or the GPUs this process can see are the cause, not the build (rebuilding changes nothing).")
    low = (why or "").lower()
    if "insufficient" in low:
        return said + (" The driver is older than the CUDA runtime the build was made with: update the NVIDIA driver "
                       "or use a build for the CUDA version `nvidia-smi` shows.")
    return said + (" Check that `nvidia-smi` sees a GPU; in a container, start it with `--gpus all` (the NVIDIA Container "
                   "Toolkit), and check that CUDA_VISIBLE_DEVICES does not hide the GPUs.")


def _all_on_cpu(log: Any, has_gpu: bool, command: str | None = None) -> list[Finding]:
    """Every buffer the log lists on the CPU (its KV cache and compute buffers among them) and no `offloaded N/M` line:
    llama.cpp offloaded nothing. A warning where a GPU or rpc-server is in the log, or the run is told to span several
    machines (a client whose rpc-servers get no layer: llama.cpp#14307, no -ngl); a hedged note otherwise (a CPU-only
    machine runs so by design). Where -ngl was given and llama.cpp says it found no usable GPU (a build without a GPU
    backend: `no usable GPU found, --gpu-layers option will be ignored`), the build is the cause, not -ngl."""
    kinds = {k for d, k, m in log.buffers if m > 0}
    if log.offloaded is not None or not log.buffers or not {"KV", "compute"} <= kinds or any(
            not d.startswith("CPU") for d, _, _ in log.buffers):
        return []
    paste, argv = context().paste or "", command_argv(command) if command else []
    shown = bool(argv) and argv[0].rsplit("/", 1)[-1].startswith(("llama-", "llama.", "main"))
    rpc = bool(log.remote or _RPC_ASKED_RE.search(f"{command or ''}\n{paste}"))
    ngl = option_value(argv, "-ngl", "--n-gpu-layers", "--gpu-layers") not in (None, "0") or "option will be ignored" in paste
    cuda = _CUDA_INIT_RE.search(paste)
    if cuda and (_CPU_BUILD_RE.search(paste) or cuda.group("why")) and ngl and not rpc:
        return [warn(_cuda_not_started(cuda.group("why")))]
    if _CPU_BUILD_RE.search(paste) and ngl and not rpc:
        return [warn("Every buffer in this log is on the CPU though -ngl asked for layers on a GPU: llama.cpp found no "
                     "usable GPU and ignored it (`no usable GPU found`, `compiled without GPU support`), and no CUDA "
                     "backend line (`ggml_cuda_init`, `loaded CUDA backend`) shows: most likely a build without a "
                     "GPU backend. Rebuild it with one (`cmake -B build -DGGML_CUDA=ON` for an NVIDIA GPU, "
                     "docs/build.md) or use a CUDA release; on a machine without a GPU, drop -ngl.")]
    several = (context().nodes or 1) > 1 and (rpc or not shown)
    said = ("Every buffer in this log is on the CPU (its KV cache and compute buffers among them), and no layer was "
            "offloaded: llama.cpp puts layers on GPUs, local or remote (rpc-server's, through --rpc), only when told "
            "with -ngl (--n-gpu-layers); without it the whole model runs on this CPU.")
    if has_gpu or several:
        return [warn(said + (" The run spans several machines: their rpc-servers, serving this client through --rpc, get no layer and sit idle."
                             if several and not has_gpu else " The GPU device llama.cpp has does nothing.")
                     + " Pass `-ngl 99` (every layer) to the client.")]
    return [info(said + " On a CPU-only machine that is the design; where it has a GPU or rpc-servers, pass -ngl.")]


def rpc_findings(rows: list[Any]) -> list[Finding]:
    """A test of one model run both on one machine (no RPC backend) and with its layers split over machines (RPC):
    the two rates side by side. Decode (tgN, one token at a time) runs each token through the machines' layers one
    after the other, so a layer split does not make it faster than one machine (llama.cpp#28494: two Strix Halo boxes,
    tg32 10.75 against 11.01 tok/s on one); what a split adds is memory, for a model that does not fit on one."""
    out = []
    plain = [r for r in rows if r.depth is None and r.concurrency is None]
    for test in dict.fromkeys(r.test for r in plain):
        split = [r for r in plain if r.test == test and "RPC" in (r.backend or "").split(",")]
        alone = [r for r in plain if r.test == test and r.backend and "RPC" not in r.backend.split(",")
                 and any(x.model == r.model for x in split)]
        if not split or not alone:
            continue
        one, over = alone[0], next(x for x in split if x.model == alone[0].model)
        said = (f"{one.model} {test}: {one.tps:g} tok/s on one machine ({one.backend}), {over.tps:g} tok/s with the "
                f"layers split over machines ({over.backend}).")
        if test.startswith("tg") and "+" not in test and over.tps <= one.tps:
            said += (" Decode is no faster split: each token goes through the machines' layers one after the other, "
                     "so a layer split adds memory (for a model that does not fit on one machine), not decode speed"
                     + ("; about the same rate is what it should give, not a fault of the link." if over.tps >= 0.9 *
                        one.tps else "; the rest of the gap is each token waiting on the network between the machines "
                        "(its latency, once per machine boundary), which a faster link narrows."))
        out.append(info(said))
    return out


def compare_findings(compared: list[Any]) -> list[Finding]:
    """compare-llama-bench.py's table (llama.cpp's scripts/compare-commits.sh, llama.cpp#19142: two branches on a DGX
    Spark, speedup 0.99 to 1.01 at depths 1K to 64K): the second build's rate over the first's, its range and median
    per model, and, for a test run at several context depths, how its rate falls with the depth under both builds."""
    out = []
    for model in dict.fromkeys(c.model for c in compared):
        cs = [c for c in compared if c.model == model]
        ups = sorted(c.speedup if c.speedup is not None else c.rates[1] / c.rates[0] for c in cs if c.rates[0])
        if not ups:
            continue
        first, second = cs[0].builds
        median = ups[len(ups) // 2] if len(ups) % 2 else (ups[len(ups) // 2 - 1] + ups[len(ups) // 2]) / 2
        said = (f"llama.cpp's build comparison (compare-llama-bench) on {model}: `{second}` against `{first}` over "
                f"{len(cs)} test(s), speedup {ups[0]:.2f} to {ups[-1]:.2f} (median {median:.2f}; 1.00 is the same "
                "rate).")
        deep = [c for c in cs if "@d" in c.test]
        base = {c.test.split("@d")[0] for c in deep}
        if len(deep) > 1 and len(base) == 1:
            lo, hi = deep[0], deep[-1]
            said += (f" {base.pop()} runs from {lo.rates[0]:g} / {lo.rates[1]:g} t/s at context depth "
                     f"{int(lo.test.split('@d')[1]):,} to {hi.rates[0]:g} / {hi.rates[1]:g} at depth "
                     f"{int(hi.test.split('@d')[1]):,} under both builds: attention over a deeper KV cache costs more "
                     "per token, which is no fault of either.")
        out.append(info(said))
    return out


def _wide_spread(rows: list[Any]) -> list[Finding]:
    """Rows whose standard deviation is above checks/specs/serving.toml [bench] wide_spread_share of their mean: the
    repetitions ran at very different speeds, so the mean is no one speed (an info: field readings call it unreliable,
    not a fault: corpus zo003, x020; the cause is not shown)."""
    from ..calc.specs import row
    share = row("serving.toml", "bench").graded("wide_spread_share")
    wide = [r for r in rows if share is not None and r.tps and r.tps_sd is not None and r.tps_sd > share * r.tps]
    if not wide:
        return []
    said = "; ".join(f"{r.test} {r.tps:g} ± {r.tps_sd:g} tok/s ({r.tps_sd / r.tps:.0%} of the mean)" for r in wide[:3])
    return [info(f"A wide spread over the repetitions: {said}. Some repetitions ran far slower than others (a "
                 "warm-up or a stall: a cache miss, a recompilation or CUDA-graph capture for a new shape, memory "
                 "pressure; on a server with speculative decoding, its acceptance varying with the text), so this "
                 "mean is not one speed, nor a fault by itself. The table cannot tell which: run that test again "
                 "with more repetitions (-r) and look at each one's time.")]


def summarise_llama_bench(b: Any, command: str | None) -> Summary:
    """llama.cpp's llama-bench: prompt processing (ppN) and decode (tgN) rates per model, what backend ran them (RPC:
    layers split over machines), and whether the layers were on the GPU (``ngl`` 0 runs on the CPU)."""
    facts = {"rows": [dataclasses.asdict(r) for r in b.rows], "devices": list(b.devices), "build": b.build,
             "compared": [dataclasses.asdict(c) for c in getattr(b, "compared", ())]}
    findings: list[Finding] = []
    findings += gpu_findings(list(b.devices), found=getattr(b, "found", None))
    swept = [r for r in b.rows if r.depth is not None]
    for test in dict.fromkeys(r.test for r in swept):  # llama-sweep-bench: each rate from the first depth to the last
        at = [r for r in swept if r.test == test]
        what = "prompt processing" if test.startswith("pp") else "decode"
        findings.append(ok(f"llama-sweep-bench {test} ({what}): {at[0].tps:g} tok/s at context depth {at[0].depth:,}"
                           + (f", {at[-1].tps:g} tok/s at depth {at[-1].depth:,} ({len(at)} depths)" if len(at) > 1
                              else "") + "."))
    for r in (r for r in b.rows if r.depth is None):
        what = ("prompt processing: the prompt's tokens at once" if r.test.startswith("pp") and "+" not in r.test
                else "decode of all the requests together" if r.test.startswith("tg") and (r.concurrency or 1) > 1
                else "decode: tokens one at a time, the speed one reader sees" if r.test.startswith("tg")
                else "a prompt, then generation")
        sd = f" ± {r.tps_sd:g}" if r.tps_sd is not None else ""
        if r.concurrency is not None:  # llama-benchy: against a server, the requests at once in the test's name
            each = f", {r.tps_req:g} tok/s each" if r.tps_req is not None and r.concurrency > 1 else ""
            first = f", first token after {r.ttft_ms:g} ms" if r.ttft_ms is not None else ""
            findings.append(ok(f"{r.model}: {r.test} {r.tps:g}{sd} tok/s for {r.concurrency} request(s) at once"
                               f"{each}{first} ({what})."))
            continue
        about = ", ".join(x for x in (r.size, r.backend) if x)  # (llama-benchy's table names neither)
        findings.append(ok(f"{r.model}{f' ({about})' if about else ''}: {r.test} {r.tps:g}{sd} tok/s ({what})."))
        if r.ngl == 0:
            findings.append(warn(f"{r.model}: ngl 0, so no layer ran on the GPU (all on the CPU): pass -ngl 99 to "
                                 "offload them."))
    findings += setting_findings(list(b.rows))
    findings += rpc_findings(list(b.rows)) + compare_findings(list(getattr(b, "compared", ())))


    spread = _wide_spread(list(b.rows))
    findings += setting_findings(list(b.rows)) + spread
    backends = {x for r in b.rows for x in (r.backend or "").split(",")}
    if "RPC" in backends:
        findings.append(info("Backend RPC: llama.cpp split the layers over machines (its RPC servers), a layer split "
                             "whose activations cross the network once per machine boundary per token; `Client "
                             "connection closed` at the end is the RPC session ending with the benchmark, not a fault."))
    if b.rows and not spread and not any(f.level in ("warn", "fail") for f in findings):  # blind batch wa: said so
        findings.append(ok(f"{HEALTHY_RUN}: all {len(b.rows)} test(s) finished with a rate, and nothing in the output "
                           "is wrong (no layer left on the CPU). The rates are said, not graded: how they "
                           "compare with this hardware's is for a run of the same model elsewhere to tell."))
    return facts, findings
