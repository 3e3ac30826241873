"""GPU processes, NVLink status, `free`, nvidia-smi -q throttling and temperature, a cut topology matrix: what a paste
of each says (issue 27's d-series of the field corpus).

Samples are quoted from public threads (URL above each); figures asserted here are worked out by hand from the
sample, not read back from the code.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.parsers.common import ParseError
from grader.parsers.free import parse_free
from grader.parsers.nvidia_smi import parse_nvlink_status, parse_smi_table
from tests.test_field_serving import _levels, _one

GIB = 1024 ** 3


# https://github.com/apache/mxnet/issues/4242 (a process table alone, driver of 2016: no GI/CI columns)
OLD_PROCESSES = """\
+-----------------------------------------------------------------------------+
| Processes:                                                       GPU Memory |
|  GPU       PID  Type  Process name                               Usage      |
|=============================================================================|
|    0     31794    C   Unknown Error                                 5371MiB |
|    1      7653    C   python                                        5369MiB |
+-----------------------------------------------------------------------------+
"""

# an ASUS GX10 (GB10) README's nvidia-smi with two vLLM servers: GI/CI columns, Memory-Usage `Not Supported`
GB10_TWO_ENGINES = """\
$ nvidia-smi
+-----------------------------------------------------------------------------------------+
| NVIDIA-SMI 580.95.05              Driver Version: 580.95.05      CUDA Version: 13.0     |
|=========================================+========================+======================|
|   0  NVIDIA GB10                    On  |   0000000F:01:00.0 Off |                  N/A |
| N/A   63C    P0             44W /  N/A  | Not Supported          |     96%      Default |
+-----------------------------------------+------------------------+----------------------+
| Processes:                                                                              |
|  GPU   GI   CI              PID   Type   Process name                        GPU Memory |
|=========================================================================================|
|    0   N/A  N/A            3154      G   /usr/lib/xorg/Xorg                       18MiB |
|    0   N/A  N/A            6008      C   VLLM::EngineCore                      56501MiB |
|    0   N/A  N/A           44757      C   VLLM::EngineCore                      48829MiB |
+-----------------------------------------------------------------------------------------+
"""


def test_process_rows_of_both_layouts():
    old = parse_smi_table(OLD_PROCESSES)
    assert old.gpus == ()
    assert [(p.gpu, p.pid, p.type, p.name, p.used_mib) for p in old.processes] == [
        (0, 31794, "C", "Unknown Error", 5371), (1, 7653, "C", "python", 5369)]
    new = parse_smi_table(GB10_TWO_ENGINES)
    assert [(p.pid, p.name, p.used_mib) for p in new.processes] == [
        (3154, "/usr/lib/xorg/Xorg", 18), (6008, "VLLM::EngineCore", 56501), (44757, "VLLM::EngineCore", 48829)]


def test_unknown_error_process_is_memory_held_by_a_dead_process():
    s = _one(OLD_PROCESSES, "nvidia-smi")
    [held] = _levels(s, "warn")
    assert "PID 31794" in held and "5,371 MiB" in held and "zombie" in held and "fuser" in held
    assert not _levels(s, "fail")


def test_two_vllm_engines_on_one_gb10():
    s = _one(GB10_TWO_ENGINES, "nvidia-smi")
    [two] = _levels(s, "warn")
    assert "2 vLLM engines" in two and "6008, 44757" in two and "--gpu-memory-utilization" in two
    # 18 + 56501 + 48829 = 105348 MiB = 102.9 GiB, said as unified memory
    assert any("105,348 MiB (102.9 GiB)" in f and "unified" in f for f in _levels(s, "info"))


def test_err_cell_is_a_sensor_nvidia_smi_could_not_read():
    # https://github.com/Azure/azhpc-images/issues/77
    text = ("+-------------------------------+----------------------+----------------------+\n"
            "|   1  Tesla V100-PCIE...  On   | 00008ED0:00:00.0 Off |                    0 |\n"
            "| N/A   29C    P0   ERR! / 250W |    593MiB / 16160MiB |      0%      Default |\n"
            "+-------------------------------+----------------------+----------------------+\n")
    assert parse_smi_table(text).gpus[0].unread == ("power draw",)
    [err] = _levels(_one(text, "nvidia-smi"), "warn")
    assert "power draw reads `ERR!`" in err and "transient" in err


# https://github.com/Azure/azhpc-images/issues/73
NVLINK_TWO_DOWN = """\
$ nvidia-smi nvlink -s
GPU 3: Tesla V100-SXM2-32GB (UUID: GPU-00000000-0000-0000-0000-000000000000)
         Link 0: 25.781 GB/s
         Link 1: 25.781 GB/s
         Link 2: 25.781 GB/s
         Link 3: <inactive>
         Link 4: 25.781 GB/s
         Link 5: <inactive>
