"""Session 39i: break-it review 19's misreadings of the serving rules (items 6, 7, 9, 10, 25) and the corpus oracle's
consistency review (GeForce cards without P2P, NCCL's SHM on one host, one NV_ERR_NO_MEMORY line), each test feeding
a real output (or a faithful shape of one, named in its docstring) and the neighbouring output its rule was built for."""

from __future__ import annotations

from grader.diagnoses import diagnose_text
from grader.explain import explain
from tests.conftest import field_entry as corpus, said_in_all as _said, worst_level as _worst


# --------------------------------------------------------------------------- Ray: a TPU node beside GPU nodes (item 6)

_L4_HEAD = """\
$ ray list nodes

======== List: 2026-03-23 16:19:44.798192 ========
Stats:
------------------------------
Total: 2

Table:
------------------------------
    NODE_ID                                                   NODE_IP      IS_HEAD_NODE    STATE    STATE_MESSAGE    NODE_NAME    RESOURCES_TOTAL                 LABELS
 0  55f1f77b47208ebc7c341b49ddb2fa377e6808e0c5ec76364b0e2f3c  10.8.0.12    True            ALIVE                     10.8.0.12    CPU: 46.0                       ray.io/node-id: 55f1f77b47208ebc7c341b49ddb2fa377e6808e0c5ec76364b0e2f3c
                                                                                                                                  GPU: 4.0
                                                                                                                                  accelerator_type:L4: 1.0
                                                                                                                                  memory: 150.000
                                                                                                                                  node:10.8.0.12: 1.0
                                                                                                                                  object_store_memory: 64.000
"""
_TPU_WORKER = """\
 1  8a2c1e0a3b1f4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708192  10.8.1.7     False           ALIVE                     10.8.1.7     CPU: 208.0                      ray.io/accelerator-type: TPU-V4
                                                                                                                                  TPU: 4.0                        ray.io/node-id: 8a2c1e0a3b1f4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708192
                                                                                                                                  TPU-v4-8-head: 1.0              ray.io/tpu-pod-type: v4-8
                                                                                                                                  accelerator_type:TPU-V4: 1.0    ray.io/tpu-worker-id: '0'
                                                                                                                                  memory: 300.000
                                                                                                                                  node:10.8.1.7: 1.0
                                                                                                                                  object_store_memory: 120.000
"""


def _tpu_findings(paste: str):
    return [f for s in explain(paste, host="other", nodes=2) if s.kind == "ray-nodes" for f in s.findings
            if "TPU" in f.message and "no GPU" in f.message]


def test_a_real_tpu_host_beside_a_gpu_node_with_nothing_waiting_is_a_mixed_cluster():
    """Break-it 19 p20 (Ray's `ray list nodes` table, the columns of gpustack/gpustack#4979's, corpus zk015): a TPU v4
    host registers `TPU: 4.0` with `accelerator_type:TPU-V4` (Ray's TPU accelerator manager), beside an L4 GPU head;
    nothing pending: a mixed cluster by design (a note), never the fail that tells it to start with --num-gpus."""
    [f] = _tpu_findings(_L4_HEAD + _TPU_WORKER)
    assert f.level == "info" and "TPU-V4" in f.message and "mixed cluster" in f.message
    assert "--num-gpus" not in f.message
    # a bare `TPU: 1.0` (no model named: what a GB-class GPU taken for a TPU registers) beside GPU nodes, nothing
    # waiting: a hedged warn that names what decides
    bare = _TPU_WORKER.replace("accelerator_type:TPU-V4: 1.0", "                            ").replace("TPU: 4.0", "TPU: 1.0")
    [f] = _tpu_findings(_L4_HEAD + bare)
    assert f.level == "warn" and "--num-gpus" in f.message and "ray status" in f.message
    # vLLM's placement group waiting for a GPU beside it (zk015's shape): the fail it was built for
    wait = ("(EngineCore_DP0 pid=70) INFO 03-23 16:19:12 [ray_utils.py:267] Waiting for creating a placement group of "
            "specs for 30 seconds. specs=[{'node:10.8.0.12': 0.001, 'GPU': 1.0}, {'GPU': 1.0}].\n\n")
    [f] = _tpu_findings(wait + _L4_HEAD + bare)
    assert f.level == "fail" and "waits for ever" in f.message


