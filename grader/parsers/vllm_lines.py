"""The layers around a vLLM log line, peeled off: collector and docker prefixes, process prefixes, logger headers.

A line of a ``vllm serve`` log may carry, outside in: a ``kubectl logs --prefix`` or journald/syslog
header, a docker-compose service prefix (``vllm-head-1  | ``), a ``docker logs -t`` timestamp,
process prefixes added by vLLM and Ray (``(APIServer pid=1)``, ``(EngineCore_DP0 pid=123)``,
``(RayWorkerWrapper pid=77, ip=192.168.100.11)``, ``(pid=21164)``), several of them, Ray's
``[repeated Nx across cluster]`` suffix, then a logger header (vLLM's old and new ones, Ray's,
uvicorn's). :func:`split_prefixes` returns what is left, the message, with each layer read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .common import LAUNCHER_LEVEL, LOG_TAG

_COMPOSE_RE = re.compile(r"^[A-Za-z0-9][\w.-]*\s*\|\s?")          # "vllm-head-1  | "
_COLLECTOR_RE = re.compile(  # one "^" in front of both: tried at the start of the line only, not at every character
    r"^(?:\[pod/[^\]]+\]\s*"                                           # kubectl logs --prefix
    "|" + LOG_TAG +                                                     # a log viewer's tag: "[vllm]: "
    r"|\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:[.,]\d+)?\s+" + LAUNCHER_LEVEL + r"(?:\(\w+\)\s+)?"
    #   a launcher's "2026-05-08 11:47:02.257 [Error] (Process) " (lemonade-sdk's vLLM server)
    r"|[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d \S+ [\w.@-]+(?:\[\d+\])?:\s)")  # journalctl / syslog
_DOCKER_TS_RE = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:?\d\d)\s")
# "(APIServer pid=1)", "(RayWorkerWrapper pid=77, ip=10.0.0.2)", "(pid=5)", "(VllmWorker rank=0 pid=9)",
# "(VllmWorker TP0 pid=9)", "(autoscaler +1m2s)", "(raylet, ip=10.0.0.2)"
_PROC_RE = re.compile(
    r"^\((?P<name>(?![A-Za-z_]+=)[A-Za-z_][\w.:-]*)?(?P<rest>(?:[\s,]*(?:\+[\w.]+|[A-Za-z_]+=[^\s,)]+|[A-Z]{2}\d+))*)\s*\)\s?")
_PID_RE = re.compile(r"\bpid=(\d+)")
_IP_RE = re.compile(r"\bip=([0-9A-Fa-f.:]+)")
_RAY_PROCS = {"raylet", "autoscaler", "gcs_server", "monitor", "log_monitor", "dashboard", "dashboard_agent",
              "runtime_env_agent", "bash", "sh"}
_VLLM_PROCS_RE = re.compile(r"^(?:APIServer|EngineCore(?:_DP\d+)?|RayWorkerWrapper|RayWorkerProc|VllmWorker(?:-\d+)?"
                             r"|Worker(?:_\w+)?|MainProcess|VLLM::\w+)$")
_REPEATED_RE = re.compile(r"(?<!\s)\s*+\[repeated \d++x across cluster\]\s*+$")  # starts where blanks start: linear
_HEADER_RE = re.compile(
    r"^(?P<level>DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL|ARNING|RNING|NING|RROR|NFO)\s+(?P<date>(?:\d{4}-)?\d\d-\d\d)\s+"
    r"(?P<time>\d\d:\d\d:\d\d)(?:[.,]\d+)?\s+\[?(?P<src>[\w./<>-]+\.py:\d+)\]\s?(?P<msg>.*)$")
_RAY_HEADER_RE = re.compile(
    r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d+\s+(?P<level>DEBUG|INFO|WARNING|ERROR|CRITICAL)\s+"
    r"(?P<src>[\w.]+\.py:\d+)\s+--\s+(?P<msg>.*)$")
# a level whose first letters a paste cut off ("NING 04-01 02:45:50 [ray_utils.py:320] ..."), and WARN, as read
_CUT_LEVELS = {"WARN": "WARNING", "ARNING": "WARNING", "RNING": "WARNING", "NING": "WARNING", "RROR": "ERROR",
               "NFO": "INFO"}
_UVICORN_RE = re.compile(r"^(?P<level>INFO|WARNING|ERROR):\s+(?P<msg>.*)$")
# most lines of a vLLM log in one match: one process prefix with its pid, then vLLM's logger header; a line with that
# prefix before a message of another shape (no header, a cut or odd one, uvicorn's) matches without the header (no
# ``level``), which is read alone; a line of any other shape (no prefix, several, an ip=, a collector's, Ray's repeat
# note) takes the layer-by-layer way
_PLAIN_RE = re.compile(
    r"^(?P<prefix>\((?P<name>[A-Za-z_][\w.:-]*) pid=(?P<pid>\d+)\))\s*+(?!\()"
    r"(?:(?P<level>DEBUG|INFO|WARNING|ERROR|CRITICAL)\s+(?:\d{4}-)?\d\d-\d\d\s+\d\d:\d\d:\d\d(?:[.,]\d+)?\s+"
    r"\[?(?P<src>[\w./<>-]+\.py:\d+)\]\s?(?P<msg>.*)$)?")


@dataclass(frozen=True)
class LogLine:
    """Where a record came from.

    ``lineno`` 1-based in the text given to the parser; ``text`` the line as pasted (cleaned of
    ANSI codes, stripped); ``prefix`` the process prefixes, joined as printed
    (``(EngineCore_DP0 pid=2301) (RayWorkerWrapper pid=2981, ip=169.254.28.198)``), None if
    none; ``process`` the innermost prefix's name (``RayWorkerWrapper``, ``Worker_PP1``,
    ``EngineCore_DP0``, ``APIServer``; None for a bare ``(pid=N)``); ``pid`` its pid; ``ip`` the
    ``ip=`` a Ray prefix shows (the remote node a worker ran on; Ray omits it for the local
    node); ``level`` and ``source`` from a logger header (``INFO``, ``kv_cache_utils.py:1319``);
    ``message`` the text after all of that.
    """

    lineno: int
    text: str
    prefix: str | None = None
    process: str | None = None
    pid: int | None = None
    ip: str | None = None
    level: str | None = None
    source: str | None = None
    message: str = ""


_new = object.__new__


def _log_line(lineno: int, text: str, prefix: str | None, process: str | None, pid: int | None, ip: str | None,
              level: str | None, source: str | None, message: str) -> LogLine:
    """``LogLine(...)`` without the frozen dataclass's ``__init__`` (an ``object.__setattr__`` per field): the same
    object (LogLine has no ``__post_init__``), made in half the time, as split_prefixes makes one per line of a log."""
    made = _new(LogLine)
    made.__dict__.update(lineno=lineno, text=text, prefix=prefix, process=process, pid=pid, ip=ip, level=level,
                         source=source, message=message)  # (keywords: faster than zip with the fields' names)
    return made


def split_prefixes(text: str, lineno: int = 0) -> LogLine:
    """Peel the layers off one log line (see the module docstring). Never raises."""
    line = text.strip()
    m = _PLAIN_RE.match(line) if "across cluster]" not in line else None
    if m is None:
        prefix, process, pid, ip, s = _outer_layers(line)
    else:
        prefix, process, pid, level, source, msg = m.groups()  # _PLAIN_RE's groups, in order
        if level:
            return _log_line(lineno, line, prefix, process, int(pid), None, level, source, msg.strip())
        pid, ip, s = int(pid), None, line[m.end():]  # what _outer_layers reads of it, sooner
    level = source = None
    m = _HEADER_RE.match(s) or (_RAY_HEADER_RE.match(s) if s[:1].isdigit() else None)  # (Ray's: a date first)
    if m:
        level, source, s = m.group("level"), m.group("src"), m.group("msg")
    else:
        u = _UVICORN_RE.match(s) if s.startswith(("INFO:", "WARNING:", "ERROR:")) else None
        if u:
            level, s = u.group("level"), u.group("msg").strip()
    return _log_line(lineno, line, prefix, process, pid, ip, _CUT_LEVELS.get(level, level), source, s.strip())


def _outer_layers(line: str) -> tuple[str | None, str | None, int | None, str | None, str]:
    """The layers outside a line's logger header, and Ray's repeat note: (the process prefixes as printed, the
    innermost one's name, its pid, the ``ip=`` shown, what is left)."""
    s = _COLLECTOR_RE.sub("", line, count=1)
    s = _DOCKER_TS_RE.sub("", s)
    if not s.startswith("(") and _COMPOSE_RE.match(s) and not _HEADER_RE.match(s):
        s = _COMPOSE_RE.sub("", s, count=1)
        s = _DOCKER_TS_RE.sub("", s)
    prefixes: list[str] = []
    process = ip = None
    pid = None
    while True:
        m = _PROC_RE.match(s)
        if not m:
            break
        name, rest = m.group("name") or "", m.group("rest")
        p = _PID_RE.search(rest) if "pid=" in rest else None  # the words first: cheaper than a search
        i = _IP_RE.search(rest) if "ip=" in rest else None
        if not (p or i or name in _RAY_PROCS):
            break
        prefixes.append(m.group(0).strip())
        process = name or None
        pid = int(p.group(1)) if p else pid
        ip = i.group(1) if i else ip
        s = s[m.end():].lstrip()
    if "across cluster]" in s:
        s = _REPEATED_RE.sub("", s)
    return " ".join(prefixes) or None, process, pid, ip, s
