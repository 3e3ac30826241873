"""Session 33 (issue 27): what the pending blind batches (zl, zm) and this session's blind batches found explain
getting wrong; each on a short sample (a real output's shape, its source named), the values worked out by hand."""

from __future__ import annotations

from grader.explain import explain
from tests.conftest import levels, messages
from tests.test_diagnoses import EXAMPLES, PG_WAIT

# https://github.com/NVIDIA/nccl/issues/529: NCCL 2.5.6 in containers on two hosts, no RDMA device, the tunnel's
# link-local address first; the ranks time out (the paste ends before any communicator is up)
LINK_LOCAL = """NvYt-a:3795:3795 [0] NCCL INFO Bootstrap : Using [0]ip6tnl0:fe80::745d:60ff:fe00:1a2b%ip6tnl0<0> [1]veth0:2001:db8:fc17:3faa:0:4457:d87b:6007<0>
NvYt-a:3795:3795 [0] NCCL INFO NET/Plugin : No plugin found (libnccl-net.so), using internal implementation
NvYt-a:3795:3795 [0] NCCL INFO NET/IB : No device found.
NvYt-a:3795:3795 [0] NCCL INFO NET/Socket : Using [0]ip6tnl0:fe80::745d:60ff:fe00:1a2b%ip6tnl0<0> [1]veth0:2001:db8:fc17:3faa:0:4457:d87b:6007<0>
NCCL version 2.5.6+cuda10.0
"""


def test_a_link_local_first_interface_across_machines_that_never_set_up_is_the_failure():
    [s] = explain(LINK_LOCAL, nodes=2)
    assert "fail" in levels(s) and "ranks on 2 machines never got past" in messages(s, "fail")
    assert "ip6tnl0" in messages(s, "fail")
    # one machine, or a run that came up: the address is only a warning
    [one] = explain(LINK_LOCAL, nodes=1)
    assert "never got past" not in messages(one)
    [up] = explain(LINK_LOCAL + "NvYt-a:3795:3795 [0] NCCL INFO comm 0x1 rank 0 nranks 4 cudaDev 0 busId 8000 - "
                                "Init COMPLETE\n", nodes=2)
    assert "never got past" not in messages(up) and "link-local" in messages(up, "warn")


def test_an_engine_traceback_cut_at_a_known_check_names_what_that_check_is():
    """djangodevreng/dgx-spark-benchmarks (kat-coder): the traceback ends in track_weights_loading's `raise ValueError(`
    and the message is cut: that function raises only for weights the checkpoint lacks."""
    [s] = explain(EXAMPLES["engine-init-failed-traced"])
    said = messages(s, "fail")
    assert "Following weights were not initialized from checkpoint" in said and "vision tower" in said
    other = EXAMPLES["engine-init-failed-traced"].replace("track_weights_loading", "load_weights")
    assert "not initialized" not in messages(explain(other)[0])


# https://github.com/NVIDIA/nccl/issues/719: `nvidia-smi topo -m` in two pods on two hosts, each captioned; the GPUs sit
# near mlx5_2 on one and mlx5_1 on the other
TWO_PODS = """pod1
(test) root@8pxb:~/code# nvidia-smi topo -m
\tGPU0\tGPU1\tmlx5_0\tmlx5_1\tmlx5_2\tCPU Affinity\tNUMA Affinity
GPU0\t X \tNV12\tSYS\tSYS\tNODE\t64-127,192-255\t1
GPU1\tNV12\t X \tSYS\tSYS\tNODE\t64-127,192-255\t1
mlx5_0\tSYS\tSYS\t X \tNODE\tSYS
mlx5_1\tSYS\tSYS\tNODE\t X \tSYS
mlx5_2\tNODE\tNODE\tSYS\tSYS\t X

pod2
(test) root@9pxb:~/code# nvidia-smi topo -m
\tGPU0\tGPU1\tmlx5_0\tmlx5_1\tmlx5_2\tCPU Affinity\tNUMA Affinity
GPU0\t X \tNV12\tNODE\tPXB\tSYS\t0-63,128-191\t0
GPU1\tNV12\t X \tNODE\tPXB\tSYS\t0-63,128-191\t0
mlx5_0\tNODE\tNODE\t X \tNODE\tSYS
mlx5_1\tPXB\tPXB\tNODE\t X \tSYS
mlx5_2\tSYS\tSYS\tSYS\tSYS\t X
"""


def test_two_hosts_whose_gpus_are_nearest_to_different_nics_are_warned_once():
    sections = explain(TWO_PODS)
    assert [s.host for s in sections] == ["8pxb", "9pxb"]
    said = [f.message for s in sections for f in s.findings if "different NICs" in f.message]
    assert len(said) == 1 and "on 8pxb, mlx5_2; on 9pxb, mlx5_1" in said[0]
    assert not any(s.error for s in sections)  # `pod2`, the next machine's label, is set aside, not read as a row
    same = TWO_PODS.replace("NODE\tPXB\tSYS\t0-63", "SYS\tSYS\tPXB\t0-63")  # both hosts' GPUs nearest mlx5_2
    assert not any("different NICs" in messages(s) for s in explain(same))


