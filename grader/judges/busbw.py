"""Judge of collective bandwidth: nccl-tests (all_reduce_perf, all_gather_perf ...) and the size/time/algbw/busbw
tables of other benchmarks, against the Spark pair's busbw figures when both ranks are Sparks on two hosts.

Figures and their sources (docs/research/procedure.md §2, §6; figures.md §2.4): the busbw bar and the cable's line
rate are the spark-pair ``allgather_busbw_gbs`` range in checks/ranges.toml (L2.busbw judges with it; its floor is
NVIDIA spark_cluster_setup.py's MIN_NCCL_TEST_BW). 18.94/20.95 GB/s at MTU 1500 without NCCL_IB_HCA
(dgx-spark-playbooks issue #25); 22.96 (TrevorSquillario gb10-training) and 23.74 GB/s with both twins and jumbo
frames (PR #103); ~3 GB/s broken (issue #102, PR #103); ~12 GB/s = one twin, single digits = sockets (oshlabs
dgx-spark-cluster VLLM.md).
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from ..diagnoses import known_faults
from ..parsers.common import command_argv, option_value
from ..parsers.nccl_log import transport_verdict
from ..parsers.nccl_tests import BenchTable, NcclTestsResult, busbw_factor
from ..ranges import measurement_params
from .common import (BUSBW_BROKEN_GBS, BUSBW_LINE_GBS, BUSBW_ONE_TWIN_GBS, BUSBW_WARN_GBS, CLUSTER_SETUP, JUMBO_MTU,
                     LINE_GBPS, STALE_CX7, fail, fields_of, info, listed, machines_spanned, ok, on_spark,
                     spark_figure, warn)
from .busbw_notes import _PLATEAU_SPREAD, _plateau, ranks_from_ratio, size_edge, stopped_rising, table_notes
from .context import context, spark_shown
from .model import Finding, Summary
from .nccl import _bootstrap_across_hosts, _inside_findings, _network_findings, with_command_hca
from .nccl_errors import _verbs_findings


BIG_ALLGATHER_WARNING = ("Careful: the 16 GiB all_gather (-b 16G -e 16G) allocates ~32 GB per node and has frozen a Spark "
                         "(power cycle needed): run it only with no model loaded, and try -e 4G (or less) first")


# --------------------------------------------------------------------------- nccl-tests

def _is_spark_pair(res: NcclTestsResult, command: str | None = None) -> bool | None:
    """True when the ranks are two GB10s on two hosts; without the ranks, False when the command line runs other
    than two GPUs, or more than one per process (a Spark pair is two machines of one GPU each); else None."""
    if res.ranks:
        return len(res.hosts) == 2 and res.nranks == 2 and all("GB10" in r.gpu for r in res.ranks)
    gpus = _gpus_of_command(command)
    if any((r.busbw_gbs or 0) > BUSBW_LINE_GBS for r in res.rows):  # faster than one QSFP cable carries: not over it
        return False
    if any(m and m.algbw_gbs and (m.busbw_gbs or 0) - 0.01 > m.algbw_gbs for r in res.rows for m in (r.out_of_place,)):
        return False  # busbw above algbw beyond the printed rounding: all-reduce over more than two ranks
    return False if gpus is not None and gpus != 2 else None


_LAUNCHERS = frozenset({"mpirun", "mpiexec", "orterun", "prterun", "srun"})


def _launched(command: str | None) -> tuple[int | None, int]:
    """How many processes a launch line starts (``mpirun -np N``, ``srun --nodes=N --ntasks-per-node=T``, read among
    the launcher's own options, before the test's program; None without a launcher or where it does not say) and
    nccl-tests' ``-g`` GPUs each (1 unless given; its ``-n`` is iterations, not processes)."""
    argv = command_argv(command)
    if not argv:
        return None, 1
    at = next((i for i, a in enumerate(argv) if "_perf" in a.rsplit("/", 1)[-1]), len(argv))
    launcher = next((a for a in argv[:at] if a.rsplit("/", 1)[-1] in _LAUNCHERS), None)
    def number(args: list[str], *names: str) -> int | None:
        value = option_value(args, *names)
        return int(value) if value and value.isdigit() else None
    own = argv[:at] if launcher else []  # the launcher's options: none without one
    procs, nodes, per = number(own, "-np", "-n", "--np", "--ntasks"), number(own, "--nodes", "-N"), \
        number(own, "--ntasks-per-node")
    if procs is None and nodes is not None and per is not None:
        procs = nodes * per
    return procs, number(argv[at:], "-g", "--ngpus") or 1


def _gpus_of_command(command: str | None) -> int | None:
    """How many GPUs a launch line runs: its processes (:func:`_launched`) times nccl-tests' ``-g`` GPUs each; None
    where it does not say."""
    procs, g = _launched(command)
    return procs * g if procs is not None else g if g > 1 else None


