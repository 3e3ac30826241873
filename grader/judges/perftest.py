"""Judge of what ``ib_write_bw``/``ib_write_lat`` (perftest) measured, one run at a time and several runs of one
size in one paste compared.

Figures and their sources (docs/research/procedure.md §1.5, §1.6, §2; figures.md §2.4): the pass bar and the twin's
PCIe ceiling are the spark-pair ``ib_write_bw_gbps`` range in checks/ranges.toml (L2.ib_write_bw judges with it).
``ib_write_bw`` one twin, 1 QP: 92.57 and 97.28 Gb/s, 189.85 Gb/s for both twins at once (NVIDIA DGX Spark
performance benchmarking guide); 8-25 Gb/s with the link at full speed is the degraded "stale initialization" state
(NVIDIA check-connectx-bandwidth); 4 QPs ~111.7 Gb/s and ``ib_write_lat`` 2-byte t_typical 1.47 us (eugr
spark-vllm-docker NETWORKING.md). Runs of one size whose BW averages disagree by more than ``repeat_ratio_max`` get a
warning naming each figure and how long each run lasted.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from ..parsers.perftest import MB_PER_SEC_IN_GBPS, PerftestRun
from .common import (JUMBO_MTU, LINE_GBPS, LINK_MBPS, SPARK_RDMA, fail, host_findings, info, ok, on_spark, spark_figure,
                     twin_words, warn, whole)
from .context import spark_shown
from .perftest_notes import other_host_notes
from .model import Finding, Section, Summary


PERF_GUIDE, CHECK_BW = "NVIDIA's DGX Spark performance benchmarking guide", "NVIDIA check-connectx-bandwidth"


_HANG_NOTE = re.compile(r"[\W_]*(?:hangs?|hung|hanging|stuck)[\W_]*", re.IGNORECASE)  # a note alone: `--Hang--`

IB_BW_PASS_GBPS = spark_figure("ib_write_bw_gbps")
"""checks/ranges.toml [spark-pair.ib_write_bw_gbps] min: NVIDIA check-connectx-bandwidth's per-rail PASS bar (Gb/s)."""
"""The same range's max: one twin's PCIe Gen5 x4 link (Gb/s)."""
# the same range's other figures, each with its source there: one twin with 1 QP in NVIDIA's performance guide (Gb/s),
# the degraded ConnectX-7 state's ceiling (Gb/s), ib_write_lat's t_typical between two Sparks (us), perftest's -s (B)
IB_BW_TYPICAL = (spark_figure("ib_write_bw_gbps", "typical_1qp_low"), spark_figure("ib_write_bw_gbps", "typical_1qp_high"))
IB_BW_DEGRADED_GBPS = spark_figure("ib_write_bw_gbps", "degraded_max")
LAT_TYPICAL_US = spark_figure("ib_write_bw_gbps", "lat_t_typical_us")
PERFTEST_DEFAULT_BYTES = whole(spark_figure("ib_write_bw_gbps", "default_message_bytes"))


# --------------------------------------------------------------------------- perftest

