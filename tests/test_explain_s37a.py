"""Session 37 (helper A, serving): readings of real outputs mended as general rules, each test naming the output it
comes from."""

from __future__ import annotations


from grader.explain import explain
from tests.conftest import field_entry as corpus, messages


def said(sections, level: str | None = None) -> str:
    return " ".join(messages(s, level) if level else messages(s) for s in sections).strip()


def test_the_engines_wait_line_twice_where_the_paste_ends_is_a_hedged_warning():
    """https://github.com/eugr/spark-vllm-docker/pull/367 (corpus zb005): four Sparks at TP=4, the engine's wait line
    after a FlashInfer autotune started, again a minute later (that line cut after its logger's location), where the
    quoted log ends: the wait went on past a minute and the paste cannot show whether it stops, a warning that says
    what decides (checks/specs/serving.toml [engine] stall_open)."""
    sections = explain(corpus("zb005"), host="spark", nodes=4)
    warned = said(sections, "warn")
    assert "logged 2 times in a row that it waited 60 s" in warned and "the paste ends there" in warned
    assert "The paste cannot decide which" in warned and "a FlashInfer autotune" in warned
    # the first line alone stays the note that a worker is busy or stuck
    first = corpus("zb005").split("\n(EngineCore pid=397) INFO 09-02 11:58:54")[0] + "\n"
    assert not said(explain(first, host="spark", nodes=4), "warn")
    # a cut line at another logger's location is not the wait line again
    other = first + "(EngineCore pid=397) INFO 09-02 11:58:54 [core.py:801]\n"
    assert not said(explain(other, host="spark", nodes=4), "warn")


def test_two_wait_lines_that_the_log_goes_on_after_stay_a_note():
    """https://github.com/vllm-project/vllm/issues/39910 (corpus p013, s390x CPU backend): the wait line twice, then
    `Initial profiling/warmup run took 107.62 s`: a slow warm-up that ended, no warning."""
    sections = explain(corpus("p013"), host="other", nodes=1)
    assert "waited 60 s for a worker" in said(sections, "info") and "in a row" not in said(sections)


def test_an_open_files_limit_vllm_could_not_raise_is_named_and_a_high_one_is_a_note():
    """https://github.com/vllm-project/vllm/issues/29670 (pending xe015): vLLM 0.11.2 at DP 2 could not raise ulimit -n
    above 65530, the hard limit; at that many descriptors a server rarely runs out: a note naming the limit, while a
    limit of a few thousand stays the warning."""
    sections = explain(corpus("xe015"), host="other", nodes=1)
    assert "could not raise the open-files limit (ulimit -n) above 65,530" in said(sections, "info")
    assert not said(sections, "warn")
    low = corpus("xe015").replace("ulimit of 65530", "ulimit of 1024")
    assert "could not raise the open-files limit above 1024" in said(explain(low, host="other", nodes=1), "warn")
    assert "(ulimit -n) above" not in said(explain(low, host="other", nodes=1))
    # a launch's own diagnoses (a lesson's facts) leave the note out
    from grader.diagnoses import diagnose
    from grader.parsers.vllm_log import parse_vllm_log
    assert [d.kind for d in diagnose(parse_vllm_log(corpus("xe015")))] == ["not-ready"]


def test_a_kernels_architecture_guard_is_a_build_that_lacks_this_gpu():
    """https://github.com/Avarok-Cybersecurity/dgx-vllm/issues/9 (pending xm020): on a GB10 (sm_121) an FP8 kernel
    guarded for sm_120 traps (`This kernel only supports sm120.`) and CUDA reports an unspecified launch failure: a
    build without kernels for this GPU, not a hardware fault. DeepGEMM's spelling (`sm_90`) reads the same."""
    sections = explain(corpus("xm020"), host="spark", nodes=1)
    failed = said(sections, "fail")
    assert "A GPU kernel built only for sm120 ran on this GPU" in failed and "GB10 is sm_121" in failed
    assert "hardware" not in failed
    deepgemm = "RuntimeError: Assertion error: This kernel only supports sm_90\n"
    assert "built only for sm_90 ran on this GPU" in said(explain(deepgemm, host="other"), "fail")
    # the launch failure alone names no architecture
    assert "built only for" not in said(explain("cudaErrorLaunchFailure: unspecified launch failure\n", host="other"))