def _sides(row: Any) -> str:
    """``29.5 / 28.14``: a row's busbw out of place and in place (GB/s), as printed; one figure where one is."""
    return " / ".join(f"{m.busbw_gbs:g}" for m in (row.out_of_place, row.in_place) if m is not None and m.busbw_gbs
                      is not None)


def _best_beside(rows: list[tuple[int, float, Any]]) -> list[tuple[float, Any] | None]:
    """For each (size, busbw, row) of ``rows`` (ordered by size), the best (busbw, row) among the rows of the sizes
    before its own in that order (None before the first size)."""
    out: list[tuple[float, Any] | None] = []
    best = group = None
    for k, (size, bw, row) in enumerate(rows):
        if k and size != rows[k - 1][0]:  # a new size: the last size's best joins the rows before
            best = group if best is None or group[0] > best[0] else best
            group = None
        out.append(best)
        group = (bw, row) if group is None or bw > group[0] else group
    return out


def _dip(res: NcclTestsResult) -> list[Finding]:
    """busbw that dips at a size and rises again above it (checks/ranges.toml dip_ratio, from dip_from_bytes), on any
    host: the deepest such dip, said once. Each row counts with its better side (out-of-place or in-place: one side's
    outlier is noise), against the best of the smaller sizes and the best of the larger ones (a sweep that starts
    over, `-o all` or `-N 2`, is not a dip)."""
    ratio, start = (spark_figure("allgather_busbw_gbs", k) for k in ("dip_ratio", "dip_from_bytes"))
    rows = sorted(((r.size_bytes, max(m.busbw_gbs for m in (r.out_of_place, r.in_place) if m is not None), r)
                   for r in res.rows if r.busbw_gbs is not None), key=lambda x: x[0])
    below, above = _best_beside(rows), _best_beside(rows[::-1])[::-1]  # the best of the smaller, of the larger sizes
    worst = None
    for (size, bw, row), low, high in zip(rows, below, above):
        if (size >= start and low is not None and high is not None and bw * ratio < low[0] and high[0] >= bw * ratio
                and (worst is None or bw / low[0] < worst[0])):
            worst = (bw / low[0], row, low[1], high[1])
    if worst is None:
        return []
    _, row, best_row, back = worst
    return [warn(f"busbw dips from {_sides(best_row)} GB/s at {best_row.size_bytes:,} B to {_sides(row)} GB/s at "
                 f"{row.size_bytes:,} B and rises again ({_sides(back)} GB/s at {back.size_bytes:,} B): at that size "
                 "NCCL moves data a slower way, an algorithm or protocol its tuner switches to there, or a path of "
                 "the network (a plugin's or a buffer's threshold). Rerun around that size with NCCL_DEBUG=INFO "
                 "NCCL_DEBUG_SUBSYS=TUNING, and with NCCL_ALGO / NCCL_PROTO set one at a time to find which.")]


def _collapse(res: NcclTestsResult) -> list[Finding]:
    """busbw that falls at the largest size instead of rising (checks/ranges.toml collapse_ratio), on any host."""
    row, ratio = res.largest, spark_figure("allgather_busbw_gbs", "collapse_ratio")
    smaller = [r for r in res.rows if row is not None and r.size_bytes < row.size_bytes and r.busbw_gbs is not None]
    best = max(smaller, key=lambda r: r.busbw_gbs, default=None)
    if best is None or row.busbw_gbs is None or row.busbw_gbs * ratio >= best.busbw_gbs:
        return _dip(res)
    return [warn(f"busbw falls from {_sides(best)} GB/s at {best.size_bytes:,} B to {_sides(row)} GB/s at "
                 f"{row.size_bytes:,} B (out-of-place / in-place): it should rise with the message size. At that size NCCL moves data another, "
                 "much slower way (an algorithm or protocol it switches to there, or a path that stalls): rerun around "
                 "that size with NCCL_DEBUG=INFO, and with NCCL_ALGO / NCCL_PROTO set one at a time to find which.")]


