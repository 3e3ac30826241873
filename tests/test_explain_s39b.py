"""Session 39b: serving logs and cluster managers (the GPU container stack, ssh of launchers, torchrun's store, vLLM's
TP warning, Ray's node table) read as general rules, each test naming the real output it comes from."""

from __future__ import annotations

from grader.explain import explain
from tests.conftest import field_entry as corpus, said_in_all as _said, worst_level as _worst


def test_the_device_plugin_without_nvml_fails_on_the_runtime_that_did_not_inject_the_driver():
    """https://github.com/NVIDIA/k8s-device-plugin/issues/303 (pending xb007: `Failed to initialize NVML: could not
    load NVML library.`) and /1371 (pending xb019, 0.17.3: `NVML not detected: could not load NVML library:
    libnvidia-ml.so.1`): the node advertises no GPU; the runtime (default runtime, RuntimeClass) or the driver root."""
    for prefix in ("xb007", "xb019"):
        sections = explain(corpus(prefix), host="other", nodes=1)
        failed = _said(sections, "fail")
        assert _worst(sections) == "fail" and "libnvidia-ml.so.1" in failed, prefix
        assert "default runtime" in failed and "RuntimeClass" in failed and "driver root" in failed
        assert "driver not loaded" not in failed
    # NVML's other failure, a container that lost its devices, stays its own reading
    said = _said(explain("Failed to initialize NVML: Unknown Error\n", host="other"))
    assert "daemon-reload" in said and "libnvidia-ml" not in said


def test_docker_without_the_nvidia_runtime_and_an_ngc_container_without_the_driver_fail():
    """https://github.com/NVIDIA/dgx-spark-playbooks/issues/26 (pending xm003: `unknown or invalid runtime name:
    nvidia`: drop --runtime or register it with nvidia-ctk); AEON-7/Qwen3.6-27B-AEON-Ultimate-Uncensored-DFlash#5
    (pending xm004: the NGC banner's `The NVIDIA Driver was not detected`: the compose service has no GPU)."""
    sections = explain(corpus("xm003"), host="spark", nodes=1)
    failed = _said(sections, "fail")
    assert _worst(sections) == "fail" and "nvidia-ctk runtime configure --runtime=docker" in failed
    assert "--gpus all" in failed and "driver version" not in failed
    sections = explain(corpus("xm004"), host="spark", nodes=1)
    failed = _said(sections, "fail")
    assert _worst(sections) == "fail" and "without the GPU" in failed and "driver: nvidia" in failed
    # an NGC banner of a container that has its GPU (no such warning) says nothing of the kind
    banner = corpus("xm004").replace("WARNING: The NVIDIA Driver was not detected.  GPU functionality will not be "
                                     "available.", "")
    assert "without the GPU" not in _said(explain(banner, host="spark", nodes=1))


def test_ssh_that_cannot_resolve_a_one_letter_host_is_a_host_list_split_per_character():
    """https://github.com/spark-arena/sparkrun/issues/257 (corpus zm017): `--hosts spark1,spark2` became twelve
    one-letter hosts and ssh `Could not resolve hostname s`: a parsing fault, not DNS or keys. A real name that does
    not resolve is the name lookup's fault (/etc/hosts, DNS)."""
    sections = explain(corpus("zm017"), host="spark", nodes=2)
    failed = _said(sections, "fail")
    assert _worst(sections) == "fail" and "split letter by letter" in failed and "`s`" in failed
    assert "firewall" not in failed.lower() and "QSFP" not in failed
    said = _said(explain("$ ssh spark-b hostname\nssh: Could not resolve hostname spark-b: Name or service not "
                         "known\n", host="spark"), "fail")
    assert "/etc/hosts" in said and "letter" not in said


def test_a_c10d_client_connected_to_its_store_is_a_healthy_rendezvous_so_far():
    """https://github.com/huggingface/accelerate/issues/1645 (corpus zz018): torchrun's static rendezvous, the store
    listening on [::]:17333 and its client connected: no fault. The same store's connect timeout stays a fail."""
    sections = explain(corpus("zz018"), host="other", nodes=2)
    assert _worst(sections) == "info"
    assert "connected to the rendezvous store" in _said(sections) and "17333" in _said(sections)
    timeout = ("[W socket.cpp:601] [c10d] The client socket has timed out after 600000ms while trying to connect to "
               "(10.0.0.1, 29500).\n")
    assert _worst(explain(timeout, host="other", nodes=2)) == "fail"


