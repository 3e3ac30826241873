"""The faults people report on Spark clusters (issue 14 part 4; shared/research/procedure.md §5), each read
in the shape the field prints it: the diagnosis table (checks/diagnoses.toml) names the fault and its fix,
through ``diagnose_text`` for any paste (a dmesg, an ssh error, a netplan file, a ``ray status``, a
traceback's tail) and through ``diagnose`` where the text is a vLLM log.

Each output is quoted from the source named in the comment above it (the exact line; a process prefix or
the surrounding lines only where the comment says so).
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from grader.diagnoses import diagnose, diagnose_text, known_faults, load_table
from grader.parsers.vllm_log import parse_vllm_log

FIELD = Path(__file__).resolve().parent / "fixtures" / "field"

# https://github.com/ray-project/ray/issues/59249 (vLLM across two nodes, Ray's compiled graph); the same
# error with PP across nodes: https://github.com/vllm-project/vllm/issues/27116
RAY_CHANNEL = """\
(EngineCore_DP0 pid=579) ERROR 12-05 22:43:45 [core.py:845] File "/usr/local/lib/python3.12/dist-packages/ray/experimental/channel/shared_memory_channel.py", line 480, in read
(EngineCore_DP0 pid=579) ERROR 12-05 22:43:45 [core.py:845] ret = self._worker.get_objects(
(EngineCore_DP0 pid=579) ERROR 12-05 22:43:45 [core.py:845] File "python/ray/includes/common.pxi", line 123, in ray._raylet.check_status
(EngineCore_DP0 pid=579) ERROR 12-05 22:43:45 [core.py:845] ray.exceptions.RayChannelTimeoutError: System error: Timed out waiting for object available to read. ObjectID: 007e768e7da845eb498bddc26311bb55310405340100000002e1f505
(EngineCore_DP0 pid=579) ERROR 12-05 22:43:45 [core.py:845]
"""

# https://github.com/vllm-project/vllm/issues/30163 (2x DGX Spark, vllm-openai nightly-aarch64): as reported,
# and in ptxas's own spacing (`ptxas fatal   : ...`)
PTXAS = "ptxas fatal: Value 'sm_121a' is not defined for option 'gpu-name'\n"
PTXAS_SPACED = "ptxas fatal   : Value 'sm_121a' is not defined for option 'gpu-name'\n"

# https://github.com/vllm-project/vllm/issues/30163 (v0.12.0-aarch64 on 2x DGX Spark, TP=2 and PP=2 alike)
CUTLASS = "RuntimeError: [FP4 gemm Runner] Failed to run cutlass FP4 gemm on sm120. Error: Error Internal\n"

# https://github.com/eugr/spark-vllm-docker/pull/157 (Gemma4 NVFP4 on a DGX Spark; the image's transformers < 5)
MODEL_TYPE = ("Value error, The checkpoint you are trying to load has model type `gemma4` but Transformers does not "
              "recognize this architecture. This could be because of an issue with the checkpoint, or because your "
              "version of Transformers is out of date.\n")

# https://github.com/NVIDIA/dgx-spark-playbooks/issues/75 (the gemma4-cu130 image in run_cluster.sh); the
# second is the same failure under /bin/sh (dash), which prints `ray: not found`
RAY_BASH = "/bin/bash: line 1: ray: command not found\n"
RAY_SH = "/bin/sh: 1: ray: not found\n"

# `ray status` on two one-GPU Sparks with vLLM's placement group pending: the demand is the one
# https://github.com/eugr/spark-vllm-docker/issues/227 reports (specs=[{'GPU': 1.0, 'node:192.168.50.192': 0.001},
# {'GPU': 1.0}] (PACK)), printed in Ray's `Demands:` form (tests/fixtures/field/14_..., from
# https://github.com/vllm-project/vllm/issues/12670); node and resource lines as docs/research/procedure.md §3.6
RAY_STATUS_PACK = """\
======== Autoscaler status: 2026-05-02 10:12:31.118409 ========
Node status
---------------------------------------------------------------
Active:
 1 node_4c9baf725a0e654
 1 node_e6107ebf05bbc00
Pending:
 (no pending nodes)
Recent failures:
 (no failures)

Resources
---------------------------------------------------------------
Usage:
 0.0/40.0 CPU
 0.0/2.0 GPU
 0B/221.76GiB memory
 0B/19.46GiB object_store_memory

Demands:
 {'GPU': 1.0, 'node:192.168.50.192': 0.001} * 1, {'GPU': 1.0} * 1 (PACK): 1+ pending placement groups
"""

# https://github.com/BAAI-DCAI/SpatialBot/issues/4 (a gated model's download, huggingface_hub)
GATED = """\
huggingface_hub.utils._errors.GatedRepoError: 401 Client Error. (Request ID: Root=1-66b3973a-536436994685db4009aff22c;6288d9d6-f3ac-4157-a6fe-221500b0ee38)

Cannot access gated repo for url https://huggingface.co/RussRobin/SpatialBot-3B/resolve/main/config.json.
Access to model RussRobin/SpatialBot-3B is restricted. You must be authenticated to access it.
"""

# https://github.com/NVIDIA/dgx-spark-playbooks/issues/97 (the head hard-reset during a 128K prefill), as
# quoted there (the driver's line wrapped in two); the one-line form is https://github.com/vllm-project/vllm/issues/56824
NV_ERR = """\
NVRM: nvCheckOkFailedNoLog: Check failed: Out of memory [NV_ERR_NO_MEMORY]
(0x00000051) returned from _memdescAllocInternal(pMemDesc) @ mem_desc.c:1359
"""
NV_ERR_DMESG = ("[ 8312.504411] NVRM: nvCheckOkFailedNoLog: Check failed: Out of memory [NV_ERR_NO_MEMORY] (0x00000051) "
                "returned from _memdescAllocInternal(pMemDesc) @ mem_desc.c:1359\n")

# avahi-daemon's journal line (the shape of https://github.com/avahi/avahi/issues/193), with the Spark names
# https://github.com/NVIDIA/dgx-spark-playbooks/issues/56 reports (spark1 advertised as spark1-30.local)
AVAHI = """\
Jan 29 10:02:11 spark1 avahi-daemon[1187]: Withdrawing address record for fe80::5a1f:1bff:fe2c:90a1 on enp1s0f0np0.
Jan 29 10:02:11 spark1 avahi-daemon[1187]: Host name conflict, retrying with spark1-30
"""

# NVIDIA's performance guide's netplan (docs/research/procedure.md §1.3, [NV-PERF]: port 0 with
# `renderer: NetworkManager`, 192.168.200.12/24 and 192.168.201.12/24)
NETPLAN_NM = """\
network:
  version: 2
  renderer: NetworkManager
  ethernets:
    enp1s0f0np0:
      addresses: [192.168.200.12/24]
    enP2p1s0f0np0:
      addresses: [192.168.201.12/24]
"""

# OpenSSH's refusal: https://github.com/MiaAI-Lab/sparkDash/issues/44 (between two DGX Sparks) and the
# plain form (https://github.com/amplab/spark-ec2/issues/58)
SSH_SPARKDASH = ("Connection successful (SSH ✗ SSH to 192.168.220.79 failed: admin@192.168.220.79: Permission denied "
                 "(publickey,password). · LLM ✓)\n")
SSH_PLAIN = "nvidia@spark-a:~$ ssh 192.168.100.11 hostname\nnvidia@192.168.100.11: Permission denied (publickey).\n"

# ssh-keygen's own message where ~/.ssh is missing, as a user met it (microsoft/vscode-azurevirtualmachines#97,
# verbatim), and as discover-sparks runs it on a Spark whose user never made ~/.ssh (reported fault #40)
SSH_DIR_WINDOWS = ('Error: command "ssh-keygen -t rsa -b 4096 -f "C:\\Users\\username\\.ssh\\keyname_rsa" -N *** failed '
                   'with exit code "1":\nSaving key "C:\\\\Users\\\\username\\\\.ssh\\\\keyname_rsa" failed: No such '
                   'file or directory\n')
SSH_DIR = ("nvidia@spark-a:~/dgx-spark-playbooks/nvidia/connect-two-sparks/assets$ bash ./discover-sparks\n"
           "Found: 192.168.100.11 (spark-b.local)\nGenerating public/private ed25519 key pair.\n"
           'Saving key "/home/nvidia/.ssh/id_ed25519_shared" failed: No such file or directory\n')


def one(text: str, kind: str):
    """The diagnosis of ``kind`` that diagnose_text gives for ``text`` (it must give one, as a fail)."""
    found = {d.kind: d for d in diagnose_text(text)}
    assert kind in found, (kind, sorted(found))
    return found[kind]


# --------------------------------------------------------------------------- each fault, in the field's shape

def test_pipeline_parallel_hang_ray_channel_timeout():
    d = one(RAY_CHANNEL, "ray-channel-timeout")
    assert d.severity == "fail" and "RayChannelTimeoutError" in d.message and "pipeline parallel" in d.message
    assert "RAY_CGRAPH_get_timeout" in d.fix and "--nnodes 2" in d.fix and "TP=2 instead of PP" in d.fix
    # in a vLLM log, diagnose names it before the generic exception
    log_kinds = [x.kind for x in diagnose(parse_vllm_log(RAY_CHANNEL))]
    assert log_kinds[0] == "ray-channel-timeout" and "exception" not in log_kinds


@pytest.mark.parametrize("text", [PTXAS, PTXAS_SPACED])
def test_nvfp4_ptxas_does_not_know_sm_121a(text):
    d = one(text, "nvfp4-sm121")
    assert "sm_121a" in d.message and "Triton" in d.message
    assert "TRITON_PTXAS_PATH=/usr/local/cuda/bin/ptxas" in d.fix


def test_nvfp4_cutlass_error_internal():
    d = one(CUTLASS, "nvfp4-sm121")
    assert "CUTLASS NVFP4" in d.message and "sm_121" in d.message and "Error Internal" in d.message
    assert "SM12x NVFP4" in d.fix and "FP8, MXFP4, AWQ" in d.fix
    assert [x.kind for x in diagnose(parse_vllm_log(CUTLASS))] == ["nvfp4-sm121"]


def test_an_image_that_does_not_know_the_model_type():
    d = one(MODEL_TYPE, "model-type-unknown")
    assert "(gemma4)" in d.message and "newer than the image" in d.message
    assert "transformers" in d.fix and "pip install 'ray[default]'" in d.fix
    vllm = one("ValueError: Model architectures ['Gemma4ForConditionalGeneration'] are not supported for now.\n",
               "model-type-unknown")
    assert "Gemma4ForConditionalGeneration" in vllm.message


@pytest.mark.parametrize("text", [RAY_BASH, RAY_SH])
def test_ray_not_in_the_image(text):
    d = one(text, "ray-missing")
    assert "vLLM >= 0.18 no longer depends on it" in d.message and text.strip() in d.message
    assert "pip install 'ray[default]'" in d.fix
    # the parser's event names the bash form; the table's text pattern the sh form, in a log as well
    assert [x.kind for x in diagnose(parse_vllm_log("INFO 11-29 14:02:11 [api_server.py:1] vLLM API server "
                                                     "version 0.32.0\n" + text))][0] == "ray-missing"


def test_pack_placement_on_one_gpu_nodes():
    d = one(RAY_STATUS_PACK, "pg-pack-one-gpu-nodes")
    assert "2 Ray nodes has one GPU" in d.message and "(PACK)" in d.message
    assert "node:<address>" in d.message  # the anchored bundle: the other cause is named, not excluded
    assert ("VLLM_DISTRIBUTED_EXECUTOR_CONFIG='{\"placement_group_options\":{\"strategy\":\"SPREAD\"}}'"
            in d.fix) and "VLLM_HOST_IP" in d.fix


def test_a_pending_pack_group_on_multi_gpu_nodes_is_not_called_the_one_gpu_fault():
    """vllm#12670: 2 nodes, 16 GPUs all free, a PACK group pending for a node:<hostname> anchor: the cause is
    the driver's node address, not PACK on one-GPU nodes (tests/fixtures/field/README.md)."""
    text = (FIELD / "14_ray-status_vllm12670-pending-placement-group.txt").read_text()
    assert "(PACK)" in text
    assert diagnose_text(text) == []


def test_a_gated_hugging_face_model():
    d = one(GATED, "hf-gated")
    assert "RussRobin/SpatialBot-3B" in d.message and "gated" in d.message and "401" in d.message
    assert "HF_TOKEN" in d.fix and "hf auth login" in d.fix and "rsync" in d.fix
    for line in ("Access to model meta-llama/Llama-3.1-8B-Instruct is restricted. You must have access to it and be "
                 "authenticated to access it. Please log in.\n",
                 "OSError: You are trying to access a gated repo.\n"):
        assert one(line, "hf-gated")


@pytest.mark.parametrize("text", [NV_ERR, NV_ERR_DMESG])
def test_unified_memory_oom_in_the_kernel_log(text):
    """The driver's line alone (as dgx-spark-playbooks#97 and vllm#56824 quote it) is a warn that says it proves
    nothing on its own (the field corpus's revised m008, xm009); beside what the run did (here the kernel's OOM kill)
    it is the fail with its fix."""
    d = one(text, "unified-memory-nv-err")
    assert d.severity == "warn" and "NV_ERR_NO_MEMORY" in d.message and "unified memory" in d.message
    assert "also appears in runs that survived" in d.message and "does not prove" in d.message
    assert "--gpu-memory-utilization" in d.fix and "drop_caches" in d.fix and "journalctl -k -b -1" in d.fix
    d = one(text + OOM_KILL, "unified-memory-nv-err")
    assert d.severity == "fail" and "also appears in runs that survived" in d.message  # not a claim the line can't carry
    assert "--gpu-memory-utilization" in d.fix and "drop_caches" in d.fix and "journalctl -k -b -1" in d.fix
    assert "-b 16G" in d.fix


OOM_KILL = ("[ 2457.202100] python3 invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0\n"
            "[ 2457.202442] Free swap  = 0kB\n[ 2457.202445] Tasks state (memory values in pages):\n"
            "[ 2457.311000] Out of memory: Killed process 3721 (vllm) total-vm:120342112kB, anon-rss:46100232kB\n")


@pytest.mark.parametrize("text, said", [
    (OOM_KILL, "vllm (pid 3721) was killed"),
    # vllm#54237: a report pasted from inside its task table, neither line naming the process in it
    ("[ 2457.202442] Free swap  = 0kB\n[ 2457.202445] Tasks state (memory values in pages):\n", "to get some back. "),
])
def test_the_kernels_oom_killer(text, said):
    d = one(text, "host-oom-killer")
    assert said in d.message and "host memory" in d.message and "--gpu-memory-utilization" in d.fix


AER_FATAL = ("[  +0.000844] nvidia 0000:03:00.0: AER: can't recover (no error_detected callback)\n"
             "[  +0.000001] pcieport 0000:00:03.0: AER: Multiple Uncorrected (Fatal) error received: 0000:00:03.0\n"
             "[  +0.000894] pcieport 0000:00:03.0:    [14] CmpltTO                (First)\n"
             "[  +0.000041] pcieport 0000:00:03.0: AER: device recovery failed\n")
NCCL_SYSTEM = "initialize_model_parallel -> init_model_parallel_group\nRuntimeError: NCCL error: unhandled system error\n"
GID_EMPTY = ("[glm53-exl3] worker GID index 3 is EMPTY on rocep1s0f0\n[glm53-exl3] ERROR: set NCCL_IB_GID_INDEX (same "
             "index both ranks) or HEAD_GID/WORKER_GID\n")
GID_NODATA = ("E0302 08:32:30.369483 57711 rdma_context.cpp:450] Failed to query GID 244 on rocep153s0/: No data "
              "available [61]\nE0302 08:32:30.369484 57711 rdma_context.cpp:450] Failed to query GID 245 on rocep153s0/: "
              "No data available [61]\n")
RAY_INFEASIBLE_OLD = ("2021-02-22 13:27:35,626\tINFO resource_demand_scheduler.py:604 -- No feasible node type to add for "
                      "[{'memory': 41.0, 'CPU': 1.0}, {'memory': 41.0, 'CPU': 1.0}]\n")
ORDINAL = ("(VllmWorker rank=1 pid=839) ERROR 10-24 13:48:14 [multiproc_executor.py:514] torch.AcceleratorError: "
           "HIP error: invalid device ordinal\n")
STORE_TIMEOUT = ("torch.distributed.DistStoreError: Timed out after 6 seconds waiting for workers. 1/2 workers "
                 "joined.\n")


def test_pcie_errors_the_kernel_reports_name_their_first_error():
    # rwth-i6/returnn #1500: a completion timeout at the root port above an NVIDIA GPU, recovery failed
    d = one(AER_FATAL, "pcie-aer")
    assert "at 0000:00:03.0, CmpltTO first" in d.message and "reseat the card" in d.fix
    # without its (First) line: the severity line alone
    d = one(AER_FATAL.replace("(First)", ""), "pcie-aer")
    assert "uncorrectable error (`" in d.message and "CmpltTO first" not in d.message


def test_nccl_system_error_and_a_store_nobody_joined():
    # MiaAI-Lab/GLM-5.3-Flash-EXL3-2x-DGX-Sparks PR #26; pytorch/pytorch PR #111805
    assert "unhandled system error" in one(NCCL_SYSTEM, "nccl-error").message
    d = one(GID_EMPTY, "gid-index-empty")  # MiaAI-Lab/GLM-5.3-Flash-EXL3-2x-DGX-Sparks docs (a launcher's check)
    assert "GID index 3 of rocep1s0f0 empty" in d.message and "/sys/class/infiniband/rocep1s0f0/" in d.fix
    # kvcache-ai/Mooncake #1592: empty GID entries (a warning: the walk may still find one); ray-project/raydp #76
    [(level, message)] = known_faults(GID_NODATA)
    assert level == "warn" and "GID 244 of rocep153s0 returned `No data available`" in message
    assert "{'memory': 41.0, 'CPU': 1.0} (`" in one(RAY_INFEASIBLE_OLD, "ray-infeasible-node-type").message
    # ROCm/ROCm #5567: TP 2 with the default executor on a one-GPU node
    assert "--distributed-executor-backend ray" in one(ORDINAL, "invalid-device-ordinal").fix
    d = one(STORE_TIMEOUT, "torch-store-timeout")
    assert "waited 6 s and only 1 of 2 processes (1/2) joined" in d.message and "MASTER_ADDR" in d.fix


def test_networkmanager_on_the_cx7_ports_host_name_conflict():
    d = one(AVAHI, "avahi-host-name-conflict")
    assert "spark1-30.local" in d.message and "NetworkManager" in d.message and "ConnectX-7" in d.message
    assert "renderer: networkd" in d.fix and "nmcli connection delete" in d.fix and "allow-interfaces" in d.fix


def test_a_missing_ssh_folder_is_named_with_the_key_it_could_not_write():
    d = one(SSH_DIR, "ssh-dir-missing")
    assert "`/home/nvidia/.ssh/id_ed25519_shared`" in d.message and "discover-sparks" in d.message
    assert d.fix.startswith("`mkdir -p ~/.ssh && chmod 700 ~/.ssh`")
    # not this fault (a break-it review): a folder below ~/.ssh (mkdir -p ~/.ssh would not make it), a path not under
    # .ssh, and Windows, where the fix's mkdir -p and chmod are not the commands (and the laptop is not a node)
    for other in ('Saving key "/home/nvidia/.ssh/keys/spark/id_ed25519" failed: No such file or directory\n',
                  'Saving key "/home/nvidia/id_test" failed: No such file or directory\n', SSH_DIR_WINDOWS):
        assert "ssh-dir-missing" not in {x.kind for x in diagnose_text(other)}, other


def test_networkmanager_renderer_in_the_cx7_netplan():
    d = one(NETPLAN_NM, "cx7-networkmanager")
    assert d.severity == "warn" and "enp1s0f0np0" in d.message and "Host name conflict" in d.message
    assert "renderer: networkd" in d.fix and "netplan apply" in d.fix


@pytest.mark.parametrize("text", [
    # Ubuntu desktop's stock /etc/netplan/01-network-manager-all.yaml: no CX-7 port in it
    "# Let NetworkManager manage all devices on this system\nnetwork:\n  version: 2\n  renderer: NetworkManager\n",
    # the stock file and a CX-7 file that hands the ports to networkd, pasted together
    "network:\n  version: 2\n  renderer: NetworkManager\n---\nnetwork:\n  version: 2\n  renderer: networkd\n"
    "  ethernets:\n    enp1s0f1np1:\n      addresses: [192.168.100.10/24]\n",
])
def test_networkmanager_elsewhere_is_not_the_cx7_fault(text):
    assert diagnose_text(text) == []


@pytest.mark.parametrize("text, methods", [(SSH_SPARKDASH, "publickey,password"), (SSH_PLAIN, "publickey")])
def test_ssh_permission_denied_publickey(text, methods):
    d = one(text, "ssh-publickey")
    assert f"Permission denied ({methods})" in d.message and "authorized_keys" in d.message
    assert "ssh-copy-id" in d.fix and "discover-sparks" in d.fix and "BatchMode=yes" in d.fix


# --------------------------------------------------------------------------- as explain would show them

# https://github.com/vllm-project/vllm/issues/15102 (vLLM 0.8.0 V1, Ray compiled graph over two nodes), cut before
# the exception line as the thread's excerpt is
CGRAPH_READ = ("ERROR 03-14 00:01:05 [core.py:337] EngineCore hit an exception: Traceback (most recent call last):\n"
               'ERROR 03-14 00:01:05 [core.py:337]   File "/usr/local/lib/python3.12/dist-packages/ray/dag/'
               'compiled_dag_node.py", line 2344, in _execute_until\n'
               "ERROR 03-14 00:01:05 [core.py:337]     result = self._dag_output_fetcher.read(timeout)\n")


def test_a_compiled_graph_read_cut_before_its_exception():
    d = one(CGRAPH_READ, "ray-channel-timeout")
    assert "RayChannelTimeoutError" in d.message and "RAY_CGRAPH_get_timeout" in d.fix


# https://github.com/vllm-project/vllm/issues/19703: vLLM says it set 300 s, the read fails 12 s later (cut before
# the exception, as the thread's excerpt is)
CGRAPH_UNAPPLIED = ("INFO 06-12 10:46:22 [ray_distributed_executor.py:579] RAY_CGRAPH_get_timeout is set to 300\n"
                    + CGRAPH_READ.replace("03-14 00:01:05", "06-12 10:46:34"))


def test_a_compiled_graph_timeout_that_did_not_reach_ray():
    d = one(CGRAPH_UNAPPLIED, "ray-channel-timeout")
    assert "only 12 s later" in d.message and "did not take effect" in d.message and "ray start" in d.fix
    # a failure 300 s or more after the setting, another day's, or with no setting logged: the generic reading
    for later in (CGRAPH_UNAPPLIED.replace("10:46:34", "10:51:22"), CGRAPH_UNAPPLIED.replace("ERROR 06-12", "ERROR 06-13"),
                  CGRAPH_READ):
        assert "did not take effect" not in one(later, "ray-channel-timeout").message


# https://github.com/ray-project/ray/issues/45179 (vLLM TP=4 over two Ray nodes), the line as posted
RAY_DEAD = ("(raylet) The node with node id: 0f219779261fab027e79667e6451e061ded81c76f07d05584652d818 and address: "
            "10.0.0.51 and node name: 10.0.0.51 has been marked dead because the detector has missed too many "
            "heartbeats from it. This can happen when a \t(1) raylet crashes unexpectedly (OOM, preempted node, etc.) \n")


def test_a_node_ray_marked_dead():
    d = one(RAY_DEAD, "ray-node-marked-dead")
    assert "10.0.0.51" in d.message and "raylet.out" in d.fix


# https://github.com/tinygrad/open-gpu-kernel-modules/issues/47 (nvidia-smi against a module of another release)
NVML = "nvidia-smi \nFailed to initialize NVML: Driver/library version mismatch\nNVML library version: 570.124\n"
# https://github.com/NVIDIA/open-gpu-kernel-modules/issues/862 (RTX 5090: nvidia-smi, then the kernel log)
RM_INIT = ("# nvidia-smi\nNo devices were found\n\n# meanwhile, output in /var/log/syslog\n"
           "Jul 01 22:55:07 gpu kernel: NVRM: GPU 0000:01:00.0: rm_init_adapter failed, device minor number 0\n")
# https://github.com/NVIDIA/dcgm-exporter/issues/84 (A100, driver 515), the serial number neutralised
XID_GSP = ("[Mon Jul 25 16:46:04 2022] NVRM: Xid (PCI:0000:3b:00): 120, pid='<unknown>', name=<unknown>, GSP Error: "
           "Task 1 raised error code 0x5 for reason 0x0 at 0x63f01ac (0 more errors skipped)\n"
           "[Mon Jul 25 16:46:20 2022] NVRM: Xid (PCI:0000:3b:00): 119, pid='<unknown>', name=<unknown>, Timeout "
           "waiting for RPC from GSP! Expected function FREE (0x0 0x0).\n")
# https://github.com/leptonai/gpud/pull/117 (a killed process's channels torn down)
XID_45 = "[Sat Oct 12 18:35:32 2024] NVRM: Xid (PCI:0000:61:00): 45, pid=1496200, name=distprovers-gpu, Ch 0000000a\n"
# https://github.com/canonical/ubuntu-server-documentation/issues/207 (xh004): netplan refusing a file
NETPLAN_INDENT = ("/etc/netplan/50-couch5.yaml:7:7: Error in network definition: expected mapping (check indentation)\n"
                  "      - 192.168.0.5/24\n      ^\n")
# https://github.com/lavabit/robox/issues/296 (xh003): netplan's warning on a world-readable file, the file applied
NETPLAN_OPEN = ("** (generate:3775): WARNING **: 11:04:25.237: Permissions for /etc/netplan/00-installer-config.yaml are "
                "too open. Netplan configuration should NOT be accessible by others.\n")
# https://github.com/vllm-project/vllm/issues/5901 (A800, tests/fixtures/field/pending/xn017_*): a kernel's fault
XID_13 = ("[93297.027938] NVRM: Xid (PCI:0000:43:00): 13, pid='<unknown>', name=<unknown>, Graphics Exception: ESR "
          "0x52e7b0=0x101000e 0x52e7b4=0x4 0x52e7a8=0xc81eb60 0x52e7ac=0x1174\n")
# https://github.com/NVIDIA/open-gpu-kernel-modules/issues/1150 (xk012_*: four GPUs' channels torn down after an NVLink NETIR error)
XID_149 = "kernel: NVRM: Xid (PCI:0000:dc:00): 45, pid=1818990, name=python3, Ch 00000001 caused by previous Xid 149\n"
# https://github.com/NVIDIA/open-gpu-kernel-modules/issues/1151 (RTX 5080)
XID_79 = "May 18 19:02:39 kernel: NVRM: Xid (PCI:0000:2b:00): 79, GPU has fallen off the bus.\n"
# https://github.com/PeterSuh-Q3/tinycore-redpill/issues/9 (tests/fixtures/field/corpus/g007_*): the driver's probe of a
# ConnectX-4 Lx failing
MLX5_PROBE = ("[   13.672173] mlx5_core 0000:03:00.0: handle_hca_cap failed\n[   14.059052] mlx5_core 0000:03:00.0: "
              "mlx5_load_one failed with error code -22\n[   14.059582] mlx5_core: probe of 0000:03:00.0 failed with error -22\n")


@pytest.mark.parametrize("text, kind, level, words", [
    (NVML, "nvml-mismatch", "fail", "kernel module"), (RM_INIT, "rm-init-adapter", "fail", "Above 4G"),
    (XID_GSP, "xid", "fail", "firmware"), (XID_45, "xid", "warn", "Xid catalog"), (XID_79, "xid", "fail", "fallen off"),
    (XID_13, "xid", "fail", "CUDA context of the process on that GPU is dead"), (XID_149, "xid", "fail", "Xid 149")])
def test_the_gpu_and_its_driver(text, kind, level, words):
    d = one(text, kind)
    assert d.severity == level and words in d.message + d.fix, d


# https://github.com/NVIDIA/nccl/issues/426 (fixed by NCCL_IB_GID_INDEX=3)
NCCL_WC12 = ("-worker-1:946:988 [0] transport/net_ib.cc:839 NCCL WARN NET/IB : Got completion with error 12, opcode 1, "
             "len 0, vendor err 129\n")
# https://github.com/kreuzhofer/dgx-manager (docs/glm-5.2-256k-to-320k.md): a torch OOM quoted in two lines, elided
OOM_BARE = "CUDA out of memory. Tried to allocate 5.00 GiB.\nGPU 0 ... of which 9.71 GiB is free.  This process has 101.86 GiB in use.\n"
# https://github.com/wtdcode/vllm-backport/issues/34 (ranks 4-7 of 8 RTX 3090s)
MAPPING_OOM = ("[rank6]:[W827 22:16:08.235274377 CUDACachingAllocator.cpp:508] expandable_segments: memory mapping failed "
               "with OOM on device 6 while trying to map 20971520 bytes (free: 8847360, total: 25295323136).\n")
# https://github.com/sgl-project/sglang/issues/1479 (8 GPUs, DeepSeek-V2.5)
SGLANG_TP = ("[23:17:01 TP4] Memory pool end. avail mem=18.66 GB\n[23:17:01 TP4] Capture cuda graph begin. This can take "
             "up to several minutes.\n[23:17:08 TP4] Exception in run_tp_server:\n")
# https://github.com/sgl-project/sglang/issues/3932 (two H200 nodes; the log as a collector stamped it)
WATCHDOG_NEW = ("[2025-02-27T16:30:43.48675097Z] [rank3]:[E227 16:30:43.526290891 ProcessGroupNCCL.cpp:1785] [PG ID 2 PG "
                "GUID 3 Rank 3] Exception (either an error or timeout) detected by watchdog at work: 32, last enqueued NCCL "
                "work: 32, last completed NCCL work: 31.\n")
# blind batch zj005 (a Proxmox host's boot log): a GPU on x4 of its x16 lanes; another at x16 and a lower speed
PCIE_NARROW = ("[Mon Jun 15 16:00:09 2026] pci 0000:04:00.0: 63.012 Gb/s available PCIe bandwidth, limited by 16.0 GT/s "
               "PCIe x4 link at 0000:00:01.2 (capable of 504.112 Gb/s with 32.0 GT/s PCIe x16 link)\n")
PCIE_SLOWER = ("[    1.208311] pci 0000:01:00.0: 32.000 Gb/s available PCIe bandwidth, limited by 2.5 GT/s PCIe x16 link "
               "at 0000:00:01.1 (capable of 252.048 Gb/s with 16.0 GT/s PCIe x16 link)\n")
# https://github.com/ray-project/ray/issues/24305 (blind batch zk003)
GLOO_LOOPBACK = "RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:799] connect [127.0.0.1]:14221: Connection refused\n"
# https://github.com/NVIDIA/nccl-tests/issues/180 (blind batch zk006)
UCX_REFUSED = ("[10-192-80-132.cls:07356] pml_ucx.c:424  Error: ucp_ep_create(proc=3) failed: Destination is "
               "unreachable\n")
# https://github.com/sgl-project/sglang/issues/7478 (blind batch zk018)
STORE_WAIT = ("[rank7]:[W623 15:37:01.835386612 socket.cpp:485] [c10d] waitForInput: socket SocketImpl(fd=100, "
              "addr=[node-0.company.net]:43570, remote=[node-0.company.net]:20000) timed out after 1800000ms\n")
# https://github.com/NVIDIA/TensorRT-LLM/issues/2594 (blind batch zk014)
UCX_NO_DEVICE = ("[1734600615.130476] [worker1:4318 :0]     ucp_context.c:1234 UCX  WARN  network device 'mlx3_1:1' is "
                 "not available, please use one or more of: 'eth0'(tcp), 'lo'(tcp), 'mlx5_0:1'(ib), 'mlx5_1:1'(ib)\n")
# https://github.com/vllm-project/vllm/issues/14349 (blind batch zk017)
RAY_CLIENT = ("2025-03-06 17:44:11,132\tINFO worker.py:1514 -- Using address ray://192.168.1.67:10001 set in the "
              "environment variable RAY_ADDRESS\n")
# joorklee/p2p-bench's vLLM log (blind batch zj007): which all-reduce backends TP uses, and one left out
ALLREDUCE = ("(Worker pid=1417088) INFO 06-16 20:46:09 [cuda_communicator.py:237] Using ['PYNCCL'] all-reduce backends "
             "(in dispatch order) for group 'tp:0' out of potential backends: ['CUSTOM', 'PYNCCL'].\n")
SYMM_MEM = ("(Worker pid=1417088) WARNING 06-16 20:46:09 [symm_mem.py:66] SymmMemCommunicator: Device capability 12.0 not "
            "supported, communicator is not available.\n")
# https://github.com/stackhpc/ansible-slurm-appliance/pull/975 (blind batch zj018)
PL_REFUSED = ("Provided power limit 50.00 W is not a valid power limit which should be between 200.00 W and 700.00 W for "
              "GPU 00000000:06:00.0\n")
# https://github.com/sgl-project/sglang/issues/16302 (blind batch zl015): PyTorch's capability warning, wrapped, on a GB10
TORCH_CAP = ("  Found GPU0 NVIDIA GB10 which is of cuda capability 12.1.\n    Minimum and Maximum cuda capability supported "
             "by this version of PyTorch is\n    (8.0) - (12.0)\n")
# https://github.com/NVIDIA/nccl/issues/230 (mpirun's prefixes; the async thread's failure after the event)
NCCL_FATAL = ("2019-06-02T16:13:44.884Z: [1,12]<stdout>:container-57:815:864 [0] transport/net_ib.cu:80 NCCL WARN NET/IB : "
              "Got async event : local catastrophic error\n2019-06-02T16:13:44.884Z: [1,12]<stdout>:container-57:815:864 "
              "[0] misc/ibvwrap.cu:220 NCCL WARN Call to ibv_get_async_event failed\n")
# https://github.com/NVIDIA/nccl/issues/1664 (the NET/IBP plugin's line as the issue quotes it: no host:pid:tid, no
# "NCCL WARN"; the peer's public address as the corpus redacted it, tests/fixtures/field/corpus/f001_*)
NCCL_WC12_BARE = ("NET/IBP:Got completion from peer 203.0.113.83<36315> with status=12 opcode=32698 len=32696 vendor err "
                  "129 (Send)\n")
# https://github.com/NVIDIA/nccl/issues/795 (a rank had crashed first)
NCCL_CLOSED = ("a100-st-p4d24xlarge-22:183006:183181 [1] misc/socket.cc:538 NCCL WARN Net : Connection closed by remote "
               "peer a100-st-p4d24xlarge-22<47861>\n")
# https://github.com/NVIDIA/nccl-tests/issues/166
NCCL_CONNECT = ("ubuntu:39964:40075 [0] misc/socket.cc:483 NCCL WARN socketStartConnect: Connect to 10.0.0.2<45763> failed "
                ": Software caused connection abort\n")
# https://github.com/NVIDIA/TensorRT-LLM/issues/1039 (an earlier NCCL call had failed; blind batch wh001)
COMM_AFTER_FAIL = ("instance-12463:390727:390727 [0] init.cc:303 NCCL WARN Attempt to use communicator before the "
                   "previous operation returned ncclSuccess\n")
# https://github.com/NVIDIA/nccl/issues/1405 (the IBext plugin's `with status=` form of the same completion error)
NCCL_WC12_STATUS = ("kp-ddp-worker-0:3468:3905 [4] ib_plugin.c:1615 NCCL WARN NET/IB : Got completion from peer "
                    "10.216.210.236<54862> with status=12 opcode=0 len=0 vendor err 129 (Recv) localGid "
                    "fd00:1148:9000:5000:4:200:3:ff22 remoteGidsfd00:1148:9000:5000:4:200:3:ff1f\n")
# https://github.com/NVIDIA/nccl/issues/563 (aws-ofi-nccl: registering GPU memory with EFA, ENOMEM)
NCCL_REG_NOMEM = ("ip-10-0-87-143:149:298 [5] register_mr_buffers:465 NCCL WARN NET/OFI Unable to register memory (type "
                  "= 1) for device 0. RC: 12, Error: Cannot allocate memory\n")
# https://github.com/aws/aws-ofi-nccl/issues/715 (EFA's completion queue, ENOMEM; CloudWatch's prefix kept)
FABRIC_NOMEM = ("  | 2024-11-28T07:42:11.527Z | libfabric:17778:1732779731::efa:cq:efa_cq_ibv_cq_ex_open_with_ibv_create_cq_"
                "ex():92<warn> Unable to create extended CQ: Cannot allocate memory\n")
# https://github.com/NVIDIA/nccl/issues/778
NCCL_REG_DMABUF = "misc/ibvwrap.cc:288 NCCL WARN Call to ibv_reg_dmabuf_mr failed with error Operation not supported\n"

# vllm-project/vllm#783: PyTorch's older OOM message, with the card's figures
OOM_TORCH = ("torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.63 GiB (GPU 0; 44.56 GiB total "
             "capacity; 27.91 GiB already allocated; 565.31 MiB free; 27.93 GiB reserved in total by PyTorch)\n")
# chentong0/copy-bench#2: vLLM V0's scheduler, quoted in a reply (`> `)
KV_PREEMPTED = ("> Sequence group 264 is preempted by PreemptionMode.RECOMPUTE mode because there is not enough KV "
                "cache space. This can affect the end-to-end performance. total_num_cumulative_preemption=1\n")

# eugr/spark-vllm-docker#227 (a line of vLLM's placement-group wait) and spark-arena/recipe-registry#13
PG_ANCHOR = "specs=[{'GPU': 1.0, 'node:192.168.50.192': 0.001}, {'GPU': 1.0}] (PACK)\n"
# vllm-project/vllm#14186: the autoscaler's word on a group pinned to an address no Ray node has
RAY_INFEASIBLE = ("(autoscaler +13s) Error: No available node types can fulfill resource request {'node:203.0.113.225': "
                  "0.001, 'GPU': 1.0}. Add suitable node types to this cluster to resolve this issue.\n")
# ray-project/ray#44063: Ray 2.9.3, the cluster's Python 3.10.13 against a node's 3.10.12
RAY_VERSIONS = ("RuntimeError: Version mismatch: The cluster was started with:\n    Ray: 2.9.3\n    Python: 3.10.13\n"
                "This process on node xx.xxx.x.x was started with:\n    Ray: 2.9.3\n    Python: 3.10.12\n")
# mark-ramsey-ri/vllm-dgx-spark#2: the head's launcher gave up waiting for vLLM's API
LAUNCHER_GAVE_UP = "[2025-11-18 13:19:17]   ⚠️  vLLM not ready after 3 minutes - continuing anyway\n"
# eugr/spark-vllm-docker#200: a negative CUDA graph estimate on unified memory
NEG_CUDAGRAPH = ("vllm_gb10_server  | (EngineCore pid=194) INFO 04-29 12:01:06 [gpu_model_runner.py:6042] Estimated CUDA "
                 "graph memory: -4.74 GiB total\n")
# lemonade-sdk/vllm-rocm#5: PyTorch 2.x's out-of-memory message behind a launcher's `[Error] (Process)` prefix
OOM_TORCH_2 = ("2026-05-08 11:47:02.257 [Error] (Process) (EngineCore pid=2651) torch.OutOfMemoryError: HIP out of memory. "
               "Tried to allocate 12.95 GiB. GPU 0 has a total capacity of 127.00 GiB of which 18.55 GiB is free. Of the "
               "allocated memory 99.37 GiB is allocated by PyTorch, and 121.80 MiB is reserved by PyTorch but "
               "unallocated.\n")
# spark-arena/sparkrun#157: a launcher's SSH to an address on a link the head is not on (three Sparks in a mesh)
SSH_TIMEOUT = ("  SSH cmd <- 192.168.2.1 FAILED rc=255 (10.0s): ssh: connect to host 192.168.2.1 port 22: Connection timed "
               "out\n")
# jethac/dgx-spark-hijinks: the NGC SGLang container's banner (64 MB /dev/shm; forward compatibility is info, not here)
SHM_64MB = ("NOTE: The SHMEM allocation limit is set to the default of 64MB.  This may be\n   insufficient for SGLang.  "
            "NVIDIA recommends the use of the following flags:\n")
FORWARD_COMPAT = ("NOTE: CUDA Forward Compatibility mode ENABLED.\n  Using CUDA 13.2 driver version 595.58.03 with kernel "
                  "driver version 580.159.03.\n  See https://docs.nvidia.com/deploy/cuda-compatibility/ for details.\n")


# linux-rdma/perftest#262: libibverbs' word on providers of other vendors' NICs it cannot load (info, harmless)
PROVIDER = ("libibverbs: Warning: couldn't load driver 'libmana-rdmav34.so': libmana-rdmav34.so: cannot open shared "
            "object file: No such file or directory\n")


def test_forward_compatibility_is_said_not_judged():
    """The same banner's forward-compatibility note is a fact (info), with the three versions read whole."""
    [d] = diagnose_text(FORWARD_COMPAT)
    assert d.severity == "info" and "595.58.03 (CUDA 13.2)" in d.message and "driver 580.159.03," in d.message
    [p] = diagnose_text(PROVIDER)
    assert p.severity == "info" and "provider libmana:" in p.message and "Harmless" in p.message


SEMLOCK = ("FileNotFoundError: [Errno 2] No such file or directory\n"
           "    self._semlock = _multiprocessing.SemLock._rebuild(*state)\nException: WorkerProc initialization failed\n")

# NVIDIA/nccl-tests#5: nccl-tests' failure line of an NCCL 1.x build
NCCL_CUDA = "node03: Test NCCL failure all_reduce.cu:95 'unhandled cuda error'\n"

# leptonai/gpud#117: a task in D state after an Xid 45
HUNG_TASK = "[Sat Oct 12 18:38:44 2024] INFO: task cache_mgr_event:620917 blocked for more than 120 seconds.\n"

# https://github.com/eugr/spark-vllm-docker/issues/29 (two Sparks; comment of 2026-02-05): the launch as posted,
# and the first line of its log excerpt below it (the worker on spark-b, 192.168.100.11)
FASTSAFETENSORS_RAY = """\
./launch-cluster.sh  \\
  --eth-if enp1s0f0np0 \\
  --ib-if rocep1s0f0,roceP2p1s0f0 \\
exec vllm serve \\
  QuantTrio/MiniMax-M2-AWQ \\
  --served-model-name Keyper-Thinker \\
  --port 8000 \\
  --host 0.0.0.0 \\
  --gpu-memory-utilization 0.7 \\
  -tp 2 \\
  --distributed-executor-backend ray \\
  --max-model-len 80000 \\
  --load-format fastsafetensors \\
  --enable-auto-tool-choice \\
  --tool-call-parser minimax_m2 \\
  --reasoning-parser minimax_m2_append_think

(EngineCore_DP0 pid=1133) (RayWorkerWrapper pid=283, ip=192.168.100.11) INFO 02-05 23:19:21 [parallel_state.py:1234] world_size=2 rank=1 local_rank=0 distributed_init_method=tcp://192.168.100.10:45015 backend=nccl
"""


def test_fastsafetensors_across_two_sparks_warns_and_one_machine_does_not():
    """The continued command line is read whole (its model, -tp 2, the Ray backend, the loader), and a loader
    people report failing across nodes warns where the log shows a worker on another node; the same launch with
    `--load-format safetensors` (what worked in that thread), or without the other node's line, says nothing of it."""
    log = parse_vllm_log(FASTSAFETENSORS_RAY)
    assert log.command_args["model"] == "QuantTrio/MiniMax-M2-AWQ" and log.command_args["load_format"] == "fastsafetensors"
    assert log.parallel.tensor_parallel_size == 2 and log.worker_ips == ("192.168.100.11",)
    [d] = [d for d in diagnose(log) if d.kind == "fastsafetensors-across-nodes"]
    assert d.severity == "warn" and "with Ray workers on other nodes (192.168.100.11)" in d.message
    assert "--load-format safetensors" in d.fix and "fastsafetensors/issues/36" in d.source
    worked = FASTSAFETENSORS_RAY.replace("--load-format fastsafetensors", "--load-format safetensors")
    one_machine = FASTSAFETENSORS_RAY.rsplit("\n\n", 1)[0] + "\nINFO 02-05 23:19:01 [api_server.py:1] vLLM API server version 0.13.0\n"
    for text in (worked, one_machine):
        assert "fastsafetensors-across-nodes" not in [d.kind for d in diagnose(parse_vllm_log(text))]


# ServerlessLLM#311, gpustack#5181, ServerlessLLM#242 (the corpus's l006, l023, l021): Ray's object store in /tmp in a
# worker container, a raylet's listener on a port another process holds, a container ended by SIGSEGV
RAY_SHM = ("2025-11-07 05:43:08,882 WARNING services.py:2159 -- WARNING: The object store is using /tmp instead of "
           "/dev/shm because /dev/shm has only 67108864 bytes available. This will harm performance! You may be able to "
           "free up space by deleting files in /dev/shm.\n")
PORT_IN_USE = ("E0421 10:20:52.950933773      86 chttp2_server.cc:1063]                UNKNOWN:No address added out of "
               "total 1 resolved for '0.0.0.0:41008' {created_time:\"2026-04-21T10:20:52.950869327+08:00\"}\n")
SEGV_CONTAINER = ("CONTAINER ID   IMAGE                              COMMAND                  CREATED         STATUS   "
                  "                    PORTS     NAMES\n438a5d21b2b0   serverlessllm/sllm-worker:latest   \"/app/entrypoint."
                  "sh …\"   2 minutes ago   Exited (139) 2 minutes ago             sllm_worker_0\n")

RAY_NONE = ("ConnectionError: Could not find any running Ray instance. Please specify the one to connect to by setting "
            "the `--address` flag or `RAY_ADDRESS` environment variable.\n\nStopped all 4 Ray processes.\n")  # ray#62883

RAY_OOM_SPARK = ("ray.exceptions.OutOfMemoryError: 1 worker(s) were killed due to the node\nrunning low on memory. "
                 "Memory on the node (IP: 10.99.0.2) was\n113.76GB / 119.70GB (0.950345)\n")  # corpus m010
UNKNOWN_ENV = "WARNING [envs.py:1846] Unknown vLLM environment variable detected: VLLM_USE_RAY_COMPILED_DAG\n"  # m019
# (these two are info: said, no fault; read in test_every_known_error_line_is_read_here)
PEERMEM = "$ sudo modprobe nvidia-peermem\n\nmodprobe: ERROR: could not insert \u2018nvidia_peermem\u2019: Invalid argument\n"

KV_PAGE_SIZE = ("(EngineCore pid=114) ERROR 06-23 06:27:21 [core.py:1229]     filtered_spec = unify_kv_cache_spec_page_size("
                "filtered_spec)\n(EngineCore pid=114) ERROR 06-23 06:27:21 [core.py:1229]   File \"/usr/local/lib/python3.12/"
                "dist-packages/vllm/v1/core/kv_cache_utils.py\", line 1096, in unify_kv_cache_spec_page_size\n"
                "(EngineCore pid=114) ERROR 06-23 06:27:21 [core.py:1229]     assert new_spec.page_size_bytes == "
                "max_page_size\n(EngineCore pid=114) ERROR 06-23 06:27:21 [core.py:1229] AssertionError\n")  # n018

# https://github.com/OpenRLHF/OpenRLHF/issues/336 (a V0 engine in a Ray actor; the line as its log printed it)
METHOD_FAILED = ("2024-06-28T06:11:52.685302801Z (LLMRayActor pid=20770) ERROR 06-28 06:11:45 worker_base.py:145] Error "
                 "executing method initialize_cache. This might cause deadlock in distributed execution.\n")

# blind batches wd, we, wf (session 38), as posted: llama.cpp#26392, #9214, #25791; vllm PR 1395;
# distributed-llama#87 (the C++ runtime's terminate handler); a glibc assertion; a CUDA error of ggml's
RPC_VERSION = "0.00.386.093 E RPC server version mismatch: 4.0.1\n0.00.386.102 E Failed to connect to 10.0.0.185:50052\n"
CUBLAS_INIT = ("CUDA error: CUBLAS_STATUS_NOT_INITIALIZED\n  current device: 0, in function cublas_handle at "
               "/data/x/llama.cpp/ggml/src/ggml-cuda/common.cuh:644\n  cublasCreate_v2(&cublas_handles[device])\n")
GGML_OP = "/home/x/llama.cpp/ggml/src/ggml-cuda/ggml-cuda.cu:3927: GGML_ASSERT(ok) failed\n[New LWP 38315]\n"
CUDA_NAMED = ("CUDA error: misaligned address\n  current device: 1, in function ggml_backend_cuda_synchronize at "
              "ggml-cuda.cu:2503\n")
# tonyd2wild/GLM-5.3-Flash-NVFP4-DFlash2-2x-DGX-Spark#6 (blind batch wj010): the head's rank 0 at torch's CUDA init
CUDA_UNKNOWN = ("(EngineCore_0 pid=300)     torch._C._cuda_init()\n(EngineCore_0 pid=300) RuntimeError: CUDA unknown "
                "error - this may be due to an incorrectly set up environment, e.g. changing env variable "
                "CUDA_VISIBLE_DEVICES after program start. Setting the available devices to be zero.\n")
RAY_WORKER_DIED = ("2023-10-30 06:14:35,574\tWARNING worker.py:2037 -- A worker died or was killed while executing a "
                   "task by an unexpected system error. To troubleshoot the problem, check the logs for the dead worker. "
                   "Worker IP address: 172.16.103.199 Worker port: 32769 Worker PID: 2584 Worker exit type: "
                   "SYSTEM_ERROR\n")
GGML_ASSERT = "/src/llama.cpp/ggml/src/ggml.c:2411: GGML_ASSERT(ggml_can_mul_mat(a, b)) failed\n"
C_ASSERT = ("python3: src/ucp/core/ucp_worker.c:1234: ucp_worker_progress: Assertion `worker->inprogress == 0' "
            "failed.\nAborted (core dumped)\n")
# gpustat#179 (blind batch we002): stock gpustat on a DGX Spark (an info: NVML has no device memory to give)
GPUSTAT_GB10 = "[0] NVIDIA GB10 | 54°C,   0 % |    ?? /    ?? MB | gdm(43M) gdm(18M)\n"
# vllm#42609 (blind batch we019): the commenter's crash block
CUSTOM_AR = ("PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True,max_split_size_mb:512   # custom all-reduce ON\n...\n"
             "Failed: Cuda error /workspace/csrc/custom_all_reduce.cuh:455 'invalid argument'\n"
             "Worker proc VllmWorker-1 died unexpectedly, shutting down executor.\n")

# https://github.com/NVIDIA/nccl/issues/1538 (the line as posted, after NCCL's proxy Connect failed)
IBSTAT_NO_CA = "ibpanic: [5896] main: 'ib1' IB device can't be found: No such file or directory\n"  # magnate3 (ws005)
SIGBUS = ("(RayWorker pid=4711) *** SIGBUS received at time=1692322557 on cpu 5 ***\n"
          "(RayWorker pid=4711) PC: @     0x7fca7c80cb41  (unknown)  (unknown)\n"
          "(RayWorker pid=4711) Fatal Python error: Bus error\n")
PLASMA_SHM = ("[2026-03-25 05:44:29,435 W 39 39] (raylet) store_runner.cc:83: System memory request exceeds memory "
              "available in /dev/shm. The request is for 10200547328 bytes, and the amount available is 9663676416 "
              "bytes.\nYou may be able to free up space by deleting files in /dev/shm.\n")
SEGFAULT = ("[job-3bb823c0-6d27-4312-8094-1c5910bf9b51-worker-0:5665 :0:5665] Caught signal 11 (Segmentation fault: "
            "address not mapped to object at address (nil))\n")

# https://github.com/desihub/desitarget/issues/628 (srun's lines as posted: a step killed at its time limit)
SLURM_STEP = ("srun: Force Terminated job 32233190\nsrun: Job step aborted: Waiting up to 32 seconds for job step to "
              "finish.\nslurmstepd: error: *** STEP 32233190.0 ON nid01934 CANCELLED AT 2020-07-03T02:59:56 DUE TO TIME "
              "LIMIT ***\nsrun: error: nid01934: tasks 2,4-5,7: Terminated\n")

# https://github.com/NVIDIA/gpu-operator/issues/2511 (dmesg as posted, its editor's line numbers left out)
MLX5_POWER = ("[   22.316553] mlx5_core 0000:13:00.0: mlx5_pcie_event:297:(pid 11): PCIe slot power capability was not "
              "advertised.\n[   22.325345] mlx5_core 0000:63:00.0: 504.112 Gb/s available PCIe bandwidth (32.0 GT/s PCIe "
              "x16 link)\n")

# https://github.com/leptonai/gpud/issues/348 (the kernel line as the issue quotes it)
# https://github.com/ray-project/ray/issues/13586, as posted (its first lines)
LAUNCH_FAILED = ("(autoscaler +38s) Adding 1 nodes of type gpu.medium.\n(autoscaler +49s) Removing 1 nodes of type "
                 "gpu.medium (launch failed).\n(autoscaler +54s) Adding 1 nodes of type gpu.medium.\n")

# colonel-otto/3x-dgx-spark-mesh-deepseek-v4-0731-flash results/20260824-seqs32-nccl/crash/spark1.txt (its first line)
# https://github.com/NVIDIA/deepops/issues/1179: slurmstepd's PMIx plugin, the first fence of two nodes
PMIX_TIMEOUT = ("slurmstepd: error:  mpi/pmix_v3: pmixp_coll_ring_reset_if_to: adas-ml [0]: pmixp_coll_ring.c:742: "
                "0x14ce0c02cb20: collective timeout seq=0\n")
# https://github.com/pytorch/pytorch/issues/149153: lldb's frames of a process stuck in ProcessGroupNCCL::abort()
ABORT_HANG = ("  thread #16, name = 'python', stop reason = signal SIGSTOP\n"
              "    frame #0: 0x00007fb0b7f0792d libc.so.6`syscall + 29\n"
              "    frame #2: 0x00007fb090db0b85 libtorch_cuda.so`c10d::ProcessGroupNCCL::waitForFutureOrTimeout(std::"
              "future<bool>&, std::chrono::duration<long, std::ratio<1l, 1000l>> const&) + 197\n"
              "    frame #3: 0x00007fb090db1068 libtorch_cuda.so`c10d::ProcessGroupNCCL::abort() + 664\n")
# https://github.com/NVIDIA/nccl/issues/1409: two ranks time out at one sequence number in two collectives
DESYNC = ("[rank7]:[E816 01:45:40.183009389 ProcessGroupNCCL.cpp:607] [Rank 7] Watchdog caught collective operation "
          "timeout: WorkNCCL(SeqNum=80078, OpType=BROADCAST, NumelIn=5056, NumelOut=5056, Timeout(ms)=600000) ran for "
          "600026 milliseconds before timing out.\n"
          "[rank3]:[E816 01:45:40.212150935 ProcessGroupNCCL.cpp:607] [Rank 3] Watchdog caught collective operation "
          "timeout: WorkNCCL(SeqNum=80078, OpType=ALLREDUCE, NumelIn=2106881, NumelOut=2106881, Timeout(ms)=600000) ran "
          "for 600013 milliseconds before timing out.\n")


def test_ranks_in_different_collectives_at_one_step_are_a_desync():
    """NVIDIA/nccl#1409: BROADCAST on rank 7, ALLREDUCE on rank 3, both SeqNum 80078; one rank's line alone, or two
    ranks in the same collective, is the plain timeout."""
    [(level, message)] = known_faults(DESYNC)
    assert level == "fail" and "`BROADCAST`" in message and "`ALLREDUCE`" in message and "desync" in message
    assert "TORCH_DISTRIBUTED_DEBUG=DETAIL" in message
    for text in (DESYNC.split("\n")[0] + "\n", DESYNC.replace("OpType=ALLREDUCE", "OpType=BROADCAST")):
        assert all("desync" not in m for _, m in known_faults(text)), text


# https://github.com/kvcache-ai/Mooncake/issues/936: an RDMA context on an IPv4-mapped (RoCE v2) GID
MOONCAKE_GID = ("I20260203 17:42:09.445906 3720677 rdma_context.cpp:140] RDMA device: mlx5_3, LID: 0, GID: (GID_Index "
                "3) 00:00:00:00:00:00:00:00:00:00:ff:ff:cb:00:71:14\n")


def test_mooncakes_ipv4_mapped_gid_is_a_note():
    [(level, message)] = known_faults(MOONCAKE_GID)
    assert level == "info" and "GID index 3" in message and "IPv4-mapped" in message
    # a link-local GID (fe80::) is no IPv4-mapped one: not said so
    assert known_faults(MOONCAKE_GID.replace("00:00:00:00:00:00:00:00:00:00:ff:ff:cb:00:71:14",
                                             "fe:80:00:00:00:00:00:00:02:aa:bb:ff:fe:cc:dd:01")) == []


# https://github.com/uxlfoundation/oneCCL/issues/157: oneCCL's KVS on a machine whose only interface is lo
CCL_NO_HOST_IP = ("2025:02:17-17:20:51:( 2399) |CCL_ERROR| internal_kvs.cpp:289 fill_local_host_ip: can't find "
                  "interface  to get host IP\n")
# https://github.com/uccl-project/uccl/issues/301: the GID probe reading an empty slot of a pod's GID table
ROCE_VER_EINVAL = ("W20250825 11:10:33.595331   331 util_rdma.h:547] NET/IB: read failed in ncclIbRoceGetVersionNum: "
                   "Invalid argument\n")
# https://github.com/openucx/ucx/issues/8229: `ulimit -a`'s locked-memory line, 64 KiB
MEMLOCK_64K = "pending signals                 (-i) 1030810\nmax locked memory       (kbytes, -l) 64\n"


def test_a_locked_memory_limit_is_read_against_what_rdma_needs():
    [(level, message)] = known_faults(MEMLOCK_64K)
    assert level == "warn" and "64 KiB" in message and "memlock unlimited" in message
    for fine in ("max locked memory       (kbytes, -l) unlimited\n", "max locked memory       (kbytes, -l) 8388608\n"):
        assert known_faults(fine) == [], fine


# https://github.com/NVIDIA/nccl/issues/2353: rank 1's main thread at the hang
PROXY_POOL = ("#0  __sched_yield\n#1  ncclLocalOpAppend(ncclComm*, ncclProxyConnector*, ncclProxyOp*)\n"
              "#2  SaveProxy(ncclComm*, ncclChannel*, int, int, ncclProxyOp*, int, bool*)\n")
# https://github.com/NVIDIA/nccl-tests/issues/132: a second rank on a one-GPU host (a machinefile without slots)
TESTS_ORDINAL = "labnodedevai: Test CUDA failure common.cu:892 'invalid device ordinal'\n"
# https://github.com/NVIDIA/nccl/issues/1504: rank 0's communicator aborted, then rank 1's watchdog timed out
RANK_LEFT = ("678c7278cb2d:26023:27115 [0] NCCL INFO comm 0x1aacdee0 rank 0 nranks 4 cudaDev 0 busId 1000 - Abort "
             "COMPLETE\n[rank1]:[E1106 04:43:01.018941581 ProcessGroupNCCL.cpp:616] [Rank 1] Watchdog caught collective "
             "operation timeout: WorkNCCL(SeqNum=1, OpType=COALESCED, NumelIn=1, NumelOut=1, Timeout(ms)=1800000) ran "
             "for 1800039 milliseconds before timing out.\n")


def test_a_rank_that_aborted_before_anothers_timeout_is_named():
    said = [m for level, m in known_faults(RANK_LEFT) if level == "fail"]
    assert any("Rank 0 of 4 aborted its communicator" in m and "rank 1's watchdog timed out" in m for m in said)
    # its abort alone (a run that ended so), or the timeout on the aborting rank itself: not said
    for text in (RANK_LEFT.split("\n")[0] + "\n", RANK_LEFT.replace("[Rank 1]", "[Rank 0]")):
        assert all("aborted its communicator" not in m for _, m in known_faults(text)), text


WATCHDOG = ("[rank1]:[E825 00:42:25.854022710 ProcessGroupNCCL.cpp:689] [Rank 1] Watchdog caught collective operation "
            "timeout: WorkNCCL(SeqNum=3474, OpType=_ALLGATHER_BASE, NumelIn=8282112, NumelOut=24846336, "
            "Timeout(ms)=600000) ran for 600000 milliseconds before timing out.\n")
# djangodevreng/dgx-spark-benchmarks results/nemotron-3/nemotron-3-nano-30b-a3b/nvfp4/_server-crash.log (two lines)
NO_KERNEL = ("(EngineCore pid=212) torch.AcceleratorError: CUDA error: no kernel image is available for execution on the "
             "device\n(EngineCore pid=212) Search for `cudaErrorNoKernelImageForDevice' in https://docs.nvidia.com/cuda/"
             "cuda-runtime-api/group__CUDART__TYPES.html for more information.\n")
# https://github.com/pytorch/pytorch/issues/150852 (its first two NCCL lines)
NVLS = ("[2025-04-08 08:39:46] devgpu000:589012:591652 [0] transport/nvls.cc:254 NCCL WARN Cuda failure 1 'invalid "
        "argument'\ndevgpu000:589012:591652 [0] NCCL INFO transport/nvls.cc:409 -> 1\n")

# https://github.com/vllm-project/vllm/issues/10147, as posted (collect_env.py of a newer vLLM)
SUBMODULE = ("python collect_env.py\n    from vllm.envs import environment_variables\n"
             "ModuleNotFoundError: No module named 'vllm.envs'\n")

# https://github.com/phivan3008/meeting-translator/blob/d57f674fba7cccecd0fb30d9addfd669819087a2/vllm_serve.log
# (its last frame, Python 3.11's caret line kept)
NOT_SUBSCRIPTABLE = (
    '(EngineCore pid=1632893) ERROR 08-12 04:47:25 [core.py:1349]   File "/workspace/meetting-translator/.venv-translate/'
    'lib/python3.11/site-packages/flashinfer/comm/fd_exchange.py", line 55, in <module>\n'
    "(EngineCore pid=1632893) ERROR 08-12 04:47:25 [core.py:1349]     def _fd_ancillary(fd: int) -> tuple[tuple[int, "
    "int, array.array[int]]]:\n"
    "(EngineCore pid=1632893) ERROR 08-12 04:47:25 [core.py:1349]                                                         "
    "~~~~~~~~~~~^^^^^\n"
    "(EngineCore pid=1632893) ERROR 08-12 04:47:25 [core.py:1349] TypeError: type 'array.array' is not subscriptable\n")

# https://github.com/NVIDIA/nvbandwidth/issues/13, as posted (its header lines above it left out)
NVBANDWIDTH_WAIVED = ("Device 0: NVIDIA GeForce RTX 2080 Ti\nDevice 1: NVIDIA GeForce RTX 2080 Ti\n\n"
                      "Waiving device_to_device_memcpy_write_ce.\n")

# microscaler/cylon-local-infra llmwiki/concepts/ncclcommInitRank-abort-tp2.md, as posted (pids and addresses elided)
NCCL_ABORT = ("(RayWorkerWrapper pid=..., ip=169.254.102.149)     @ 0x... 352  ncclCommInitRank\n"
              "(RayWorkerWrapper pid=..., ip=169.254.37.109)      @ 0x... 352  ncclCommInitRank\nFatal Python error: Aborted\n"
              "...\nray.exceptions.ActorDiedError: The actor died unexpectedly before finishing this task.\n"
              "RuntimeError: Engine core initialization failed.\n")

# https://github.com/Oneflow-Inc/oneflow/pull/9115: the RDMA stack stopped (openibd), as posted
NO_RDMA = ("ibv_devinfo\nFailed to get IB devices list: Function not implemented\nibstatus\nFatal error:  No devices\n"
           "/usr/sbin/ibstatus: 21: exit: Illegal number: -1\n")

# ideo-plus/DGX-Spark-x2-GLM5.3-Flash-NVFP4-vLLM-Recipe's capture of a Spark's ethtool stderr, without root
ETHTOOL_NETLINK = "netlink error: Operation not permitted\n"

MLX5_LOW_POWER = ("[Sun Dec  1 14:54:40 2024] ny2g1r12hh2 kernel: mlx5_core 0000:5c:00.0: mlx5_pcie_event:299:(pid "
                  "268269): Detected insufficient power on the PCIe slot (27W).\n")

# https://github.com/NVIDIA/daqiri/pull/78 (a DGX Spark's CX-7 profile given `ipv4.mtu`), as posted (the list cut with …)
NMCLI_MTU = "Error: invalid property 'mtu': 'mtu' not among [method, dns, …]\n"

# https://github.com/vllm-project/vllm/issues/18814, as posted (two of its lines; the traceback goes on past the cut)
COMPILE = ("(VllmWorker rank=0 pid=492198) ERROR 05-27 23:16:12 [multiproc_executor.py:522]     raise "
           "BackendCompilerFailed(\n(VllmWorker rank=0 pid=492198) ERROR 05-27 23:16:12 [multiproc_executor.py:522]   "
           "File \"/home/ubuntu/anaconda3/envs/vllm/lib/python3.12/site-packages/torch/_dynamo/output_graph.py\", line "
           "1519, in _call_user_compiler\n")

# https://github.com/djangodevreng/dgx-spark-benchmarks, a Spark's first start (two of its lines, as posted)
DOWNLOADED = ("(EngineCore pid=185) INFO 05-04 23:44:44 [weight_utils.py:615] Time spent downloading weights for "
              "nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-NVFP4: 6879.856840 seconds\n(EngineCore pid=185) WARNING "
              "05-04 23:53:34 [marlin.py:34] Your GPU does not have native support for FP4 computation but FP4 "
              "quantization is being used. Weight-only FP4 compression will be used leveraging the Marlin kernel.\n")

# https://github.com/NVIDIA/nccl/issues/1611, as posted (two of its lines)
HEAP_ABORT = "free(): corrupted unsorted chunks\n[rack1-93-slot7:186363] Signal: Aborted (6)\n"

# https://github.com/hiyouga/LlamaFactory/issues/8045, as posted (the last two tries)
BOOTSTRAP = ("zgiot:1183664:1184669 [0] NCCL INFO socketPollConnect: connect returned No route to host, retrying (33/34) "
             "after sleep for 3300 msec\nzgiot:1183664:1184669 [0] NCCL INFO socketPollConnect: connect returned No "
             "route to host, retrying (34/34) after sleep for 3400 msec\n")

# https://github.com/eugr/spark-vllm-docker/pull/157, as posted (two DGX Sparks; the actor id shortened)
RAY_UNHANDLED = ("(EngineCore pid=689) 2026-04-05 08:59:13,998\tERROR worker.py:439 -- Unhandled error (suppress with "
                 "'RAY_IGNORE_UNHANDLED_ERRORS=1'): ray::RayWorkerWrapper.execute_method() (pid=890, ip=192.168.0.221, "
                 "actor_id=23fee7babb1f)\n")

# https://github.com/eugr/spark-vllm-docker/issues/31, as posted (a Spark's crash on its first request, config cut)
DUMP_INPUT = ("(EngineCore_DP0 pid=344) ERROR 02-06 15:01:49 [dump_input.py:72] Dumping input data for V1 LLM engine "
              "(v0.1.dev12774+g459541683.d20260206) with config: model='openai/gpt-oss-120b'\n")

# https://github.com/NVIDIA/nccl/issues/1706 and https://github.com/eugr/spark-vllm-docker/pull/367, as posted
NO_P2P = "deepseek:2081594:2081600 [0] NCCL INFO Check P2P Type intraNodeP2pSupport 0 directMode 1\n"
SHM_WAIT = ("(EngineCore pid=397) INFO 09-02 11:57:54 [shm_broadcast.py:801] No available shared memory broadcast block "
            "found in 60 seconds. This typically happens when some processes are hanging or doing some time-consuming "
            "work (e.g. compilation, weight/kv cache quantization).\n")

# https://github.com/NVIDIA/nccl/issues/857, as posted (one rank's line)
# https://github.com/NVIDIA/nccl-tests/issues/287 (NCCL 2.25.1, two RTX 5090s)
MAX_SHMEM = "GENOA-06:4766:4780 [0] NCCL INFO ncclMaxSharedMem 82240 exceeds device/fn maxSharedMem 79856\n"
NO_VERBS = "ai:480850:480850 [0] misc/ibvwrap.cc:63 NCCL WARN Failed to open libibverbs.so[.1]\n"

# https://github.com/kazamori/dgx-spark-deepseek-v4-flash docs/06-troubleshooting.md, as posted (a Spark's boot lines)
SPARK_BOOT = ("[    0.103426] pci 000f:01:00.0: 0.000 Gb/s available PCIe bandwidth, limited by Unknown x0 link at "
              "000f:00:00.0 (capable of 32.000 Gb/s with 2.5 GT/s PCIe x16 link)\n[    1.533198] mlx5_core 0000:01:00.0: "
              "mlx5_pcie_event:326:(pid 12): Detected insufficient power on the PCIe slot (27W).\n[    5.406738] "
              "cx7-pcie-hotplug MTKP0001:00: Hotplug enabled\n")

# https://github.com/dbkinghorn/Notes (2023/NV-4090-P2P, an NGC HPL run on 2x RTX 6000 Ada), as posted (one line)
HPL_SLOW = ("!!! WARNING: Rank: 1 : wks64 : GPU 0000:61:00.0 Clock: 626 MHz Temp: 49 C Power: 70 W PCIe gen 4 x16\n")

# https://github.com/NVIDIA/DCGM/issues/49, as posted (dcgmi diag -r 2's Integration section, its first row)
DCGM_NVLINK = "| Warning                   | GPU 0GPU 0's NvLink link 0 is currently down   |\n"

# https://github.com/minjaechandesu/v100-nvlink-homelab-log logs/boot/dmesg_nvidia.txt, as posted (a healthy boot)
DRIVER_LOAD = ("[    5.938707] nvidia: module license 'NVIDIA' taints kernel.\n[    6.476852] NVRM: loading NVIDIA UNIX "
               "x86_64 Kernel Module  580.95.05  Tue Sep 23 10:11:16 UTC 2025\n")

# https://github.com/NVIDIA/nccl/issues/1176 and https://github.com/NVIDIA/nccl-tests/issues/208, as posted (one line each)
TRUNCATED = ("0: compute-st-p4de24xlarge-1:34639:36718 [5] bootstrap.cc:77 NCCL WARN Message truncated : received 256 "
             "bytes instead of 4\n")
NO_SYMBOL = "noodle-4090-0:1896106:1896121 [1] enqueue.cc:47 NCCL WARN Cuda failure 'named symbol not found'\n"
KV_BYTES_SET = ("(Worker_TP0 pid=435) INFO 09-20 05:08:33 [gpu_worker.py:492] Initial free memory 105.76 GiB, reserved "
                "14.36 GiB memory for KV Cache as specified by kv_cache_memory_bytes config and skipped memory "
                "profiling.\n")  # https://github.com/Reederey87/glm53-flash-exl3-2x-dgx-spark (blind batch vf004)
IB_COULD_BE = ("          1    3[  ] ==( 1X      53.125 Gbps Active/  LinkUp)==>       7    1[  ] \"gpu-node02 HCA-1\" "
               "( Could be 4X 53.125 Gbps)\n")  # break-it 25 p18, after iblinkinfo(8)'s output (infiniband-diags)
GPUD_RECOVERED = '$ curl -s localhost:15132/v1/states | jq \'.[] | select(.component=="accelerator-nvidia-fabric-manager")\'\n    "component": "accelerator-nvidia-fabric-manager",\n    "states": [\n      {\n        "time": "2025-11-20T04:46:02Z",\n        "component": "accelerator-nvidia-fabric-manager",\n        "name": "accelerator-nvidia-fabric-manager",\n        "health": "Unhealthy",\n        "reason": "NVIDIA-H100-80GB-HBM3 checked fabric state; fabric manager found but not active",\n        "extra_info": {\n          "data": "{\\"fabric_manager_active\\":false,\\"fabric_state_supported\\":true}",\n          "encoding": "json"\n        }\n      }\n    ]\n\nAfter restart (sudo systemctl restart nvidia-fabricmanager)\n\n    "component": "accelerator-nvidia-fabric-manager",\n    "states": [\n      {\n        "time": "2025-11-20T04:49:02Z",\n        "component": "accelerator-nvidia-fabric-manager",\n        "name": "accelerator-nvidia-fabric-manager",\n        "health": "Healthy",\n        "reason": "fabric manager found and active",\n        "extra_info": {\n          "data": "{\\"fabric_manager_active\\":true,\\"fabric_state_supported\\":true}",\n          "encoding": "json"\n        }\n      }\n    ]\n'  # break-it 25 p15, after https://github.com/leptonai/gpud/pull/1151
SWAP_LARGE = ("WARNING 05-25 00:00:22 config.py:405] Possibly too large swap space. 8.00 GiB out of the 15.40 GiB total "
              "CPU memory is allocated for the swap space.\n")  # https://github.com/imoneoi/openchat (blind batch vg009)

# https://github.com/eugr/spark-vllm-docker/issues/348 and AEON-7's Spark issue #17, as posted (a few lines each)
SHM_TIMEOUT = ("(EngineCore pid=222) ERROR 08-15 11:20:19 [core.py:1361]   File \"/usr/local/lib/python3.12/dist-packages/"
               "vllm/distributed/device_communicators/shm_broadcast.py\", line 647, in timeout_ms\n(EngineCore pid=222) "
               "ERROR 08-15 11:20:19 [core.py:1361]     raise TimeoutError\n")
CUDA_FOOTER = ("(EngineCore pid=168) ERROR 06-23 15:08:34 [core.py:1138] CUDA kernel errors might be asynchronously "
               "reported at some other API call, so the stacktrace below might be incorrect.\n")

# https://github.com/microsoft/WSL/issues/12467, https://github.com/NVIDIA/nccl/issues/442 and
# https://github.com/huggingface/transformers/issues/15618, as posted (one line each)
SHM_SEGMENT = ("(VllmWorkerProcess pid=3985) ERROR 01-15 02:47:32 multiproc_worker_utils.py:226] Error while creating "
               "shared memory segment /dev/shm/nccl-g0wGsu (size 9637888)\n")
VIRTUAL_PCI = ("DESKTOP:36629:36635 [0] graph/xml.cc:332 NCCL WARN Could not find real path of "
               "/sys/class/pci_bus/0000:21/../../0000:21:00.0\n")
# https://github.com/aws/aws-ofi-nccl/issues/64, as posted (one line)
SIMPLE_ORDER = ("ip-172-31-13-103:9742:9800 [4] graph/search.cc:765 NCCL WARN Could not find a path for pattern 4, "
                "falling back to simple order\n")
NO_P2P_PAIR = "srv-s0:537554:537627 [1] NCCL INFO Could not enable P2P between dev 1(=1b000) and dev 0(=1a000)\n"

# https://github.com/NVIDIA/TensorRT-LLM/issues/1625 and /issues/2864, as posted (one line each)
PEER_UNSUPPORTED = ("[TensorRT-LLM][ERROR] [TensorRT-LLM][ERROR] CUDA runtime error in error: peer access is not "
                    "supported between these two devices\n")
PEER_CHECK = "[TensorRT-LLM][INFO] cudaDeviceCanAccessPeer failed for device: 1 peerDevice: 0\n"

# https://github.com/vllm-project/vllm/issues/5161 and https://github.com/NVIDIA/nccl/issues/229, as posted
WSL = "WARNING 06-01 01:06:23 utils.py:465] Using 'pin_memory=False' as WSL is dete\n"
OFI_TCP = "ip-192-168-16-255:25604:25604 [0] NCCL INFO NET/OFI Selected Provider is tcp;ofi_rxm\n"
# https://github.com/NVIDIA/nccl-tests/issues/245, as posted: aws-ofi-nccl turning GPUDirect RDMA off
OFI_GDR = "[0] NCCL INFO NET/OFI Could not disable CUDA API usage for HMEM, disabling GDR\n"
# ray-project/ray#62328 and vllm#15537, swiss-ai/model-launch#126, vllm-project/aibrix#783,
# Lightning-AI/pytorch-lightning#14986 and NVIDIA/open-gpu-kernel-modules#688, as posted (one line each)
RAY_FATAL = ("[2026-04-03 12:10:44,576 C 107 107] experimental_mutable_object_manager.cc:177:  An unexpected system "
             "state has occurred. You have likely discovered a bug in Ray.\n")
RAY_DISK = ("(raylet) [2025-03-26 09:15:12,562 E 228 259] (raylet) file_system_monitor.cc:116: /tmp/ray/session_2025-03-"
            "26_08-55-15_777925_1 is over 95% full, available space: 16.7067 GB; capacity: 491.079 GB.\n")
NO_STATUS = "No cluster status.\n"
# the blind batches xl, xi and xh of session 35, as posted (one line each; the URLs in tests/test_diagnoses.py EXAMPLES)
DEVX = ("[1784273406.684686] [iv-host:994396:0]      ib_mlx5_dv.c:452  UCX  ERROR   mlx5dv_devx_obj_create(CQ) failed "
        "on mlx5_1, syndrome 0x2aac7c: Remote I/O error\n")
NIXL_BACKEND = "2025-05-16T04:56:18.119Z ERROR engine.run_mp_engine: NIXL_ERR_BACKEND\n"
SGLANG_NO_KV = ("[2025-07-02 07:41:59 DP0 TP0] max_total_tokens=131072 is larger than the profiled value -561981. Use the "
                "profiled value instead.\n")
DYNAMO_NONE = ("ERROR chat_completions: dynamo_llm::http::service::openai: Internal server error: Failed to generate "
               "completions: no instances found for endpoint \"instances/dynamo/Frontend/chat/completions\"\n")
ORTED = "ORTE was unable to reliably start one or more daemons.\n"
CUDA12_LIB = "* ImportError: libnvrtc.so.12: cannot open shared object file: No such file or directory\n"
TRT_WINDOW = ("[10/07/2025-18:33:58] [TRT-LLM] [W] Attention window size 131073 exceeds upper bound 8224 for available "
              "blocks. Reducing to 8224.\n")
UCX_SOCKADDR = ("[1554831347.602987] [host:48104:1]      wireup_ep.c:467  UCX  ERROR no supported sockaddr auxiliary "
                "transports found for mlx5_4:1\n")
CM_ENODEV = "cma event RDMA_CM_EVENT_ADDR_ERROR, error -19\n"
STORE_RETRY = "The server socket on [::ffff:10.4.6.125]:63617 has timed out, will retry.\n"
STORE_RETRIES = STORE_RETRY * 3
NO_SOCKET_IFACE = "host:14391:14391 [0] bootstrap.cc:45 NCCL WARN Bootstrap : no socket interface found\n"  # vllm#2084
NO_PROVIDER = ("libibverbs: Warning: no userspace device-specific driver found for /sys/class/infiniband_verbs/uverbs4\n"
               "0 HCAs found:\n")  # NVIDIA/caffe#590, as posted (one of its five warnings)
GLOO_HOSTNAME = ("[rank7]:[W806 14:25:27.650991133 ProcessGroupGloo.cpp:524] Warning: Unable to resolve hostname to a "
                 "(local) address. Using the loopback address as fallback.\n")
SHM_TWICE = SHM_WAIT + "(EngineCore pid=397) INFO 09-02 11:58:54 [shm_broadcast.py:801]\n"  # PR 367's quote, cut
SHM_STUCK = "".join(f"(EngineCore pid=2025) INFO 08-13 11:2{i}:02 [shm_broadcast.py:802] No available shared memory "
                    "broadcast block found in 60 seconds.\n" for i in range(3))
RAY_USAGE = "Error: Got unexpected extra arguments (& RAY_HEAD_PID= echo 'Waiting for all Ray worker nodes')\n"
BENCH_FIRST = ("RequestFuncOutput(generated_text='', success=False, latency=0.0, output_tokens=0, ttft=0.0, itl=[], "
               "tpot=0.0, prompt_len=2048, error='Bad Request')\n")
RANK_TWICE = ("hpc-25-14:18569:18835 [0] bootstrap.cc:131 NCCL WARN Bootstrap Root : rank 1 of 8 ranks has already "
              "checked in\n")
NVRM_LOST = ("Feb 17 08:02:35 myhost1-DGX-Station-A100 kernel: NVRM: nvAssertOkFailedNoLog: Assertion failed: GPU lost "
             "from the bus [NV_ERR_GPU_IS_LOST] (0x0000000F) returned from rmStatus @ kernel_ce_gv100.c:106\n")
# https://github.com/vllm-project/vllm/issues/19204 and /29670, as posted: an NCCL RAS port taken, vLLM's fd limit
RAS_BIND = "paula09:2528103:2528103 [0] ras/client_support.cc:160 NCCL WARN Call to bind failed: Address already in use\n"
FD_ULIMIT = ("(APIServer pid=927159) WARNING 11-28 19:08:15 [system_utils.py:222] Found ulimit of 1024 and failed to "
             "automatically increase with error current limit exceeds maximum limit.\n")  # (65530 there: a note)
ARCH_GUARD = "This kernel only supports sm120.\ncudaErrorLaunchFailure: unspecified launch failure\n"  # dgx-vllm#9
CUDA0_BUFFER = "llama_model_load: error loading model: unable to allocate CUDA0 buffer\n"  # ollama#8597, as posted
BENCH_ZERO = ('  File "/home/user/Documents/vllm/benchmarks/benchmark_serving.py", line 136, in calculate_metrics\n'
              "    per_token_latencies.append(outputs[i].latency / output_len)\n"
              "ZeroDivisionError: float division by zero\n")  # vllm PR 3397, as posted
ENGINE_DIED = "(EngineCore_DP0 pid=73) Process EngineCore_DP0:\n"  # gpustack#4372, as posted (one of its lines)
PTX_DUMP = "(EngineCore_DP0 pid=73) .b64 $L__func_begin0                    // DW_AT_low_pc\n"  # gpustack#4372
RAY_ONE_OF_TWO = "Wait for all ray workers to be active. 1/2 is active\n" * 2  # fastsafetensors#14, as posted
RAY_INIT_TIMEOUT = "Waiting for all ray workers to be active timed out.\n"  # vLLM's multi-node-serving.sh
DS_LAUNCH = "[2021-02-08 22:59:18,790] [INFO] [launch.py:87:main] nnodes=1, num_local_procs=2, node_rank=0\n"  # DS#736
TRTLLM_LEADER = "Rank0 run mgmn leader node with mpi_world_size: 2 ...\n"  # NVIDIA/TensorRT-LLM#8961, as posted
BENCHY_GPT2 = "Falling back to 'gpt2' tokenizer as approximation.\n"  # llama-benchy 0.4.0, as posted (xm014)
# https://github.com/NVIDIA/nccl/issues/1524, /2334 and vllm-project/vllm#1116, as posted (one line each; #2334's wrapped)
LOCAL_ACCESS = ("ubuntu20-server-2:94639:94647 [0] transport/net_ib.cc:100 NCCL WARN NET/IB : mlx5_0:1 Got async event : "
                "local access violation work queue error\n")
CTS_UNUSED = ("NET/IB: ncclIbCompletionEventProcess: Receiver got a completion for a CTS but retrieved\nan 'unused' request "
              "(req=0x..., comm=0x..., id=..., wc.wr_id=0, wc.opcode=IBV_WC_RDMA_WRITE(1),\n")
NO_LIBCUDA = ("(RayWorkerVllm pid=16696) Desktop:16696:16696 [1] misc/cudawrap.cc:179 NCCL WARN Failed to find CUDA library "
              "libcuda.so (NCCL_CUDA_PATH='') : _Z42ncclKernel_SendRecv_RING\n")
# https://github.com/vllm-project/vllm/issues/19196, /8085, /15537 and Open-Reasoner-Zero#26, as posted: harmless notes
DESTROY_PG = ("[rank0]:[W604 11:18:57.117195760 ProcessGroupNCCL.cpp:1476] Warning: WARNING: destroy_process_group() was "
              "not called before program exit, which can leak resources.\n")
LEAKED_SHM = ("/root/miniconda3/envs/vllm/lib/python3.10/multiprocessing/resource_tracker.py:224: UserWarning: "
              "resource_tracker: There appear to be 1 leaked shared_memory objects to clean up at shutdown\n")
C10D_HOSTNAME = ("[W326 09:15:16.969966369 socket.cpp:204] [c10d] The hostname of the client socket cannot be retrieved. "
                 "err=-3\n")
DEL_IGNORED = ("(RayWorkerVllm pid=14289) Exception ignored in: <function NCCLCommunicator.__del__ at 0x7f4d8c3212d0>\n"
               "(RayWorkerVllm pid=14289) AttributeError: 'NCCLCommunicator' object has no attribute 'comm'\n")
RAY_FRACTIONAL = ("2025-02-24 07:28:12,892\tWARNING utils.py:592 -- Ray currently does not support initializing Ray with "
                  "fractional cpus. Your num_cpus will be truncated from 104.999 to 104.\n")

# https://github.com/vllm-project/vllm/issues/53013, as posted (its two lines; the person's words between them left out)
GRAPH_ESTIMATE = ("(Worker_DP1_TP1_EP3 pid=3585771) INFO 08-19 05:56:57 [gpu_model_runner.py:6936] Estimated CUDA graph "
                  "memory: 118.65 GiB total\n(EngineCore_DP0 pid=3584999) ERROR 08-19 05:56:57 [core.py:1346] ValueError: "
                  "No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when initializing "
                  "the engine.\n")

# https://github.com/MiaAI-Lab/GLM-5.3-Flash-EXL3-2x-DGX-Sparks/issues/159, as posted (one frame, its types shortened)
STORE_LOST = ("frame #2: c10::DistNetworkError::DistNetworkError(c10::SourceLocation, std::__cxx11::basic_string<char>) + "
              "0x78 (0xfb554433f0c8 in /usr/local/lib/python3.12/dist-packages/torch/lib/libc10.so)\n")

# https://github.com/NVIDIA/nccl/issues/667, as posted (the poster's words under a topology of PCIe switches)
P2P_OFF_HANG = ("all_reduce_perf works fine only with those linked through SYS. The rest will result in hanging.\n\n"
                "Setting NCCL_P2P_DISABLE=1 did workaround but got really low speed.\n")
P2P_OFF = "Setting NCCL_P2P_DISABLE=1 did workaround but got really low speed.\n"

# https://github.com/linux-rdma/perftest/issues/173 and https://github.com/zrlio/softiwarp/issues/27, as posted
PERFTEST_WC4 = "Completion with error at client\n  Failed status 4: wr_id 0 syndrom 0x51\nscnt=828, ccnt=700\n"
PERFTEST_WC12 = " Completion with error at client Failed status 12: wr_id 0 syndrom 0x81 scnt=128, ccnt=0\n"
# https://github.com/uccl-project/uccl/issues/641, as posted (two of its lines)
RTR_TIMEOUT = "Failed to modify QP to RTR: Connection timed out\nerrno: 110\n"
# https://github.com/NVIDIA/cuda-samples/issues/390 and https://github.com/aikitoria/open-gpu-kernel-modules/issues/8
SAMPLES_P2P = "Failed runs (4):\n  simpleP2P : Failed (code 1)\n  conjugateGradientMultiDeviceCG : Timeout (code -1)\n"
P2P_NAN = "Verification error @ element 0: val = nan, ref = 0.000000\nVerification error @ element 1: val = nan, ref = 4.0\n"

# https://github.com/vllm-project/vllm/issues/2669 (the raylet's kill, cut), https://github.com/vllm-project/vllm/issues/15744
RAYLET_OOM = ("Memory on the node (IP: 169.254.181.2, ID: 708c7baf966d59aa3f08299830c349ca055293ebb1c33d8e72cd3336) where "
              "the task (actor ID: 0dab4ab45f6c947201afac6d01000000, name=RayWorkerVllm.__init__, pid=308, memory "
              "used=11.15GB) was running was 12.49GB / 13.15GB (0.950003), which exceeds the memory usage threshold of "
              "0.95. Ray killed this worker\n")
C10D_CONNECT = ("[E329 06:28:12.542939754 socket.cpp:1023] [c10d] The client socket has timed out after 600000ms while "
                "trying to connect to (10.xxx.xxx.33, 54485).\n")
# https://github.com/NVIDIA/gpu-operator/issues/1794 (blind batch wb009): the device plugin before v0.17.4 on a GB10,
# its error as the issue quotes it
GPU_MEM_NS = "error getting device memory: Not Supported\n"
# the same issue, v0.17.4: it ignores the answer and registers the GPU (info)
GPU_MEM_NS_IGNORED = ("W1204 18:29:54.725748 Ignoring error getting device memory: Not Supported\n"
                      "I1204 18:29:54.733542 Registered device plugin for 'nvidia.com/gpu' with Kubelet\n")
# https://github.com/ray-project/ray/pull/33842 (blind batch wb003): the GCS cannot reach its external Redis
GCS_FAILED = "2023-03-30 18:42:44,984 CRITICAL node.py:610 -- Failed to start GCS. Last 10 lines of error files:\n"
GCS_REDIS = ("[2023-03-30 18:42:31,998 E 2487574 2487574] (gcs_server) redis_context.cc:368: Failed to connect to Redis due "
             "to: RedisError: Could not establish connection to Redis localhost:1234 (context.err = 1).. Will retry in "
             "100ms.\n")
# https://github.com/dennislee22/vLLM-benchmarking (two A100s of one node; info: said, no fault)
NO_CUSTOM_AR = ("(VllmWorker TP0 pid=3974) WARNING 09-03 02:12:01 [custom_all_reduce.py:147] Custom allreduce is disabled "
                "because your platform lacks GPU P2P capability or P2P test failed. To silence this warning, specify "
                "disable_custom_all_reduce=True explicitly.\n")

# https://github.com/NVIDIA/nccl/issues/2076 (torch's DistBackendError and NCCL's last error), NVIDIA/nccl#697 (the error
# chain of a socket connection to another machine: read by the NCCL log's judge), Oneflow-Inc/oneflow#3586 (a connect retried over a container's veth)
REMOTE_ERROR = ("ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.\n"
                "Last error:\nsocketProgressOpt: Call to recv from 172....<33759> failed : Connection reset by peer\n")
CONNECT_RETRY = "worker:101542:101934 [0] NCCL INFO Call to connect returned Connection timed out, retrying\n"
# https://github.com/NVIDIA/nccl/issues/958 (blind batch wj015): a question, NCCL_NET forced to IB and no RDMA device
NET_IB_FORCED = ('If I set environment variable settings as:\n`os.environ["NCCL_NET"]="IB"`\n'
                 "The logs from NCCL will show an error: NET/IB: No device found.\n")
# https://github.com/vllm-project/vllm/issues/798 (blind batch wi001): vLLM over Ray, NCCL's proxy connect failed
PROXY_CONNECT = ("(LLMEngine pid=2347640, ip=10.58.226.15) ncclInternalError: Internal check failed.\n"
                 "(LLMEngine pid=2347640, ip=10.58.226.15) Last error:\n"
                 "(LLMEngine pid=2347640, ip=10.58.226.15) Proxy Call to rank 7 failed (Connect)\n")

# TensorRT-LLM, Dynamo and NIXL's UCX as posted (blind batch zr): ai-dynamo/dynamo#1188, #732, #843, #814,
# ai-dynamo/nixl#1983, NVIDIA/TensorRT-LLM#1700, #346, #2855, #1826; nvidia-docker#1553 (blind batch zs010)
ETCD_DOWN = ("ERROR dynamo_runtime::worker: Application shutdown with error: Failed to connect to etcd server with config "
             "ClientOptions { etcd_url: [\"http://localhost:2379\"], etcd_connect_options: None, attach_lease: true }\n")
NO_RESPONDERS = ("2025-04-29T17:33:52.129Z ERROR chat_completions: dynamo_llm::http::service::openai: Internal server "
                 "error: Failed to generate completions: no responders: no responders\n")
UCX_PROT = ("[1745700389.902821] [labinit01:6274 :0]     ib_mlx5_log.c:179  UCX  ERROR Local protection error on "
            "mlx5_0:1/RoCE (synd 0x4 vend 0x51 hw_synd 0/0)\n")
UCX_FE80 = ("[1745499308.854013] [9fd0c21b0f7c:760  :0]       ib_device.c:1332 UCX  ERROR   ibv_create_ah(dlid=49152 sl=0 "
            "port=1 src_path_bits=0 dgid=fe80::0a1b:2cff:fe3d:4e5f flow_label=0xffffffff sgid_index=0 traffic_class=0)"
            " for UD mlx5 connect on mlx5_0 failed: Connection timed out\n")
UCX_FLUSHED = ("[1784621081.896649] [pod:537  :1]       srd_iface.c:221  UCX  ERROR send completion[0] with error on "
               "rdmap132s0/0x55cf4425cfb0: Work Request Flushed Error, vendor_err 0x1\n")
MPI_SIGKILL = "mpirun noticed that process rank 6 with PID 0 on node xxxxxxxx exited on signal 9 (Killed).\n"
TRT_OOM = ("[11/10/2023-06:30:40] [TRT] [W] Requested amount of GPU memory (24793579520 bytes) could not be allocated. "
           "There may not be enough free memory for allocation to succeed.\n")
TRT_ASSERT = ("  what():  [TensorRT-LLM][ERROR] Assertion failed: FP8 FMHA cannot be enabled except on Ada or Hopper or "
              "Blackwell Arch. (/code/tensorrt_llm/cpp/tensorrt_llm/common/attentionOp.cpp:2357)\n")
TRT_OTHER_GPU = ("[TensorRT-LLM][WARNING] Using an engine plan file across different models of devices is not "
                 "recommended and is likely to affect performance or even cause errors.\n")
GPU_LOST = "Unable to determine the device handle for GPU 0000:09:00.0: Unknown Error\n"

# https://github.com/pop-os/pop/issues/3363, as posted behind journalctl's prefix (three of its corrected errors)
AER_CORRECTED = "".join(f"Sep 19 16:18:0{i} node kernel: [6818{i}.615810] pcieport 0000:00:03.1: PCIe Bus Error: "
                        "severity=Correctable, type=Data Link Layer, (Transmitter ID)\n" for i in range(3))

# https://github.com/ai-dynamo/dynamo/issues/429 and https://github.com/NVIDIA/TensorRT-LLM/issues/5495, as posted
NO_JETSTREAM = ("nats.js.errors.ServiceUnavailableError: nats: ServiceUnavailableError: code=None err_code=None "
                "description='None'\n")
SPAWN_FULL = "All nodes which are allocated for this job are already filled.\n"

# https://github.com/bytedance/byteps/issues/313 and geerlingguy/raspberry-pi-pcie-devices#21, as posted (blind batch zt)
IBVERBS_SHADOWED = ("libibverbs: Warning: couldn't load driver 'mthca': /usr/local/nvidia/cpu_lib/libibverbs.so.1: "
                    "version `IBVERBS_PRIVATE_22' not found (required by /usr/lib64/libibverbs/libmthca-rdmav22.so)\n")
TX_TIMEOUT = "[   43.997620] NETDEV WATCHDOG: eth1 (mlx4_core): transmit queue 0 timed out\n"

# blind batch zu, as posted: vllm-project/vllm#33920, sgl-project/sglang#29562, ggml-org/llama.cpp#16748,
# sgl-project/sglang#7227, flashinfer-ai/flashinfer#5355
SAMPLER_OOM = "RuntimeError: CUDA out of memory occurred when warming up sampler with 256 dummy requests. \n"
TRTLLM_GEN = ("tvm.error.InternalError: Error in function 'TllmGenFmhaRunner' at /workspace/include/flashinfer/trtllm/fmha/"
              "fmhaRunner.cuh:37: Unsupported architecture\n")
GGML_OOM = ("ggml_backend_cuda_buffer_type_alloc_buffer: allocating 12710.31 MiB on device 0: cudaMalloc failed: out of "
            "memory\n")
TRITON_FP8 = ("ValueError(\"type fp8e4nv not supported in this architecture. The supported fp8 dtypes are ('fp8e4b15', "
              "'fp8e5')\")\n")
NO_KERNEL_NAME = "cudaErrorNoKernelImageForDevice (error code: 209)\n"

# blind batch zy, as posted: k8snetworkplumbingwg/sriov-cni#348 (a pod's rdma-core too old for the kernel),
# dsx-ai-factory/infra-controller PR #5251 (no providers installed)
VERBS_ABI = ("libibverbs: Warning: Driver bnxt_re does not support the kernel ABI of 6 (supports 1 to 1) for device "
             "/sys/class/infiniband/bnxt_re2\n")
VERBS_NO_CONFIG = "libibverbs: Warning: couldn't open config directory '/etc/libibverbs.d'.\n"
# blind batch zw, as posted: NVIDIA/nccl#1837, NVIDIA/Megatron-LM#661, deepspeedai/DeepSpeedExamples#310, NVIDIA/nccl#626
SOCKET_TRUNCATED = ("transport/net_socket.cc:424 NCCL WARN NET/Socket : peer 192.168.161.30<59210> message truncated :\n"
                    "receiving 1048576 bytes instead of 65536\n")
DUPLICATE_GPU = "Duplicate GPU detected : rank 3 and rank 0 both on CUDA device f000\n"
NO_ADDRESS = ("[trainer0|0]:ncclSocketInit: connecting to address  with family 59936 is neither AF_INET(2) nor "
              "AF_INET6(10)\n")
# ray-project/ray#42136 (blind batch zv012), as posted
DASHBOARD_PORT = ("2023-12-31 02:05:37,612 INFO worker.py:1540 -- Connecting to existing Ray cluster at address: "
                  "10.74.40.10:8265...\n")
# ggml-org/llama.cpp#15055 and #12385 (blind batch yz), as posted
RPC_CRASHED = ("/opt/llama.cpp/ggml/src/ggml-rpc/ggml-rpc.cpp:615: Remote RPC server crashed or returned malformed "
               "response\n")
RPC_CONNECT = "llama_model_load_from_file_impl: using device RPC(RPC[:50052]) - 0 MiB free\nFailed to connect to :50052\n"
# blind batch zz, as posted: pytorch/pytorch#79388, #76367, #121209, deepseek-ai/DeepSeek-V3#487,
# ymcui/Chinese-LLaMA-Alpaca-2#274
RDZV_CONNECTION = ('    "message": "RendezvousConnectionError: The connection to the C10d store has failed. See inner '
                   'exception for details.",\n')
RDZV_TIMEOUT = "torch.distributed.elastic.rendezvous.api.RendezvousTimeoutError\n"
RANDOM_RUN_ID = ("master_addr is only used for static rdzv_backend and when rdzv_endpoint is not specified.\n"
                 "WARNING:torch.distributed.launcher.api:config has no run_id, generated a random run_id: 1745806\n")
LOOPBACK_MASTER = "  master_addr=localhost\n  master_port=23456\n  group_rank=1\n  group_world_size=2\n"
LOOPBACK_LAUNCH = "torchrun --nnodes 2 --nproc-per-node 8 --node-rank 1 --master-addr 127.0.0.1 generate.py\n"
CHILD_FAILED = ("Root Cause (first observed failure):\n[0]:\n  time      : 2024-03-05_07:01:51\n  host      : vm\n"
                "  rank      : 0 (local_rank: 0)\n  exitcode  : 1 (pid: 69811)\n  error_file: <N/A>\n")
# Mellanox/mstflint#33 (blind batch zy006), as posted
MODULE_NOT_CONNECTED = ("mlx4_core 0000:04:00.0: MLX4_CMD_MAD_IFC Get Module info attr(ff60) port(1) i2c_addr(50) "
                        "offset(0) size(2): Response Mad Status(31c) - cable is not con\n")
MODULE_UNREADABLE = "Cannot get module EEPROM information: Input/output error\n"
# blind batch xb (containers), as posted: NVIDIA/nvidia-container-toolkit#434, OpenBMB/XAgent#273,
# warmshao/FasterLivePortrait#116, NVIDIA/nvidia-docker#1629 and #1671, NVIDIA/libnvidia-container#231, NVIDIA/nccl#290,
# vllm-project/vllm#5283
# blind batch vh004: a rate sweep's `docker exec` into the server's container after it stopped
DOCKER_STOPPED = ("Error response from daemon: container 105379b1a609757de488752183537e84993c82c21871430bf3eab8e611e8a25d "
                  "is not running\n")
# NVIDIA/nccl#1529 (blind batch vj006): two containers on one node, each given other GPUs
NVML_PEER = ("ucpe-resource033018034100:6896:7103 [1] misc/nvmlwrap.cc:187 NCCL WARN nvmlDeviceGetHandleByPciBusId() "
             "failed: Not Found\nucpe-resource033018034100:6896:7103 [1] NCCL INFO graph/xml.cc:850 -> 2\n")
# er0080/vllm-benchmarking (blind batch vp002): --max-model-len 999999 for opt-125m
MAX_LEN_OVER = ("(APIServer pid=1)   Value error, User-specified max_model_len (999999) is greater than the derived "
                "max_model_len (max_position_embeddings=2048.0 or model_max_length=None in model's config.json).\n")
HTTP_404 = "  warmup 1 FAILED: HTTP Error 404: Not Found\n"  # colonel-otto's bench (vy005): a warning
SANITY_OK = "vLLM NCCL is successful!\nvLLM NCCL with cuda graph is successful!\n"  # vLLM's test.py (vx003): a note
PP_RETRY = ("W sched_reserve: compute buffer allocation failed, retrying without pipeline parallelism\n"
            "I srv    load_model: initializing, n_slots = 1\n")  # llama.cpp#26297 (blind batch vt010): a warning
ROCM_FAULT = ("Memory access fault by GPU node-5 (Agent handle: 0x460e3a50) on address 0x7ec4dfe0e000. Reason: Write "
              "access to a read-only page.\n")  # vllm#35169 (blind batch vu003)
WEIGHTS_KEY = ("ERROR 05-20 09:55:25 [worker_base.py:620]     param = params_dict[name]\nERROR 05-20 09:55:25 "
               "[worker_base.py:620] KeyError: 'model.layers.3.mlp.experts.w2_weight_scale'\n")  # ROCm/vllm#555 (vu007)
K8S_UNSCHED = ("  Warning  FailedScheduling   <unknown>   default-scheduler   0/41 nodes are available: 35 Insufficient "
               "cpu.\n")  # StatCan/jupyter-apis#57 (ta007)
K8S_NO_SCALEUP = ("  Normal   NotTriggerScaleUp  12m   cluster-autoscaler  pod didn't trigger scale-up (it wouldn't fit if "
                  "a new node is added): 1 Insufficient nvidia.com/gpu\n")  # the same pod's autoscaler event
NO_ALGO = "201: :41367:41367 [1] enqueue.cc:422 NCCL WARN Error : no algorithm/protocol available\n"  # nccl#653 (tb010)
KERNEL_BUG = "[ 1234.567890] BUG: unable to handle page fault for address: ffffa0a1b2c3d4e5\n"  # a kernel's own check
IBSTATUS_NONE = "Fatal error:  device '*': sys files not found (/sys/class/infiniband/*/ports)\n"  # trinity#219 (vs008)
CDI_OFF = 'docker: Error response from daemon: could not select device driver "cdi" with capabilities: [].\n'
NO_GPU_RUNTIME = 'docker: Error response from daemon: could not select device driver "" with capabilities: [[gpu]].\n'
CDI_UNRESOLVABLE = 'Error: setting up CDI devices: unresolvable CDI devices nvidia.com/gpu=all\n'
NVC_DRIVER = 'nvidia-container-cli: initialization error: nvml error: driver not loaded: unknown.\n'
NVC_NO_NVML = 'nvidia-container-cli: initialization error: load library failed: libnvidia-ml.so.1: cannot open shared object file: no such file or directory\n'
NVML_UNKNOWN = 'Failed to initialize NVML: Unknown Error\n'
SHM_FALLOCATE = 'gpu2-ru7:2143:2561 [1] include/shm.h:28 NCCL WARN Call to posix_fallocate failed : No space left on device\n'
# session 39, each line as posted: NVIDIA/k8s-device-plugin#303 and #1371, NVIDIA/dgx-spark-playbooks#26,
# AEON-7/Qwen3.6-27B-AEON-Ultimate-Uncensored-DFlash#5, spark-arena/sparkrun#257, huggingface/accelerate#1645
DP_NO_NVML = "2022/05/13 23:09:23 Failed to initialize NVML: could not load NVML library.\n"
DP_NO_NVML_NEW = ("W0819 07:02:54.757556       1 rm.go:109] NVML not detected: could not load NVML library: "
                  "libnvidia-ml.so.1: cannot open shared object file: No such file or directory\n")
NO_NVIDIA_RUNTIME = "docker: Error response from daemon: unknown or invalid runtime name: nvidia\n"
NGC_NO_DRIVER = ("aeon-ultimate-xs  | WARNING: The NVIDIA Driver was not detected.  GPU functionality will not be "
                 "available.\n")
# NVIDIA/nvidia-docker#1548 (WSL2): the banner, then nvidia-smi in that container lists the GPU (a note); the banner
# after a `docker run --gpus all` whose container the paste shows nothing more of (a hedged warn)
NGC_GPU_SHOWN = ("WARNING: The NVIDIA Driver was not detected.  GPU functionality will not be available.\n"
                 "|   0  NVIDIA GeForce ...  On   | 00000000:01:00.0  On |                  N/A |\n")
NGC_GPUS_ASKED = ("$ docker run --gpus all --rm -it nvcr.io/nvidia/tensorflow:20.03-tf2-py3\n"
                  "WARNING: The NVIDIA Driver was not detected.  GPU functionality will not be available.\n")
# ray.init's address info (ray-project/ray#4825's shape) with the head on a Tailscale (100.64.0.0/10) address
VPN_HEAD = ("{'node_ip_address': '192.168.1.41', 'redis_address': '100.87.14.22:6379', 'object_store_address': "
            "'/tmp/ray/session_2025-11-03_20-09-58_412771_2213/sockets/plasma_store'}\n")
SSH_ONE_LETTER = ("  SSH cmd <- s FAILED rc=255: ssh: Could not resolve hostname s: Temporary failure in name "
                  "resolution\n")
SSH_RESOLVE = "ssh: Could not resolve hostname spark-b.local: Name or service not known\n"
ENV_OVERWRITTEN = ("Overwriting environment variable NCCL_SOCKET_IFNAME from 'enP7s7,enp1s0f0np0,enP2p1s0f0np0' to "
                   "'enP7s7,enp1s0f1np1,enP2p1s0f1np1'\n")  # spark-arena/sparkrun#135
NMAP_FILTERED = ("PORT     STATE    SERVICE REASON      VERSION\n"
                 "8065/tcp filtered unknown no-response\n")  # ray-project/ray#24073
DASHBOARD_LOOPBACK = ("2022-04-21 03:58:21,746\tINFO services.py:1414 -- View the Ray dashboard at "
                      "http://127.0.0.1:8265\n")  # ray-project/ray#24073
TP_CANNOT_DIVIDE = ('"vLLM multi-node: --tensor-parallel-size 2 cannot divide worker[0] 1 GPUs (vLLM requires each '
                    'TP unit fit inside one node)"\n')  # gpustack/gpustack#5779
PRIVATE_NODE = ("{'node_ip_address': '10.0.0.40', 'redis_address': '203.0.113.129:6379', 'object_store_address': "
                "'/tmp/ray/session_2019-05-23_09-44-57_372914_1039/sockets/plasma_store'}\n")  # ray-project/ray#4825
PEER_FALSE = "$ torch.cuda.can_device_access_peer(0, 1)\nFalse\n"  # the check of TensorRT-LLM#1374 in PyTorch's words
C10D_CONNECTED = ("[I socket.cpp:787] [c10d] The client socket has connected to [10-198-34-55]:17333 on "
                  "[10-198-34-55]:57764.\n")
COMPAT_804 = 'RuntimeError: Unexpected error from cudaGetDeviceCount(). Error 804: forward compatibility was attempted on non supported HW\n'
# break-it review of session 34: a port without module data (a Spark's RJ45, a virtio NIC); an ABI warning of one device
MODULE_NOT_SUPPORTED = "Cannot get module EEPROM information: Operation not supported\n"
ABI_OTHERS_OPEN = ("libibverbs: Warning: Driver irdma does not support the kernel ABI of 6 (supports 4 to 5) for device "
                   "/sys/class/infiniband/irdma0\n2 HCAs found:\n")
# https://github.com/ai-dynamo/nixl/pull/2276, as posted (nixlbench's table over GCP's TCPXO plugin)
NIXLBENCH = ("Block Size (B)      Batch Size     B/W (GB/Sec)   Avg Lat. (us)  Avg Prep (us)\n"
             "4096                1              0.027182       602.8          492.5\n")
# https://github.com/tuananh0788/Exadata/issues/2, as posted (ibportstate on a QDR switch)
PORTINFO = ("LinkWidthEnabled:................1X or 4X\nLinkWidthActive:.................4X\n"
            "LinkSpeedEnabled:................2.5 Gbps or 5.0 Gbps or 10.0 Gbps\nLinkSpeedActive:.................10.0 Gbps\n")
# break-it review of session 38 (ibportstate of a port with no link)
PORTINFO_DOWN = ("LinkState:.......................Down\nPhysLinkState:...................Polling\n"
                 "LinkWidthActive:.................4X\nLinkSpeedActive:.................2.5 Gbps\n")
# https://github.com/Mellanox/k8s-rdma-shared-dev-plugin/issues/54, as posted (a pod's `ls -l /dev/infiniband`)
DEV_UVERBS = ("/dev/infiniband:\ntotal 0\ncrw------- 1 root root 231,  64 Mar  6 04:13 issm0\n"
              "crw-rw-rw- 1 root root  10,  56 Mar  6 04:13 rdma_cm\ncrw-rw-rw- 1 root root 231, 192 Mar  6 04:13 uverbs0\n")
REREGISTRATION = ("gpu1:5021:5386 [0] transport/net_ib.cc:93 NCCL WARN NET/IB : Got async event : client "
                  "reregistration\n")

# https://github.com/LostRuins/koboldcpp/issues/2005, as posted
ILLEGAL_ACCESS = "CUDA error: an illegal memory access was encountered\n  current device: 1, in function ggml_backend_cuda_synchronize\n"

# https://github.com/NVIDIA/nccl/issues/258, as posted (quoted with "> ")
PEER_ALREADY = "> warning: Cuda API error detected: cudaDeviceEnablePeerAccess returned (0x2c0)\n"

# blind batch wa (s37a2): https://github.com/spark-arena/recipe-registry/issues/23, oobabooga/textgen#7357,
# vllm-project/vllm#53836, nvidia-cosmos/cosmos-reason2#30 (ptxas's line without its `ptxas fatal :` prefix)
ATTN_UNKNOWN = ("(APIServer pid=74)   Value error, Unknown attention backend: 'B12X_MLA_SPARSE'. Valid options are: "
                "FLASH_ATTN, TRITON_ATTN, B12X, CUSTOM [type=value_error, input_value='B12X_MLA_SPARSE', input_type=str]\n")
LLAMA_BAD_ARG = "error: invalid argument: -rpc\n"
VLLM_UNBUILT = ("/home/u/vllm/vllm/__init__.py:7: RuntimeWarning: Failed to read commit hash:\nNo module named "
                "'vllm._version'\n  from .version import __version__, __version_tuple__  # isort:skip\n")
VLLM_UNBUILT_DIED = VLLM_UNBUILT + 'Traceback (most recent call last):\n  File "/home/u/vllm/collect_env.py", line 20\n'
PTXAS_BARE = "Value 'sm_121a' is not defined for option 'gpu-name'\n"
# https://github.com/NVIDIA/nccl/issues/111 (NCCL 2.0: no `NCCL` before WARN, the host name redacted by the poster)
NCCL_CONNECT_OLD = "*server name* [0] include/socket.h:185 WARN Call to connect failed : Connection refused\n"
# https://github.com/NVIDIA/nccl-tests/issues/14 (a container without host networking)
NCCL_SOCKET_CREATE = ("e66aa18dc444:3171:3171 [0] include/socket.h:311 WARN Socket creation failed : Address family not "
                      "supported by protocol\n")
# magnate3/linux-riscv-dev exercises2/user_space/openMpi/README.md (NCCL_TOPO_FILE naming a malformed file)
NCCL_TOPO_XML = "node2:2601564:2601564 [0] graph/xml.cc:155 NCCL WARN XML Parse : expected >, got '\n"
# https://github.com/NVIDIA/nccl-tests/issues/352 (NCCL_ALGO=Tree forced on two 4-GPU nodes)
NCCL_TOPO_ID = "lrdn2151:2678763:2678858 [0] graph/topo.h:234 NCCL WARN Could not find NET with id 0\n"
# https://github.com/Azure/azhpc-images/issues/327 (NCCL_GRAPH_FILE naming a graph over GPUs this VM lacks)
NCCL_GRAPH_DEV = "::16674:17023 [0] graph/search.cc:703 NCCL WARN XML Import Channel : dev 1 not found.\n"
# https://github.com/NVIDIA/NemoClaw/issues/4886 (blind batch wa009): a process list with vLLM's engine core in it
PS_ENGINE = ("    PID    PPID CMD                         %MEM %CPU\n  83408   82664 VLLM::EngineCore             2.6 54.7\n")
# https://github.com/nmstate/nmstate/issues/752 (tests/fixtures/field/pending/xh005_*): a profile for a port without
# carrier, added and then refused
NM_NO_DEVICE = ("Error: Connection activation failed: No suitable device found for this connection (device cni0 not "
                "available because profile is not compatible with device (mismatching interface name)).\n")
NM_ADDED = "Connection 'ethernet-eth1' (b6542930-fd5c-4f7c-ba0c-be8965ed2d26) successfully added.\n"
# https://github.com/KoyoImai/dgx_spark_cluster README.md (tests/fixtures/field/corpus/j001_*): a DGX Spark, Japanese locale
NM_UP_JA = "接続が正常にアクティベートされました (D-Bus アクティブパス: /org/freedesktop/NetworkManager/ActiveConnection/7)\n"
# https://github.com/b4rtaz/distributed-llama/issues/149 (blind batch xo003): a root with two workers, 3 nodes in all
DLLAMA_NODES = ("./dllama inference --steps 64 --prompt \"Hello world\" --model m.m --tokenizer t.t --nthreads 4 "
                "--workers 10.0.1.3:9998 10.0.1.4:9998\n")
# https://github.com/b4rtaz/distributed-llama/issues/87 (blind batch xo009): the Windows root's uncaught exception
CPP_TERMINATE = ("terminate called after throwing an instance of 'std::runtime_error'\n  what():  Cannot create "
                 "socket\n")
# https://github.com/exo-explore/exo/issues/44 (blind batch xo012): tinygrad's kernel that NVRTC refused
NVRTC_COMPILE = ("Error processing prompt: Nvrtc Error 6, NVRTC_ERROR_COMPILATION\n<null>(14): error: more than one "
                 "user-defined conversion from \"nv_bfloat16\" to\n")
# https://github.com/gpustack/gpustack/issues/1471 (blind batch xo005): llama-box's GGML_ABORT
GGML_ABORT = ("/home/runner/work/llama-box/llama-box/llama.cpp/ggml/src/ggml-backend.cpp:746: pre-allocated tensor "
              "(cache_k_l0 (view)) in a buffer (RPC[]) that cannot run the operation (VIEW)\n")
# https://github.com/b4rtaz/distributed-llama/pull/136 (blind batch xo007): 139 of 218 ms a token in transfer
DLLAMA_TRANSFER = ("Avg generation time: 218.06 ms\nAvg inference time:  78.66 ms\nAvg transfer time:   139.17 ms\n")
# https://github.com/b4rtaz/distributed-llama/issues/108 (blind batch xo008): a root's token lines, compute-bound
DLLAMA_COMPUTE = ("\U0001f536 G  559 ms I  499 ms T   60 ms S 1917200 kB R    272 kB Hello\n"
                  "\U0001f536 G  542 ms I  386 ms T  156 ms S    272 kB R    272 kB  world\n")
# https://github.com/kvcache-ai/Mooncake/issues/955 (blind batch xp010): a KV transfer between two NICs without a path
KV_TRANSFER = ("[2026-02-26 16:56:26 TP9] Decode transfer failed for request rank=9 decode_req.req.rid='32b8f521b1ec468a98"
               "cb5d2da98654e2' decode_req.req.bootstrap_room=4073374190146881990 with exception KVTransferError(bootstrap_"
               "room=4073374190146881990): Failed to get kvcache from prefill instance, it might be dead")
"""SGLang's PD disaggregation, the decode side (sgl-project/sglang#37022's deployment, pending corpus wt005)."""
KV_ABORTED = KV_TRANSFER.replace("Failed to get kvcache from prefill instance, it might be dead", "Aborted by AbortReq.")
AMD_NIC_DOWN = ("        PORTS:\n            PORT_0:\n                TYPE: Ethernet\n                FLAVOUR: N/A\n"
                "                NETDEV: enp229s0\n                IFINDEX: 229\n                MAC_ADDRESS: 04:90:81:00:00:b0\n"
                "                CARRIER: 0\n                MTU: 1500B\n                LINK_STATE: down\n"
                "                LINK_SPEED: 0 Mb/s\n")  # ROCm/rocm-systems#3654: amd-smi's AI NIC report, a port with no link
SPARKRUN_IB_PIPE = ("  IB transfer IPs resolved for 1/1 host(s)\nUsing IB network for transfers (1/1 hosts)\n"
                    "  Pipeline <- 192.168.200.12 FAILED rc=255 (10.0s): ssh:\n")  # spark-arena/sparkrun#67
QP_RTR = ("E1021 10:04:11.512345 3051 rdma_endpoint.cpp:241] Failed to modify QP to RTR, check mtu, gid, peer lid, "
          "peer qp num: Invalid argument [22]\n")  # kvcache-ai/Mooncake: a queue pair that never reached RTR
IBLINKINFO = ("CA: gpu-v100-1 HCA-1:\n      0x0002c9ffff00010c      2    1[  ] ==( 4X      25.78125 Gbps Active/  LinkUp)==>"
              "       3    2[  ] \"MF0;ibswitch254:MQM8700/U1\" ( )\n")  # NVIDIA/nccl-tests#71: iblinkinfo, an EDR host
"""SGLang's mooncake conn.py abort(): the request cancelled while its KV was in flight (breakit22 p28)."""
C10D_UNREACHABLE = ("[W socket.cpp:663] [c10d] The client socket has failed to connect to [::ffff:172.16.8.232]:39623 "
                    "(errno: 110 - Connection timed out).")
"""vllm-project/vllm#3771: vLLM in docker, the rendezvous store's address not reachable from the worker."""
C10D_RETRY = ("[W ..\\torch\\csrc\\distributed\\c10d\\socket.cpp:601] [c10d] The client socket has failed to connect to "
              "[DESKTOP-63Q8UGP]:29500 (system error: 10049 - The requested address is not valid in its context.).")
"""Windows' torch.distributed on one machine: the famous 10049 warning for a host name, retried and gone past."""
MOONCAKE_REG = ("E0605 17:54:16.878770 178707 rdma_context.cpp:198] Failed to register memory 0x7f56e6600000: Numerical "
                "result out of range [34]")
"""kvcache-ai/Mooncake#454: the transfer engine's ibv_reg_mr refused (on a PPU)."""
MOONCAKE_NO_RNIC = "I1125 03:04:35.4 25810 rdma_transport.cpp:827] RdmaTransport: No available RNIC"
"""Mooncake's RDMA transport with no device left to open (kvcache-ai/Mooncake#3538's thread)."""
UCX_REG_MR = ("ib_md.c:282  UCX  ERROR ibv_reg_mr(address=0x320000000, length=1024, access=0x10000f) failed: Bad "
              "address")
"""UCX handed a GPU buffer it could not register (a CUDA-aware MPI's shape, openucx/ucx#8999's message)."""
UCX_CQ_NOMEM = "[1652739463.054681] [cn0022:4071024:0]        ib_iface.c:1035 UCX  ERROR ibv_create_cq(cqe=4096) failed: " \
               "Cannot allocate memory"
"""openucx/ucx#8229: an MPI job under a 64 KiB memlock limit (its next line: `Failed to create UCP worker`)."""
MOONCAKE_TCP = "E0728 08:17:30.1 2901 tcp_transport.cpp:338] TcpTransport::startTransfer encountered an ASIO exception. " \
               "Exception: connect: Connection timed out"
"""kvcache-ai/Mooncake#682: the TCP transport's connect to the decode engine timing out."""
MOONCAKE_RETRY = ("E1023 04:59:20.346201 375956 worker_pool.cpp:294] Worker: Process failed for slice (opcode: 1, "
                  "source_addr: 0x7f8b6f185000, length: 4096, dest_addr: 0x7ebb87185000, local_nic: mlx5_9, peer_nic: "
                  "192.168.1.161:16360@mlx5_7, dest_rkey: 1894181, retry_cnt: 0): transport retry counter exceeded\n")
# https://github.com/ray-project/ray/issues/53919 (blind batch xg017): the driver's ray.get_gpu_ids(), empty
GPU_IDS_EMPTY = ("import ray\nray.get_gpu_ids()\n2025-06-18 15:09:25,499 INFO worker.py:1908 -- Connected to Ray "
                 "cluster.\n[]\n")
# https://github.com/jethac/dgx-spark-hijinks (corpus zm011): FlashInfer's decode kernel for an FP4 KV cache not building
FLASHINFER_KV = ("FAILED: [code=1] /root/.cache/flashinfer/0.6.10+cf494fca.nv26.05.cu132.50619265/121a/cached_ops/"
                 "batch_decode_with_kv_cache_dtype_q_bf16_dtype_kv_fp4_e2m1_dtype_o_bf16_dtype_idx_i32_head_dim_qk_128/"
                 "batch_decode.cuda.o\n/usr/local/lib/python3.12/dist-packages/flashinfer/data/include/flashinfer/"
                 "vec_dtypes.cuh(117): error: no suitable conversion function from \"const Params::DTypeKV\" to "
                 "\"float\" exists\n")
# https://github.com/noonghunna/club-3090/issues/602 (corpus u016): vLLM's spec-decode metrics, 3 of 24 accepted
SPEC_ACCEPT = ("(APIServer pid=1) INFO 07-06 12:40:44 [metrics.py:120] SpecDecoding metrics: Mean acceptance length: "
               "1.38, Accepted throughput: 0.30 tokens/s, Drafted throughput: 2.40 tokens/s, Accepted: 3 tokens, "
               "Drafted: 24 tokens, Per-position acceptance rate: 0.125, 0.125, 0.125\n")
# https://github.com/hiyouga/LlamaFactory/issues/2097: a script's model load killed (bash's job report in a script)
PROC_KILLED = "Loading checkpoint shards:  87%|########7 | 7/8 [01:02<00:08]\ncli_demo.sh: line 5: 12989 Killed                  python src/cli_demo.py\n"
# https://github.com/Hangz-nju-cuhk/Rotate-and-Render/issues/7: c10::Error at exit, the CUDA runtime already unloading
TEARDOWN_EXC = ("terminate called after throwing an instance of 'c10::Error'\n  what():  CUDA error: driver shutting "
                "down\n")
# https://github.com/Frogging-Family/nvidia-all/issues/394: the newer form, naming the client, 595.84 over 595.80
API_MISMATCH = ("[    9.424670] NVRM: API mismatch: the client 'kwin_wayland' (pid 1005)\n               NVRM: has the "
                "version 595.84, but this kernel module has\n               NVRM: the version 595.80.  Please make sure "
                "that this\n")

# https://github.com/ray-project/ray/issues/21591, vllm-project/vllm#13557, ray-project/ray#29412, kuberay#3897, kuberay#1563
RAY_NO_RAYLET = ("[2022-02-02 22:24:43,102 C 32987 33002] core_worker.cc:251: Failed to get the system config from "
                 "Raylet on time unexpectedly.IOError: \n")
RAY_REGISTER = ("[2025-02-19 13:33:40,672 E 15244 15244] core_worker.cc:496: Failed to register worker to Raylet: "
                "IOError: [RayletClient] Unable to register worker with raylet. Failed to read data from the socket: "
                "End of file worker_id=01000000ffffffffffffffffffffffffffffffffffffffffffffffff\n")
RAYLET_GONE = ("2022-10-17 14:23:59,720 WARNING worker.py:1839 -- Raylet is terminated: ip=172.29.58.176, "
               "id=c28cee44b5cd67e730b3a9f729ca772f9bfd3f4b936ae1999d38cf36. Termination is unexpected. Possible "
               "reasons include: (1) SIGKILL by the user or system\n")
GCS_GONE = ("[2025-07-28 08:40:52,953 E 1 43] gcs_rpc_client.h:196: Failed to connect to GCS within 60 seconds. GCS "
            "may have been killed. It's either GCS is terminated by `ray stop` or is killed unexpectedly.\n")
K8S_BACKOFF = ("  Warning  BackOff    5m16s (x21329 over 3d20h)  kubelet  Back-off restarting failed container "
               "ray-head in pod main-ray-cluster-kuberay-head-7zw69_default(da4143b0-f4c1-4752-b6b5-396e0ce08e3a)\n")
NOT_REGISTERED = ("[2023-10-24 03:59:58,924 W 8 8] global_state_accessor.cc:401: Some processes that the driver needs "
                  "to connect to have not registered with GCS, so retrying. Have you run 'ray start' on this node?\n")
LLAMA_MAX_DEVICES = ("ValueError: Attempt to split tensors that exceed maximum supported devices. Current "
                     "LLAMA_MAX_DEVICES=1\n")  # abetlen/llama-cpp-python#1166
SPARKRUN_SSH = "[WARNING] sparkrun.orchestration.ssh:   SSH script <- 192.168.20.31 FAILED rc=1 (0.3s):\n"  # sparkrun#205
TP_LOCAL = ("  Value error, Tensor parallel size (2) cannot be larger than the number of available GPUs (1). "
            "[type=value_error]\n")  # ai-dynamo/dynamo#4934
KERNEL_FALLBACK = ("WARNING 06-30 17:41:22 [awq_marlin.py:317] Layer 'language_model.model.layers.3.mlp.experts' is not "
                   "supported by AWQMoeMarlin. Falling back to Moe WNA16 kernels.\n")  # strix-halo-vllm-toolboxes#72
JIT_MISSING = "          -> Failed to open: sm121_fp8_mqa_logits.cuh\n"  # spark-arena/sparkrun#220
BATCH_SERIAL = ("  Requests:       8/8 successful\n  Total time:     30.21 s\n  Total tokens:   800\n"
                "  Avg latency:    18632.5 ms\n")  # pending wg010
BATCH_TOGETHER = "  Requests:       8/8 successful\n  Total time:     7.69 s\n  Avg latency:    7691.5 ms\n"  # wg021
NOT_REGISTERED_GAVE_UP = NOT_REGISTERED + 'Traceback (most recent call last):\n  File "/home/ray/anaconda3/bin/ray", line 8\n'
K8S_NOW_RUNNING = (K8S_BACKOFF + "NAME                                  READY   STATUS    RESTARTS       AGE\n"
                   "main-ray-cluster-kuberay-head-7zw69   1/1     Running   4 (11m ago)    3d20h\n")
API_REBOOTED = ("[ 7386.259769] NVRM: API mismatch: the client has the version 367.44, but\n"
                "               NVRM: this kernel module has the version 367.35.  Please\n$ sudo reboot\n"
                "$ nvidia-smi --query-gpu=name,driver_version --format=csv\nname, driver_version\nTesla K80, 367.44\n")
TP_VISIBLE = ("$ CUDA_VISIBLE_DEVICES=0,1 vllm serve meta-llama/Llama-3.1-70B-Instruct --tensor-parallel-size 4\n"
              "ValueError: Tensor parallel size (4) cannot be larger than the number of available GPUs (2).\n")
# vLLM 0.12.0 on two H100s (blind batch wr009, https://github.com/videocuttingagent): no tuned fused-MoE config
MOE_DEFAULT = ("(Worker_TP1 pid=1182679) WARNING 01-13 02:22:23 [fused_moe.py:888] Using default MoE config. Performance "
               "might be sub-optimal! Config file not found at ['/site-packages/vllm/model_executor/layers/fused_moe/"
               "configs/E=128,N=384,device_name=NVIDIA_H100_80GB_HBM3.json']\n")
# vLLM on two GB10s (blind batch wt001, https://github.com/anemll): the CUDA-graph memory estimate turned off
CGRAPH_UNPROFILED = ("(Worker_TP0 pid=289) WARNING 07-18 19:34:18 [gpu_worker.py:570] CUDA graph memory profiling is "
                     "disabled (VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=0). Without it, CUDA graph memory is not "
                     "accounted for during KV cache allocation, which may require lowering --gpu-memory-utilization "
                     "to avoid OOM.\n")
# ray-project/ray#41161 (blind batch wv008): the GCS to a TLS Redis (AWS ElastiCache) refused its certificate
TLS_REDIS = ("[2023-11-13 01:47:48,664 C 8 8] (ray_init) redis_context.cc:484:  Check failed: redisInitiateSSLWithContext"
             "(context_, ssl_context_) == REDIS_OK Failed to setup encrypted redis: SSL_connect failed: "
             "CERTIFICATE_VERIFY_FAILED\n")
# ray-project/ray#54321 (blind batch wv010): the GCS removes a node and says why
NODE_DEATH = ("[2025-07-03 11:12:01,375 I 42 42] (gcs_server) gcs_node_manager.cc:386: Removing node, node name = "
              "172.24.1.211, death reason = UNEXPECTED_TERMINATION, death message = Raylet could not connect to Runtime "
              "Env Agent node_id=3f59adf5c5637be592d585665324bc4d7e22d22f86bc0a4847c89076\n")
# a DGX Spark's Ray head stopped with `docker stop` (break-it review 22): a planned removal, a note
NODE_STOPPED = ("[2026-04-27 14:28:36,412 I 61 61] (gcs_server) gcs_node_manager.cc:639: Removing node, node name = "
                "192.168.100.11, death reason = EXPECTED_TERMINATION, death message = received SIGTERM "
                "node_id=90e5c8da07ae3610811933ecb98e021c4b5a7a49be80665bb8924e4b\n")
# a spot node taken back (Ray's NodeDeathInfo reason AUTOSCALER_DRAIN_PREEMPTED): a warning
NODE_PREEMPTED = ("[2025-03-11 09:14:02,118 I 88 88] gcs_node_manager.cc:128: Removing node, node name = 10.0.3.17, "
                  "death reason = AUTOSCALER_DRAIN_PREEMPTED, death message = preempted by the cloud provider\n")
# a DGX Spark's vLLM log (blind batch vd007): a request refused as bad, among served ones: a note
HTTP_400 = "(APIServer pid=29938) INFO:     127.0.0.1:43612 - \"POST /v1/chat/completions HTTP/1.1\" 400 Bad Request\n"
# huggingface_hub behind a proxy that intercepts TLS: no Redis, the general fix
TLS_HF = ("requests.exceptions.SSLError: (MaxRetryError(\"HTTPSConnectionPool(host='huggingface.co', port=443): Max "
          "retries exceeded with url: /api/models (Caused by SSLError(SSLCertVerificationError(1, '[SSL: "
          "CERTIFICATE_VERIFY_FAILED] certificate verify failed: self-signed certificate in certificate chain (_ssl.c:1006)')))\"))\n")
# the same warning, then the server up (https://github.com/Anemll/dspark-vllm-gx10, blind batch wv005): a note
CGRAPH_SERVED = CGRAPH_UNPROFILED + "(APIServer pid=1) INFO:     Application startup complete.\n"
# vLLM 0.25.1 on a DGX Spark (blind batch wr007, https://github.com/sostrowsk): an NVFP4 checkpoint's fused q/k/v scales
NVFP4_SCALES = ("(EngineCore pid=40474) WARNING 08-02 10:29:03 [compressed_tensors_w4a4_nvfp4.py:102] In NVFP4 linear, "
                "the weight global scale is different for parallel layers (e.g. q_proj, k_proj, v_proj). This  will "
                "likely result in reduced accuracy. Please verify the model accuracy.\n")
KILLED_TIMEOUT = "$ timeout -s KILL 30 ./all_reduce_perf -b 8 -e 128M -g 2\n#  Rank  0\nKilled\n"
SSH_RETRIED = ("[WARNING] sparkrun.orchestration.ssh:   SSH script <- 192.168.20.31 FAILED rc=1 (0.3s): docker: Error "
               "response from daemon: No such container: sparkrun_head\n"
               "[INFO] sparkrun.orchestration.ssh:   SSH script <- 192.168.20.31 OK (4.1s)\n")
NOT_REGISTERED_CAME_UP = NOT_REGISTERED + "\n--------------------\nRay runtime started.\n--------------------\n"
UCX_AH_TIMEOUT = ("[1719157763.321281] [node2:19381:0]       ib_device.c:1163 UCX  ERROR   ibv_create_ah(dlid=49152 sl=0 "
                  "port=1 src_path_bits=0 dgid=::ffff:172.16.0.2 flow_label=0xffffffff sgid_index=3 traffic_class=106) "
                  "for UD mlx5 connect on mlx5_1 failed: Connection timed out\n")  # openucx/ucx#9970
UCX_RETRY = ("[master:19546:0:19546] ib_mlx5_log.c:139  Transport retry count exceeded on mlx5_0:1/IB (synd 0x15 vend "
             "0x81 hw_synd 0/0)\n[master:19546:0:19546] ib_mlx5_log.c:139  DCI QP 0xa9f wqe[0]: SEND s-e [rqpn 0xa66 "
             "rlid 703] [inl len 18]\n")  # openucx/ucx#5199
UCX_UD_QP = ("[1743560160.063188] [iZ0jl9w5uimuv06kvi1ehwZ:23812:0]        ib_iface.c:1182 UCX  ERROR erdma_0: iface "
             "0x32ce7410 failed to create UD QP TX wr:256 sge:6 inl:64 resp:0 RX wr:4096 sge:1 resp:0 failed: Invalid "
             "argument\n")  # ai-dynamo/dynamo#285
UCX_NO_ROUTE = ("[1745480768.774628] [l229-7-p-ga:4112 :0]            sock.c:334  UCX  ERROR   connect(fd=208, "
                "dest_addr=10.25.117.11:64468) failed: Network is unreachable\n")  # ai-dynamo/dynamo#813
NVRM_RESET = ("NVRM: kfspWaitForResponse: FSP command timed out\n"
              "NVRM: nvCheckOkFailedNoLog: Check failed: Reset required [NV_ERR_RESET_REQUIRED]\n")  # lilvllm#237
NCCL_NO_GRAPH = ("NCCL WARN NCCL cannot be captured in a graph if either it wasn't built with CUDA runtime >= 11.3 or if "
                 "the installed CUDA driver < R465.\n")  # vllm-project/vllm#3069
HTTP_503 = ('2025-04-09 12:04:36,150 - INFO - HTTP Request: POST http://192.168.50.13/v1/chat/completions "HTTP/1.1 503 '
            'Service Unavailable"\n')  # gpustack/gpustack#1677
MODEL_404 = ("(APIServer pid=1276) ERROR 03-13 09:38:18 [serving.py:229] Error with model error=ErrorInfo(message='The "
             "model `Intel/Qwen3.5-122B-A10B-int4-AutoRound` does not exist.', type='NotFoundError', param='model', "
             "code=404)\n")  # pending wn005
NA_PARSE = "  ERROR - An unexpected error occurred: invalid literal for int() with base 10: '[N/A]'\n"  # NVIDIA/daqiri#28
RING_NO_LOOP = ("52: ip-0A0C04E3:76285:76947 [4] graph/rings.cc:38 NCCL WARN Error : ring 0 does not loop back to "
                "start (48 != 52)\n")  # NVIDIA/nccl#577
SGL_KERNEL = ("ImportError: [sgl_kernel] CRITICAL: Could not load any common_ops library!\nAttempted locations:\n"
              "1. sm100/common_ops.abi3.so \u2014 undefined symbol (PyTorch C10 ABI mismatch)\nGPU Info:\n"
              "- Compute capability: 121\n")  # sgl-project/sglang#29317
TRT_BENCH = ("[BENCHMARK] model_name llama_13b world_size 2 num_heads 40 num_kv_heads 40 num_layers 40 hidden_size "
             "5120 vocab_size 32000 precision float16 batch_size 1 input_length 710 output_length 190 gpu_peak_mem(gb) "
             "0.0 build_time(s) 116.39 tokens_per_sec 43.09\n")  # NVIDIA/TensorRT-LLM#1410
AUTOSCALER_DIED = ("(raylet) The autoscaler failed with the following error:\nTraceback (most recent call last):\n"
                   '  File "/usr/lib/python3/site-packages/ray/autoscaler/_private/monitor.py", line 600, in run\n')
NO_BLOCK_SIZE = ("(Worker_TP0 pid=271) ERROR 09-10 09:44:40 [multiproc_executor.py:1055] ValueError: No common block "
                 "size for 64. \n")  # pending wn012
RPC_NO_BUFFER = ("103.05.299.632 W srv        deserialize_tensor: failed: buffer not found, name = token_embd.weight\n"
                 )  # gpustack/gpustack#1192
NO_RUNTIME = "docker: Error response from daemon: unknown or invalid runtime name: nvidia\n"  # dgx-spark-playbooks#26
NO_DRIVER_BANNER = ("aeon-ultimate-xs  | WARNING: The NVIDIA Driver was not detected.  GPU functionality will not be "
                    "available.\n")  # aeon#5
PLUGIN_NO_NVML = ("W0819 07:02:54.757556       1 rm.go:109] NVML not detected: could not load NVML library: "
                  "libnvidia-ml.so.1: cannot open shared object file: No such file or directory\n")  # k8s-device-plugin#1371
NVML_NOT_SUPPORTED = ("pynvml.NVMLError_NotSupported: Not Supported\n\nRuntimeError: Failed to get free memory for "
                      "device 0 (global index: 0): Not Supported\n")  # NVIDIA-NeMo/RL#2203
UCX_NO_AM = ("[1650121445.321789] [cpn3286:242769:0]          select.c:514  UCX  ERROR   no active messages transport to "
             "<no debug data>: posix/memory - Destination is unreachable, sysv/memory - Destination is unreachable, "
             "self/memory0 - Destination is unreachable, cma/memory - no am bcopy, knem/memory - no am bcopy\n")
UCX_NO_TL = ("[1751618583.086184] [ubuntu2:744810:0]     ucp_context.c:1321 UCX  WARN  transport 'cuda_copy' is not "
             "available, please use one or more of: cma, dc, dc_mlx5, dc_x, ib, mm, posix, rc, self, tcp\n")
BTL_DOCKER0 = ("[u10-154-66-206][[38971,1],2][btl_tcp_endpoint.c:796:mca_btl_tcp_endpoint_complete_connect] connect() "
               "to 172.17.0.1 failed: Connection refused (111)\n")  # horovod/horovod#310

JOB_EXIT = "[1]+  Exit 1                  vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 8192\n"  # bash job control
JOB_TERMINATED = "[2]-  Terminated              python -m sglang.launch_server --model-path Qwen/Qwen3-8B\n"  # bash job control
# MiaAI-Lab/DeepSeek-v4-Flash-One-DGX-Spark#4: the exception line as quoted, wrapped after the caller
WORKSPACE_LOCKED = ("AssertionError: Workspace is locked but allocation from 'b12x.py:321:_run_compressed_mla'\n"
                    "requires 1949.52 MB, current size is 1157.00 MB. Workspace growth is not allowed after locking.\n")
# blind batch vb003 (ajclark, four DGX Sparks, vLLM's multiproc executor): rank 0's worker stops on a Triton kernel
# load, its NCCL watchdog is told of a collective timeout, then the engine loses the worker
TRITON_CUDA = ("(Worker_TP0_DCP0 pid=232) ERROR 09-07 20:59:45 [multiproc_executor.py:990] RuntimeError: Triton Error "
               "[CUDA]: operation not permitted\n")
TORCH_DUMP_TIMEOUT = ("[rank0]:[E907 21:09:45.072414592 ProcessGroupNCCL.cpp:1914] [PG ID 0 PG GUID 0 Rank 0] Received a "
                      "dump signal due to a collective timeout from  rank 3 and we will try our best to dump the debug "
                      "info. Last enqueued NCCL work: -1, last completed NCCL work: -1.\n")
WORKER_DIED_MP = ("(EngineCore pid=185) ERROR 09-07 21:18:35 [multiproc_executor.py:284] Worker proc VllmWorker-0 died "
                  "unexpectedly, shutting down executor.\n")
# leptonai/gpud's states output (break-it 24 p18's shape): a component Unhealthy, one Degraded
GPUD_UNHEALTHY = ('    "component": "accelerator-nvidia-remapped-rows",\n    "states": [\n      {\n'
                  '        "health": "Unhealthy",\n        "reason": "GPU 0 has pending row remapping; reset required",\n')
GPUD_DEGRADED = ('    "component": "accelerator-nvidia-ecc",\n    "states": [\n      {\n'
                 '        "health": "Degraded",\n        "reason": "GPU 0 has 12 correctable ECC errors",\n')
# Syllo/nvtop#6's header shape under load (break-it 24 p21): an RTX 3090 at 100% still at Gen 1
NVTOP_GEN1_BUSY = (" Device 0 [NVIDIA GeForce RTX 3090] PCIe GEN 1@16x RX: 248.0 MiB/s TX: 251.0 MiB/s\n"
                   " GPU 1905MHz MEM 9751MHz TEMP  74C FAN  78% POW 342 / 350 W\n"
                   " GPU[||||||||||||||||||||||||||||||||100%] MEM[|||||||||||||||||||22.1Gi/24.0Gi]\n")
# netdata/netdata#15755's XML shape under load (break-it 24 p19): an RTX 4090 at P8 with its utilisation at 100%
XML_P8_BUSY = "\t\t<performance_state>P8</performance_state>\n\t\t\t<gpu_util>100 %</gpu_util>\n"
ALL = [IB_COULD_BE, SWAP_LARGE, TLS_REDIS, TLS_HF, NODE_DEATH, NODE_PREEMPTED, NM_NO_DEVICE, CGRAPH_UNPROFILED, NVFP4_SCALES, HPL_SLOW, DCGM_NVLINK, GPU_MEM_NS, GCS_FAILED, GCS_REDIS, OOM_TORCH, OOM_TORCH_2, RAY_VERSIONS, KV_PREEMPTED, PG_ANCHOR, RAY_INFEASIBLE, LAUNCHER_GAVE_UP, NEG_CUDAGRAPH, SSH_TIMEOUT, SHM_64MB, SEMLOCK, NCCL_CUDA, HUNG_TASK, NCCL_WC12, NCCL_WC12_STATUS, NCCL_WC12_BARE, NCCL_REG_NOMEM, NCCL_REG_DMABUF, NCCL_CLOSED, NCCL_CONNECT, RAY_CHANNEL, PTXAS, CUTLASS, MODEL_TYPE, RAY_BASH, RAY_SH, RAY_STATUS_PACK, GATED, NV_ERR, NV_ERR_DMESG, AVAHI,
       SSH_SPARKDASH, SSH_PLAIN, NVML, RM_INIT, XID_GSP, XID_45, XID_79, XID_13, XID_149, NETPLAN_INDENT, CGRAPH_READ, RAY_DEAD,
       CGRAPH_UNAPPLIED, SSH_DIR, MLX5_PROBE, OOM_KILL, AER_FATAL, NCCL_SYSTEM,
       STORE_TIMEOUT, GID_EMPTY, RAY_INFEASIBLE_OLD,
       ORDINAL, RAY_SHM, PORT_IN_USE, SEGV_CONTAINER, RAY_NONE, RAY_OOM_SPARK, KV_PAGE_SIZE, NMCLI_MTU,
       METHOD_FAILED, SEGFAULT, SIGBUS, IBSTAT_NO_CA, PLASMA_SHM, NO_RDMA, NCCL_ABORT, SUBMODULE, NOT_SUBSCRIPTABLE, WATCHDOG, NO_KERNEL, NVLS, LAUNCH_FAILED, COMPILE,
       HEAP_ABORT, BOOTSTRAP, RAY_UNHANDLED, DUMP_INPUT, TRUNCATED, NO_SYMBOL,
       SHM_TIMEOUT, CUDA_FOOTER, SHM_SEGMENT, VIRTUAL_PCI, SIMPLE_ORDER, PEER_UNSUPPORTED,
       GRAPH_ESTIMATE, STORE_LOST, NCCL_FATAL, OOM_BARE, MAX_SHMEM, MAPPING_OOM, SGLANG_TP, WATCHDOG_NEW, PCIE_NARROW, GLOO_LOOPBACK, UCX_REFUSED, STORE_WAIT, UCX_NO_DEVICE, RAY_CLIENT,
       P2P_OFF_HANG, PERFTEST_WC4, PERFTEST_WC12, RTR_TIMEOUT, SAMPLES_P2P, P2P_NAN,
       RAYLET_OOM, C10D_CONNECT, REMOTE_ERROR, CONNECT_RETRY, PROXY_CONNECT, NET_IB_FORCED, ETCD_DOWN, NO_RESPONDERS, UCX_PROT,
       UCX_FE80, UCX_FLUSHED, MPI_SIGKILL, TRT_OOM, TRT_ASSERT, TRT_OTHER_GPU, GPU_LOST,
       AER_CORRECTED, NO_JETSTREAM, SPAWN_FULL, IBVERBS_SHADOWED, TX_TIMEOUT, SAMPLER_OOM, TRTLLM_GEN, GGML_OOM,
       TRITON_FP8, NO_KERNEL_NAME, ILLEGAL_ACCESS, VERBS_ABI, VERBS_NO_CONFIG, SOCKET_TRUNCATED, DUPLICATE_GPU,
       NO_ADDRESS, DASHBOARD_PORT, RPC_CRASHED, RPC_CONNECT, RDZV_CONNECTION, RDZV_TIMEOUT,
       RANDOM_RUN_ID, LOOPBACK_MASTER, LOOPBACK_LAUNCH, CHILD_FAILED, MODULE_NOT_CONNECTED, MODULE_UNREADABLE,
       CDI_OFF, NO_GPU_RUNTIME, CDI_UNRESOLVABLE, NVC_DRIVER, NVC_NO_NVML, NVML_UNKNOWN, SHM_FALLOCATE, COMPAT_804,
       DP_NO_NVML, DP_NO_NVML_NEW, NO_NVIDIA_RUNTIME, NGC_NO_DRIVER, NGC_GPUS_ASKED, VPN_HEAD, SSH_ONE_LETTER, SSH_RESOLVE, ENV_OVERWRITTEN, NMAP_FILTERED, TP_CANNOT_DIVIDE, PRIVATE_NODE, PEER_FALSE,
       RAY_FATAL, RAY_DISK, RAY_USAGE, BENCH_FIRST, RANK_TWICE, NVRM_LOST, NO_STATUS, SHM_STUCK, SHM_TWICE, FD_ULIMIT,
       DEVX, NIXL_BACKEND, SGLANG_NO_KV, DYNAMO_NONE, ORTED, CUDA12_LIB, TRT_WINDOW, UCX_SOCKADDR, CM_ENODEV,
       STORE_RETRY, STORE_RETRIES, GLOO_HOSTNAME, NO_PROVIDER, NO_SOCKET_IFACE, LOCAL_ACCESS, CTS_UNUSED, NO_LIBCUDA,
       ARCH_GUARD, CUDA0_BUFFER, BENCH_ZERO, ENGINE_DIED, RAY_ONE_OF_TWO, RAY_INIT_TIMEOUT,
       PMIX_TIMEOUT, ABORT_HANG, TESTS_ORDINAL, PROXY_POOL, MEMLOCK_64K, ROCE_VER_EINVAL, FABRIC_NOMEM,
       CCL_NO_HOST_IP, ATTN_UNKNOWN, LLAMA_BAD_ARG, VLLM_UNBUILT, VLLM_UNBUILT_DIED, PTXAS_BARE,
       DLLAMA_NODES, CPP_TERMINATE, NVRTC_COMPILE, GGML_ABORT, DLLAMA_TRANSFER, MOONCAKE_RETRY, FLASHINFER_KV,
       RPC_VERSION, CUBLAS_INIT, GGML_OP, CUDA_NAMED, RAY_WORKER_DIED, GGML_ASSERT, C_ASSERT, CUSTOM_AR,
       NCCL_CONNECT_OLD, NCCL_SOCKET_CREATE, NCCL_TOPO_XML, NCCL_TOPO_ID, PROC_KILLED, TEARDOWN_EXC, API_MISMATCH,
       PORTINFO_DOWN, COMM_AFTER_FAIL, NCCL_GRAPH_DEV,
       RAY_NO_RAYLET, RAY_REGISTER, RAYLET_GONE, GCS_GONE, K8S_BACKOFF, K8S_NOW_RUNNING, TP_VISIBLE, NOT_REGISTERED, NOT_REGISTERED_GAVE_UP,
       LLAMA_MAX_DEVICES, SPARKRUN_SSH, TP_LOCAL, KERNEL_FALLBACK, JIT_MISSING, BATCH_SERIAL, CUDA_UNKNOWN,
       UCX_AH_TIMEOUT, UCX_RETRY, UCX_UD_QP, UCX_NO_ROUTE, NVRM_RESET, NCCL_NO_GRAPH, HTTP_503, MODEL_404,
       RING_NO_LOOP, BTL_DOCKER0, SGL_KERNEL, AUTOSCALER_DIED, NO_BLOCK_SIZE, RPC_NO_BUFFER,
       NO_RUNTIME, NO_DRIVER_BANNER, PLUGIN_NO_NVML, NVML_NOT_SUPPORTED, UCX_NO_AM, UCX_NO_TL,
       WORKSPACE_LOCKED, JOB_EXIT, KV_TRANSFER, C10D_UNREACHABLE, MOONCAKE_REG, MOONCAKE_NO_RNIC, UCX_REG_MR, UCX_CQ_NOMEM, MOONCAKE_TCP,
       TRITON_CUDA, TORCH_DUMP_TIMEOUT, WORKER_DIED_MP,
       AMD_NIC_DOWN, SPARKRUN_IB_PIPE, QP_RTR, GPUD_UNHEALTHY, GPUD_DEGRADED, NVTOP_GEN1_BUSY, XML_P8_BUSY,
       DOCKER_STOPPED, NVML_PEER, MAX_LEN_OVER, IBSTATUS_NONE, KERNEL_BUG, ROCM_FAULT, WEIGHTS_KEY, NO_ALGO, K8S_UNSCHED, K8S_NO_SCALEUP]


@pytest.mark.parametrize("text", ALL)
def test_each_fault_is_a_fail_finding_with_its_fix(text):
    """known_faults gives explain's findings: (level, "<meaning> Fix: <fix>"); a fault is a `fail` (an Xid whose
    number the table does not single out is a `warn`: many are the application's; so is a preempted request)."""
    [(level, message)] = known_faults(text)
    assert level == ("warn" if any(text is t for t in (NODE_PREEMPTED, TEARDOWN_EXC, XID_45, KV_PREEMPTED, PG_ANCHOR, LAUNCHER_GAVE_UP, NEG_CUDAGRAPH, SHM_64MB, RING_NO_LOOP, RAY_SHM, PLASMA_SHM, IBSTAT_NO_CA,
                                                      PCIE_NARROW, UCX_NO_DEVICE, TRT_OTHER_GPU, AER_CORRECTED,
                                                      MODULE_UNREADABLE, RAY_DISK, NO_STATUS, SHM_STUCK, SHM_TWICE, FD_ULIMIT, RAY_ONE_OF_TWO,
                                                      TRT_WINDOW, GLOO_HOSTNAME, STORE_RETRY, CTS_UNUSED, MEMLOCK_64K,
                                                      VLLM_UNBUILT, SIMPLE_ORDER, HPL_SLOW, DCGM_NVLINK, DLLAMA_TRANSFER, FLASHINFER_KV,
                                                      PORTINFO_DOWN, NOT_REGISTERED, SPARKRUN_SSH, KERNEL_FALLBACK, BATCH_SERIAL, K8S_NOW_RUNNING,
                                                      ENV_OVERWRITTEN, NMAP_FILTERED, PRIVATE_NODE, PEER_FALSE,
                                                      MODEL_404, UCX_NO_TL, JOB_EXIT, NV_ERR, NV_ERR_DMESG, NGC_GPUS_ASKED, VPN_HEAD,
                                                      CGRAPH_UNPROFILED, NVFP4_SCALES, C10D_UNREACHABLE, UCX_CQ_NOMEM, SWAP_LARGE, IB_COULD_BE,
                                                      AMD_NIC_DOWN, QP_RTR, GPUD_DEGRADED, NVTOP_GEN1_BUSY, XML_P8_BUSY))
                    else "fail")
    assert " Fix: " in message


def test_p2p_off_read_only_where_it_worked_around_a_hang():
    """NCCL_P2P_DISABLE=1 that did not help, or that helped something else, is no sign of a P2P fault; said to work
    around a hang the text tells of, it is one (NVIDIA/nccl#667). The break-it review's shapes of session 33."""
    from grader.judges.context import _CONTEXT, Context
    for text in ("With NCCL_P2P_DISABLE=1 it still did not work, the rest hangs.\n",
                 "NCCL_P2P_DISABLE=1 doesn't help either, same hang\n",
                 "It hangs. Even with NCCL_P2P_DISABLE=1 it still hangs; NCCL_IB_DISABLE=1 fixes it.\n",
                 "TP 2 hangs at startup. NCCL_P2P_DISABLE=1 didnt fix it, NCCL_SHM_DISABLE=1 neither.\n",
                 "It hangs. Setting NCCL_P2P_DISABLE=1 never works for me.\n",
                 "$ docker run -e NCCL_P2P_DISABLE=1 -v /srv/work:/work img  # it hung once\n",
                 P2P_OFF):  # (works, and no hang told: an A/B test, a playbook's setting)
        assert known_faults(text) == [], text
    [(level, message)] = known_faults(P2P_OFF_HANG)
    assert level == "fail" and "ACS" in message and "hangs otherwise" in message
    token = _CONTEXT.set(Context(host="spark"))  # a Spark's one GPU has no PCIe peer: not this
    try:
        assert known_faults(P2P_OFF_HANG) == []
    finally:
        _CONTEXT.reset(token)


def test_a_fault_already_shown_is_not_said_twice():
    """A section whose own reader (the vLLM log's diagnose) named the fault: the pass adds nothing."""
    shown = [f"{d.message} Fix: {d.fix}" for d in diagnose(parse_vllm_log(RAY_CHANNEL))]
    assert known_faults(RAY_CHANNEL, shown) == []
    assert known_faults(RAY_CHANNEL, ["something else"]) != []


def test_clean_text_names_nothing():
    for text in ("", "nvidia@spark-a:~$ hostname\nspark-a\n",
                 "(APIServer pid=1) INFO:     Application startup complete.\n",
                 (FIELD / "04_ray-status_koyoimai-2node-healthy.txt").read_text()):
        assert diagnose_text(text) == [] and known_faults(text) == []


def test_every_known_error_line_is_read_here():
    """Each table entry that reads plain text is reached by one of the field outputs above."""
    reached = {d.kind for text in ALL + [KV_BYTES_SET, JOB_TERMINATED, BATCH_TOGETHER, GPUSTAT_GB10, NETPLAN_NM, FORWARD_COMPAT, PROVIDER, GID_NODATA, UNKNOWN_ENV, PEERMEM,
                                        MLX5_POWER, SLURM_STEP, MLX5_LOW_POWER, ETHTOOL_NETLINK, NVBANDWIDTH_WAIVED,
                                        DOWNLOADED, NO_P2P, SHM_WAIT, NO_VERBS, SPARK_BOOT, NO_P2P_PAIR, PEER_CHECK, WSL, OFI_TCP, OFI_GDR, RAS_BIND, PEER_ALREADY,
                                        PCIE_SLOWER, GPU_MEM_NS_IGNORED, ALLREDUCE, SYMM_MEM, PL_REFUSED, TORCH_CAP, NO_CUSTOM_AR,
                                        REREGISTRATION, MODULE_NOT_SUPPORTED, ABI_OTHERS_OPEN, DEV_UVERBS, NIXLBENCH, PORTINFO, DESTROY_PG, LEAKED_SHM,
                                        C10D_HOSTNAME, RAY_FRACTIONAL, DEL_IGNORED, PTX_DUMP, DS_LAUNCH,
                                        TRTLLM_LEADER, BENCHY_GPT2, NETPLAN_OPEN, DESYNC, RANK_LEFT, MOONCAKE_GID,
                                        PS_ENGINE, DRIVER_LOAD, NM_ADDED, NM_UP_JA, DLLAMA_COMPUTE, GPU_IDS_EMPTY, SPEC_ACCEPT,
                                        NOT_REGISTERED_CAME_UP, API_REBOOTED, KILLED_TIMEOUT, SSH_RETRIED, MOE_DEFAULT,
                                        C10D_CONNECTED, DASHBOARD_LOOPBACK, NA_PARSE, TRT_BENCH, NGC_GPU_SHOWN, CGRAPH_SERVED, NODE_STOPPED, HTTP_400,
                                        C10D_RETRY, KV_ABORTED, NVTOP_GEN1, PL_SET_ONESHOT, GPUD_FALLBACK, GPUD_HEALTHY, XML_P8, XTRACE,
                                        IBLINKINFO, GPUD_RECOVERED, PP_RETRY, SANITY_OK, HTTP_404]
               for d in diagnose_text(text)}
    from grader.judges.context import _CONTEXT, Context
    token = _CONTEXT.set(Context(nodes=1))  # what `explain --nodes 1` reads differently
    try:
        reached |= {d.kind for d in diagnose_text(GLOO_HOSTNAME)}
    finally:
        _CONTEXT.reset(token)
    assert {e.kind for e in load_table() if e.reads_text} <= reached


def test_a_vllm_process_is_read_in_a_process_list_only():
    """NVIDIA/NemoClaw#4886 (blind batch wa009): `VLLM::EngineCore` in ps's list is a note that vLLM runs; the same name
    in nvidia-smi's process table (its own reader lists it) or in a kernel's OOM line (a kill, not a run) is not."""
    [d] = diagnose_text(PS_ENGINE)
    assert d.kind == "vllm-process-listed" and d.severity == "info" and "EngineCore" in d.message
    smi = "|    0   N/A  N/A          577729      C   VLLM::EngineCore                      89093MiB |\n"
    oom = "[12345.6] Out of memory: Killed process 83408 (VLLM::Worker_TP) total-vm:1234kB\n"
    assert not [x for x in diagnose_text(smi + oom) if x.kind == "vllm-process-listed"]


def test_the_pass_over_a_5_mb_paste_is_linear():
    noise = "(EngineCore_DP0 pid=1) INFO 11-29 14:02:11 [core.py:1] Active: 0.0/2.0 GPU CUTLASS fp4 model type x\n"
    text = noise * (5 * 2 ** 20 // len(noise)) + SSH_PLAIN
    start = time.process_time()  # CPU seconds: the suite's second half runs at the lowest priority (test.sh)
    assert [d.kind for d in diagnose_text(text)] == ["ssh-publickey"]
    assert time.process_time() - start < 2.0


@pytest.mark.parametrize("text, needle", [
    (RAY_CHANNEL, "RayChannelTimeoutError"), (PTXAS, "sm_121a"), (CUTLASS, "Error Internal"),
    (MODEL_TYPE, "does not know the model"), (RAY_BASH, "Ray is not installed"), (RAY_SH, "Ray is not installed"),
    (GATED, "gated"), (NV_ERR_DMESG + OOM_KILL, "NV_ERR_NO_MEMORY"), (AVAHI, "avahi"),
    (SSH_PLAIN, "refused this SSH login"), (SSH_DIR, "mkdir -p ~/.ssh"),
])
def test_explain_names_each_fault_in_a_paste_and_exits_1(text, needle, tmp_path, capsys):
    """The same pastes through `clusterlab explain`: whatever kind (or none) the paste is read as, the fault
    is a fail finding with its fix, and the exit status is 1."""
    from grader.cli import main
    from grader.explain import explain
    fails = [f.message for s in explain(text) for f in s.findings if f.level == "fail"]
    assert any(needle.lower() in m.lower() and "Fix:" in m for m in fails), fails
    path = tmp_path / "paste.txt"
    path.write_text(text)
    assert main(["explain", str(path)]) == 1
    capsys.readouterr()


# Syllo/nvtop#6: nvtop's header for two GTX 1080 Ti, the idle one's link at Gen 1 (markdown bold as posted)
NVTOP_GEN1 = ("Device 0 [GeForce GTX 1080 Ti] PCIe GEN 3@16x \n"
              "Device 1 [GeForce GTX 1080 Ti] _**PCIe GEN 1@16x**_ \n")
# Puget Systems' nv-power-limit.service (a boot-time oneshot running nvidia-smi -pm 1 and -pl 280): systemctl status
PL_SET_ONESHOT = ("Nov 23 16:11:27 pslabs-ml1 nv-power-limit.sh[14587]: Power limit for GPU 00000000:53:00.0 was set to "
                  "280.00 W from 350.00 W.\nNov 23 16:11:27 pslabs-ml1 systemd[1]: nv-power-limit.service: Succeeded.\n")
# leptonai/gpud#1170: gpud on a GB10, NVML's memory query Not Supported, the fallback, then the component's state
GPUD_FALLBACK = ('{"level":"warn","ts":"2025-12-05T04:45:04.257Z","caller":"memory/memory.go:97","msg":"NVML memory APIs '
                 'not supported for unified memory device, falling back to system memory","product_name":"NVIDIA-GB10",'
                 '"error":"Not Supported"}\n')
GPUD_HEALTHY = ('    "component": "accelerator-nvidia-memory",\n    "states": [\n      {\n        "time": "2025-12-05T04:46:00Z",\n'
                '        "component": "accelerator-nvidia-memory",\n        "name": "accelerator-nvidia-memory",\n'
                '        "health": "Healthy",\n        "reason": "all 1 GPU(s) were checked, no memory issue found",\n')
# netdata/netdata#15755: an RTX 4090's nvidia-smi -q -x report, its module power block at P8 (driver 535+)
XML_P8 = "                <module_power_readings>\n                        <power_state>P8</power_state>\n"
# Tongyi-Zhiwen/Qwen-Doc#6: a verl launch script's set -x trace after the Ray head started
XTRACE = "+ MODEL_PATH=deepseek-ai/DeepSeek-R1-Distill-Qwen-32B\n+ DATA_DIR=./datasets/DocQA-RL-1.6K\n"