# https://github.com/NVIDIA/nccl/issues/1291: nccl-tests under srun on two GH200 hosts, stuck before any row: each
# host's ranks bootstrap on another network (the address of bond0 was redacted by its poster)
TWO_BOOTSTRAPS = """# nThread 1 nGpus 1 minBytes 8 maxBytes 134217728 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0
#
# Using devices
#  Rank  0 Group  0 Pid 180172 on        gh1 device  0 [0x01] NVIDIA GH200 480GB
#  Rank  1 Group  0 Pid   9746 on        gh2 device  0 [0x01] NVIDIA GH200 480GB
gh1:180172:180172 [0] NCCL INFO Bootstrap : Using ib0:fe80::a288:c203:d2:1a2b%ib0<0>
gh2:9746:9746 [0] NCCL INFO cudaDriverVersion 12040
gh2:9746:9746 [0] NCCL INFO Bootstrap : Using bond0:X.X.X.X
"""


def test_hosts_bootstrapping_over_different_networks():
    from grader.parsers.nccl_log import parse_nccl_log
    log = parse_nccl_log(TWO_BOOTSTRAPS + "gh1:180172:180172 [0] NCCL INFO Bootstrap : Using [0]eth9:10.0.0.9<0>\n")
    assert log.bootstrap_by_host == {"gh1": ("ib0", "fe80::a288:c203:d2:1a2b%ib0"), "gh2": ("bond0", "X.X.X.X")}
    assert parse_nccl_log(LINK_LOCAL).bootstrap_iface == "ip6tnl0"  # NCCL 2.5's `[0]` index is not the name
    [s] = explain(TWO_BOOTSTRAPS)
    assert "gh1 ib0 (fe80::a288:c203:d2:1a2b%ib0), gh2 bond0 (X.X.X.X)" in messages(s, "fail")
    # two IPv4 interfaces of other names may be one network: said, not failed
    v4 = TWO_BOOTSTRAPS.replace("ib0:fe80::a288:c203:d2:1a2b%ib0<0>", "enp3s0:10.42.0.4<0>")
    [s] = explain(v4)
    assert "fail" not in levels(s) and "interfaces of different names" in messages(s, "info")
    same = v4.replace("bond0:X.X.X.X", "enp3s0:10.42.0.2<0>")
    assert "different" not in messages(explain(same)[0])


def test_a_hang_note_saying_not_responding_is_a_hang_and_one_saying_not_stuck_is_not():
    """The break-it review of session 32: `not` alone in a note read as "it went on"."""
    from tests.test_explain_s32 import LOADED
    hung = LOADED.replace("<silence — no further log output for 7+ hours>", "<hangs here, not responding>")
    assert "The paste notes that the program hung" in messages(explain(hung, host="spark", nodes=4)[0], "fail")
    fine = LOADED.replace("<silence — no further log output for 7+ hours>", "<pauses here, not stuck, then goes on>")
    assert "fail" not in levels(explain(fine, host="spark", nodes=4)[0])


def test_an_sglang_worker_of_one_gpu_names_its_step_without_a_tp_tag():
    """SGLang with TP=1 logs `[time] Load weight begin` without `TP0` in the bracket (sgl-project/sglang's scheduler
    lines); the step before the exception is named either way."""
    text = EXAMPLES["sglang-worker-exception"].replace(" TP4]", "]")
    said = messages(explain(text)[0], "fail")
    assert "Capture cuda graph begin" in said


def test_iperf3_options_read_with_the_shared_option_reader():
    """`-P` and `-b` as `--parallel=4` and `--bitrate=2G` count as their short forms (option_value, shared)."""
    from grader.parsers.iperf3 import _bitrate_asked, _parallel_asked
    assert _parallel_asked(["iperf3", "-c", "h", "--parallel=4"]) == 4 == _parallel_asked(["iperf3", "-P", "4"])
    assert _bitrate_asked(["iperf3", "--bitrate=2G"]) == 2e9 == _bitrate_asked(["iperf3", "-b2G"])
    assert _bitrate_asked(["iperf3", "-b", "170M/100"]) == 170e6
    assert _bitrate_asked(["iperf3", "-b", "0"]) is None and _bitrate_asked(["iperf3", "-P", "2"]) is None


# blind batch zn013: a Spark's show_gids whose first row lost its first character in the copy (`ocep1s0f0`)
CUT_NAME = """DEV     PORT    INDEX   GID                                     IPv4            VER     DEV
---     ----    -----   ---                                     ------------    ---     --
ocep1s0f0       1       0       fe80:0000:0000:0000:4ebb:47ff:fe00:0131                  v1      enp1s0f0np0
rocep1s0f0      1       1       fe80:0000:0000:0000:4ebb:47ff:fe00:0131                 v2      enp1s0f0np0
rocep1s0f0      1       3       0000:0000:0000:0000:0000:ffff:c0a8:640d 192.168.100.13          v2      enp1s0f0np0
n_gids_found=3
"""


