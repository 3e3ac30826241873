"""Session 38f: fixes of break-it probes (breakit16) against this session's explain rules: each test feeds the probe's
lines (a neighbouring output the rule misread) and the rule's original case, which must still be read as before."""

from __future__ import annotations

from grader.diagnoses import diagnose_text
from grader.explain import explain
from tests.conftest import field_entry as _field, messages


def _all(sections) -> str:
    return "\n".join(messages(s) for s in sections)


def _worst(sections) -> str:
    order = {"ok": 0, "info": 0, "warn": 1, "fail": 2}
    return max((f.level for s in sections for f in s.findings), key=order.get, default="ok")


def _ids(text: str) -> set[str]:
    return {d.kind for d in diagnose_text(text)}


def test_ggml_abort_is_a_runtime_check_not_a_make_rule_or_a_grep_hit():
    """ggml's abort prints `%s:%d: %s` (ggml/src/ggml.c ggml_abort; gpustack#1471's llama-box line). A failed build's
    make line (`gmake[2]: *** [ggml/src/.../build.make:752: ...cu.o] Error 1`, whisper.cpp#3030), a build stopped by
    Ctrl-C (`... build.make:1234: ...] Interrupt`) and `grep -rn` over ggml's sources are no abort."""
    make = ("nvcc fatal   : Unsupported gpu architecture 'compute_120'\ngmake[2]: *** [ggml/src/ggml-cuda/CMakeFiles/"
            "ggml-cuda.dir/build.make:752: ggml/src/ggml-cuda/CMakeFiles/ggml-cuda.dir/template-instances/"
            "fattn-mma-f16-instance-ncols1_2-ncols2_4.cu.o] Error 1\n")
    interrupt = ("make[2]: *** [ggml/src/ggml-cuda/CMakeFiles/ggml-cuda.dir/build.make:1234: ggml/src/ggml-cuda/"
                 "CMakeFiles/ggml-cuda.dir/template-instances/fattn-mma-f16-instance-ncols1_16-ncols2_4.cu.o] "
                 "Interrupt\n")
    grep = ('$ grep -rn "CUDA error: " ggml/src/ggml-cuda/ggml-cuda.cu | head -2\nggml/src/ggml-cuda/ggml-cuda.cu:92:'
            '    GGML_LOG_ERROR(GGML_CUDA_NAME " error: %s\\n", msg);\n')
    for text in (make, interrupt, grep):
        assert "ggml-abort" not in _ids(text)
    assert "ggml-abort" in _ids("llama.cpp/ggml/src/ggml-backend.cpp:746: pre-allocated tensor (cache_k_l0 (view)) "
                                "in a buffer (RPC[]) that cannot run the operation (VIEW)\n")
    assert "ggml-abort" in _ids("/app/ggml/src/ggml-cuda/ggml-cuda.cu:75: CUDA error\n")


_DLLAMA = ("$ ./dllama inference --model m.m --tokenizer t.t --buffer-float-type q80 --prompt \"Hello world\" --steps 16 "
           "--nthreads 4 --workers 192.168.1.3:9998{more} | tee run.log\n")


def test_dllama_node_count_stops_at_shell_tokens_and_believes_nnodes():
    """distributed-llama's root (README: 2^n nodes; issue #149): `--workers A | tee run.log` is one worker, 2 nodes,
    no failure; `NNodes: 2` or generated token lines show the run went on. Two workers (3 nodes) still fail, also
    behind a pipe."""
    ok = _DLLAMA.format(more="") + "💡 NNodes: 2\n🔶 G  559 ms I  499 ms T   60 ms S 1916242 kB R    654 kB Hello\n"
    assert _worst(explain(ok, host="other", nodes=2)) != "fail"
    assert "dllama-node-count" not in _ids(_DLLAMA.format(more=""))
    assert "dllama-node-count" not in _ids(_DLLAMA.format(more=" 10.0.0.3:9998 10.0.0.4:9998 > chat.log 2>&1"))
    three = _DLLAMA.format(more=" 192.168.1.4:9998")
    assert "dllama-node-count" in _ids(three)
    said = " ".join(d.message for d in diagnose_text(three))
    assert "2 worker(s)" in said and "3 nodes" in said
    assert "dllama-node-count" in _ids(three + "💡 NNodes: 3\n")
    assert "dllama-node-count" not in _ids(three.replace(" 192.168.1.4", " \\\n    192.168.1.4 192.168.1.5"))


