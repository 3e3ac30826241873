"""What the launch commands quoted in one paste say together (read from the whole paste, grader.judges.context): a
multi-node server's nodes must all name one rendezvous address, node rank 0's (SGLang's ``--dist-init-addr``, vLLM's
``--master-addr`` with ``--nnodes``), and differ only in ``--node-rank``."""

from __future__ import annotations

import re
from typing import Any

from .common import fail, info, warn
from .model import Finding

_CONTINUED_RE = re.compile(r"\\[ \t]{0,8}\r?\n")
_ADDR_RE = re.compile(r"(?<!\S)(?P<flag>--dist-init-addr|--master-addr)[= ](?P<addr>[^\s'\"]{1,120})")
_RANK_RE = re.compile(r"(?<!\S)--node-rank[= ](?P<rank>\d{1,4})\b")
_GROUP_RE = re.compile(r"(?<!\S)(--nnodes|--disaggregation-mode|--model-path|--model|--tp|--tp-size|"
                       r"--tensor-parallel-size)[= ]([^\s'\"]{1,200})")
_IP_RE = re.compile(r"\[?(?:\d{1,3}(?:\.\d{1,3}){3}|[0-9a-fA-F:]{2,39})\]?(?::\d{1,5})?")


def rendezvous_mismatch(flags: tuple[str, ...]) -> list[Finding]:
    """A failure when the paste quotes launch commands of one multi-node server on different node ranks that name
    different rendezvous addresses (corpus zz004, sgl-project/sglang#3467: rank 0 with --dist-init-addr
    10.68.27.12:5000, rank 1 with 10.0.1.104:5000, stuck at init); [] otherwise, and where an address is a host name,
    a shell variable or a placeholder (what it stands for is not in the paste). A rank's last command counts (a
    corrected retry), and only commands of one server are compared (the same --nnodes, role, model and TP size: a
    prefill and a decode cluster each have their own). ``flags``: the options of the reader's server."""
    from .context import context
    paste = context().paste or ""
    if not any(f in paste for f in flags):  # (a 5 MB log names none: not copied, not split)
        return []
    paste = _CONTINUED_RE.sub(" ", paste)
    seen: dict[tuple, dict[str, str]] = {}  # (flag, group) -> node rank -> address (the last command a rank was given)
    for line in paste.splitlines():
        addr, rank = _ADDR_RE.search(line), _RANK_RE.search(line)
        if addr and rank and addr.group("flag") in flags:
            group = tuple(sorted(_GROUP_RE.findall(line)))  # one server: the same node count, role, model, TP size
            seen.setdefault((addr.group("flag"), group), {})[rank.group("rank")] = addr.group("addr")
    out = []
    for (flag, _), by_rank in seen.items():
        addrs = set(by_rank.values())  # a host name may be an IP given elsewhere: only IP literals are compared
        if len(by_rank) < 2 or len(addrs) < 2 or not all(_IP_RE.fullmatch(a) for a in addrs):
            continue
        said = " and ".join(f"{a} on node rank {r}" for r, a in sorted(by_rank.items(), key=lambda x: int(x[0])))
        out.append(fail(f"The nodes were started with different rendezvous addresses: `{flag}` {said}. Every node must "
                        "give the same one, node rank 0's reachable IP and port (the torch.distributed store they all "
                        "join), and differ only in --node-rank: with different addresses each side waits for peers "
                        "that never come, and start-up hangs at its init."))
    return out


_BROKEN_RE = re.compile(r"^(?P<line>[ \t]{0,40}\S[^\n]{0,600}?[^\\\s])[ \t]{1,8}\\"
                        r"(?P<after>[ \t]{1,8}(?:#[^\n]{0,300})?)$")
"""A command line whose backslash is not its last character: spaces after it, or a comment (``--node-rank 0 \\  #``)."""
_OPTION_RE = re.compile(r"(?<!\S)(?:--?[A-Za-z][\w.-]{0,60}|[A-Z][A-Z0-9_]{1,60}=)")
_DOCKERFILE_RE = re.compile(r"[ \t]{0,8}(?:FROM|RUN|ENV|ARG|COPY|ADD|CMD|ENTRYPOINT|LABEL|WORKDIR|USER|EXPOSE|VOLUME|SHELL"
                            r"|HEALTHCHECK|ONBUILD|STOPSIGNAL)[ \t]")
