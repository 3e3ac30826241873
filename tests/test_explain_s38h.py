"""Session 38 (helper h): serving, Ray and machine-state readings of the blind batches wg and wh, each mended as a
general rule and tested on the real output it comes from (and on a neighbouring output where it must stay silent)."""

from __future__ import annotations

from grader.explain import explain
from tests.conftest import field_entry as corpus, messages


def _all(sections, level: str | None = None) -> str:
    return "\n".join(messages(s, level) for s in sections)


def _worst(sections) -> str:
    order = {"ok": 0, "info": 0, "warn": 1, "fail": 2}
    return max((f.level for s in sections for f in s.findings), key=order.get, default="info")


def test_a_driver_on_a_machine_with_no_raylet_fails_and_says_ray_start():
    """Pending wg013 (https://github.com/ray-project/ray/issues/21591: ray.init(address=...) on a second machine where
    no `ray start` ran; the matched-raylet line, then core_worker's fatal `Failed to get the system config from
    Raylet`): a fail naming the raylet and the way in (`ray start --address`, or a Ray client), and not vLLM's."""
    sections = explain(corpus("wg013"), host="other", nodes=2)
    fails = _all(sections, "fail")
    assert "found no raylet" in fails and "ray start --address=<head>:6379" in fails and "ray://" in fails
    assert "This Ray driver asked to join the existing Ray cluster at 192.168.0.1:6379" in _all(sections, "info")
    assert "vLLM joined" not in _all(sections) and "gpu" not in _all(sections).lower()


def test_the_older_matched_raylet_line_misspelled_is_read_as_the_hedged_warn():
    """Pending wg022 (https://github.com/ray-project/ray/issues/8033: `... while we can not found the matched Raylet
    address`, Ray 1.11's wording, in a container at 172.18.0.6): ray start's hedged warn, as for the `can not find`
    wording of corpus zv017 (https://github.com/ray-project/ray/issues/31264), which stays read."""
    for prefix, ip in (("wg022", "172.18.0.6"), ("zv017", "203.0.113.44")):
        [s] = explain(corpus(prefix), host="other", nodes=2)
        assert s.kind == "ray-start" and [f.level for f in s.findings] == ["warn"], prefix
        assert f"not yet found a raylet at this node's address {ip}" in messages(s, "warn")
        assert "a container" in messages(s, "warn") and "--node-ip-address" in messages(s, "warn")


def test_a_worker_that_could_not_register_with_its_raylet_fails_without_a_network_cause():
    """Pending wh019 (https://github.com/vllm-project/vllm/issues/13557: `Failed to register worker to Raylet ... End of
    file`): a fail on that node's Ray setup (its container, its Ray version), the EOF said, no network cause."""
    sections = explain(corpus("wh019"), host="other", nodes=2)
    assert _worst(sections) == "fail"
    said = _all(sections, "fail")
    assert "could not register with its node's raylet" in said and "`End of file`" in said
    assert "same container" in said and "Ray version" in said and "firewall" not in said


def test_a_raylet_terminated_unexpectedly_is_a_fail_whose_cause_the_output_cannot_tell():
    """Pending wh013 (https://github.com/ray-project/ray/issues/29412: `Raylet is terminated: ip=172.29.58.176 ...
    Termination is unexpected`, the raylet's last lines only [state-dump] statistics): a fail that names the node and
    says what decides the signal (dmesg, raylet.out), not a cause."""
    sections = explain(corpus("wh013"), host="other", nodes=64)
    said = _all(sections, "fail")
    assert "raylet (Ray's daemon on each node) of node 172.29.58.176 died unexpectedly" in said
    assert "cannot tell the cause" in said and "dmesg" in said


def test_a_head_pod_that_lost_its_own_gcs_and_restarts_fails_on_both_outputs():
    """Pending wh009 (https://github.com/ray-project/kuberay/issues/3897: the head's `Failed to connect to GCS within 60
    seconds. GCS may have been killed`, then kubelet's `Back-off restarting failed container ray-head`): two fails,
    the GCS on the head (gcs_server.out decides) and the crash loop (logs --previous and Last State decide)."""
    sections = explain(corpus("wh009"), host="other", nodes=1)
    gcs, pod = (s for s in sections if any(f.level == "fail" for f in s.findings))
    assert "lost the GCS (the cluster's control store, run by the head) for 60 seconds" in messages(gcs, "fail")
    assert "gcs_server.out" in messages(gcs, "fail")
    assert "keeps restarting container ray-head of pod main-ray-cluster-kuberay-head-7zw69" in messages(pod, "fail")
    assert "--previous" in messages(pod, "fail")


