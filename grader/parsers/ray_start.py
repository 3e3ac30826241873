"""Parser for what ``ray start`` prints (head or worker, ``--block`` or not, as a terminal or ``docker logs`` of
NVIDIA's run_cluster.sh shows it), and ``ray stop``'s one line.

Shapes read (Ray 2.x, python/ray/scripts/scripts.py and python/ray/_private/services.py; the logger prefix
``2025-02-16 18:29:05,057 INFO scripts.py:1047 -- `` of ``ray start --block`` in a container is read through)::

    Local node IP: 192.168.100.10
    --------------------
    Ray runtime started.
    --------------------
    Next steps                                         (the head only)
      To add another node to this Ray cluster, run
        ray start --address='192.168.100.10:6379'
      ...
      To terminate the Ray runtime, run
        ray stop
    --block
    This command will now block forever until terminated by a signal.

and what stops it or slows it: ``[... W ...] global_state_accessor.cc:429: Retrying to get node with node ID <hex>``
and ``... This node has an IP address of X, but we cannot find a local Raylet with the same address`` (the node's
raylet not yet seen at its address), ``The object store is using /tmp instead of /dev/shm because /dev/shm has only N
bytes available`` (a container's 64 MiB /dev/shm), ``Failed to send request to gcs, reconnecting`` (gRPC UNAVAILABLE),
(the raylet not yet registered with the head's GCS), ``Unable to connect to GCS (ray head) at ADDR`` / ``Failed to
connect to GCS at address ADDR`` / ``Couldn't reconnect to GCS server. The last attempted GCS server address was ADDR``
(Ray 1's fatal log), ``This node has an IP address of X, and Ray expects this IP address to be either the
GCS address or one of the Raylet addresses. Connected to GCS at Y and found raylets at Z ...``, ``Ray is trying to
start at A, but is already running at B``, ``Some Ray subprocesses exited unexpectedly:`` with the processes
(``raylet [exit code=1]``) below it; a Python traceback in Ray's own code (``File ".../ray/_private/services.py",
line 640, in wait_for_redis_to_start``) with its exception line when the paste has it.

Addresses are kept as printed (``10.0.0.1:6379``); the node ID of a retry is not kept.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .common import ParseError, content_lines

COMMAND = "ray start"

_STAMP_RE = re.compile(r"^\[?\d{4}-\d\d-\d\d (?P<h>\d\d):(?P<m>\d\d):(?P<s>\d\d),(?P<ms>\d{1,6})")
"""The time in Ray's logger header (``2025-02-16 18:29:05,057 INFO ...``, ``[2025-02-16 18:29:17,459 W 1 1]``)."""
_RAY_LOG_PREFIX_RE = re.compile(r"^\[?\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d+\]?\s+\w+\s+[\w.]+:\d+\s+--\s?")
"""Ray's own logger header in front of a line (``2025-02-16 18:29:05,057 INFO scripts.py:1047 -- ``)."""
_LOCAL_IP_RE = re.compile(r"\b(?:Local node IP: |Using IP address )(?P<ip>[0-9A-Fa-f.:]{2,45})\b")  # Ray 2, Ray 0.8
_STARTED_RE = re.compile(r"\bRay runtime started\.|^Started Ray on this node\.")  # Ray 1 and 2 | Ray 0.8
_JOIN_RE = re.compile(r"\bray start --(?:redis-)?address[= ]'?(?P<addr>[\w.:\[\]-]{1,80}?)'?(?:\s|$)")
_HEAD_RE = re.compile(r"\bTo add another node to this Ray cluster, run\b|^Next steps$|\bYou can add additional nodes to the "
                      r"cluster by calling\b")
_OWN_HEAD_RE = re.compile(r"\bprocess_helper\.cc:\d{1,6}: ray start --head\b[^\n]{0,400}?--node-ip-address[ =]'?(?P<ip>[\w.:-]{2,60})")
"""Ray's C++ driver starting a head of its own (``ray::Init`` without an address: ``process_helper.cc:45: ray start --head
--port 6379 ... --node-ip-address '10.90.95.155'``, blind batch vt006)."""
_BLOCK_RE = re.compile(r"\bThis command will now block (?:forever )?until terminated by a signal\b")
_RETRY_RE = re.compile(r"\bRetrying to get node with node ID\b")
_GCS_RE = re.compile(r"\b(?:Unable to connect to GCS(?: \(ray head\))? at|Failed to connect to GCS at address"
                     r"|Couldn't reconnect to GCS server\. The last attempted GCS server address was)\s+"
                     r"(?P<addr>[\w.:\[\]-]{1,80}?)[.,]?(?:\s|$)")
_NO_RAYLET_RE = re.compile(r"\bThis node has an IP address of (?P<ip>[0-9A-Fa-f.:]{2,45}), (?:but we cannot find a local "
                           r"Raylet with the same address|while we can not f(?:i|ou)nd the matched Raylet address)\b")  # newer|older
_SHM_RE = re.compile(r"\bThe object store is using /tmp instead of /dev/shm because /dev/shm has only (?P<n>\d{1,20}) "
                     r"bytes available\b")