_PERF_ERROR_HINTS = (
    (r"state is down",
     "the RDMA port has no link, so perftest gives up before it starts (the lines after this one follow from it): check "
     "the cable and the peer; `ibv_devinfo` must show PORT_ACTIVE and `ibdev2netdev` (Up); on InfiniBand a subnet "
     "manager must run."),
    (r"couldn't connect|unable to init the socket|connection refused|failed to connect",
     "the client could not reach the server: start the server side first (same -d device and -p port) on the other "
     "Spark, and give the client the peer twin's address in the same /24 (e.g. 192.168.100.11)."),
    (r"couldn't get device attributes",
     "perftest opened the device but could not query it (ibv_query_device failed): the user-space verbs library or its "
     "provider does not match the kernel's RDMA driver (a kernel updated under MLNX_OFED, or rdma-core built for "
     "another); check that `ibv_devinfo` answers, and install OFED or rdma-core for the running kernel."),
    (r"(?:unable|failed) to create qp",
     "the device refused the queue pair perftest asked for (ibv_create_qp): a capability it lacks, most often the "
     "inline size (-I; latency tests ask for 220 bytes, which providers such as irdma, rxe or bnxt_re may not give) or "
     "the queue depth (-t), or locked memory; try `-I 0` or a smaller `-t`, and `ulimit -l unlimited`."),
    (r"not found|no ib devices|couldn't get device|unable to find",
     "perftest cannot see that RDMA device: check the name with `rdma link` or `ibdev2netdev`; in a container pass "
     "--device=/dev/infiniband (or have the device plugin mount it): without its /dev/infiniband/uverbsN node "
     "libibverbs opens no device, whatever /sys/class/infiniband lists."),
    (r"modify qp \d+ to rtr$",
     "the device rejected the address the queue pair was given to reach its peer (INIT to RTR takes the peer's LID or "
     "GID, its GRH, path MTU and QP number): most often a port that needs a GRH (RoCE, or an InfiniBand port flagged "
     "GRH-required) given none or a wrong GID index, else an MTU above the port's or bad peer data. Pass the port's "
     "RoCE v2 GID index (-x, `show_gids`), which makes perftest fill the GRH, on both sides; check -m against the "
     "port's active MTU (`ibv_devinfo`). The link is not the cause: no connection was made, nothing was measured."),
    (r"modify qp|rtr|rts|timed out|timeout",
     "the queue pair could not connect: wrong GID index (-x) or the peer's address is in another subnet; use the "
     "RoCE v2 IPv4 GID (`show_gids`) and the peer twin on the same /24."),
    (r"mtu", "the RDMA MTU asked for (-m) is above the port's active MTU: leave -m out."),
    (r"permission|memlock|resource temporarily unavailable|cannot allocate",
     "locked memory is limited: run with sudo, or in a container add --ulimit memlock=-1 and IPC_LOCK."),
)


def _perftest_errors(errors: list[str]) -> list[Finding]:
    """perftest's error lines: the first a failure with its likely cause, the ones under it a note of what followed
    from it (perftest gives up step by step: `Unable to create QP.`, `Failed to create QP.`, `Couldn't create IB
    resources`)."""
    if not errors:
        return []
    first = errors[0].rstrip(".")
    hint = next((h for pat, h in _PERF_ERROR_HINTS if re.search(pat, first, re.I)), "see the message.")
    then = [info("Then, following from it: " + ", ".join(f"`{e}`" for e in errors[1:]) + ".")] if errors[1:] else []
    return [fail(f"perftest reported: {first}. Likely cause: {hint}")] + then


def _bw_findings(r: PerftestRun, label: str) -> list[Finding]:
    if (bw := r.bw_average_gbps) is None:
        return []
    qps = f" with {r.qps} QPs" if r.qps and r.qps > 1 else ""
    typical = (f"{PERF_GUIDE}: 92.57 and 97.28 Gb/s per twin with 1 QP"
               + ("; 4 QPs reach ~111.7 Gb/s (eugr spark-vllm-docker)" if r.qps and r.qps > 1 else ""))
    if bw >= IB_BW_TYPICAL[0]:
        return [ok(f"{label}: {bw:.2f} Gb/s{qps}: healthy, above {CHECK_BW}'s {IB_BW_PASS_GBPS:g} Gb/s bar and in line with "
                   f"{typical}. One twin is one PCIe Gen5 x4 link (~100 Gb/s): run one ib_write_bw per twin at the "
                   f"same time to fill the {LINE_GBPS} Gb/s port (NVIDIA: 92.57 + 97.28 = 189.85 Gb/s).")]
    if bw >= IB_BW_PASS_GBPS:
        return [ok(f"{label}: {bw:.2f} Gb/s{qps}: passes {CHECK_BW}'s {IB_BW_PASS_GBPS:g} Gb/s bar, a little below "
                   f"{typical}. Close other traffic and rerun.")]
    if bw <= IB_BW_DEGRADED_GBPS:
        return [fail(f"{label}: only {bw:.2f} Gb/s{qps}, far below {CHECK_BW}'s {IB_BW_PASS_GBPS:g} Gb/s bar. If "
                     f"`ethtool` shows {LINK_MBPS}Mb/s and the PCIe link is 32 GT/s x4, this is the known degraded "
                     "ConnectX-7 state (~13 Gb/s): update DGX OS (`sudo apt full-upgrade`), reboot both Sparks with the cable in; "
                     "if it stays, unplug both Sparks and their power bricks for 60 s.")]
    return [fail(f"{label}: {bw:.2f} Gb/s{qps}, below {CHECK_BW}'s {IB_BW_PASS_GBPS:g} Gb/s bar ({typical}). Check "
                 f"that `ethtool` shows {LINK_MBPS}Mb/s on both ends, that nothing else uses the link, and that the "
                 "PCIe link of the device is Gen5 x4 (`sudo lspci -vv`: LnkSta 32GT/s, Width x4).")]