def _busbw_findings(res: NcclTestsResult, command: str | None = None) -> list[Finding]:
    row = res.largest
    if row is None:
        return []
    bw = row.busbw_gbs
    size = row.size_bytes
    gib = size / 2**30
    size_words = f"{gib:g} GiB" if gib >= 1 else f"{size / 2**20:g} MiB" if size >= 2**20 else f"{size} B"
    sides = " / ".join(f"{m.busbw_gbs:g}" for m in (row.out_of_place, row.in_place) if m is not None)
    head = f"busbw {sides} GB/s (out-of-place / in-place) at {size_words}"
    pair = [m.busbw_gbs for m in (row.out_of_place, row.in_place) if m is not None and m.busbw_gbs]
    if len(pair) == 2 and max(pair) > 2 * min(pair):  # one pass of the pair held back: no bandwidth to judge (vy004)
        return [info(f"{head}: the two passes of the same size differ {max(pair) / min(pair):.1f}x, so one of them was "
                     "held back (a cold first pass with too few warm-up iterations, another job on the link) and this "
                     "row cannot say what the link carries. Rerun with more iterations (`-w 10 -n 50`) and a sweep to "
                     "large sizes.")]
    spark = on_spark(_is_spark_pair(res, command))
    out: list[Finding] = []
    latency_bound = (measurement_params("spark-pair", "nccl_tests") or {}).get("latency_bound_below_bytes", 0)
    if all((r.busbw_gbs or 0) == 0 for r in res.rows):
        if res.nranks and res.nranks > 1 and size < latency_bound:  # ranks that move data, tiny messages: latency
            return [info(f"{head}: every row shown is a small message (up to {size_words}), whose busbw rounds to 0: "
                         "these rows measure latency (the time column), not bandwidth; the larger sizes would.")]
        return [info(f"{head}: busbw is 0 in every row, as with a single rank (nothing moves): run one rank per "
                     + ("Spark (`mpirun -np 2 -H <ip1>:1,<ip2>:1 ...`)." if spark is not False else
                        "GPU (-g N, or mpirun -np N with one GPU each)."))]
    if spark is False:
        from ..calc.pcie import link_bandwidth

        hosts, gpus = machines_spanned(None, len(res.hosts)), ", ".join(dict.fromkeys(r.gpu for r in res.ranks))
        one = hosts == 1 or (len(res.hosts) == 1 and not res.ranks_cut and hosts is None)
        pcie = link_bandwidth(5, 16).gbyte_s  # the fastest PCIe link, one way
        ranks = f"; {res.nranks} ranks on " + ("one host" if one else f"{hosts or len(res.hosts)}"
                                               f"{'+' if res.ranks_cut and not hosts else ''} hosts") + f" ({gpus})" \
            if res.ranks else ""
        return [info(f"{head}{ranks}: not a two-Spark run, so the Spark bars do not apply." + (
            " Ranks on one host do not use the cable between two machines." if one else "") + (
            f" {bw:.4g} GB/s is more than any PCIe link carries (Gen5 x16: {pcie:.0f} GB/s each way, "
            "checks/specs/pcie.toml): " + ("these GPUs talk over NVLink (or NVSwitch)." if one else "inside each "
                                           "machine NVLink carries it, and between machines several NICs do, each on "
                                           "its own PCIe link (or a multi-node NVLink domain, MNNVL, as in a GB200 "
                                           "NVL72 rack).")
            if bw > pcie else f" {bw:.4g} GB/s is within one PCIe Gen3 x16 link ({gen3:.1f} GB/s each way, "
            "checks/specs/pcie.toml): what GPUs that talk over PCIe give; GPUs joined by NVLink reach several times "
            "more at large messages." if one and size >= latency_bound and bw <= (gen3 := link_bandwidth(3, 16).gbyte_s)
            else "") + (
            f" At {size_words} the messages are too small to judge bandwidth: latency dominates." if size < latency_bound
            else ""))] + _below_pcie(res, hosts)
    if size < latency_bound:
        return [info(f"{head}: too small a message to judge the link, whose busbw is bound by latency (and NCCL's choice of protocol) below "
                     f"{latency_bound / 2**20:g} MiB (checks/ranges.toml); compare a run that reaches large sizes "
                     f"(NVIDIA's check: -b 16G -e 16G; {BIG_ALLGATHER_WARNING}).")]
    top = sorted((r for r in res.rows if r.busbw_gbs), key=lambda r: r.size_bytes)[-2:]
    flat = _plateau(res) is not None or len(top) == 2 and top[0].size_bytes >= 2**27 and abs(
        top[1].busbw_gbs - top[0].busbw_gbs) <= _PLATEAU_SPREAD * top[1].busbw_gbs  # (128 MB on, vy009: size no more)
    small = size < 2**30 and not flat
    note = (" The message size is small: latency dominates; NVIDIA's check runs -b 16G -e 16G (" + BIG_ALLGATHER_WARNING
            + ")." if small else "")
    transport = transport_verdict(res.nccl_log) if res.nccl_log else "unknown"
    collective = res.collective or "the test"
    bar = (f"{CLUSTER_SETUP}'s warning bar {BUSBW_WARN_GBS:g} GB/s ({BUSBW_WARN_GBS * 8:g} Gb/s, all_gather -b 16G "
           "over the HCAs)")
    if bw >= BUSBW_WARN_GBS:
        out.append(ok(f"{head}: above {bar}: healthy. Seen on Spark pairs: 22.96 GB/s (MTU {JUMBO_MTU}, NCCL 2.28.9) and "
                      f"23.74 GB/s (both twins in NCCL_IB_HCA, MTU {JUMBO_MTU}); the cable's line rate is "
                      f"{BUSBW_LINE_GBS:g} GB/s."))
    elif bw > BUSBW_ONE_TWIN_GBS:
        out.append(warn(f"{head}: below {bar}.{note} Reported: 18.94/20.95 GB/s at MTU 1500 without NCCL_IB_HCA "
                        f"(dgx-spark-playbooks issue #25), 23.74 GB/s with both twins in NCCL_IB_HCA and MTU "
                        f"{JUMBO_MTU} (PR #103): set MTU {JUMBO_MTU} on both Sparks and NCCL_IB_HCA to both twins "
                        "(-x NCCL_IB_HCA=... with mpirun)."))
    elif bw > BUSBW_BROKEN_GBS:
        out.append(fail(f"{head}: about half of what a Spark pair reaches (~23 GB/s).{note} Around 12 GB/s means NCCL "
                        "drives only one twin (oshlabs dgx-spark-cluster): list both twins in NCCL_IB_HCA."))
    else:
        out.append(fail(f"{head}: broken (~3 GB/s is the known failure class).{note} " + _broken_causes(transport)))
    if spark is None and not small and not spark_shown():  # nothing says a Spark pair: the bar is said, not held
        return [info(f"If {collective} ran between two DGX Sparks (one GPU each; the `# Rank` lines and the host are "
                     f"not shown, `explain --host spark|other`): {f.message}") if f.level in ("warn", "fail") else f
                for f in out]
    if spark is None and not small:
        out.append(info(f"The `# Rank` lines are not in this paste: the bar assumes {collective} ran between the two "
                        "Sparks (one GPU each)."))
    return out


