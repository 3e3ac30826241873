"""Conditions of checks/diagnoses.toml entries that need the rest of the paste around the matched line (an entry's
``detail``, beside grader.diagnosis_details, grader.diagnosis_runs and grader.diagnosis_frames, which are full): what
else the paste shows decides between a line's readings. Each a function of the log (None for plain text), the values
read so far and the whole text, returning more values for the entry's texts, or None where the entry does not apply.
Never words or figures: those are the table's.

- NV_ERR_NO_MEMORY alone (corpus m008, pending xm009, wn006): the driver's line, with nothing in the paste that says
  the run failed, does not prove a failure (vllm-project/vllm#56824: the lines also come in healthy starts and at
  rest); beside an OOM kill, memory pressure, an engine error or a freeze told (b027, zd008, xe007, ze004) it is the
  likely cause.
- The NGC banner's ``The NVIDIA Driver was not detected`` with the GPU shown working in the same container after it
  (NVIDIA/nvidia-docker#1548, NVIDIA/nvidia-container-toolkit#271: WSL2, whose driver has no /proc/driver/nvidia, the
  file the entrypoint looks for), or with GPUs asked for on the command line (the paste cannot say which).
- ``ssh: Could not resolve hostname s``: a host list split letter by letter needs several one-letter hosts, or a
  launcher's prefix on the line (spark-arena/sparkrun#257); one typed by hand (``$ ssh n``) is a name that does not
  resolve.
- A start-up warning of what may fail at start (CUDA graphs without memory profiling), with the server shown up after
  it: the fear did not come true there (blind batch wv005).
- A traceback from a program's entry point (its first frame ``<module>`` or runpy's ``_run_module_as_main``) that
  the paste ends inside, every line after its head a frame, a source line or a caret line: an uncaught exception, the
  process ended (blind batch wx004); one whose exception line is there (``KeyboardInterrupt`` too) is read by it.
  Not where the server came up or served before it, nor where a ``^C``, ``KeyboardInterrupt`` or ``Shutting down``
  precedes it: a server stopped by its user prints such a traceback, cut before its ``KeyboardInterrupt`` (break-it 23
  p12).
- A GPU's idle P-state in nvidia-smi's XML report, with nothing in the same report that shows it busy or held back
  (utilisation, a compute process, a slowdown Active: break-it 24 p19/p20).
- nvtop's device header at PCIe Gen 1 or 2: power saving only where its lines show it idle; under load (its
  utilisation high) a link held low (break-it 24 p21).
- A shell's xtrace said to end the paste only where nothing but `+` lines follows it (break-it 24 p32).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Callable, Mapping

from grader.diagnosis_memory import MEMORY_DETAILS
from grader.parsers.common.spans import line_span
from grader.judges.context import context

if TYPE_CHECKING:
    from grader.parsers.vllm_log import VllmLog

_NV_ERR_LINE_RE = re.compile(r"Check failed: [^\n]{0,40}\[NV_ERR_NO_MEMORY\]|returned from _memdescAllocInternal\(")
_RUN_FAILED_RE = re.compile(
    r"(?i)oom[-_ ]?kill|out of memory: kill|killed process|\bkilled\b|memory pressure|\berror|traceback|\bfail(?:ed|s|ure)?\b"
    r"|crash|\breset\b|reboot|froze|freez|\bhung\b|\bhangs?\b|wedge|unresponsive|incident|power[- ]?cycl|segfault"
    r"|\bpanic|\bxid\b|->[ \t]{0,4}\d|\bcounts?\b|\d{1,6} (?:times|lines|occurrences)\b")
"""What says a run failed (or the line came in numbers) beside the driver's line: an OOM kill, the kernel under memory
pressure, an engine's error, a crash, a reset or freeze told, a count of the lines (``grep -c ... -> 202``)."""


