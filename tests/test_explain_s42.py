"""Session 42 (issue 27): what a program prints on stderr above its output (a Python warning, PyTorch's C++ log,
vLLM's import line) belongs to the output below it; a load test that started and printed no result; PyTorch's
allocator warning before vLLM sized its memory; a docker command into a stopped container. Each on a real output (the
field corpus's file, or its lines quoted), with a neighbouring output on which the rule stays silent."""

from __future__ import annotations

from pathlib import Path

from grader.explain import explain

FIELD = Path(__file__).parent / "fixtures" / "field"


def _read(stem: str) -> str:
    return next(FIELD.glob(f"*/{stem}_*.txt")).read_text()


def _said(text: str, **context) -> list[tuple[str, str]]:
    return [(f.level, f.message) for s in explain(text, **context) for f in s.findings]


# ---------------------------------------------------------------- stderr above the first output

def test_python_warnings_above_a_bench_client_are_its_own_lines():
    """https://github.com/djangodevreng/dgx-spark-benchmarks (corpus zm006): two `<frozen importlib._bootstrap_external>
    :1297: FutureWarning` lines, `vllm bench serve`'s Namespace(...) and its own log lines, then the result: one
    output, the client's, with nothing left unread."""
    sections = explain(_read("zm006"))
    assert [s.kind for s in sections] == ["vllm-bench"], [(s.kind, s.error) for s in sections]
    assert sections[0].error is None and sections[0].facts["summary"]["completed"] == 100


def test_torch_allocator_lines_above_a_vllm_log_are_the_logs():
    """https://github.com/wzi690421-droid/qwen3-moe-2x3090-lab (blind batch vf005): 27 lines of c10's
    `[rank0]:[W1003 19:36:19.077712446 CUDACachingAllocator.cpp:3933] memory allocation failed with OOM ...` above the
    start's lines: one vLLM log, not an unknown output then a log."""
    sections = explain(_read("vf005"))
    assert [s.kind for s in sections] == ["vllm-log"] and sections[0].error is None


def test_a_torch_warning_alone_is_still_read():
    """The neighbour: a paste of c10's exit warning and nothing else (vllm-project/vllm#19196, corpus xn011) is still
    read as that known line, not dropped as noise."""
    said = _said(_read("xn011"))
    assert any("destroy_process_group" in m for _, m in said), said


# ---------------------------------------------------------------- PyTorch's allocator warning: before or after sizing

_OOM = ("[rank0]:[W1003 19:36:19.077712446 CUDACachingAllocator.cpp:3933] memory allocation failed with OOM on device 0 "
        "while trying to allocate 20971520 bytes (free: 11599872, total: 25298141184).\n")
_KV = "(EngineCore_DP0 pid=1) INFO 10-03 19:36:30 [kv_cache_utils.py:1087] GPU KV cache size: 103,760 tokens\n"
_UP = "(APIServer pid=1) INFO 10-03 19:36:41 [api_server.py:1] Starting vLLM server on http://127.0.0.1:8000\n"
_BANNER = "(APIServer pid=1) INFO 10-03 19:35:01 [api_server.py:1] vLLM API server version 0.30.0\n"


def test_allocator_warning_while_loading_then_sized_and_up_is_a_note():
    """vf005: the warning while the weights load, then vLLM's profiling sizes the KV cache and the server comes up:
    the allocator freed its cache and retried (PyTorch's CUDACachingAllocator.cpp TORCH_WARN), an info, not a fail."""
    said = _said(_BANNER + _OOM + _KV + _UP)
    assert not any(lv in ("warn", "fail") for lv, _ in said), said
    assert any(lv == "info" and "before vLLM sized its KV cache" in m for lv, m in said)


def test_allocator_warning_after_sizing_still_warns_and_before_any_start_fails():
    """The neighbours: the same warning after the KV cache was sized (a server running with no headroom) warns; with
    no start after it, it fails."""
    after = _said(_BANNER + _KV + _OOM + _UP)
    assert any(lv == "warn" and "full for a moment" in m for lv, m in after), after
    alone = _said(_BANNER + _OOM)
    assert any(lv == "fail" and "GPU 0 is full" in m for lv, m in alone), alone


# ---------------------------------------------------------------- a load test with no result; a stopped container

