"""Session 40, builder C (issue 27): serving and GPU outputs read as a careful engineer does, each test on a real
output (the corpus file, by path) and a neighbouring one the rule must leave alone."""

from __future__ import annotations

from pathlib import Path

from grader.explain import explain
from tests.conftest import levels, messages

PENDING = Path(__file__).parent / "fixtures" / "field" / "pending"
CORPUS = Path(__file__).parent / "fixtures" / "field" / "corpus"


def _one(path: Path, kind: str, **kw):
    [s] = [x for x in explain(path.read_text(encoding="utf-8"), **kw) if x.kind == kind]
    return s


def _entry(folder: Path, stem: str) -> Path:
    [p] = folder.glob(stem + "_*.txt")
    return p


def test_a_one_gpu_topo_matrix_with_nics_is_said_healthy_with_its_nic_port_pairs():
    """https://github.com/jeffersonjhunt/code-monkeys/blob/dba17c57e975091dc772326faf5f4a8bd5c731ed/spark/cluster/docs/inventory-starsky.md
    (pending wq002): `nvidia-smi topo -m` on a DGX Spark, one GB10 and the
    ConnectX-7's four functions, NIC0-NIC1 and NIC2-NIC3 PIX: the machine's layout as built, said so with the pairs."""
    s = _one(_entry(PENDING, "wq002"), "nvidia-smi-topo", host="spark", nodes=1)
    assert set(levels(s)) <= {"ok", "info"}
    [lay] = [m for m in messages(s, "info").splitlines() if m.startswith("Layout: one GPU")]
    assert "NIC0-NIC1, NIC2-NIC3 PIX to each other" in lay and "DGX Spark's layout as built" in lay
    assert "nothing wrong" in lay
    other = _one(_entry(PENDING, "wq002"), "nvidia-smi-topo", host="other", nodes=1)  # not told it is a Spark
    [lay] = [m for m in messages(other, "info").splitlines() if m.startswith("Layout: one GPU")]
    assert "DGX Spark" not in lay and "no GPU-to-GPU path to judge" in lay


def test_nic_port_pairs_are_named_in_a_multi_gpu_layout_and_absent_without_pix_nics():
    """https://github.com/luigifcruz/stelline/blob/383e316755e36e66f619d1dfccc9bd7e5f19d008/hardware/asus-esc8000a-e12.md
    (pending wo010): a two-socket ESC8000A, four GPUs and two dual-port ConnectX-7
    (NIC0-NIC1, NIC2-NIC3 PIX): the layout sentence names the port pairs; corpus f026 (five GPUs, no NIC) does not,
    and no one-GPU layout is said for a multi-GPU matrix."""
    s = _one(_entry(PENDING, "wo010"), "nvidia-smi-topo", host="other", nodes=1)
    [lay] = [m for m in messages(s, "info").splitlines() if m.startswith("Layout:")]
    assert "NIC0-NIC1, NIC2-NIC3 PIX to each other" in lay and "one GPU" not in lay
    f = _one(_entry(CORPUS, "f026"), "nvidia-smi-topo", host="other", nodes=1)
    assert not any("PIX to each other" in m for m in messages(f).splitlines())