def _nv_err_alone(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """Applies where no line of the paste but the driver's NV_ERR_NO_MEMORY message (and its wrapped tail) says that
    something failed: nothing but the line, or the line beside a run that shows no failure (vllm#56824: a start that
    came up)."""
    paste = context().paste or text
    lines = paste.splitlines()
    if not any(_NV_ERR_LINE_RE.search(ln) for ln in lines):
        return None
    return None if any(_RUN_FAILED_RE.search(ln) for ln in lines if not _NV_ERR_LINE_RE.search(ln)) else {}


_GPU_SHOWN_RE = re.compile(
    r"^\|[ \t]{1,4}\d{1,2}[ \t]{1,4}[^|\n]{1,60}\|[ \t]{0,4}[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.\d"  # smi row
    r"|^GPU \d{1,2}: [^\n]{1,80}\(UUID: GPU-"  # nvidia-smi -L
    r"|torch\.cuda\.is_available\(\)[^\n]{0,40}\n?[^\n]{0,12}\bTrue\b"
    r"|[Aa]utomatically detected platform cuda|Found \d{1,2} GPUs? with CUDA|CUDA GPUs? (?:found|available): [1-9]",
    re.MULTILINE)
_GPUS_ASKED_RE = re.compile(r"(?:docker|podman|nerdctl)(?: container)? (?:run|create)\b[^\n]{0,400}?"
                            r"(?P<asked>--gpus[ =]\S{1,40}|--runtime[ =]nvidia|--device[ =]nvidia\.com/gpu\S{0,40})")
_WSL_RE = re.compile(r"microsoft-standard-WSL2|/usr/lib/wsl/|\bWSL ?2\b")


def _after_line(values: Mapping[str, Any], text: str) -> str:
    paste = context().paste or text
    at = paste.find(str(values.get("line") or "\n\n\n"))
    return paste[at:] if at >= 0 else ""


def _ngc_gpu_shown(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """Applies where, after the banner's line, the paste shows the container's GPU at work: an nvidia-smi GPU row,
    ``nvidia-smi -L``'s line, ``torch.cuda.is_available()`` True, vLLM's CUDA platform; ``shown``: that line."""
    shown = _GPU_SHOWN_RE.search(_after_line(values, text))
    return {"shown": shown.group(0).strip().split("\n")[0][:80]} if shown else None


def _ngc_gpus_asked(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """Applies where the paste shows the container started with GPUs asked for (``docker run --gpus all``,
    ``--runtime=nvidia``, a CDI device) or a WSL2 machine, and no GPU at work after the banner (the entry above);
    ``asked`` (present, empty) and ``flag`` where GPUs were asked for, ``wsl`` (present, empty) under WSL2."""
    paste = (context().paste or text)
    asked, wsl = _GPUS_ASKED_RE.search(paste), _WSL_RE.search(paste)
    if not (asked or wsl):
        return None
    return {**({"asked": "", "flag": asked["asked"]} if asked else {}), **({"wsl": ""} if wsl else {})}


_ONE_LETTER_RE = re.compile(r"Could not resolve hostname (?P<host>[A-Za-z0-9]): ")
_LETTER_LIST_RE = re.compile(r"(?<![\w.-])[A-Za-z](?:, ?[A-Za-z0-9](?![\w.-])){2,40}")
_TYPED_SSH_RE = r"(?:^|[$#>\u279c] )[ \t]{{0,4}}ssh[ \t][^\n]{{0,300}}?[ \t](?:[\w.-]{{1,64}}@)?{host}(?:[ \t]|$)"


def _letters_split(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """Applies where the paste shows a host list split letter by letter: two or more different one-letter hosts ssh
    could not resolve, a printed list of single letters (``12 hosts: s, p, a, r, k, 1``), or one such host on a line
    a program wrote (text before ``ssh:``, a launcher's ``SSH cmd <- s FAILED``); not where the paste shows ssh typed
    by hand with that one letter as its host (``$ ssh -i key n``): a name that does not resolve (a typo, an alias
    missing from ~/.ssh/config)."""
    paste = (context().paste or text)
    hosts = {m["host"] for m in _ONE_LETTER_RE.finditer(paste)}
    if len(hosts) >= 2 or _LETTER_LIST_RE.search(paste):
        return {}
    host = str(values.get("host") or "")
    if re.search(_TYPED_SSH_RE.format(host=re.escape(host)), paste, re.MULTILINE):
        return None
    line = str(values.get("line") or "")
    return {} if line.find("ssh: Could not resolve") > 0 and line[:line.find("ssh:")].strip() else None


_LAN_IF_RE = re.compile(r"^(?P<a>(?!docker|br-|veth)[\w.@-]{1,40})[ \t]{1,40}(?:UP|DOWN|UNKNOWN)[ \t]{1,40}[^\n]{0,200}?"
                        r"(?<![\d.])172\.17\.\d{1,3}\.\d{1,3}/|inet 172\.17\.[\d./]{3,12}[^\n]{0,120}?scope global[^\n]{0,40}?"
                        r"(?P<b>(?!docker|br-|veth)\b[\w.@-]{1,40})\s{0,4}$|^(?P<c>(?!docker|br-|veth)[\w.@-]{1,40}):?[ \t]{1,10}"
                        r"(?:Link encap|flags=)[^\n]{0,200}\n(?:[ \t]{1,20}[^\n]{0,200}\n){0,2}[ \t]{1,20}inet (?:addr:)?172\.17\.", re.M)
# Seen from inside a Docker container: its eth0 is one end of a veth pair (`eth0@if24`), Docker's MAC 02:42 on an
# interface that is not the host's bridge, a prompt or Open MPI host prefix that is a 12-hex container id.
_IN_BOX_RE = re.compile(r"^\d{1,6}: eth\d{1,2}@if\d{1,6}:|^(?!docker|br-|veth)[\w.-]{1,40}:?[ \t]{1,20}(?:Link encap:"
                        r"Ethernet[ \t]{1,10}HWaddr |flags=[^\n]{0,200}\n(?:[ \t]{1,20}[^\n]{0,200}\n){0,3}[ \t]{1,20}ether )02:42:"
                        r"|^\w{1,32}@[0-9a-f]{12}:|^\[[0-9a-f]{12}\]\[\[\d{1,9},\d{1,9}\],\d{1,9}\]", re.M)
_IF_INCLUDE_RE = re.compile(r"btl_tcp_if_include[ =](?P<i>(?!docker|172\.17\.0\.)[\w.@/,-]{1,80})")


def _btl_lan(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """Always applies; ``lan`` where the 172.17 address Open MPI dialled is the paste's own network, not Docker's
    default bridge: an interface other than docker0 (``ip addr``) holds a 172.17 address (a LAN in 172.16/12), or
    btl_tcp_if_include already names a real interface (the connect went out on it). Its value: that interface. Not
    where the paste is seen from inside a Docker container (``box``: its eth0@ifN, a 02:42 MAC, a container-id host, or
    the dialled address the rank's own): there eth0 sits on Docker's bridge and --network host is the fix."""
    if not values.get("bridge"):
        return {}
    paste = context().paste or text
    box, lan = _IN_BOX_RE.search(paste), _LAN_IF_RE.search(paste)
    own = lan and re.search(rf"(?<![\d.]){re.escape(str(values['bridge']))}(?![\d.])",  # its own eth0's address
                            paste[lan.start():lan.end() + 16])
    if box or own:
        return {"box": "`" + (box.group(0) if box else f"{next(g for g in lan.groups() if g)} holds {own.group(0)}")
                .strip() + "`"}
    found = lan or _IF_INCLUDE_RE.search(paste)
    return {"lan": next(g for g in found.groups() if g)} if found else {}


_ANSWER_RE = re.compile(r"(?:HTTP Request: POST (?P<h>https?://[^\s/\"]{1,200})?(?P<a>/[^\s\"]{1,200}) \"HTTP/1\.[01] (?P<x>\d{3})"
                        r"|\"POST (?P<b>/[^\s\"]{1,200}) HTTP/1\.[01]\" (?P<y>\d{3})\b)"
                        r"|Retrying request to (?P<r>/[^\s\"]{1,200}) in")


def _answered_later(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """Applies where each inference route answered the entry's status (503, 404) gets a 2xx as its last answer in the
    paste, and either every such answer came before the route's first 2xx (a start-up race, a model name corrected)
    or each was retried (the openai SDK's `Retrying request to`): not a failure of the run. A load test whose errors
    mix with successes (gpustack#1677) is none of these. A route is its server and path where the client's line names
    the URL (two servers are two routes); each retry line counts once, for the route with an answer not yet retried
    (concurrent requests print their retries in any order). ``count``: the answers of that status; ``later``: how."""
    code = "503" if "503" in str(values.get("line") or "") else "404"
    routes: dict[str, list[str]] = {}
    owed: dict[str, int] = {}
    for m in _ANSWER_RE.finditer(context().paste or text):
        if m["r"]:
            due = [k for k in routes if k.endswith(m["r"]) and owed.get(k, 0) > 0]
            if due:
                owed[due[-1]] -= 1
                routes[due[-1]].append("retry")
            continue
        key = f"{m['h'] or ''}{m['a'] or m['b']}"
        routes.setdefault(key, []).append(m["x"] or m["y"])
        owed[key] = owed.get(key, 0) + ((m["x"] or m["y"]) == code)
    hit = {p: seen for p, seen in routes.items() if code in seen}
    if not hit or any(not seen[-1].startswith("2") for seen in hit.values()):
        return None
    retried = all(owed[k] == 0 for k in hit)
    hit = {k: [x for x in seen if x != "retry"] for k, seen in hit.items()}
    early = all(not any(x.startswith("2") for x in seen[:len(seen) - seen[::-1].index(code)]) for seen in hit.values())
    if not (retried or early):
        return None
    return {"count": sum(seen.count(code) for seen in hit.values()), "retried": retried,
            "later": "the client retried it and got 200" if retried else "later requests to it were answered 2xx"}


def _retried_ok(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """:func:`_answered_later` where every such answer was retried by the client and the retry got through."""
    found = _answered_later(log, values, text)
    return found if found and found["retried"] else None


_RAN_OUT_RE = re.compile(r"OutOfMemoryError|CUDA out of memory|EngineDeadError|EngineCore encountered a fatal error|"
                         r"\bKilled\b|oom[-_ ]kill")
"""What says the server died after it came up: out of memory, the engine dead, a kill."""


def _came_up_whole(values: Mapping[str, Any], text: str) -> bool:
    from grader.judges.stops_at import came_up  # (a judge: imported where a start-up warning is read)
    after = _after_line(values, text)
    return came_up(after) and not _RAN_OUT_RE.search(after)


def _server_up_after(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """Applies where the server came up after the matched line and nothing after says it then ran out of memory or
    died (blind batch wv005: CUDA-graph memory profiling off, then the graphs captured and `Application startup
    complete`): what the warning feared did not happen (break-it review 22, p17: an OOM under load after it did)."""
    return {} if _came_up_whole(values, text) else None


def _server_not_up_after(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """:func:`_server_up_after`'s other side: no line after the matched one shows the server up, or it died after."""
    return None if _came_up_whole(values, text) else {}


_FILE_HEAD_RE = re.compile(r"^==> [^\n]{1,200} <==$", re.MULTILINE)
"""`tail`'s (and `head`'s) header of the next file: another process's (often another node's) log begins."""
_RUN_WENT_ON_RE = re.compile(r"NCCL INFO [^\n]{0,200}\bInit COMPLETE\b"
                             r"|(?i:\b(?:step|iter(?:ation)?|epoch)\b[ :=]{0,3}\d{1,9}[^\n]{0,80}\bloss\b[ :=]{0,3}\d)")
"""What a process prints only after it got through the rendezvous: NCCL's communicator set up (its unique id came
through the store), a training step's loss."""


def _store_not_reached(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """Applies unless the same process, after its last failed attempt at that address and port, shows the store reached
    after all: c10d's own `The client socket has connected to` that address and port, NCCL's `Init COMPLETE`, a
    training step (breakit p03: two timed-out attempts, then the ranks initialised); then the failed attempts were a
    passing delay, which the note variant says. Another file's lines (`==> node1.log <==`) are another process's (p26:
    node1 connected to 10.0.0.1, node2 timed out on 172.17.0.1)."""
    paste = context().paste or text
    where = rf"\[?{re.escape(str(values.get('remote')))}\]?:{values.get('port')}\b"
    failed = list(re.finditer(r"has failed to connect to " + where, paste))
    after = paste[failed[-1].start():] if failed else _after_line(values, text)
    head = _FILE_HEAD_RE.search(after)
    after = after[:head.start()] if head else after
    reached = re.search(r"has connected to " + where, after) or _RUN_WENT_ON_RE.search(after)
    return None if reached else {}


_TB_HEAD = "Traceback (most recent call last):"


def _stopped_before(text: str, at: int) -> bool:
    """Whether the few lines just above the traceback that starts at ``at`` show a stop asked for (Ctrl-C)."""
    from grader.judges.stops_at import STOP_RE
    above = text[:at].rstrip().split("\n")[-6:]
    return any(STOP_RE.search(x) for x in above)


def _not_stopped(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """{} unless the paste's last traceback follows a stop asked for (a ``^C``, ``Shutting down``): what a server
    stopped by its user prints, its ``KeyboardInterrupt`` cut off, not a failed launch."""
    at = text.rfind(_TB_HEAD)
    return None if at >= 0 and _stopped_before(text, at) else {}


def _ends_in_frames(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """{} when the paste's last traceback is still open at its end (each line after its head, less the head line's
    own prefix such as ``(APIServer pid=1) ``, indented or blank) and its first frame is the entry point; else None."""
    from grader.judges.stops_at import came_up  # (a judge: imported where a traceback is read)
    at = text.rfind(_TB_HEAD)
    if at < 0 or came_up(text[:at]) or _stopped_before(text, at):
        return None
    prefix = text[text.rfind("\n", 0, at) + 1:at]
    lines = [x[len(prefix):] if prefix and x.startswith(prefix) else x for x in text[at:].split("\n")[1:]]
    lines = [x for x in lines if x.strip()]
    if not lines or any(not x[:1].isspace() for x in lines):
        return None
    return {} if re.search(r", in (?:_run_module_as_main|<module>)\s*$", lines[0]) else None


def _no_death_reason(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """Applies unless the paste holds Ray's own reason for removing a node (`Removing node, ... death reason = X`): then
    that line says why, and the heartbeat line about it is its consequence, not a crash or a network fault to guess at
    (break-it review 23, p20: a node stopped with SIGTERM, then `missed too many heartbeats`)."""
    return None if "death reason = " in (context().paste or text) else {}


def _stop_before_engine_dead(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """Applies where a stop of the server comes before the first `EngineDeadError` (blind batch vd007: `[shutdown]
    EngineCore: trigger received signal=SIGTERM`, then the teardown and EngineDeadError): the value ``stop``, the line
    that says so."""
    from grader.judges.stops_at import STOP_RE
    dead = text.find("EngineDeadError")
    stop = STOP_RE.search(text, 0, dead) if dead > 0 else None
    if stop is None:
        return None
    start, end = text.rfind("\n", 0, stop.start()) + 1, text.find("\n", stop.end())
    return {"stop": text[start:end if end >= 0 else len(text)].strip()[:200]}


_IB_TRANSFER_RE = re.compile(r"Using IB network for transfers|IB transfer IPs? resolved")


def _ib_transfer(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """Applies where sparkrun says it moves files over the Sparks' InfiniBand/RoCE link (`Using IB network for
    transfers`, `IB transfer IPs resolved`): the failed host is then an address on that link (sparkrun#67)."""
    return {} if _IB_TRANSFER_RE.search(text) else None


_GPUD_STATE_RE = re.compile(r'"component": ?"(?P<component>[\w.-]{1,80})",(?:(?!"component")[\s\S]){0,400}?"health": ?"(?P<health>\w{1,20})"')


def _healthy_later(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """Applies where the paste's last state of gpud's component ``values["component"]`` is Healthy and an earlier one
    is not: a state the later one shows mended (break-it 25 p15: Unhealthy at 04:46, Healthy at 04:49)."""
    states = [m.group("health") for m in _GPUD_STATE_RE.finditer(context().paste or text)
              if m.group("component") == values.get("component")]
    return {} if len(states) > 1 and states[-1] == "Healthy" else None


_XML_BUSY_RE = re.compile(r"<(?:clocks_(?:event|throttle)_reasons?_)?(?:hw|sw)_[a-z_]{1,40}>Active<"
                          r"|<gpu_util>\s{0,3}0{0,2}[1-9]\d{0,2}\s{0,3}%|<type>C(?:\+G)?</type>")


def _xml_idle(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """Applies where nothing else in the XML report says the GPU works or is held back: no utilisation above 0%, no
    compute process (`<type>C</type>`, or a `<pid>` of a grep that dropped its type), no hardware or software
    slowdown Active (break-it 24 p19/p20: P8 at 100% with a python process and the power brake Active is a throttled
    GPU, not an idle one)."""
    paste = context().paste or text
    if _XML_BUSY_RE.search(paste) or ("<pid>" in paste and "<type>" not in paste):
        return None
    return {}


def _xml_one_state(paste: str) -> bool:
    """Whether the paste's XML holds one GPU's one report: with several GPUs, or one reported twice, a utilisation
    read anywhere may be another's (break-it 25 F1: one GPU busy at P2 beside one idle at P8)."""
    return len(re.findall(r"<performance_state>", paste)) == 1


_XML_UTIL_RE = re.compile(r"<gpu_util>\s{0,3}(\d{1,3})\s{0,3}%")


def _xml_busy(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """Applies where the same XML report shows the GPU under load (its gpu_util at checks/specs/cooling.toml's
    busy_util_percent or above): an idle P-state then is clocks held down under work (break-it 24 p19)."""
    paste = context().paste or text
    found, bar = _XML_UTIL_RE.search(paste), _busy_bar()
    return {"util": found.group(1)} if found and bar is not None and int(found.group(1)) >= bar \
        and _xml_one_state(paste) else None


_NVTOP_DEV_RE = re.compile(r"Device (\d{1,2}) \[")
_NVTOP_UTIL_RE = re.compile(r"\bGPU\[[|\s]{0,200}?(\d{1,3})%\]")
_NVTOP_PROC_RE = re.compile(r"^\s{0,8}\d{1,8}\s{1,8}\S{1,40}\s{1,8}(\d{1,2})\s{1,8}Compute\b", re.MULTILINE)


def _nvtop_load(values: Mapping[str, Any], text: str) -> tuple[int | None, bool]:
    """nvtop's device ``values["dev"]``: its utilisation as its own lines show it (None where they do not) and
    whether its process list holds a compute process on it."""
    heads = list(_NVTOP_DEV_RE.finditer(text))
    util = None
    if any(text.count("Device ", *line) > 1 for line in _line_spans(text, heads)):  # headers side by side (a wide
        heads = []  # terminal): which bar is whose cannot be read by order (break-it 25 F2)
    for i, m in enumerate(heads):
        if m.group(1) == values.get("dev"):
            end = heads[i + 1].start() if i + 1 < len(heads) else len(text)
            found = _NVTOP_UTIL_RE.search(text, m.end(), end)
            util = int(found.group(1)) if found else None
            break
    return util, any(m.group(1) == values.get("dev") for m in _NVTOP_PROC_RE.finditer(text))


def _line_spans(text: str, heads: list[Any]) -> list[tuple[int, int]]:
    """The (start, end) of the line each match in ``heads`` is on."""
    return [line_span(text, m.start(), m.end()) for m in heads]


def _busy_bar() -> float | None:
    from grader.calc.specs import row
    return row("cooling.toml", "gpu_load").graded("busy_util_percent")


def _nvtop_idle(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """Applies where nvtop shows the device idle, or shows nothing of its load: no utilisation above 0% in its lines,
    no compute process on it (break-it 24 p21: Gen 1 at 100% and 342 W is not power saving)."""
    util, proc = _nvtop_load(values, text)
    return None if proc or (util or 0) > 0 else {}


def _nvtop_busy(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """Applies where nvtop shows the device under load (its utilisation at checks/specs/cooling.toml's
    busy_util_percent or above), its link still at the low generation."""
    util, bar = _nvtop_load(values, text)[0], _busy_bar()
    return {"util": str(util)} if util is not None and bar is not None and util >= bar else None


_XTRACE_SET_RE = re.compile(r"^(?:\$ )?\+ [A-Za-z_][A-Za-z0-9_]{0,60}=", re.MULTILINE)


def _trace_ends(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """Applies where the paste ends within the shell's trace: no line after its first assignment but more `+` lines
    (break-it 24 p32: `bash -x ./launch.sh`'s assignments, then vLLM's own lines and its error: they are in the
    paste)."""
    paste = context().paste or text  # (the lines after the trace are another section's)
    if (first := _XTRACE_SET_RE.search(paste)) is None:
        paste, first = text, _XTRACE_SET_RE.search(text)
    after = paste[first.end():].splitlines()[1:] if first else []
    return None if any(line.strip() and not line.lstrip().startswith("+") for line in after) else {}


_NCCL_WENT_ON_RE = re.compile(r"\bChannel \d{1,3}/\d{1,3} :|Init COMPLETE|Connected all rings|Setting affinity for GPU|Trees \[")
_NCCL_CHAIN_RE = re.compile(r"\.cc:\d{1,5} -> \d")
_NCCL_PROC_RE = re.compile(r"(?<![\w.:-])(?P<who>[\w.-]{1,80}:\d{1,9}):\d{1,9} \[\d{1,3}\] ")
"""NCCL's ``host:pid:tid [dev]`` wherever it stands in the line (behind a Ray worker's, compose's or a time stamp's
prefix: break-it 27 F1, F2)."""


def _nvml_next(text: str) -> str | None:
    """What NCCL did after its first ``nvmlDeviceGetHandleByPciBusId() failed`` in the paste, read on that process's own
    lines (``host:pid:``) up to its next run (``NCCL version``): ``"on"`` where it set up more (its channels, its
    affinity: printed once the topology is built), ``"stopped"`` where the error came back up its calls (``graph/xml.cc:850
    -> 2``), None where the paste does not show it (break-it 26 F1, F3)."""
    lines = (context().paste or text).splitlines()
    first = next((i for i, x in enumerate(lines) if "nvmlDeviceGetHandleByPciBusId" in x), None)
    if first is None:
        return None
    who = m["who"] if (m := _NCCL_PROC_RE.search(lines[first])) else ""
    for line in lines[first + 1:]:
        if who and (not (o := _NCCL_PROC_RE.search(line)) or o["who"] != who):
            continue
        if "NCCL version" in line:
            return None
        if _NCCL_CHAIN_RE.search(line):
            return "stopped"
        if _NCCL_WENT_ON_RE.search(line):
            return "on"
    return None


def _nccl_went_on(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """Applies where NCCL went on after the NVML error on the same process (:func:`_nvml_next`)."""
    return {} if _nvml_next(text) == "on" else None


def _nccl_init_stopped(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """Applies where the NVML error came back up the same process's calls (:func:`_nvml_next`)."""
    return {} if _nvml_next(text) == "stopped" else None


_RAY_DEMAND_RE = re.compile(r"^\s{0,4}(?P<dict>\{[^}\n]{1,300}\})[^\n]{0,60}?: \d+\+? pending (?P<what>tasks/actors|placement groups)", re.M)
_RAY_ITEM_RE = re.compile(r"'([^']{1,80})': ([\d.]+)")


def _task_demand(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """Applies to Ray 1.x's `No feasible node type to add for` (tasks' demands), or where the paste's `ray status`
    lists this request's first bundle among `pending tasks/actors`: a demand no node can ever hold (kuberay#846,
    vo001); a placement group's bundles, or a request the paste does not place, wait instead (zd019; break-it 27 F5,
    F7)."""
    line, paste = values.get("line", ""), context().paste or text
    if "No feasible node type to add for" in line:
        return {}
    first = set(_RAY_ITEM_RE.findall(values.get("demand", "")))
    return {} if first and any(m["what"] == "tasks/actors" and set(_RAY_ITEM_RE.findall(m["dict"])) == first
                               for m in _RAY_DEMAND_RE.finditer(paste)) else None


_POD_PLACED_RE = re.compile(r"\bSuccessfully assigned \S{1,200} to \S|\bTriggeredScaleUp\b|\bStarted container\b")


def _pod_not_placed_after(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """Applies unless a later event places the pod: the scheduler assigned it, the autoscaler added a node, a container
    started (break-it 29 G6: FailedScheduling, then TriggeredScaleUp, Scheduled and Started)."""
    paste = context().paste or text
    at = paste.find(str(values.get("line") or "").strip()[:80])  # (a long event line is quoted cut)
    return None if at >= 0 and _POD_PLACED_RE.search(paste, at) else {}


_MPI_SIZE_RE = re.compile(r"\bMPI size: (?P<n>\d{1,5}), rank: \d{1,5}")


def _mpi_size(log: VllmLog | None, values: Mapping[str, Any], text: str) -> dict[str, Any] | None:
    """Always applies: TensorRT-LLM's `MPI size: N` where the paste prints it, as ``mpi`` with a flag for one rank
    (``mpi_one``: a process started alone) or several (``mpi_many``: mpirun -n another count than the engine's: break-it
    28 F10); ``mpi_unseen`` without the line."""
    m = _MPI_SIZE_RE.search(context().paste or text)
    n = int(m["n"]) if m else None
    return {"mpi_unseen": ""} if n is None else {"mpi": n, "mpi_one" if n == 1 else "mpi_many": ""}


PASTE_DETAILS: dict[str, Callable[..., dict[str, Any] | None]] = {
    **MEMORY_DETAILS,
    "mpi_size": _mpi_size,
    "pod_not_placed_after": _pod_not_placed_after,
    "task_demand": _task_demand,
    "nccl_went_on": _nccl_went_on,
    "nccl_init_stopped": _nccl_init_stopped,
    "stopped_before": _stop_before_engine_dead,
    "no_death_reason": _no_death_reason,
    "server_up_after": _server_up_after,
    "server_not_up_after": _server_not_up_after,
    "store_not_reached": _store_not_reached,
    "answered_later": _answered_later,
    "retried_ok": _retried_ok,
    "btl_lan": _btl_lan,
    "nv_err_alone": _nv_err_alone,
    "ngc_gpu_shown": _ngc_gpu_shown,
    "ngc_gpus_asked": _ngc_gpus_asked,
    "letters_split": _letters_split,
    "ends_in_frames": _ends_in_frames,
    "not_stopped": _not_stopped,
    "ib_transfer": _ib_transfer,
    "xml_idle": _xml_idle,
    "xml_busy": _xml_busy,
    "nvtop_idle": _nvtop_idle,
    "nvtop_busy": _nvtop_busy,
    "trace_ends": _trace_ends,
    "healthy_later": _healthy_later,
}
"""The details of this module, by the names checks/diagnoses.toml gives them (merged into grader.diagnosis_details'
DETAILS)."""