def test_a_sweep_whose_second_run_stops_says_so_and_names_the_stopped_container():
    """https://github.com/djangodevreng/dgx-spark-benchmarks (blind batch vh004): a rate sweep's first run prints its
    result; the second reaches 9 of 100 requests, then `Error response from daemon: container ... is not running`."""
    said = _said(_read("vh004"))
    assert any(lv == "info" and "reached 9 of 100 requests" in m for lv, m in said), said
    assert any(lv == "fail" and "container that is not running" in m for lv, m in said)
    assert any(lv == "ok" and "100 of 100 requests completed" in m for lv, m in said)


def test_a_run_that_started_and_printed_nothing_more_is_not_an_unread_paste():
    """The client's lines up to its progress bar and no result (the paste ends there): a note saying what would
    decide, not `could not read`; the neighbour, a result after the start, gets no such note (zm006 above)."""
    text = ("Starting main benchmark run...\nTraffic request rate: 0.2\nMaximum request concurrency: None\n"
            "  9%|9         | 9/100 [00:26<03:41,  2.44s/it]\n")
    sections = explain(text)
    assert [s.kind for s in sections] == ["vllm-bench"] and sections[0].error is None
    assert any("reached 9 of 100 requests" in f.message for f in sections[0].findings)
    assert not any("printed no result" in m for _, m in _said(_read("zm006")))


# ---------------------------------------------------------------- the rest of blind batches vi-vl's mends

def test_repeated_engine_waits_then_the_start_goes_on_is_a_slow_step_not_a_stuck_worker():
    """https://github.com/vllm-project/vllm/issues/33333 (blind batch vi006): five `No available shared memory broadcast
    block found in 60 seconds` in a row while torch.compile ran, then `torch.compile takes 329.74 s in total` and the KV
    cache sized: busy, not stuck (an info); the neighbour, vllm#51986's five waits with nothing after (corpus xe003),
    still warns."""
    said = _said(_read("vi006"))
    assert not any("a worker is stuck" in m for _, m in said), said
    assert any(lv == "warn" and "a worker is stuck" in m for lv, m in _said(_read("xe003")))


def test_a_restarting_llama_cpp_lists_its_one_gpu_once_and_its_old_cuda_error_is_read():
    """https://github.com/TabbyML/tabby/issues/726 (blind batch vk002): docker compose's log of two starts, each
    `found 1 CUDA devices` and `CUDA error 2 at .../ggml-cuda.cu:7641: out of memory` then `current device: 0`: one GPU
    (not two), and ggml's older form of a CUDA error read as one."""
    said = _said(_read("vk002"))
    assert any("found 1 GPU" in m for _, m in said) and not any("found 2 GPUs" in m for _, m in said), said
    assert any(lv == "fail" and "`CUDA error: out of memory` on device 0" in m for lv, m in said)


def test_nvml_cannot_see_a_peer_gpu_fails_where_init_stopped_and_warns_where_it_went_on():
    """NVIDIA/nccl#1529 (vj006: init failed at graph/xml.cc) and #1066 (vj008: two channels set up after it)."""
    stopped, went_on = _said(_read("vj006")), _said(_read("vj008"))
    assert any(lv == "fail" and "cannot see it" in m for lv, m in stopped), stopped
    assert any(lv == "warn" and "NCCL went on" in m for lv, m in went_on), went_on
    assert not any(lv == "fail" and "cannot see it" in m for lv, m in went_on)


def test_perftest_in_mb_per_second_quotes_what_it_printed():
    """elizabetht's Spark notebook (blind batch vj004): `ib_write_bw` printed 11031 MB/sec; perftest's MB is 2^20 bytes
    (perftest_parameters.c), so 92.54 Gb/s: both said."""
    said = _said(_read("vj004"))
    assert any("11031.78 MB/sec = 92.54 Gb/s" in m for _, m in said), said  # as printed


# ---------------------------------------------------------------- deviceQuery

def test_device_query_of_two_geforce_cards_passes_with_no_peer_access_as_a_note():
    """thamada/gls (blind batch vk008): deviceQuery on two RTX 3090s, `Result = PASS`, peer access `No` both ways:
    the stock GeForce driver's state, a note (gpu_notes.no_p2p_level), one output (its detail lines not another
    kind's)."""
    sections = explain(_read("vk008"))
    assert [s.kind for s in sections] == ["device-query"], [(s.kind, s.error) for s in sections]
    levels = [f.level for f in sections[0].findings]
    assert levels == ["info", "ok", "info"], sections[0].findings
    assert "2 CUDA device(s)" in sections[0].findings[0].message and "24,154 MiB" in sections[0].findings[0].message