def test_tp_over_the_nodes_the_run_is_told_to_span_is_the_layout_meant():
    """https://github.com/gpustack/gpustack/issues/5056 (corpus zk020): `Tensor parallel size (16) exceeds available
    GPUs (8)` with `explain --nodes 2`: two 8-GPU nodes make the 16, the warning is the expected one (info).
    https://github.com/gpustack/gpustack/issues/4028 (corpus i015), the nodes not told: still the warn that asks
    `ray status` to count 16 and suggests TP 8 x PP 2."""
    sections = explain(corpus("zk020"), host="other", nodes=2)
    assert _worst(sections) == "info" and "exceeds this node's 8 GPU(s)" in _said(sections, "info")
    sections = explain(corpus("i015"), host="other")
    assert _worst(sections) == "warn" and "--pipeline-parallel-size" in _said(sections, "warn")
    assert _worst(explain(corpus("zk020"), host="other", nodes=3)) == "warn"  # 3 x 8 is not the 16 asked


def test_a_ray_node_registered_with_a_tpu_and_no_gpu_fails_where_gpus_are_asked_for():
    """https://github.com/gpustack/gpustack/issues/4979 (corpus zk015): vLLM waits for a placement group of two GPUs
    and `ray list nodes` shows the worker with `TPU: 1.0` and no GPU: that worker can never take its bundle. The
    same table without a GPU asked for (a TPU pod's) is a note."""
    sections = explain(corpus("zk015"), host="other", nodes=2)
    failed = _said(sections, "fail")
    assert _worst(sections) == "fail" and "192.168.50.16: 1 TPU, no GPU" in failed and "--num-gpus" in failed
    table = corpus("zk015").split("\n\n", 1)[1]  # the table alone
    said = _said(explain(table, host="other"))
    assert "1 TPU, no GPU" in said and "waits for ever" not in said and _worst(explain(table, host="other")) == "info"


def test_a_ray_start_that_retried_its_registration_for_seconds_warns():
    """https://github.com/vllm-project/vllm/issues/13367 (corpus i028): `Local node IP` at 18:29:05, a `Retrying to
    get node with node ID` at 18:29:17 and `Ray runtime started.` at 18:29:18: a registration the head's GCS took 13 s
    to list, with one retry (a warn). One retry within the usual second or two stays a note."""
    sections = explain(corpus("i028"), host="other", nodes=2)
    assert _worst(sections) == "warn" and "after 1 retry" in _said(sections, "warn")
    assert "13.4 s after it chose its IP" in _said(sections, "warn")
    quick = corpus("i028").replace("18:29:05,057", "18:29:16,457")  # the same start, two seconds long
    sections = explain(quick, host="other", nodes=2)
    assert _worst(sections) in ("ok", "info") and "one retry is normal" in _said(sections)


def test_a_kv_pool_under_two_gib_per_gpu_of_few_tokens_is_tight():
    """https://github.com/vllm-project/vllm/issues/25760 (corpus b033: 1.53 GiB on each of four workers, 61,600
    tokens) and https://github.com/vllm-project/vllm/pull/14447 (corpus zx007: 1.57 GiB per 24 GB card at 0.99): a
    small KV pool, a warn. 2.3 GiB (vllm#28228, corpus p012) stays a note, and so does a small pool of many tokens."""
    for prefix, host in (("b033", "other"), ("zx007", "other")):
        sections = explain(corpus(prefix), host=host, nodes=1)
        assert _worst(sections) == "warn" and "A small KV cache (under 2 GiB per GPU" in _said(sections, "warn")
    assert "61,600 tokens in all" in _said(explain(corpus("b033"), host="other", nodes=1), "warn")
    assert "small KV cache" not in _said(explain(corpus("p012"), host="other", nodes=1))
    tiny = ("INFO 09-26 17:58:20 [gpu_worker.py:298] Available KV cache memory: 1.5 GiB\n"
            "INFO 09-26 17:58:22 [kv_cache_utils.py:1087] GPU KV cache size: 130,000 tokens\n")  # a 0.5B model's
    assert "small KV cache" not in _said(explain(tiny, host="other", nodes=1))


