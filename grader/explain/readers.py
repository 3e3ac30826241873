"""The parsers (and the few facts helpers) the lesson modules read outputs with, each imported at its first call.

Every kind of output must be registered before a paste is split (detection tries them all), but a paste
holds one or a few kinds: importing all ~25 parser modules up front costs ``clusterlab explain`` a third of
its start (their code compiled, their few hundred patterns compiled). Each function here has the name and
signature of the one it stands for and imports that one's module when first called, so a lesson module
imports its readers from here and registers its kinds without loading them. No logic lives here.
"""

from __future__ import annotations

from typing import Any

# --------------------------------------------------------------------------- lesson 1


def parse_ethtool(text: str) -> Any:
    from ..parsers.ethtool import parse_ethtool
    return parse_ethtool(text)


def parse_ibdev2netdev(text: str) -> Any:
    from ..parsers.ibdev2netdev import parse_ibdev2netdev
    return parse_ibdev2netdev(text)


def parse_ip_addr(text: str) -> Any:
    from ..parsers.iproute import parse_ip_addr
    return parse_ip_addr(text)


def parse_ip_route_get_all(text: str) -> Any:
    from ..parsers.iproute import parse_ip_route_get_all
    return parse_ip_route_get_all(text)


def parse_iperf3(text: str) -> Any:
    from ..parsers.iperf3 import parse_iperf3
    return parse_iperf3(text)


def parse_netplan(text: str) -> Any:
    from ..parsers.netplan import parse_netplan
    return parse_netplan(text)


def parse_ping(text: str) -> Any:
    from ..parsers.ping import parse_ping
    return parse_ping(text)


# --------------------------------------------------------------------------- lesson 2a: RoCE

def parse_ib_sysfs(text: str) -> Any:
    from ..parsers.ib_sysfs import parse_ib_sysfs
    return parse_ib_sysfs(text)


def roce_v2_ipv4_gid_index(*args: Any, **kwargs: Any) -> Any:
    from ..parsers.ib_sysfs import roce_v2_ipv4_gid_index
    return roce_v2_ipv4_gid_index(*args, **kwargs)


def parse_ibstat(text: str) -> Any:
    from ..parsers.ibstat import parse_ibstat
    return parse_ibstat(text)


def parse_rdma_link(text: str) -> Any:
    from ..parsers.rdma import parse_rdma_link
    return parse_rdma_link(text)


def parse_show_gids(text: str) -> Any:
    from ..parsers.show_gids import parse_show_gids
    return parse_show_gids(text)


# --------------------------------------------------------------------------- lesson 2a: NCCL

def parse_nccl_log(text: str) -> Any:
    from ..parsers.nccl_log import parse_nccl_log
    return parse_nccl_log(text)


def transport_verdict(*args: Any, **kwargs: Any) -> Any:
    from ..parsers.nccl_log import transport_verdict
    return transport_verdict(*args, **kwargs)


def parse_nccl_tests(text: str) -> Any:
    from ..parsers.nccl_tests import parse_nccl_tests
    return parse_nccl_tests(text)


def parse_bench_table(text: str) -> Any:
    from ..parsers.nccl_tests import parse_bench_table
    return parse_bench_table(text)


def busbw_factor(*args: Any, **kwargs: Any) -> Any:
    from ..parsers.nccl_tests import busbw_factor
    return busbw_factor(*args, **kwargs)


# --------------------------------------------------------------------------- lesson 2b: Ray, vLLM

def parse_ray_status(text: str) -> Any:
    from ..parsers.ray_status import parse_ray_status
    return parse_ray_status(text)


def parse_vllm_log(text: str) -> Any:
    from ..parsers.vllm_log import parse_vllm_log
    return parse_vllm_log(text)


def is_models_json(value: Any) -> bool:
    from ..parsers.vllm_api import is_models_json
    return is_models_json(value)


def parse_models(text: str) -> Any:
    from ..parsers.vllm_api import parse_models
    return parse_models(text)


def parse_metrics(text: str) -> Any:
    from ..parsers.vllm_api import parse_metrics
    return parse_metrics(text)


# --------------------------------------------------------------------------- lesson 3

def parse_lspci_vv(text: str) -> Any:
    from ..parsers.lspci import parse_lspci_vv
    return parse_lspci_vv(text)


def parse_query_gpu(text: str) -> Any:
    from ..parsers.nvidia_smi import parse_query_gpu
    return parse_query_gpu(text)


def parse_smi_q(text: str) -> Any:
    from ..parsers.nvidia_smi import parse_smi_q
    return parse_smi_q(text)


def parse_smi_table(text: str) -> Any:
    from ..parsers.nvidia_smi import parse_smi_table
    return parse_smi_table(text)


def parse_topo_matrix(text: str) -> Any:
    from ..parsers.nvidia_smi import parse_topo_matrix
    return parse_topo_matrix(text)


def parse_topo_p2p(text: str) -> Any:
    from ..parsers.nvidia_smi import parse_topo_p2p
    return parse_topo_p2p(text)
