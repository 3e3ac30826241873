"""Session 38b: serving outputs (trtllm-serve, llama.cpp, distributed-llama, exo) read as general rules, each test
naming the real output it comes from."""

from __future__ import annotations

from grader.explain import explain
from grader.parsers.llama_bench import parse_llama_bench
from tests.conftest import field_entry as corpus, levels, messages


def _said(sections, level: str | None = None) -> str:
    return "\n".join(messages(s, level) for s in sections)


def _worst(sections) -> str:
    order = {"ok": 0, "info": 0, "warn": 1, "fail": 2}
    return max((lv for s in sections for lv in levels(s)), key=order.get, default="info")


def test_a_cut_traceback_logged_under_an_error_caption_is_the_servers_failed_request():
    """https://github.com/NVIDIA/TensorRT-LLM/issues/11313 (pending zr020): trtllm-serve logs `[TRT-LLM] [V] Error
    details: %s Traceback (most recent call last):` and the frames of its request handler (serve/openai_server.py),
    cut before the exception: the request failed, and why is in the executor's log. A torchrun rank's cut traceback
    (corpus zb003, https://github.com/tdrussell/diffusion-pipe/issues/446: `[rank0]: Traceback`, no error caption)
    stays a request for the exception line."""
    sections = explain(corpus("zr020"), host="spark", nodes=1)
    failed = _said(sections, "fail")
    assert "logged this traceback as an error (`[02/05/2026-06:58:48] [TRT-LLM] [V] Error details: %s`)" in failed
    assert "a request failed there" in failed and "executor" in failed
    said = _said(explain(corpus("zb003"), host="spark", nodes=1))
    assert "logged this traceback as an error" not in said and "cut before its exception line" in said
    # a caption a person wrote (no log record's marks) is no logged error
    tb = ("Error happens here: Traceback (most recent call last):\n  File \"/x/tensorrt_llm/serve/openai_server.py\", "
          "line 957, in chat_harmony\n    response = await create(promise)\n")
    said = _said(explain(tb, host="other"))
    assert "logged this traceback" not in said and "cut before its exception line" in said


def test_a_programs_error_wrapped_over_lines_above_its_traceback_is_the_error():
    """https://github.com/exo-explore/exo/issues/160 (pending xo013) and /632 (xo014): exo's `Error processing tensor
    for shard Shard(...)` message, wrapped by the terminal over two or three lines, then the traceback it caught, cut:
    the message is the error (the shard's layers and the reshape or the parameters refused), a failure. Prose a person
    wrote over two lines above a traceback is not taken for it."""
    failed = _said(explain(corpus("xo013"), host="other", nodes=3), "fail")
    assert "printed an error just above its traceback: `Error processing tensor for shard" in failed
    assert "start_layer=0" in failed and "can't reshape" in failed
    failed = _said(explain(corpus("xo014"), host="other", nodes=2), "fail")
    assert "start_layer=14" in failed and "model.embed_tokens.weight model.embed_tokens.scales" in failed
    tb = ("Traceback (most recent call last):\n  File \"/x/exo/orchestration/node.py\", line 408, in _process_tensor\n"
          "    result = await self.infer(shard)\n")
    said = _said(explain("I get the following error\nwhen I run it on the two Macs\n" + tb, host="other"))
    assert "just above" not in said and "cut before its exception line" in said


def test_llama_bench_rows_without_their_header_are_read_and_a_layer_split_is_compared_with_one_machine():
    """https://github.com/ggml-org/llama.cpp/pull/28494 (pending xo010): two Strix Halo boxes, a llama-bench table
    quoted from its separator row on (no header), and under it the RPC run's rows (one column more, `dev`): both are
    read; tg32 10.75 tok/s split over the two machines against 11.01 on one is decode no faster split, as a layer
    split gives (each token runs the machines' layers one after the other), not a fault: nothing above info."""
    sections = explain(corpus("xo010"), host="other", nodes=2)
    [bench] = [s for s in sections if s.kind == "llama-bench"]
    assert len(bench.facts["rows"]) == 8 and set(levels(bench)) <= {"ok", "info"}
    said = messages(bench, "info")
    assert "tg32: 11.01 tok/s on one machine (ROCm), 10.75 tok/s with the layers split over machines (ROCm,RPC)" in said
    assert "Decode is no faster split" in said and "not a fault of the link" in said
    assert "pp8192: 329.37 tok/s on one machine (ROCm), 655.19 tok/s" in said
    # a split much slower than one machine: the network's share is said, not 'no fault of the link'
    slow = corpus("xo010").replace("10.75 ± 0.00", " 6.20 ± 0.00")
    said = _said(explain(slow, host="other", nodes=2))
    assert "waiting on the network between the machines" in said and "not a fault of the link" not in said
    # one machine only (the RPC rows left out): no comparison
    alone = "\n".join(x for x in corpus("xo010").splitlines() if "RPC" not in x)
    assert "split over machines" not in _said(explain(alone, host="other", nodes=1))
    # without a header, a row not of llama-bench's shape (a person's own table) gives no row
    b = parse_llama_bench("| two boxes | fast | yes | no | pp512 | 12 |\n"
                          "| qwen 7B | 4.3 GiB | 7.6 B | CUDA | tg128 | 55.1 ± 0.2 |\n")
    assert [r.test for r in b.rows] == ["tg128"]
    b = parse_llama_bench("| qwen 7B | 4.3 GiB | 7.6 B | CUDA | 99 | tg128 | 55.1 ± 0.2 |\n")
    assert [(r.test, r.tps, r.backend) for r in b.rows] == [("tg128", 55.1, "CUDA")]


