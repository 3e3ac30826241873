"""Outputs whose every line starts with the name of the machine that printed it: ``pdsh -w spark-a,spark-b ip addr``
(``spark-a: 4: enp1s0f1np1: <...>``), ``clush -L``, ``pssh -P``, and Terraform's ``remote-exec`` provisioners
(``null_resource.head (remote-exec): ...``). The lines are grouped by that name, each group read as one machine's output
with the name taken off (:func:`host_groups`), as a ``spark-a:`` caption above each machine's output would have it.

Told from a program's own ``name: message`` lines (``ping: sendmsg: ...``, ``libibverbs: Warning: ...``,
``llama_context: ...``, ``debug1: ...``, ``enp1s0: renamed ...``) by what a host name is: no ``_``, not a known program,
level or interface name, not a number (``ip -o addr``'s ``2: enp1s0 inet ...``, ``srun -l``'s ``0: ``, which their
readers take as they are), and with a digit, ``-`` or ``.`` in it unless two or more names each label two lines or more;
and each name labels several lines (:data:`MIN_LINES_PER_NAME`), as a list of keys' names do not.
"""

from __future__ import annotations

import re
from typing import Sequence

_LABEL_RE = re.compile(r"(?P<label>[A-Za-z0-9](?:[A-Za-z0-9.-]{0,61}[A-Za-z0-9])?): ")
_TERRAFORM_RE = re.compile(r"(?P<label>[\w.\[\]\"-]{1,120}) \((?:remote|local)-exec\): ")
_TERRAFORM_OWN_RE = re.compile(r"[\w.\[\]\"-]{1,120}: (?:Still \w+\.\.\.|Creating\.\.\.|Creation complete|Provisioning "
                               r"with|Destroying\.\.\.|Destruction complete|Modifying\.\.\.)")
"""Terraform's own progress lines between a provisioner's (``null_resource.head: Still creating... [10s elapsed]``)."""
_NOT_HOST_RE = re.compile(
    r"(?:\d+|debug\d|(?:lib|ib_|mlx|ibv)\S*|(?:en|wl|ww)[a-z]\S*|eth\d\S*|ib[ps]?\d\S*|bond\d\S*|br-\S*|docker\d\S*|"
    r"veth\S*|virbr\d\S*|roce\S*|(?:python|iperf|ping|perl|java|bash|zsh|sh|sudo|ssh|scp|rsync|pdsh|clush|pssh|"
    r"mpirun|orted|prterun|srun|sbatch|slurmstepd|pyxis|kernel|systemd|nvidia-smi|nvrm|ray|vllm|sglang|docker|podman|"
    r"kubectl|main|version|note|error|warning|warn|info|debug|fatal|panic|usage|hint|tip)\d{0,2}"
    r"|[0-9a-f]{12}|[0-9a-f]{64})",
    re.I)
"""Names that are not a machine's when they label lines: numbers, ssh's ``debug1``, libraries, devices, interfaces,
programs, log levels, a container image's layers (``docker pull``'s ``a1b2c3d4e5f6: Pull complete``)."""
MIN_LINES_PER_NAME = 3
"""On average each machine labels this many lines or more: a list of keys (``/proc/meminfo`` twice, ``ethtool -c``)
names each once or twice."""
MIN_SHARE = 0.8
"""The share of a paste's non-blank lines that must carry a machine's name for the paste to be read by machine."""
_OWN_LINE = ("", 0)  # what _label gives Terraform's own progress line
_LOOK_AHEAD = 24  # the first non-blank lines looked at before the rest (a log of another shape is ruled out at once)


def host_groups(lines: Sequence[str]) -> list[tuple[str, list[tuple[int, str]]]] | None:
    """``[(machine, [(index, line without its label), ...]), ...]`` in the order the machines first appear, or None
    when the lines are not labelled by machine (fewer than 3 labelled, under :data:`MIN_SHARE` of the non-blank
    ones, or a label that is no host name: see the module). A line without a label goes with the machine of the line
    above it (a wrapped line, pdsh's own ``pdsh@a: b: ssh exited with exit code 255``); a label alone (``spark-a:``,
    a blank line of that machine's) is a blank line of its group; Terraform's own progress lines are dropped. Never
    raises."""
    content = [i for i, line in enumerate(lines) if line.strip()]
    if len(content) < 3:
        return None
    head = content[:_LOOK_AHEAD]
    if sum(1 for i in head if _label(lines[i]) is not None) < MIN_SHARE * len(head):
        return None
    labels = [_label(lines[i]) for i in content]
    counts: dict[str, int] = {}
    for label in labels:
        if label and label[0]:
            counts[label[0]] = counts.get(label[0], 0) + 1
    named = sum(counts.values())
    if named < 3 or named + labels.count(_OWN_LINE) < MIN_SHARE * len(content) or not _hosts(counts):
        return None
    groups: dict[str, list[tuple[int, str]]] = {}
    current: str | None = None
    for i, label in zip(content, labels):
        alone = lines[i].rstrip()[:-1] if lines[i].rstrip().endswith(":") else None
        if label and label[0]:
            current, cut = label
            groups.setdefault(current, []).append((i, lines[i][cut:]))
        elif alone in counts:
            groups.setdefault(alone, []).append((i, ""))
        elif current is not None and label is None:
            groups[current].append((i, lines[i]))
    return list(groups.items())


def _hosts(counts: dict[str, int]) -> bool:
    """Whether the labels (name -> lines it labels) are machines' names (the module's rules)."""
    several = sum(1 for n in counts.values() if n >= 2) >= 2
    return len(counts) <= 64 and sum(counts.values()) >= MIN_LINES_PER_NAME * len(counts) and not any(
        _NOT_HOST_RE.fullmatch(name) or name.isupper() and not any(c.isdigit() for c in name)
        or not several and not any(c.isdigit() or c in "-." for c in name) for name in counts)


def _label(line: str) -> tuple[str, int] | None:
    """The machine name a line starts with and where the rest begins; :data:`_OWN_LINE` for Terraform's own progress
    line; None for a line with no label."""
    if not line[:1].isalnum():
        return None
    m = _LABEL_RE.match(line) or _TERRAFORM_RE.match(line)
    if m is not None:
        return m.group("label"), m.end()
    return _OWN_LINE if _TERRAFORM_OWN_RE.match(line) else None
