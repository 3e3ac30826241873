"""Session 39g (issue 27): a healthy output said healthy, with the facts that make it so (nvidia-smi's load and
processes, topo -m's layout, lspci's ACS and enumeration, ibdev2netdev's Up count), and the blind batches' serving
misses (SGLang's max_running_requests caps, vLLM's locked workspace and start-up assertions, the Ray State API's
YAML of nodes). Each rule on the real output that prompted it (read from the field corpus by path, or its lines
quoted) and on a neighbouring output where it must stay silent."""

from __future__ import annotations

from pathlib import Path

from grader.explain import explain
from grader.parsers.common import parse_prompt
from tests.conftest import levels, messages

FIELD = Path(__file__).parent / "fixtures" / "field"
ORDER = ["ok", "info", "warn", "fail"]


def _field(stem: str) -> str:
    """The text of a corpus (or pending) entry whose file name starts with ``stem``."""
    return next(p for d in ("corpus", "pending") for p in sorted((FIELD / d).glob(f"{stem}_*.txt"))).read_text()


def _worst(sections) -> str:
    return max((lv for s in sections for lv in levels(s)), key=ORDER.index)


def _said(sections) -> str:
    return "\n".join(messages(s) for s in sections)


# --------------------------------------------------------------------------- nvidia-smi's plain table

def test_an_idle_table_says_idle_with_its_p_state_and_no_processes():
    """luigifcruz/stelline's ESC8000A page (https://github.com/luigifcruz/stelline/blob/383e316755e36e66f619d1dfccc9bd7e5f19d008/hardware/asus-esc8000a-e12.md):
    four RTX 6000 Ada at P8, 0% GPU-Util, `No running processes found`: the all-well sentence says so."""
    s = explain(_field("wo014"), host="other", nodes=1)
    assert _worst(s) == "info"
    assert "All idle (P8, 0% GPU-Util), no processes running." in _said(s)


def test_a_table_with_one_busy_card_names_it_and_says_the_process_table_is_missing():
    """servergear's 4x3090 (pending wo003): GPU0 at P2 and 23% while GPU1-3 sit at P8; the paste stops before the
    Processes table, which is said instead of a process count."""
    said = _said(explain(_field("wo003"), host="other", nodes=1))
    assert "GPU0 in use (P2, 23% GPU-Util); GPU1, GPU2, GPU3 idle (P8, 0% GPU-Util)" in said
    assert "the process table is not in the paste" in said


def test_na_power_and_utilisation_on_an_old_geforce_board_are_said_normal():
    """NVIDIA/nvidia-docker#206 (https://github.com/NVIDIA/nvidia-docker/issues/206): a GTX 690 whose power and
    GPU-Util read N/A (not exposed by NVML on that board): normal, and the table is otherwise well; a GB10, whose
    power cap alone is N/A, gets no such note."""
    said = _said(explain(_field("wo005"), host="other", nodes=1))
    assert "power draw, power cap and GPU-Util read N/A" in said and "not a fault" in said
    assert "Both idle (P8)" in said
    assert "read N/A" not in _said(explain(_field("wo001"), host="spark", nodes=1))


def test_a_table_with_a_warning_gets_no_all_well_sentence():
    """A card whose sensor reads ERR! warns; the all-well sentence (and its load clause) is not said beside it."""
    text = ("+-----------------------------------------------------------------------------+\n"
            "| NVIDIA-SMI 535.54.03    Driver Version: 535.54.03    CUDA Version: 12.2     |\n"
            "|   0  NVIDIA GeForce RTX 3090    Off  | 00000000:01:00.0 Off |                  N/A |\n"
            "| ERR!   45C    P8    20W / 350W |      1MiB / 24576MiB |      0%      Default |\n")
    said = _said(explain(text, host="other", nodes=1))
    assert "ERR!" in said and "nothing wrong in them" not in said and "idle (P8" not in said


# --------------------------------------------------------------------------- nvidia-smi topo -m

def test_a_cut_nvswitch_matrix_with_a_nic_per_gpu_is_a_sound_layout_of_the_rows_shown():
    """NVIDIA/nccl PR 2150's comment (pending wo013): eight GPUs NV18 to each other, each with its own NIC at PXB; the
    paste breaks off in GPU6's row, so the layout is said of the six rows shown, and the cut said."""
    s = explain(_field("wo013"), host="other", nodes=1)
    said = _said(s)
    assert _worst(s) == "info"
    assert "The 6 GPUs whose rows are shown are NVLink-connected (every pair shown), one NIC per GPU" in said
    assert "healthy layout" in said and "Of the rows shown only: the rest of the matrix is cut off." in said