def test_a_device_name_cut_at_its_start_is_the_whole_name_of_the_same_netdev():
    from grader.parsers.show_gids import parse_show_gids
    assert {r.device for r in parse_show_gids(CUT_NAME)} == {"rocep1s0f0"}
    [s] = explain(CUT_NAME, host="spark")
    assert "no RoCE v2 GID" not in messages(s) and "GID index 3 carries 192.168.100.13" in messages(s, "ok")
    # another netdev: two devices, not one cut
    other = CUT_NAME.replace("      v1      enp1s0f0np0", "      v1      enp9s0np0", 1)
    assert {r.device for r in parse_show_gids(other)} == {"ocep1s0f0", "rocep1s0f0"}


def test_a_spark_on_its_own_without_a_qsfp_link_is_as_expected():
    """blind batch zn004: `ip addr` of one Spark, explain --nodes 1, every QSFP twin NO-CARRIER."""
    text = "".join(f"{n}: {name}: <NO-CARRIER,BROADCAST,MULTICAST,UP> mtu 1500 qdisc mq state DOWN group default qlen "
                   f"1000\n    link/ether 4c:bb:47:00:01:3{n} brd ff:ff:ff:ff:ff:ff\n"
                   for n, name in enumerate(("enp1s0f0np0", "enp1s0f1np1", "enP2p1s0f0np0", "enP2p1s0f1np1"), 3))
    [alone] = explain(text, host="spark", nodes=1)
    assert "fail" not in levels(alone) and "used on its own" in messages(alone, "info")
    [pair] = explain(text, host="spark", nodes=2)
    assert "No QSFP interface is UP" in messages(pair, "fail")


# blind batch zo002 (aikitoria/open-gpu-kernel-modules#9): two RTX 5090 on the P2P-patched driver, BAR1 not assigned
P2P_SLOWER = """Unidirectional P2P=Disabled Bandwidth Matrix (GB/s)
   D\\D     0      1
     0 1528.91  42.47
     1  42.54 1553.23
Unidirectional P2P=Enabled Bandwidth (P2P Writes) Matrix (GB/s)
   D\\D     0      1
     0 1519.99  12.19
     1   2.01 1547.03
P2P=Disabled Latency Matrix (us)
   GPU     0      1
     0   2.07  14.44
     1  14.37   2.07
P2P=Enabled Latency (P2P Writes) Matrix (us)
   GPU     0      1
     0   2.07   0.36
     1   0.37   2.07
"""


def test_p2p_far_slower_than_copies_through_host_memory_is_a_broken_path_not_a_capped_link():
    [s] = explain(P2P_SLOWER)
    assert "the peer path is broken" in messages(s, "fail") and "keep it on" not in messages(s)
    # P2P as fast as the host path (0.5x of it and above): the link caps both, P2P works
    capped = P2P_SLOWER.replace("12.19", "40.10").replace("  2.01", " 40.02")
    assert "keep it on" in messages(explain(capped)[0], "warn")


def test_llama_bench_of_early_2024_names_its_tests_with_a_space():
    """blind batch zo007 (ggml-org/llama.cpp#4766): `pp 512` and `tg 128` in the test column, no `fa` column."""
    from grader.parsers.llama_bench import parse_llama_bench
    table = ("| model                          |       size |     params | backend    | ngl | test       |              t/s |\n"
             "| ------------------------------ | ---------: | ---------: | ---------- | --: | ---------- | ---------------: |\n"
             "| llama 7B F16                   |  12.55 GiB |     6.74 B | CUDA       |  99 | pp 512     | 11048.22 ± 269.74 |\n"
             "| llama 7B F16                   |  12.55 GiB |     6.74 B | CUDA       |  99 | tg 128     |     61.03 ± 0.07 |\n")
    assert [(r.test, r.tps) for r in parse_llama_bench(table).rows] == [("pp512", 11048.22), ("tg128", 61.03)]


def test_a_test_runners_report_on_a_program_is_not_its_command_line():
    """blind batch zo011 (NVIDIA/cuda-samples#390): `simpleP2P : Failed (code 1)` in run_tests.py's summary is a
    result, read as the P2P sample's failure, not a command whose output follows."""
    sections = explain("Failed runs (2):\n  simpleP2P : Failed (code 1)\n  simpleCUFFT_MGPU : Failed (code 1)\n")
    assert all(s.command is None for s in sections)
    assert "reports simpleP2P: Failed" in "\n".join(messages(s, "fail") for s in sections)


