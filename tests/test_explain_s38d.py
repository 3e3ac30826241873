"""Field pastes of the blind batches wd, we and wf (issue 27) that explain read short: serving and machine outputs.
Fatal lines many programs print (a named CUDA error, cuBLAS failing to start, GGML_ASSERT, a C assertion, C++'s
terminate handler, Ray's worker that died of a system error), read wherever they appear and never beside a reader's
"no error"; an rpc-server whose --mem wrapped around 32 bits; an old Ray's infeasible request; a poster's caption that
quotes a known error. Each on the real lines (URL beside it), with a neighbouring output on which the rule is silent."""

from __future__ import annotations

from grader.diagnoses import known_faults
from grader.explain import explain
from tests.conftest import field_entry as _field, levels, messages


def _all(sections) -> str:
    return "\n".join(messages(s) for s in sections)


def _worst(sections) -> str:
    order = {"ok": 0, "info": 0, "warn": 1, "fail": 2}
    return max((f.level for s in sections for f in s.findings), key=order.get, default="ok")


def test_cublas_not_initialized_is_a_fail_with_no_no_error_beside_it():
    """https://github.com/ggml-org/llama.cpp/issues/9214 (pending wd006): rpc-server on an RTX 4060 Ti offering 7686 MB,
    then `CUDA error: CUBLAS_STATUS_NOT_INITIALIZED` in cublasCreate when real work came."""
    sections = explain(_field("wd006"), host="other", nodes=1)
    said = _all(sections).lower()
    assert _worst(sections) == "fail"
    assert "cublas" in said and "workspace" in said and "memory" in said
    assert "no error" not in said and "shows no error" not in said


def test_rpc_server_console_without_an_error_still_says_so():
    """The same rpc-server's console without its crash (wd006 cut before the CUDA error): no error, said."""
    text = _field("wd006").split("CUDA error")[0]
    sections = explain(text, host="other", nodes=1)
    assert "No error in these lines of the rpc-server's console" in _all(sections)
    assert _worst(sections) != "fail"


def test_ggml_cuda_assert_ok_is_a_fail_naming_the_backtrace():
    """https://github.com/ggml-org/llama.cpp/issues/25791 (pending wd007): a DGX Spark's rpc-server fragment,
    `ggml-cuda.cu:3927: GGML_ASSERT(ok) failed`, then GDB's banner."""
    sections = explain(_field("wd007"), host="spark", nodes=1)
    said = _all(sections)
    assert _worst(sections) == "fail"
    assert "aborted" in said and "rpc-server" in said and "backtrace" in said
    assert "out of memory" not in said.lower().replace("at memory", "")


def test_rpc_version_mismatch_is_a_build_mismatch_not_the_network():
    """https://github.com/ggml-org/llama.cpp/issues/26392 (pending we013): `E RPC server version mismatch: 4.0.1`, then
    `E Failed to connect to 10.0.0.185:50052`."""
    sections = explain(_field("we013"), host="other", nodes=2)
    said = _all(sections)
    assert _worst(sections) == "fail"
    assert "10.0.0.185:50052" in said and "same llama.cpp commit" in said and "Not the network" in said
    assert "firewall" not in said.lower()
    # the plain refusal (no server listening) stays the connect failure's reading
    [(level, message)] = known_faults("llama_model_load_from_file_impl: using device RPC(RPC[:50052]) - 0 MiB free\n"
                                      "Failed to connect to :50052\n")
    assert level == "fail" and "version" not in message


def test_ray_worker_died_of_a_system_error_names_the_oom_killer_as_one_cause():
    """https://github.com/vllm-project/vllm/pull/1395 (pending wf006): `A worker died or was killed while executing a
    task by an unexpected system error`, exit type SYSTEM_ERROR, on 172.16.103.199."""
    sections = explain(_field("wf006"), host="other", nodes=1)
    said = _all(sections)
    assert _worst(sections) == "fail"
    assert "172.16.103.199" in said and "OOM killer" in said and "dmesg" in said
    assert "does not say which" in said


