"""Blind batches wl, wm and wn (issue 27, session 39e): error lines of UCX (Open MPI's and NIXL's RDMA transport), the
NVIDIA driver, an OpenAI-compatible server's answers and a script's parsing that explain could not read, each on the
real output of the pending corpus entry (its URL in the docstring) and on a neighbour it must stay silent on."""

from __future__ import annotations

from pathlib import Path

from grader.diagnoses import diagnose_text
from grader.explain import explain

PENDING = Path(__file__).resolve().parent / "fixtures" / "field" / "pending"


def _read(prefix: str) -> str:
    [path] = PENDING.glob(f"{prefix}_*.txt")
    return path.read_text()


def _findings(text: str, **context) -> list[tuple[str, str]]:
    return [(f.level, f.message) for s in explain(text, **context) for f in s.findings]


def _kinds(text: str) -> list[str]:
    return [d.kind for d in diagnose_text(text)]


def test_a_roce_address_handle_that_timed_out_names_the_peer_and_the_port():
    """https://github.com/openucx/ucx/issues/9970: ibv_create_ah(dgid=::ffff:172.16.0.2 ...) on mlx5_1 failed:
    Connection timed out, then MPI_Init aborts: the peer's IP is not reachable from mlx5_1's interface."""
    said = _findings(_read("wl001"), host="other", nodes=2)
    [msg] = [m for lvl, m in said if lvl == "fail"]
    assert "address handle" in msg and "172.16.0.2" in msg and "mlx5_1" in msg and "ARP" in msg
    assert "UCX_NET_DEVICES" in msg and "gid index" not in msg.lower()


def test_a_link_local_gid_stays_the_link_local_reading():
    """The same UCX line with a fe80 destination GID (ai-dynamo/dynamo#814) is the link-local entry's, not this one."""
    fe80 = ("[1745499308.854013] [9fd0c21b0f7c:760  :0]       ib_device.c:1332 UCX  ERROR   ibv_create_ah(dlid=49152 "
            "sl=0 port=1 src_path_bits=0 dgid=fe80::0a1b:2cff:fe3d:4e5f flow_label=0xffffffff sgid_index=0 "
            "traffic_class=0) for UD mlx5 connect on mlx5_0 failed: Connection timed out\n")
    assert _kinds(fe80) == ["ucx-link-local-gid"]


def test_transport_retry_exceeded_names_the_remote_lid_and_dc():
    """https://github.com/openucx/ucx/issues/5199: every rank's first DC send to rlid 703 ran out of retries."""
    said = _findings(_read("wl011"), host="other", nodes=2)
    [msg] = [m for lvl, m in said if lvl == "fail"]
    assert "LID 703" in msg and "DCI" in msg and "UCX_TLS=rc" in msg and "gpu" not in msg.lower()
    # a RoCE port's line with no work-request line after it: no LID, no DC said
    [d] = diagnose_text("[1745700389.902821] [h:6274 :0]     ib_mlx5_log.c:179  UCX  ERROR Transport retry count "
                        "exceeded on mlx5_0:1/RoCE (synd 0x15 vend 0x81 hw_synd 0/0)\n")
    assert d.kind == "ucx-retry-exceeded" and "LID" not in d.message.split("Fix:")[0].split("(InfiniBand)")[0] \
        and "DCI" not in d.message and "(RoCE)" in d.message


def test_erdma_refusing_a_ud_qp_is_the_cause_of_the_segfault_after_it():
    """https://github.com/ai-dynamo/dynamo/issues/285: erdma_0 cannot create a UD QP, then NIXL segfaults."""
    said = _findings(_read("wm001"), host="other", nodes=1)
    text = " ".join(m for _, m in said)
    assert "Alibaba" in text and "UD (unreliable datagram)" in text and "Segmentation fault" in text
    mlx = "[1] [h:1:0] ib_iface.c:1182 UCX  ERROR mlx5_0: iface 0x1 failed to create UD QP TX wr:256 failed: "
    [d] = diagnose_text(mlx + "Invalid argument\n")
    assert d.kind == "ucx-ud-qp-refused" and "erdma" not in d.message and "Alibaba" not in d.message
    assert "ucx-ud-qp-refused" not in _kinds(mlx + "Cannot allocate memory\n")  # resources (memlock), not support