def test_distributed_llama_on_a_node_count_not_a_power_of_two_fails():
    """https://github.com/b4rtaz/distributed-llama/issues/149 (pending xo003): the root started with two `--workers`,
    3 nodes in all; distributed-llama runs only on 1, 2, 4... 2^n nodes (its README's known limitations), so the
    workers' ReadSocketException follows from that. A root with one worker (2 nodes, pending xo008,
    https://github.com/b4rtaz/distributed-llama/issues/108) is not said to be wrong."""
    failed = _said(explain(corpus("xo003"), host="other", nodes=3), "fail")
    assert "started with 2 worker(s) in `--workers`, so 3 nodes in all" in failed and "power-of-two" in failed
    assert "power-of-two" not in _said(explain(corpus("xo008"), host="other", nodes=2))
    four = corpus("xo003").replace("--workers 10.0.1.3:9998 10.0.1.4:9998",
                                   "--workers 10.0.1.3:9998 10.0.1.4:9998 10.0.1.5:9998 --nthreads 4")
    assert "power-of-two" not in _said(explain(four, host="other", nodes=4))


def test_an_uncaught_cpp_exception_is_a_failure_quoting_its_message():
    """https://github.com/b4rtaz/distributed-llama/issues/87 (pending xo009): `terminate called after throwing an
    instance of 'std::runtime_error'` / `what():  Cannot create socket`: the program died of it (a failure, quoting
    the message). Beside a failure an entry above already names (PyTorch's NCCL watchdog, corpus z006,
    https://github.com/colonel-otto/3x-dgx-spark-mesh-deepseek-v4-0731-flash) it is not said again."""
    sections = explain(corpus("xo009"), host="other", nodes=2)
    failed = _said(sections, "fail")
    assert "died of an exception nothing caught (`std::runtime_error`, what(): `Cannot create socket`)" in failed
    assert "unreachable" not in _said(sections).lower()
    sections = explain(corpus("z006"), host="spark", nodes=3)
    assert _worst(sections) == "fail" and "exception nothing caught" not in _said(sections)


def test_nvrtc_refusing_a_kernel_is_a_failure_quoting_the_compilers_error():
    """https://github.com/exo-explore/exo/issues/44 (pending xo012): tinygrad's generated kernel, `Nvrtc Error 6,
    NVRTC_ERROR_COMPILATION`, then `error: more than one user-defined conversion from "nv_bfloat16"`: the kernel
    did not compile, so the prompt failed."""
    failed = _said(explain(corpus("xo012"), host="other", nodes=1), "fail")
    assert "A CUDA kernel compiled at run time failed to compile" in failed and "nv_bfloat16" in failed


def test_a_ggml_abort_is_a_failure_quoting_its_check_unless_a_known_fault_says_it():
    """https://github.com/gpustack/gpustack/issues/1471 (pending xo005): llama-box's `ggml-backend.cpp:746:
    pre-allocated tensor (cache_k_l0 (view)) in a buffer (RPC[]) that cannot run the operation (VIEW)`, then gdb's
    backtrace through ggml_abort: a failure quoting the check. ggml-rpc's `Remote RPC server crashed` (pending yz011,
    https://github.com/ggml-org/llama.cpp/issues/15055) keeps its own entry alone."""
    failed = _said(explain(corpus("xo005"), host="other", nodes=2), "fail")
    assert "stopped the program at one of its checks" in failed and "cache_k_l0 (view)" in failed
    said = _said(explain(corpus("yz011"), host="other", nodes=2))
    assert "stopped the program at one of its checks" not in said


def test_a_state_change_without_its_output_says_no_word_a_hang_is_read_in():
    """https://github.com/NVIDIA/dgx-spark-playbooks/issues/3 (pending zl016): commands only (docker run ... bash -c
    of a trtllm-serve): their output is not here; the words say so without `changes`, whose `hang` reads as a hang
    to a reader matching words."""
    said = _said(explain(corpus("zl016"), host="spark", nodes=2)).lower()
    assert "its output is not here" in said and "hang" not in said