def test_named_cuda_errors_and_aborts_are_read_in_any_text():
    """The generic fatal lines (ggml's `CUDA error: X`, GGML_ASSERT, glibc's assertion, C++'s terminate handler, as
    https://github.com/b4rtaz/distributed-llama/issues/87 prints it) are fails; a more specific entry above them wins
    (https://github.com/LostRuins/koboldcpp/issues/2005's illegal memory access), and a healthy line is silent."""
    for text, words in (("CUDA error: misaligned address\n  current device: 1, in function ggml_backend_cuda_synchronize"
                         " at ggml-cuda.cu:2503\n", "misaligned address"),
                        ("/src/ggml/src/ggml.c:2411: GGML_ASSERT(ggml_can_mul_mat(a, b)) failed\n", "ggml_can_mul_mat"),
                        ("prog: src/x.c:12: main: Assertion `n > 0' failed.\nAborted (core dumped)\n", "`n > 0`"),
                        ("terminate called after throwing an instance of 'std::runtime_error'\n  what():  Cannot create "
                         "socket\n", "Cannot create socket")):
        [(level, message)] = known_faults(text)
        assert level == "fail" and words in message, text
    [(level, message)] = known_faults("CUDA error: an illegal memory access was encountered\n")
    assert "outside what it was given" in message
    assert known_faults("ggml_cuda_init: found 1 CUDA devices:\n  Device 0: NVIDIA GB10, compute capability 12.1\n") == []
    assert known_faults("Assertion checks passed.\nCUDA errors: none\n") == []


def test_caption_quoting_a_known_error_is_read():
    """https://github.com/vllm-project/vllm/issues/3722 (pending wf005): a <details> block whose <summary> quotes
    `ncclRemoteError: ...`, over a vLLM log cut at its start."""
    sections = explain(_field("wf005"), host="other", nodes=2)
    said = _all(sections)
    assert _worst(sections) == "fail"
    assert "ncclRemoteError" in said and "first error" in said


def test_plain_caption_is_still_left_out():
    """A poster's sentence over an output (no known error in it) is not read as an output of its own (pending we017,
    https://github.com/vllm-project/vllm/issues/6632, under a caption of words)."""
    sections = explain("This is what I get on the head node:\n" + _field("we017"), host="other", nodes=2)
    assert [s.kind for s in sections] == ["ray-status"]


def test_rpc_server_mem_wrapped_around_32_bits_is_a_warn():
    """https://github.com/ggml-org/llama.cpp/issues/8417 (pending wd003): `--mem 10000` -> `backend memory: 1808 MB`,
    20000 -> 3616, 30000 -> 1328 (each the request modulo 4096 MB) on a Windows build."""
    sections = explain(_field("wd003"), host="other", nodes=1)
    assert [levels(s).count("warn") for s in sections] == [1, 1, 1]
    said = _all(sections)
    assert "overflowed a 32-bit integer" in said and "advertises 1,808 MB" in said and "below 4,096" in said


def test_rpc_server_mem_as_asked_is_silent():
    """The same console with `--mem 4000` and 4000 MB advertised: nothing to say of it."""
    text = ("$ rpc-server -p 50052 --mem 4000\ncreate_backend: using CUDA backend\nggml_cuda_init: found 1 CUDA devices:\n"
            "  Device 0: NVIDIA GeForce GTX 1080 Ti, compute capability 6.1, VMM: yes\n"
            "Starting RPC server on 0.0.0.0:50052, backend memory: 4000 MB\n")
    [s] = explain(text, host="other", nodes=1)
    assert "warn" not in levels(s) and "overflow" not in messages(s)


