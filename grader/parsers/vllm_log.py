"""Parser for ``vllm serve`` logs: startup facts, KV-cache capacity, launch errors, and what they mean.

A vLLM log arrives in many shapes: every version from 0.8 to 0.33 and NGC builds
(``0.17.1+a03ca76a.nv26.03``); logger headers old (``INFO 08-01 10:00:00 llm_engine.py:176]``)
and new (``INFO 11-29 14:02:11 [gpu_worker.py:298]``); process prefixes added by vLLM and Ray
(``(APIServer pid=1)``, ``(EngineCore_DP0 pid=123)``, ``(RayWorkerWrapper pid=77,
ip=192.168.100.11)``, ``(pid=21164)``), several of them on one line; docker-compose prefixes
(``vllm-head-1  | ``) and ``docker logs -t`` timestamps; ANSI colours; Ray's own lines
(``2026-11-29 13:55:51,726 INFO worker.py:1691 -- ...``); tracebacks; cut-off pastes. Every line
is stripped of those layers first (:func:`split_prefixes`), then the message is matched on its
text, never on the ``[file.py:NNN]`` tag, which changes between versions.

KV-cache capacity lines, by version (docs/research/procedure.md §4.1, from vLLM's sources):

========================  ==========================================================  ==============
form                      line(s)                                                     vLLM
========================  ==========================================================  ==============
``blocks``                ``# GPU blocks: N, # CPU blocks: M`` then                   V0 engine (to
                          ``Maximum concurrency for L tokens per request: X.XXx``     0.10; 0.11's
                          (device may read ``cuda``/``CPU``)                          executor_base)
``blocks``                ``# GPU blocks: N`` (no CPU blocks) then the concurrency    early V1
                          line                                                        (Jan-Feb 2025)
``two-lines``             ``GPU KV cache size: N tokens`` (N comma-grouped) then      PR 13596
                          ``Maximum concurrency for L tokens per request: X.XXx``     (2025-02-20)
                                                                                      to 0.27.x
``one-line``              ``GPU KV cache size: N tokens, Maximum concurrency for L    0.28 on; from
                          tokens per request: X.XXx``; device ``GPU`` on CUDA,        0.30 the device
                          upper-cased type otherwise (``CPU``), ``GPU + host`` with   word varies
                          hisparse offload (0.32+)
========================  ==========================================================  ==============

Related: ``Available KV cache memory: X GiB`` (V1 gpu_worker, 0.8 on), V0's ``the rest of the
memory reserved for KV Cache is X GiB``, the CPU backend's ``Explicitly set (X/Y) GiB for KV
cache on node N``. With TP/PP the engine prints the capacity once for the whole engine (the
minimum over workers); per-rank or per-DP-engine repetitions are each kept, with the process
prefix they came with (:class:`LogLine`).

Units: tokens; GiB = 2**30 bytes (vLLM's ``GiB`` is binary; V0's ``GB`` in "Loading model
weights took X GB" is also 2**30-based and is read as GiB); concurrency as vLLM prints it
(KV tokens / max model length for vLLM >= 0.24; older versions computed it per KV-cache group,
so for sliding-window or hybrid models it can differ from tokens / length: 37,392 tokens vs
1.53x at 262,144 in spark/16_*).

Errors and warnings (exact strings from procedure.md §3.4, research/vllm_cpu.md,
research/vllm_netns.md §5) become :class:`LogEvent` records with a named ``kind`` and the
numbers in them (:mod:`grader.parsers.vllm_events`). What a kind means and its fix is not decided
here: ``grader.diagnoses.diagnose`` reads that from the table in ``checks/diagnoses.toml``.

The module is split by topic: :mod:`.vllm_lines` (the layers around a line), :mod:`.vllm_records`
(the typed records), :mod:`.vllm_events` (errors and warnings by name), :mod:`.vllm_cmdline` (the
``vllm serve`` command line and printed Python literals), :mod:`.vllm_scan` (the patterns a message is searched
with, each distinct message searched once); their public names are importable from here.
"""