def test_a_raylet_that_never_registered_fails_only_when_the_start_gave_up():
    """Pending wh021 (https://github.com/ray-project/kuberay/issues/1563: `Some processes that the driver needs to
    connect to have not registered with GCS, so retrying` each second, then a traceback pasted below): a fail saying
    the raylet logs decide; the same line alone (still waiting) is a hedged warn that says what decides."""
    sections = explain(corpus("wh021"), host="other", nodes=2)
    assert "gave up" in _all(sections, "fail") and "raylet.out" in _all(sections, "fail")
    alone = corpus("wh021").split("```")[0]
    sections = explain(alone, host="other", nodes=2)
    assert _worst(sections) == "warn" and "The lines after it decide" in _all(sections, "warn")


def test_a_watched_pod_listing_with_its_age_wrapped_is_read():
    """Pending wh008 (https://github.com/ray-project/kuberay/issues/805: `watch kubectl get pod` in a narrow terminal,
    each row's AGE on a line of its own, a worker in CrashLoopBackOff): the rows are read and the crash loop fails."""
    sections = explain(corpus("wh008"), host="other", nodes=2)
    pods = next(s for s in sections if s.kind == "kubectl-pods")
    assert s_error_free(pods) and "CrashLoopBackOff, 3 restarts, after 16s" in messages(pods, "fail")


def s_error_free(section) -> bool:
    return section.error is None


def test_a_placement_group_holding_more_than_the_cluster_is_inconsistent_bookkeeping():
    """Pending wh005 (https://github.com/ray-project/ray/issues/14883: 50 healthy nodes, `65.0/66.0 CPU`, yet
    `0.0/84.0 CPU_group_<pg>`): a warn on Ray's placement-group accounting, not the nodes. Silent on corpus u017
    (https://github.com/ray-project/ray/issues/17892: `10.0/16.0 CPU_group_<pg>` of 16 CPUs, a group within what the
    node has)."""
    [s] = [x for x in explain(corpus("wh005"), host="other", nodes=50) if x.kind == "ray-status"]
    said = messages(s, "warn")
    assert "holds 84 CPU" in said and "more than the 66 CPU the whole cluster has" in said and "inconsistent" in said
    healthy = [x for x in explain(corpus("u017"), host="other") if x.kind == "ray-status"]
    assert healthy and not any("more than the" in messages(x) for x in healthy)


def test_an_ollama_runner_log_behind_journalctl_prefixes_says_the_gpus_it_found():
    """Pending wg002 (https://github.com/ollama/ollama/issues/8995: `journalctl -u ollama`, each line behind `Feb 10
    14:39:57 debian ollama[1538]: `, `ggml_cuda_init: found 1 CUDA devices`): read as llama.cpp's log; one GPU found
    is said with what decides whether another is hidden (an info: the paste cannot tell). Pending wg016
    (https://github.com/ollama/ollama/issues/3711, the same prefix, two different GPUs) and wg001
    (https://github.com/ollama/ollama/issues/1341: Ollama's older `llama.go:292:` lines, `ggml_init_cublas: found 2
    CUDA devices`) name both GPUs and no hidden one."""
    [s] = explain(corpus("wg002"), host="other", nodes=1)
    assert s.kind == "llama-log" and s.error is None
    said = messages(s, "info")
    assert "llama.cpp found 1 GPU: NVIDIA GeForce RTX 3070" in said and "`nvidia-smi -L`" in said
    for prefix, names in (("wg016", "NVIDIA RTX A6000 (compute capability 8.6), NVIDIA GeForce RTX 3090"),
                          ("wg001", "NVIDIA GeForce RTX 3090 (compute capability 8.6), NVIDIA GeForce RTX 3090")):
        [s] = explain(corpus(prefix), host="other", nodes=1)
        assert s.kind == "llama-log" and f"llama.cpp found 2 GPUs: {names}" in messages(s, "info")
        assert "not visible" not in messages(s)