def test_an_autoscaler_that_keeps_failing_to_launch_says_ray_status_does_not_show_it():
    """https://github.com/ray-project/ray/issues/13586 (corpus z012): the autoscaler adds a gpu.medium node and removes
    it `(launch failed)` every few seconds while `ray status` lists it pending and `Recent failures: (no failures)`:
    the reading says the status hides the failed launches."""
    sections = explain(corpus("z012"), host="other")
    failed = said(sections, "fail")
    assert "cannot start nodes of type gpu.medium" in failed and "does not show the failed launches" in failed


def test_aiperfs_and_genai_perfs_console_table_is_read_as_a_load_test():
    """https://github.com/ai-dynamo/dynamo/issues/402 (pending xa014, GenAI-Perf: 128 requests at concurrency 32,
    healthy) and https://github.com/modelscope/evalscope/issues/1101 (pending xa009, AIPerf's table, cut): the table's
    rows under vLLM's names (their inter token latency is vLLM's TPOT), the time to second token set against it
    (checks/specs/serving.toml [load] slow_second_token_ratio)."""
    from grader.parsers.bench_result import parse_any
    [r] = parse_any(corpus("xa014"))
    assert r.shape == "GenAI-Perf console table" and r.summary["mean_ttft_ms"] == 1385.48
    assert r.summary["p99_tpot_ms"] == 19.79 and r.summary["output_throughput"] == 1023.48
    assert r.summary["completed"] == 128 and r.summary["mean_ttst_ms"] == 18.61 and "median_ttft_ms" not in r.summary
    sections = explain(corpus("xa014"), host="other", nodes=1)
    assert [s.kind for s in sections] == ["aiperf"] and not said(sections, "warn")
    assert "TTFT p99 4027.65 ms (4.03 s), mean 1385.48 ms" in said(sections, "info")
    assert "about the 19.42 ms between later tokens" in said(sections, "info")
    [r] = parse_any(corpus("xa009"))  # AIPerf's: p50 and std, a label wrapped onto a second row
    assert r.summary["median_ttft_ms"] == 1052.06 and r.summary["std_tpot_ms"] == 2.68
    assert "output_throughput" not in r.summary  # (the per-user row is not the server's)
    sections = explain(corpus("xa009"))
    assert "Time to second token 374.69 ms on average, 25x the 14.93 ms" in said(sections, "info")
    assert not said(sections, "warn")


def test_llama_bench_rows_that_differ_in_one_setting_are_set_side_by_side():
    """https://github.com/ggml-org/llama.cpp/issues/4812 (pending xf019): one RTX 3090 Ti, `-nkvo 0,1`: pp512 4035 then
    238 tok/s, the KV cache in host memory (nkvo 1) 17x slower: said as that setting's cost, not a fault. Rows that
    differ in two settings, or a single row, are not compared."""
    sections = explain(corpus("xf019"), host="other", nodes=1)
    noted = said(sections, "info")
    assert "pp512: 4035.47 tok/s with nkvo 0, 237.84 tok/s with nkvo 1: 16.97x apart, the slower with nkvo 1" in noted
    assert "nkvo 1 keeps the KV cache in host memory" in noted and not said(sections, "warn")
    two = corpus("xf019").replace("|  99 |             1 | pp 512", "|  98 |             1 | pp 512")
    differ = said(explain(two, host="other", nodes=1))
    assert "pp512: 4035.47 tok/s with" not in differ and "tg128: 127.43 tok/s with nkvo 0" in differ
    one = "\n".join(line for line in corpus("xf019").splitlines() if "|             1 |" not in line)
    assert "apart" not in said(explain(one, host="other", nodes=1))


def test_a_device_buffer_llama_cpp_could_not_allocate_is_that_gpus_share_not_fitting():
    """https://github.com/ollama/ollama/issues/8597 (pending yz017): ten RTX 3090s, Ollama's planned split of
    deepseek-r1:671b (33 of 62 layers, four on the first GPU) and `unable to allocate CUDA0 buffer`: the model does not
    load, the first GPU's share does not fit; the CPU's pinned buffer (`CUDA_Host`) is not a GPU's."""
    sections = explain(corpus("yz017"), host="other", nodes=1)
    failed = said(sections, "fail")
    assert "could not allocate the CUDA0 buffer while loading the model" in failed and "`num_gpu`" in failed
    host = "llama_model_load: error loading model: unable to allocate CUDA_Host buffer\n"
    assert "could not allocate the" not in said(explain(host, host="other"))


