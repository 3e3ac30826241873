"""Fuzzing every parser family with hypothesis: mutated copies of the real outputs.

Each family starts from real outputs (shared/fixtures/real, tests/fixtures/captured) or, where none
exists, from the samples the parser tests use. Hypothesis draws a seed and a chain of the edits
pastes from the field show (tests/fuzzing.py: cut off at either end, lines dropped, reordered or
duplicated, garbage and random bytes, odd numbers, launcher prefixes, prompts, command lines,
colour codes real and literal, CRLF, wrapped lines, redactions, one huge line, non-ASCII, other tool
versions' spellings). Each mutated text must give
facts or a ParseError, never another exception; where the family has an explain kind, explaining
it as that kind must not hit an internal error either (its summariser runs on the odd facts too).

At least 200 examples per family (CLUSTERLAB_FUZZ_EXAMPLES raises it); derandomised so a run is
repeatable (CLUSTERLAB_FUZZ_RANDOM=1 explores new cases). The whole module runs in well under a
minute.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any, Callable

import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from grader.explain import explain  # noqa: E402
from grader.parsers import (ParseError, parse_ethtool, parse_ibdev2netdev, parse_ip_addr,  # noqa: E402
                            parse_ip_route_get_all, parse_iperf3, parse_netplan, parse_ping)
from grader.parsers.ib_counters import parse_ib_counters  # noqa: E402
from grader.parsers.ib_sysfs import parse_ib_sysfs  # noqa: E402
from grader.parsers.ibstat import parse_ibstat, parse_ibv_devinfo  # noqa: E402
from grader.parsers.lspci import parse_lspci_vv, parse_pci_paths  # noqa: E402
from grader.parsers.nccl_log import parse_nccl_log, transport_verdict  # noqa: E402
from grader.parsers.nccl_tests import parse_bench_table, parse_nccl_tests  # noqa: E402
from grader.parsers.dmesg_link import parse_dmesg_links  # noqa: E402
from grader.parsers.free import parse_free  # noqa: E402
from grader.parsers.kubectl import parse_kubectl_pods  # noqa: E402
from grader.parsers.nvidia_smi_query import parse_gpu_list  # noqa: E402
from grader.parsers.rig_report import parse_rig_report  # noqa: E402
from grader.parsers.nvidia_smi import (parse_nvlink_status, parse_query_gpu, parse_smi_q,  # noqa: E402
                                       parse_smi_table, parse_topo_matrix, parse_topo_p2p)
from grader.parsers.perftest import parse_perftest  # noqa: E402
from grader.parsers.rdma import parse_rdma_link  # noqa: E402
from grader.parsers.nmcli import parse_nmcli  # noqa: E402
from tests.conftest import field_entry  # noqa: E402
from grader.parsers.show_gids import parse_show_gids  # noqa: E402
from tests import samples_lesson2 as S  # noqa: E402
from tests import test_explain_hardware as M  # noqa: E402

KUBECTL_PODS = ("NAME                READY   STATUS             RESTARTS      AGE     IP          NODE\n"
                "ray-head-wk5dx      1/1     Running            0             6m23s   10.0.0.5    node-1\n"
                "ray-worker-bp7pn    0/1     Init:0/1           0             6m23s   <none>      node-2\n"
                "vllm-0              0/1     CrashLoopBackOff   5 (40s ago)   10m     10.0.0.7    node-1\n")
from tests.conftest import real_paths  # noqa: E402
from tests.fuzzing import CASES, DrawChooser, mutate_text  # noqa: E402

HERE = Path(__file__).resolve().parent
CAPTURED = HERE / "fixtures" / "captured"
EXAMPLES = max(200, int(os.environ.get("CLUSTERLAB_FUZZ_EXAMPLES", "200")))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, database=None,
                derandomize=not os.environ.get("CLUSTERLAB_FUZZ_RANDOM"),
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much])


def _read(path: Path) -> str:
    return path.read_text(encoding="utf-8", errors="replace")


def _real(*patterns: str) -> list[str]:
    return [_read(p) for pat in patterns for p in real_paths(pat)]


def _captured(*patterns: str) -> list[str]:
    return [_read(p) for pat in patterns for p in sorted(CAPTURED.glob(pat))]


def _section(text: str, start: str, end: str | None = None) -> str:
    a = text.find(start)
    if a < 0:
        return text
    b = text.find(end, a) if end else -1
    return text[a:b] if b >= 0 else text[a:]


def _sysfs_seed() -> str:
    with tempfile.TemporaryDirectory() as tmp:
        return S.ib_sysfs_probe_output(Path(tmp))


SYSFS_FILES = ("$ cat /sys/class/infiniband/rocep1s0f1/ports/1/gid_attrs/types/3\nRoCE v2\n"
               "$ cat /sys/class/infiniband/rocep1s0f1/ports/1/gids/3\n0000:0000:0000:0000:0000:ffff:c0a8:640a\n"
               "$ ls /sys/class/infiniband\nroceP2p1s0f0  roceP2p1s0f1  rocep1s0f0  rocep1s0f1\n")


IB_COUNTERS = "".join(f"/sys/class/infiniband/{d}/ports/1/counters/{c}:{n}\n"
                      for d in ("rocep1s0f1", "roceP2p1s0f1")
                      for c, n in (("link_downed", 0), ("link_error_recovery", 0), ("port_rcv_errors", 3),
                                   ("port_xmit_discards", 0), ("symbol_error", 0), ("port_rcv_data", 81234567890)))
IB_COUNTERS_FILE = "$ cat /sys/class/infiniband/rocep1s0f1/ports/1/counters/symbol_error\n0\n"


def _netplan_seeds() -> list[str]:
    from tests.test_parsers_lesson1 import NVIDIA_CURRENT, NVIDIA_LINK_LOCAL
    return [NVIDIA_CURRENT, NVIDIA_LINK_LOCAL]


def _ifconfig_seeds() -> list[str]:
    from tests.test_parsers_lesson1 import IFCONFIG_AWS, IFCONFIG_POD
    return [IFCONFIG_AWS, IFCONFIG_POD]


def _serving_env_seed() -> str:
    return ("=== 2171 ray::RayWorkerWrapper\nNCCL_SOCKET_IFNAME=enp1s0f1np1\nNCCL_IB_HCA=rocep1s0f1,roceP2p1s0f1\n"
            "GLOO_SOCKET_IFNAME=enp1s0f1np1\n=== 2188 unreadable python3\n"
            "=== docker 3f2a vllm_node nvcr.io/nvidia/vllm:26.05-py3\nNCCL_IB_GID_INDEX=3\n")


# (family, parser, explain kind or None, seeds)
FAMILIES: list[tuple[str, Callable[[str], Any], str | None, Callable[[], list[str]]]] = [
    # lesson 1
    ("ip-addr", parse_ip_addr, "ip-addr", lambda: _captured("ip_*addr*.txt", "ip_*link*.txt", "ip_br_*.txt")
     + _real("spark/04_*", "h200x2/ip-j-addr.txt") + [_section(x, "", "rocep") for x in _real("spark/11_*")]
     + _ifconfig_seeds()),
    ("ip-route-get", parse_ip_route_get_all, "ip-route-get", lambda: _captured("ip_*route_get*.txt")),
    ("ibdev2netdev", parse_ibdev2netdev, "ibdev2netdev", lambda: _real("spark/01_*")
     + [_section(x, "rocep") for x in _real("spark/11_*")]),
    ("ethtool", parse_ethtool, "ethtool", lambda: _real("spark/05_*") + _captured("ethtool_*.txt")),
    ("ping", parse_ping, "ping", lambda: _captured("ping_*.txt")),
    ("iperf3", parse_iperf3, "iperf3", lambda: _captured("iperf3_*.txt")),
    ("netplan", parse_netplan, "netplan", _netplan_seeds),
    ("nmcli", parse_nmcli, "nmcli", lambda: [field_entry("xh005").split("[root@node01 vagrant]# nmcli c add")[0],
                                             _section(field_entry("xh011"), "DEVICE", "[core@")]),
    # lesson 3
    ("nvidia-smi-query", parse_query_gpu, "nvidia-smi-query", lambda: _real("h200x2/nvidia-smi-query.txt")
     + _captured("h200x1/nvidia-smi-query*.txt")),
    ("nvidia-smi-topo", parse_topo_matrix, "nvidia-smi-topo", lambda: _real("h200x2/nvidia-smi-topo.txt")
     + _captured("h200x1/nvidia-smi-topo-m.txt")),
    ("nvidia-smi-p2p", parse_topo_p2p, "nvidia-smi-p2p", lambda: _captured("h200x1/nvidia-smi-topo-p2p-r.txt")),
    ("nvidia-smi", parse_smi_table, "nvidia-smi", lambda: _real("h200x2/nvidia-smi.txt")
     + _captured("h200x1/nvidia-smi.txt")),
    ("nvidia-smi-q", parse_smi_q, "nvidia-smi-q", lambda: _captured("h200x1/nvidia-smi-q*.txt")),
    ("nvidia-smi-processes", parse_smi_table, "nvidia-smi", lambda: [M.OLD_PROCESSES, M.GB10_TWO_ENGINES]
     + _captured("gpu-processes/nvidia-smi-processes.txt")),
    ("nvidia-smi-apps", parse_query_gpu, "nvidia-smi-apps", lambda: _captured("gpu-processes/nvidia-smi-compute-apps.txt")),
    ("nvidia-smi-nvlink", parse_nvlink_status, "nvidia-smi-nvlink", lambda: [M.NVLINK_TWO_DOWN]),
    ("nvidia-smi-list", parse_gpu_list, "nvidia-smi-list", lambda: [GPU_LIST]),
    ("rig-report", parse_rig_report, "rig-report", lambda: [RIG_REPORT]),
    ("free", parse_free, "free", lambda: [M.FREE_LOW] + _captured("gpu-processes/free*.txt")),
    ("dmesg-link", parse_dmesg_links, "dmesg-link", lambda: [M.DMESG_ONE_CABLE]),
    ("kubectl-pods", parse_kubectl_pods, "kubectl-pods", lambda: [KUBECTL_PODS]),
    ("lspci", parse_lspci_vv, "lspci", lambda: _captured("h200x1/lspci-vv*.txt", "h200x1/lspci-nn*.txt")
     + [S.LSPCI_CX7]),
    ("pci-paths", parse_pci_paths, None, lambda: _captured("h200x1/sysfs-link.txt")),
    # lesson 2a
    ("rdma-link", parse_rdma_link, "rdma-link", lambda: [S.RDMA_LINK, S.RDMA_LINK_JSON,
                                                         "# simulated by clusterlab sim\n" + S.RDMA_LINK]),
    ("ib-sysfs", parse_ib_sysfs, "ib-sysfs", lambda: [_sysfs_seed(), SYSFS_FILES]),
    ("ib-counters", parse_ib_counters, "ib-counters", lambda: ["$ grep -H . /sys/class/infiniband/*/ports/*/counters/*\n"
                                                      + IB_COUNTERS, IB_COUNTERS_FILE]),
    ("show-gids", parse_show_gids, "show-gids", lambda: [S.SHOW_GIDS]),
    ("ibstat", parse_ibstat, "ibstat", lambda: [S.IBSTAT]),
    ("ibv-devinfo", parse_ibv_devinfo, "ibv-devinfo", lambda: [S.IBV_DEVINFO]),
    ("perftest", parse_perftest, "perftest", lambda: _real("spark/03_*")
     + [_section(x, "# --- ib_write_bw") for x in _real("spark/07_*")] + [S.IB_WRITE_LAT, S.IB_WRITE_BW_SERVER_MB]),
    ("nccl-tests", parse_nccl_tests, "nccl-tests", lambda: [_section(x, "", "# --- ib_write_bw")
                                                            for x in _real("spark/07_*")] + _real("spark/08_*")
     + _captured("nccl_tests_h200x*/*.txt")),
    ("nccl-log", parse_nccl_log, "nccl-log", lambda: _real("spark/12_*", "spark/13_*", "h200x2/nccl-*.txt")
     + _captured("nccl_tests_h200x*/*nccl_debug*.txt", "nccl_tests_h200x2/*socket*.txt")),
    ("collective-bench", parse_bench_table, "collective-bench", lambda: _real("spark/12_*", "h200x2/nccl-*.txt")),
]

# lesson 2b (serving) parsers, where their modules exist
try:
    from grader.parsers.proc_env import parse_serving_env
    FAMILIES.append(("serving-env", parse_serving_env, None, lambda: [_serving_env_seed()]))
except ImportError:  # pragma: no cover
    pass
from grader.parsers.versions import parse_serving_versions  # noqa: E402

VERSIONS_SEED = ("=== /opt/venv/lib/python3.12/site-packages/\nvllm 0.11.0\ntorch 2.8.0+cu128\nray 2.49.1\n"
                 "nccl 2.27.3\n=== /opt/venv/lib/python3.12/site-packages/\npython 3.12.3\n=== 4711 unreadable\n"
                 "=== docker 0a1b2c3d4e5f\npython 3.12.3\nvllm 0.11.0\nnccl 2.27.3\n")
FAMILIES.append(("serving-versions", parse_serving_versions, None, lambda: [VERSIONS_SEED]))
from grader.parsers.launcher import parse_launcher  # noqa: E402

FAMILIES.append(("launcher", parse_launcher, "launcher", lambda: _real("spark/18_*", "spark/17_*")))

from grader.parsers.lsmod import parse_lsmod  # noqa: E402
from tests.test_lsmod import NCCL1737  # noqa: E402
FAMILIES.append(("lsmod", parse_lsmod, "lsmod", lambda: [NCCL1737]))
from grader.parsers.collect_env import parse_collect_env  # noqa: E402
from tests.test_collect_env import VLLM10147, VLLM19123  # noqa: E402
FAMILIES.append(("collect-env", parse_collect_env, "collect-env", lambda: [VLLM19123, VLLM10147]))
from grader.parsers.pcie_sysfs import parse_pcie_sysfs  # noqa: E402
from tests import test_nic_pcie as P  # noqa: E402

FAMILIES.append(("pcie-sysfs", parse_pcie_sysfs, "pcie-sysfs", lambda: [P.NOKYAN_512, P.GX10 + P.VETH]))
try:
    from grader.parsers.ray_status import parse_ray_status
    FAMILIES.append(("ray-status", parse_ray_status, "ray-status",
                     lambda: [_section(x, "===", "# --- torchrun") for x in _real("spark/12_*")]))
except ImportError:  # pragma: no cover
    pass
from grader.parsers.ray_start import parse_ray_start  # noqa: E402
from tests import test_ray_start as RS  # noqa: E402

FAMILIES.append(("ray-start", parse_ray_start, "ray-start", lambda: [RS.HEAD, RS.WORKER_BLOCK, RS.NO_GCS]))
from grader.parsers.rdma import parse_ibv_devices  # noqa: E402
IBV_DEVICES = ("    device                 node GUID\n    ------              ----------------\n"
               "    rocep1s0f0          30c59903001b7c62\n    roceP2p1s0f0        30c59903001b7c66\n")  # a GX10 (q010)
FAMILIES.append(("ibv-devices", parse_ibv_devices, "ibv-devices", lambda: [IBV_DEVICES]))
from grader.parsers.native_backtrace import crash_frame  # noqa: E402
UCX_BACKTRACE = ("[host:12796:1:13303] Caught signal 11 (Segmentation fault: invalid permissions for mapped object)\n"
                 "==== backtrace (tid:  13303) ====\n 0  /usr/lib/libucs-97f10f8d.so.0.0.0(ucs_handle_error+0x294) [0x7fbe]\n"
                 " 5  /usr/lib/libuct-b36f5a30.so.0.0.0(uct_tcp_ep_am_bcopy+0x8a) [0x7fbe]\n")  # sglang#6694's shape
FAMILIES.append(("native-backtrace", crash_frame, None, lambda: [UCX_BACKTRACE]))
from grader.parsers.traceback import parse_traceback  # noqa: E402
from tests import test_traceback as TB  # noqa: E402

FAMILIES.append(("python-traceback", parse_traceback, "python-traceback",
                 lambda: [TB.CHAINED, TB.KV_TOO_SMALL, _section(TB.FREE_THEN_CUT, "Full exception:")]))
from grader.parsers.ray_nodes import parse_ray_nodes  # noqa: E402
from tests import test_ray_nodes as RN  # noqa: E402

FAMILIES.append(("ray-nodes", parse_ray_nodes, "ray-nodes", lambda: [RN.ONE_NODE_CUT, RN.RESTARTED, RN.LIST_CUT]))
from grader.parsers.docker_run import parse_docker_run  # noqa: E402
from tests import test_docker_run as DR  # noqa: E402
from grader.parsers.ethtool_stats import parse_ethtool_stats  # noqa: E402
ETHTOOL_STATS = ("NIC statistics:\n     rx_packets: 1543\n     link_down_events_phy: 3\n     rx_discards_phy: 0\n"
                 "Pause parameters for eth11:\nAutonegotiate:  off\nRX:    on\nTX:    off\n")  # PF_RING#293's shapes
FAMILIES.append(("ethtool-stats", parse_ethtool_stats, "ethtool-stats", lambda: [ETHTOOL_STATS]))
from grader.parsers.results_table import parse_results_table  # noqa: E402

FAMILIES.append(("results-table", parse_results_table, "results-table",
                 lambda: [field_entry("zg005"), field_entry("wk014")]))
from grader.parsers.docker_ps import parse_docker_ps  # noqa: E402
# nvidia-smi -L of four A100s, the first split into MIG instances (influxdata/telegraf#5812, blind batch zf005)
GPU_LIST = ("$ nvidia-smi -L\nGPU 0: NVIDIA A100-SXM4-80GB (UUID: GPU-5135aaaa-7d19-9063-b049-1e69664b0001)\n"
            "  MIG 1g.20gb     Device  0: (UUID: MIG-ce86aaaa-a248-58ce-a9a8-f9adbc220001)\n"
            "  MIG 1g.20gb     Device  1: (UUID: MIG-a458aaaa-9215-5733-a0c1-49286ab30002)\n"
            "GPU 1: NVIDIA A100-SXM4-80GB (UUID: GPU-d859aaaa-0fc3-8595-e355-7c98138f0002)\n")
# club-3090's rig report of two RTX 3090s, one in an x4 slot (noonghunna/club-3090 issue 552, blind batch zg010)
RIG_REPORT = ("# club-3090 rig report\n\nGenerated: 2026-07-04 03:11:25 UTC\n\n## GPU hardware\n\n"
              "- **GPU 0:** NVIDIA GeForce RTX 3090 | 24576 MiB | driver 610.43.02 | VBIOS 94.02.42.00.F1 | "
              "persistence=Enabled\n  - **Power:** limit=250.00 W (default=370.00 W, max=380.00 W) | current_draw=98.95 W "
              "⚠ user-capped below default\n  - **PCIe:** x4 lanes negotiated (GPU max x16, Gen up to 4) | bus "
              "00000000:04:00.0 ⚠ slot is narrower than GPU capability\n- **GPU 1:** NVIDIA GeForce RTX 3090 | 24576 MiB | "
              "driver 610.43.02\n  - **PCIe:** x16 lanes negotiated (GPU max x16, Gen up to 4) | bus 00000000:0a:00.0\n")
DOCKER_PS = ("CONTAINER ID   IMAGE                            COMMAND                CREATED         STATUS             "
             "          PORTS     NAMES\n438a5d21b2b0   serverlessllm/sllm-worker:latest   \"/app/entrypoint.sh …\"   "
             "2 minutes ago   Exited (139) 2 minutes ago             sllm_worker_0\n")  # serverlessllm#242 (l021)
FAMILIES.append(("docker-ps", parse_docker_ps, "docker-ps", lambda: [DOCKER_PS]))
from grader.parsers.df import parse_df  # noqa: E402
from tests.test_explain_s32 import DF_CONTAINER  # noqa: E402  (`df -h` in a container, NVIDIA/nccl#606)
FAMILIES.append(("df", parse_df, "df", lambda: [DF_CONTAINER]))
from grader.parsers.simple_p2p import parse_simple_p2p  # noqa: E402
from tests.test_explain_s32 import SIMPLE_P2P  # noqa: E402  (two RTX 5090s, aikitoria/open-gpu-kernel-modules#11)
FAMILIES.append(("simple-p2p", parse_simple_p2p, "simple-p2p", lambda: [SIMPLE_P2P]))
from grader.parsers.device_query import parse_device_query  # noqa: E402
FAMILIES.append(("device-query", parse_device_query, "device-query",  # two RTX 3090s (thamada/gls, blind batch vk008)
                 lambda: [next((Path(__file__).parent / "fixtures" / "field").glob("*/vk008_*.txt")).read_text()]))
from grader.parsers.bandwidth_test import parse_bandwidth_test  # noqa: E402
FAMILIES.append(("bandwidth-test", parse_bandwidth_test, "bandwidth-test",  # an RTX 6000 Ada (stelline, blind vr005)
                 lambda: [next((Path(__file__).parent / "fixtures" / "field").glob("*/vr005_*.txt")).read_text()]))
from grader.parsers.sglang_log import parse_sglang_log  # noqa: E402
from tests.test_explain_s33 import SGLANG  # noqa: E402  (SGLang on a GB10, pending zm012)
FAMILIES.append(("sglang-log", parse_sglang_log, "sglang-log", lambda: [SGLANG]))
FAMILIES.append(("docker-run", parse_docker_run, "docker-run", lambda: [DR.WORKER.split("\n", 1)[1], DR.PULLED]))
try:
    from grader.parsers.vllm_log import parse_vllm_log
    FAMILIES.append(("vllm-log", parse_vllm_log, "vllm-log", lambda: _real(
        "spark/16_*", "spark/17_*", "vllm-cpu/07_*", "vllm-cpu/14_*", "vllm-cpu/16_*")))
except ImportError:  # pragma: no cover
    pass
LEGACY_BENCH = ("Namespace(backend='vllm', num_prompts=1000, request_rate=200.0, seed=0)\nTotal time: 166.88 s\n"
                "Throughput: 5.99 requests/s\nAverage latency: 67.59 s\nAverage latency per token: 0.21 s\n"
                "Average latency per output token: 1.10 s\n")  # vLLM 0.1-0.2's benchmark_serving.py (vllm#359)
try:
    from grader.parsers.bench_result import parse_any as parse_bench_result
    FAMILIES.append(("bench-result", parse_bench_result, None, lambda: _real("vllm-cpu/10_*") + [LEGACY_BENCH]))
except ImportError:  # pragma: no cover
    pass
try:
    from grader.parsers.vllm_api import parse_metrics
    FAMILIES.append(("vllm-metrics", parse_metrics, "vllm-metrics", lambda: _real("vllm-cpu/09_*")))
except ImportError:  # pragma: no cover
    pass
from grader.parsers.vllm_api import parse_completion  # noqa: E402

COMPLETION_SEED = ('$ curl -s localhost:8000/v1/chat/completions -d \'{"model": "m", "messages": []}\'\n'
                   '{"id":"chatcmpl-1","object":"chat.completion","model":"m","choices":[{"index":0,"message":'
                   '{"role":"assistant","content":"Paris is the capital of France.\\nIt is on the Seine."},'
                   '"finish_reason":"stop"}],"usage":{"prompt_tokens":9,"completion_tokens":14}}\n')
FAMILIES.append(("vllm-completion", parse_completion, "vllm-completion", lambda: [COMPLETION_SEED]))
from grader.parsers.ethtool import parse_module_info  # noqa: E402
from tests.test_explain_unseen import IBSTATUS, MODULE  # noqa: E402

FAMILIES.append(("ethtool-module", parse_module_info, "ethtool-module", lambda: [MODULE]))
FAMILIES.append(("ibstatus", parse_ibstat, "ibstat", lambda: [IBSTATUS]))
from grader.parsers.p2p_bandwidth import parse_p2p_bandwidth  # noqa: E402
from tests.test_explain_unseen import P2P_TEST  # noqa: E402

FAMILIES.append(("p2p-bandwidth", parse_p2p_bandwidth, "p2p-bandwidth", lambda: [P2P_TEST]))
from grader.parsers.llama_bench import parse_llama_bench  # noqa: E402
from tests.test_explain_unseen import LLAMA_BENCH  # noqa: E402

FAMILIES.append(("llama-bench", parse_llama_bench, "llama-bench", lambda: [LLAMA_BENCH]))
from grader.parsers.llama_log import parse_llama_log  # noqa: E402
from tests.test_llama_log import NONE_OFFLOADED, OLLAMA, TWO_3090  # noqa: E402

FAMILIES.append(("llama-log", parse_llama_log, "llama-log", lambda: [TWO_3090, NONE_OFFLOADED, OLLAMA]))


# --------------------------------------------------------------------------- mutations
# (the edits themselves: tests/fuzzing.py, shared with benchmarks/fuzz.py)


@st.composite
def mutated(draw: st.DrawFn, seeds: list[str]) -> str:
    return mutate_text(draw(st.sampled_from(seeds)), DrawChooser(draw))


def _check(name: str, parse: Callable[[str], Any], kind: str | None, text: str) -> None:
    try:
        result = parse(text)
    except ParseError:
        result = None
    except RecursionError:  # pragma: no cover - a parser bug as much as any other
        raise
    if name == "nccl-log" and result is not None:
        transport_verdict(result)
    if kind is not None:
        for s in explain(text, kind=kind):
            err = s.error or ""
            assert not err.startswith("internal error") and "grader bug" not in err, err


@pytest.mark.parametrize("name, parse, kind, seeds", FAMILIES, ids=[f[0] for f in FAMILIES])
def test_fuzz_parser_family(name, parse, kind, seeds):
    texts = [t for t in seeds() if t.strip()]
    if not texts:
        pytest.skip(f"no seed output for {name} (real fixtures not found?)")
    for t in texts:  # the seeds themselves parse
        _check(name, parse, kind, t)

    @FUZZ
    @given(mutated(texts))
    def run(text: str) -> None:
        CASES[f"parser {name}"] += 1
        _check(name, parse, kind, text)

    run()


def test_every_parser_module_is_fuzzed():
    """A parser module added later without a family here fails this test. A module counts as fuzzed when a
    family's parser is defined in it or in a parser module that imports it (a parser split into
    several modules is fuzzed through its entry point)."""
    import ast
    modules = {p.stem for p in (HERE.parent / "grader" / "parsers").glob("*.py")} - {"__init__", "common"}

    def imported(stem: str) -> set[str]:
        tree = ast.parse((HERE.parent / "grader" / "parsers" / f"{stem}.py").read_text())
        out = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                name = (node.module or "").rsplit(".", 1)[-1] if node.level or (node.module or "").startswith(
                    "grader.parsers") else ""
                out |= {name} | {a.name for a in node.names}
        return out & modules

    covered = {getattr(f[1], "__module__", "").rsplit(".", 1)[-1] for f in FAMILIES}
    todo = list(covered)
    while todo:
        for m in imported(todo.pop()) - covered:
            covered.add(m)
            todo.append(m)
    not_fuzzed = modules - covered - {"getent"}  # getent returns None for anything it cannot read
    assert not not_fuzzed, f"parser modules without a fuzz family: {sorted(not_fuzzed)}"


@pytest.mark.parametrize("name, parse, kind, seeds", FAMILIES, ids=[f[0] for f in FAMILIES])
def test_a_number_of_5000_digits_is_read_as_no_number(name, parse, kind, seeds):
    """Found by the fuzzer: a 5,000-digit number where a count stands made int() raise ValueError (Python's
    4,300-digit limit) or json.loads recurse. Every number of each seed replaced in turn: facts or a
    ParseError, never another exception."""
    import re as _re
    texts = [t for t in seeds() if t.strip()][:2]
    if not texts:
        pytest.skip(f"no seed output for {name}")
    for text in texts:
        for m in list(_re.finditer(r"\d+", text))[:40]:
            _check(name, parse, kind, text[:m.start()] + "9" * 5000 + text[m.end():])