def test_a_per_node_interface_variable_overwritten_with_another_nodes_names_warns():
    """https://github.com/spark-arena/sparkrun/issues/135 (corpus s014): `Overwriting environment variable NCCL_IB_HCA
    from 'rocep1s0f0,roceP2p1s0f0' to 'rocep1s0f1,roceP2p1s0f1'` (vLLM's update_environment_variables): the nodes'
    device names differ (port 1 cabled to port 2), one value for all fits one node only. The same line for a variable
    that is not a node's own devices (a cache folder) says nothing."""
    sections = explain(corpus("s014"), host="spark", nodes=2)
    warned = _said(sections, "warn")
    assert _worst(sections) == "warn" and "different values" in warned and "rocep1s0f1" in warned
    assert "port 1 on one to port 2" in warned
    said = _said(explain("Overwriting environment variable HF_HOME from '/a' to '/b'\n", host="spark", nodes=2))
    assert "different values" not in said


def test_a_dashboard_on_loopback_and_a_filtered_port_are_read_as_such():
    """https://github.com/ray-project/ray/issues/24073 (corpus zv008): `ray up` started the head, its dashboard on
    http://127.0.0.1:8265 (loopback only: a note, with the tunnel or --dashboard-host), and nmap from the laptop found
    the port `filtered` (a firewall drops the probes: a warn). A dashboard on the head's outside address, and a port
    nmap found `open`, say neither."""
    sections = explain(corpus("zv008"), host="other", nodes=1)
    assert _worst(sections) == "warn"
    assert "loopback only" in _said(sections, "info") and "--dashboard-host=0.0.0.0" in _said(sections, "info")
    assert "`filtered`" in _said(sections, "warn")
    other = (corpus("zv008").replace("http://127.0.0.1:8265", "http://10.128.0.11:8265")
             .replace("8065/tcp filtered unknown no-response", "8265/tcp open   http    syn-ack"))
    said = _said(explain(other, host="other", nodes=1))
    assert "loopback only" not in said and "`filtered`" not in said


def test_a_ray_node_registered_by_host_name_beside_nodes_by_ip_fails():
    """https://github.com/ray-project/ray/issues/32921 (corpus zv019): `Nodes: [{'NodeID': ..., 'NodeManagerAddress':
    'pascal35', ...}, {... 'NodeManagerAddress': '192.168.128.35' ...}]` printed under a label: the first node's
    resource is `node:pascal35`, so lookups by IP miss it (there: Ray Tune's NoneType.hex). Every node by IP says
    nothing of the kind."""
    sections = explain(corpus("zv019"), host="other", nodes=2)
    failed = _said(sections, "fail")
    assert _worst(sections) == "fail" and "pascal35 registered under a host name" in failed
    assert "--node-ip-address" in failed
    by_ip = corpus("zv019").replace("'NodeManagerAddress': 'pascal35'", "'NodeManagerAddress': '192.168.128.34'")
    assert "host name" not in _said(explain(by_ip, host="other", nodes=2))


def test_gpustacks_refusal_to_split_a_tp_group_over_workers_is_its_schedulers_rule():
    """https://github.com/gpustack/gpustack/issues/5779 (corpus m018): `vLLM multi-node: --tensor-parallel-size 2
    cannot divide worker[0] 1 GPUs`: GPUStack's own check refused TP 2 over two one-GPU Sparks, a fail that names the
    scheduler, not NCCL or the driver."""
    sections = explain(corpus("m018"), host="spark", nodes=2)
    failed = _said(sections, "fail")
    assert _worst(sections) == "fail" and "GPUStack's scheduler refused" in failed and "1 GPU(s)" in failed
    assert "nccl error" not in failed.lower() and "driver mismatch" not in failed


