"""Session 37, helper h1 (issue 27): the blind batch wb's Ray head whose GCS cannot reach its Redis and vLLM's Gloo
failure wrapped by its poster; each on the real output (read from the pending corpus by path) and a neighbour it
must stay quiet on."""

from __future__ import annotations

from pathlib import Path

from grader.explain import explain
from tests.conftest import levels, messages

PENDING = Path(__file__).parent / "fixtures" / "field" / "pending"


def _paste(prefix: str) -> str:
    [path] = PENDING.glob(prefix + "_*.txt")
    return path.read_text()


def test_a_head_whose_gcs_cannot_reach_its_redis_fails_and_names_the_address():
    """https://github.com/ray-project/ray/pull/33842: RAY_REDIS_ADDRESS=localhost:1234 ray start --head, nothing
    there: `CRITICAL ... Failed to start GCS` and the GCS's `Could not establish connection to Redis`."""
    [s] = explain(_paste("wb003"), kind="ray-start", host="other", nodes=1)
    said = messages(s).lower()
    assert "fail" in levels(s)
    assert "failed to start gcs" in said and "redis" in said and "localhost:1234" in said
    assert "could not connect to the redis" in messages(s, "fail").lower()
    assert "nothing wrong" not in said and "no `ray runtime started.` line" not in said


def test_a_head_that_started_says_nothing_of_a_gcs_failure():
    """Ray's own `ray start --head` output (docs.ray.io, Starting Ray on the command line): it started."""
    text = ("Local node IP: 192.168.1.10\n--------------------\nRay runtime started.\n--------------------\n"
            "Next steps\n  To add another node to this Ray cluster, run\n    ray start --address='192.168.1.10:6379'\n")
    [s] = explain(text, kind="ray-start", host="other", nodes=2)
    assert "fail" not in levels(s) and "GCS server did not start" not in messages(s) and "Redis" not in messages(s)


WRAPPED_GLOO = _paste("wb022")


def test_gloo_refused_at_the_loopback_over_a_wrapped_line_names_the_loopback_and_the_refusal():
    """https://github.com/aws-samples/aws-do-eks/pull/50: the poster wrapped `remote=[127.0.0.1]:14215` onto the
    line under `Gloo connectFullMesh failed ... Connection refused,`; the two lines are one message."""
    [s] = explain(WRAPPED_GLOO, kind="vllm-log", host="other", nodes=2)
    said = messages(s, "fail")
    assert "127.0.0.1, a loopback address (connection refused)" in said and "GLOO_SOCKET_IFNAME" in said


def test_gloo_failing_without_a_remote_says_no_loopback():
    """The same failure, its remote elsewhere (a routable peer): no loopback, no refusal invented."""
    text = ("[rank8] Gloo connectFullMesh failed ... timed out connecting: SO_ERROR: No route to host,\n"
            "        remote=[10.0.0.2]:14215\nRuntimeError: Gloo connectFullMesh failed ...\nEngineCore failed to start.\n")
    [s] = explain(text, kind="vllm-log", host="other", nodes=2)
    said = messages(s)
    assert "fail" in levels(s) and "loopback" not in said and "refused" not in said


def test_a_one_node_cpu_cluster_with_nothing_pending_says_no_failures_but_not_healthy():
    """https://github.com/ray-project/ray/pull/39638 (its example `ray status`): one active node, no failures, no
    demands, 1 of 36 CPUs busy, no GPU resource."""
    [s] = explain(_paste("wb007"), kind="ray-status", host="other", nodes=1)
    assert "warn" not in levels(s) and "fail" not in levels(s)
    said = messages(s, "ok")
    assert "No failures (of a cluster of CPUs only): all 1 node(s) up" in said and "Healthy" not in said
    assert "cannot place a model" in messages(s, "info")


def test_a_status_with_a_recent_failure_is_not_called_healthy():
    """The same status with a node in `Recent failures` (Ray's autoscaler status format)."""
    text = _paste("wb007").replace(" (no failures)", " node_4c1e (192.168.1.5): NodeTerminated")
    [s] = explain(text, kind="ray-status", host="other", nodes=1)
    assert "Healthy" not in messages(s) and "No failures" not in messages(s) and "warn" in levels(s)


def test_a_gpu_plugin_that_stops_on_nvmls_memory_not_supported_fails_and_says_unified_memory():
    """https://github.com/kubernetes-sigs/dra-driver-nvidia-gpu/issues/1073: the DRA driver's kubelet plugin on a
    GB10 exits on `error getting memory info for device 0: Not Supported`."""
    sections = explain(_paste("wb008"), host="spark", nodes=1)
    said = "\n".join(messages(s, "fail") for s in sections)
    assert "Not Supported" in said and "unified memory" in said and "non-fatal" in said


def test_a_device_plugin_that_ignores_it_is_no_fault():
    """https://github.com/NVIDIA/gpu-operator/issues/1794: v0.17.4 warns `Ignoring error getting device memory: Not
    Supported`, then registers nvidia.com/gpu."""
    sections = explain(_paste("wb009"), host="spark", nodes=1)
    assert not any(lv in ("warn", "fail") for s in sections for lv in levels(s))
    said = "\n".join(messages(s) for s in sections)
    assert "harmless" in said and "GB10" in said and "stops on" not in said


def test_an_rpc_server_of_the_one_backend_form_on_four_gpus_warns_that_it_serves_one():
    """https://github.com/ggml-org/llama.cpp/issues/11859: rpc-server on 4x A800 finds 4 CUDA devices but starts with
    one backend (`backend memory: 80614 MB`, device 0); the maintainer: one rpc-server per GPU."""
    sections = [s for s in explain(_paste("wb002"), host="other", nodes=1) if s.kind == "llama-log"]
    said = "\n".join(messages(s, "warn") for s in sections)
    assert "serves one device" in said and "of the 4 GPUs" in said and "CUDA_VISIBLE_DEVICES" in said


def test_an_rpc_server_on_its_one_gpu_does_not_warn():
    """The same console on a machine of one GPU (llama.cpp#15463's L2 node, the start line as rpc-server prints it)."""
    text = ("create_backend: using CUDA backend\nggml_cuda_init: GGML_CUDA_FORCE_MMQ:    no\n"
            "ggml_cuda_init: found 1 CUDA devices:\n  Device 0: NVIDIA L2, compute capability 8.9, VMM: yes\n"
            "Starting RPC server on 0.0.0.0:50052, backend memory: 22563 MB\n")
    [s] = explain(text, host="other", nodes=2)
    assert s.kind == "llama-log" and "warn" not in levels(s) and "layers in turn" in messages(s)