def test_device_query_that_finds_no_device_fails_naming_the_error():
    """https://github.com/NVIDIA/cuda-samples/issues/13: `cudaGetDeviceCount returned 999`, `-> unknown error`,
    `Result = FAIL` (cudaErrorUnknown, 999, in CUDA's cudaError_t)."""
    text = ("$ ./deviceQuery\n./deviceQuery Starting...\n\n CUDA Device Query (Runtime API) version (CUDART static "
            "linking)\n\ncudaGetDeviceCount returned 999\n-> unknown error\nResult = FAIL\n")
    [s] = explain(text)
    assert s.kind == "device-query" and [f.level for f in s.findings] == ["fail"]
    assert "returned 999 (unknown error)" in s.findings[0].message


# ---------------------------------------------------------------- break-it review 26's probes (variations of real ones)

_PYNVML = ("/usr/local/lib/python3.12/dist-packages/torch/cuda/__init__.py:61: FutureWarning: The pynvml package is "
           "deprecated. Please install nvidia-ml-py instead.\n  import pynvml  # type: ignore[import]\n")
_VLLM_START = ("INFO 10-03 19:35:01 [__init__.py:241] Automatically detected platform cuda.\n(APIServer pid=57107) INFO "
               "10-03 19:35:04 [api_server.py:1805] vLLM API server version 0.10.1.1\n")
_WATCHDOG = ("[rank1]:[E1003 12:10:41.512894163 ProcessGroupNCCL.cpp:616] [Rank 1] Watchdog caught collective operation "
             "timeout: WorkNCCL(SeqNum=1, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600043 "
             "milliseconds before timing out.\n")
_RAY_OK = ("======== Autoscaler status: 2025-10-03 12:14:02.416311 ========\nNode status\n" + "-" * 63 + "\nActive:\n"
           " 1 node_0d7f3b2c\n 1 node_9a1c3e5b\nPending:\n (no pending nodes)\nRecent failures:\n (no failures)\n\n"
           "Resources\n" + "-" * 63 + "\nUsage:\n 0.0/40.0 CPU\n 2.0/2.0 GPU\n\nDemands:\n (no resource demands)\n")


def test_a_python_warnings_source_line_is_held_with_it():
    """F12: torch's pynvml FutureWarning and the indented source line Python's warnings module prints under it, above a
    vLLM log: one log, nothing unread."""
    sections = explain(_PYNVML + _VLLM_START)
    assert [(s.kind, s.error) for s in sections] == [("vllm-log", None)]


def test_torch_error_lines_above_another_output_are_an_output_of_their_own():
    """F10: PyTorch's watchdog E-lines above a healthy `ray status`: the collective's timeout is its own finding, not
    filed under the status (only W/I lines are held for the output below)."""
    sections = explain(_WATCHDOG + _RAY_OK, host="spark", nodes=2)
    assert [s.kind for s in sections][-1] == "ray-status" and len(sections) == 2, [s.kind for s in sections]
    assert any(f.level == "fail" for f in sections[0].findings) and not any(f.level == "fail" for f in sections[1].findings)


def test_nvml_warning_cut_before_what_followed_says_so():
    """F1: #1066's warning with nothing of that process after it: a warning naming what decides, not init failed."""
    text = ("gcn6:1080061:1080359 [0] misc/nvmlwrap.cc:181 NCCL WARN nvmlDeviceGetHandleByPciBusId() failed: Not Found\n"
            "gcn6:1080060:1080354 [0] NCCL INFO Setting affinity for GPU 0 to 03ffff\n")
    said = _said(text)
    assert any(lv == "warn" and "What NCCL did next is not in the paste" in m for lv, m in said), said
    assert not any(lv == "fail" for lv, _ in said)


_OOM_AT = ("[rank0]:[W1003 {t} CUDACachingAllocator.cpp:3933] memory allocation failed with OOM on device 0 while "
           "trying to allocate 20971520 bytes (free: 11599872, total: 25298141184).\n")


def test_allocator_warning_stamped_after_the_kv_sizing_is_not_before_it():
    """F4: the warning printed above the KV cache line but stamped two seconds after it (processes' lines arrive out
    of order): it came after vLLM sized its memory, a warning, not the note of a transient load."""
    text = (_BANNER + _OOM_AT.format(t="19:36:27.077712446") +
            "(EngineCore_DP0 pid=1) INFO 10-03 19:36:25 [kv_cache_utils.py:1087] GPU KV cache size: 103,760 tokens\n"
            + _UP)
    said = _said(text)
    assert any(lv == "warn" and "full for a moment" in m for lv, m in said), said
    assert not any("before vLLM sized" in m for _, m in said)