def test_sparkruns_plan_and_where_its_output_ends_are_read():
    """https://github.com/spark-arena/sparkrun/issues/208 (corpus i012: `Note: 2 nodes required, using 2 of 3 hosts`,
    `Per-GPU total: 36.04 GB`) and /217 (corpus zm016: the estimate fits, the output stops at `Step 4/7:` with
    nothing under it): the plan said, the cut said, no fault invented. A step with its output under it is no cut."""
    sections = explain(corpus("i012"), host="spark", nodes=2)
    said = _said(sections)
    assert _worst(sections) == "info" and "36.04 GB per GPU" in said and "cluster (2 nodes)" in said
    sections = explain(corpus("zm016"), host="spark", nodes=2)
    said = _said(sections)
    assert _worst(sections) == "info" and "ends at sparkrun's step `Step 4/7:`" in said
    assert "fits a DGX Spark" in said and "does not fit" not in said
    went_on = corpus("zm016").rstrip("\n") + " 192.168.177.11\n  Step 5/7: Starting head\n  head started\n"
    assert "ends at sparkrun's step" not in _said(explain(went_on, host="spark", nodes=2))


def test_a_launcher_banner_with_mlx5_device_names_is_not_read_as_the_wrong_port():
    """https://github.com/mark-ramsey-ri/vllm-dgx-spark/issues/7 (corpus m005): start_cluster.sh's banner, `NCCL
    Interface: enp1s0f0np0`, `NCCL IB HCAs: mlx5_0,mlx5_2` (the port's twins under the mlx5_N names): the names
    cannot be placed on a port, so no 'different ports' warn; the head and worker said. The rocep names on the other
    port still warn (eugr/spark-vllm-docker#40's reading)."""
    sections = explain(corpus("m005"), host="spark", nodes=2)
    said = _said(sections)
    assert _worst(sections) == "info" and "mlx5_N scheme" in said and "169.254.194.225" in said
    assert "different ports" not in said
    wrong = corpus("m005").replace("mlx5_0,mlx5_2", "rocep1s0f1,roceP2p1s0f1")
    assert "different ports" in _said(explain(wrong, host="spark", nodes=2), "warn")


def test_a_ray_node_on_a_private_address_joining_a_head_on_a_public_one_warns():
    """https://github.com/ray-project/ray/issues/4825 (pending xp017): ray.init's `{'node_ip_address': '10.0.0.40',
    'redis_address': '<public>:6379', ...}`: the node registers a private address the head reaches only inside its
    network (a warn: one VPC would route it). Both private (one LAN) says nothing."""
    sections = explain(corpus("xp017"), host="other", nodes=2)
    assert "10.0.0.40, a private one" in _said(sections, "warn") and "NAT" in _said(sections, "warn")
    lan = "{'node_ip_address': '10.0.0.40', 'redis_address': '10.0.0.2:6379', 'object_store_address': '/tmp/x'}\n"
    assert "private one" not in _said(explain(lan, host="other", nodes=2))


def test_a_gpu_demand_in_ray_status_beside_a_tpu_node_makes_it_a_fail():
    """The zk015 reading (gpustack#4979) where `ray status`' demand asks the GPU, `{'CPU': 1.0, 'GPU': 1.0}: 1+
    pending tasks/actors` (the shape of corpus zd020, ray-project/llm-applications#58), instead of vLLM's wait line;
    a CPU-only demand keeps the TPU node a note."""
    table = corpus("zk015").split("\n\n", 1)[1]
    for demand, level in (("{'CPU': 1.0, 'GPU': 1.0}", "fail"), ("{'CPU': 1.0}", "info")):
        paste = table + f"\nDemands:\n {demand}: 1+ pending tasks/actors\n"
        said = [f for s in explain(paste, host="other") if s.kind == "ray-nodes" for f in s.findings
                if "TPU, no GPU" in f.message]
        assert [f.level for f in said] == [level], demand


def test_pytorchs_peer_access_check_answering_false_is_no_p2p():
    """https://github.com/NVIDIA/TensorRT-LLM/issues/1374 (corpus zg013 asks the same of cuda-python:
    cudaDeviceCanAccessPeer(0, 1) returned 0): PyTorch's form, `torch.cuda.can_device_access_peer(0, 1)` then
    `False`, is no P2P between the pair (a warn naming IOMMU/ACS and the by-design cases); `True` says nothing of it."""
    said = _said(explain(">>> import torch\n>>> torch.cuda.can_device_access_peer(0, 1)\nFalse\n", host="other"), "warn")
    assert "GPU 0 cannot access GPU 1's memory directly" in said and "ACS" in said and "GeForce" in said
    said = _said(explain(">>> import torch\n>>> torch.cuda.can_device_access_peer(0, 1)\nTrue\n", host="other"))
    assert "cannot access" not in said