def _lat_findings(r: PerftestRun, label: str) -> list[Finding]:
    if (t := r.t_typical_us) is None:
        return []
    row = r.lat_rows[0]
    extra = "".join(f", {n} {v:.2f} us" for n, v in (("t_avg", row.t_avg_us), ("99%", row.p99_us),
                                                      ("99.9%", row.p99_9_us)) if v is not None)
    if t <= 2.5:
        return [ok(f"{label}: t_typical {t:.2f} us for {row.bytes}-byte messages{extra}: normal, in line with "
                   f"the {LAT_TYPICAL_US} us measured between two Sparks (eugr spark-vllm-docker).")]
    return [warn(f"{label}: t_typical {t:.2f} us for {row.bytes}-byte messages{extra}, well above the "
                 f"{LAT_TYPICAL_US} us measured between two Sparks: a switch in the path, CPU power saving, or "
                 "the test ran over another interface.")]


def _message_rate_bound(r: PerftestRun, label: str) -> list[Finding]:
    """The last row's messages are below perftest's default size (PERFTEST_DEFAULT_BYTES): its Gb/s is the message
    rate times a tiny size, which says nothing of the link (a cut `-a` sweep): said instead of judging bandwidth."""
    last = r.bw_rows[-1] if r.bw_rows else None
    return [info(f"{label}: {r.bw_average_gbps:.2f} Gb/s average at {last.bytes} B per message: tiny messages are "
                 f"bound by the message rate ({last.msg_rate_mpps:g} Mpps), not the link; judge bandwidth on large "
                 f"messages (perftest's default is {PERFTEST_DEFAULT_BYTES} B, `-a` goes to 8 MiB).")] \
        if last is not None and last.bytes < PERFTEST_DEFAULT_BYTES and last.msg_rate_mpps and r.bw_average_gbps is not None else []


def _other_host_figures(r: PerftestRun, label: str) -> list[Finding]:
    """perftest on a device that is not a DGX Spark twin: the figures as measured, judged against nothing of a Spark."""
    qps = r.header.get("Number of qps", "1")
    reach = ("one QP usually reaches most of a 25-100 Gb/s link" if qps == "1" else
             f"{qps} QPs together should fill it")
    out = [info(f"{label}: {r.bw_average_gbps:.2f} Gb/s average. Compare it with this NIC's own link speed (`ibstat` "
                f"Rate, or `ethtool <netdev>` Speed): {reach}.")] if r.bw_average_gbps is not None else []
    row = r.lat_rows[0] if r.lat_rows else None
    spread = f" (t_min {row.t_min_us:.2f} us)" if row is not None and row.t_min_us is not None else ""
    return out + ([info(f"{label}: t_typical {r.t_typical_us:.2f} us for {row.bytes}-byte messages{spread}.")]
                  if r.t_typical_us is not None and row is not None else [])


