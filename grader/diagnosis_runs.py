"""The conditions of checks/diagnoses.toml entries about how a run went (a wait repeated, a retry, a rank that left or
timed out, a launch's nodes and ranks, a crash's frame, a hang worked around), split from
:mod:`grader.diagnosis_details` by size: each a function of the log (None when :func:`grader.diagnoses.diagnose_text`
reads plain text), the values read so far and the whole text, that returns more values for the entry's texts, or None
when the entry does not apply. Never words or figures: those are the table's."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Mapping

from grader.judges.context import context, spark_shown  # what `explain --host/--nodes` says of the paste

if TYPE_CHECKING:
    from grader.parsers.vllm_log import VllmLog


def _on_a_spark(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """Applies on a DGX Spark (or another GB10 machine): `explain --host spark`, or, with the host not said, a line
    only a Spark prints (its ConnectX-7 hotplug driver, the GB10's name)."""
    host = context().host
    return {} if host == "spark" or host is None and any(m in text for m in ("cx7-pcie-hotplug", "GB10")) else None

_STALL_RE = re.compile(r"No available shared memory broadcast block found in (?P<seconds>\d{1,5}) seconds")

_STORE_RETRY_RE = re.compile(r"The server socket on [^\n]{1,120}? has timed out, will retry")

_FORMED_RE = re.compile(r"Init COMPLETE|Rendezvous complete|Application startup complete|[Cc]onnected all rings")


def _repeats() -> int:
    """How many lines of a wait in a row mean no progress (checks/specs/serving.toml [engine] stall_repeats)."""
    from grader.calc.specs import row
    return row("serving.toml", "engine").graded("stall_repeats")


def _store_retries(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """Applies where c10d's `has timed out, will retry` comes checks/specs/serving.toml [engine] stall_repeats times or
    more, with no sign after the last of them that the group formed (NCCL's Init COMPLETE, a rendezvous complete):
    their ``count``."""
    hits = list(_STORE_RETRY_RE.finditer(text))
    if len(hits) < _repeats() or _FORMED_RE.search(text, hits[-1].end()):
        return None
    return {"count": len(hits)}

_IDLE_RE = re.compile(r"\[repeated|throughput: 0\.0 tokens/s, Avg generation throughput: 0\.0 tokens/s|\"GET /")
"""Lines that show no progress between the wait lines: Ray's dedup notes, engine stats of no tokens, health checks."""

_PROGRESS_RE = re.compile(r"Application startup complete|Avg generation throughput: (?!0\.0 )\d|torch\.compile takes [\d.]+ s in total"
                          r"|Available KV cache memory: |GPU KV cache size: |Graph capturing finished")  # (the start went on)

_LOCATION_RE = re.compile(r"\[(?P<at>shm_broadcast\.py:\d{1,5})\](?P<rest>[^\n]{0,400})")
"""The logger's location on a wait line; a line cut right after it (no ``rest``) at a wait line's location is that
line again, its text lost."""


_WHO_RE = re.compile(r"^\((?P<who>[\w ]{1,40}pid=\d{1,8}(?:, ip=[\d.]{7,15})?)\)")
"""The process a line of Ray's or vLLM's multiprocess log comes from (``(RayWorkerWrapper pid=412, ip=10.0.0.12)``)."""

_WHEN_RE = re.compile(r"\b\d\d-\d\d \d\d:\d\d:\d\d\b")


def _stall_run(text: str, *, ending: bool = False) -> tuple[int, int]:
    """The longest run of vLLM's `No available shared memory broadcast block` lines with no other vLLM line between
    (blank lines and _IDLE_RE's aside), and not followed by progress (`Application startup complete`, tokens
    generated): (lines, seconds they span), counted for one process (its ``(RayWorkerWrapper pid=N)`` prefix, or none):
    several processes logging the same wait in the same minute are one wait, not several minutes, and one process's
    line pasted twice (the same time) counts once. A line cut after the logger's location of a wait line read before
    it (`[shm_broadcast.py:801]` and no more) is that line once more. ``ending``: the run that ends the text, (0, 0)
    when another line comes after it."""
    best = span = 0
    per: dict[str, list] = {}  # process -> [lines, seconds, last wait's seconds, times seen]
    waits: set[str] = set()
    for line in text.splitlines():
        m, at = _STALL_RE.search(line), _LOCATION_RE.search(line)
        if m and at:
            waits.add(at["at"])
        if m or at and not at["rest"].strip() and at["at"] in waits:
            who, when = _WHO_RE.match(line.strip()), _WHEN_RE.search(line)
            mine = per.setdefault(who["who"] if who else "", [0, 0, 0, set()])
            if not (m and when and when.group() in mine[3]):
                mine[3].add(when.group() if m and when else None)
                mine[2] = int(m["seconds"]) if m else mine[2]
                mine[0], mine[1] = mine[0] + 1, mine[1] + mine[2]
        elif _PROGRESS_RE.search(line):  # it went on: the run was a long step, not a stuck worker
            best = span = 0
            per = {}
        elif line.strip() and not _IDLE_RE.search(line):
            per = {}
        run, seconds = max(((n, sec) for n, sec, _, _ in per.values()), default=(0, 0))
        if run > best:
            best, span = run, seconds
    run, seconds = max(((n, sec) for n, sec, _, _ in per.values()), default=(0, 0))
    return (run, seconds) if ending else (best, span)


def _stall_repeats(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """Applies where checks/specs/serving.toml [engine] stall_repeats of those lines or more come in a row: their
    ``count`` and the ``minutes`` they span."""
    count, seconds = _stall_run(text)
    return {"count": count, "minutes": f"{seconds / 60:g}"} if count >= _repeats() else None


def _stall_open(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """Applies where the paste ends on a run of those lines shorter than stall_repeats yet of checks/specs/serving.toml
    [engine] stall_open or more: the wait repeated and nothing after it shows whether it went on. Its ``count``."""
    from grader.calc.specs import row
    count, _ = _stall_run(text, ending=True)
    opened = row("serving.toml", "engine").graded("stall_open")
    return {"count": count} if opened <= count < _repeats() and _stall_repeats(log, values, text) is None else None

_ACTIVE_RE = re.compile(r"(?:Wait for all ray workers to be active\. |Waiting for nodes to start\.\.\. )"
                        r"(?P<n>\d{1,4})/(?P<m>\d{1,4}) (?:is active|nodes started)")  # (vLLM's script, `ray symmetric-run`)


def _nodes_still_missing(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """Applies where the text's last `Wait for all ray workers to be active. N/M is active` has N below M and no `All
    ray workers are active` follows it, nor a `ray status` with M nodes up: its ``n`` and ``m``, and the ``polls``
    printed."""
    polls = list(_ACTIVE_RE.finditer(text))
    if not polls or int(polls[-1]["n"]) >= int(polls[-1]["m"]) or "All ray workers are active" in text[polls[-1].end():]:
        return None
    from grader.judges.ray_notes import ray_status_after, symmetric_run_went_on
    if ray_status_after(polls[-1].group(), int(polls[-1]["m"])) or symmetric_run_went_on(polls[-1].group(), text):
        return None
    return {"n": polls[-1]["n"], "m": polls[-1]["m"], "polls": len(polls)}


_PREFIX_RE = re.compile(r"^(?:\([\w ]{1,40}pid=\d{1,8}(?:, ip=[\d.]{7,15})?\)\s)?"
                        r"(?:(?:ERROR|WARNING|INFO|CRITICAL|DEBUG) [\d-]{5} [\d:]{8}(?:\.\d{1,6})? \[[^\]\n]{1,80}\]\s)?")
"""A vLLM line's process prefix and logger head, before the text it logged."""


def _no_exception_shown(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """Applies where no exception line (`XxxError: ...`, after a process's log prefix) is in the text: the traceback
    of the process that died is not in the paste."""
    from grader.parsers.traceback import EXCEPTION_RE
    for line in text.splitlines():
        if EXCEPTION_RE.match(_PREFIX_RE.sub("", line.strip(), count=1)[:400]):
            return None
    return {}


def _crash_frame(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """Always applies; ``frame``: the innermost named frame of the native backtrace under the line, past the signal
    handler's (grader.parsers.native_backtrace), where one is printed."""
    from grader.parsers.native_backtrace import crash_frame
    found = crash_frame(text)
    return {"frame": f"`{found[0]}` ({found[1]}" + (f", {found[2]})" if found[2] else ")")} if found else {}

_HANG_RE = re.compile(r"(?i)\b(?:hangs?|hanging|hung|stuck|freez(?:es|ing)?|froze)\b")

_SPARK_WORDS_RE = re.compile(r"\b(?:DGX )?Sparks?\b")

_P2P_OFF_RE = re.compile(r"NCCL_P2P_DISABLE\s*=\s*1\b")

_WORKED_RE = re.compile(r"(?P<gap>[^\n;.!?]{0,80}?)(?<![/\w-])(?:[Ww]orks|[Ww]orked|[Ff]ix(?:es|ed)|[Ss]olve[sd]|"
                        r"[Rr]esolve[sd]|[Hh]elps|[Hh]elped|[Ww]orkaround|[Ww]ork around)(?![/\w-])")

_NOT_SO_RE = re.compile(r"NCCL_|\b(?:not|never|didn'?t|doesn'?t|don'?t|dont|still|neither|nor|no)\b", re.I)

MAX_P2P_MENTIONS = 64
"""At most this many mentions of NCCL_P2P_DISABLE=1 are read for a sentence saying it worked (a bounded cost)."""


def _told_hang(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """Applies where a sentence says NCCL_P2P_DISABLE=1 worked (works, fixed, helped, a workaround; not "did not
    help", "still hangs", another variable's fix, a path such as /work) and the text says the run hangs, is stuck or
    freezes otherwise, on a machine of several GPUs: not a DGX Spark (`explain --host spark`, or the text naming one),
    whose one GPU has no peer to reach over PCIe. Its ``line`` is that sentence's line."""
    if _on_a_spark(log, values, text) is not None or context().host is None and _SPARK_WORDS_RE.search(text) \
            or not _HANG_RE.search(text):  # (a Spark by --host or by its own lines, or named in the text)
        return None
    for i, mention in enumerate(_P2P_OFF_RE.finditer(text)):
        if i >= MAX_P2P_MENTIONS:
            break
        said = _WORKED_RE.match(text, mention.end(), mention.end() + 200)
        if said is not None and not _NOT_SO_RE.search(said.group("gap")):
            start, end = text.rfind("\n", 0, mention.start()) + 1, text.find("\n", mention.end())
            return {"line": text[start:end if end >= 0 else len(text)].strip()[:300]}
    return None

_GLOO_PEERS_RE = re.compile(r"\[Gloo\] Rank \d{1,6} is connected to \d{1,6} peer ranks?\. Expected number of connected peer "
                            r"ranks is : (?P<n>\d{1,6})")

_ELSEWHERE_RE = re.compile(r"connectFullMesh|Connection refused|Connection reset|timed out|, ip=\d|--nnodes[= ]?[2-9]")
"""Signs in a paste that ranks of another machine took part or failed to (Ray's ``ip=`` of a remote worker, Gloo's
failed full mesh, a refused or timed-out connection, torchrun's nodes)."""


def _multi_machine(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """Applies unless `explain --nodes 1` says the paste is of one machine (there loopback is the right address), or
    every Gloo group the paste shows has one rank (``Expected number of connected peer ranks is : 0``): no other
    process, on this machine or another, connects to it."""
    peers = {m.group("n") for m in _GLOO_PEERS_RE.finditer(text)} if "[Gloo] Rank" in text else set()
    alone = peers == {"0"} and not _ELSEWHERE_RE.search(text)  # (a group that failed to connect prints no such line)
    return None if context().nodes == 1 or alone else {}


def _one_machine_told(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """Applies where `explain --nodes 1` says the paste is of one machine (no network carried its collectives), of the
    first process group (``PG 0``, or none named: a later group's first collective comes after the run's others)."""
    return {} if context().nodes == 1 and not re.search(r"\[PG (?:ID )?[1-9]", text) else None


_RDMA_USE_RE = re.compile(r"\b(?:ibv_\w{1,30}|ib_(?:write|read|send|atomic)_(?:bw|lat)|rping|rdma_(?:server|client)|rxe_cfg|"
                          r"fi_info|fi_pingpong|ucx_perftest|ucx_info|ibstat|ibstatus|udaddy|qperf|rdma (?:link|dev)"
                          r"|librdmacm|HCAs? found|No IB devices found|no RDMA devices?|NET/IB|IBext)\b", re.I)
"""What shows a program that means to use an RDMA device: an RDMA tool run (ibv_devinfo, perftest, rping, rxe_cfg,
libfabric's fi_info, UCX's tools), its verdict on the devices (`0 HCAs found`, `No IB devices found`), or NCCL's IB
transport lines."""


def _no_rdma_use_one_machine(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """Applies where `explain --nodes 1` says one machine and nothing in the paste means to use an RDMA device
    (:data:`_RDMA_USE_RE`): a program that loads libibverbs on its way (PyTorch, NCCL, MPI) printed its warnings, and
    between the GPUs of one machine nothing needs RDMA."""
    paste = context().paste  # (its head: judges.context.HEAD_CHARS)
    return {} if context().nodes == 1 and not _RDMA_USE_RE.search(text) and not _RDMA_USE_RE.search(paste) else None


_SOCKET_RUN_RE = re.compile(r"via NET/Socket|Using network Socket|NET/Socket : Using")
_SET_UP_RE = re.compile(r"Init COMPLETE|Connected all rings|# Avg bus bandwidth")
_RDMA_NIC_RE = re.compile(r"\b(?:mlx[45]_\d|uverbs\d|rocep\w|roceP\w|irdma\w{0,8}|bnxt_re\d|rdmap\w|efa_?\d|hfi1_\d|"
                          r"qedr\d|rxe\d|ib\d{1,2}(?:\.\d{1,5})?\b|ibp\d{1,4}s\d{1,4}\w{0,12})|/dev/infiniband|RDMA|InfiniBand|RoCE|ConnectX", re.I)
"""A NIC that RDMA could use, named (an HCA, a uverbs device, a RoCE netdev, /dev/infiniband, the words themselves)."""
_NO_IB_DEVICE_RE = re.compile(r"NET/IB ?: ?No device found\.?")


def _socket_run_no_rdma(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """Applies where the paste shows NCCL set up (``Init COMPLETE``, rings connected, or a finished nccl-tests table)
    over its socket transport, and nothing of an RDMA NIC (:data:`_RDMA_NIC_RE`) or of a program that means to use one
    (:data:`_RDMA_USE_RE`), off a DGX Spark (whose ConnectX-7 RDMA is always meant to be used)."""
    c = context()
    if c.nodes == 1 or spark_shown():
        return None
    both = _NO_IB_DEVICE_RE.sub("", f"{c.paste}\n{text}")  # (NCCL's search finding nothing names no NIC)
    return {} if _SOCKET_RUN_RE.search(both) and _SET_UP_RE.search(both) and not _RDMA_USE_RE.search(both) \
        and not _RDMA_NIC_RE.search(both) else None


def _one_machine_nccl(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """Applies where `explain --nodes 1` says one machine, or NCCL's own communicator line says one node (``nRanks N
    nNodes 1``): no network, so GPU to GPU inside it is the collectives' only path."""
    return {} if context().nodes == 1 or re.search(r"\bnNodes 1\b", text) else None

_WATCHDOG_OP_RE = re.compile(r"(?:\[PG (?:ID )?(?P<pg>\d{1,6})[^\]\n]{0,80}? )?\[?Rank (?P<rank>\d{1,6})\] Watchdog caught "
                             r"collective operation timeout: WorkNCCL\(SeqNum=(?P<seq>\d{1,12}), OpType=(?P<op>\w{1,40})")
"""A watchdog line: its process group where the line names it (``[PG 0 (default_pg) Rank 0]``, ``[PG ID 2 PG GUID
2 Rank 1]``; PyTorch before 2.3 prints ``[Rank 0]`` alone), the rank in that group, the sequence number and the op."""

_WATCHDOG_AT_RE = re.compile(r"\[PG (?:ID )?(?P<pg>\d{1,6})[^\]\n]{0,80}? Rank (?P<rank>\d{1,6})\] Exception \(either an error or "
                             r"timeout\) detected by watchdog at work: (?P<seq>\d{1,12})\b")
"""The line that follows a watchdog timeout in PyTorch 2.2 on, naming the group of the rank's work at that sequence."""


def _watchdog_timeouts(text: str) -> list[tuple[str | None, str, str, str, str]]:
    """Each watchdog timeout of the text: (process group or None where neither its line nor the rank's `detected by
    watchdog at work: N` line names it, rank, sequence number, op, line)."""
    groups = {}  # (rank, seq) -> the group(s) its exception line names
    for m in _WATCHDOG_AT_RE.finditer(text):
        groups.setdefault((m["rank"], m["seq"]), set()).add(m["pg"])
    out = []
    for m in _WATCHDOG_OP_RE.finditer(text):
        named = {m["pg"]} if m["pg"] else groups.get((m["rank"], m["seq"]), set())
        start, end = text.rfind("\n", 0, m.start()) + 1, text.find("\n", m.end())
        out.append((next(iter(named)) if len(named) == 1 else None if not named else "?", m["rank"], m["seq"], m["op"],
                    text[start:end if end >= 0 else len(text)].strip()))
    return out


def _other_op_same_seq(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """Applies where two watchdog lines of the text, of different ranks of one process group, timed out at the same
    sequence number in different collectives (``OpType``): the ranks called different collectives at one step
    (NVIDIA/nccl#1409). Sequence numbers count per process group, so lines of one rank (its groups), or of two
    groups named differently, say nothing of it (a line whose group is not shown is taken as the other's: a cut log). ``seq``, ``op``, ``line``: the first
    of the pair; ``other``: the second's op."""
    seen = _watchdog_timeouts(text)
    for i, (pg, rank, seq, op, line) in enumerate(seen):
        for pg2, rank2, seq2, op2, _ in seen[i + 1:]:
            one_group = "?" not in (pg, pg2) and (pg == pg2 or None in (pg, pg2))
            if seq2 == seq and op2 != op and rank2 != rank and one_group:
                return {"seq": seq, "op": op, "line": line, "other": op2}
    return None

_WATCHDOG_RANK_RE = re.compile(r"\[?Rank (?P<rank>\d{1,6})\] Watchdog caught collective operation timeout")


def _other_rank_timed_out(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """Applies where another rank's watchdog timed out on a collective in the text (``[Rank 1] Watchdog caught
    collective operation timeout``) beside this rank's communicator abort, and that rank can be of the aborted
    communicator (below its ``nranks``, not the aborting rank): it waited for this one. A rank past nranks counts in
    another group (PyTorch's rank of a larger group, NCCL's of a sub-communicator): nothing ties the two."""
    try:
        rank, n = int(values["rank"]), int(values["n"])
    except (KeyError, TypeError, ValueError):
        return None
    waiter = next((m["rank"] for m in _WATCHDOG_RANK_RE.finditer(text) if int(m["rank"]) != rank
                   and int(m["rank"]) < n), None)
    return {"waiter": waiter} if waiter else None


_ROOT_PROMPT_RE = re.compile(r"^\s{0,8}(?:\[?root@[\w.-]{1,64}[: ][^\n#$]{0,120}\]?#|uid=0\(root\))", re.M)
"""A root shell's prompt (``root@host:~#``, ``[root@host ~]#``) or `id`'s ``uid=0(root)``."""


def _memlock_below_rdma(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """Applies where the locked-memory limit read (KiB) is under checks/specs/memory.toml [memlock] rdma_floor_kib;
    ``root``: the root prompt the text (or the paste it came from) shows, where one does (root holds CAP_IPC_LOCK on a host: the limit does not
    bind it there)."""
    from grader.calc.specs import row
    try:
        kib = int(values["kib"])
    except (KeyError, TypeError, ValueError):
        return None
    if kib >= row("memory.toml", "memlock").graded("rdma_floor_kib"):
        return None
    root = _ROOT_PROMPT_RE.search(text) or _ROOT_PROMPT_RE.search(context().paste)  # (explain cuts the prompt off)
    return {"root": root.group().strip()} if root else {}


def _other_devices_open(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """Applies where the text lists RDMA devices that opened (``N HCAs found``, ibv_devinfo's ``hca_id:``)."""
    return {} if re.search(r"\b[1-9]\d{0,2} HCAs? found\b|^hca_id:", text, re.M) else None


def _rpc_endpoint(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """Applies where the text is llama.cpp's (its RPC backend: ``RPC[``, ``rpc-server``, ``--rpc``, ``ggml``); ``empty``
    says so when the endpoint has no host (``:50052``: the --rpc list lost its addresses)."""
    if not any(x in text for x in ("RPC[", "rpc-server", "--rpc", "ggml")):
        return None
    return {"empty": "the endpoint has no host, so the --rpc list lost its addresses (a variable left unset)"} \
        if values.get("endpoint", "").startswith(":") else {}

_NNODES_RE = re.compile(r"--nnodes[= ](?:\d{1,4}:)?(?P<n>\d{1,4})\b|\b(?:nnodes|min_nodes)\s{0,20}[:=]\s{0,4}(?P<m>\d{1,4})\b")

_RDZV_C10D_RE = re.compile(r"rdzv[-_]backend\s{0,20}[:= ]\s{0,20}c10d\b|master_addr is only used for static rdzv_backend")

_FINISHED_RE = re.compile(r"\bLocal worker group finished\b|\(SUCCEEDED\)")  # torchrun's workers ended well

_WENT_ON_RE = re.compile(_FINISHED_RE.pattern + r"|\bRendezvous complete for workers\b")

_NODE_RANK_RE = re.compile(r"--node[-_]rank[= ](?P<r>\d{1,4})\b")


def _nodes_asked(text: str) -> int | None:
    """How many nodes the launch in ``text`` asks for (``--nnodes 2``, ``--nnodes=1:2``, a config's ``nnodes: 2``),
    or `explain --nodes`; None when neither says."""
    m = _NNODES_RE.search(text)
    return context().nodes or (int(m.group("n") or m.group("m")) if m else None)


def _several_nodes_asked(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """Applies where the launch line asks for more than one node (its ``--nnodes``, or `explain --nodes`) and is of a
    node other than the first (``--node-rank`` 1 or more: node 0's store listens on every interface, so loopback
    reaches it there), is no comment (``# torchrun ...`` in a script), and the run did not go on: ``nodes``."""
    line = str(values.get("line", ""))
    rank = _NODE_RANK_RE.search(line)
    n = _nodes_asked(line)
    if line.lstrip("`").startswith("#") or not rank or int(rank.group("r")) < 1 or _WENT_ON_RE.search(text):
        return None
    return {"nodes": n} if n and n > 1 else None


def _loopback_rendezvous(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """Applies unless `explain --nodes 1` says one machine (agents of a two-node launch tried on one box reach each
    other on loopback) or the run went on (its worker group finished)."""
    return None if context().nodes == 1 or _FINISHED_RE.search(text) else {}


def _rendezvous_across_nodes(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """Applies where torchrun's rendezvous is c10d's (a random run id matters to no other), the launch is not said to
    be of one node (``--nnodes 1``, ``min_nodes: 1``, `explain --nodes 1`), and the run did not go on."""
    if not _RDZV_C10D_RE.search(text) or _FINISHED_RE.search(text):
        return None
    return {} if (_nodes_asked(text) or 2) > 1 else None  # (the node count not shown: as a multi-node launch)

_EXIT_WORDS = {"-9": " (killed: SIGKILL, as the kernel's OOM killer sends)", "-6": " (aborted: SIGABRT)",
               "-11": " (a segmentation fault: SIGSEGV)", "-15": " (terminated: SIGTERM, often by the launcher after "
               "another rank failed)"}


def _exit_code_words(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """What the exit code means (``words``), and ``no_file`` where the summary's error_file is `<N/A>`."""
    return {"words": _EXIT_WORDS.get(str(values.get("code")), ""),
            "no_file": "error_file <N/A>" if "error_file: <N/A>" in text else None}


def _not_served(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """Applies unless the text shows the server up (``Application startup complete``, ``Starting vLLM server on``) or
    a run that went on (NCCL's ``Init COMPLETE``, a benchmark's ``Avg bus bandwidth``, an NCCL WARN of its own to
    follow instead)."""
    return None if any(x in text for x in ("Application startup complete", "Init COMPLETE", "Avg bus bandwidth",
                                           "NCCL WARN", "Starting vLLM server on", "Starting vLLM API server")) else {}

_NCCL_VERSION_RE = re.compile(r"NCCL version (\d+)\.(\d+)")


def _old_nccl(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """Applies unless every ``NCCL version X.Y`` the text prints is 2.26 or later (the shared-memory limit was
    mended there: an older log's line pasted beside a newer run says nothing of it)."""
    seen = [(int(a), int(b)) for a, b in _NCCL_VERSION_RE.findall(text)]
    return None if seen and all(v >= (2, 26) for v in seen) else {}


_NOT_REGISTERED_RE = re.compile(r"have not registered with GCS, so retrying")

_GAVE_UP_RE = re.compile(r"^Traceback \(most recent call last\)|^[\w.]{1,80}(?:Error|Exception): |The program will terminate",
                         re.M)


_OUTPUT_END_RE = re.compile(r"^\s{0,4}(?:\([\w.-]{1,40}\) ?)?(?:[\w.@-]{1,64}(?::[\w~/.-]{0,120})?)?\$ \S"
                            r"|^\s{0,4}\[?root@[\w.-]{1,64}[: ][^\n#$]{0,120}\]?# \S", re.M)
_CAME_UP_RE = re.compile(r"^\s{0,8}Ray runtime started\.", re.M)


def _driver_after(text: str) -> tuple[int, str] | None:
    """The retry count and what follows the last `... have not registered with GCS, so retrying` up to the end of its
    own output (the next prompt: a traceback in a block of its own below, the sender's `then it showed`,
    is still its own): in this output, else in the paste (a traceback pasted as a block
    of its own below the same command's lines)."""
    for src in (text, context().paste):
        hits = list(_NOT_REGISTERED_RE.finditer(src))
        if hits:
            end = _OUTPUT_END_RE.search(src, hits[-1].end())
            return len(hits), src[hits[-1].end():end.start() if end else len(src)]
    return None


def _driver_gave_up(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """Applies where Ray's `... have not registered with GCS, so retrying` is followed, in the same output, by a
    traceback, an exception or Ray's `The program will terminate` (the waiting `ray start` or driver gave up) and not
    by `Ray runtime started.`: the retry ``count``."""
    after = _driver_after(text)
    if after and _GAVE_UP_RE.search(after[1]) and not _CAME_UP_RE.search(after[1]):
        return {"count": after[0]}
    return None


def _driver_came_up(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """Applies where the same output goes on to `Ray runtime started.` (the wait cleared)."""
    after = _driver_after(text)
    return {} if after and _CAME_UP_RE.search(after[1]) else None


def _driver_still_waiting(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """Neither gave up nor came up in this output: the lines after it decide."""
    return None if _driver_gave_up(log, values, text) or _driver_came_up(log, values, text) else {}


_BATCH_RE = re.compile(r"^\s{0,8}Total time:\s{0,20}(?P<total>\d{1,6}(?:\.\d{1,6})?) ?s\b[\s\S]{0,400}?^\s{0,8}Avg latency:\s{0,20}"
                       r"(?P<avg>\d{1,9}(?:\.\d{1,6})?) ?ms\b", re.M)
_RATIO_RE = re.compile(r"^\s{0,8}[\w -]{1,40}throughput:\s{0,20}[\d.]{1,12} tok(?:ens)?/s \((?P<x>[\d.]{1,8})x\)", re.M)


_REQUESTS_RE = re.compile(r"^\s{0,8}Requests:\s{1,20}(?P<ok>\d{1,6})/(?P<n>\d{1,6}) successful", re.M)
# the paste says the requests went one at a time (by design: no queue to find) or were of different lengths (then
# requests run together also average about half the batch: the share decides nothing)
_SEQUENTIAL_RE = re.compile(r"(?i)\b(?:send(?:s|ing)?|sent|run(?:s|ning)?|ran|fir(?:e|es|ed|ing)|issu(?:e|es|ed|ing))\b[^\n;.,?!]{0,40}?"
                            r"\b(?:sequential(?:ly)?|one at a time|one by one)\b|\bconcurrency[ =:]{1,3}1\b|--max-concurrency[ =]1\b")
_VARIED_RE = re.compile(r"(?i)\b(?:max_tokens|max-tokens|lengths?|output_len|input_len|sizes?)\b[^\n]{0,40}?\b(?:var(?:y|ies|ied|ying)"
                        r"|differ\w{0,6}|random\w{0,4}|mixed|\d{1,6} ?(?:\.\.|-|to) ?\d{1,6})\b|\b(?:var(?:ied|ying)|different|random"
                        r"|mixed) (?:\w{1,20} ){0,2}(?:lengths?|max_tokens|sizes?)\b|--random-range-ratio")
_HEADING_RE = re.compile(r"^\s{0,4}(?:={2,} ?(?P<eq>[^=\n]{1,80}?) ?={2,}|(?P<colon>[A-Z][^\n:]{1,80}):)\s{0,4}$", re.M)


def _batch_runs(text: str) -> list[dict[str, Any]]:
    """Each batch summary (``Requests: N/N successful`` to the next one) read on its own: ok, n, total (s), avg (s),
    share, its own throughput comparison (ratio), its heading, and whether the lines before it say the requests went
    one at a time or were of different lengths (in this output, else in the paste: a reader may have split it)."""
    for src in (text, context().paste):
        starts = list(_REQUESTS_RE.finditer(src))
        runs = []
        for i, r in enumerate(starts):
            end = starts[i + 1].start() if i + 1 < len(starts) else len(src)
            m = _BATCH_RE.search(src, r.start(), end)
            if not m or not float(m["total"]):
                continue
            before = src[starts[i - 1].end() if i else max(0, r.start() - 2000):r.start()]
            head = list(_HEADING_RE.finditer(before))
            ratio = _RATIO_RE.search(src, r.start(), end)
            total, avg = float(m["total"]), float(m["avg"]) / 1000
            runs.append({"ok": int(r["ok"]), "n": int(r["n"]), "total": total, "avg": avg, "share": avg / total,
                         "ratio": float(ratio["x"]) if ratio else None, "by_design": bool(_SEQUENTIAL_RE.search(before)),
                         "varied": bool(_VARIED_RE.search(before)),
                         "which": (head[-1]["eq"] or head[-1]["colon"]).strip() if head else None})
        if runs:
            return runs
    return []


def _batch_said(run: dict[str, Any], several: bool) -> dict[str, Any]:
    return {"ok": str(run["ok"]), "n": str(run["n"]), "said": f"{'All ' if run['ok'] == run['n'] else ''}{run['ok']} of "
            f"{run['n']}", "total": f"{run['total']:g}", "avg": f"{run['avg']:.3g}", "share": f"{run['share']:.2f}",
            **({"which": run["which"]} if several and run["which"] else {})}


def _batch_row(key: str) -> float:
    from grader.calc.specs import row
    return row("serving.toml", "batch").graded(key)


def _batch_serial(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """Applies where a batch sent at once (``Requests: N/N``) averages under checks/specs/serving.toml [batch]
    serial_share of its total time: the requests were served one after another, not together. Each run on its own;
    not where the paste says they went one at a time (by design) or were of different lengths (then requests run
    together also average about half the batch)."""
    runs = _batch_runs(text)
    got = next((r for r in runs if r["n"] >= 2 and r["share"] < _batch_row("serial_share") and not r["by_design"]
                and not r["varied"]), None)
    return _batch_said(got, len(runs) > 1) if got else None


def _batch_together(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """Applies where a batch's average latency is checks/specs/serving.toml [batch] together_share of its total time
    or more: the requests ran at once; ``ratio``: that run's own throughput comparison below 1, when it prints one
    (the first such run; else the first run that ran together)."""
    runs = _batch_runs(text)
    ran = [r for r in runs if r["n"] >= 2 and r["share"] >= _batch_row("together_share") and not r["by_design"]]
    got = next((r for r in ran if r["ratio"] and 0 < r["ratio"] < 1), ran[0] if ran else None)
    if got is None:
        return None
    ratio = got["ratio"]
    if ratio is None and len(runs) == 1:  # one run: its comparison may be printed apart from it (wg021's table below)
        low = [float(m["x"]) for m in _RATIO_RE.finditer(text + "\n" + context().paste) if 0 < float(m["x"]) < 1]
        ratio = low[0] if low else None
    return {**_batch_said(got, len(runs) > 1), **({"ratio": f"{ratio:g}"} if ratio and 0 < ratio < 1 else {})}


def _pod_running_now(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """Applies where the paste's `kubectl get pod` row for the back-off's pod reads Running with every container
    ready (``1/1 Running 4 (11m ago)``): it restarted and is up now; its ``ready``, ``restarts`` and ``ago``."""
    pod = str(values.get("pod") or "")
    m = pod and re.search(rf"(?m)^{re.escape(pod)}\s{{1,40}}(?P<r>(?P<a>\d{{1,3}})/(?P=a))\s{{1,40}}Running\s{{1,40}}"
                          r"(?P<n>\d{1,6})(?: \((?P<ago>[\w.]{1,12}) ago\))?", (context().paste or text))
    return {"ready": m["r"], "restarts": m["n"], "ago": m["ago"]} if m else None


_REBOOT_RE = re.compile(r"(?m)^\s{0,4}(?:[\w.@:~/-]{0,120}[$#] )?(?:sudo )?(?:reboot|shutdown -r|systemctl reboot)\b"
                        r"|\bbefore (?:the|a) reboot\b")
_SMI_DRIVER_RE = re.compile(r"Driver Version: (?P<v>\d{2,4}\.\d{1,4}(?:\.\d{1,4})?)|^[^\n,]{1,80}, (?P<c>\d{2,4}\.\d{1,4}"
                            r"(?:\.\d{1,4})?)\s{0,4}$", re.M)


def _mismatch_rebooted(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """Applies where the paste says the mismatch was logged before a reboot (a `reboot` below it, or `# before the
    reboot`) and an nvidia-smi below it runs and shows one driver version: ``now``."""
    paste = context().paste or text
    at = paste.find("API mismatch")
    if at < 0 or not _REBOOT_RE.search(paste, max(0, paste.rfind("\n", 0, max(0, at - 400)))):
        return None
    seen = {m["v"] or m["c"] for m in _SMI_DRIVER_RE.finditer(paste, at)}
    return {"now": seen.pop()} if len(seen) == 1 else None


_TIMEOUT_KILL_RE = re.compile(r"\btimeout\s{1,4}(?:-s\s{0,4}|--signal[ =])(?:KILL|SIGKILL|9)\b|\btimeout\b[^\n]{0,60}\s-k\s")


def _killed_by_timeout(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """Applies where the command whose output ends in `Killed` ran under `timeout -s KILL` (killed on purpose)."""
    paste = context().paste or text
    at = paste.find(str(values.get("line") or "Killed"))
    head = paste[:at if at >= 0 else len(paste)]
    cmd = list(_OUTPUT_END_RE.finditer(head))  # (the prompt lines above it: the last is its command's)
    if _TIMEOUT_KILL_RE.search(str(values.get("line") or "")):  # a job line names its command: `[1]+  Killed  timeout ...`
        return {}
    return {} if cmd and _TIMEOUT_KILL_RE.search(head[cmd[-1].start():head.find("\n", cmd[-1].start())]) else None


def _ssh_said(values: Mapping[str, Any], text: str) -> dict[str, Any]:
    said = re.search(r"FAILED rc=\d{1,3} \([\d.]{1,8}s\):[ \t]{1,8}(?P<s>\S[^\n]{0,200})", str(values.get("line") or ""))
    return {"said": said["s"].strip()} if said else {}


def _ssh_retried_ok(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """Applies where a later `SSH script <- HOST OK` for the same host follows the failure (sparkrun went on)."""
    host = str(values.get("host") or "")
    paste = context().paste or text
    at = paste.find(f"SSH script <- {host} FAILED")
    if host and at >= 0 and re.search(rf"SSH script <- {re.escape(host)} OK\b", paste[at:]):
        return _ssh_said(values, text)
    return None


def _ssh_failed(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    return None if _ssh_retried_ok(log, values, text) is not None else _ssh_said(values, text)
