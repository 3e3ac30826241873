"""Field pastes of serving, the lab and lesson 3 read to the conclusion their README gives (issue 14, parts 1-3),
and each shape the issue names on a small quoted sample, with its source in a comment.

The field pastes are tests/fixtures/field/ (copies of ../shared/fixtures/field/, sources in its README). Each is
run through the command line (grader.cli.main(["explain", path])) so the exit status is checked with the verdict:
1 when the paste shows a failure, 0 otherwise.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.cli import main
from grader.explain import explain
from tests.conftest import field_text, levels, messages


def _run(tmp_path: Path, text: str, capsys, name: str = "paste.txt") -> tuple[int, str]:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    capsys.readouterr()
    rc = main(["explain", str(path)])
    return rc, capsys.readouterr().out


def _one(text: str, kind: str):
    sections = [s for s in explain(text) if s.kind is not None or s.error]
    assert [s.kind for s in sections] == [kind], [(s.kind, s.error) for s in sections]
    assert sections[0].error is None, sections[0].error
    return sections[0]


def _levels(section, level: str) -> list[str]:
    return [f.message for f in section.findings if f.level == level]


# --------------------------------------------------------------------------- the field pastes

def test_04_ray_status_healthy_two_nodes(tmp_path, capsys):
    text = field_text("04_")
    s = _one(text, "ray-status")
    assert s.facts["nodes"] == 2 and s.facts["gpus_total"] == 2 and s.facts["gpus_used"] == 0
    assert s.facts["resources"]["CPU"]["total"] == 40 and not s.facts["pending_demands"]
    assert not _levels(s, "fail") and not _levels(s, "warn")
    assert any("2 nodes" in m for m in _levels(s, "ok"))
    rc, out = _run(tmp_path, text, capsys)
    assert rc == 0 and "Ray sees 2 nodes" in out


def test_14_ray_status_pending_pg_is_the_driver_ip_not_a_gpu_shortage(tmp_path, capsys):
    text = field_text("14_")
    s = _one(text, "ray-status")
    assert s.facts["gpus_total"] == 16 and s.facts["gpus_used"] == 0 and s.facts["nodes"] == 2
    [demand] = s.facts["demands"]
    assert demand["strategy"] == "PACK" and demand["gpus"] == 16 and demand["node_anchors"]
    [failure] = _levels(s, "fail")
    assert "not a GPU shortage" in failure and "VLLM_HOST_IP" in failure and "get_ip" in failure
    everything = " ".join(f.message for f in s.findings)
    # the confident wrong claim of before: never offered when every GPU is free
    assert "Free the GPUs" not in everything and "add the missing node" not in everything
    # 8 GPUs per node: not a Spark pair, so no Spark figures
    assert s.facts["spark_like"] is False and "Spark" not in " ".join(_levels(s, "info"))
    rc, out = _run(tmp_path, text, capsys)
    assert rc == 1 and "FAIL" in out


def test_22_topo_two_5090s_via_phb_same_numa_no_nvlink(tmp_path, capsys):
    text = field_text("22_")
    s = _one(text, "nvidia-smi-topo")
    assert s.facts["pairs"] == [{"a": "GPU0", "b": "GPU1", "path": "PHB"}]
    assert s.facts["numa_affinity"] == {"GPU0": "0", "GPU1": "0"}
    # PHB is what two cards on a consumer board have: said with its cost where P2P is off, not warned (whether P2P
    # works decides, and `topo -p2p r` says it: example 23's GNS is said, CNS/NS warn)
    assert not _levels(s, "warn")
    assert any("PHB" in i and "No NVLink" in i and "NUMA node 0" in i and "-p2p r" in i for i in _levels(s, "info"))
    rc, _ = _run(tmp_path, text, capsys)
    assert rc == 0


def test_23_p2p_gns_both_ways_with_its_legend(tmp_path, capsys):
    text = field_text("23_")
    s = _one(text, "nvidia-smi-p2p")
    assert [(p["a"], p["b"], p["status"]) for p in s.facts["pairs"]] == [("GPU0", "GPU1", "GNS")]
    # GNS: the cards themselves offer no P2P (GeForce on the stock driver): said, with its cost, but nothing on the
    # machine can mend it, so no warning (five blind readers of the corpus read such matrices as info)
    assert not _levels(s, "warn")
    [n] = [m for m in _levels(s, "info") if "GNS" in m]
    assert "GPU not supported" in n and "host memory" in n and "GeForce" in n and "not a fault" in n
    rc, _ = _run(tmp_path, text, capsys)
    assert rc == 0


def test_26_bench_without_banner_cut_after_mean_itl(tmp_path, capsys):
    text = field_text("26_")
    s = _one(text, "vllm-bench")
    summary = s.facts["summary"]
    assert summary["completed"] == 50 and summary["failed"] == 0 and summary["output_throughput"] == 63.21
    assert summary["mean_ttft_ms"] == 4467.34 and summary["mean_tpot_ms"] == 762.06 and summary["duration"] == 1620.10
    assert s.facts["truncated"] is True
    assert any("50 of 50" in m for m in _levels(s, "ok"))
    assert any("4.47 s" in m for m in _levels(s, "info"))
    [slow] = _levels(s, "warn")
    assert "762 ms" in slow and "1.3 tok/s per stream" in slow and "50 requests" in slow and "very slow" in slow
    assert any("stops inside the ITL block" in m for m in _levels(s, "info"))
    rc, _ = _run(tmp_path, text, capsys)
    assert rc == 0


def test_30_free_memory_check_passes_with_its_margin(tmp_path, capsys):
    text = field_text("30_")
    s = _one(text, "vllm-log")
    mc = s.facts["memory_check"]
    assert (mc["free_gib"], mc["total_gib"], mc["utilization"], mc["wanted_gib"]) == (110.37, 121.69, 0.87, 105.87)
    assert mc["failed"] is False and mc["margin_gib"] == pytest.approx(4.5)
    [passed] = [m for m in _levels(s, "ok") if "memory check" in m]
    assert "passes" in passed and "4.5 GiB" in passed
    assert not _levels(s, "fail")
    rc, _ = _run(tmp_path, text, capsys)
    assert rc == 0


# --------------------------------------------------------------------------- shapes, on small quoted samples

# vLLM's startup memory check, its ValueError (vllm/v1/worker/gpu_worker.py; shared/research/procedure.md §5.6,
# MiaAI-Lab/GLM-5.3-Flash-EXL3-2x-DGX-Sparks issue 47): one line, and wrapped as a terminal paste wraps it
MEMORY_ERROR = ("ValueError: Free memory on device (100.12/121.69 GiB) on startup is less than desired GPU memory "
                "utilization (0.9, 109.52 GiB). Decrease GPU memory utilization or reduce GPU memory used by other "
                "processes.\n")
MEMORY_ERROR_WRAPPED = ("(EngineCore_DP0 pid=411) ValueError: Free memory on device (100.12/121.69 GiB) on startup "
                        "is less than\ndesired GPU memory utilization (0.9, 109.52 GiB). Decrease GPU memory "
                        "utilization or reduce GPU memory\nused by other processes.\n")


@pytest.mark.parametrize("text", [MEMORY_ERROR, MEMORY_ERROR_WRAPPED], ids=["one-line", "wrapped"])
def test_free_memory_check_valueerror_fails_with_meaning_and_fix(tmp_path, capsys, text):
    s = _one(text, "vllm-log")
    [failure] = _levels(s, "fail")
    assert "100.12 of 121.69 GiB" in failure and "109.52" in failure and "Fix:" in failure
    assert "--gpu-memory-utilization" in failure
    rc, _ = _run(tmp_path, text, capsys)
    assert rc == 1


# a vLLM log line with its colour codes written out (`^[[0;36m`), as some terminals copy them (issue 14; the
# real-ESC form of the same lines is vLLM's coloured process prefix)
ESCAPED = ("^[[0;36m(EngineCore_DP0 pid=2301)^[[0;0m INFO 10-12 10:00:01 [kv_cache_utils.py:1087] GPU KV cache "
           "size: 1,234,560 tokens\n^[[0;36m(EngineCore_DP0 pid=2301)^[[0;0m INFO 10-12 10:00:01 "
           "[kv_cache_utils.py:1091] Maximum concurrency for 131,072 tokens per request: 9.42x\n")


def test_literal_escape_text_reads_like_the_real_escape():
    literal = _one(ESCAPED, "vllm-log")
    real = _one(ESCAPED.replace("^[", "\x1b"), "vllm-log")
    assert literal.facts["kv_tokens"] == real.facts["kv_tokens"] == 1_234_560
    assert literal.facts["kv"][0]["process"] == real.facts["kv"][0]["process"] == "EngineCore_DP0"
    assert [f.message for f in literal.findings] == [f.message for f in real.findings]


# `sudo lspci -vv | grep -E "LnkCap:|LnkSta:"` (the grep'd form people paste; lspci's own strings, pciutils
# ls-caps.c: "Speed %sGT/s%s, Width x%d%s" with " (downgraded)")
LSPCI_GREP = ("\t\tLnkCap:\tPort #0, Speed 16GT/s, Width x16, ASPM L0s L1, Exit Latency L0s <1us, L1 <4us\n"
              "\t\tLnkSta:\tSpeed 16GT/s, Width x8 (downgraded)\n"
              "\t\tLnkCap:\tPort #0, Speed 16GT/s, Width x16, ASPM L0s L1, Exit Latency L0s <1us, L1 <4us\n"
              "\t\tLnkSta:\tSpeed 16GT/s, Width x16\n")
# one line per device, as a loop over `lspci -vv -s $d | grep Lnk | tr '\n' ' '` prints it
LSPCI_ONE_LINE = ("01:00.0 LnkCap: Port #0, Speed 16GT/s, Width x16, ASPM L1, Exit Latency L1 <4us "
                  "LnkSta: Speed 16GT/s, Width x8 (downgraded)\n"
                  "02:00.0 LnkCap: Port #0, Speed 16GT/s, Width x16, ASPM L1, Exit Latency L1 <4us "
                  "LnkSta: Speed 16GT/s, Width x16\n")
# an `lspci -vv` block copied from below its device line (the H200's block, tests/fixtures/captured/h200x1,
# with the width it would show in an x8 slot)
LSPCI_NO_DEVICE_LINE = ("\tSubsystem: NVIDIA Corporation Device 18bf\n"
                        "\tControl: I/O- Mem+ BusMaster+ SpecCycle- MemWINV- VGASnoop- ParErr+ Stepping- SERR+\n"
                        "\tCapabilities: [60] Express (v2) Endpoint, MSI 00\n"
                        "\t\tLnkCap:\tPort #0, Speed 32GT/s, Width x16, ASPM L1, Exit Latency L1 <4us\n"
                        "\t\t\tClockPM+ Surprise- LLActRep- BwNot- ASPMOptComp+\n"
                        "\t\tLnkCtl:\tASPM Disabled; RCB 64 bytes, Disabled- CommClk-\n"
                        "\t\tLnkSta:\tSpeed 32GT/s, Width x8 (downgraded)\n"
                        "\t\t\tTrErr- Train- SlotClk+ DLActive- BWMgmt- ABWMgmt-\n")


@pytest.mark.parametrize("text", [LSPCI_GREP, LSPCI_ONE_LINE, LSPCI_NO_DEVICE_LINE],
                         ids=["grep-lines", "one-line-per-device", "block-without-device-line"])
def test_lspci_without_device_lines_downgraded_width_warns(tmp_path, capsys, text):
    # which device it is is not in the paste: a slot wired narrower by design (a Raspberry Pi's one lane, a board's
    # x8/x8 split) is not a fault of the card, so the narrower link is said, not failed
    s = _one(text, "lspci")
    [narrow] = _levels(s, "warn")
    assert "x8" in narrow and "downgraded" in narrow and not _levels(s, "fail")
    assert not any("no LnkSta line" in f.message for f in s.findings)
    rc, _ = _run(tmp_path, text, capsys)
    assert rc == 0


def test_lspci_gpu_at_narrower_width_fails():
    text = ("01:00.0 VGA compatible controller: NVIDIA Corporation AD102 [GeForce RTX 4090] (rev a1)\n"
            "\t\tLnkCap:\tPort #0, Speed 16GT/s, Width x16, ASPM L1\n\t\tLnkSta:\tSpeed 16GT/s, Width x8 (downgraded)\n")
    [failure] = _levels(_one(text, "lspci"), "fail")
    assert "x8" in failure and "x16" in failure and "(downgraded)" in failure


def test_lspci_downgraded_without_lnkcap_says_so():
    # the Raspberry Pi thread's excerpt (tests/fixtures/field/corpus/d020): LnkSta only, both marks; this once raised
    text = "\t\tLnkSta:\tSpeed 5GT/s (downgraded), Width x1 (downgraded)\n"
    s = _one(text, "lspci")
    assert [f.level for f in s.findings] == ["warn", "warn"]
    assert all("LnkCap line is not in the paste" in f.message for f in s.findings)


def test_lspci_lower_speed_than_capable_is_flagged():
    # pciutils prints "(downgraded)" after the speed too. An idle GPU steps down to Gen1 (2.5 GT/s) at full width:
    # with no device line, said with what to check under load (facts.lesson3.stepped_down_idle); a drop to another
    # generation (8 GT/s) is no idle state, so it warns
    text = ("01:00.0 LnkCap: Port #0, Speed 16GT/s, Width x16 LnkSta: Speed 2.5GT/s (downgraded), Width x16\n")
    s = _one(text, "lspci")
    assert not _levels(s, "warn")
    [i] = [m for m in _levels(s, "info") if "2.5 GT/s" in m]
    assert "16 GT/s" in i and "under load" in i
    [w] = _levels(_one(text.replace("2.5GT/s", "8GT/s"), "lspci"), "warn")
    assert "8 GT/s" in w and "16 GT/s" in w and "under load" in w
    nic = "01:00.0 Ethernet controller: Intel Corporation Ethernet Controller X710\n\t" + text.split(" ", 1)[1]
    assert _levels(_one(nic, "lspci"), "warn")  # a NIC at Gen1 is no idle GPU
    from grader.explain import explain
    [spark] = explain(text, host="spark")  # a Spark has no discrete GPU to idle: a device at Gen1 there warns
    assert _levels(spark, "warn")


# `ray status` with vLLM's PACK group on one-GPU nodes (eugr/spark-vllm-docker issue 227: "specs=[{'GPU': 1.0,
# 'node:192.168.50.192': 0.001}, {'GPU': 1.0}] (PACK)"; SPREAD works), the status printed as Ray prints it
PACK_ONE_GPU = ("======== Autoscaler status: 2026-05-02 10:00:00.000000 ========\nNode status\n"
                "---------------------------------------------------------------\nActive:\n"
                " 1 node_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n"
                " 1 node_bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb\n"
                "Pending:\n (no pending nodes)\nRecent failures:\n (no failures)\n\nResources\n"
                "---------------------------------------------------------------\nTotal Usage:\n 0.0/40.0 CPU\n"
                " 0.0/2.0 GPU\n 0B/218.83GiB memory\n 0B/19.46GiB object_store_memory\n\n"
                "From request_resources:\n (none)\nPending Demands:\n"
                " {'GPU': 1.0, 'node:192.168.50.192': 0.001} * 1, {'GPU': 1.0} * 1 (PACK): 1+ pending placement "
                "groups\n")


def test_pack_group_on_one_gpu_nodes_points_at_the_anchor_and_spread(tmp_path, capsys):
    s = _one(PACK_ONE_GPU, "ray-status")
    [failure] = _levels(s, "fail")
    assert "not a GPU shortage" in failure and "node:192.168.50.192" in failure
    assert "SPREAD" in failure and "VLLM_HOST_IP" in failure and "ray list nodes" in failure
    rc, _ = _run(tmp_path, PACK_ONE_GPU, capsys)
    assert rc == 1


def test_pack_group_with_known_anchor_on_one_gpu_nodes_says_spread():
    # the same group with `ray status -v` showing the anchor as a node's resource: PACK itself is what waits
    text = PACK_ONE_GPU.replace(" 0B/19.46GiB object_store_memory\n", " 0B/19.46GiB object_store_memory\n"
                                " 0.0/1.0 node:192.168.50.192\n")
    s = _one(text, "ray-status")
    [failure] = _levels(s, "fail")
    assert "PACK" in failure and "SPREAD" in failure and "one GPU" in failure


def test_pending_group_with_gpus_held_is_a_shortage():
    text = PACK_ONE_GPU.replace(" 0.0/2.0 GPU\n", " 2.0/2.0 GPU (2.0 used of 2.0 reserved in placement groups)\n")
    s = _one(text, "ray-status")
    assert any("Only 0 of 2 GPU(s) are free" in m for m in _levels(s, "warn"))
    assert not any("not a GPU shortage" in m for m in _levels(s, "fail"))


# an H20 node pair as `ray status` shows it (8 GPUs, 192 CPUs per node; vllm-project/vllm issue 12670's layout):
# judged as what it is, with no Spark figure or Spark advice
H20_ONE_NODE = ("======== Autoscaler status: 2025-02-02 19:52:24.223188 ========\nNode status\n"
                "---------------------------------------------------------------\nActive:\n 1 node_e6107ebf05bbc00\n"
                "Pending:\n (no pending nodes)\nRecent failures:\n (no failures)\n\nResources\n"
                "---------------------------------------------------------------\nUsage:\n 0.0/192.0 CPU\n"
                " 0.0/8.0 GPU\n 0B/1.94TiB memory\n 0B/19.46GiB object_store_memory\n\nDemands:\n"
                " (no resource demands)\n")


def test_non_spark_cluster_gets_no_spark_words():
    """Read with no context, one node of eight GPUs is a one-machine cluster unless told more (session 41); told two
    nodes, the other has not joined. Never a Spark word."""
    s = _one(H20_ONE_NODE, "ray-status")
    assert s.facts["spark_like"] is False
    assert not any("Spark" in f.message for f in s.findings)
    assert "a one-machine cluster, unless" in " ".join(_levels(s, "info")) and not _levels(s, "fail")
    [two] = [x for x in explain(H20_ONE_NODE, nodes=2) if x.kind == "ray-status"]
    assert not any("Spark" in f.message for f in two.findings)
    assert any("only 1 node" in m and "the other node" in m for m in _levels(two, "fail"))


# Ray 1.x's `ray status` (ray-project/ray PR 12772, a maintainer's own run, Dec 2020): nodes listed by their resources,
# "Demands:" without the "+" of Ray 2; eight CPUs busy with CPU tasks queued, and one task asking for a GPU no node has
OLD_RAY = ("======== Autoscaler status: 2020-12-17 12:13:12.765592 ========\nNode status\n"
           "---------------------------------------------------------------\n"
           " 1 node(s) with resources: {'CPU': 8.0, 'object_store_memory': 50.0, 'memory': 146.0, "
           "'node:192.168.5.121': 1.0}\nResources\n---------------------------------------------------------------\n"
           "Usage:\n0.00/7.129 GiB memory\n0.00/2.441 GiB object_store_memory\n 0.0/1.0 node:192.168.5.121\n"
           " 8.0/8.0 CPU\nDemands:\n {'CPU': 1.0}: 368 pending tasks/actors\n"
           " {'GPU': 1.0, 'CPU': 1.0}: 1 pending tasks/actors\n")


def test_ray_1x_status_is_read_whole():
    [s] = explain(OLD_RAY, host="other", nodes=1)
    assert s.kind == "ray-status" and s.facts["nodes"] == 1 and s.facts["node_ips"] == ["192.168.5.121"]
    [gpu_wait] = _levels(s, "warn")
    assert "asks for a GPU" in gpu_wait and "no node" in gpu_wait
    assert any("backlog" in m for m in _levels(s, "info")) and not _levels(s, "fail")
    # raydp issue 190's two-node form ("Cluster status:"): two nodes joined, CPU-only; on a Spark the missing GPU fails
    two = ("======== Cluster status: 2021-11-01 15:02:45.515356 ========\nNode status\n" + "-" * 60 + "\n"
           " 1 node(s) with resources: {'memory': 130950863872.0, 'node:203.0.113.163': 1.0, 'CPU': 80.0}\n"
           " 1 node(s) with resources: {'CPU': 80.0, 'node:203.0.113.172': 1.0, 'memory': 141243088896.0}\n\n"
           "Resources\n" + "-" * 60 + "\nUsage:\n 0.0/160.0 CPU\n 0.00/253.500 GiB memory\n")
    [t] = explain(two, host="other", nodes=2)
    assert t.facts["nodes"] == 2 and set(levels(t)) <= {"ok", "info"} and "CPU-only" in messages(t)
    [spark] = explain(two, host="spark", nodes=2)
    assert "Ray reports no GPU" in messages(spark, "fail")


def test_a_bundle_larger_than_any_node_can_never_be_placed():
    """ray-project/ray#47792: two one-CPU nodes, a SPREAD group of one {'CPU': 2.0} bundle pending: a bundle is placed
    on one node, so 2 CPUs in the cluster do not help; and a group asking no GPU is not said to wait for GPUs."""
    text = ("======== Autoscaler status: 2024-09-23 01:17:18.277326 ========\nNode status\n" + "-" * 63 + "\nActive:\n"
            " 1 ray.head.default\n 1 ray.worker.default\nPending:\n (no pending nodes)\nRecent failures:\n"
            " (no failures)\n\nResources\n" + "-" * 63 + "\nUsage:\n 0.0/2.0 CPU\n 0B/2.33GiB memory\n\nDemands:\n"
            " {'CPU': 2.0} * 1 (SPREAD): 1+ pending placement groups\n")
    [s] = explain(text, host="other")
    [failure] = _levels(s, "fail")
    assert "single node" in failure and "each node has 1 CPU" in failure and "GPU" not in failure
    [fits] = explain(text.replace("{'CPU': 2.0}", "{'CPU': 1.0}"), host="other")
    assert not _levels(fits, "fail") and not any("GPU(s) asked" in m for m in _levels(fits, "warn"))


def test_kubectl_pods_not_up_are_said():
    """ray-project/kuberay#3414 (a pod listing without its header, a note after AGE): a worker stuck in its init
    containers and a head that runs but is not ready warn; a pod in CrashLoopBackOff fails; all Running is ok."""
    text = ("ray-head-wk5dx     0/1     Running    0          6m23s   (l20)\n"
            "ray-worker-bp7pn   0/1     Init:0/1   0          6m23s      (l20)\n"
            "ray-worker-pn655   1/1     Running    0          6m23s  (4090)\n")
    [s] = explain(text, host="other")
    assert s.kind == "kubectl-pods" and s.facts["up"] == 1 and s.facts["total"] == 3
    warns = _levels(s, "warn")
    assert len(warns) == 2 and "init containers" in warns[1] and "readiness probe" in warns[0]
    [crash] = explain("NAME     READY   STATUS             RESTARTS      AGE\nvllm-0   0/1     CrashLoopBackOff   "
                      "5 (40s ago)   10m\n", host="other")
    assert "will not come up by waiting" in messages(crash, "fail") and "--previous" in messages(crash, "fail")
    [fine] = explain("NAME     READY   STATUS    RESTARTS   AGE\nvllm-0   1/1     Running   0          10m\n")
    assert levels(fine) == ["ok"]
