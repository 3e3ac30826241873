"""The parsers the lesson modules read outputs with, and the judges they give what was read to, each imported at its
first call.

Every kind of output must be registered before a paste is split (detection tries them all), but a paste holds one
or a few kinds: importing all the parser modules and judges (dozens) up front costs ``clusterlab explain`` a third
of its start (their code compiled, their few hundred patterns compiled). Each function here has the
name and signature of the one it stands for and imports that one's module when first called, so a lesson module
imports its readers from here, names each kind's judge with :func:`judge`, and registers its kinds without loading
them (:data:`_PARSERS` lists each parser module's, by name). No logic lives here.
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
_PARSERS = {  # grader.parsers.<module>: the functions of it that the lesson modules read outputs with
    "collect_env": ("parse_collect_env",), "df": ("parse_df",), "dmesg_link": ("parse_dmesg_links",),
    "docker_ps": ("parse_docker_ps",), "docker_run": ("parse_docker_run",),
    "ethtool": ("parse_ethtool", "parse_module_info"), "ethtool_stats": ("parse_ethtool_stats",),
    "free": ("parse_free",), "ib_counters": ("parse_ib_counters",), "ib_sysfs": ("parse_ib_sysfs",),
    "ibdev2netdev": ("parse_ibdev2netdev",), "ibstat": ("parse_ibstat", "parse_ibv_devinfo"),
    "iproute": ("parse_ip_addr", "parse_ip_route_get_all"), "kubectl": ("parse_kubectl_pods",),
    "llama_bench": ("parse_llama_bench",), "llama_log": ("parse_llama_log",), "lsmod": ("parse_lsmod",),
    "lspci": ("parse_lspci_vv",), "nccl_log": ("parse_nccl_log",),
    "nccl_tests": ("parse_bench_table", "parse_nccl_tests"), "nmcli": ("parse_nmcli", "parse_nmcli_show"),
    "nvidia_smi": ("parse_nvlink_status", "parse_query_gpu", "parse_smi_q", "parse_smi_table", "parse_topo_matrix", "parse_topo_p2p"),
    "nvidia_smi_query": ("parse_gpu_list",), "p2p_bandwidth": ("parse_p2p_bandwidth",),
    "pcie_sysfs": ("parse_pcie_sysfs",), "perftest": ("parse_perftest",), "ping": ("parse_ping",),
    "ray_nodes": ("parse_ray_nodes",), "ray_start": ("parse_ray_start",), "ray_status": ("parse_ray_status",),
    "rdma": ("parse_ibv_devices", "parse_rdma_link"), "rig_report": ("parse_rig_report",),
    "sglang_log": ("parse_sglang_log",), "show_gids": ("parse_show_gids",), "simple_p2p": ("parse_simple_p2p",),
    "device_query": ("parse_device_query",), "bandwidth_test": ("parse_bandwidth_test",),
    "traceback": ("parse_traceback",),
    "vllm_api": ("is_completion_json", "is_models_json", "parse_completion", "parse_metrics", "parse_models"),
}
for _module, _names in _PARSERS.items():
    globals().update({_name: _at_first_call(f"parsers.{_module}", _name) for _name in _names})