def test_allocator_warning_then_a_failed_start_fails_even_beside_an_nccl_warning():
    """F2: the warnings, an unrelated NCCL WARN, then `Engine core initialization failed`: the start failed."""
    text = (_BANNER + _OOM_AT.format(t="19:36:19.077712446") + "host:1:2 [0] NCCL WARN Missing \"iommu=pt\" from "
            "kernel command line which can lead to system instablity or hang!\n(EngineCore_DP0 pid=1) ERROR 10-03 "
            "19:36:30 [core.py:700] EngineCore failed to start.\nRuntimeError: Engine core initialization failed. See "
            "root cause above.\n")
    assert any(lv == "fail" and "GPU 0 is full" in m for lv, m in _said(text))


def test_sweep_with_a_stopped_middle_run_names_that_run():
    """F6, F7: a sweep's runs are split where each result begins; the run that printed no result is named by its own
    bar (9 of 100), not the last run's (100 of 100, which has its result)."""
    run = ("Starting main benchmark run...\nTraffic request rate: {r}\n{bar}\n")
    result = ("============ Serving Benchmark Result ============\nSuccessful requests:                     100\n"
              "Benchmark duration (s):                  1037.39\n==================================================\n")
    text = (run.format(r="0.1", bar=" 100%|##########| 100/100 [17:17<00:00, 10.37s/it]") + result
            + run.format(r="0.2", bar="  9%|9         | 9/100 [00:26<03:41,  2.44s/it]")
            + run.format(r="0.2", bar=" 100%|##########| 100/100 [08:40<00:00,  5.20s/it]") + result)
    notes = [m for _, m in _said(text) if "printed no result" in m]
    assert len(notes) == 1 and "reached 9 of 100 requests" in notes[0], notes


# ---------------------------------------------------------------- blind batches vm-vp's mends

def test_an_address_that_is_its_subnets_broadcast_fails_and_a_host_address_does_not():
    """grantcurell's PowerScale notes (blind batch vm005): bond0 at 10.99.99.103/29, the /29's broadcast address
    (10.99.99.96-103); the neighbour, .102/29, a host address, is not said."""
    said = _said(_read("vm005"))
    assert any(lv == "fail" and "10.99.99.103/29 is its subnet's broadcast address" in m for lv, m in said), said
    fixed = _said(_read("vm005").replace("10.99.99.103/29", "10.99.99.102/29"))
    assert not any("broadcast address" in m for _, m in fixed)


def test_a_module_whose_laser_is_off_fails_with_its_flags_grouped():
    """A Finisar CWDM4 module in a ConnectX-4 (blind batch vo010): every lane's bias 0 mA, alarms On: one finding, the
    laser off, not 24 warnings."""
    [s] = explain(_read("vo010"))
    fails = [f.message for f in s.findings if f.level == "fail"]
    assert len(fails) == 1 and "the laser is off" in fails[0] and "Laser bias current low (alarm and warning, lanes 1, 2, 3, 4)" in fails[0]
    assert not any(f.level == "warn" for f in s.findings)


def test_ray2s_no_node_type_for_a_task_fails_and_for_a_pending_group_warns():
    """kuberay#846 (vo001): `{'CPU': 2.0}` tasks on 1-CPU pods, Ray 2.x's `could not find a node type to satisfy the
    request`: they never run (a fail, the log line read with the status); xgboost_ray#202 (zd019): a SPREAD placement
    group's bundles: it waits (a warning)."""
    [s] = explain(_read("vo001"))
    assert s.kind == "ray-status" and any(f.level == "fail" and "can never be scheduled" in f.message for f in s.findings)
    assert not any(f.level == "fail" for sec in explain(_read("zd019")) for f in sec.findings)


def test_a_request_longer_than_max_model_len_fails_naming_both():
    """anton's two-GPU chat server (blind batch vp009): 400 Bad Request for 5,418 tokens against --max-model-len 2048."""
    said = _said(_read("vp009"))
    assert any(lv == "fail" and "refused a request of 5418 tokens" in m and "maximum context of 2048" in m for lv, m in said)