def test_flashinfer_jit_kernel_built_is_no_build_failure_for_a_later_error():
    """FlashInfer's JIT (ninja + nvcc) building `batch_decode_with_kv_cache_dtype_q_bf16_dtype_kv_e4m3` to its `[3/3]
    ... .so` link, with nvcc's warning only, then a request refused (`error: prompt too long`): the build finished, no
    warn. The original case (corpus zm011, https://github.com/jethac/dgx-spark-hijinks: `FAILED:` and nvcc's
    `vec_dtypes.cuh(117): error:` for an fp4_e2m1 KV cache) stays the warn naming nvcc's error."""
    path = ("/root/.cache/flashinfer/0.2.5/90a/generated/batch_decode_with_kv_cache_dtype_q_bf16_dtype_kv_e4m3_dtype_o_"
            "bf16_dtype_idx_i32_head_dim_qk_128/batch_decode.cu")
    text = (f"[1/3] /usr/local/cuda/bin/nvcc -c {path} -o batch_decode.cuda.o\n"
            f"{path}(41): warning #177-D: variable \"smem_size\" was declared but never referenced\n"
            "[2/3] c++ -c batch_decode_jit_pybind.cu -o batch_decode_jit_pybind.o\n"
            "[3/3] c++ batch_decode.cuda.o batch_decode_jit_pybind.o -shared -o batch_decode_with_kv_cache.so\n"
            "[2025-05-11 12:02:47] The server is fired up and ready to roll!\n"
            "[2025-05-11 12:03:11] ERROR: request rejected: error: prompt too long (40000 > 32768)\n")
    assert "flashinfer-jit-kv-dtype" not in _ids(text)
    failed = text.replace("[2/3] c++", f"FAILED: batch_decode.cuda.o\n{path}(52): error: no suitable conversion\n[2/3] c++")
    assert "flashinfer-jit-kv-dtype" in _ids(failed)
    warned = _all(explain(_field("zm011"), host="spark", nodes=1))
    assert "a KV cache in fp4_e2m1 (for sm_121a)" in warned and "no suitable conversion function" in warned


_SGL = ("$ python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp 16 --nnodes 2 --node-rank {rank} "
        "--dist-init-addr {addr} --trust-remote-code\n")


def test_rendezvous_compares_ip_literals_the_last_retry_and_one_server_only():
    """sgl-project/sglang#3467 (corpus zz004: two ranks with 10.68.27.12:5000 and 10.0.1.104:5000) stays a fail.
    Not one: rank 1 naming rank 0 by host name (`spark1:5000`, /etc/hosts says 192.168.100.10); rank 0's mistyped
    first try then its corrected command (the last one counts); a prefill and a decode cluster (SGLang's PD
    disaggregation), each with its own --dist-init-addr."""
    said = _all(explain(_field("zz004"), host="other", nodes=2))
    assert "different rendezvous addresses" in said and "10.68.27.12:5000 on node rank 0" in said
    name = _SGL.format(rank=0, addr="192.168.100.10:5000") + _SGL.format(rank=1, addr="spark1:5000")
    retry = (_SGL.format(rank=0, addr="10.0.0.11:5000") + "^C\n" + _SGL.format(rank=0, addr="10.0.0.1:5000")
             + _SGL.format(rank=1, addr="10.0.0.1:5000"))
    pd = "".join(_SGL.format(rank=r, addr=a).replace("--tp 16", f"--disaggregation-mode {m} --tp 16")
                 for m, a, r in (("decode", "10.0.2.1:5757", 1), ("prefill", "10.0.1.1:5757", 0),
                                 ("prefill", "10.0.1.1:5757", 1), ("decode", "10.0.2.1:5757", 0)))
    tail = "[2025-02-10 09:01:02 TP0] Init torch distributed begin.\n"
    for text in (name, retry, pd):
        assert "rendezvous addresses" not in _all(explain(text + tail, host="other", nodes=2))
    wrong = retry.replace("rank 1 --dist-init-addr 10.0.0.1:", "rank 1 --dist-init-addr 10.0.0.11:")
    assert "rendezvous addresses" in _all(explain(wrong + tail, host="other", nodes=2))