_GCS_RETRY_RE = re.compile(r"\bwithin \d{1,3} seconds\.?\s*$")
"""The retry warning of Ray's GCS client (``Failed to connect to GCS at address A within 5 seconds.``): it tries on until
its reconnect timeout (60 s) ends it with a fatal line."""
_GCS_WENT_ON_RE = re.compile(r"\bConnected to Ray cluster\b|\bConstructing CoreWorkerProcess\b|\bInitializing worker at "
                             r"address\b|\bRay runtime started\.|\bConnected to GCS\b")
"""What a process prints once it reached the GCS after that warning."""
_GCS_FATAL_RE = re.compile(r"\bFailed to connect to GCS within \d{1,4} seconds\b")
"""The GCS client's end after its reconnect timeout (a `C` line: the process dies)."""
_GCS_FAILED_RE = re.compile(r"\bFailed to start GCS\b")  # node.py's CRITICAL line when the head's GCS server dies
_GCS_RPC_RE = re.compile(r"\bFailed to send request to gcs, reconnecting\b")
_UNAVAILABLE_RE = re.compile(r"\bStatusCode\.UNAVAILABLE\b")
_STOPPED_RE = re.compile(r"^Stopped (?:all (?P<all>\d{1,6})|only (?P<some>\d{1,6}) out of (?P<of>\d{1,6})) Ray processes\b"
                         r"|^Did not find any active Ray processes\b")
_MISMATCH_RE = re.compile(r"\bThis node has an IP address of (?P<ip>[0-9A-Fa-f.:]{2,45}), and Ray expects this IP "
                          r"address to be either the GCS address or one of the Raylet addresses\b"
                          r"(?:[^\n]{0,80}?Connected to GCS at (?P<gcs>[\w.:-]{2,120}?) and found raylets at "
                          r"(?P<raylets>[^\n]{1,300}?) but none)?")
_RUNNING_RE = re.compile(r"\bRay is trying to start at (?P<at>\S{1,80}?), but is already running at "
                         r"(?P<running>\S{1,80}?)\.(?:\s|$)")
_EXITED_RE = re.compile(r"\bSome Ray subprocesses exited unexpectedly\b|\bRay processes died unexpectedly:")  # Ray 2|0.7
_EXIT_PROC_RE = re.compile(r"^\s*(?P<proc>[a-z_]{3,40}) (?:\[exit code=|died with exit code )(?P<code>-?\d{1,4})\b")
_KILLING_RE = re.compile(r"\bKilling remaining processes and exiting\b")  # Ray 0.7's process monitor, after a death
_TRACEBACK_RE = re.compile(r"^(?:\^C)?Traceback \(most recent call last\):")  # after a typed Ctrl-C too
_RAY_FRAME_RE = re.compile(r"^File \"[^\"]{0,300}?[/\\]ray[/\\][^\"]{1,200}\", line \d{1,7}, in (?P<func>[\w<>.]{1,80})$")
_EXCEPTION_RE = re.compile(r"^(?:[A-Za-z_][\w.]{0,80}\.)?[A-Z]\w{0,60}(?:Error|Exception|Exit|Interrupt)(?::\s?.{0,300})?$")


@dataclass
class RayStart:
    """What ``ray start`` printed. ``local_ip``: the node IP it chose (``Local node IP``); ``started``: it printed
    ``Ray runtime started.``; ``head``: True when it printed the head's next steps, None when not shown;
    ``join_address``: the address it tells workers to join (``ray start --address='IP:6379'``); ``blocking``:
    ``--block`` (it stays in the foreground); ``retries``: how many times the node asked the head's GCS for its own
    registration (``Retrying to get node``); ``gcs_unreachable``: the head address it could not reach;
    ``ip_mismatch``: (this node's IP, the GCS address, the raylets' addresses as printed; None where not shown) when
    no raylet of the cluster is at this node's address (a Ray process started where no Ray node runs);
    ``already_running``: (where it tried, where Ray runs) when a Ray instance held the port; ``exited``: the
    subprocesses that died (``raylet`` with its exit code), and ``subprocesses_exited`` whether Ray said so;
    ``raylet_not_found``: this node's IP, when the raylet's accessor found no local raylet at it while waiting (``This
    node has an IP address of X, but we cannot find a local Raylet``: logged, not fatal); ``shm_bytes``: what
    /dev/shm had (bytes) when the object store fell back to /tmp; ``gcs_rpc_failures``: requests to the GCS that
    failed (``Failed to send request to gcs, reconnecting``); ``gcs_unavailable``: gRPC said ``UNAVAILABLE``;
    ``stopped``: what ``ray stop`` printed, (processes stopped, processes found): ``Stopped all 4 Ray processes``
    is (4, 4), ``Stopped only 2 out of 3`` (2, 3), ``Did not find any active Ray processes`` (0, 0);
    ``killed_rest``: Ray then killed its other processes (``Killing remaining processes and exiting...``);
    ``gcs_failed``: the head's GCS server did not start (``Failed to start GCS``, then its error files' last lines);
    ``traceback``: (the last function of Ray's own code in a Python traceback, or None when no frame of Ray's is
    shown; the exception line, cut to 300 characters, or None when the paste stops before it), None without one."""

    local_ip: str | None = None
    started: bool = False
    head: bool | None = None
    join_address: str | None = None
    blocking: bool = False
    retries: int = 0
    gcs_unreachable: str | None = None
    ip_mismatch: tuple[str, str | None, str | None] | None = None
    already_running: tuple[str, str] | None = None
    subprocesses_exited: bool = False
    exited: list[tuple[str, int]] = field(default_factory=list)
    raylet_not_found: str | None = None
    shm_bytes: int | None = None
    gcs_rpc_failures: int = 0
    gcs_unavailable: bool = False
    stopped: tuple[int, int] | None = None
    traceback: tuple[str | None, str | None] | None = None
    gcs_failed: bool = False
    killed_rest: bool = False
    took_s: float | None = None
    """Seconds from the ``Local node IP`` line to ``Ray runtime started.``, where Ray's logger stamped both (``ray
    start --block``'s log); None where either is not stamped or the clock went back (midnight)."""