def test_a_llama_cpp_python_build_with_one_device_at_most_is_a_cpu_only_build():
    """Pending wg015 (https://github.com/abetlen/llama-cpp-python/issues/1166: `Attempt to split tensors that exceed
    maximum supported devices. Current LLAMA_MAX_DEVICES=1`): a fail naming the CPU-only build and its reinstall with
    CUDA; a maximum above 1 (a GPU build asked for more GPUs than it takes) is not called CPU-only."""
    said = _all(explain(corpus("wg015"), host="other", nodes=1), "fail")
    assert "a CPU-only build" in said and "-DGGML_CUDA=on" in said and "pcie" not in said.lower()
    more = "ValueError: Attempt to split tensors that exceed maximum supported devices. Current LLAMA_MAX_DEVICES=16\n"
    said = _all(explain(more, host="other", nodes=1), "fail")
    assert "refused to split the model" not in said and "CPU-only" not in said  # (s38l: the entry is =1's only)


def test_a_gpu_driving_the_display_is_said_and_both_gpus_counted():
    """Pending wg014 (https://github.com/noonghunna/club-3090/issues/1322: two RTX 5090s, GPU1 `Disp.A On`, both idle
    with a model loaded): the display card is said (expected, not a fault), both GPUs are counted, nothing above
    info. A one-GPU table with its display on (corpus: any single-card desktop) says nothing of a display."""
    [s] = explain(corpus("wg014"), host="other", nodes=1)
    assert {f.level for f in s.findings} <= {"ok", "info"}
    said = messages(s)
    assert "GPU1 drives a display (Disp.A On)" in said and "the headless GPU0" in said
    assert "nvidia-smi runs and both GPUs, GPU0" in said
    one = "\n".join(x for x in corpus("wg014").splitlines() if not x.startswith(("|   0 ", "|  0%")))
    assert "drives a display" not in messages(explain(one, host="other", nodes=1)[0])


def test_a_card_at_x4_gen3_may_be_an_egpu_and_is_expected_where_the_paste_says_thunderbolt():
    """Pending wg018 (https://github.com/noonghunna/club-3090/issues/347: a rig report's RTX A5000 at x4 of x16, Gen up
    to 3, in a Thunderbolt 3 enclosure the paste does not name): the narrow-slot warn says what x4 Gen3 also is (an
    eGPU enclosure's limit) and what tells; with Thunderbolt named in the paste it is an info, expected."""
    [s] = explain(corpus("wg018"), host="other", nodes=1)
    assert "eGPU enclosure carries: in one, it is the enclosure's limit and expected" in messages(s, "warn")
    [s] = explain("My TB3 eGPU enclosure:\n" + corpus("wg018"), host="other", nodes=1)
    assert "warn" not in {f.level for f in s.findings}
    assert "behind a Thunderbolt eGPU enclosure" in messages(s, "info")


def test_a_sparkrun_ssh_step_that_failed_says_ssh_worked_and_what_decides():
    """Pending wh015 (https://github.com/spark-arena/sparkrun/issues/205: `SSH script <- 192.168.20.31 FAILED rc=1
    (0.3s):`, nothing after): a warn, SSH itself worked (rc 1, not 255), which step and why are in the full log."""
    said = _all(explain(corpus("wh015"), host="spark", nodes=2), "warn")
    assert "rc=1, so SSH itself worked" in said and "full log" in said
    said = _all(explain(corpus("wh015").replace("rc=1", "rc=255"), host="spark", nodes=2), "warn")
    assert "rc=255, what ssh returns when it could not connect" in said and "SSH itself worked" not in said