"""


def test_nvlink_with_inactive_links_fails_naming_them():
    st = parse_nvlink_status(NVLINK_TWO_DOWN)
    assert st.gpus[0].inactive == [3, 5] and st.gpus[0].active == [0, 1, 2, 4]
    [f] = _levels(_one(NVLINK_TWO_DOWN, "nvidia-smi-nvlink"), "fail")
    assert "3, 5 <inactive>" in f and "4 of 6 active" in f and "25.781 GB/s" in f


def test_nvlink_all_active_and_none_active():
    up = NVLINK_TWO_DOWN.replace("<inactive>", "25.781 GB/s")
    [good] = _levels(_one(up, "nvidia-smi-nvlink"), "ok")
    assert "NVLink up, all 6 links active" in good and "154.686 GB/s" in good  # 6 x 25.781
    none = "$ nvidia-smi nvlink -s\nNVML: Unable to retrieve NVLink information as all links are inActive\n"
    s = _one(none, "nvidia-smi-nvlink")
    assert [f.level for f in s.findings] == ["info"] and "PCIe" in s.findings[0].message
    with pytest.raises(ParseError):
        parse_nvlink_status("GPU0 GPU1\n")


# ASUS GX10 README (the same paste as above): 5.7 GiB of 121 GiB available and 8 GiB in swap
FREE_LOW = """\
$ free -h
               total        used        free      shared  buff/cache   available