def test_network_unreachable_from_ucx_is_an_interface_choice_not_a_firewall():
    """https://github.com/ai-dynamo/dynamo/issues/813: UCX's connect to the decode node: Network is unreachable."""
    said = _findings(_read("wm009"), host="other", nodes=2)
    text = " ".join(m for _, m in said)
    assert "Network is unreachable" in text and "UCX_NET_DEVICES" in text and "ip route get 10.25.117.11" in text
    assert "firewall" not in text.lower()
    # a refused connection stays the MPI entry's (a port nobody listens on, not a route)
    refused = ("[1] [h:1:0] sock.c:334  UCX  ERROR   connect(fd=20, dest_addr=172.17.0.1:4000) failed: "
               "Connection refused\n")
    assert "ucx-connect-no-route" not in _kinds(refused)


def test_an_fsp_timeout_asks_for_a_gpu_reset():
    """https://github.com/lilvllm/lilvllm/issues/237: NVRM FSP timeout, then `Reset required`: reset the GPU."""
    said = _findings(_read("wm008"), host="other", nodes=1)
    [msg] = [m for lvl, m in said if lvl == "fail"]
    assert "reset" in msg and "FSP" in msg and "nccl" not in msg.lower()
    no_memory = ("NVRM: nvCheckOkFailedNoLog: Check failed: Out of memory [NV_ERR_NO_MEMORY] (0x00000051) returned "
                 "from _memdescAllocInternal(pMemDesc) @ mem_desc.c:1359\n")
    assert "nvrm-reset-required" not in _kinds(no_memory)


def test_nccl_refusing_graph_capture_names_its_build():
    """https://github.com/vllm-project/vllm/issues/3069: NCCL 2.19.3+cuda11.0 under CUDA 11.6, TP 2 fails."""
    said = _findings(_read("wm003"), host="other", nodes=1)
    [msg] = [m for lvl, m in said if lvl == "fail"]
    assert "CUDA graph" in msg and "11.3" in msg and "--enforce-eager" in msg


def test_http_503_answers_are_failed_requests():
    """https://github.com/gpustack/gpustack/issues/1677: 512 concurrent requests, `HTTP/1.1 503 Service Unavailable`."""
    said = _findings(_read("wm015"), host="other", nodes=1)
    [msg] = [m for lvl, m in said if lvl == "fail"]
    assert "503" in msg and "failed" in msg and "connection refused" not in msg.lower()
    ok = ('2025-04-09 12:04:36,150 - INFO - HTTP Request: POST http://192.168.50.13/v1/chat/completions "HTTP/1.1 200 '
          'OK"\n(APIServer pid=1) INFO:     10.0.0.2:5000 - "GET /health HTTP/1.1" 503 Service Unavailable\n')
    assert "http-503-from-server" not in _kinds(ok)  # a 200, and a health probe's 503 (no inference request)


def test_a_request_for_a_model_not_served_is_the_clients_not_the_servers():
    """tomdoerr/llm on two Sparks (pending wn005): the server is up; clients ask for another recipe's model: 404."""
    said = _findings(_read("wn005"), host="spark", nodes=2)
    [msg] = [m for lvl, m in said if lvl == "warn" and "does not serve" in m]
    assert "Intel/Qwen3.5-122B-A10B-int4-AutoRound" in msg and "404" in msg and "--served-model-name" in msg
    assert not [m for lvl, m in said if lvl == "fail"]


def test_a_script_choking_on_na_is_the_scripts_bug():
    """https://github.com/NVIDIA/daqiri/issues/28: tune_system.py on a Spark: int() of nvidia-smi's `[N/A]`."""
    said = _findings(_read("wl010"), host="spark", nodes=1)
    assert [lvl for lvl, _ in said] == ["info"] and "[N/A]" in said[0][1] and "script" in said[0][1]
    assert "script-parse-na-field" not in _kinds("ValueError: invalid literal for int() with base 10: 'abc'\n")


def test_several_nics_all_on_one_socket_is_a_warning_for_the_other_sockets_gpus():
    """https://github.com/NVIDIA/nccl/issues/634: 4 NV4 GPUs, all four HCAs NODE to GPU0/GPU1 (NUMA 0), SYS to
    GPU2/GPU3 (NUMA 1). One NIC (kubernetes#53497, an mlx4_0 PHB to half the GPUs) cannot sit on both sockets, and two
    NICs near GPUs of two NUMA nodes (nccl#595) are spread already: both stay info."""
    said = _findings(_read("wl005"), host="other", nodes=1)
    [msg] = [m for lvl, m in said if lvl == "warn"]
    assert "All 4 NICs sit on one CPU socket" in msg and "GPU2, GPU3 (NUMA node 1)" in msg and "GDR" in msg
    for neighbour in ("xk007", "xk008"):
        assert not [m for lvl, m in _findings(_read(neighbour), host="other", nodes=1) if lvl in ("warn", "fail")
                    and "socket" in m], neighbour