def test_a_whole_pcie_server_matrix_is_said_as_built_not_faulted():
    """luigifcruz/stelline's ESC8000A (pending wo010): four GPUs, NODE within a socket and SYS across, no NVLink:
    the layout is said as the machine's build, with no healthy-NVLink claim."""
    said = _said(explain(_field("wo010"), host="other", nodes=1))
    assert "All 4 GPUs are joined over PCIe only (NODE, SYS)" in said and "not a fault in themselves" in said
    assert "NVLink-connected" not in said


def test_no_layout_sentence_beside_a_warning_or_for_one_pair_without_nics():
    """y011 (an 8x4090 box whose same-node pairs read SYS: a warning) gets no layout verdict; a two-card PHB desktop
    (club-3090#1133, corpus n010) has its pair's own sentence as its whole layout."""
    assert "Layout:" not in _said(explain(_field("y011"), host="other", nodes=1))
    assert "Layout:" not in _said(explain(_field("n010"), host="other", nodes=1))


# --------------------------------------------------------------------------- lspci

def test_acsctl_lines_alone_are_lspci_and_all_off_is_good_for_p2p():
    """luigifcruz/stelline's WRX90 page (https://github.com/luigifcruz/stelline/blob/383e316755e36e66f619d1dfccc9bd7e5f19d008/hardware/puget-threadripper-pro-wrx90.md):
    `sudo lspci -vvv | grep ACSCtl`, 26 lines all off, behind a `$ user@host:~$` prompt; the same lines without
    their command are read as lspci too."""
    text = _field("wo009")
    for paste in (text, text.split("\n", 1)[1]):
        [section] = explain(paste, host="other", nodes=1)
        assert section.kind == "lspci" and levels(section) == ["info"]
        assert "ACS redirect is off at all 26 devices" in messages(section) and "GPUDirect RDMA" in messages(section)


def test_a_plain_lspci_listing_says_its_gpus_are_enumerated():
    """A home lab's plain lspci (pending wo011): a 3090 and two V100 SXM2 listed; they are on the bus, and what the
    listing cannot show is said. An EC2 VM's virtual VGA (perftest#105, pending xj001) is no GPU to list."""
    said = _said(explain(_field("wo011"), host="other", nodes=1))
    assert "lspci lists 3 GPUs" in said and "enumerated on the PCIe bus" in said
    assert "lspci lists" not in _said(explain(_field("xj001"), host="other", nodes=1))


def test_a_dollar_before_a_whole_prompt_gives_the_inner_command():
    """A README's code block that puts `$ ` before the whole prompt (`$ sonata@coyote2:~$ nvidia-smi topo -m`)."""
    p = parse_prompt("$ sonata@coyote2:~$ nvidia-smi topo -m")
    assert (p.command, p.user, p.host) == ("nvidia-smi topo -m", "sonata", "coyote2")
    assert parse_prompt("$ ls -l").command == "ls -l" and parse_prompt("$ foo@bar").command == "foo@bar"


# --------------------------------------------------------------------------- ibdev2netdev

def test_ibdev2netdev_on_another_host_counts_its_up_netdevs():
    """nccl-tests#242 (corpus n003): four HCAs, every netdev Up; daqiri's IGX tutorial (corpus y004): one of two."""
    assert "All 4 netdevs are Up" in _said(explain(_field("n003"), host="other", nodes=2))
    said = _said(explain(_field("y004"), host="other", nodes=1))
    assert "1 of 2 netdevs are Up (eth1), 1 Down" in said


# --------------------------------------------------------------------------- SGLang

def test_sglang_capping_max_running_requests_by_its_mamba_cache_warns_with_the_figures():
    """MiaAI-Lab's Qwen3.8 SGLang recipe (pending wp008) and sgl-project/sglang#36889 (wp009): the start-up line, as
    quoted without its tag (and wrapped), caps the requests that run at once; tagged, it reads the same."""
    for stem, cap, slots in (("wp008", 12, "64 slots, 5 per request"), ("wp009", 2, "10 slots, 5 per request")):
        s = explain(_field(stem), host="spark", nodes=1)
        assert s[0].kind == "sglang-log" and _worst(s) == "warn"
        assert f"caps max_running_requests at {cap}" in _said(s) and slots in _said(s)
    tagged = ("[2026-05-01 10:00:00] max_running_requests is capped to 12 by the mamba state cache "
              "(max_mamba_cache_size=64, 5 state slots per request). To raise it: increase --mamba-full-memory-ratio\n")
    assert "caps max_running_requests at 12" in _said(explain(tagged, host="spark", nodes=1))