def test_a_caption_saying_the_quoted_error_is_gone_is_no_error_report():
    """A poster's caption above a vLLM log: `After setting NCCL_IB_HCA the earlier "CUDA error: an illegal memory access
    was encountered" is gone; full log below`, and the log shows a server that came up: no failure. A caption that
    quotes the error as still there is read (test_explain_s38d.test_caption_quoting_a_known_error_is_read)."""
    log = ("$ vllm serve meta-llama/Llama-3.1-70B-Instruct --tensor-parallel-size 2\n"
           "INFO 04-02 10:00:01 api_server.py:585] vLLM API server version 0.6.0\n"
           "INFO 04-02 10:04:55 gpu_executor.py:122] # GPU blocks: 12345, # CPU blocks: 3276\n"
           "INFO:     Application startup complete.\n")
    caption = 'After setting NCCL_IB_HCA the earlier "CUDA error: an illegal memory access was encountered" is {}; log:\n'
    for text in (f"<details><summary>{caption.format('gone')}</summary>\n\n```\n{log}```\n</details>\n",
                 caption.format("gone") + "\n" + log, caption.format("fixed") + log):
        assert _worst(explain(text, host="other", nodes=1)) != "fail", text
    assert _worst(explain(caption.format("still not fixed") + "\n" + log, host="other", nodes=1)) == "fail"
    assert "cuda-illegal-memory-access" not in _ids(caption.format("gone"))
    assert "cuda-illegal-memory-access" in _ids("RuntimeError: CUDA error: an illegal memory access was encountered\n")


def test_a_program_killed_is_no_healthy_run_and_no_clean_console():
    """bash's `Killed` (SIGKILL, most often the OOM killer: https://github.com/ggml-org/llama.cpp/issues/5156):
    llama-bench's pp512 row then `Killed` before tg128 (asked by -n 128) is no healthy run; an rpc-server killed after
    accepting its client is no console without an error. Without the line, the bench is healthy as before."""
    bench = ("$ ./build/bin/llama-bench -m models/llama-3.1-70b-q4_k_m.gguf -ngl 99 -p 512 -n 128\n"
             "ggml_cuda_init: found 1 CUDA devices:\n  Device 0: NVIDIA GB10, compute capability 12.1, VMM: yes\n"
             "| model                          |       size |     params | backend    | ngl |          test |"
             "                  t/s |\n| ------------------------------ | ---------: | ---------: | ---------- | --: | "
             "------------: | -------------------: |\n| llama 70B Q4_K - Medium        |  39.59 GiB |    70.55 B | CUDA"
             "       |  99 |         pp512 |        812.40 ± 4.10 |\n")
    sections = explain(bench + "Killed\n", host="spark", nodes=1)
    said = _all(sections)
    assert _worst(sections) == "fail" and "killed" in said and "OOM killer" in said
    assert "healthy run" not in said.lower()
    assert "healthy run" in _all(explain(bench, host="spark", nodes=1)).lower()
    rpc = ("$ ./build/bin/rpc-server -H 0.0.0.0 -p 50052\ncreate_backend: using CUDA backend\n"
           "ggml_cuda_init: found 1 CUDA devices:\n  Device 0: NVIDIA GeForce RTX 3060, compute capability 8.6, VMM: yes\n"
           "Starting RPC server on 0.0.0.0:50052, backend memory: 11806 MB\n"
           "Accepted client connection, free_mem=12379488256, total_mem=12884705280\n")
    said = _all(explain(rpc + "Killed\n", host="other", nodes=1))
    assert "no error" not in said.lower() and "killed" in said
    assert "No error in these lines" in _all(explain(rpc, host="other", nodes=1))
    assert "process-killed" not in _ids("[ 2457.311000] Out of memory: Killed process 3721 (vllm)\nKilled process\n")


