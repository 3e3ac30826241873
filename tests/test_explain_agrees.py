"""``explain`` and the checks never contradict each other on the same outputs (issue 27).

The sim's own recordings are outputs whose checks' verdicts are known: the golden evidence, the lesson-2 faults'
recordings and the replays the labs ship, recorded by the grader's probes on the sim. Each is pasted to ``explain``
as a person would paste those outputs (each under a ``node:`` caption, both nodes in one paste, the context
``--host spark --nodes N`` the sim stands for), and for every check that reads an output ``explain`` has a kind for
(:data:`TOPICS`):

- where no check of a topic fails, ``explain`` says no ``fail`` of those outputs (a contradiction: the learner would
  be told two things);
- where one fails, ``explain`` says at least one ``fail`` or ``warn`` there (``explain`` saying only "ok" of outputs
  a check fails is the silence the issue found), where ``explain`` read such an output at all.

Not compared: the sim's link figures. Its veth "cable" runs at 10 Gbit/s and iperf3 over it at what two cores give,
while ``explain --host spark`` judges a Spark's 200 Gbit/s port; the sim's checks hold the sim's own ranges
(checks/ranges.toml [sim]), so ethtool's speed and iperf3's rate are the one place the two rightly differ.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from grader.checking import grade_file
from grader.explain import explain

ROOT = Path(__file__).resolve().parents[1]
RECORDED = sorted([*ROOT.glob("tests/fixtures/golden/lesson[12]-sim-*.json"),
                   *ROOT.glob("tests/fixtures/faults/lesson2-*.json"),
                   *ROOT.glob("solutions/lesson[12]/recorded/*.json")])

TOPICS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "link": (("L1.port", "L1.addressing", "L1.netplan", "L1.mtu", "L1.route"),
             ("ibdev2netdev", "ip-addr", "netplan", "ping", "ip-route-get")),
    "roce": (("L2.roce_active",), ("rdma-link", "ib-sysfs", "show-gids")),
    "nccl": (("L2.nccl_transport",), ("nccl-log",)),
    "ray": (("L2.ray_nodes",), ("ray-status",)),
    "kv": (("L2.kv_capacity",), ("vllm-log",)),
}
"""Each topic: its checks, and the ``explain`` kinds of the outputs they read (the kinds a person pastes: the
grader's own formats, such as its serving-environment probe, have none). A topic, not a check, is the unit: one
output says several things (``ip addr`` the addresses and the MTU), and a finding of one check's subject on
another's output (two twins in one subnet, read from the netplan file) is still the same topic. L2.gid_index is in
none: what it fails is the index the serving processes were given (their environment, the grader's own probe), which
no pasted output here shows; the GID tables explain reads are right in every recording."""
OWN_OUTPUT: dict[str, tuple[str, ...]] = {
    "L1.port": ("ibdev2netdev",), "L1.addressing": ("ip-addr", "netplan"), "L1.netplan": ("netplan",),
    "L1.mtu": ("ip-addr", "ping"), "L1.route": ("ip-route-get",), "L2.roce_active": ("rdma-link", "ib-sysfs"),
    "L2.nccl_transport": ("nccl-log",), "L2.ray_nodes": ("ray-status",), "L2.kv_capacity": ("vllm-log",),
}
"""The kinds of the output each check's failure is read from: a failing check counts against explain's silence
only where explain read one of them (no-netplan's empty file listing is nothing to read)."""
SIM_FIGURES = ("ethtool", "iperf3")
"""Kinds whose figure on the sim is the sim's, not a Spark's (the module's docstring)."""


def _paste(evidence: dict) -> str:
    """Every recorded output with text, each under its node's caption, as one paste."""
    return "\n\n".join(f"{r['node']}:\n{r['stdout']}" for r in evidence["raw"] if r.get("stdout", "").strip())


def _findings(evidence: dict) -> dict[str, list[tuple[str, str]]]:
    """kind -> [(level, message)] of what ``explain`` says of the paste."""
    nodes = len(evidence.get("inventory", {}).get("nodes", [])) or 2
    out: dict[str, list[tuple[str, str]]] = {}
    for section in explain(_paste(evidence), host="spark", nodes=nodes):
        if section.kind and section.kind not in SIM_FIGURES:
            out.setdefault(section.kind, []).extend((f.level, f.message) for f in section.findings)
    return out


def test_there_are_recordings_of_both_lessons_with_failing_checks():
    names = {p.name for p in RECORDED}
    assert len(RECORDED) >= 20 and "lesson1-sim-mtu-1500.json" in names and "lesson2-wrong-gid-index.json" in names


def contradictions(path: Path) -> list[str]:
    """Where ``explain`` and the checks disagree on the evidence at ``path`` (the module's two rules), one sentence
    each; empty when they agree. tests/test_track.py asks it of every live lesson-1 fault's evidence too."""
    evidence = json.loads(path.read_text())
    verdicts = {v.id: v.status for v in grade_file(path).verdicts}
    said = _findings(evidence)
    problems = []
    for topic, (checks, kinds) in TOPICS.items():
        statuses = {c: verdicts[c] for c in checks if verdicts.get(c) in ("pass", "fail", "warn")}
        read = [f for k in kinds for f in said.get(k, [])]
        if not statuses or not read:
            continue
        failing = sorted(c for c, st in statuses.items() if st == "fail" and any(said.get(k) for k in OWN_OUTPUT[c]))
        fails = [m for level, m in read if level == "fail"]
        if not any(st == "fail" for st in statuses.values()) and fails:
            problems.append(f"{topic}: {', '.join(statuses)} do not fail, explain fails: {fails[0][:200]}")
        if failing and not any(level in ("fail", "warn") for level, _ in read):
            problems.append(f"{topic}: {', '.join(failing)} fail{'s' if len(failing) == 1 else ''}, explain "
                            f"({', '.join(kinds)}) says only: {'; '.join(m[:80] for _, m in read[:3])}")
    return problems


@pytest.mark.parametrize("path", RECORDED, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_explain_never_contradicts_a_check_on_the_same_outputs(path):
    problems = contradictions(path)
    assert not problems, "\n".join(problems)


def test_the_rule_catches_a_contradiction_either_way(monkeypatch):
    """The comparison can fail: told that L1.mtu passed on the mtu-1500 recording (whose jumbo pings got no reply),
    and that L2.ray_nodes failed on the healthy lesson-2 recording (whose ``ray status`` shows both nodes), it
    names each disagreement."""
    from types import SimpleNamespace

    import tests.test_explain_agrees as me

    def told(check: str, status: str):
        return lambda path: SimpleNamespace(verdicts=[SimpleNamespace(id=check, status=status)])

    monkeypatch.setattr(me, "grade_file", told("L1.mtu", "pass"))
    (problem,) = contradictions(ROOT / "tests/fixtures/golden/lesson1-sim-mtu-1500.json")
    assert problem.startswith("link: L1.mtu do not fail, explain fails: No reply to 9000-byte packets"), problem
    monkeypatch.setattr(me, "grade_file", told("L2.ray_nodes", "fail"))
    (problem,) = contradictions(ROOT / "tests/fixtures/golden/lesson2-sim-healthy.json")
    assert problem.startswith("ray: L2.ray_nodes fails, explain (ray-status) says only: Ray sees 2 nodes"), problem