def test_the_kv_cache_full_at_the_busiest_is_said_though_the_last_line_is_idle():
    """An L4 at 32K context (blind batch vp004): 100% KV with 24 waiting at 19:32:00, idle by the paste's end."""
    said = _said(_read("vp004"))
    assert any(lv == "warn" and "At its busiest (at 19:32:00) the KV cache was 100% used" in m for lv, m in said), said
    assert not any("At its busiest" in m for _, m in _said(_read("vf005")))  # never full there


def test_an_infiniband_port_with_no_link_is_not_said_to_lack_a_subnet_manager():
    """A ConnectX-3's second port POLLING (blind batch vm010): no cable, so no LID, not `no subnet manager`."""
    said = _said(_read("vm010"))
    assert any("no link (POLLING), so no LID yet" in m for _, m in said) and not any("no subnet manager" in m for _, m in said)


def test_an_nvswitch_board_short_of_a_gpu_warns_and_a_full_one_does_not():
    """Dell XE9780's `nvidia-smi topo -m` (blind batch vn006): seven B300s at NV18 between every pair; HGX boards carry
    4 or 8. The neighbour, the same matrix cut to four GPUs, is a full 4-GPU board: no warning."""
    said = _said(_read("vn006"))
    assert any(lv == "warn" and "7 GPUs, every pair joined by NV18" in m for lv, m in said), said
    def matrix(n: int) -> str:
        return "\t" + "\t".join(f"GPU{i}" for i in range(n)) + "\n" + "".join(
            f"GPU{i}\t" + "\t".join(" X " if j == i else "NV18" for j in range(n)) + "\n" for i in range(n))
    assert any("NVSwitch board" in m for _, m in _said(matrix(7)))
    assert not any("NVSwitch board" in m for _, m in _said(matrix(4)) + _said(matrix(8)))


def test_sys_between_gpus_of_an_nvlink_cube_mesh_is_the_boards_design():
    """A DGX-1-style eight-V100 matrix (blind batch vn005): NV1/NV2 to four peers, SYS to the rest, every GPU with the
    same CPU affinity (an older driver's): no warning of a hidden PCIe tree."""
    said = _said(_read("vn005"))
    assert not any(lv == "warn" for lv, _ in said), said


def test_a_load_test_where_every_request_failed_says_nothing_was_measured():
    """er0080's CPU lab (blind batch vp003): 0 completed, 8 failed, every metric 0.0."""
    said = _said(_read("vp003"))
    assert any(lv == "fail" and "Every request failed (8" in m and "nothing was measured" in m for lv, m in said), said


def test_nvlink_status_of_many_bridged_cards_says_they_are_pairs():
    """UNIGE's Baobab (blind batch vn004): eight RTX A6000s, each with 4 links up: a bridge joins two cards, so pairs,
    which `topo -m` names; the neighbour, two cards' status (blind batch vn008, a 2080 Ti pair), gets no such note."""
    assert any("so these are pairs" in m for _, m in _said(_read("vn004")))
    said = _said(_read("vn008"))
    assert not any("so these are pairs" in m for _, m in said) and any("all 2 links active" in m for _, m in said)


def test_a_p2p_matrix_with_elided_columns_is_read():
    """bevdiff's `nvidia-smi topo -p2p n` (blind batch vn007), its header and rows trimmed with `...`: read, the NVLink
    matrix's NS said to be about NVLink, not PCIe P2P."""
    [s] = explain(_read("vn007"))
    assert s.error is None and "Whether P2P over PCIe works is `nvidia-smi topo -p2p r`'s" in s.findings[0].message


def test_max_model_len_above_the_models_context_fails_naming_both():
    """er0080's CPU lab (blind batch vp002): --max-model-len 999999 for opt-125m's max_position_embeddings 2048."""
    said = _said(_read("vp002"))
    assert any(lv == "fail" and "--max-model-len 999999 is more than the model's own context" in m
               and "max_position_embeddings=2048.0" in m for lv, m in said), said


# ---------------------------------------------------------------- break-it review 27's probes (variations of real ones)

_NVML_RAY = ("(RayWorkerWrapper pid=5120, ip=10.0.0.2) ucpe:6896:7103 [1] misc/nvmlwrap.cc:187 NCCL WARN "
             "nvmlDeviceGetHandleByPciBusId() failed: Not Found\n"
             "(RayWorkerWrapper pid=5121, ip=10.0.0.2) ucpe:6897:7104 [2] NCCL INFO Setting affinity for GPU 2 to ff\n"
             "(RayWorkerWrapper pid=5120, ip=10.0.0.2) ucpe:6896:7103 [1] NCCL INFO graph/xml.cc:850 -> 2\n")