Mem:           121Gi       115Gi       5.0Gi       767Mi       2.9Gi       5.7Gi
Swap:           15Gi       8.0Gi       8.0Gi
"""


def test_free_h_in_bytes_and_low_memory_warns():
    f = parse_free(FREE_LOW)
    assert f.mem.total == 121 * GIB and f.mem.available == int(5.7 * GIB) and f.swap.used == 8 * GIB
    [low] = _levels(_one(FREE_LOW, "free"), "warn")
    assert "5.7 GiB of 121.0 GiB (5%)" in low and "8.0 GiB already swapped out" in low


@pytest.mark.parametrize(("command", "unit"), [("free", 1024), ("free -m", 1024 ** 2), ("free -g", GIB),
                                               ("free --mega", 1000 ** 2), ("free -bw", 1)])
def test_free_plain_numbers_take_the_flag_unit(command, unit):
    text = (f"$ {command}\n              total        used        free      shared  buff/cache   available\n"
            "Mem:            100          40          10           1          50          58\n")
    f = parse_free(text)
    assert (f.mem.total, f.mem.available, f.unit_known) == (100 * unit, 58 * unit, True)


def test_free_healthy_is_said_and_unknown_unit_says_so():
    text = ("              total        used        free      shared  buff/cache   available\n"
            "Mem:      127535616    20000000    90000000      100000    17535616   105000000\n")
    s = _one(text, "free")
    [said] = _levels(s, "info")
    # 105000000 KiB of 127535616 KiB: 100.1 of 121.6 GiB, 82%
    assert "100.1 GiB of 121.6 GiB (82%) is available" in said and "read as KiB" in said
    assert not _levels(s, "warn")


def test_free_without_a_mem_row_is_a_clear_error():
    with pytest.raises(ParseError, match="Mem:"):
        parse_free("              total        used        free      shared  buff/cache   available\n")


# https://github.com/tenstorrent/vllm/issues/55 (vLLM V0's periodic stats line)
V0_STATS = ("INFO 01-23 06:34:00 metrics.py:396] Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: "
            "16.6 tokens/s, Running: 16 reqs, Swapped: 0 reqs, Pending: 0 reqs, GPU KV cache usage: {kv}%, "
            "CPU KV cache usage: 0.0%.\n")


def test_kv_cache_nearly_full_with_requests_running_warns():
    full = _one(V0_STATS.format(kv="94.9"), "vllm-log")
    [w] = _levels(full, "warn")
    assert "94.9% used" in w and "nearly full" in w and "--max-num-seqs" in w
    half = _one(V0_STATS.format(kv="45.0"), "vllm-log")
    assert not _levels(half, "warn") and any("45% used" in f for f in _levels(half, "info"))
    idle = _one(V0_STATS.format(kv="94.9").replace("Running: 16", "Running: 0"), "vllm-log")
    assert not _levels(idle, "warn")


# --------------------------------------------------------------------------- captured on one H200 (README there)

CAPTURED = Path(__file__).resolve().parent / "fixtures" / "captured" / "gpu-processes"


def _captured(name: str) -> str:
    return (CAPTURED / name).read_text(encoding="utf-8")


def test_captured_free_in_every_unit_form_is_one_size():
    kib = 131961976  # `free`'s default unit, KiB: 135.1e9 bytes
    sizes = {name: parse_free(_captured(name)).mem.total for name in
             ("free.txt", "free-m.txt", "free-h.txt", "free-g-si.txt")}
    assert sizes["free.txt"] == kib * 1024
    assert sizes["free-m.txt"] == 128869 * 1024 ** 2 and sizes["free-h.txt"] == 125 * GIB
    assert sizes["free-g-si.txt"] == 135 * 1000 ** 3
    # -h rounds down to 125Gi (125.85 GiB): within 1% of the KiB figure, as --si's 135G is
    assert all(abs(v / (kib * 1024) - 1) < 0.01 for v in sizes.values()), sizes
    assert parse_free(_captured("free.txt")).swap.total == 0


def test_captured_process_table_and_compute_apps_name_the_process():
    table = parse_smi_table(_captured("nvidia-smi-processes.txt"))
    assert [(p.gpu, p.name, p.used_mib) for p in table.processes] == [(0, "/tmp/hold", 2566)]
    s = _one(_captured("nvidia-smi-compute-apps.txt"), "nvidia-smi-apps")
    assert [f.level for f in s.findings] == ["info"] and "/tmp/hold 2,566 MiB" in s.findings[0].message


def test_captured_nvlink_status_of_a_gpu_without_nvlink_prints_nothing():
    s = _one(_captured("nvidia-smi-nvlink-s.txt"), "nvidia-smi-nvlink")
    assert [f.level for f in s.findings] == ["info"] and "has no NVLink" in s.findings[0].message


# --------------------------------------------------------------------------- nvidia-smi -q: throttling, temperature

def test_q_performance_with_nothing_limiting_is_not_throttled():
    # the H200's own capture (tests/fixtures/captured/h200x1): Idle Active, every limiter Not Active
    text = (CAPTURED.parent / "h200x1" / "nvidia-smi-q-performance.txt").read_text(encoding="utf-8")
    [good] = _levels(_one(text, "nvidia-smi-q"), "ok")
    assert "not throttled" in good and "`Idle` is Active" in good
    capped = text.replace("SW Power Cap                                   : Not Active",
                          "SW Power Cap                                   : Active")
    assert capped != text and not _levels(_one(capped, "nvidia-smi-q"), "ok")


# https://github.com/intel/thermal_daemon/issues/300 (a laptop GPU under a 57 C max operating limit)
TEMPERATURE = """\
$ nvidia-smi -q -d TEMPERATURE

==============NVSMI LOG==============

Attached GPUs                             : 1
GPU 00000000:2D:00.0
    Temperature
        GPU Current Temp                  : {cur} C
        GPU Shutdown Temp                 : 102 C
        GPU Slowdown Temp                 : 97 C
        GPU Max Operating Temp            : 57 C