def _below_pcie(res: NcclTestsResult, hosts: int | None) -> list[Finding]:
    """A table of one machine's GPUs (or of machines it does not say) whose busbw has flattened, from
    ``dip_from_bytes`` on within ``dip_ratio`` (checks/ranges.toml: it reached its plateau), below what a PCIe 4.0 x16
    link carries in practice (checks/specs/pcie.toml [practical]): a hedged warn naming what decides. busbw is
    the figure nccl-tests makes comparable with a link's bandwidth, so a ring of GPUs with P2P over Gen4/Gen5 x16, or
    over NVLink, reaches that figure or more; PCIe 3.0, x8 slots, traffic staged through host memory (P2P off, SHM)
    or an IOMMU in the path stay below it. Field: tinygrad/open-gpu-kernel-modules#22 (4x RTX 4090, 12.7 GB/s),
    gardenlinux#4556 (4x RTX PRO 6000, 18.8 GB/s), NVIDIA/nccl-tests#44 (2x 2080 Ti over a bridge, 21 GB/s), NVIDIA/nccl#644
    (8 ranks, 7.3 GB/s); 5x RTX 4090 at the Gen4 ceiling read 24.7 GB/s (tinygrad/open-gpu-kernel-modules#17)."""
    from ..calc.pcie import gpu_generation, link_bandwidth, practical_bandwidth

    if hosts is not None and hosts > 1 or len(res.hosts) > 1:
        return []  # between machines the network sets the figure: judged by the network's own readers
    ratio, start = (spark_figure("allgather_busbw_gbs", k) for k in ("dip_ratio", "dip_from_bytes"))
    best: dict[int, float] = {}
    for r in res.rows:
        sides = [m.busbw_gbs for m in (r.out_of_place, r.in_place) if m is not None and m.busbw_gbs is not None]
        if sides and r.size_bytes >= start:
            best[r.size_bytes] = max(best.get(r.size_bytes, 0.0), *sides)
    if len(best) < 3:
        return []
    top, low = max(best.values()), best[min(best)]
    floor, _ = practical_bandwidth(4, 16)
    if top <= 0 or top >= floor or low * ratio < top or best[max(best)] * ratio < top:
        return []  # above the bar, or still climbing (or falling: _collapse says so) within the sizes shown
    one = hosts == 1 or len(res.hosts) == 1 and not res.ranks_cut
    cards = dict.fromkeys(r.gpu for r in res.ranks)
    if cards and {gpu_generation(c) for c in cards} == {3}:  # PCIe 3.0 cards: their own link's figure is the bar
        low, high = practical_bandwidth(3, 16)
        said = (f"busbw flattens at about {top:.3g} GB/s from {min(best) / 2**20:g} MiB on; {', '.join(cards)} "
                f"{'is a PCIe 3.0 card' if len(cards) == 1 else 'are PCIe 3.0 cards'} (checks/specs/pcie.toml), "
                f"whose x16 link carries {low:.1f}-{high:.1f} GB/s of {link_bandwidth(3, 16).gbyte_s:.1f} each way "
                "in practice")
        if top * ratio >= low:  # at the link's figure, within the ratio the table reads as one plateau
            return [info(f"{said}: this is the link's ceiling, nothing holds it back; GPUs joined by NVLink "
                         "reach more.")]
        return [warn(f"{said}: below that, something holds it: peer-to-peer off (traffic staged through host "
                     "memory, SHM), an IOMMU in the path, or a slot running below its width or speed. NCCL_DEBUG=INFO's "
                     "`via P2P` / `via SHM` lines and each GPU's `LnkSta` in `lspci -vv` decide.")]
    where = ("" if one else " If the ranks ran on several machines (the paste does not show its `# Rank` "
             f"lines), it is the network's figure instead: about {top * 8:.0f} Gb/s.")
    return [warn(f"busbw flattens at about {top:.3g} GB/s from {min(best) / 2**20:g} MiB on: below what one PCIe 4.0 "
                 f"x16 link carries in practice ({floor:.1f} GB/s of {link_bandwidth(4, 16).gbyte_s:.1f} each way, "
                 "checks/specs/pcie.toml), and far below NVLink. On PCIe 3.0 or x8 slots that is the link's ceiling; "
                 "for GPUs on PCIe 4.0/5.0 x16 or NVLink something holds it: peer-to-peer off (traffic staged through "
                 "host memory, SHM), an IOMMU in the path, or a slot running below its width or speed. The table "
                 "cannot say which: NCCL_DEBUG=INFO's `via P2P` / `via SHM` lines and each GPU's `LnkSta` in "
                 f"`lspci -vv` decide.{where}")]