def _exchanged_only(r: PerftestRun, label: str) -> list[Finding]:
    """A run that shows both ends' addresses (its QPs exchanged over TCP) and nothing after: no result line and no error.
    With the same GID address on both ends (one device of one host talking to itself), a failure (rdma-core#51's rxe
    loopback: ibv_rc_pingpong on both ends, neither finishing); else a note. A run that printed its `bytes in ...
    seconds` line finished."""
    done = any(re.search(r"\bbytes in [\d.]+ seconds\b|\biters in [\d.]+ seconds\b", x) for x in r.other_lines)
    if done or r.rows or r.errors or r.test or r.header or not r.local_gid_ipv4 or not r.remote_gid_ipv4:
        return []  # (perftest's own runs say more: their banner, header and table; this is ibv_*_pingpong's shape)
    after = "no result line follows the address exchange"
    if r.local_gid_ipv4 == r.remote_gid_ipv4:
        return [fail(f"{label}: the local and remote GIDs are the same address ({r.local_gid_ipv4}): both ends run on "
                     f"one host through one RDMA device (a loopback), and {after}: no message "
                     "completed (it hangs, unless the paste was cut just there). Loopback through one device does not work on every driver (Soft-RoCE's rxe "
                     "among them): run the two ends on two hosts, or on two devices, before judging the path.")]
    return [info(f"{label}: the two ends exchanged their addresses ({r.local_gid_ipv4} and {r.remote_gid_ipv4}), and "
                 f"{after}: the run did not finish, or the paste stops there; its result lines (or an error) decide.")]


def _fell_during(r: PerftestRun, label: str) -> list[Finding]:
    """Readings of one run at one message size (--run_infinitely prints one per interval, each as long as the last):
    a later one well below an earlier (by more than repeat_ratio_max, on its BW average, or on its iterations where a
    row cut short shows only those) is a throughput that fell during the run, a warn with what to look at next."""
    rows = [(x.iterations, x.bw_average_gbps) for x in r.bw_rows if x.bytes == r.bw_rows[-1].bytes] if r.bw_rows else []
    if rows and len(r.cut_row) == 2 and r.cut_row[0] == r.bw_rows[-1].bytes:
        rows.append((r.cut_row[1], None))
    if len(rows) < 2 or not rows[-1][0]:
        return []
    (first_iters, first_bw), (iters, bw) = max(rows[:-1], key=lambda x: x[0]), rows[-1]
    by_bw = bw is not None and first_bw is not None and bw > 0
    ratio = first_bw / bw if by_bw else first_iters / iters
    if ratio <= REPEAT_RATIO_MAX:
        return []
    said = (f"{first_bw:.2f} Gb/s, then {bw:.2f} Gb/s" if by_bw else
            f"{first_iters:,} iterations in an interval, then {iters:,} in the next (its figures cut off)")
    roce = (r.link_type or "").lower() == "ethernet"
    return [warn(f"{label}: the throughput fell during the run, {ratio:.1f} times ({said}, at {r.bw_rows[-1].bytes} B "
                 "per message). A drop like this mid-run often comes before a completion error (`transport retry "
                 "counter exceeded`): packets lost" + (" (RoCE without a lossless setup: PFC or ECN)" if roce else "")
                 + ", a link that flapped, or the other side slowing or going away. Read the lines after it (the "
                 "error, if any), `dmesg` and the port's counters (`ethtool -S`, `rdma statistic`) on both hosts.")]


_GPU_BUFFER_RE = re.compile(r"^(?:using DMA-BUF for GPU buffer|allocated GPU buffer|initializing CUDA$|cuMemAlloc)")