"""A Dockerfile instruction: Docker's parser takes a backslash followed by blanks as a continuation too (moby/buildkit
frontend/dockerfile/parser: ``lineContinuationRegex = \\[ \t]*$``), so no shell ever sees the space."""
_GIVEN_RE = re.compile(r"(?<!\S)(?:--(?P<opt>[A-Za-z][\w-]{1,60})[= ]|(?P<var>[A-Z][A-Z0-9_]{1,60})=)(?P<val>[^\s'\"\\-]"
                       r"[^\s'\"\\]{0,120})")
"""An option given a value on a command line (``--max-model-len 32768``, ``-x NCCL_IB_HCA=mlx5_0``)."""
_PERF_RE = re.compile(r"(?<![\w/.-])(?:[\w./-]{0,200}/)?(?P<test>[a-z][a-z_]{1,30}_perf)(?:_mpi)?(?!\w)"
                      r"(?P<args>[^\n|;&>`]{0,600})")
_ITERS_RE = re.compile(r"(?<!\S)(?:-n ?|--iters[= ])(?P<n>\d{1,7})\b")
_AGG_RE = re.compile(r"(?<!\S)(?:-m ?|--agg_iters[= ])(?P<n>\d{1,7})\b")
_GRAPH_RE = re.compile(r"(?<!\S)(?:-G ?|--cudagraph[= ])(?P<n>\d{1,7})\b")
_CHECK_OFF_RE = re.compile(r"(?<!\S)(?:-c ?|--check[= ])0\b")
_HEADER_ITERS_RE = re.compile(r"warmup iters: {0,3}\d{1,7} {1,3}iters: {0,3}(?P<n>\d{1,7})\b(?P<rest>[^\n]{0,80})")
_HEADER_AGG_RE = re.compile(r"\bagg iters: {0,3}(?P<n>\d{1,7})\b")
_HEADER_GRAPH_RE = re.compile(r"\bgraph: {0,3}(?P<n>\d{1,7})\b")


def _section_of(items: list[tuple[Any, Any]], words: str, kind: str | None = None) -> int:
    """The index of the section whose command holds ``words``; failing that, the first of ``kind``, else the first read
    (a log whose command is among its lines), else 0."""
    for i, (s, _) in enumerate(items):
        if words and words in " ".join((s.command or "").split()):
            return i
    return next((i for i, (s, _) in enumerate(items) if kind and s.kind == kind),
                next((i for i, (s, _) in enumerate(items) if s.kind and not s.error), 0))


def broken_continuations(items: list[tuple[Any, Any]]) -> list[tuple[int, Finding]]:
    """A warning where a command quoted in the paste continues a line with a backslash that is not the line's last
    character: a space after it (nccl#1218's ``-x NCCL_MAX_NCHANNELS=16 \\ ``) or a comment (vllm#41725's ``--node-rank
    0 \\  # (node-rank 1 on second node)``). The shell then reads ``\\ `` as an escaped space and the line break as the
    command's end: the lines below run as a command of their own (``-x``: command not found) and their options never
    reach the program. Said only inside a command (options or VAR=value on the line, the next line options too), as
    pasted; where every continued line of the paste has a space after its backslash (none ends clean), the copying
    (a forum, a mail) more likely added them, so it is a note."""
    from .context import context
    paste = context().paste or ""
    if "\\ " not in paste and "\\\t" not in paste:
        return []
    lines = paste.splitlines()
    clean = sum(1 for x in lines if x.endswith("\\") and not x.endswith("\\\\"))
    for i, line in enumerate(lines[:-1]):
        m = _BROKEN_RE.match(line) if "\\" in line else None
        nxt = lines[i + 1].strip()
        if not m or not _OPTION_RE.search(m.group("line")) or not _OPTION_RE.match(nxt):
            continue
        start = i
        while start and re.search(r"\\[ \t]{0,8}$", lines[start - 1]):
            start -= 1
        end = i + 1
        while end < len(lines) - 1 and re.search(r"\\[ \t]{0,8}$", lines[end]):
            end += 1
        if _DOCKERFILE_RE.match(lines[start]) or _arrived(lines[i + 1:end + 1], lines[:start] + lines[end + 1:]):
            continue
        said = m.group("line").strip()
        what = "a comment" if "#" in m.group("after") else "a space"
        uniform = not clean and what == "a space"  # (every one so: the copy's trailing spaces, most likely)
        message = (
            f"As pasted, the line `{said[:120]} \\{m.group('after')[:60]}` has {what} after its backslash"
            + (" (as every continued line here has: if the script has them too, this is what breaks it)" if uniform
               else "")
            + f": the backslash then escapes {'the space before the comment' if what == 'a comment' else 'that space'}, "
            f"not the line break, so the command ends on that line; the lines below it (`{nxt[:80]}` ...) run as a "
            "command of their own, and their options never reach the program. Fix: end every continued line with the "
            "backslash itself (no space or comment after it), and put comments above the command.")
        return [(_section_of(items, said), info(message) if uniform else warn(message))]  # one says how to mend all
    return []