def test_a_quoted_header_and_a_diffs_added_lines_lose_their_marks():
    """blind batches zn018 (Mellanox/k8s-rdma-sriov-dev-plugin#32: perftest's header quoted with `> `, its results
    plain) and zo018 (a llama-bench table pasted into a pull request, each line a diff's `+`)."""
    from grader.parsers.common import clean_lines
    quoted = ["> RDMA_Write BW Test", ">  Dual-port       : OFF", ">  Link type       : Ethernet",
              "---------------------", " GID: 00:00:00:00"]
    assert clean_lines("\n".join(quoted)) == ["RDMA_Write BW Test", " Dual-port       : OFF",
                                              " Link type       : Ethernet", "---------------------", " GID: 00:00:00:00"]
    # two quoted lines among plain ones (a bash continuation, a redirection) stay as they are
    two = ["$ cat <<EOF > f", "> a", "> b", "EOF"]
    assert clean_lines("\n".join(two)) == two
    diff = ["+| model | size |", "+| ----- | ---: |", "+", "+build: e2d67422c (8796)"]
    assert clean_lines("\n".join(diff)) == ["| model | size |", "| ----- | ---: |", "", "build: e2d67422c (8796)"]
    border = ["+-----------------------------------------+", "+=========================================+"]
    assert clean_lines("\n".join(border)) == border  # nvidia-smi's borders: no diff


# blind batch zo008 (vllm-project/vllm#20469): one A100, one request at a time, 16,000-token prompts
LONG_PROMPTS = """$ python3 benchmark_serving.py --backend vllm --dataset-name random --max-concurrency 1 --num-prompts 30 --random-input-len 16000 --random-output-len 200
============ Serving Benchmark Result ============
Successful requests:                     30
Benchmark duration (s):                  223.53
Total input tokens:                      480000
Total generated tokens:                  6000
Request throughput (req/s):              0.13
Output token throughput (tok/s):         26.84
Total Token throughput (tok/s):          2174.16
---------------Time to First Token----------------
Mean TTFT (ms):                          3345.37
Median TTFT (ms):                        3452.00
P99 TTFT (ms):                           3696.97
-----Time per Output Token (excl. 1st token)------
Mean TPOT (ms):                          20.63
"""


def test_a_long_prompts_ttft_at_one_request_is_its_prefill():
    [s] = explain(LONG_PROMPTS, nodes=1)
    assert "prefill of each prompt of ~16,000 tokens" in messages(s, "info")
    assert "about 4,635 prompt tokens/s" in messages(s, "info")  # 16,000 / 3.452 s
    busy = LONG_PROMPTS.replace("--max-concurrency 1", "--max-concurrency 8")  # TTFT then holds queueing too
    assert "prefill of each" not in messages(explain(busy, nodes=1)[0])


# pending zl012 (vllm-project/vllm#14093): two `docker run -d` of Ray nodes pasted without their output
HEAD_RUN = """Head:
```
docker run -d --rm \\
\t--entrypoint /bin/bash \\
\t--network host \\
\t--name headnode \\
\t-e VLLM_HOST_IP=0.0.0.0 \\
\tvllm/vllm-openai:v0.7.3     -c "ray start --block --head --port=6379 --node-ip-address=0.0.0.0"
```
"""


def test_a_docker_run_pasted_without_its_output_has_its_options_read():
    [s] = explain(HEAD_RUN, nodes=1)
    assert s.kind == "docker-run" and not s.error and "Only the command is in the paste" in messages(s, "info")
    said = messages(s, "fail")
    assert "`-e VLLM_HOST_IP=0.0.0.0`, `ray start --node-ip-address=0.0.0.0`" in said and "dial themselves" in said
    # words under it are not its output: still read
    assert HEAD_RUN.endswith("```\n")
    [w] = explain(HEAD_RUN[:-4] + "Ray starts on both successfully.\n", nodes=1)  # (no closing fence)
    assert not w.error and "dial themselves" in messages(w, "fail")
    # a node's own address: nothing to say
    own = HEAD_RUN.replace("VLLM_HOST_IP=0.0.0.0", "VLLM_HOST_IP=192.168.100.10").replace(
        "--node-ip-address=0.0.0.0", "--node-ip-address=192.168.100.10")
    assert "fail" not in levels(explain(own, nodes=1)[0])