def test_a_ray_worker_that_exited_as_intended_at_shutdown_is_no_failure():
    """Ray's `A worker died or was killed ... by an unexpected system error` with `Worker exit type:
    INTENDED_SYSTEM_EXIT ... exit code 0` after vLLM's `Shutting down Ray GPU executor`: the teardown, no failure.
    SYSTEM_ERROR (https://github.com/vllm-project/vllm/pull/1395, pending wf006) or no
    exit type at all stays the fail."""
    died = ("(raylet) A worker died or was killed while executing a task by an unexpected system error. To troubleshoot "
            "the problem, check the logs for the dead worker. RayTask ID: ffffffffffffffff2f4a1e5c8d7b3e6a01000000 "
            "Worker ID: 9a1b2c3d Node ID: 7e6d5c4b Worker IP address: 10.0.0.2 Worker port: 40123 Worker PID: 2211 "
            "Worker exit type: {} Worker exit detail: {}\n")
    text = ("INFO 06-10 12:10:01 api_server.py:600] Shutting down FastAPI HTTP server.\n"
            "INFO 06-10 12:10:01 ray_gpu_executor.py:120] Shutting down Ray GPU executor.\n"
            + died.format("INTENDED_SYSTEM_EXIT", "Worker exits with an exit code 0.")
            + "INFO:     Shutting down\nINFO:     Application shutdown complete.\n")
    assert "ray-worker-died-system-error" not in _ids(text)
    assert _worst(explain(text, host="other", nodes=2)) != "fail"
    assert "ray-worker-died-system-error" in _ids(died.format("SYSTEM_ERROR", "The leased worker has unrecoverable "
                                                                              "failure."))
    assert "ray-worker-died-system-error" in _ids(died.split(" Worker exit type")[0] + "\n")
    assert _worst(explain(_field("wf006"), host="other", nodes=1)) == "fail"


_STATS = ("{p}INFO 03-02 14:20:05 [loggers.py:116] Engine {e}: Avg prompt throughput: {pt} tokens/s, Avg generation "
          "throughput: 402.1 tokens/s, Running: {r} reqs, Waiting: {w} reqs, GPU KV cache usage: 3.1%, Prefix cache "
          "hit rate: 0.0%\n")


def test_vllm_stats_waiting_at_the_max_num_seqs_the_command_sets_is_an_info():
    """vLLM's stats line (vllm/v1/metrics/loggers.py) with `Running: 8 reqs, Waiting: 56 reqs` under `--max-num-seqs
    8`: the engine's own limit, said as an info naming it. Without the option the same line stays the warn."""
    cmd = "$ vllm serve meta-llama/Llama-3.1-8B-Instruct --max-num-seqs 8 --gpu-memory-utilization 0.9\n"
    line = _STATS.format(p="", e="000", pt="0.0", r=8, w=56)
    sections = explain(cmd + line, host="other", nodes=1)
    assert _worst(sections) == "info" and "--max-num-seqs 8" in _all(sections)
    assert _worst(explain(cmd.replace("--max-num-seqs 8 ", "") + line, host="other", nodes=1)) == "warn"


def test_vllm_stats_of_data_parallel_engines_are_all_read_and_show_a_served_server():
    """A data-parallel vLLM (`--data-parallel-size 2`) prints one stats line per engine (`Engine 000`, `Engine 001`):
    both are said, the waiting-with-room warn only where every engine shows it, and requests running are no
    "no startup complete ... hung" beside them."""
    cmd = "$ vllm serve Qwen/Qwen3-30B-A3B --data-parallel-size 2 --port 8000\n"
    text = cmd + _STATS.format(p="(APIServer pid=1) ", e="000", pt="812.4", r=48, w=0) + _STATS.format(
        p="(APIServer pid=1) ", e="001", pt="0.0", r=48, w=2)
    sections = explain(text, host="other", nodes=1)
    said = _all(sections)
    assert "Engine 0: 48 running, 0 waiting" in said and "Engine 1: 48 running, 2 waiting" in said
    assert _worst(sections) == "info" and "hung" not in said
    both = text.replace("812.4", "0.0").replace("Waiting: 0 reqs", "Waiting: 3 reqs")
    assert _worst(explain(both, host="other", nodes=1)) == "warn"