def _broken_causes(transport: str) -> str:
    """The causes of a ~3 GB/s busbw between two Sparks that the NCCL lines in the paste do not rule out."""
    build = ("a development-branch NCCL build (build the v2.28.9-1 release tag, as NVIDIA's NCCL playbook does)")
    if transport == "NET/IB":
        return (f"The NCCL lines show NET/IB (RDMA), so this is not a fallback to sockets. Causes seen: {STALE_CX7}; "
                f"or {build}.")
    if "NET/Socket" in transport:
        return ("The NCCL lines show NET/Socket: NCCL fell back to TCP sockets. Give it the RDMA devices (NCCL_IB_HCA "
                f"to both Up twins; in a container --device=/dev/infiniband with IPC_LOCK). Other causes seen: {STALE_CX7}; "
                f"{build}.")
    return ("Causes seen: NCCL fell back to sockets (rerun with -x NCCL_DEBUG=INFO: `NET/Socket` in the log means "
            f"sockets, `NET/IB` rules them out); {STALE_CX7}; or {build}.")


_IB_DISABLED_RE = re.compile(r"(?:^|\s)(?:-x\s+)?NCCL_IB_DISABLE=1(?:\s|$)")
_QUOTED_RE = re.compile(r"`[^`\n]{0,400}`|\b\d[\d.:]{0,40}")  # a quoted line and the figures in a known fault's words
_P2P_DISABLED_RE = re.compile(r"(?:^|\s)(?:-x\s+)?NCCL_P2P_DISABLE=1(?:\s|$)")


