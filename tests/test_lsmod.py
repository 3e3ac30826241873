"""lsmod (grader/parsers/lsmod.py, judged by grader.judges.roce.summarise_lsmod): the modules a GPU and RDMA host
needs, read from a real output people paste when asked whether nvidia_peermem is loaded."""

from __future__ import annotations

import pytest

from grader.explain import explain
from grader.parsers.common import ParseError
from grader.parsers.lsmod import parse_lsmod

# https://github.com/NVIDIA/nccl/issues/1737 (an 8-GPU host's `lsmod | grep nvidia`, as posted; the user redacted)
NCCL1737 = """(base) [user@gh-3714u15 ~]$ lsmod | grep nvidia
nvidia_uvm           1523712  0
nvidia_drm             73728  0
nvidia_modeset       1306624  1 nvidia_drm
nvidia_peermem         16384  0
nvidia              56598528  147 nvidia_uvm,nvidia_peermem,gdrdrv,nvidia_modeset
drm_kms_helper        167936  7 drm_vram_helper,ast,drm_display_helper,nvidia_drm,nouveau
ib_core               442368  9 rdma_cm,ib_ipoib,nvidia_peermem,iw_cm,ib_umad,rdma_ucm,ib_uverbs,mlx5_ib,ib_cm
drm                   577536  10 drm_kms_helper,drm_vram_helper,ast,drm_display_helper,nvidia,drm_ttm_helper,nvidia_drm,ttm,nouveau
"""


def levels(sections):
    return [(f.level, f.message) for s in sections for f in s.findings]


def test_lsmod_lines_are_read_with_their_users():
    mods = parse_lsmod(NCCL1737)
    assert [m.name for m in mods.modules][:5] == ["nvidia_uvm", "nvidia_drm", "nvidia_modeset", "nvidia_peermem",
                                                 "nvidia"]
    nvidia = mods.modules[4]
    assert (nvidia.size, nvidia.count, nvidia.used_by[:2]) == (56598528, 147, ("nvidia_uvm", "nvidia_peermem"))
    assert mods.has("ib_core") and not mods.has("nouveau") and not mods.truncated  # nouveau only as a user
    with_header = "Module                  Size  Used by\nnvidia_peermem         16384  0\nmlx5_ib               4"
    cut = parse_lsmod(with_header)
    assert [m.name for m in cut.modules] == ["nvidia_peermem"] and cut.truncated
    with pytest.raises(ParseError, match="an lsmod line"):
        parse_lsmod("nvidia_peermem 16384 0\nsomething else entirely\nnvidia 1 0\n")


def test_peermem_loaded_missing_or_not_asked():
    """nvidia_peermem listed, or named in another module's used-by: ok. Absent where one plain grep would have shown
    it: a note naming DMA-BUF and modprobe (on a Spark: expected); through `grep -v`, `-w`, a pattern or a second
    filter nothing is said. Absent under a grep that could not show it (`grep mlx5`): nothing said of it. mlx5_core without
    mlx5_ib, where `grep mlx5` would have shown it: a warning (no RDMA device)."""
    said = levels(explain(NCCL1737, host="other"))
    assert ("ok", "nvidia_peermem is loaded: the NIC can read and write GPU memory directly (GPUDirect RDMA's "
                  "peer-memory path).") in said
    gone = NCCL1737.replace("nvidia_peermem         16384  0\n", "").replace("nvidia_peermem,", "")
    used = NCCL1737.replace("nvidia_peermem         16384  0\n", "")  # still in nvidia's and ib_core's used-by
    assert any("nvidia_peermem is loaded" in m for _, m in levels(explain(used, host="other")))
    for filtered in ("grep -v nvidia", "grep -w nvidia", "grep nvidia | head -3", "grep -E 'nvidia|mlx'"):
        assert not any("not loaded" in m for _, m in levels(explain(gone.replace("grep nvidia", filtered),
                                                                        host="other")))
    assert [lv for lv, m in levels(explain(gone, host="other")) if "nvidia_peermem is not loaded" in m] == ["info"]
    spark = levels(explain(gone, host="spark"))
    assert any("expected on a DGX Spark" in m for _, m in spark)
    mlx = "$ lsmod | grep mlx5\nmlx5_core            2347008  0\nmlxfw                  36864  1 mlx5_core\n"
    said = levels(explain(mlx, host="other"))
    assert [lv for lv, m in said if "without mlx5_ib" in m] == ["warn"]
    assert not any("peermem" in m for _, m in said)
    both = mlx.replace("mlx5_core            2347008  0\n",
                       "mlx5_ib               462848  0\nmlx5_core            2347008  1 mlx5_ib\n")
    assert not any("without mlx5_ib" in m for _, m in levels(explain(both, host="other")))


def test_a_grep_that_printed_nothing():
    sections = explain("$ lsmod | grep nvidia_peermem\n$ nvidia-smi topo -m\n", host="other")
    assert sections[0].kind == "lsmod" and "no loaded module matches" in sections[0].findings[0].message
