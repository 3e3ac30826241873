"""Session 38a (issue 27): the field corpus's misses about collectives and RDMA; each rule on the real output that
prompted it (read from the corpus by path, or a few of its lines quoted) and on a neighbouring output where it must
stay silent."""

from __future__ import annotations

from pathlib import Path

from grader.explain import explain
from tests.conftest import levels, messages

FIELD = Path(__file__).parent / "fixtures" / "field"


def _field(stem: str) -> str:
    """The text of a corpus (or pending) entry whose file name starts with ``stem``."""
    return next(p for d in ("corpus", "pending") for p in sorted((FIELD / d).glob(f"{stem}_*.txt"))).read_text()


def _table(rows: list[tuple[int, float]]) -> str:
    """nccl-tests all_reduce rows (size, busbw), both sides alike, under the current header."""
    head = ("#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   "
            "busbw #wrong\n")
    return head + "".join(f"{s:>12} {s // 4:>13}     float     sum      -1    100.0 {bw / 1.5:7.2f} {bw:7.2f}      0"
                          f"    100.0 {bw / 1.5:7.2f} {bw:7.2f}      0\n" for s, bw in rows)


def test_a_one_host_table_flat_below_a_pcie4_link_is_a_hedged_warn_naming_what_decides():
    """tinygrad/open-gpu-kernel-modules#22 (https://github.com/tinygrad/open-gpu-kernel-modules/pull/22): four RTX
    4090 all-reduce rows flat at ~12.7 GB/s busbw from 8 MiB on; gardenlinux#4556
    (https://github.com/gardenlinux/gardenlinux/issues/4556): four RTX PRO 6000 flat at ~18.8 GB/s."""
    for stem, figure in (("zj004", "12.8 GB/s"), ("zo014", "18.8 GB/s")):
        section = explain(_field(stem), host="other", nodes=1)[0]
        said = messages(section, "warn")
        assert section.kind == "nccl-tests" and max(levels(section), key=["ok", "info", "warn", "fail"].index) == "warn"
        assert f"flattens at about {figure}" in said and "PCIe 4.0" in said and "via SHM" in said
        assert "network's figure" not in said  # one host, as the learner said


def test_a_flat_table_of_unsaid_hosts_names_the_network_reading_too():
    """NVIDIA/nccl#644 (https://github.com/NVIDIA/nccl/issues/644): eight ranks of all_gather rows flat at ~7.3 GB/s,
    no `# Rank` lines and the host count not said."""
    said = messages(explain(_field("xp016"), host="other")[0], "warn")
    assert "flattens at about 7.32 GB/s" in said and "about 59 Gb/s" in said


def test_the_pcie_plateau_rule_is_silent_at_the_gen4_ceiling_while_climbing_across_hosts_and_on_nvlink():
    """A Gen4 x16 ring at its ceiling (tinygrad/open-gpu-kernel-modules#17: 5x RTX 4090 at 24.7 GB/s,
    https://github.com/tinygrad/open-gpu-kernel-modules/issues/17), a table still climbing at its largest sizes, two
    machines (NVIDIA/nccl-tests#232: 41 GB/s between two nodes), an NVLink pair (NVIDIA/nccl#1435)."""
    big = [(2**23 << k, bw) for k, bw in enumerate((24.1, 24.6, 24.7, 24.7))]
    climbing = [(2**23 << k, bw) for k, bw in enumerate((8.0, 11.0, 14.0, 17.5))]
    for text, nodes in ((_table(big), 1), (_table(climbing), 1), (_table([(2**23, 18.0), (2**24, 18.2), (2**25, 18.3)]),
                                                                  2)):
        assert "flattens" not in messages(explain(text, kind="nccl-tests", host="other", nodes=nodes)[0])
    for stem, nodes in (("a042", 2), ("a022", 1), ("xd008", 1)):
        assert "flattens" not in " ".join(messages(s) for s in explain(_field(stem), host="other", nodes=nodes))
    flat = _table([(2**23, 11.9), (2**24, 12.1), (2**25, 12.2)])
    assert "flattens at about 12.2 GB/s" in messages(explain(flat, kind="nccl-tests", host="other", nodes=1)[0])