def summarise_perftest(runs: list[PerftestRun], command: str | None) -> Summary:
    facts = {"runs": [dict(dataclasses.asdict(r), bw_average_gbps=r.bw_average_gbps, t_typical_us=r.t_typical_us,
                           bw_unit="Gb/s", latency_unit="us") for r in runs]}
    findings: list[Finding] = []
    for r in runs:
        dev = twin_words(r.device) if r.device else "this device"
        side = {"client": "client side", "server": "server side"}.get(r.role or "", "")
        label = f"{r.test or r.program or 'perftest'} on {dev}" + (f" ({side})" if side else "")
        findings += _perftest_errors(r.errors)
        if any(w.startswith("Conflicting CPU frequency") for w in r.warnings):  # perftest's own check of cpufreq
            findings.append(info(f"{label}: perftest warns the CPU runs below its top frequency (`Conflicting CPU "
                                 "frequency values detected`): power saving scales it, which raises and spreads "
                                 "latencies (bandwidth figures are unaffected). Set the performance governor "
                                 "(`sudo cpupower frequency-set -g performance`) before measuring latency; "
                                 "--CPU-freq only silences the check."))
        tiny = _message_rate_bound(r, label)
        unsaid = not r.device and on_spark(None) is None and not spark_shown()  # neither the device nor a Spark shown
        if r.device and r.device not in SPARK_RDMA or not r.device and on_spark(None) is False or unsaid:  # no Spark bar
            findings += host_findings([r.device], "perftest") if r.device else []
            findings += tiny or (_other_host_figures(r, label) + other_host_notes(r, label))
            if unsaid and not tiny and r.bw_average_gbps is not None and r.bw_average_gbps < IB_BW_PASS_GBPS:
                findings.append(info(f"Neither the device nor the host is shown (`explain --host spark|other`): on a "
                                     f"DGX Spark twin {CHECK_BW}'s bar would be {IB_BW_PASS_GBPS:g} Gb/s; elsewhere "
                                     "the NIC's own link speed decides."))
        else:
            findings += (tiny or _bw_findings(r, label)) + _lat_findings(r, label)
        if r.report_unit and r.report_unit.upper().startswith("MB") and r.bw_rows:
            shown = f" {r.bw_average_gbps / MB_PER_SEC_IN_GBPS:.2f} MB/sec = {r.bw_average_gbps:.2f} Gb/s" \
                if r.bw_average_gbps is not None else " MB/sec"
            findings.append(info(f"{label}: perftest printed{shown} (its MB is 2^20 bytes); converted to Gb/s here. "
                                 "Add --report_gbits to read Gb/s directly."))
        if r.rdma_mtu_bytes and (r.link_type or "").upper() == "IB":  # (no Ethernet MTU under it: blind batch vw007)
            findings.append(info(f"`Mtu : {r.rdma_mtu_bytes}[B]` is the InfiniBand path MTU the ports agreed "
                                 "(`ibv_devinfo`'s active_mtu; 4096 at most): no Ethernet MTU is involved."))
        elif r.rdma_mtu_bytes:
            findings.append(info(f"`Mtu : {r.rdma_mtu_bytes}[B]` is the RDMA path MTU, not the interface's Ethernet MTU: "
                                 "RoCE uses the largest RDMA MTU that fits, 1024 with MTU 1500 and 4096 with MTU "
                                 f"{JUMBO_MTU} (jumbo frames on both ends)." if r.rdma_mtu_bytes < 4096 else
                                 f"`Mtu : {r.rdma_mtu_bytes}[B]` (RDMA path MTU): the interfaces run jumbo frames."))
        if any(_GPU_BUFFER_RE.search(x) for x in r.other_lines):  # perftest --use_cuda (blind batch vw010)
            findings.append(info(f"{label}: its buffers are in GPU memory (`--use_cuda`: GPUDirect RDMA, the NIC "
                                 "reading and writing the GPU's memory over PCIe): the rate includes the GPU-NIC path."))
        if r.same_gid:  # one port talking to itself: the NIC and the host measured, no cable between machines
            findings.append(warn(f"{label}: the local and the remote GID are the same" + (f" ({r.local_gid_ipv4})" if
                                 r.local_gid_ipv4 else "") + ": server and client ran on one port of one host, a "
                                 "loopback through the NIC. It measures the NIC and this host (its PCIe link, its "
                                 "memory), not a link between machines: run the server on the other machine to test "
                                 "that."))
        if r.zero_gids:  # no address behind the GID perftest used: nothing to connect from or to
            which = " and ".join(r.zero_gids) + (" GIDs are" if len(r.zero_gids) > 1 else " GID is")
            findings.append(fail(f"{label}: the {which} all zeros: no address sits at that "
                                 "index, so the queue pairs cannot connect. The RDMA device's netdev has no address, or "
                                 "is not in this container or pod (its interface must be the NIC's: host network, an "
                                 "SR-IOV VF or macvlan on it); `show_gids` lists the indexes that have one."))
        if r.link_type:
            if r.link_type.lower() == "ethernet":
                ips = (f" between {r.local_gid_ipv4} and {r.remote_gid_ipv4}" if r.local_gid_ipv4 and r.remote_gid_ipv4
                       else "")
                gid = f", GID index {r.gid_index}" if r.gid_index is not None else ""
                low = r.gid_index in (0, 1) and not ips  # mlx5's link-local (fe80) GIDs: RoCE v1 at 0, v2 at 1
                findings.append((warn if low else info)(f"Link type Ethernet: RoCE{gid}{ips}." + (
                    " On most RoCE devices (mlx5, rxe) GIDs 0 and 1 are the link-local fe80 ones, good on one L2 segment "
                    "only: use the RoCE v2 GID of the twin's IPv4 address (`show_gids`; usually 3, `-x 3`)." if low else "")))
            elif r.link_type.upper() == "IB" and r.rdma_cm:
                findings.append(info("Link type IB with rdma_cm: forced with --force-link IB; the Spark's link is "
                                     "Ethernet (RoCE), and rdma_cm resolves the addresses."))
        findings += _exchanged_only(r, label)
        hang = None if r.rows else next((x.strip() for x in r.other_lines if _HANG_NOTE.fullmatch(x.strip())), None)
        if hang:  # the person's note where a result should be: it hung, it was not just cut off
            findings.append(fail(f"The paste notes a hang (`{hang}`) where a result should be: no RDMA transfer "
                                 "completed. Past the address exchange (over TCP) that is the RDMA path: GIDs the peer "
                                 "cannot reach (0/1 are link-local fe80), an MTU mismatch, UDP 4791 blocked, Soft-RoCE."))
        elif r.role == "server" and not r.rows and not r.errors and r.cut_row:
            findings.append(info(f"Server side: its result row is cut after its message size ({r.cut_row[0]} bytes"
                                 + (f", {r.cut_row[1]:,} iterations" if len(r.cut_row) > 1 else "") + "): the "
                                 "bandwidth columns are not in the paste; the client prints them too."))
        elif r.role == "server" and not r.rows and not r.errors:
            findings.append(info("Server side, waiting or stopped before a result: the client prints the figures."))
        elif r.truncated:
            findings.append(info(f"{label}: the output stops before the end of the test (cut off or interrupted): "
                                 "the rows shown were read."))
        findings += _fell_during(r, label)
        if r.run_infinitely and r.bw_rows:
            findings.append(info(f"--run_infinitely: {len(r.bw_rows)} readings; the figure above is the last one."))
    if not runs:
        findings.append(info("No perftest run found."))
    return facts, findings + _across_runs(runs)