def test_a_ring_that_does_not_loop_back_is_ranks_that_disagree():
    """https://github.com/NVIDIA/nccl/issues/577: `ring 0 does not loop back to start (48 != 52)`, internal error: the
    ranks built different rings (versions, NCCL_* settings or topology differ), not a timeout or memory."""
    said = _findings(_read("wl008"), host="other", nodes=7)
    [msg] = [m for lvl, m in said if "loop back" in m]
    assert "did not build the same ring" in msg and "disagree" in msg and "timeout" not in msg.lower()
    # NVIDIA/nccl#520 (an AWS p4d host, pending we003): the same check, said the same way, no timeout named
    text = " ".join(m for _, m in _findings(_read("we003"), host="other"))
    assert "did not build the same ring" in text and "timeout" not in text.lower()


def test_open_mpi_dialling_docker0_is_an_interface_choice():
    """https://github.com/horovod/horovod/issues/310: btl tcp `connect() to 172.17.0.1 failed: Connection refused`."""
    said = _findings(_read("wl012"), host="other", nodes=2)
    [msg] = [m for lvl, m in said if lvl == "fail"]
    assert "docker0" in msg and "btl_tcp_if_exclude" in msg and "infiniband" not in msg.lower()
    [d] = diagnose_text("[h][[1,1],2][btl_tcp_endpoint.c:796:mca_btl_tcp_endpoint_complete_connect] connect() to "
                        "10.0.0.7 failed: No route to host (113)\n")
    assert "10.0.0.7: No route to host" in d.message and "Docker" not in d.message.split("Fix:")[0]


def test_vllm_quotes_ncclerror_s_message_not_the_source_line_that_raises_it():
    """https://github.com/vllm-project/vllm/issues/8691: the traceback's `raise RuntimeError(f"NCCL error: {error_str}")`
    comes before the error itself (`NCCL error: internal error - please report ...`): the finding quotes the error."""
    said = _findings(_read("wm005"), host="other", nodes=1)
    [msg] = [m for lvl, m in said if lvl == "fail"]
    assert "internal error" in msg and "{error_str}" not in msg


def test_no_sgl_kernel_build_names_the_capability_and_the_abi():
    """https://github.com/sgl-project/sglang/issues/29317: a GB10 (capability 121): no sm121 build of sgl_kernel's
    common_ops, and the sm100 one an undefined symbol against the installed PyTorch."""
    said = _findings(_read("wm013"), host="spark", nodes=1)
    [msg] = [m for lvl, m in said if lvl == "fail"]
    assert "sm_121" in msg and "undefined symbol" in msg and "PyTorch" in msg and "nccl" not in msg.lower()
    [d] = diagnose_text("ImportError: [sgl_kernel] CRITICAL: Could not load any common_ops library!\n")
    assert "sm_" not in d.message.split("Fix:")[0] and "undefined" not in d.message  # only what the lines say


def test_no_network_plugin_is_informational():
    """https://github.com/NVIDIA/nccl/issues/333: `NET/Plugin : No plugin found (libnccl-net.so)`, bolded by its
    reporter, is NCCL using its built-in IB transport over hfi1 (Omni-Path): info, not an error."""
    said = _findings(_read("wl007"), host="other", nodes=2)
    [msg] = [m for _, m in said if "plugin" in m]
    assert "built-in" in msg and "not an error" in msg and max(lvl for lvl, _ in said) in ("info", "ok")


def test_trtllm_benchmark_tokens_per_sec_is_end_to_end():
    """https://github.com/NVIDIA/TensorRT-LLM/issues/1410: `tokens_per_sec 43.09` of benchmark.py is output tokens over
    the whole latency (prefill included); gptSessionBenchmark's line (pending zr014) gives the generation rate too."""
    said = _findings(_read("wm012"), host="other", nodes=1)
    assert [lvl for lvl, _ in said] == ["info"] and "end-to-end" in said[0][1] and "generation" in said[0][1]
    cpp = " ".join(m for _, m in _findings(_read("zr014"), host="other"))
    assert "49.97 tok/s is end-to-end" in cpp and "51.36 tok/s" in cpp