def test_old_ray_infeasible_request_in_a_defaultdict_is_read():
    """https://github.com/LLMServe/DistServe/issues/55 (pending wd004): Ray 1's `resource request defaultdict(<class
    'float'>, {'GPU': 2.0})` on two one-GPU nodes."""
    sections = explain(_field("wd004"), host="other", nodes=2)
    said = _all(sections)
    assert _worst(sections) == "fail"
    assert "2 GPUs at once" in said and "single node" in said


def test_gb10_vram_is_said_unified():
    """https://github.com/jethac/dgx-spark-hijinks (pending wf008): llama-bench on a GB10, `VRAM: 122501 MiB`."""
    [s] = explain(_field("wf008"), host="spark", nodes=1)
    said = messages(s)
    assert "VRAM 122501 MiB" in said and "unified memory" in said
    assert "warn" not in levels(s) and "fail" not in levels(s)


def test_other_gpu_vram_is_not_called_unified():
    """A discrete card's llama-bench header (the same shape, an RTX 4090): its VRAM is said, not called unified."""
    text = _field("wf008").replace("NVIDIA GB10, compute capability 12.1", "NVIDIA GeForce RTX 4090, compute "
                                   "capability 8.9").replace("122501", "24080")
    [s] = explain(text, host="other", nodes=1)
    assert "VRAM 24080 MiB" in messages(s) and "unified" not in messages(s)


def test_driver_node_without_gpu_names_the_address():
    """https://github.com/vllm-project/vllm/issues/12983 (pending we007): `Ray does not allocate any GPUs on the driver
    node`."""
    [s] = explain(_field("we007"), nodes=2)
    said = messages(s, "fail")
    assert "driver node" in said and "VLLM_HOST_IP" in said


def test_quoted_method_name_of_a_worker_that_failed():
    """https://github.com/LMCache/LMCache/issues/814 (pending wd011): `Error executing method 'init_device'` on a Ray
    worker of the second node (vLLM 0.7+ quotes the name)."""
    [s] = explain(_field("wd011"), host="other", nodes=2)
    said = messages(s, "fail")
    assert "`init_device`" in said and "local rank" in said


def test_custom_allreduce_cuda_error_with_expandable_segments():
    """https://github.com/vllm-project/vllm/issues/42609 (pending we019): two RTX 3090s over NVLink,
    expandable_segments:True, `Failed: Cuda error .../custom_all_reduce.cuh:455 'invalid argument'`."""
    sections = explain(_field("we019"), host="other", nodes=1)
    said = _all(sections)
    assert _worst(sections) == "fail"
    assert "expandable_segments" in said and "--disable-custom-all-reduce" in said and "Not an NVLink" in said
    [(level, message)] = known_faults("Failed: Cuda error /workspace/csrc/custom_all_reduce.cuh:455 'invalid argument'\n")
    assert level == "fail" and "Not an NVLink" not in message and "peer access" in message


def test_negative_ray_usage_is_a_leaked_reservation():
    """https://github.com/ray-project/ray/issues/19131 (pending wf002): `-1.0/32.0 CPU (14.0 used of 15.0 reserved in
    placement groups)` after the job was killed."""
    [s] = explain(_field("wf002"), host="other", nodes=2)
    said = messages(s, "warn")
    assert "-1/32 CPU" in said and "placement group" in said and "inconsistent" in said
    assert "fail" not in levels(s)


def test_healthy_ray_status_has_no_negative_or_stale_note():
    """https://github.com/vllm-project/vllm/issues/6632 (pending we017): an idle two-node cluster, 0.0/8.0 GPU."""
    [s] = explain(_field("we017"), host="other", nodes=2)
    assert levels(s).count("warn") == 0 and "all 8 GPUs are free" in messages(s)


def test_cpu_demand_that_fits_what_is_free_is_called_stale():
    """https://github.com/ray-project/ray/issues/36926 (pending wd020): 20.0/24.0 CPU used, yet `{'CPU': 4.0}: 5+ pending
    tasks/actors`, and the autoscaler launched four more nodes."""
    sections = explain(_field("wd020"), host="other", nodes=5)
    said = _all(sections)
    assert "stale" in said and "extra nodes that are not needed" in said
    assert _worst(sections) == "warn"