# pending zm012 (jethac/dgx-spark-llm-bench): SGLang on a GB10 with mem_fraction_static 0.2 (its lines; server_args cut)
SGLANG = """[2026-06-07 11:57:01] Failed to get GPU memory capacity from nvidia-smi. Falling back to torch.cuda.mem_get_info(). Reported total GPU memory per device (MiB): [122501], using min: 122501 MiB.
[2026-06-07 11:57:02] server_args=ServerArgs(model_path='Qwen/Qwen2.5-1.5B-Instruct', tokenizer_path='Qwen/Qwen2.5-1.5B-Instruct', mem_fraction_static=0.2, tp_size=1, context_length=None)
[2026-06-07 11:57:08] Init torch distributed begin.
W0607 11:57:05.236000 184 torch/utils/_pytree.py:630] <enum 'KernelPreference'> is an Enum subclass and is now natively supported by torch.compile as an opaque value type.
[2026-06-07 11:57:10] Load weight begin. avail mem=16.48 GB
[2026-06-07 11:57:43] Load weight end. elapsed=33.49 s, type=Qwen2ForCausalLM, avail mem=13.46 GB, mem usage=3.01 GB.
[2026-06-07 11:57:43] KV Cache is allocated. #tokens: 6827, K size: 0.09 GB, V size: 0.09 GB
  0%|          | 0/36 [00:00<?, ?it/s]Capturing batches (bs=256 avail_mem=11.99 GB):   0%|          | 0/36 [00:00<?, ?it/s]
[2026-06-07 11:58:16] max_total_num_tokens=6827, chunked_prefill_size=8192, max_prefill_tokens=16384, max_running_requests=2048, context_len=32768, available_gpu_mem=8.34 GB
[2026-06-07 11:58:16] INFO:     Application startup complete.
"""


def test_an_sglang_log_is_read_for_its_memory_and_kv_pool():
    from grader.parsers.sglang_log import parse_sglang_log
    log = parse_sglang_log(SGLANG)
    assert (log.total_mib, log.free_at_load_gib, log.weights_gib, log.kv_tokens, log.context_len, log.ready) == (
        122501, 16.48, 3.01, 6827, 32768, True)
    assert dict(log.args) == {"model_path": "Qwen/Qwen2.5-1.5B-Instruct", "mem_fraction_static": "0.2", "tp_size": "1",
                              "context_length": "None"}
    [s] = explain(SGLANG, host="spark")
    assert s.kind == "sglang-log"
    warned = messages(s, "warn")
    assert "Only 16.48 of 119.6 GiB were free" in warned  # 122,501 MiB / 1024
    assert "holds 6,827 tokens, fewer than one request of the 32,768-token context" in warned and "0.2 here" in warned
    assert "came up" in messages(s, "ok")
    roomy = SGLANG.replace("avail mem=16.48 GB", "avail mem=118.2 GB").replace("max_total_num_tokens=6827",
                                                                             "max_total_num_tokens=400000")
    [r] = explain(roomy, host="spark")
    assert "warn" not in levels(r) and "12.2 requests of the full 32,768-token context" in messages(r, "ok")


# blind batch zn005 (microsoft/mscclpp#431): two ConnectX-6 Dx RoCE ports, Active, each Port GUID all zeros
ZERO_GUID = """CA 'mlx5_0'
\tCA type: MT4125
\tNumber of ports: 1
\tFirmware version: 22.38.1900
\tPort 1:
\t\tState: Active
\t\tPhysical state: LinkUp
\t\tRate: 100
\t\tPort GUID: 0x0000000000000000
\t\tLink layer: Ethernet
"""


def test_a_roce_port_whose_guid_is_zero_has_an_empty_gid_0():
    [s] = explain(ZERO_GUID, host="other")
    assert "mlx5_0 port 1: Port GUID 0x0000000000000000" in messages(s, "warn") and "GID index 0 is empty" in \
        messages(s, "warn")
    named = ZERO_GUID.replace("0x0000000000000000", "0x946dae0300a1b2c3")  # a GUID: its GID 0 is there
    assert "warn" not in levels(explain(named, host="other")[0])
    ib = ZERO_GUID.replace("Link layer: Ethernet", "Link layer: InfiniBand")  # (an IB port's GUID is another matter)
    assert "GID index 0 is empty" not in messages(explain(ib, host="other")[0])


# blind batch zp008 (eugr/spark-vllm-docker#197): llama-benchy run through uvx against two Sparks, its newer columns
BENCHY = """uvx llama-benchy --base-url http://10.12.0.50:8000/v1 --model cyankiwi/MiniMax-M2.7-AWQ-4bit --depth 0 4096

| model                          |            test |              t/s |     peak t/s |        ttfr (ms) |     est_ppt (ms) |    e2e_ttft (ms) |
|:-------------------------------|----------------:|-----------------:|-------------:|-----------------:|-----------------:|-----------------:|
| cyankiwi/MiniMax-M2.7-AWQ-4bit |          pp2048 | 2384.44 ± 429.26 |              |  892.13 ± 165.64 |  888.49 ± 165.64 |  892.24 ± 165.65 |
| cyankiwi/MiniMax-M2.7-AWQ-4bit |            tg32 |     39.07 ± 1.45 | 40.34 ± 1.49 |                  |                  |                  |
"""


