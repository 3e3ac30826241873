"""What the launch commands quoted in one paste say together (read from the whole paste, grader.judges.context): a
multi-node server's nodes must all name one rendezvous address, node rank 0's (SGLang's ``--dist-init-addr``, vLLM's
``--master-addr`` with ``--nnodes``), and differ only in ``--node-rank``."""

from __future__ import annotations

import re

from .common import fail
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