def test_a_symmetric_run_head_waiting_at_one_of_two_nodes():
    """https://github.com/ray-project/ray/issues/59795: `ray symmetric-run`'s head prints `Waiting for nodes to
    start... 1/2 nodes started` until every node joined, then `(raylet) The autoscaler failed ...`: the other node
    had not joined (its own output says why), and the autoscaler crashed."""
    said = _findings(_read("wm010"), host="other", nodes=2)
    [wait] = [m for lvl, m in said if lvl == "warn" and "symmetric-run" in m]
    assert "1 of 2" in wait and "not joined" in wait
    assert any(lvl == "fail" and "autoscaler" in m for lvl, m in said)
    done = "Waiting for nodes to start... 1/2 nodes started\nWaiting for nodes to start... 2/2 nodes started\n"
    assert "ray-nodes-still-joining" not in _kinds(done)  # the last poll has every node


def test_link_local_socket_interfaces_beside_a_routed_one_are_an_interface_choice():
    """https://github.com/horovod/horovod/issues/636: NCCL 2.3.7's sockets list a VLAN interface and link-local fe80
    ones on two hosts (it came up: nothing failed yet); horovod#584 and nccl#1515 (pending wl003, xd006) the same shape
    beside a refused connect, and a VM's link-local-only VF: each reads as interface selection."""
    said = _findings(_read("wl004"), host="other", nodes=2)
    [msg] = [m for _, m in said if "link-local IPv6" in m]
    assert "NCCL_SOCKET_IFNAME" in msg and "ens5f0.3003, ens5f1.3003" in msg and "enp5s0" in msg
    xd = [m for _, m in _findings(_read("xd006"), host="other", nodes=2) if "link-local IPv6" in m]
    assert xd and "enP20593s1" in xd[0] and "eth0" in xd[0]
    # one machine (an NCCL test on one host, sockets listing a link-local interface): nothing crosses a network
    one = ("host:1:1 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.5<0> [1]eth1:fe80::1%eth1<0>\n"
           "host:1:1 [0] NCCL INFO Using network Socket\n")
    assert not [m for _, m in _findings(one, host="other", nodes=1) if "link-local IPv6" in m]


def test_a_healthy_collect_env_says_so_and_what_it_cannot_show():
    """https://github.com/vllm-project/vllm/issues/36835: collect_env on a Spark (GB10, CUDA available, driver 580,
    torch cu130): nothing wrong in it; the build's kernels (the issue) are not in it. A report whose PyTorch sees no
    CUDA keeps its warning and gets no such note."""
    said = _findings(_read("wm016"), host="spark", nodes=1)
    assert [lvl for lvl, _ in said] == ["info"] * 3 and "Nothing wrong in what this report shows" in said[-1][1]
    no_cuda = _read("wm016").replace("Is CUDA available            : True", "Is CUDA available            : False")
    text = " ".join(m for _, m in _findings(no_cuda, host="spark", nodes=1))
    assert "Is CUDA available: False" in text and "Nothing wrong" not in text


def test_no_common_block_size_points_at_the_backends_block_sizes():
    """nestufng's four-Spark DeepSeek-V4 boot 4 (pending wn012): `ValueError: No common block size for 64.`: the
    attention backends share no block size; --block-size decides, not the machines or the network."""
    said = _findings(_read("wn012"), host="spark", nodes=4)
    [msg] = [m for lvl, m in said if lvl == "fail" and "attention backend" in m]
    assert "--block-size" in msg and "64" in msg and "nccl" not in msg.lower()


def test_a_llama_client_with_every_buffer_on_the_cpu_offloaded_nothing():
    """https://github.com/ggml-org/llama.cpp/issues/14307: a llama-cli client told to span two machines, every buffer
    (KV, compute, output) on the CPU: no -ngl, so the rpc-server gets no layer. The same lines on a machine not told
    to span several are a hedged note (a CPU-only machine runs so by design)."""
    text = _read("wn009")
    said = _findings(text, host="other", nodes=2)
    [msg] = [m for lvl, m in said if lvl == "warn"]
    assert "-ngl" in msg and "rpc-server" in msg
    alone = _findings(text, host="other", nodes=1)
    assert [lvl for lvl, m in alone if "Every buffer" in m] == ["info"]
    gpu = text.replace("llama_context:        CPU compute buffer size", "llama_context:      CUDA0 compute buffer size")
    assert not [m for _, m in _findings(gpu, host="other", nodes=2) if "Every buffer" in m]  # a GPU holds one