from __future__ import annotations

import re
from typing import Any

from .common import Line, ParseError, content_lines, fail_on_line
from .vllm_cmdline import (MAX_ARGS_CHARS, _as_bool, _as_float, _as_int, _config_fields, _serve_in_log,
                           parse_python_mapping, parse_serve_command)
from .vllm_events import EVENT_KINDS, _match_event
from .vllm_scan import Scan, Scanner
from .vllm_lines import _VLLM_PROCS_RE, LogLine, split_prefixes
from .vllm_records import (EngineStats, KvCapacity, KvMemory, LogEvent, MemoryCheck, ParallelConfig, VllmLog,
                           WorkerRank)

__all__ = ["COMMAND", "EVENT_KINDS", "MAX_ARGS_CHARS", "EngineStats", "KvCapacity", "KvMemory", "LogEvent", "LogLine",
           "MemoryCheck",
           "ParallelConfig", "VllmLog", "WorkerRank", "parse_python_mapping", "parse_serve_command", "parse_vllm_log",
           "split_prefixes"]

COMMAND = "vllm serve"


def _num(s: str) -> int:
    return int(s.replace(",", ""))



# --------------------------------------------------------------------------- the parser

def parse_vllm_log(text: str) -> VllmLog:
    """Parse a vLLM server log (startup, serving, or a failed launch) into a VllmLog.

    Reads every line it knows (see the module docstring) and skips the rest (progress bars,
    warnings of other libraries, tracebacks' frames). Pasted prompts are read for a ``vllm
    serve`` command line. The same error printed by several processes becomes one event with a
    ``count``; KV-capacity lines are all kept.

    Raises ParseError when nothing in the text is a vLLM log line (no logger header, no known
    message), e.g. another command's output, or an empty paste.
    """
    lines = content_lines(text, keep_comments=False)
    st = _State()
    i = 0
    while i < len(lines):
        line = lines[i]
        first_of_prompt = i == 0 or lines[i - 1].group != line.group
        if first_of_prompt and line.command and line.command.rstrip().endswith("\\"):
            joined, i = _continued(line.command, lines, i)  # the prompt's command goes on below it
            st.command(joined)
            continue
        if line.text.rstrip().endswith("\\") and _serve_in_log(line.text):
            joined, i = _continued(line.text, lines, i + 1)
            st.feed(line._replace(text=joined))  # a command line shown in the paste, read whole
            continue
        if line.command and not line.command.rstrip().endswith("\\"):  # a continued one was read whole above
            st.command(line.command)
        for part in _GLUED_RE.split(line.text) if _GLUED_RE.search(line.text) else (line.text,):
            st.feed(line._replace(text=part) if part is not line.text else line)
        i += 1
    if not st.recognised:
        first = next((x for x in lines if x.text.strip()), None)
        if first is None:
            raise ParseError(COMMAND, "the log is empty")
        raise fail_on_line(COMMAND, first, "no vLLM log line found (expected lines such as `(APIServer pid=1) INFO "
                           "MM-DD HH:MM:SS [file.py:N] ...`, the version banner, `non-default args:` or the "
                           "KV-cache lines); paste the output of `vllm serve`")
    return st.result(text)


_GLUED_RE = re.compile(r"(?<=\S)(?=(?:\([\w ,=.-]{1,80}\) )?(?:INFO|WARNING|ERROR|DEBUG) \d\d-\d\d \d\d:\d\d:\d\d "
                       r"\[?[\w.-]{1,60}\.py:\d{1,6}\] )")
"""Where a second record of vLLM's logger starts inside a line: records a paste ran together, their newlines lost
(vllm-project/vllm#18115: three `loggers.py:118` stats lines on one line); each part is read as a line of its own. A
record may begin with its process's prefix (vLLM 0.10.2 on: `(APIServer pid=1) INFO ...`, breakit review 22 p18)."""