def test_sglang_budget_line_wrapped_says_its_concurrency_and_a_pool_below_one_context():
    """club-3090#1319 (pending wp010): the scheduler's budget line, wrapped by the poster: 6 requests at once, a KV
    pool of 206,635 tokens under the 262,144-token context. jethac's GB10 log (corpus zm012) gets no cap warning."""
    s = explain(_field("wp010"), host="other", nodes=1)
    assert _worst(s) == "warn" and "At most 6 requests run at once" in _said(s) and "262,144" in _said(s)
    assert "caps max_running_requests" not in _said(explain(_field("zm012"), host="spark", nodes=1))


# --------------------------------------------------------------------------- Ray State API

def test_ray_get_nodes_yaml_is_read_alive_and_without_a_gpu():
    """ray-project/ray#33553 (pending wp006): `ray get nodes <id>`: state ALIVE, 8 CPUs, no GPU resource."""
    [section] = explain(_field("wp006"), host="other", nodes=1)
    assert section.kind == "ray-nodes" and levels(section) == ["info"]
    assert "Node 10.0.25.201: alive, 8 CPU registered, no GPU" in messages(section)


def test_ray_list_nodes_detail_with_a_dead_node_warns():
    """`ray list nodes --detail` (the State API's YAML list, https://docs.ray.io/en/latest/ray-observability/reference/cli.html):
    a DEAD node whose address no live node has left the cluster."""
    text = ("$ ray list nodes --detail\n---\n-   node_id: 1a2b3c4d5e6f7a8b9c0d1e2f\n    node_ip: 10.0.0.1\n"
            "    state: ALIVE\n    node_name: 10.0.0.1\n    resources_total:\n        CPU: 20.0\n        GPU: 1.0\n"
            "    start_time_ms: 1\n-   node_id: 2a2b3c4d5e6f7a8b9c0d1e2f\n    node_ip: 10.0.0.2\n    state: DEAD\n"
            "    node_name: 10.0.0.2\n    resources_total:\n        CPU: 20.0\n        GPU: 1.0\n")
    [section] = explain(text, host="other", nodes=2)
    assert section.kind == "ray-nodes" and "warn" in levels(section)
    assert "Node 10.0.0.1: alive, 1 GPU, 20 CPU registered." in messages(section)


# --------------------------------------------------------------------------- vLLM

def test_a_locked_workspace_fails_as_a_buffer_sized_at_warm_up():
    """MiaAI-Lab/DeepSeek-v4-Flash-One-DGX-Spark#4 (pending wp002) and vllm-project/vllm#43357
    (https://github.com/vllm-project/vllm/issues/43357): `Workspace is locked but allocation ... requires N MB`: the
    scratch buffer sized at warm-up was too small; the fix names --max-num-batched-tokens, and no network."""
    s = explain(_field("wp002"), host="spark", nodes=1)
    assert _worst(s) == "fail" and "max-num-batched-tokens" in _said(s) and "locked" in _said(s)
    line = ("(EngineCore_DP0 pid=412) ERROR 05-27 10:14:02 [core.py:1100] AssertionError: Workspace is locked but "
            "allocation from 'turboquant_attn.py:747:_continuation_prefill' requires 8.12 MB, current size is 0.76 MB. "
            "Workspace growth is not allowed after locking.\n")
    assert "(8.12 MB, where it holds 0.76 MB)" in _said(explain(line, host="other", nodes=1))


def test_a_bare_assert_while_capturing_cuda_graphs_fails_naming_it():
    """local-inference-lab/vllm#746 (https://github.com/local-inference-lab/vllm/issues/746, pending wp003): an abridged
    traceback, `assert active_topk_width >= ...` while capturing CUDA graphs, then `EngineCore failed to start.`"""
    s = explain(_field("wp003"), host="spark", nodes=2)
    said = _said(s)
    assert _worst(s) == "fail" and s[0].kind == "vllm-log"
    assert "capturing CUDA graphs" in said and "assert active_topk_width" in said and "--enforce-eager" in said
    assert "network" not in said