def test_cpu_demand_with_every_cpu_busy_stays_a_backlog():
    """The same report with all 24 CPUs in use: tasks queued for CPUs, a backlog (not called stale)."""
    text = _field("wd020").replace(" 20.0/24.0 CPU", " 24.0/24.0 CPU")
    said = _all(explain(text, host="other", nodes=5))
    assert "stale" not in said and "a backlog, not a fault" in said


def test_old_ray_head_whose_reporter_died_names_it_and_the_teardown():
    """https://github.com/ray-project/ray/issues/6368 (pending we018): Ray 0.8's `Ray processes died unexpectedly:`,
    `reporter died with exit code 1`, `Killing remaining processes and exiting...`, then Redis's SIGTERM."""
    sections = explain(_field("we018"), host="other", nodes=1)
    said = _all(sections)
    assert _worst(sections) == "fail"
    assert "reporter (exit code 1)" in said and "reporter.err" in said and "teardown, not the cause" in said


def test_vllm_stats_none_waiting_with_room_is_healthy():
    """https://github.com/vllm-project/vllm/issues/6206 (pending wd010): 4 running, Pending 0, KV cache 15.6%."""
    [s] = explain(_field("wd010"), host="other", nodes=1)
    said = messages(s)
    assert "None waiting" in said and "healthy, lightly loaded" in said
    assert "warn" not in levels(s)


def test_vllm_stats_waiting_with_an_empty_cache_names_the_lora_limit():
    """https://github.com/vllm-project/vllm/issues/11517 (pending wd015): --enable-lora without --max-loras; 1 running,
    3 pending, prompt 0 tok/s, KV cache 3.1%."""
    [s] = explain(_field("wd015"), host="other", nodes=1)
    said = messages(s, "warn")
    assert "not memory holds them back" in said and "--max-loras" in said and "cannot prove" in said


def test_vllm_stats_waiting_while_prompts_flow_is_not_flagged():
    """The same stats line while prompts are taken in (prompt 812 tok/s): requests arriving, not held back."""
    text = _field("wd015").replace("Avg prompt throughput: 0.0 tokens/s", "Avg prompt throughput: 812.0 tokens/s")
    [s] = explain(text, host="other", nodes=1)
    assert "warn" not in levels(s) and "holds them back" not in messages(s)


def test_engine_failure_says_the_warm_up_step():
    """https://github.com/jethac/dgx-spark-hijinks (pending wf010): FlashInfer's `Unsupported max_mma_kv: 0` raised
    under compile_or_warm_up_model / kernel_warmup on a DGX Spark."""
    [s] = explain(_field("wf010"), host="spark", nodes=1)
    said = messages(s, "fail")
    assert "max_mma_kv" in said and "warm-up after the KV cache was sized" in said


def test_gpustat_question_marks_on_a_gb10_are_not_a_fault():
    """https://github.com/wookayin/gpustat/pull/179 (pending we002): `[0] NVIDIA GB10 | 54°C,   0 % |    ?? /    ?? MB`."""
    sections = explain(_field("we002"), host="spark", nodes=1)
    said = _all(sections)
    assert _worst(sections) in ("ok", "info")
    assert "not a fault" in said and "no memory of its own" in said and "54°C,   0 %" in said
    assert known_faults("[0] NVIDIA GeForce RTX 3090 | 42°C,   0 % |  24058 / 24576 MB | python(23800M)\n") == []