def test_distributed_llama_token_times_say_whether_the_link_or_compute_sets_the_speed():
    """https://github.com/b4rtaz/distributed-llama/pull/136 (pending xo007): two MacBooks over a link-local link, `Avg
    transfer time: 139.17 ms` of `Avg generation time: 218.06 ms` against 78.66 ms of inference: the link sets the
    speed (a warning). https://github.com/b4rtaz/distributed-llama/issues/108 (pending xo008): two boards, token lines
    `G 559 ms I 499 ms T 60 ms ...`, inference above transfer: it runs, compute-bound (info)."""
    sections = explain(corpus("xo007"), host="other", nodes=2)
    warned = _said(sections, "warn")
    assert "spent 139 ms of each token's 218 ms moving data between its nodes" in warned and "79 ms computing" in warned
    sections = explain(corpus("xo008"), host="other", nodes=2)
    assert _worst(sections) in ("ok", "info")
    said = _said(sections, "info")
    assert "distributed-llama runs: each token took 557 ms, 423 ms of it computing" in said
    assert "(the mean of 11 token line(s))" in said


def test_mooncakes_failed_rdma_slice_is_a_failure_naming_the_two_nics():
    """https://github.com/kvcache-ai/Mooncake/issues/955 (pending xp010): vLLM's prefill/decode split over Mooncake on
    one 8-NIC host; the first KV transfer fails, `local_nic: mlx5_9, peer_nic: 192.168.1.161:16360@mlx5_7 ...):
    transport retry counter exceeded`: no RDMA path between those NICs, and NCCL_IB_HCA does not choose Mooncake's."""
    failed = _said(explain(corpus("xp010"), host="other", nodes=1), "fail")
    assert "failed an RDMA transfer from its NIC mlx5_9 to 192.168.1.161:16360@mlx5_7" in failed
    assert "NCCL_IB_HCA steers NCCL only, not Mooncake" in failed
    # the same engine's line with another status is not this entry's
    other = corpus("xp010").replace("transport retry counter exceeded", "local protection error")
    assert "failed an RDMA transfer" not in _said(explain(other, host="other", nodes=1))


def test_a_log_record_under_an_error_line_is_not_read_as_its_wrapped_continuation():
    """The wrapped-error reading of exo's message (pending xo013, https://github.com/exo-explore/exo/issues/160) joins
    only continuation lines: a record of its own between an error line and a cut traceback is no part of that error."""
    tb = ("Traceback (most recent call last):\n  File \"/x/exo/orchestration/node.py\", line 408, in _process_tensor\n"
          "    result = await self.infer(shard)\n")
    said = _said(explain("Error talking to peer 10.0.0.2\nINFO 12:00:01 retrying the request\n" + tb, host="other"))
    assert "just above" not in said and "cut before its exception line" in said
    said = _said(explain("Error talking to peer 10.0.0.2 while\nsending the shard's tensor\n" + tb, host="other"))
    assert "just above its traceback: `Error talking to peer 10.0.0.2 while sending the shard's tensor`" in said


def test_ray_get_gpu_ids_empty_in_the_driver_is_no_missing_gpu():
    """https://github.com/ray-project/ray/issues/53919 (pending xg017): `ray.get_gpu_ids()` typed in a Python shell
    connected to the cluster prints `[]` while torch sees 1 GPU: it lists the GPUs assigned to the current task or
    actor (https://docs.ray.io/en/latest/ray-core/api/doc/ray.get_gpu_ids.html: not for a driver), so the paste does
    not show Ray missing the GPU; `ray status` says what Ray counts. With a GPU id printed, nothing is said."""
    sections = explain(corpus("xg017"), host="other", nodes=1)
    said = _said(sections, "info")
    assert "`ray.get_gpu_ids()` returned `[]`: it lists the GPUs Ray assigned to the current task or actor" in said
    assert "`ray status`" in said and _worst(sections) in ("ok", "info")
    assigned = corpus("xg017").replace("\n[]\n", "\n[0]\n")
    assert "get_gpu_ids()` returned" not in _said(explain(assigned, host="other", nodes=1))