def test_nvml_warning_behind_a_ray_workers_prefix_is_read_on_its_own_process():
    """F1: the warning's process (ucpe:6896) passes the error up (`-> 2`); another's affinity line is not its going on."""
    said = _said(_NVML_RAY)
    assert any(lv == "fail" and "cannot see it" in m for lv, m in said), said
    assert not any("NCCL went on" in m for _, m in said)


def test_allocator_warnings_then_up_then_a_clients_traceback_stays_a_note():
    """F3: vf005's load-time warnings, the server up, then an ASGI traceback of a client that went away: the start was
    not failed by the warnings."""
    text = (_BANNER + _OOM_AT.format(t="19:36:19.077712446") +
            "(EngineCore_DP0 pid=1) INFO 10-03 19:36:30 [kv_cache_utils.py:1087] GPU KV cache size: 103,760 tokens\n"
            + _UP + "ERROR:    Exception in ASGI application\nTraceback (most recent call last):\n"
            "asyncio.exceptions.CancelledError\n")
    assert not any(lv == "fail" and "GPU 0 is full" in m for lv, m in _said(text))


def test_ray2s_no_node_type_without_a_status_is_not_called_a_tasks():
    """F5: the autoscaler's line alone, vLLM's placement-group bundles in it: a warning naming what decides, not
    `can never be scheduled`."""
    text = ("2025-10-03 12:14:02,416 WARNING resource_demand_scheduler.py:783 -- The autoscaler could not find a node "
            "type to satisfy the request: [{'GPU': 1.0, 'node:192.168.100.10': 0.001}, {'GPU': 1.0}]. If this is "
            "related to placement groups the resource request will resolve itself, otherwise please specify a node "
            "type with the necessary resources.\n")
    said = _said(text)
    assert any(lv == "warn" and "`ray status`'s Demands line for it says which" in m for lv, m in said), said
    assert not any(lv == "fail" for lv, _ in said)


def test_a_laser_off_on_a_port_set_down_is_the_ports_state_not_the_modules():
    """F9: vo010's module readings beside an `ip link` showing the port without UP."""
    text = ("$ ip link show ens16f1np1\n5: ens16f1np1: <BROADCAST,MULTICAST> mtu 1500 qdisc mq state DOWN mode DEFAULT "
            "group default qlen 1000\n    link/ether 0c:42:a1:00:00:01 brd ff:ff:ff:ff:ff:ff\n$ ") + _read("vo010")
    said = _said(text)
    assert any(lv == "warn" and "administratively down" in m for lv, m in said), said
    assert not any(lv == "fail" and "the laser is off" in m for lv, m in said)


def test_device_query_then_another_output_without_a_prompt_is_two_outputs():
    """F10: deviceQuery's result, then an `ethtool` block with no prompt between: the block is read as ethtool's."""
    text = (_read("vk008") + "Settings for enp65s0f0:\n\tSupported ports: [ FIBRE ]\n\tSpeed: Unknown!\n"
            "\tDuplex: Unknown! (255)\n\tLink detected: no\n")
    kinds = [s.kind for s in explain(text)]
    assert kinds == ["device-query", "ethtool"], kinds


def test_strict_spread_of_more_bundles_than_nodes_can_never_be_placed():
    """F8: four STRICT_SPREAD bundles on a two-node cluster with every GPU free and no node being added: a failure;
    the neighbour, the same group on four nodes, is no such failure."""
    status = ("======== Autoscaler status: 2024-09-02 16:40:27.113845 ========\nNode status\n" + "-" * 63 +
              "\nActive:\n{nodes}Pending:\n (no pending nodes)\nRecent failures:\n (no failures)\n\nResources\n"
              + "-" * 63 + "\nUsage:\n 0.0/32.0 CPU\n 0.0/{gpus}.0 GPU\n\nDemands:\n {{'GPU': 1.0, 'CPU': 2.0}} * 4 "
              "(STRICT_SPREAD): 1+ pending placement groups\n")
    two = status.format(nodes=" 1 node_6f1d0c2ab97e4c1e\n 1 node_c2a9e7b41f0d4e6a\n", gpus=4)
    assert any(lv == "fail" and "STRICT_SPREAD puts each of its 4 bundles on a different node" in m
               for lv, m in _said(two))
    four = status.format(nodes="".join(f" 1 node_{i:016x}\n" for i in range(4)), gpus=4)
    assert not any("STRICT_SPREAD puts" in m for _, m in _said(four))