def test_wide_spread_row_of_llama_benchy_is_said_without_a_healthy_verdict():
    """https://github.com/eugr/spark-vllm-docker/issues/138 (pending wf007): `pp2048 @ d8192 | 4186.06 ± 2546.59`; the
    other rows within a few per cent. An info (corpus zo003 and x020 read such spreads as unreliable, not a fault)."""
    [s] = explain(_field("wf007"), host="spark", nodes=1)
    [spread] = [f.message for f in s.findings if f.message.startswith("A wide spread")]
    assert "pp2048 @ d8192 4186.06 ± 2546.59 tok/s (61% of the mean)" in spread and "cannot tell which" in spread
    assert "d4096" not in spread and "tg32" not in spread  # 9% and below: steady
    assert "A healthy run" not in messages(s) and {"warn", "fail"}.isdisjoint(levels(s))


def test_steady_llama_bench_rows_keep_the_healthy_verdict():
    """https://github.com/jethac/dgx-spark-hijinks (pending wf008): 12505.79 ± 615.87 and 178.10 ± 0.95: steady."""
    [s] = explain(_field("wf008"), host="spark", nodes=1)
    assert "A healthy run" in messages(s) and "wide spread" not in messages(s)


def test_two_gpu_table_says_topo_shows_how_they_connect():
    """https://github.com/noonghunna/club-3090/pull/92 (pending wd009): two RTX 3090s' nvidia-smi table; whether an
    NVLink bridge joins them is not in it."""
    [s] = explain(_field("wd009"), host="other", nodes=1)
    assert "`nvidia-smi topo -m` shows that" in messages(s)
    one = "\n".join(_field("wd009").splitlines()[:12])  # GPU 0's block only
    [s] = explain(one, host="other", nodes=1)
    assert "topo -m" not in messages(s)


def test_spark_with_gibs_in_swap_is_a_warn():
    """https://github.com/sfxnz/DeepSeek-V4.1-Flash-EXL3-vLLM-2x-DGX-Spark (pending we020): a Spark serving vLLM, 22 of
    121 GiB available and 6.7 GiB swapped out (vLLM's own workers hold it)."""
    [s] = explain(_field("we020"), host="spark", nodes=1)
    said = messages(s, "warn")
    assert "6.7 GiB already swapped out" in said and "also the GPU's memory" in said and "VmSwap" in said


def test_swap_on_an_ordinary_server_stays_an_info():
    """The same `free` on a machine that is not a Spark (its GPUs have their own memory): swap said, not a warn."""
    [s] = explain(_field("we020"), host="other", nodes=1)
    assert "warn" not in levels(s) and "already swapped out" in messages(s, "info")


def test_no_healthy_verdict_beside_a_fatal_line_in_the_same_output():
    """pending wf008's llama-bench table with ggml's `CUDA error: out of memory` after it (the shape of a run that died
    in a later test): the catalogue's fail is said, and the reader's "A healthy run" is dropped, as NO_ERROR_SEEN is."""
    text = _field("wf008") + "CUDA error: out of memory\n  current device: 0, in function alloc at ggml-cuda.cu:12\n"
    [s] = explain(text, host="spark", nodes=1)
    assert "fail" in levels(s) and "A healthy run" not in messages(s)


def test_waiting_with_nothing_running_is_not_called_a_scheduler_limit():
    """pending wd015's stats line with nothing running (`Running: 0 reqs, ... Pending: 3 reqs`): the engine takes
    nothing in; no LoRA or max-num-seqs reading (neither can hold requests back with none running)."""
    text = _field("wd015").replace("Running: 1 reqs", "Running: 0 reqs")
    [s] = explain(text, host="other", nodes=1)
    said = messages(s, "warn")
    assert "not taking work in" in said and "--max-loras" not in said


def test_ray_status_without_its_header_is_not_said_to_lack_its_nodes():
    """https://github.com/ray-project/ray/issues/19131 (pending wf002): `Node status` and its two healthy nodes, without
    the `======== Autoscaler status` line: the header is what is missing, not the node list."""
    [s] = explain(_field("wf002"), host="other", nodes=2)
    said = messages(s, "info")
    assert "no `Autoscaler status` header" in said and "no header or node list" not in said