MAX_CONTINUED = 199
"""At most this many lines continue one command line (``\\`` at a line's end)."""


def _continued(head: str, lines: list[Line], start: int) -> tuple[str, int]:
    """A command line ``head`` that ends with a backslash, joined with the lines from ``start`` that continue it
    (each but the last ends with one; at most :data:`MAX_CONTINUED`), as a shell reads it; and the index of the
    first line after it. ``vllm serve \\`` then ``  --load-format fastsafetensors \\`` then ``  -tp 2`` is one
    command with both options (a parser that read ``\\`` as the model was wrong)."""
    parts = [head.rstrip()[:-1].rstrip()]
    i = start
    while i < len(lines) and i - start < MAX_CONTINUED:
        text = lines[i].text.strip()
        i += 1
        more = text.endswith("\\")
        parts.append(text[:-1].rstrip() if more else text)
        if not more:
            break
    return " ".join(p for p in parts if p), i



def _last_awaiting(stack: list[dict[str, Any]] | None) -> dict[str, Any] | None:
    """The last KV entry of ``stack`` still without its concurrency; entries answered since are dropped on the way
    (each once, so a log's concurrency lines cost O(1) each, amortised)."""
    while stack and stack[-1]["concurrency"] is not None:
        stack.pop()
    return stack[-1] if stack else None