def test_an_assertion_with_a_message_is_not_read_as_a_start_up_limit():
    """An AssertionError with its own message in a vLLM log (a check that says what failed) keeps the generic
    reading: the start-up entry reads only a bare `AssertionError` of an engine that failed to start."""
    text = ("(EngineCore_DP0 pid=1) ERROR 01-01 00:00:00 [core.py:700] EngineCore failed to start.\n"
            "(EngineCore_DP0 pid=1) ERROR 01-01 00:00:00 [core.py:700] AssertionError: tp_size must divide heads\n")
    assert "A check in vLLM's code failed while the engine started" not in _said(explain(text, host="other", nodes=1))


def test_rdma_link_on_another_host_counts_its_active_ports_once_per_port():
    """Intel E810 (irdma) with one port cabled (corpus q011): 1 of 2 ACTIVE; a port polled in a loop (ROCm/rccl#1423,
    corpus k003: the same mlx5_7/1 DOWN, DOWN, ACTIVE) is no count of ports."""
    assert "1 of 2 ports ACTIVE (irdma1/1)" in _said(explain(_field("q011"), host="other", nodes=1))
    assert "ports ACTIVE (" not in _said(explain(_field("k003"), host="other", nodes=1))


def test_a_ray_status_cut_before_its_demands_is_healthy_as_far_as_shown():
    """KoyoImai/dgx_spark_cluster's LLM_inference2 README (https://github.com/KoyoImai/dgx_spark_cluster, lines 246-265):
    two Active nodes, no pending nodes, no failures, nothing in use; the paste ends before `Demands`, which is said."""
    text = ("mprg@spark-fb97:~$ docker exec node-58 ray status\n======== Autoscaler status: 2026-04-10 05:23:31.894412 "
            "========\nNode status\n---------------------------------------------------------------\nActive:\n"
            " 1 node_a81cfbad5c01fb9a0060b29a3698e0ec84f5ec6b0349790e329b7410\n"
            " 1 node_4e6d26d7cb77af6e44029cf01b66e161eb5b03a9ecbd79ed6117ee36\nPending:\n (no pending nodes)\n"
            "Recent failures:\n (no failures)\n\nResources\n---------------------------------------------------------------\n"
            "Total Usage:\n 0.0/40.0 CPU\n 0.0/2.0 GPU\n 0B/218.83GiB memory\n 0B/19.46GiB object_store_memory\n")
    said = _said(explain(text, host="spark", nodes=2))
    assert "Healthy as far as shown: all 2 node(s) up" in said and "`Demands` section" in said and "idle" in said
    assert "Healthy: all 2 node(s) up" in _said(explain(_field("r001"), host="spark", nodes=2))


def test_topo_p2p_with_every_pair_ok_is_said_once_as_healthy():
    """A three-GPU desktop's `nvidia-smi topo -p2p` with OK everywhere (corpus zj015): one sentence, not three, and
    no doubled `P2P P2P` where the command (its mode) is not shown; a pair that is not OK keeps its own lines."""
    said = _said(explain(_field("zj015"), host="other", nodes=1))
    assert "P2P supported (OK) between every pair of the 3 GPUs" in said and "P2P P2P" not in said
    assert "GNS" in _said(explain(_field("k021"), host="other", nodes=1))


def test_a_red_hat_prompt_without_its_user_is_a_prompt():
    """A vGPU host's `[gpu6000 ~]# nvidia-smi -q -d MEMORY,PERFORMANCE` (corpus zs012, PS1 `[\\h \\W]\\$`): its command
    decides the kind; a log's tag (`[2026-06-07 11:57:01 TP0]`) and a job line (`[1]+ Done`) stay no prompt."""
    assert parse_prompt("[gpu6000 ~]# nvidia-smi -q -d MEMORY,PERFORMANCE").command == "nvidia-smi -q -d MEMORY,PERFORMANCE"
    assert parse_prompt("[2026-06-07 11:57:01 TP0] Load weight begin. avail mem=16.48 GB") is None
    assert parse_prompt("[1]+ Done  sleep 5") is None
    [section] = explain(_field("zs012"), host="other", nodes=1)
    assert section.kind == "nvidia-smi-q" and section.error is None