def test_nodes_started_with_different_rendezvous_addresses_fail():
    """https://github.com/sgl-project/sglang/issues/3467 (corpus zz004): node rank 0 launched with `--dist-init-addr
    10.68.27.12:5000`, node rank 1 with `10.0.1.104:5000`, and the server sticks at init: each side waits on its own
    store. The same commands with one address, with a shell variable for one, or pending xg006's `x.x.x.x`
    placeholders (https://github.com/sgl-project/sglang/issues/3812) say nothing of it."""
    sections = explain(corpus("zz004"), host="other", nodes=2)
    failed = _said(sections, "fail")
    assert ("different rendezvous addresses: `--dist-init-addr` 10.68.27.12:5000 on node rank 0 and 10.0.1.104:5000 "
            "on node rank 1") in failed
    same = corpus("zz004").replace("10.0.1.104:5000", "10.68.27.12:5000")
    assert "rendezvous addresses" not in _said(explain(same, host="other", nodes=2))
    variable = corpus("zz004").replace("10.0.1.104:5000", "$HEAD_IP:5000")
    assert "rendezvous addresses" not in _said(explain(variable, host="other", nodes=2))
    assert "rendezvous addresses" not in _said(explain(corpus("xg006"), host="other", nodes=2))
    # vLLM's --nnodes mode, its --master-addr (a head's log under the two commands)
    vllm = ("$ vllm serve m --tensor-parallel-size 2 --nnodes 2 --node-rank 0 --master-addr 10.0.0.1\n"
            "$ vllm serve m --tensor-parallel-size 2 --nnodes 2 --node-rank 1 --master-addr 10.0.0.2 --headless\n"
            "INFO 11-29 14:02:11 [api_server.py:1] vLLM API server version 0.13.0\n")
    failed = _said(explain(vllm, host="other", nodes=2), "fail")
    assert "`--master-addr` 10.0.0.1 on node rank 0 and 10.0.0.2 on node rank 1" in failed


def test_a_flashinfer_jit_failure_names_the_kernels_kv_dtype():
    """https://github.com/jethac/dgx-spark-hijinks (corpus zm011): SGLang on a GB10 with an FP4 (e2m1) KV cache dies
    at CUDA-graph capture when FlashInfer's JIT cannot build `batch_decode_with_kv_cache_dtype_q_bf16_dtype_kv_
    fp4_e2m1_...` for 121a (`no suitable conversion function from "const Params::DTypeKV" to "float"`): the KV dtype
    is part of the kernel that failed. A kernel whose KV dtype is the query's (bf16 both) is not singled out."""
    warned = _said(explain(corpus("zm011"), host="spark", nodes=1), "warn")
    assert "`batch_decode_with_kv_cache` kernel for queries in bf16 and a KV cache in fp4_e2m1 (for sm_121a)" in warned
    assert "no suitable conversion function" in warned
    same = corpus("zm011").replace("dtype_kv_fp4_e2m1", "dtype_kv_bf16")
    assert "a KV cache in" not in _said(explain(same, host="spark", nodes=1))


def test_a_compare_llama_bench_table_is_read_as_two_builds_side_by_side():
    """https://github.com/ggml-org/llama.cpp/pull/19142 (corpus zg006): compare-commits.sh on one DGX Spark, `| Model |
    Test | t/s <branch A> | t/s <branch B> | Speedup |`, pp512 at depths 1K to 64K, speedup 0.99 to 1.01 (the last
    row cut before its speedup): the same rate under both builds, and the fall with depth is the deeper KV cache's
    cost. A build much slower is said by its range (0.50 here), not hidden in a median."""
    sections = explain(corpus("zg006"), host="spark", nodes=1)
    [bench] = [s for s in sections if s.kind == "llama-bench"]
    said = messages(bench, "info")
    assert ("`gg/cuda-tune-dgx` against `gg/cuda-fa-tune-spark` over 7 test(s), speedup 0.99 to 1.01 (median 1.00"
            in said)
    assert "from 1763.43 / 1789.58 t/s at context depth 1,024 to 300.56 / 299.86 at depth 65,536" in said
    assert set(levels(bench)) <= {"ok", "info"} and len(bench.facts["compared"]) == 7
    slower = corpus("zg006").replace("1155.97 |                1156.45 |      1.00",
                                     "1155.97 |                 578.00 |      0.50")
    assert "speedup 0.50 to 1.01" in _said(explain(slower, host="spark", nodes=1))


def test_vllms_spec_decode_metrics_say_the_acceptance_length():
    """https://github.com/noonghunna/club-3090/issues/602 (corpus u016): two RTX 3090s, `SpecDecoding metrics: Mean
    acceptance length: 1.38 ... Accepted: 3 tokens, Drafted: 24 tokens` (the line wrapped further on): said, with
    what 1 means; a healthy MTP serve (corpus m021,
    https://github.com/MiaAI-Lab/DeepSeek-v4-Flash-DSpark-2x-DGX-Spark/issues/146: 3.08, 108 of 312) is said the same
    way, as information only."""
    said = _said(explain(corpus("u016"), host="other", nodes=1), "info")
    assert "mean acceptance length 1.38 tokens a step, 3 of 24 drafted tokens accepted" in said
    sections = explain(corpus("m021"), host="spark", nodes=2)
    assert "mean acceptance length 3.08 tokens a step, 108 of 312" in _said(sections, "info")
    assert _worst(sections) in ("ok", "info")
