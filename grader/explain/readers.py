"""The parsers the lesson modules read outputs with, and the judges they give what was read to, each imported at its
first call.

Every kind of output must be registered before a paste is split (detection tries them all), but a paste holds one
or a few kinds: importing all the parser modules and judges (dozens) up front costs ``clusterlab explain`` a third
of its start (their code compiled, their few hundred patterns compiled). Each function here has the
name and signature of the one it stands for and imports that one's module when first called, so a lesson module
imports its readers from here, names each kind's judge with :func:`judge`, and registers its kinds without loading
them. No logic lives here.
"""

from __future__ import annotations

import importlib
from typing import Any, Callable


def _at_first_call(module: str, name: str) -> Callable[..., Any]:
    """A stand-in for ``grader.<module>.<name>`` that imports that module when first called."""
    def call(*args: Any, **kwargs: Any) -> Any:
        return getattr(importlib.import_module(f"grader.{module}"), name)(*args, **kwargs)

    call.__name__ = call.__qualname__ = name
    call.__doc__ = f"grader.{module}.{name}, imported at its first call."
    return call


def judge(topic: str, name: str) -> Callable[..., Any]:
    """``grader.judges.<topic>.<name>`` (a kind's judge, a cross check, a reading a judge defines), imported at its
    first call."""
    return _at_first_call(f"judges.{topic}", name)


# --------------------------------------------------------------------------- the parsers, by module
parse_collect_env = _at_first_call("parsers.collect_env", "parse_collect_env")
parse_df = _at_first_call("parsers.df", "parse_df")
parse_dmesg_links = _at_first_call("parsers.dmesg_link", "parse_dmesg_links")
parse_docker_ps = _at_first_call("parsers.docker_ps", "parse_docker_ps")
parse_docker_run = _at_first_call("parsers.docker_run", "parse_docker_run")
parse_ethtool = _at_first_call("parsers.ethtool", "parse_ethtool")
parse_module_info = _at_first_call("parsers.ethtool", "parse_module_info")
parse_ethtool_stats = _at_first_call("parsers.ethtool_stats", "parse_ethtool_stats")
parse_free = _at_first_call("parsers.free", "parse_free")
parse_ib_counters = _at_first_call("parsers.ib_counters", "parse_ib_counters")
parse_ib_sysfs = _at_first_call("parsers.ib_sysfs", "parse_ib_sysfs")
parse_ibdev2netdev = _at_first_call("parsers.ibdev2netdev", "parse_ibdev2netdev")
parse_ibstat = _at_first_call("parsers.ibstat", "parse_ibstat")
parse_ibv_devinfo = _at_first_call("parsers.ibstat", "parse_ibv_devinfo")
parse_ip_addr = _at_first_call("parsers.iproute", "parse_ip_addr")
parse_ip_route_get_all = _at_first_call("parsers.iproute", "parse_ip_route_get_all")
parse_kubectl_pods = _at_first_call("parsers.kubectl", "parse_kubectl_pods")
parse_llama_bench = _at_first_call("parsers.llama_bench", "parse_llama_bench")
parse_llama_log = _at_first_call("parsers.llama_log", "parse_llama_log")
parse_lsmod = _at_first_call("parsers.lsmod", "parse_lsmod")
parse_lspci_vv = _at_first_call("parsers.lspci", "parse_lspci_vv")
parse_nccl_log = _at_first_call("parsers.nccl_log", "parse_nccl_log")
parse_bench_table = _at_first_call("parsers.nccl_tests", "parse_bench_table")
parse_nccl_tests = _at_first_call("parsers.nccl_tests", "parse_nccl_tests")
parse_nmcli = _at_first_call("parsers.nmcli", "parse_nmcli")
parse_nmcli_show = _at_first_call("parsers.nmcli", "parse_nmcli_show")
parse_nvlink_status = _at_first_call("parsers.nvidia_smi", "parse_nvlink_status")
parse_query_gpu = _at_first_call("parsers.nvidia_smi", "parse_query_gpu")
parse_smi_q = _at_first_call("parsers.nvidia_smi", "parse_smi_q")
parse_smi_table = _at_first_call("parsers.nvidia_smi", "parse_smi_table")
parse_topo_matrix = _at_first_call("parsers.nvidia_smi", "parse_topo_matrix")
parse_topo_p2p = _at_first_call("parsers.nvidia_smi", "parse_topo_p2p")
parse_gpu_list = _at_first_call("parsers.nvidia_smi_query", "parse_gpu_list")
parse_p2p_bandwidth = _at_first_call("parsers.p2p_bandwidth", "parse_p2p_bandwidth")
parse_pcie_sysfs = _at_first_call("parsers.pcie_sysfs", "parse_pcie_sysfs")
parse_perftest = _at_first_call("parsers.perftest", "parse_perftest")
parse_ping = _at_first_call("parsers.ping", "parse_ping")
parse_ray_nodes = _at_first_call("parsers.ray_nodes", "parse_ray_nodes")
parse_ray_start = _at_first_call("parsers.ray_start", "parse_ray_start")
parse_ray_status = _at_first_call("parsers.ray_status", "parse_ray_status")
parse_ibv_devices = _at_first_call("parsers.rdma", "parse_ibv_devices")
parse_rdma_link = _at_first_call("parsers.rdma", "parse_rdma_link")
parse_rig_report = _at_first_call("parsers.rig_report", "parse_rig_report")
parse_sglang_log = _at_first_call("parsers.sglang_log", "parse_sglang_log")
parse_show_gids = _at_first_call("parsers.show_gids", "parse_show_gids")
parse_simple_p2p = _at_first_call("parsers.simple_p2p", "parse_simple_p2p")
parse_device_query = _at_first_call("parsers.device_query", "parse_device_query")
parse_bandwidth_test = _at_first_call("parsers.bandwidth_test", "parse_bandwidth_test")
parse_traceback = _at_first_call("parsers.traceback", "parse_traceback")
is_completion_json = _at_first_call("parsers.vllm_api", "is_completion_json")
is_models_json = _at_first_call("parsers.vllm_api", "is_models_json")
parse_completion = _at_first_call("parsers.vllm_api", "parse_completion")
parse_metrics = _at_first_call("parsers.vllm_api", "parse_metrics")
parse_models = _at_first_call("parsers.vllm_api", "parse_models")