def test_rpc_servers_own_console_is_read_and_says_what_it_cannot_show():
    """https://github.com/ggml-org/llama.cpp/issues/8832 (pending yz019): `rpc-server -p 50052` on a V100, one client
    accepted and closed: the server's side is said (address, memory offered, connections) with no error, and that the
    client's speed is not in it."""
    sections = explain(corpus("yz019"), host="other", nodes=1)
    noted = said(sections, "info")
    assert "rpc-server listening on 0.0.0.0:50052, offering 28,170 MB" in noted and "1 client connection(s) accepted" in noted
    assert "not shown here" in noted and not said(sections, "warn") and not any(s.error for s in sections)
    # a llama-server log (no rpc-server line) says nothing of it
    log = "load_tensors: offloaded 29/29 layers to GPU\nload_tensors:        CUDA0 model buffer size =  2700.00 MiB\n"
    assert "rpc-server listening" not in said(explain(log, host="other"))


def test_trtllm_benchs_overview_of_two_runs_side_by_side_is_read():
    """zr007 (pending: trtllm-bench TP 8, a person's table `Total Output   Throughput (tokens/sec): | 15999.06 |
    16075.82`, main beside a branch): the first column is the run's, the second is said beside it; the overview is not
    reported missing."""
    sections = explain(corpus("zr007"), host="other", nodes=1)
    assert "Output 15,999.1 tok/s, 0.9765 requests/s" in said(sections, "ok")
    assert "A second run beside it: output 16,075.8 tok/s, 1.00x the first's" in said(sections, "info")
    assert "stops before the PERFORMANCE OVERVIEW" not in said(sections)


def test_the_benchmark_clients_division_by_zero_output_tokens_is_its_own_crash():
    """https://github.com/vllm-project/vllm/pull/3397 (pending xa018): benchmark_serving.py of early 2024 dies in
    calculate_metrics dividing by a request's zero output tokens: the client crashed and printed no result, not the
    server; a ZeroDivisionError elsewhere is not this."""
    sections = explain(corpus("xa018"), host="other", nodes=1)
    failed = said(sections, "fail")
    assert "The load-test client itself crashed while computing its metrics" in failed and "zero output tokens" in failed
    assert "server crashed" not in failed
    other = ('  File "train.py", line 12, in step\n    loss = total / count\nZeroDivisionError: division by zero\n')
    assert "load-test client" not in said(explain(other, host="other"))


def test_a_segfaults_backtrace_names_the_frame_past_the_signal_handler():
    """https://github.com/sgl-project/sglang/issues/6694 (pending xl001: SGLang with NIXL, UCX's backtrace, frame 5
    `uct_tcp_ep_am_bcopy` in the wheel's libuct) and https://github.com/NVIDIA/TensorRT-LLM/issues/395 (pending xl010: `PMPI_Comm_rank` in Open
    MPI's pcomm_rank.c): the crash is said with the first named frame past the handler's own; a segfault line with
    no backtrace says none."""
    failed = said(explain(corpus("xl001"), host="other", nodes=1), "fail")
    assert "in `uct_tcp_ep_am_bcopy` (libuct, UCX's transports), the innermost frame" in failed
    assert "ucs_handle_error" not in failed
    failed = said(explain(corpus("xl010"), host="other", nodes=1), "fail")
    assert "in `PMPI_Comm_rank` (pcomm_rank.c:41, Open MPI)" in failed
    bare = said(explain("Caught signal 11 (Segmentation fault: address not mapped to object at address 0x0)\n"), "fail")
    assert "segmentation fault" in bare and "innermost frame" not in bare


