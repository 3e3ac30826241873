"""What the interface variables select: NCCL, Gloo, UCX and Open MPI value syntax, as pure functions.

Sources:
- NCCL environment variables, https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html
  (NCCL_SOCKET_IFNAME: comma-separated prefixes, ``^`` excludes, ``=`` exact names;
  NCCL_IB_HCA: ``dev[:port]`` entries, same ``^``/``=`` prefixes; NCCL_IB_GID_INDEX: an integer).
- Gloo/PyTorch: GLOO_SOCKET_IFNAME and TP_SOCKET_IFNAME name interfaces, comma-separated
  (https://pytorch.org/docs/stable/distributed.html, "Common environment variables").
- UCX_NET_DEVICES: ``all`` or comma-separated devices, ``<rdma dev>:<port>`` or netdev names
  (https://openucx.readthedocs.io/en/master/faq.html).
- OMPI_MCA_btl_tcp_if_include: comma-separated interface names or CIDR subnets (Open MPI FAQ, tcp BTL).
"""

from __future__ import annotations

import ipaddress


def _items(value: str) -> list[str]:
    return [v.strip() for v in value.split(",") if v.strip()]


def socket_ifnames(value: str, interfaces: list[str]) -> list[str]:
    """Which of ``interfaces`` NCCL_SOCKET_IFNAME-style ``value`` selects (prefix match, ``^`` excludes, ``=`` exact)."""
    v = value.strip()
    exclude = v.startswith("^")
    v = v.lstrip("^")
    exact = v.startswith("=")
    pats = _items(v.lstrip("="))
    hit = (lambda i: i in pats) if exact else (lambda i: any(i.startswith(p) for p in pats))
    return [i for i in interfaces if hit(i) != exclude]


def plain_ifnames(value: str, interfaces: list[str]) -> list[str]:
    """Which of ``interfaces`` a comma-separated exact list (GLOO_SOCKET_IFNAME, TP_SOCKET_IFNAME) names."""
    return [i for i in _items(value) if i in interfaces]


def ib_hca_names(value: str) -> tuple[bool, bool, list[str]]:
    """NCCL_IB_HCA ``value`` read: (excludes, exact, the device names of its ``dev[:port]`` entries)."""
    v = value.strip()
    exclude = v.startswith("^")
    v = v.lstrip("^")
    exact = v.startswith("=")
    return exclude, exact, [e.split(":")[0] for e in _items(v.lstrip("="))]


def ib_hcas(value: str, devices: list[str]) -> list[str]:
    """Which RDMA ``devices`` NCCL_IB_HCA ``value`` selects (``dev[:port]`` entries, prefix match unless ``=``, ``^`` excludes)."""
    exclude, exact, names = ib_hca_names(value)
    hit = (lambda d: d in names) if exact else (lambda d: any(d.startswith(n) for n in names))
    return [d for d in devices if hit(d) != exclude]


def ucx_devices(value: str, interfaces: list[str], rdma_to_netdev: dict[str, str]) -> list[str]:
    """The netdevs UCX_NET_DEVICES names (``all`` = every interface; ``rocep1s0f1:1`` maps to its netdev)."""
    if value.strip() == "all":
        return list(interfaces)
    out = []
    for item in _items(value):
        name = item.split(":")[0]
        netdev = rdma_to_netdev.get(name, name)
        if netdev in interfaces:
            out.append(netdev)
    return out


def ompi_includes(value: str, interfaces: dict[str, list[str]]) -> list[str]:
    """The netdevs OMPI_MCA_btl_tcp_if_include selects: names, or CIDR subnets matched against ``{netdev: [ipv4]}``."""
    out = []
    for item in _items(value):
        if "/" in item:
            try:
                net = ipaddress.ip_network(item, strict=False)
            except ValueError:
                continue
            out += [i for i, addrs in interfaces.items() if any(ipaddress.ip_address(a) in net for a in addrs)]
        elif item in interfaces:
            out.append(item)
    return out