def summarise_nccl_tests(res: NcclTestsResult, command: str | None) -> Summary:
    facts = dict(fields_of(res), nranks=res.nranks, hosts=list(res.hosts), nccl_version=res.nccl_version,
                 avg_busbw_recomputed=res.avg_busbw_recomputed, busbw_at_largest_gbs=res.busbw_at_largest_gbs,
                 busbw_unit="GB/s", time_unit="us",
                 nccl_transport=transport_verdict(res.nccl_log) if res.nccl_log else None)
    facts.pop("nccl_log")
    findings: list[Finding] = []
    head = [res.collective or "nccl-tests"]
    if res.nranks:
        gpus = ", ".join(dict.fromkeys(r.gpu for r in res.ranks))
        head.append(f"{res.nranks} rank{'s' if res.nranks != 1 else ''}" + (" (some `# Rank` lines are not in the paste)"
                                                                             if res.ranks_cut else "")
                    + (f" on {', '.join(res.hosts)}" if res.hosts else "") + (f" ({gpus})" if gpus else ""))
    if res.nccl_version:
        head.append(f"NCCL {res.nccl_version}")
    if res.tests_version:
        head.append(f"nccl-tests {res.tests_version}")
    if len(head) > 1 or res.collective:  # (the program's name alone says nothing)
        findings.append(info(", ".join(head) + "."))
    if command and _IB_DISABLED_RE.search(command):
        findings.append(info("The command sets NCCL_IB_DISABLE=1: NCCL uses no RDMA device here, its network between "
                             "machines is TCP sockets, so the bandwidth below is a socket figure."))
    if command and _P2P_DISABLED_RE.search(command) and (res.ngpus or 1) * (res.nthreads or 1) > 1:
        findings.append(warn("The command sets NCCL_P2P_DISABLE=1 for a process that drives several GPUs of one "
                             "machine: their traffic goes through host shared memory (SHM), not GPU to GPU, so the "
                             "bandwidth below is the slower path's. Keep it only where P2P hangs or the cards cannot do "
                             "it (`nvidia-smi topo -p2p r`), and fix that (ACS, the IOMMU, a VM's passthrough)."))
    findings += _verbs_findings(res.nccl_log)
    said: set[str] = set()  # what the table said, its quotes aside: the same fault on several lines is said once
    for e in res.errors[:3]:
        if res.rows and e not in res.died_before:  # it went on and measured: an error on the way stopped nothing
            findings.append(warn(f"An error line, though the test went on and measured (its rows below): `{e[:200]}`."))
            continue
        if res.rows and e in res.died_before[1:]:  # the same run's exit, after its first failure line (wj008)
            continue
        known = known_faults(e)  # what the error means, where checks/diagnoses.toml knows it
        if known and _QUOTED_RE.sub("", known[0][1]) in said:
            continue
        said.update(_QUOTED_RE.sub("", m) for _, m in known)
        told = context().nodes
        local = told == 1 or told is None and len(res.hosts) == 1 and not _launched(command)[0]  # one machine
        failed = "A run before the table failed (the rows are another run's)" if res.rows else "The test failed"
        findings += [Finding(level, f"{failed}: {message}") for level, message in known] or [fail(
            f"{failed}: {e.rstrip('.')}. Rerun with -x NCCL_DEBUG=INFO to see why" + (
                ": on one machine NCCL's WARN line names the local call that failed (shared memory, peer access, "
                "the GPU's place in the PCI tree under WSL or a VM)." if local else
                " (a wrong NCCL_IB_GID_INDEX or HCA gives `unhandled system error`)."))]
    spark = on_spark(_is_spark_pair(res, command)) is not False
    procs = _launched(command)[0] or 0
    alone = res.independent_runs or procs > 1 and (len(res.averages) > 1 or res.sizes_restart)
    if alone:
        how = "each a job of its own: its header printed again, or `Rank 0` again" if res.independent_runs else (
            f"{len(res.averages)} `# Avg bus bandwidth` summaries, " + ", ".join("nan" if v is None else f"{v:g}"
                                                                                for v in res.averages[:4])
            + " GB/s," if len(res.averages) > 1 else "their tables interleaved, the size column starting again,") \
            + f" from one launch of {procs} processes"
        findings.append(fail(f"Several processes each ran the test alone ({how}): "
                             "nccl-tests was built without MPI, so mpirun started independent copies and nothing "
                             "crossed between " + ("the Sparks. Rebuild with `make MPI=1 MPI_HOME=/usr/lib/aarch64-"
                                                   "linux-gnu/openmpi` (NVIDIA's NCCL playbook) and run again." if spark
                                                   else "them. Rebuild with `make MPI=1 MPI_HOME=<your MPI's "
                                                   "prefix>` and run again.")))
        log = res.nccl_log
        if log is not None and log.ib_no_device and log.socket_ifaces:  # what the ranks would use once one job
            findings.append(warn("Its NCCL lines found no RDMA device (`NET/IB : No device found`) and chose TCP "
                                 f"sockets over {log.socket_ifaces[0].name}: once the ranks are one job they would "
                                 "talk over sockets, not RDMA. Where the machines have RDMA NICs, check that the "
                                 "process sees them (`ibv_devices`; in a container --device=/dev/infiniband)."))
    elif res.sizes_restart:
        findings.append(warn("The size column starts again partway (a smaller size after a larger one): these are "
                             "two tables interleaved, from two processes each running its own test (nccl-tests "
                             "built without MPI=1 under mpirun, or two runs at once), or two runs pasted together. "
                             "Read each run on its own; for one job across the ranks rebuild with MPI=1."))
    elif res.nranks == 1:
        zero = busbw_factor(res.collective, 1) == 0  # all_reduce's 2(n-1)/n; reduce's and broadcast's factor is 1
        findings.append(info("One rank: a collective of one GPU moves nothing between GPUs, " + (
            "so its busbw is 0 by definition. " if zero else "so its busbw (algbw here) is a copy inside that GPU's "
            "memory, or none at all (an in-place reduce of one rank returns at once: its figure means nothing). ")
            + ("Run one rank per Spark (`mpirun -np 2 -H <ip1>:1,<ip2>:1 ...`)." if spark else
               "Give it the GPUs to measure (`-g 2` for two GPUs of this machine, or one rank per GPU under mpirun).")))
    if not alone and not res.sizes_restart and res.nranks != 1:
        findings += _busbw_findings(res, command) + _collapse(res) + (table_notes(res) if on_spark(
            _is_spark_pair(res, command)) is False else [])
    avg, rec = res.avg_busbw_reported, res.avg_busbw_recomputed
    if avg is not None and rec is not None:
        findings.append(info(f"# Avg bus bandwidth {avg:g} GB/s; recomputed from the rows (mean busbw of every row, "
                             f"both columns): {rec:.4g} GB/s." + (" With one rank it measures no link."
                                                                  if res.nranks == 1 else "")))
        if abs(avg - rec) > 0.02 * max(avg, rec) + 0.01 and not res.columns:  # cut above: the rows before are gone
            findings.append(info(f"The paste starts inside the table (no header line): the printed average ({avg:g}) "
                                 f"also covers the rows above it, which are not here, so it differs from these "
                                 f"({rec:.4g})."))
        elif abs(avg - rec) > 0.02 * max(avg, rec) + 0.01:
            findings.append(warn(f"The printed average ({avg:g}) does not match the rows ({rec:.4g}): some rows are "
                                 "missing from the paste, or it was edited."))
    elif avg is not None and not alone:
        findings.append(info(f"# Avg bus bandwidth {avg:g} GB/s as printed; the rows it averages are not in the paste."))
    elif rec is not None:
        findings.append(info(f"The output is cut off before `# Avg bus bandwidth`; recomputed from the {len(res.rows)} "
                             f"row(s) shown: {rec:.4g} GB/s (mean busbw of every row, both columns)." + (
                                 " These rows are a slice of the table: its header and `# Rank` lines are not shown, "
                                 "so it cannot tell which GPUs or machines ran it" + (
                                     ", nor the peak bandwidth (the large messages' plateau: no row past "
                                     f"{res.largest.size_bytes} B is shown)." if res.largest.size_bytes < 2**30 else ".")
                                 if res.largest and not res.columns and not res.ranks and not res.nccl_log else "")))
    factor = busbw_factor(res.collective, res.nranks)
    if factor is not None and res.largest is not None and res.largest.out_of_place is not None:
        m = res.largest.out_of_place
        if m.algbw_gbs and abs(m.busbw_gbs - m.algbw_gbs * factor) > 0.02 * m.busbw_gbs + 0.02:
            findings.append(info(f"busbw {m.busbw_gbs:g} is not algbw {m.algbw_gbs:g} x {factor:.3g} as {res.collective} "
                                 f"with {res.nranks} ranks gives: the rank count may differ from the `# Rank` lines."))
    findings += ranks_from_ratio(res) + relative_error(res)
    if res.wrong_total:
        bad = [r.size_bytes for r in res.rows if any((m.wrong or 0) > 0 for m in (r.out_of_place, r.in_place) if m)]
        where = (f" at {listed([str(b) for b in bad[:4]])} B only, {len(res.rows) - len(bad)} other size(s) correct"
                 if len(bad) < len(res.rows) else "")
        across = (machines_spanned(None, len(res.hosts)) or 0) > 1
        findings.append(fail(f"{res.wrong_total} wrong element(s) (#wrong){where}: the data arrived corrupted. Rerun; "
                             "if it repeats, suspect " + ("the path between the machines: NCCL's network transport or "
                                                          "its plugin (and the library under it), the NIC or its "
                                                          "firmware; NCCL_PROTO=Simple, or another plugin version, "
                                                          "isolates it." if across else
                                                          "the NCCL build or the hardware.")))
    if res.out_of_bounds_ok is False:
        findings.append(fail(f"`# Out of bounds values : {res.out_of_bounds} FAILED`: results out of range."))
    findings += size_edge(res) + stopped_rising(res)
    if res.nccl_log is not None:
        log = res.nccl_log
        if len(res.hosts) == 1 and log.nnodes is None and not res.ranks_cut:  # every rank listed: all on one host
            log = dataclasses.replace(log, nnodes=1)
        if log.nranks is None and res.nranks and not res.ranks_cut:  # the `# Rank` lines count them
            log = dataclasses.replace(log, nranks=res.nranks)
        log = with_command_hca(log, command)
        verdict = transport_verdict(log)
        if verdict != "unknown" or log.nnodes == 1:
            findings += _network_findings(log, verdict)
        else:  # no transport chosen yet: the ranks' bootstrap is what the lines show
            findings += _bootstrap_across_hosts(log)
        findings += _inside_findings(log)  # the NCCL lines' word on the GPUs inside a machine (P2P off, a plugin)
    if not res.rows and not res.errors and not res.averages:
        log = res.nccl_log
        quiet = log is not None and not (log.warnings or log.errors or log.verbs_failures or log.troubled
                                         or any(f.level in ("warn", "fail") for f in findings))
        findings.append(info("No data row: the test did not get to measure (or the paste stops before the rows)." if not
                             quiet else "No data row, and no error in NCCL's lines either: the paste stops during "
                             "NCCL's set-up, so it cannot tell whether the test then ran, hung or failed; the lines "
                             "after these (the rows, or an error) decide."))
    return facts, findings