def _arrived(below: list[str], rest: list[str]) -> bool:
    """Whether the program's own echo of its arguments, elsewhere in the paste, holds an option of the lines ``below``
    a broken continuation with its value (breakit p05: vLLM's ``non-default args: {... 'max_model_len': 32768}``;
    argparse's ``Namespace(max_model_len=32768)``, SGLang's ``server_args=``, NCCL's ``NCCL_IB_HCA set by environment
    to``, ``env``'s ``NCCL_IB_HCA=...``): then they reached it, and the space is the copy's."""
    echo = "\n".join(rest)
    for m in _GIVEN_RE.finditer("\n".join(below)):
        val = re.escape(m["val"])
        said = (rf"^[ \t]{{0,8}}{m['var']}={val}[ \t]{{0,8}}$|\b{m['var']} set by environment to {val}(?![\w.])" if m["var"]
                else rf"(?<![\w-]){m['opt'].replace('-', '_')}(?:['\"]?: ?['\"]?|=['\"]?){val}(?![\w.])")
        if re.search(said, echo, re.MULTILINE):
            return True
    return False


def few_iterations(items: list[tuple[Any, Any]]) -> list[tuple[int, Finding]]:
    """A note where an nccl-tests run quoted in the paste times each size over fewer iterations than checks/ranges.toml
    [spark-pair.measure.nccl_tests] few_iterations_below (``-n 1``, nccl#1218; the header's ``iters: 1``; nccl-tests'
    default is 20): each figure is one sample, swayed by a single slow step; ``-c 0`` besides (no data check) is said
    with it."""
    from ..ranges import measurement_params
    from .context import context
    bar = (measurement_params("spark-pair", "nccl_tests") or {}).get("few_iterations_below", 0)
    paste = context().paste or ""
    if not bar or "_perf" not in paste and "iters:" not in paste:
        return []
    joined = _CONTINUED_RE.sub(" ", paste)
    for m in _PERF_RE.finditer(joined):
        n = _ITERS_RE.search(m.group("args"))
        if n and 0 < _timed(n, _AGG_RE.search(m.group("args")), _GRAPH_RE.search(m.group("args"))) < bar:
            check = bool(_CHECK_OFF_RE.search(m.group("args")))
            return [(_section_of(items, m.group("test"), "nccl-tests"), _iterations_note(int(n.group("n")), check))]
    h = _HEADER_ITERS_RE.search(paste)
    if h and 0 < _timed(h, _HEADER_AGG_RE.search(h.group("rest")), _HEADER_GRAPH_RE.search(h.group("rest"))) < bar:
        note = _iterations_note(int(h.group("n")), "validation: 0" in h.group("rest"))
        return [(_section_of(items, "", "nccl-tests"), note)]
    return []


def _timed(iters: re.Match, agg: re.Match | None, graph: re.Match | None) -> int:
    """The operations nccl-tests times and averages each row over: iters x agg iters (``-m``), x the CUDA-graph
    launches (``-G``) where there are any (breakit p09: ``-n 1 -m 50`` is 50 operations, p20: ``graph: 100``)."""
    return int(iters["n"]) * max(int(agg["n"]) if agg else 1, 1) * max(int(graph["n"]) if graph else 1, 1)


def _iterations_note(n: int, check_off: bool) -> Finding:
    return info(f"nccl-tests timed each size over {n} iteration{'s' if n != 1 else ''} (`-n {n}`; its default is 20): "
                "each time and busbw is then one sample, which one slow step (a connection set up late, another job's "
                "traffic) sways; rerun with the default or more (-n 50) before judging the bandwidth from it."
                + (" `-c 0` besides: the results are not checked (validation off, `#wrong` reads N/A), so a wrong "
                   "sum would not show." if check_off else ""))