def test_zk015_still_fails_and_its_table_alone_is_still_a_note():
    """https://github.com/gpustack/gpustack/issues/4979 (corpus zk015): the reading the rule was built for holds."""
    sections = explain(corpus("zk015"), host="other", nodes=2)
    assert _worst(sections) == "fail" and "192.168.50.16: 1 TPU, no GPU" in _said(sections, "fail")
    table = corpus("zk015").split("\n\n", 1)[1]
    assert _worst(explain(table, host="other")) == "info"


# --------------------------------------------------------------------------- vLLM: a small KV pool (item 7)

_QWEN_15B = """\
INFO 10-08 09:14:02 [__init__.py:216] Automatically detected platform cuda.
(EngineCore_DP0 pid=2211) INFO 10-08 09:14:41 [gpu_worker.py:298] Available KV cache memory: 1.92 GiB
(EngineCore_DP0 pid=2211) INFO 10-08 09:14:41 [kv_cache_utils.py:1087] GPU KV cache size: 71,904 tokens
(EngineCore_DP0 pid=2211) INFO 10-08 09:14:41 [kv_cache_utils.py:1091] Maximum concurrency for 2,048 tokens per request: 35.11x
"""


def test_a_pool_under_two_gib_that_holds_many_full_length_requests_is_not_small():
    """Break-it 19 p21 (vLLM 0.11's start-up lines, Qwen2.5-1.5B at max_model_len 2,048): 1.92 GiB and 71,904 tokens,
    and the log's own `Maximum concurrency for 2,048 tokens per request: 35.11x`: 35 full-length requests fit at once,
    so no "small KV cache" warn beside its ok. The same pool holding 6x (vllm-project/vllm#25760's about six requests
    of 10,000) stays the warn."""
    sections = explain(_QWEN_15B, host="other", nodes=1)
    assert "small KV cache" not in _said(sections) and _worst(sections) == "info"
    assert "35.11x" in _said(sections)
    tight = _QWEN_15B.replace("2,048 tokens per request: 35.11x", "10,000 tokens per request: 6.16x")
    sections = explain(tight, host="other", nodes=1)
    assert _worst(sections) == "warn" and "A small KV cache (under 2 GiB per GPU" in _said(sections, "warn")


def test_b033s_small_pool_without_its_concurrency_line_still_warns():
    """https://github.com/vllm-project/vllm/issues/25760 (corpus b033: 1.53 GiB on four workers, 61,600 tokens; its
    concurrency line cut): the warn it was built for."""
    sections = explain(corpus("b033"), host="other", nodes=1)
    assert _worst(sections) == "warn" and "61,600 tokens in all" in _said(sections, "warn")


# --------------------------------------------------------------------------- the NGC banner (item 9)

_SMI_IN_CONTAINER = """\
Fri Sep 17 09:12:44 2021
+-----------------------------------------------------------------------------+
| NVIDIA-SMI 510.00       Driver Version: 510.06       CUDA Version: 11.6     |
|-------------------------------+----------------------+----------------------+
| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |
| Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |
|===============================+======================+======================|
|   0  NVIDIA GeForce ...  On   | 00000000:01:00.0  On |                  N/A |
| 30%   41C    P8    22W / 320W |   1325MiB / 10240MiB |      4%      Default |
+-------------------------------+----------------------+----------------------+
"""
_BANNER = ("WARNING: The NVIDIA Driver was not detected.  GPU functionality will not be available.\n"
           "   Use 'nvidia-docker run' to start this container; see\n"
           "   https://github.com/NVIDIA/nvidia-docker/wiki/nvidia-docker .\n\n")