def test_vllm_startup_faults_of_its_build_and_launch_are_said_with_what_decides():
    """Pending wg004 (https://github.com/kyuz0/amd-strix-halo-vllm-toolboxes/issues/72: `... is not supported by
    AWQMoeMarlin. Falling back to Moe WNA16 kernels`, then a clean 5-request bench): a warn on the slower kernels, the
    bench's 0 failed kept. Pending wg020 (https://github.com/spark-arena/sparkrun/issues/220: DeepGEMM's `Failed to
    open: sm121_fp8_mqa_logits.cuh`): a fail naming the GB10's sm121 and the missing kernel, no network cause. Pending
    wh004 (https://github.com/ai-dynamo/dynamo/issues/4934: `Tensor parallel size (2) cannot be larger than the number
    of available GPUs (1)`): a fail saying the size is checked against the local GPUs and a multi-node launch did not
    reach vLLM."""
    sections = explain(corpus("wg004"), host="other", nodes=1)
    assert "run on the slower Moe WNA16 kernels" in _all(sections, "warn") and "0 failed" in _all(sections, "ok")
    said = _all(explain(corpus("wg020"), host="spark", nodes=8), "fail")
    assert "sm121, the GB10 of a DGX Spark" in said and "`sm121_fp8_mqa_logits.cuh` is not in the installed" in said
    assert "nccl" not in said.lower() and "network" not in said
    said = _all(explain(corpus("wh004"), host="other", nodes=2), "fail")
    assert "tensor parallel size 2 but sees 1 GPU(s)" in said and "multi-node launch" in said


def test_a_llama_cpp_run_over_rpc_says_its_load_time_is_the_links_and_reads_decimal_commas():
    """Pending wh012 (https://github.com/ggml-org/llama.cpp/issues/9820: `llama-cli ... --rpc HOST:50052 -ngl 99`, a
    locale's decimal commas, `load time = 55658,27 ms`): the rates are read (5.01 tokens/s) and the load time is said
    as the link's; the same timings without `--rpc` say nothing of a link."""
    [s] = [x for x in explain(corpus("wh012"), host="other", nodes=2) if x.kind == "llama-log"]
    said = messages(s, "info")
    assert "generation 5.01 tokens/s" in said and "Load took 55.7 s" in said and "bandwidth sets the load time" in said
    local = "\n".join(x for x in corpus("wh012").splitlines() if x.startswith(("_llama", "llama_perf")))
    [s] = explain(local, host="other", nodes=1)
    assert "generation 5.01 tokens/s" in messages(s) and "Load took" not in messages(s)


def test_weights_that_nearly_fill_a_named_card_leave_no_room_for_its_buffers():
    """Pending wg016 (https://github.com/ollama/ollama/issues/3711: 45,460 MiB of weights on CUDA0, an RTX A6000 of
    48 GB) and corpus zu016 (https://github.com/ollama/ollama/issues/4284: 21,518 MiB on an RTX 3090 Ti of 24 GB, the
    device list above the load log, read as that log's): a warn per card, nearly full before its KV cache and compute
    buffers. Silent on pending yz008 (https://github.com/containers/ramalama/issues/1354: 20 GB on each 3090, about 4 GB
    left, a healthy load)."""
    [s] = explain(corpus("wg016"), host="other", nodes=1)
    assert "CUDA0 (NVIDIA RTX A6000, 48 GB) holds 44.4 GiB of weights: nearly full" in messages(s, "warn")
    [s] = explain(corpus("zu016"), host="other", nodes=1)
    assert s.kind == "llama-log" and "CUDA0 (NVIDIA GeForce RTX 3090 Ti, 24 GB) holds 21.0 GiB" in messages(s, "warn")
    assert "GiB of weights: nearly full" not in _all(explain(corpus("yz008"), host="other", nodes=1))


def test_a_batch_sent_at_once_says_whether_its_requests_ran_together():
    """Pending wg010 and wg021 (https://github.com/elizabetht/spark: 8 requests at once through a round-robin proxy over
    two Sparks, 18.6 s average of a 30.2 s batch; a disaggregated run, 7.69 s average of 7.69 s, 0.85x of one Spark):
    the first served one after another (a warn naming the proxy or client, not the link), the second together (an
    info with the paste's own 0.85x as an overhead); a batch of one request says neither."""
    said = _all(explain(corpus("wg010"), host="spark", nodes=2), "warn")
    assert "did not run together: their average latency, 18.6 s, is 0.62 of the batch's 30.21 s" in said
    assert "proxy" in said and "nccl" not in said.lower()
    sections = explain(corpus("wg021"), host="spark", nodes=2)
    assert "ran together" in _all(sections, "info") and "0.85x of its baseline" in _all(sections, "info")
    assert _worst(sections) == "info"
    one = "  Requests:       1/1 successful\n  Total time:     7.30 s\n  Avg latency:    3650.0 ms\n"
    assert "together" not in _all(explain(one, host="spark", nodes=2))
