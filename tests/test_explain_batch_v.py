"""The rules blind batch v of the field corpus showed missing (session 29), each on the real paste that showed it
(tests/fixtures/field/corpus/v0*, with their threads' URLs in the .toml beside them) and on a variant that must not
trigger it."""

from __future__ import annotations

from pathlib import Path

from grader.explain import explain

CORPUS = Path(__file__).resolve().parent / "fixtures" / "field" / "corpus"
CAPTURED = Path(__file__).resolve().parent / "fixtures" / "captured"


def _paste(prefix: str) -> str:
    (path,) = CORPUS.glob(f"{prefix}_*.txt")
    return path.read_text()


def _said(text: str, **context) -> list[tuple[str, str]]:
    return [(f.level, f.message) for s in explain(text, **context) for f in s.findings]


def test_a_hca_list_mixing_infiniband_and_roce_warns():
    """nccl#302: `NET/IB : Using [0]mlx5_3:1/IB [1]mlx5_0:1/IB [2]mlx5_2:1/RoCE [3]mlx5_4:1/IB`, then ibv_modify_qp
    EINVAL: the mix is named (mlx5_2:1 RoCE); an all-IB list is not."""
    text = _paste("v020")
    said = _said(text, host="other")
    assert [lv for lv, m in said if "mixes InfiniBand and RoCE" in m and "mlx5_2:1 RoCE" in m] == ["warn"]
    assert not any("mixes InfiniBand" in m for _, m in _said(text.replace("mlx5_2:1/RoCE", "mlx5_2:1/IB"), host="other"))


def test_p2p_turned_off_in_the_environment_is_a_note_and_says_where_traffic_goes():
    """nccl-tests#131 (NCCL_P2P_DISABLE=1 shows as `NCCL_P2P_LEVEL set by environment to LOC`): through host memory
    (SHM). The h200x2 capture also sets NCCL_SHM_DISABLE=1, with two host ids: NCCL counts two nodes of one rank each
    (`nRanks 2 nNodes 2 localRanks 1`), so no two GPUs share a node for it and P2P off changes nothing: no warning
    (session 33, blind batch zq004's rule)."""
    said = _said(_paste("v014"), host="other")
    # a setting in the environment, not a fault: a note since session 38 (blind batch wi003, ParCIS/Chimera#2)
    assert [lv for lv, m in said if "P2P between GPUs is off (NCCL_P2P_LEVEL=LOC" in m and "(SHM)" in m] == ["info"]
    capture = (CAPTURED / "nccl_tests_h200x2" / "all_gather_perf_socket_fallback.txt").read_text()
    assert "nNodes 2 localRanks 1" in capture
    assert not any("P2P between GPUs is off" in m for _, m in _said(capture))


def test_cpu_affinity_sets_apart_are_two_sockets_without_a_numa_column():
    """nccl#243's six-GPU matrix has only a CPU Affinity column (0-13,28-41 and 14-27,42-55): SYS between the two
    groups is the server's layout, a note; with one CPU set for all six, SYS between cards still warns."""
    text = _paste("v004")
    sys_levels = [lv for lv, m in _said(text, host="other") if "path SYS" in m]
    assert sys_levels == ["info"]
    one_set = text.replace("14-27,42-55", "0-13,28-41")
    said = _said(one_set, host="other")
    assert "warn" in {lv for lv, m in said if "path SYS" in m}
    assert any("sit on one socket (the same CPU Affinity)" in m for _, m in said)  # a hidden PCIe tree


def test_slurm_cancelling_a_launch_that_waited_for_its_placement_group_fails():
    """vllm#26028: vLLM under srun waits for its Ray placement group, then Slurm cancels the job: the run ended."""
    said = _said(_paste("v001"), host="other")
    assert ("warn" in [lv for lv, m in said if "placement group" in m]
            and [lv for lv, m in said if m.startswith("Slurm cancelled JOB 1112356 on host1")] == ["fail"])


def test_perftest_on_a_port_that_is_down_names_the_port():
    """lsgunth/perftest#1: `Port number 1 state is Down` then `Couldn't set the link layer`: the first is the cause."""
    said = _said(_paste("v018"), host="other")
    assert said[0][0] == "fail" and "Port number 1 state is Down" in said[0][1] and "no link" in said[0][1]