def test_llama_benchy_run_through_uvx_or_pasted_without_its_command():
    [s] = explain(BENCHY, host="spark", nodes=2)
    assert s.kind == "llama-bench" and s.command.startswith("uvx llama-benchy")
    assert "cyankiwi/MiniMax-M2.7-AWQ-4bit: tg32 39.07 ± 1.45 tok/s" in messages(s, "ok")  # no `(?, ?)`
    [t] = explain(BENCHY.split("\n", 2)[2], host="spark", nodes=2)  # the table alone
    assert t.kind == "llama-bench" and "pp2048 2384.44" in messages(t, "ok")


def test_a_ray_worker_logs_header_is_not_an_output():
    """blind batch zp015 (vllm-project/vllm#15744): a Ray Serve replica's log opens with `:job_id:` and
    `:actor_name:` lines; its c10d line is read (a rank that could not reach the rendezvous store)."""
    from tests.test_field_faults import C10D_CONNECT
    [s] = explain(":job_id:02000000\n:actor_name:ServeReplica:DS-R1:vllmDeployment\n" + C10D_CONNECT)
    assert not s.error and "could not connect to the rendezvous store" in messages(s, "fail")


def test_an_nccl_error_chain_is_named_and_socket_advice_off_a_spark_is_general():
    """blind batch zq018 (NVIDIA/nccl#697): a DGX A100's channels over eight socket interfaces, then `-> 2` lines; no
    --host, and nothing in the log names a Spark: no Spark twins in the advice, and no "no error in these lines"."""
    log = ("dgxa100:1050:1315 [0] NCCL INFO NET/Socket : Using [0]enp226s0:10.1.0.5<0> [1]enp225s0:10.2.0.5<0>\n"
           "dgxa100:1050:1315 [0] NCCL INFO Using network Socket\n"
           "dgxa100:1050:1315 [0] NCCL INFO Channel 00/0 : 0[90000] -> 1[1000] [send] via NET/Socket/0\n"
           "dgxa100:1050:1316 [0] NCCL INFO include/net.h:25 -> 2\n"
           "dgxa100:1050:1316 [0] NCCL INFO transport/net.cc:515 -> 2\n")
    [s] = explain(log)
    said = messages(s)
    assert "rocep1s0f1" not in said and "No error in these lines" not in said
    assert "include/net.h:25 returned 2, system error" in messages(s, "fail")
    up = log + "dgxa100:1050:1315 [0] NCCL INFO comm 0x1 rank 0 nranks 2 cudaDev 0 busId 90000 - Init COMPLETE\n"
    assert "returned 2" not in messages(explain(up)[0])  # the run went on: the chain was one it recovered from


def test_a_net_plugin_without_a_supported_api_is_ignored_by_nccl():
    """blind batch zq016 (NVIDIA/nccl#1292)."""
    log = (" NCCL INFO NET/Plugin: Failed to find ncclNetPlugin_v8 symbol.\n NCCL INFO NET/Plugin: Failed to find "
           "ncclNetPlugin symbol (>= v5). ncclNetPlugin symbols v4 and lower are not supported.\n"
           " NCCL INFO NET/IB : Using [0]mlx5_0:1/IB ; OOB ib0:10.0.0.1<0>\n")
    [s] = explain(log)
    assert "without a plugin API it supports" in messages(s, "info")


# blind batch zq004 (NVIDIA/nccl#1514's neighbour in the batch: HPC-X's IBext plugin, merged NICs, one GPU a node)
MERGED = """bigo:1884:2298 [0] NCCL INFO P2P plugin IBext_v8
bigo:1884:2298 [0] NCCL INFO NET/IB : Using [0]={[0] mlx5_2:1/RoCE, [1] mlx5_3:1/RoCE} [1]={[2] mlx5_0:1/RoCE, [3] mlx5_1:1/RoCE} [RO]; OOB bond0.526:203.0.113.9<0>
bigo:1884:2298 [0] NCCL INFO Using network IBext_v8
bigo:1884:2298 [0] NCCL INFO NCCL_P2P_LEVEL set by environment to LOC
bigo:1884:2298 [0] NCCL INFO comm 0x564531f27c80 rank 2 nRanks 3 nNodes 3 localRanks 1 localRank 0 MNNVL 0
bigo:1884:2298 [0] NCCL INFO Channel 00/0 : 1[0] -> 2[0] [receive] via NET/IBext_v8/1
"""


def test_merged_nics_are_listed_and_p2p_off_with_one_gpu_a_node_is_no_warning():
    from grader.parsers.nccl_log import parse_nccl_log
    assert [h.device for h in parse_nccl_log(MERGED).ib_devices] == ["mlx5_2", "mlx5_3", "mlx5_0", "mlx5_1"]
    [s] = explain(MERGED, host="other")
    assert "over mlx5_2:1/RoCE, mlx5_3:1/RoCE, mlx5_0:1/RoCE, mlx5_1:1/RoCE" in messages(s, "ok")
    assert "its IB transport as IBext_v8" in messages(s, "info")
    assert "P2P between GPUs is off" not in messages(s)  # three ranks on three nodes: no two GPUs share a machine
    two = MERGED.replace("nRanks 3 nNodes 3 localRanks 1", "nRanks 6 nNodes 3 localRanks 2")
    assert "P2P between GPUs is off" in messages(explain(two, host="other")[0], "info")  # a setting (wi003): a note