"""


@pytest.mark.parametrize(("cur", "level", "said"), [(56, "warn", "max operating temperature of 57 C"),
                                                      (40, "info", "40 C (max operating 57 C, slowdown 97 C"),
                                                      (98, "warn", "at or above its slowdown temperature (97 C)")])
def test_temperature_against_its_limits(cur, level, said):
    s = _one(TEMPERATURE.format(cur=cur), "nvidia-smi-q")
    assert [f.level for f in s.findings] == [level] and said in s.findings[0].message


def test_a_topology_matrix_cut_after_its_gpu_rows_is_said_once():
    # the h200x2 matrix's header with NIC columns, its GPU rows only (as deepseek-ai/DeepEP#60 pasted a -mp matrix)
    text = ("$ nvidia-smi topo -m\n\tGPU0\tGPU1\tNIC0\tNIC1\tCPU Affinity\tNUMA Affinity\n"
            "GPU0\t X \tNV18\tPIX\tSYS\t0-47\t0\nGPU1\tNV18\t X \tSYS\tPIX\t48-95\t1\n")
    s = _one(text, "nvidia-smi-topo")
    cut = [f for f in s.findings if "incomplete" in f.message]
    assert [(f.level, "rows NIC0, NIC1 are missing" in f.message) for f in cut] == [("info", True)]


def test_each_gpus_nearest_nic_is_named_with_its_path():
    # vllm-project/vllm#19607's shape: two A100s, NICs behind switches (PXB) and across the CPU (SYS)
    text = ("$ nvidia-smi topo -m\n\tGPU0\tGPU1\tNIC0\tNIC1\tNIC2\tCPU Affinity\tNUMA Affinity\n"
            "GPU0\t X \tNV12\tSYS\tPXB\tNODE\t0-31\t0\nGPU1\tNV12\t X \tSYS\tPXB\tNODE\t0-31\t0\n"
            "NIC0\tSYS\tSYS\t X \tSYS\tSYS\nNIC1\tPXB\tPXB\tSYS\t X \tNODE\nNIC2\tNODE\tNODE\tSYS\tNODE\t X \n")
    [near] = [f.message for f in _one(text, "nvidia-smi-topo").findings if f.message.startswith("Nearest NIC")]
    assert "GPU0 NIC1 (PXB), GPU1 NIC1 (PXB)" in near


# NVIDIA/NemoClaw#8520 (`dmesg -T` on a DGX Spark, one stacking cable into QSFP port 0): the hotplug driver, both PCIe
# halves' module events, both twins up and the RDMA port ACTIVE
DMESG_ONE_CABLE = """\
[Fri Aug  7 03:13:00] cx7-pcie-hotplug MTKP0001:00: Cable plugin
[Fri Aug  7 03:13:04] mlx5_core 0000:01:00.0 enp1s0f0np0: Link down
[Fri Aug  7 03:13:05] mlx5_core 0000:01:00.0: Port module event: module 0, Cable plugged
[Fri Aug  7 03:13:05] mlx5_core 0002:01:00.0: Port module event: module 0, Cable plugged
[Fri Aug  7 03:13:05] mlx5_core 0000:01:00.0 enp1s0f0np0: Link up
[Fri Aug  7 03:13:05] mlx5_core 0000:01:00.0 rocep1s0f0: Port: 1 Link ACTIVE
[Fri Aug  7 03:13:06] mlx5_core 0002:01:00.0 enP2p1s0f0np0: Link up
"""


def test_dmesg_link_events_one_cable_two_twins():
    s = _one(DMESG_ONE_CABLE, "dmesg-link")
    assert s.facts["final"] == {"enp1s0f0np0": "up", "rocep1s0f0": "active", "enP2p1s0f0np0": "up"}
    [good] = _levels(s, "ok")
    assert "QSFP port 0" in good and "enp1s0f0np0, enP2p1s0f0np0" in good and not _levels(s, "warn")
    # the same cable pulled: both twins down at the end; a link that drops three times flaps
    pulled = DMESG_ONE_CABLE + ("[Fri Aug  7 03:20:00] mlx5_core 0000:01:00.0 enp1s0f0np0: Link down\n"
                                "[Fri Aug  7 03:20:00] mlx5_core 0002:01:00.0 enP2p1s0f0np0: Link down\n")
    downs = _levels(_one(pulled, "dmesg-link"), "warn")
    assert len(downs) == 2 and all("DOWN at the end" in w for w in downs)
    flaps = pulled + "".join(f"[Fri Aug  7 03:2{i}:00] mlx5_core 0000:01:00.0 enp1s0f0np0: Link {s}\n"
                             for i in range(1, 4) for s in ("up", "down"))
    assert any("went down 5 times" in w for w in _levels(_one(flaps, "dmesg-link"), "warn"))