def test_the_engine_process_dying_with_its_traceback_cut_away_and_a_ptx_dump():
    """https://github.com/gpustack/gpustack/issues/4372 (pending xm019): on a GB10, `Process EngineCore_DP0:` among PTX
    debug lines (`.b8 1 // DW_AT_inline`): the engine core process died (multiprocessing's header of its traceback),
    the traceback is not in the paste, and the PTX is Triton's dump of a kernel ptxas rejected. Where the exception is
    in the paste (corpus x004: `RuntimeError: No supported CUDA architectures ...`) that reading stays the failure."""
    sections = explain(corpus("xm019"), host="spark", nodes=1)
    assert "engine core process died with an exception" in said(sections, "fail")
    assert "not in the paste" in said(sections, "fail") and "ptxas" in said(sections, "info")
    sections = explain(corpus("x004"), host="spark", nodes=1)
    assert "No supported CUDA architectures" in said(sections, "fail")
    assert "engine core process died" not in said(sections)


def test_the_ray_init_scripts_count_of_live_nodes_below_the_cluster_size_is_a_hedged_warning():
    """https://github.com/foundation-model-stack/fastsafetensors/issues/14 (pending xg013): the head's Ray init script
    (vLLM's multi-node-serving.sh's loop) prints `1/2 is active` at each poll and the paste ends: the second node has
    not joined yet, and what decides is said. Every node up, or a count that reached the size, is no warning."""
    sections = explain(corpus("xg013"), host="other", nodes=2)
    assert "counted 1 of 2 Ray nodes alive at its last poll in the paste (2 poll(s)" in said(sections, "warn")
    done = corpus("xg013") + "\nWait for all ray workers to be active. 2/2 is active\n"
    assert "Ray nodes alive" not in said(explain(done, host="other", nodes=2))
    ok_ = corpus("xg013") + "\nAll ray workers are active and the ray cluster is initialized successfully.\n"
    assert "Ray nodes alive" not in said(explain(ok_, host="other", nodes=2))


def test_gloos_loopback_fallback_on_one_machine_says_the_paste_does_not_show_the_rest():
    """https://github.com/wtdcode/vllm-backport/issues/14 (pending xh020): every rank's Gloo warning that
    the host name resolves to no address of its own, on one 8-GPU machine: harmless there, and whether the run went
    on is not in these lines."""
    noted = said(explain(corpus("xh020"), host="other", nodes=1), "info")
    assert "this is harmless. Whether the run then went on is not shown: the log after these lines says." in noted


def test_deepspeeds_launcher_start_lines_say_the_machine_and_what_they_do_not_show():
    """https://github.com/deepspeedai/DeepSpeed/issues/736 (corpus zz015): DeepSpeed's launcher on one machine (no
    hostfile, `nnodes=1, num_local_procs=2`, NCCL_SOCKET_IFNAME lo), the paste cut before the program's own lines: a
    note of the layout, and that what followed is not in these lines; no warning."""
    sections = explain(corpus("zz015"), host="other", nodes=1)
    noted = said(sections, "info")
    assert "started 2 process(es) on this machine as node 0 of nnodes=1" in noted and "not shown" in noted
    assert not said(sections, "warn") and not said(sections, "fail")


def test_trtllm_llmapi_launchs_wrapper_lines_say_they_do_not_show_the_server():
    """https://github.com/NVIDIA/TensorRT-LLM/issues/8961 (pending zr006): srun over two nodes, trtllm-llmapi-launch's
    rank 0 leading an MPI world of 2 and starting trtllm-serve, then nothing: a note that the server's own output is
    not in these lines, no fault."""
    sections = explain(corpus("zr006"), host="other", nodes=2)
    assert "rank 0 leads an MPI world of 2" in said(sections, "info") and "cannot tell whether it came up" in said(sections)
    assert not said(sections, "warn") and not said(sections, "fail")


def test_llama_benchys_gpt2_tokenizer_fallback_is_a_note_on_the_prompt_lengths():
    """https://github.com/djangodevreng/dgx-spark-benchmarks (pending xm014: llama-benchy 0.4.0 against vLLM serving
    gpt-oss-20b as `gpt-oss-20b-mxfp4`, no Hugging Face id): `Falling back to 'gpt2' tokenizer as approximation.`:
    the prompt lengths are GPT-2 tokens, approximate; `--tokenizer` mends it; the rates are read as before."""
    sections = explain(corpus("xm014"), host="spark", nodes=1)
    noted = said(sections, "info")
    assert "counts tokens with GPT-2's instead" in noted and "--tokenizer" in noted
    assert "tg1024 (c1) 46.47" in said(sections, "ok") and not said(sections, "warn")