def test_a_cpp_exception_at_cuda_teardown_after_a_finished_run_is_a_warn():
    """`terminate called after throwing an instance of 'c10::Error' what(): CUDA driver error: driver shutting down`
    after `training complete, checkpoint saved` (https://github.com/Hangz-nju-cuhk/Rotate-and-Render/issues/7: the
    outputs were right): CUDA's cudaErrorCudartUnloading at exit, a warn. Another uncaught exception
    (distributed-llama#87's `Cannot create socket`) stays the fail."""
    text = ("$ torchrun --nproc-per-node 2 train.py\n[rank0]: epoch 3 done, loss 0.412\n[rank0]: training complete, "
            "checkpoint saved to out/ckpt-final.pt\nterminate called after throwing an instance of 'c10::Error'\n"
            "  what():  CUDA driver error: driver shutting down\nException raised from ~CUDAEvent at "
            "/pytorch/c10/cuda/CUDAFunctions.h:55 (most recent call first):\n")
    sections = explain(text, host="other", nodes=1)
    assert _worst(sections) == "warn" and "driver shutting down" in _all(sections)
    assert "cpp-uncaught-exception" in _ids("terminate called after throwing an instance of 'std::runtime_error'\n"
                                            "  what():  Cannot create socket\n")
    assert "cpp-exception-at-teardown" not in _ids("terminate called after throwing an instance of "
                                                   "'std::runtime_error'\n  what():  Cannot create socket\n")


def test_an_assertion_a_gtest_death_test_expects_is_no_failure():
    """A gtest death test prints the child's `Assertion ... failed.` then `[       OK ]` and `[  PASSED  ]`: the
    assertion was the test's expectation. Without the OK line the C assertion stays the fail."""
    text = ("$ ./build/bin/test-assert-death\n[ RUN      ] AssertDeath.TriggersAbort\ntest-assert-death: /home/user/src/"
            "check.c:17: check_positive: Assertion `x > 0' failed.\n[       OK ] AssertDeath.TriggersAbort (3 ms)\n"
            "[  PASSED  ] 1 test.\n")
    assert "c-assertion-failed" not in _ids(text)
    assert "c-assertion-failed" in _ids(text.split("[       OK ]")[0])


def _ray_status(usage: str, demand: str, nodes: int, blocks: str = "") -> str:
    active = "".join(f" 1 node_{i}f1c0d2a8e9b4f7e9d3b1a2c4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b\n" for i in range(nodes))
    return ("$ ray status\n======== Autoscaler status: 2024-06-10 11:02:17.512345 ========\nNode status\n"
            "---------------------------------------------------------------\nActive:\n" + active
            + "Pending:\n (no pending nodes)\nRecent failures:\n (no failures)\n\nResources\n"
            "---------------------------------------------------------------\nUsage:\n" + usage
            + " 0B/88.12GiB memory\n 0B/37.76GiB object_store_memory\n\nDemands:\n" + demand + blocks)


def test_a_negative_ray_usage_of_a_float_residue_is_zero():
    """`-2.7755575615628914e-17/1.0 GPU` is Ray's float arithmetic's residue of 0 (no leak, no GPU taken); ray#19131's
    `-1.0/32.0 CPU` (pending wf002) stays the negative-use warn."""
    text = _ray_status(" 0.0/16.0 CPU\n -2.7755575615628914e-17/1.0 GPU\n", " (no resource demands)\n", 1)
    said = _all(explain(text, host="other", nodes=1))
    assert "negative" not in said and "some are taken" not in said and "GPUs 0/1 in use" in said
    assert "a negative use" in _all(explain(_field("wf002"), host="other", nodes=2))