def test_an_rpc_server_missing_the_clients_buffer():
    """https://github.com/gpustack/gpustack/issues/1192: an M2 Mac's rpc-server logs `deserialize_tensor: failed: buffer
    not found, name = token_embd.weight` every few seconds, 0.23 tok/s: client and server disagree, not bandwidth."""
    said = _findings(_read("xo004"), host="other", nodes=2)
    [msg] = [m for lvl, m in said if lvl == "fail"]
    assert "rpc-server" in msg and "token_embd.weight" in msg and "bandwidth" not in msg.lower()


def test_containers_started_without_the_nvidia_runtime_or_the_gpus():
    """dgx-spark-playbooks#26 (`unknown or invalid runtime name: nvidia`), aeon#5 (the CUDA image's `The NVIDIA Driver
    was not detected` banner in a compose log), k8s-device-plugin#303 and #1371 (`could not load NVML library`): each
    is how the container was started, not the GPU or its driver."""
    for prefix, words in (("xm003", ("--gpus all", "nvidia-ctk")), ("xm004", ("--gpus all", "compose")),
                          ("xb007", ("default", "RuntimeClass")), ("xb019", ("libnvidia-ml", "nvidiaDriverRoot"))):
        said = _findings(_read(prefix), host="other", nodes=1)
        [msg] = [m for lvl, m in said if lvl == "fail"]
        assert all(w in msg for w in words), prefix
        assert "driver is too old" not in msg and "version mismatch" not in msg.lower()


def test_nvml_not_supported_for_memory_is_the_programs_to_handle():
    """https://github.com/NVIDIA-NeMo/RL/issues/2203: pynvml's NotSupported for free memory on a Spark: unified memory,
    use CUDA's figure; on a machine said not to be a Spark the Spark sentence is left out."""
    spark = " ".join(m for _, m in _findings(_read("xm005"), host="spark", nodes=1))
    assert "unified" in spark and "mem_get_info" in spark and "reinstall" not in spark
    other = " ".join(m for _, m in _findings(_read("xm005"), host="other", nodes=1))
    assert "GB10" not in other and "mem_get_info" in other


def test_ucx_with_no_transport_to_its_peer_names_the_selection():
    """UCX's select.c (`no active messages transport to <no debug data>: self/memory - Destination is unreachable`, an
    Intel MPI run across two hosts with only shared-memory transports); a transport UCX_TLS names that UCX lacks
    (`transport 'cuda_copy' is not available`) is a warning, and a healthy UCX line names neither."""
    [d] = diagnose_text("[1] [cnode001:521140:0]          select.c:630  UCX  ERROR   no active messages transport to "
                        "<no debug data>: self/memory - Destination is unreachable\n")
    assert d.kind == "ucx-no-am-transport" and "UCX_TLS=self,sm,tcp" in d.fix and "Docker" not in d.message
    [w] = diagnose_text("[1] [u:1:0]     ucp_context.c:1321 UCX  WARN  transport 'dc_ml5x' is not available, please use "
                        "one or more of: cma, dc, dc_mlx5, rc, self, tcp\n")
    assert w.severity == "warn" and "`dc_ml5x`" in w.message
    assert diagnose_text("[1] [u:1:0]     ucp_context.c:1321 UCX  INFO  UCP version is 1.17 (release 0)\n") == []


def test_an_fsp_timeout_alone_is_a_warning():
    """The FSP timeout line without `Reset required` after it: the firmware was late once; a warning that says what
    would make it a reset (lilvllm#237 shows both lines: the reset reading, above)."""
    [d] = diagnose_text("NVRM: kfspWaitForResponse: FSP command timed out\n")
    assert d.severity == "warn" and "Reset required" in d.message


def test_a_404_to_an_inference_request_is_the_clients_path_or_model():
    """An access-log 404 for a POST (a URL typo, or a model not served): a warning that the server is up; where vLLM
    also logs `The model ... does not exist` (pending wn005) that reading is said instead, once; a GET for a browser's
    favicon is nobody's fault."""
    [d] = diagnose_text('(APIServer pid=1) INFO:     10.0.0.9:43886 - "POST /v1/chat/completion HTTP/1.1" 404 Not '
                        'Found\n')
    assert d.severity == "warn" and "path" in d.message and "/v1/models" in d.fix
    both = [x for x in diagnose_text(_read("wn005")) if x.kind == "openai-model-does-not-exist"]
    assert len(both) == 1 and "int4-AutoRound" in both[0].message
    assert diagnose_text('(APIServer pid=1) INFO:     10.0.0.9:1 - "GET /favicon.ico HTTP/1.1" 404 Not Found\n') == []