def summarise_bench(t: BenchTable, command: str | None) -> Summary:
    facts = {"columns": list(t.columns), "form": t.form, "rows": [dataclasses.asdict(r) for r in t.rows],
             "busbw_unit": "GB/s", "time_unit": "us"}
    row = t.largest
    findings: list[Finding] = []
    if row is None or row.busbw_gbs is None:
        return facts, [info("No busbw column in this table.")]
    bw, size = row.busbw_gbs, f"{row.size:g} {row.size_unit}"
    facts["busbw_at_largest_gbs"] = bw
    src = "oshlabs dgx-spark-cluster: ~23-24 GB/s is the target between two Sparks"
    if bw > BUSBW_LINE_GBS:
        findings.append(info(f"busbw {bw:g} GB/s at {size}: more than a {LINE_GBPS} Gb/s cable can carry "
                             f"({BUSBW_LINE_GBS:g} GB/s), so the "
                             "ranks shared one machine (NVLink/PCIe): this does not measure the Spark link."))
    elif bw >= BUSBW_WARN_GBS:
        findings.append(ok(f"busbw {bw:g} GB/s at {size}: healthy, what two Sparks reach with both twins ({src})."))
    elif bw > BUSBW_ONE_TWIN_GBS:
        findings.append(warn(f"busbw {bw:g} GB/s at {size}: a little below the ~23-24 GB/s two Sparks reach ({src}); "
                             f"check MTU {JUMBO_MTU} and that NCCL_IB_HCA lists both twins."))
    elif bw > BUSBW_BROKEN_GBS:
        findings.append(fail(f"busbw {bw:g} GB/s at {size}: about half of a Spark pair's ~23 GB/s: NCCL drives only one "
                             "twin (oshlabs dgx-spark-cluster: ~12 GB/s = one twin). List both in NCCL_IB_HCA."))
    else:
        findings.append(fail(f"busbw {bw:g} GB/s at {size}: single digits between two Sparks. Causes seen: NCCL fell back "
                             "to TCP sockets (oshlabs dgx-spark-cluster; run with NCCL_DEBUG=INFO: `NET/Socket` means "
                             f"sockets, `NET/IB` rules them out), or {STALE_CX7}."))
    if row.size_unit.upper().startswith("M") and row.size < 256:
        findings.append(info("The largest message is small: latency dominates; measure up to 1-2 GB for the link's "
                             "bandwidth."))
    return facts, findings