def test_the_ngc_banner_beside_an_nvidia_smi_that_lists_the_gpu_is_wsls_false_alarm():
    """https://github.com/NVIDIA/nvidia-docker/issues/1548 (and NVIDIA/nvidia-container-toolkit#271): on WSL2 `docker run
    --gpus all nvcr.io/nvidia/tensorflow:20.03-tf2-py3 nvidia-smi` prints the banner's `The NVIDIA Driver was not
    detected`, then nvidia-smi in that container lists the GPU: a note, not "started without the GPU"."""
    paste = ("$ docker run --gpus all --rm nvcr.io/nvidia/tensorflow:20.03-tf2-py3 nvidia-smi\n\n" + _BANNER
             + _SMI_IN_CONTAINER)
    sections = explain(paste, host="other", nodes=1)
    assert _worst(sections) == "info", _said(sections)
    said = _said(sections, "info")
    assert "false alarm" in said and "WSL2" in said and "without the GPU" not in _said(sections)
    [d] = [d for d in diagnose_text(_BANNER + _SMI_IN_CONTAINER) if d.kind == "ngc-container-no-driver"]
    assert d.severity == "info" and "00000000:01:00.0" in d.message


def test_the_ngc_banner_after_a_run_with_gpus_asked_and_nothing_more_is_a_hedged_warn():
    """The same banner after `docker run --gpus all` with nothing of the container shown after it: WSL2's false alarm
    or a toolkit that did not inject the driver, the paste cannot say; a warn that names nvidia-smi in the container
    as what decides, never "start it with --gpus all" (it was)."""
    paste = "$ docker run --gpus all --rm -it nvcr.io/nvidia/pytorch:24.05-py3\n\n" + _BANNER
    sections = explain(paste, host="other", nodes=1)
    assert _worst(sections) == "warn"
    said = _said(sections, "warn")
    assert "GPUs asked for (`--gpus all`)" in said and "nvidia-smi" in said and "Start it with `--gpus all`" not in said
    # under WSL2 (its kernel named in the paste) the same banner with nothing more shown says so
    [d] = [d for d in diagnose_text("Linux pc 5.15.153.1-microsoft-standard-WSL2 #1 SMP\n" + _BANNER)
           if d.kind == "ngc-container-no-driver"]
    assert d.severity == "warn" and "the machine is a WSL2 one: under WSL2 the banner is a known false alarm" in d.message


def test_xm004s_compose_service_without_the_gpu_still_fails():
    """AEON-7/Qwen3.6-27B-AEON-Ultimate-Uncensored-DFlash#5 (pending xm004): the compose service's banner, no GPU asked
    for and none shown: the fail it was built for. The banner's GPU row must come after it (a host's nvidia-smi
    before a `docker run` without --gpus proves nothing of the container)."""
    sections = explain(corpus("xm004"), host="spark", nodes=1)
    assert _worst(sections) == "fail" and "without the GPU" in _said(sections, "fail")
    host_first = _SMI_IN_CONTAINER + "\n$ docker run --rm nvcr.io/nvidia/pytorch:24.05-py3\n" + _BANNER
    assert [d.severity for d in diagnose_text(host_first) if d.kind == "ngc-container-no-driver"] == ["fail"]


# --------------------------------------------------------------------------- ssh and a one-letter host (item 10)

def test_one_hand_typed_one_letter_host_is_a_name_that_does_not_resolve():
    """Break-it 19 p41 (OpenSSH's `ssh: Could not resolve hostname %s: %s`): `$ ssh -i ~/.ssh/id_ed25519 n` typed by
    hand: a name nothing resolves (a typo, an alias missing from ~/.ssh/config), not a launcher that split a host
    list letter by letter."""
    paste = "$ ssh -i ~/.ssh/id_ed25519 n\nssh: Could not resolve hostname n: Name or service not known\n"
    sections = explain(paste, host="other")
    failed = _said(sections, "fail")
    assert "letter by letter" not in _said(sections) and "could not turn the name n into an address" in failed
    assert "~/.ssh/config" in failed
    # the bare line alone is the same: nothing shows a launcher
    assert "letter by letter" not in _said(explain(paste.split("\n", 1)[1], host="other"))