def test_nvls_channels_say_nvlink_sharp():
    """blind batch zq005 (vLLM on four H100s of an HGX board): `16 nvls channels` is NVLink SHARP in use."""
    log = ("h100-2:146:167 [0] NCCL INFO 24 coll channels, 0 collnet channels, 16 nvls channels, 32 p2p channels, 32 "
           "p2p channels per peer\n")
    [s] = explain(log)
    assert "16 NVLS channels (NVLink SHARP)" in messages(s, "info")
    assert "NVLS channels" not in messages(explain(log.replace("16 nvls", "0 nvls"))[0])


def test_an_nccl_error_off_a_spark_gets_advice_without_qsfp_twins():
    """blind batch zp012: vLLM's workers on servers `explain --host other` says are not Sparks; blind batch zi015
    (Megatron's `unhandled system error` on other servers). The catalogue words its advice for a Spark pair unless
    the host is said to be another (`on_spark`), in every entry that names the QSFP link, a twin or its address."""
    text = ("(EngineCore_DP0 pid=5) (RayWorkerWrapper pid=77, ip=10.0.0.11) ERROR 11-29 14:03:00 "
            "[worker.py:1] RuntimeError: NCCL error: unhandled system error\n")
    other = messages(explain(text, host="other")[0], "fail")
    assert "QSFP" not in other and "ibdev2netdev" not in other and "rdma link" in other
    assert "QSFP twins" in messages(explain(text, host="spark")[0], "fail")
    system = ("torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:"
              "1691, unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.19.3\n")
    other = messages(explain(system, host="other")[0], "fail")
    assert "Between two Sparks" not in other and "It is most often NCCL_IB_GID_INDEX" in other and "QSFP" not in other
    for host in ("spark", None):
        said = messages(explain(system, host=host)[0], "fail")
        assert "QSFP twins" in said and "Between two Sparks it is most often" in said
    pg = PG_WAIT.replace("{'node:192.168.100.10': 0.001, 'GPU': 1.0}", "{'GPU': 1.0}")
    assert "the node's QSFP address" in messages(explain(pg)[0], "warn")
    other = messages(explain(pg, host="other")[0], "warn")
    assert "QSFP" not in other and "make VLLM_HOST_IP and `--node-ip-address` the node's address" in other


def test_the_break_it_review_of_session_33():
    """helper-66's reproducers (/tmp/breakit11), each as a short sample: rules of this session that said too much."""
    # hosts that bootstrap over two link-local IPoIB interfaces and connect after all: nothing wrong with bootstrap
    came_up = TWO_BOOTSTRAPS.replace("bond0:X.X.X.X", "ibp12s0:fe80::b859:9f03:a1:5d11%ibp12s0<0>") + (
        "gh1:180172:180172 [0] NCCL INFO comm 0x55 rank 0 nranks 2 cudaDev 0 busId 1000 - Init COMPLETE\n")
    assert "bootstrap over" not in messages(explain(came_up)[0])
    # a Docker bridge's address on one host is no network the other shares: a warning, not "that works"
    bridge = TWO_BOOTSTRAPS.replace("ib0:fe80::a288:c203:d2:1a2b%ib0<0>", "docker0:172.17.0.1<0>").replace(
        "bond0:X.X.X.X", "eth0:10.0.0.12<0>")
    assert "gh1's docker0 is a container bridge" in messages(explain(bridge)[0], "warn")
    # a link-local socket interface beside an NCCL WARN of its own: the WARN is the cause, the address a warning
    oom = LINK_LOCAL + "NvYt-a:3795:3795 [0] NCCL WARN Cuda failure 'out of memory'\n"
    assert "would explain it" not in messages(explain(oom, nodes=2)[0])
    # a topology whose NIC legend is cut names NIC0: no name to compare with another host's
    cut = TWO_PODS.replace("mlx5_0\tmlx5_1\tmlx5_2", "NIC0\tNIC1\tNIC2", 1).replace("mlx5_0\tSYS", "NIC0\tSYS").replace(
        "mlx5_1\tSYS", "NIC1\tSYS").replace("mlx5_2\tNODE", "NIC2\tNODE")
    assert not any("different NICs" in messages(s) for s in explain(cut))
    # the samples' runner's code 2 is a sample that did not run (waived: fewer than two GPUs), no P2P failure
    assert "P2P does not work" not in "\n".join(messages(s) for s in explain("  simpleP2P : Failed (code 2)\n"))
    # short prompts: a TTFT of seconds is a stall, not prefill
    short = LONG_PROMPTS.replace("480000", "3840").replace("--random-input-len 16000", "--random-input-len 128")
    assert "prefill of each" not in messages(explain(short, nodes=1)[0])
    # one vLLM server in a container on one machine, no Ray: 0.0.0.0 is handed to no one
    alone = ("$ docker run -d --gpus all -e VLLM_HOST_IP=0.0.0.0 -p 8000:8000 vllm/vllm-openai --model m\n"
             "8c1f2e4d5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d\n")
    assert "fail" not in levels(explain(alone, nodes=1)[0])
    # NCCL's lines inside an SGLang log are read as NCCL's: sockets over a Spark's management port fail
    sglang = ("[2025-11-02 10:01:20 TP0] Init torch distributed begin.\n"
              "spark-a:2211:2211 [0] NCCL INFO NET/Socket : Using [0]enP7s7:10.0.0.21<0>\n"
              "spark-a:2211:2211 [0] NCCL INFO Using network Socket\n"
              "spark-a:2211:2290 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [send] via NET/Socket/0\n"
              "[2025-11-02 10:01:40 TP0] Load weight begin. avail mem=110.2 GB\n")
    found = {s.kind: s for s in explain(sglang, host="spark", nodes=2)}
    assert "sglang-log" in found and "enP7s7, the 10 GbE management port" in messages(found["nccl-log"], "fail")