class _State:
    """Accumulates what parse_vllm_log reads, line by line."""

    def __init__(self) -> None:
        self.recognised = False
        self.version: str | None = None
        self.platform: str | None = None
        self.model: str | None = None
        self.args: dict[str, Any] | None = None
        self.args_truncated = False
        self.command_args: dict[str, str] | None = None
        self.config: dict[str, Any] = {}
        self.max_len_logged: int | None = None
        self.kv: list[dict[str, Any]] = []
        # the entries of self.kv still awaiting their concurrency line: all, and by process prefix (stacks, entries
        # answered since are dropped when met), so each concurrency line finds its entry in O(1) amortised
        self._awaiting: list[dict[str, Any]] = []
        self._awaiting_by_prefix: dict[str | None, list[dict[str, Any]]] = {}
        self.kv_memory: list[KvMemory] = []
        self.weights: list[float] = []
        self.events: list[LogEvent] = []
        self.event_index: dict[tuple[str, str, str | None], int] = {}
        self.stats: list[EngineStats] = []
        self.ranks: dict[tuple[int, int | None], dict[str, Any]] = {}
        self.ips: list[str] = []
        self.ray_address: str | None = None
        self.ready = False
        self.url: str | None = None
        self.client = False
        self.logged_world_size: int | None = None
        self.effective_util: float | None = None
        self.profile_util: float | None = None
        self.profile_weights: list[float] = []
        self.memory: dict[str, Any] | None = None
        self._last_command: str | None = None
        self._tail: list[str] = []
        """The last one or two messages no event took whole (a wrapped message's first lines)."""
        self._open = False
        """Whether the last of them may go on below (only then is the next line read joined to them)."""
        self._scan = Scanner()  # what each distinct message matches, searched once

    # ---------------------------------------------------------------- inputs

    def command(self, command: str) -> None:
        if command == self._last_command:
            return
        self._last_command = command
        args = parse_serve_command(command)
        if args:
            self.command_args = {**(self.command_args or {}), **args}

    def feed(self, line: Line) -> None:
        rec = split_prefixes(line.text, line.no)
        msg = rec.message
        if not msg:
            return
        known = self.recognised or (rec.source is not None and rec.level is not None) or bool(
            rec.process and _VLLM_PROCS_RE.match(rec.process))  # (once one line is, the others need not be asked)
        if rec.ip and rec.ip not in self.ips:
            self.ips.append(rec.ip)
        found = self._scan(msg)
        if not found.gated:  # no pattern can match: only an event wrapped over this line and those above may
            known = self._event(rec, msg, None) or known
        else:
            if found.client:
                self.client = True
            if ((found.startup is not None and self._startup_facts(msg, found))  # (each reads nothing from a None)
                    | (found.kv is not None and self._kv(rec, msg, found))
                    | (found.other is not None and self._other(rec, msg, found))
                    | self._memory(rec, found) | self._event(rec, msg, found.event)):
                known = True
        if known:
            self.recognised = True

    def _startup_facts(self, msg: str, found: Scan) -> bool:
        if found.startup is None:
            return False
        banner_version, banner_model, engine_config, launch_version, platform, args, max_len, serve = found.startup
        hit = False
        m = banner_version
        if m:
            self.version = self.version or m.group("version")
            hit = True
        m = banner_model
        if m:
            self.model = self.model or m.group("model")
            hit = True
        m = engine_config
        if m:
            self.version = self.version or m.group("version")
            for key, value in _config_fields(m.group("cfg")).items():
                self.config.setdefault(key, value)
            hit = True
        m = launch_version
        if m:
            self.version = self.version or m.group("version")
            hit = True
        m = platform
        if m:
            self.platform = self.platform or m.group("p")
            hit = True
        m = args
        if m and self.args is None:
            opener = "{" if "non-default" in m.re.pattern else "("
            self.args, self.args_truncated = parse_python_mapping(m.group("d")[:MAX_ARGS_CHARS], opener)
            hit = True
        m = max_len
        if m:
            self.max_len_logged = int(m.group("n"))
            hit = True
        if serve:
            self.command(msg)
            hit = True
        return hit

    def _kv(self, rec: LogLine, msg: str, found: Scan) -> bool:
        if found.kv is None:
            return False
        tokens, conc, blocks, memory = found.kv
        if tokens or blocks:
            entry = ({"device": tokens.group("dev"), "tokens": _num(tokens.group("tokens")),
                      "max_model_len": _num(conc.group("len")) if conc else None,
                      "concurrency": float(conc.group("x")) if conc else None,
                      "gpu_blocks": None, "cpu_blocks": None,
                      "form": "one-line" if conc else "two-lines", "source": rec, "linenos": [rec.lineno]} if tokens else
                     {"device": blocks.group("dev"), "tokens": None, "max_model_len": None,
                      "concurrency": None, "gpu_blocks": int(blocks.group("n")),
                      "cpu_blocks": int(blocks.group("cpu")) if blocks.group("cpu") else None,
                      "form": "blocks", "source": rec, "linenos": [rec.lineno]})
            self.kv.append(entry)
            if entry["concurrency"] is None:
                self._awaiting.append(entry)
                self._awaiting_by_prefix.setdefault(rec.prefix, []).append(entry)
            return True
        if conc:
            target = _last_awaiting(self._awaiting_by_prefix.get(rec.prefix)) or _last_awaiting(self._awaiting)
            if target is None:  # the size line was cut off: keep what this line says
                self.kv.append({"device": None, "tokens": None, "max_model_len": _num(conc.group("len")),
                                "concurrency": float(conc.group("x")), "gpu_blocks": None, "cpu_blocks": None,
                                "form": "two-lines", "source": rec, "linenos": [rec.lineno]})
            else:
                target["max_model_len"] = _num(conc.group("len"))
                target["concurrency"] = float(conc.group("x"))
                target["linenos"].append(rec.lineno)
            return True
        if memory is not None:  # the first of vllm_scan._KV_MEMORY that matched
            m, kind = memory
            total = float(m.group("total")) if "total" in m.groupdict() and m.group("total") else None
            gib = m.group("gib") or m.groupdict().get("gib2")
            self.kv_memory.append(KvMemory(float(gib), kind, rec, total))
            if kind == "auto-fit":
                self.max_len_logged = int(m.group("to"))
            return True
        return False

    def _other(self, rec: LogLine, msg: str, found: Scan) -> bool:
        if found.other is None:
            return False
        weights, profile_util, profile_weights, ready, url, ray, stats, rank_init, rank_assign, dp_leader, mq_ip = \
            found.other
        hit = False
        m = weights
        if m:
            self.weights.append(float(m.group("gib")))
            hit = True
        m = profile_util
        if m:
            self.profile_util = self.profile_util or _as_float(m.group("util") or m.group("util2"))
            hit = True
        m = profile_weights
        if m and not self.weights:  # "Model loading took X GiB" says the same, per worker
            self.profile_weights.append(float(m.group("gib")))
            hit = True
        if ready:
            self.ready = hit = True
        m = url
        if m:  # printed once the engine is up (uvicorn listening / vLLM's own "Starting ... server on")
            self.url = self.url or m.group("url").rstrip(".")
            self.ready = hit = True
        m = ray
        if m:
            self.ray_address = (m.group("addr") or m.group("addr2") or "").rstrip(".") or self.ray_address
            hit = True
        m = stats
        if m:
            rest = m.group("rest")
            run = re.search(r"Running: (\d+) reqs", rest)
            wait = re.search(r"(?:Waiting|Pending): (\d+) reqs", rest)
            usage = re.search(r"KV cache usage: ([\d.]+)%", rest)
            hit_rate = re.search(r"Prefix cache hit rate: ([\d.]+)%", rest)
            self.stats.append(EngineStats(
                int(m.group("engine")) if m.group("engine") else None, float(m.group("p")), float(m.group("g")),
                int(run.group(1)) if run else None, int(wait.group(1)) if wait else None,
                float(usage.group(1)) if usage else None, float(hit_rate.group(1)) if hit_rate else None, rec))
            hit = True
        m = rank_init
        if m:
            r = self._rank(int(m.group("rank")), rec)
            r.update(world_size=int(m.group("ws")), init_method=m.group("init"), backend=m.group("backend"))
            self.logged_world_size = int(m.group("ws"))
            hit = True
        m = rank_assign
        if m:
            r = self._rank(int(m.group("rank")), rec)
            r["world_size"] = int(m.group("ws"))
            for key, label in (("dp_rank", "DP"), ("pp_rank", "PP"), ("tp_rank", "TP")):
                x = re.search(rf"(?<![A-Z]){label} rank (\d+)", m.group("rest"))
                if x:
                    r[key] = int(x.group(1))
            hit = True
        m = dp_leader
        if m:
            self.logged_world_size = int(m.group("ws"))
            hit = True
        m = mq_ip
        if m and m.group("ip") == "0.0.0.0":
            self._add_event("no-host-ip", "warning", msg, {"mq_connect_ip": "0.0.0.0"}, rec)
            hit = True
        return hit

    def _rank(self, rank: int, rec: LogLine) -> dict[str, Any]:
        # One worker prints both rank lines under one pid (Ray's prefix pid is the worker's);
        # key by (rank, pid) so that each worker is one record, also with several DP groups.
        key = (rank, rec.pid)
        if key not in self.ranks:
            self.ranks[key] = {"rank": rank, "world_size": None, "pid": rec.pid, "ip": rec.ip}
        self.ranks[key]["ip"] = self.ranks[key]["ip"] or rec.ip
        return self.ranks[key]

    def _memory(self, rec: LogLine, found: Scan) -> bool:
        """The startup memory check, whose two halves may sit on two lines (wrapped, or pasted so)."""
        free, desired = found.memory
        if free:
            self.memory = {"free": float(free.group("free")), "total": float(free.group("total")),
                           "less": bool(free.group("less")), "source": rec, "util": None, "wanted": None, "dev": "GPU"}
        if desired and self.memory is not None and self.memory["wanted"] is None:
            self.memory.update(util=float(desired.group("util")), wanted=float(desired.group("wanted")),
                               dev=desired.group("dev"))
        return bool(free or (desired and self.memory is not None))

    def _memory_check(self) -> MemoryCheck | None:
        m = self.memory
        if m is None:
            return None
        failed = m["less"] or (m["wanted"] is not None and m["free"] < m["wanted"])
        check = MemoryCheck(m["free"], m["total"], m["util"], m["wanted"], failed, m["source"], m["dev"])
        if failed and m["wanted"] is not None and not any(e.kind == "startup-memory" for e in self.events):
            # the ValueError wrapped over lines: the event its one-line form gives, with the same numbers
            self._add_event("startup-memory", "error", m["source"].message,
                            {"free_gib": m["free"], "total_gib": m["total"], "utilization": m["util"],
                             "wanted_gib": m["wanted"]}, m["source"])
        return check

    def _event(self, rec: LogLine, msg: str, found: tuple[str, str, dict[str, Any]] | None) -> bool:
        """``found``: the event ``msg`` says alone (vllm_events._match_event), or None."""
        wrapped = rec.level is None and rec.source is None  # no logger header: maybe the rest of a wrapped line
        loose = found is None or found[0] == "exception"
        if loose and wrapped and self._open and self._wrapped_event(rec, msg):
            return True
        # a message that may go on below: an exception's, or one cut after a comma or a colon (an event's, a comma)
        cut = msg.endswith(",") or (loose and msg.endswith(":"))
        self._tail = ([self._tail[-1], msg] if wrapped and self._tail else [msg]) if loose else [msg] if cut else []
        self._open = (loose and found is not None) or cut
        if found is None:
            return False
        kind, severity, numbers = found
        if kind == "cuda-graph-util":
            self.effective_util = _as_float(numbers.get("eff"))
        self._add_event(kind, severity, msg, numbers, rec)
        return True

    def _wrapped_event(self, rec: LogLine, msg: str) -> bool:
        """A message a terminal or a paste wrapped over up to three lines (vLLM's KV-cache ValueError: the
        reason, the GiB needed and available, the estimated maximum length): read joined with the one or two
        lines above it. The start, read alone as a bare exception or as the same event with fewer numbers, is
        replaced by the whole."""
        for k in (1, 2):
            if len(self._tail) < k:
                return False
            text = " ".join(self._tail[-k:] + [msg])
            found = _match_event(text)
            if found is None or found[0] == "exception":
                continue
            kind, severity, numbers = found
            start = " ".join(self._tail[-k:])
            kept = [e for e in self.events if not (e.kind in ("exception", kind) and start.startswith(e.message))]
            if len(kept) != len(self.events):
                self.events = kept
                self.event_index = {self._key(e.kind, e.message, e.source): i for i, e in enumerate(kept)}
            self._add_event(kind, severity, text, numbers, rec)
            self._tail, self._open = [text], True  # its last part (the estimate) may follow
            return True
        return False

    @staticmethod
    def _key(kind: str, msg: str, rec: LogLine) -> tuple[str, str, str | None]:
        """How one event is told from another: the same message from several processes is one."""
        norm = re.sub(r"\d+", "N", msg) if kind in ("gloo-retry", "pg-wait") else msg
        return kind, norm, rec.ip if kind not in ("gloo-retry", "pg-wait") else None

    def _add_event(self, kind: str, severity: str, msg: str, numbers: dict[str, Any], rec: LogLine) -> None:
        # the same message from several processes (and its re-raise in a traceback) is one event
        key = self._key(kind, msg, rec)
        if key in self.event_index:
            i = self.event_index[key]
            old = self.events[i]
            merged = {**old.numbers, **{k: v for k, v in numbers.items() if k not in old.numbers}}
            if kind == "pg-wait":
                merged["seconds"] = max(old.numbers.get("seconds", 0), numbers.get("seconds", 0))
            self.events[i] = LogEvent(old.kind, old.severity, old.message, merged, old.source, old.count + 1)
            return
        # a re-raised exception line repeating a known error adds nothing
        if kind == "exception" and any(e.message.endswith(msg.split(": ", 1)[-1]) or msg.endswith(e.message)
                                       for e in self.events if e.kind != "exception"):
            return
        self.event_index[key] = len(self.events)
        self.events.append(LogEvent(kind, severity, msg, numbers, rec))

    # ---------------------------------------------------------------- output

    def result(self, text: str = "") -> VllmLog:
        args = self.args or {}
        cmd = self.command_args or {}
        cfg = self.config
        sources: dict[str, str] = {}

        def pick(name: str, conv, *, cfg_key: str | None = None):
            for where, mapping, key in (("engine config", cfg, cfg_key or name), ("non-default args", args, name),
                                        ("command line", cmd, name)):
                if key in mapping:
                    value = conv(mapping[key])
                    if value is not None:
                        sources[name] = where
                        return value
            return None

        parallel = ParallelConfig(
            tensor_parallel_size=pick("tensor_parallel_size", _as_int),
            pipeline_parallel_size=pick("pipeline_parallel_size", _as_int),
            data_parallel_size=pick("data_parallel_size", _as_int),
            data_parallel_size_local=pick("data_parallel_size_local", _as_int),
            expert_parallel=pick("enable_expert_parallel", _as_bool),
            distributed_executor_backend=pick("distributed_executor_backend",
                                              lambda v: str(v) if v not in (None, "None") else None),
            nnodes=pick("nnodes", _as_int),
            node_rank=pick("node_rank", _as_int),
            headless=pick("headless", _as_bool),
            logged_world_size=self.logged_world_size,
            sources=sources,
        )
        model = (self.model or _str_or_none(args.get("model")) or _str_or_none(args.get("model_tag"))
                 or _str_or_none(cfg.get("model")) or _str_or_none(cmd.get("model")))
        max_len = (self.max_len_logged or _as_int(args.get("max_model_len")) or _as_int(cfg.get("max_seq_len"))
                   or _as_int(cmd.get("max_model_len")))
        if max_len is None:
            max_len = next((k["max_model_len"] for k in self.kv if k["max_model_len"]), None)
        util = _as_float(args.get("gpu_memory_utilization")) or _as_float(cmd.get("gpu_memory_utilization"))
        util = util if util is not None else self.profile_util if self.profile_util is not None else self.effective_util
        ranks = tuple(WorkerRank(r["rank"], r.get("world_size"), r.get("pid"), r.get("ip"), r.get("tp_rank"),
                                 r.get("pp_rank"), r.get("dp_rank"), r.get("init_method"), r.get("backend"))
                      for r in sorted(self.ranks.values(), key=lambda r: (r["rank"], r["pid"] or 0)))
        memory_check = self._memory_check()
        return VllmLog(
            version=self.version, model=model, args=self.args,  # below: the CPU backend's own file, if no line said
            platform=self.platform or ("cpu" if "[cpu_model_runner.py:" in text else None),
            args_truncated=self.args_truncated, command_args=self.command_args, parallel=parallel,
            max_model_len=max_len, gpu_memory_utilization=util,
            kv=tuple(KvCapacity(k["device"], k["tokens"], k["max_model_len"], k["concurrency"], k["gpu_blocks"],
                                k["cpu_blocks"], k["form"], k["source"], tuple(k["linenos"])) for k in self.kv),
            kv_memory=tuple(self.kv_memory), weights_gib=tuple(self.weights or self.profile_weights),
            events=tuple(self.events),
            stats=tuple(self.stats), ranks=ranks, worker_ips=tuple(self.ips), ray_address=self.ray_address,
            ready=self.ready, url=self.url, client_output=self.client, memory_check=memory_check, text=text)


def _str_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None