def test_several_one_letter_hosts_or_a_launchers_line_are_still_a_split_host_list():
    """https://github.com/spark-arena/sparkrun/issues/257 (corpus zm017): `--hosts spark1,spark2` run as twelve one-letter
    hosts; two different one-letter hosts ssh cannot resolve say the same without the host list; one on sparkrun's
    own `SSH cmd <- s FAILED` line too."""
    sections = explain(corpus("zm017"), host="spark", nodes=2)
    assert _worst(sections) == "fail" and "split letter by letter" in _said(sections, "fail")
    two = ("ssh: Could not resolve hostname s: Temporary failure in name resolution\n"
           "ssh: Could not resolve hostname p: Temporary failure in name resolution\n")
    assert "split letter by letter" in _said(explain(two, host="other"), "fail")
    launcher = "  SSH cmd <- s FAILED rc=255: ssh: Could not resolve hostname s: Temporary failure in name resolution\n"
    assert "split letter by letter" in _said(explain(launcher, host="spark"), "fail")


# --------------------------------------------------------------------------- ray.init and a CGNAT head (item 25)

def test_a_head_on_a_tailscale_address_is_not_called_public():
    """Break-it 19 p43 (ray.init's address info, ray-project/ray#4825's shape): `node_ip_address` 192.168.1.41 and
    `redis_address` 100.87.14.22:6379, an address of RFC 6598's 100.64.0.0/10 (carrier-grade NAT, Tailscale's range):
    still a warn (the node registered its LAN address), but not "a public address" and its fix names the node's own VPN
    address. A public head (pending xp017) keeps its reading."""
    paste = ("{'node_ip_address': '192.168.1.41', 'redis_address': '100.87.14.22:6379', 'object_store_address': "
             "'/tmp/ray/session_2025-11-03_20-09-58_412771_2213/sockets/plasma_store'}\n")
    sections = explain(paste, host="other", nodes=2)
    said = _said(sections, "warn")
    assert _worst(sections) == "warn" and "100.64.0.0/10" in said and "a public address" not in said
    assert "--node-ip-address=<its own address on that VPN>" in said and "tailscale ip -4" in said
    sections = explain(corpus("xp017"), host="other", nodes=2)
    assert "a public address" in _said(sections, "warn") and "100.64.0.0/10" not in _said(sections)
    # 100.128.x.x is outside the shared range: public
    assert "a public address" in _said(explain(paste.replace("100.87.", "100.187."), host="other", nodes=2), "warn")


# --------------------------------------------------------------------------- GeForce cards without P2P (oracle review)

def test_geforce_cards_without_p2p_over_a_healthy_staged_path_are_a_note():
    """cuda-samples' p2pBandwidthLatencyTest: dbkinghorn's two RTX 4090 on driver 525.105 (corpus zj013: CANNOT Access
    Peer, 22 GB/s staged, Gen4 x16 class), tinygrad/open-gpu-kernel-modules#28 (corpus zg009: a 4090 and a 4060 Ti, cut
    before the matrices), NVIDIA/nccl-tests#117 (corpus zc020: eight 2080 Ti, cut): GeForce cards on the stock driver
    offer no P2P; with no sign that the path through host memory is slow, a note."""
    for prefix in ("zj013", "zg009", "zc020"):
        sections = explain(corpus(prefix), host="other", nodes=1)
        assert _worst(sections) == "info", prefix
        assert "expected of these cards, not a fault" in _said(sections, "info"), prefix
    assert "22.05 GB/s one way is what staged copies reach over their Gen4 x16 link" in _said(
        explain(corpus("zj013"), host="other", nodes=1))


def test_geforce_cards_without_p2p_over_a_slow_staged_path_warn():
    """Anthony-Hoo's AutoDL post (corpus x001: two RTX 2080 Ti, 5.7 GB/s staged, under half of Gen3 x16) and
    dbkinghorn's four RTX 3090 (corpus zj014: 5.9 GB/s at Gen4 x16): the staged path itself is slow, a warn."""
    for prefix, link in (("x001", "Gen3 x16"), ("zj014", "Gen4 x16")):
        sections = explain(corpus(prefix), host="other", nodes=1)
        said = _said(sections, "warn")
        assert _worst(sections) == "warn" and "that path is slow here" in said and link in said, prefix
    # the same 22 GB/s matrix on data-centre cards that offer P2P: its absence is still a warn
    v100 = corpus("zj013").replace("NVIDIA GeForce RTX 4090", "Tesla V100-PCIE-32GB")
    assert "No P2P between" in _said(explain(v100, host="other", nodes=1), "warn")