def test_a_stream_of_corrected_pcie_errors_is_a_warning_and_one_is_nothing():
    """blind batch zs005 (pop-os/pop#3363), behind journalctl's `Mon DD hh:mm:ss host kernel:` prefix."""
    from tests.test_field_faults import AER_CORRECTED
    [s] = explain(AER_CORRECTED)
    assert "logged 3 corrected errors" in messages(s, "warn")
    one = AER_CORRECTED.split("\n")[0] + "\n"
    assert not any("corrected errors" in messages(x) for x in explain(one))


# blind batch zr008 (NVIDIA/TensorRT-LLM#9263): trtllm-bench's report of DeepSeek-R1 NVFP4 on TP4/EP4 (lines kept)
TRTLLM_BENCH = """===========================================================
= PYTORCH BACKEND
===========================================================
Model:   deepseek-ai/DeepSeek-R1
TensorRT-LLM Version: 1.1.0rc1
Quantization:  NVFP4

===========================================================
= REQUEST DETAILS
===========================================================
Number of requests:             6144
Number of concurrent requests:  1018.8281
Average Input Length (tokens):  1024.0000
Average Output Length (tokens): 1024.0000
===========================================================
= WORLD + RUNTIME INFORMATION
===========================================================
TP Size:                4
PP Size:                1
EP Size:                4
Issue Rate (req/sec):   1.1684E+17

===========================================================
= PERFORMANCE OVERVIEW
===========================================================
Request Throughput (req/sec):                     7.3411
Total Output Throughput (tokens/sec):             7517.2584
"""


def test_trtllm_bench_report_is_read():
    [s] = explain(TRTLLM_BENCH)
    assert not s.error
    assert "trtllm-bench: deepseek-ai/DeepSeek-R1, TensorRT-LLM 1.1.0rc1, pytorch backend, TP 4 x PP 1 x EP 4" in \
        messages(s, "info")
    said = messages(s, "ok")
    assert "Output 7,517.3 tok/s" in said and "= 7,517 tok/s: the report's output rate" in said  # 7.3411 x 1024
    cut = TRTLLM_BENCH.split("===========================================================\n= PERFORMANCE")[0]
    assert "stops before the PERFORMANCE OVERVIEW" in messages(explain(cut)[0], "info")


def test_an_ibv_devinfo_gid_table_of_v1_entries_only_is_cut_not_missing_v2():
    """blind batch zt006 (a confident-wrong first read): `ibv_devinfo -v` cut after GID[0], a RoCE v1 entry."""
    port = ("                port:   1\n                        state:                  PORT_ACTIVE (4)\n"
            "                        active_mtu:             4096 (5)\n"
            "                        link_layer:             Ethernet\n"
            "                        GID[  0]:               fe80:0000:0000:0000:bace:f6ff:fe27:49cb, RoCE v1\n")
    [s] = explain(port, host="other")
    assert "fail" not in levels(s) and "no RoCE v2 GID among the 1 shown" in messages(s, "info")


def test_free_of_an_old_procps_with_a_total_of_zero_answers():
    """The fresh clone's fuzzing (hypothesis) found it: `free` without an available column whose total reads 0 divided
    by it (ZeroDivisionError)."""
    text = ("$ free -h\n             total       used       free     shared    buffers     cached\n"
            "Mem:            0        27G       3.6G        13G       228M        15G\n"
            "-/+ buffers/cache:        11G        19G\nSwap:           0B         0B         0B\n")
    [s] = explain(text)
    assert not s.error and "grader bug" not in messages(s)