def test_a_cpu_demand_over_several_nodes_is_called_stale_only_where_one_node_has_room():
    """ray#36926 (pending wd020, 5 nodes, totals only) keeps its warn naming the stale list, now hedged on `ray status
    -v`. Four nodes at 28/32 CPUs with `{'CPU': 4.0}` pending and no per-node figures: hedged (the free CPUs may be
    spread). With `ray status -v` showing 1 free on each node: the demand is real, said as an info, not stale."""
    demand = " {'CPU': 4.0}: 12+ pending tasks/actors\n"
    text = _ray_status(" 28.0/32.0 CPU\n", demand, 4)
    said = _all(explain(text, host="other", nodes=4))
    assert "if the free CPUs are spread" in said and "`ray status -v`" in said
    blocks = "".join(f"Node: node_{i}f1c0d2a8e9b4f7e9d3b1a2c4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b\n Usage:\n  7.0/8.0 CPU\n"
                     "  0B/22.03GiB memory\n\n" for i in range(4))
    sections = explain(_ray_status(" 28.0/32.0 CPU\n", demand, 4, "\n" + blocks), host="other", nodes=4)
    said = _all(sections)
    assert "stale" not in said and "no node has 4 free" in said, said
    assert "stale" in _all(explain(_field("wd020"), host="other", nodes=5))


def test_ray_get_gpu_ids_empty_only_from_the_calls_own_output():
    """ray.get_gpu_ids() (https://docs.ray.io/en/latest/ray-core/api/doc/ray.get_gpu_ids.html): actors that printed
    `ray.get_gpu_ids(): [0]` and `[1]`, then another print's `[]` (placement groups left): not the call's value, no
    note. The original case (pending xg017, ray#53919: a Python shell's `ray.get_gpu_ids()`, Ray's `Connected to Ray
    cluster` log line, then `[]`) and a call printed with `[]` on its line keep it."""
    text = ("$ python check_gpus.py\n2025-03-04 10:12:01,555\tINFO worker.py:1832 -- Started a local Ray instance.\n"
            "(GpuActor pid=48211) ray.get_gpu_ids(): [0]\n(GpuActor pid=48211) CUDA_VISIBLE_DEVICES: 0\n"
            "(GpuActor pid=48212) ray.get_gpu_ids(): [1]\n(GpuActor pid=48212) CUDA_VISIBLE_DEVICES: 1\n"
            "placement groups left:\n[]\n")
    assert "ray.get_gpu_ids()` returned `[]`" not in _all(explain(text, host="other", nodes=1))
    assert "ray-get-gpu-ids-empty" in _ids("import ray\nray.get_gpu_ids()\n2025-06-18 15:09:25,499 INFO worker.py:1908 "
                                           "-- Connected to Ray cluster.\n[]\n")
    assert "ray-get-gpu-ids-empty" in _ids("(MyActor pid=311) ray.get_gpu_ids(): []\n")


def test_nvidia_api_mismatch_after_the_load_line_is_a_fail_and_no_normal_note():
    """dmesg's `NVRM: loading NVIDIA UNIX x86_64 Kernel Module 550.54.14` then `NVRM: API mismatch: the client has the
    version 550.90.07, but this kernel module has the version 550.54.14` (https://github.com/NVIDIA/nvidia-docker/
    issues/182: fixed by a reboot): a fail naming both versions, and no "normal line of its start" beside it. The
    load line alone keeps its info."""
    load = "[    5.123456] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  550.54.14  Thu Feb 22 01:44:30 UTC 2024\n"
    text = ("$ sudo dmesg | grep -i nvrm\n" + load + "[  412.778812] NVRM: API mismatch: the client has the version "
            "550.90.07, but\n               NVRM: this kernel module has the version 550.54.14.  Please\n"
            "               NVRM: make sure that this kernel module and all NVIDIA driver\n")
    sections = explain(text, host="other", nodes=1)
    said = _all(sections)
    assert _worst(sections) == "fail" and "550.90.07" in said and "Reboot" in said
    assert "normal line of its start" not in said
    assert "normal line of its start" in _all(explain("$ sudo dmesg | grep -i nvrm\n" + load, host="other", nodes=1))
    [d] = [d for d in diagnose_text("NVRM: API mismatch: the client 'kwin_wayland' (pid 1005)\n    NVRM: has the "
                                    "version 595.84, but this kernel module has\n    NVRM: the version 595.80.  Please\n")]
    assert "the client kwin_wayland: user space has 595.84, the loaded kernel module 595.80" in d.message