def test_nvidia_smis_plain_not_supported_is_a_note_that_names_what_decides():
    """`nvidia-smi topo -p2p p` / `r` printing NS between two cards (corpus x002: AutoDL's two 2080 Ti; d007: club-3090
    #1125's 3090 and 4090): what GeForce cards on the stock driver print, a note naming `nvidia-smi -L`; CNS (the
    chipset) keeps its warn."""
    for prefix in ("x002", "d007"):
        sections = explain(corpus(prefix), host="other", nodes=1)
        assert _worst(sections) == "info", prefix
        assert "not supported (NS" in _said(sections, "info") and "nvidia-smi -L" in _said(sections, "info")
    cns = corpus("x002").replace(" GPU0   X       NS\n GPU1   NS      X", " GPU0   X       CNS\n GPU1   CNS     X")
    assert "CNS" in cns and _worst(explain(cns, host="other", nodes=1)) == "warn"


# --------------------------------------------------------------------------- NCCL over SHM on one host (oracle review)

def test_shm_channels_on_one_host_without_a_sign_p2p_should_work_are_a_note():
    """vllm-project/vllm#6650 (pending xn018: vLLM's 4-GPU sanity check, every channel `via SHM/direct/direct`) and
    NVIDIA/nccl#1190 (pending we021: two RTX 2080 Ti): NCCL chose shared host memory and nothing in the paste says P2P
    should have worked: a note that says no P2P was used."""
    for prefix in ("xn018", "we021"):
        sections = explain(corpus(prefix), host="other", nodes=1)
        assert _worst(sections) == "info", prefix
        assert "(no P2P)" in _said(sections, "info"), prefix


def test_shm_channels_where_nvlink_is_shown_still_warn():
    """The same SHM channels beside NCCL's topology dump of an NVLink (`+ NVL[` of NCCL's graph/topo.cc) or naming
    data-centre cards: P2P should have worked there, so the warn stays."""
    lines = corpus("xn018")
    nvl = lines + "10-1-16-226:1024:1052 [0] NCCL INFO + NVL[264.0] - GPU/1000\n"
    assert any(f.level == "warn" and "Every channel went through host shared memory" in f.message
               for s in explain(nvl, host="other", nodes=1) for f in s.findings)
    a100 = "GPU 0: NVIDIA A100-SXM4-80GB (UUID: GPU-1)\n\n" + lines
    assert "warn" in {f.level for s in explain(a100, host="other", nodes=1) for f in s.findings
                      if "Every channel went through host shared memory" in f.message}


# --------------------------------------------------------------------------- one NV_ERR_NO_MEMORY line (oracle review)

def test_one_nv_err_no_memory_line_alone_warns_that_it_proves_nothing_on_its_own():
    """https://github.com/NVIDIA/dgx-spark-playbooks/issues/97 (corpus m008: the line wrapped over two) and
    https://github.com/vllm-project/vllm/issues/56824 (pending xm009: one line; the thread shows the lines in healthy
    starts): a warn that says the line does not prove a failure on its own."""
    for prefix in ("m008", "xm009"):
        sections = explain(corpus(prefix), host="spark", nodes=2)
        said = _said(sections, "warn")
        assert _worst(sections) == "warn" and "NV_ERR_NO_MEMORY" in said and "On its own" in said, prefix


def test_nv_err_no_memory_beside_what_the_run_did_stays_a_fail():
    """Corpus b027 (the OOM killer after the line), zd008 (journald under memory pressure), ze004 (202 of them counted in
    the incident boot), pending xe007 (the engine's ERROR 35 s later): the fail they were reconciled with."""
    for prefix, host in (("b027", "spark"), ("zd008", "spark"), ("ze004", "spark"), ("xe007", "spark")):
        sections = explain(corpus(prefix), host=host, nodes=2)
        assert _worst(sections) == "fail", prefix