def parse_ray_start(text: str) -> RayStart:
    """Read ``ray start``'s output (see the module docstring). Raises ParseError when no line of it is one
    ``ray start`` prints. Never raises otherwise."""
    out = RayStart()
    ip_at: float | None = None
    retrying, gcs_addr = False, None
    for line in content_lines(text):
        s = _RAY_LOG_PREFIX_RE.sub("", line.text.strip(), count=1) if line.text[:1] in "[0123456789" \
            else line.text.strip()
        if m := _LOCAL_IP_RE.search(s):
            out.local_ip, ip_at = m.group("ip"), _stamp(line.text)
        if _STARTED_RE.search(s):
            out.started, at = True, _stamp(line.text)
            if ip_at is not None and at is not None and at >= ip_at and out.took_s is None:
                out.took_s = round(at - ip_at, 3)
        if _HEAD_RE.search(s):
            out.head = True
        elif m := _OWN_HEAD_RE.search(s):
            out.head, out.local_ip = True, out.local_ip or m.group("ip")
        if (m := _JOIN_RE.search(s)) and out.join_address is None:
            out.join_address = m.group("addr")
        if _BLOCK_RE.search(s):
            out.blocking = True
        if _RETRY_RE.search(s):
            out.retries += 1
        if m := _GCS_RE.search(s):
            out.gcs_unreachable = gcs_addr = m.group("addr").rstrip(".")
            retrying = bool(_GCS_RETRY_RE.search(s))  # (Ray's 5-second warning: it goes on trying)
        elif out.gcs_unreachable and retrying and _GCS_WENT_ON_RE.search(s):
            out.gcs_unreachable = None  # it reached the GCS after all (break-it 28 p24, p30)
        elif gcs_addr and _GCS_FATAL_RE.search(s):
            out.gcs_unreachable = gcs_addr  # ... until its reconnect timeout ended it (break-it 29 G12)
        if m := _NO_RAYLET_RE.search(s):
            out.raylet_not_found = m.group("ip")
        if _GCS_FAILED_RE.search(s):
            out.gcs_failed = True
        if m := _SHM_RE.search(s):
            out.shm_bytes = int(m.group("n"))
        if _GCS_RPC_RE.search(s):
            out.gcs_rpc_failures += 1
        if _UNAVAILABLE_RE.search(s):
            out.gcs_unavailable = True
        if m := _STOPPED_RE.match(s):
            n = int(m.group("all") or m.group("some") or 0)
            out.stopped = (n, int(m.group("of") or n))
        if m := _MISMATCH_RE.search(s):
            out.ip_mismatch = (m.group("ip"), m.group("gcs"), m.group("raylets"))
        if m := _RUNNING_RE.search(s):
            out.already_running = (m.group("at"), m.group("running"))
        if _EXITED_RE.search(s):
            out.subprocesses_exited = True
        elif out.subprocesses_exited and (m := _EXIT_PROC_RE.match(s)) and len(out.exited) < 16:
            out.exited.append((m.group("proc"), int(m.group("code"))))
        if _KILLING_RE.search(s):
            out.killed_rest = True
        if _TRACEBACK_RE.match(s):
            out.traceback = out.traceback or (None, None)
        elif out.traceback is not None and out.traceback[1] is None:
            if m := _RAY_FRAME_RE.match(s):
                out.traceback = (m.group("func"), None)
            elif _EXCEPTION_RE.match(s):
                out.traceback = (out.traceback[0], s[:300])
    if out == RayStart():  # no line of it was read
        raise ParseError(COMMAND, "no line of `ray start`'s output found (expected `Local node IP: ...`, "
                                  "`Ray runtime started.` or one of its errors)")
    return out


def _stamp(line: str) -> float | None:
    """The seconds of the day in Ray's logger header of ``line``, None without one."""
    m = _STAMP_RE.match(line.strip())
    return None if m is None else int(m["h"]) * 3600 + int(m["m"]) * 60 + int(m["s"]) + int(m["ms"]) / 10 ** len(m["ms"])