def _across_runs(runs: list[PerftestRun]) -> list[Finding]:
    """What the runs of one paste say together (one per twin, as a Spark pair's two halves are measured): the RDMA MTU
    differs between them (their interfaces run different Ethernet MTUs), or one run's GID at an index is a link-local
    one where another's is an IPv4 one (its netdev has no IPv4 address)."""
    out: list[Finding] = []
    mtus = {r.device or "?": r.rdma_mtu_bytes for r in runs if r.rdma_mtu_bytes}
    if len(set(mtus.values())) > 1:
        shown = ", ".join(f"{d} {m}" for d, m in mtus.items())
        out.append(warn(f"The runs' RDMA MTUs differ ({shown} bytes): the interfaces behind them run different "
                        f"Ethernet MTUs (4096 needs {JUMBO_MTU} on both ends, 1024 is what MTU 1500 gives). Set one MTU "
                        "on every twin, on both machines."))
    v4 = {r.gid_index for r in runs if r.local_gid_ipv4}
    for r in runs:
        if r.link_local_gids and r.gid_index in v4:
            out.append(warn(f"{r.device or 'A run'}: GID index {r.gid_index} holds a link-local (fe80) GID, where "
                            "another run's holds an IPv4 one: this twin's netdev has no IPv4 address (or it sits at "
                            f"another index), so -x {r.gid_index} does not name its RoCE v2 IPv4 GID. Give the twin an "
                            "IPv4 address in its own subnet and read the index from `show_gids` on both machines."))
    return out