def rdma_in_the_log_beside(items: list[tuple[Any, Any]]) -> list[tuple[int, Finding]]:
    """An nccl-tests table whose own lines do not say the transport, beside an NCCL log in the same paste that shows
    NET/IB: the log rules a fallback to sockets out, which the table's reading could only list as a cause."""
    if not any(s.kind == "nccl-log" and parsed is not None and transport_verdict(parsed) == "NET/IB"
               for s, parsed in items):
        return []
    return [(index, info("The NCCL log in this paste shows NET/IB (RDMA): NCCL did not fall back to sockets for it."))
            for index, (s, parsed) in enumerate(items)
            if s.kind == "nccl-tests" and parsed is not None and not (
                parsed.nccl_log and transport_verdict(parsed.nccl_log) != "unknown")
            and any("fell back to sockets" in f.message for f in s.findings)]


def relative_error(res: NcclTestsResult) -> list[Finding]:
    """The older nccl-tests' ``error`` column (each row's largest relative error, not a count of wrong elements):
    up to checks/ranges.toml [spark-pair.measure.nccl_tests] rounding_relative_error it is float rounding (an info),
    above it (under 1: a larger value is already counted as wrong) a warn."""
    params = measurement_params("spark-pair", "nccl_tests") or {}
    bars = {t: params.get(f"rounding_relative_error{k}", 0) for t, k in (("float", ""), ("half", "_half"), ("bfloat16",
                                                                                              "_bfloat16"))}
    kind = {"half": "half", "float16": "half", "fp16": "half", "bfloat16": "bfloat16", "bf16": "bfloat16"}
    errs = [(m.rel_error, r.dtype) for r in res.rows for m in (r.out_of_place, r.in_place)
            if m is not None and m.rel_error is not None]
    if not errs:
        return []
    worst, dtype = max(errs, key=lambda e: e[0] / (bars[kind.get(e[1], "float")] or 1))  # the worst for its own type
    bar = bars[kind.get(dtype, "float")]
    said = (f"The `error` column (the older nccl-tests format: each row's largest relative error, not a count of wrong "
            f"elements) peaks at {worst:.0e}")
    if worst == 0:
        return [info(said.replace("peaks at", "is") + " in every row shown: no error, each result matches the "
                     "reference.")]
    if worst <= bar:
        return [info(said + (f" ({dtype}, whose rounding is coarser: up to {bar:g} is rounding)" if dtype in kind else "")
                     + ": float rounding (the sum taken in another order), not corruption: the results are correct.")]
    if worst < 1:
        return [warn(said + f": above float rounding ({bar:g}), so some results differ from the reference: rerun; if "
                     "it repeats, suspect the NCCL build or the hardware.")]
    return []