REPEAT_RATIO_MAX = spark_figure("ib_write_bw_gbps", "repeat_ratio_max")
"""[spark-pair.ib_write_bw_gbps] repeat_ratio_max: the larger/smaller BW average of two runs of one size that agree."""
SHORT_RUN_S = spark_figure("ib_write_bw_gbps", "repeat_short_run_s")
"""[spark-pair.ib_write_bw_gbps] repeat_short_run_s: a run shorter than this (s) is dominated by its start."""
MAX_LISTED = 6
"""At most this many runs are quoted in a finding; more are summed up by their range."""


def _lasted_ms(row: Any) -> float | None:
    """How long a bandwidth row's run lasted, in ms: iterations / message rate (None without both)."""
    return row.iterations / (row.msg_rate_mpps * 1e3) if row.iterations and row.msg_rate_mpps else None


def _as_printed(run: Any, row: Any) -> str:
    """A row's BW average as perftest printed it (MB/sec unless --report_gbits), with Gb/s beside MB/sec."""
    gbps = row.bw_average_gbps
    if (run.report_unit or "").upper().startswith("MB"):
        return f"{gbps / MB_PER_SEC_IN_GBPS:.2f} MB/sec ({gbps:.2f} Gb/s)"
    return f"{gbps:.2f} Gb/s"


def repeated_size(items: list[tuple[Section, Any]]) -> list[tuple[int, Finding]]:
    """Runs of one test at one message size, single-size runs (one row each, as a repeated experiment is pasted):
    whether their BW averages agree."""
    groups: dict[tuple, list[tuple[int, Any]]] = {}
    for index, r in ((i, r) for i, (s, parsed) in enumerate(items)
                     if s.kind == "perftest" and not s.error and parsed for r in parsed):
        rows = [x for x in r.bw_rows if x.bw_average_gbps is not None]
        if len(rows) == 1 and r.role != "server":
            groups.setdefault((r.test, r.device, rows[0].bytes), []).append((index, r, rows[0]))
    out: list[tuple[int, Finding]] = []
    for (_test, _dev, size), runs in groups.items():
        if len(runs) < 2:
            continue
        figures = [row.bw_average_gbps for _, _, row in runs]
        ratio = max(figures) / max(min(figures), 1e-9)
        shown = runs if len(runs) <= MAX_LISTED else [min(runs, key=lambda x: x[2].bw_average_gbps),
                                                      max(runs, key=lambda x: x[2].bw_average_gbps)]
        said = (", " if len(runs) <= MAX_LISTED else " to ").join(_as_printed(r, row) for _, r, row in shown)
        if ratio <= REPEAT_RATIO_MAX:
            out.append((runs[-1][0], info(f"{len(runs)} runs at {size} B per message agree: {said}.")))
            continue
        lasted = [_lasted_ms(row) for _, _, row in runs]
        short = [ms for ms in lasted if ms is not None and ms < SHORT_RUN_S * 1e3]
        times = "; ".join(f"{row.iterations} iterations in about {ms:.1f} ms" for (_, _, row), ms in zip(runs, lasted)
                          if ms is not None) if len(runs) <= MAX_LISTED else ""
        apart = f"{ratio:.0f} times" if ratio >= 3 else f"{ratio:.1f} times"
        why = ("A run this short is dominated by its start (connection set-up, first touches of the buffers), so "
               "neither figure is the link's: run each for seconds (`-D 10`, or `-n` 100 times larger) and compare "
               "again; if they still differ, something changed between them (the other side busy, a link "
               "renegotiated)." if short else
               "Each ran long enough to be steady, so something changed between them: a setting (MTU, the device or "
               "GID index, the number of QPs), the other side's load, or the link itself (`ethtool` speed, "
               "`ibdev2netdev`).")
        out.append((runs[-1][0], warn(f"{len(runs)} runs at {size} B per message disagree: {said}, {apart} apart"
                                      + (f" ({times})" if times else "") + ". " + why)))
    return out
