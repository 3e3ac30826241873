"""Session 33 (issue 27): what the pending blind batches (zl, zm) and this session's blind batches found explain
getting wrong; each on a short sample (a real output's shape, its source named), the values worked out by hand."""

from __future__ import annotations

from grader.explain import explain
from tests.conftest import levels, messages
from tests.test_diagnoses import EXAMPLES

# https://github.com/NVIDIA/nccl/issues/529: NCCL 2.5.6 in containers on two hosts, no RDMA device, the tunnel's
# link-local address first; the ranks time out (the paste ends before any communicator is up)
LINK_LOCAL = """NvYt-a:3795:3795 [0] NCCL INFO Bootstrap : Using [0]ip6tnl0:fe80::745d:60ff:fe00:1a2b%ip6tnl0<0> [1]veth0:2001:db8:fc17:3faa:0:4457:d87b:6007<0>
NvYt-a:3795:3795 [0] NCCL INFO NET/Plugin : No plugin found (libnccl-net.so), using internal implementation
NvYt-a:3795:3795 [0] NCCL INFO NET/IB : No device found.
NvYt-a:3795:3795 [0] NCCL INFO NET/Socket : Using [0]ip6tnl0:fe80::745d:60ff:fe00:1a2b%ip6tnl0<0> [1]veth0:2001:db8:fc17:3faa:0:4457:d87b:6007<0>
NCCL version 2.5.6+cuda10.0
"""


def test_a_link_local_first_interface_across_machines_that_never_set_up_is_the_failure():
    [s] = explain(LINK_LOCAL, nodes=2)
    assert "fail" in levels(s) and "ranks on 2 machines never got past" in messages(s, "fail")
    assert "ip6tnl0" in messages(s, "fail")
    # one machine, or a run that came up: the address is only a warning
    [one] = explain(LINK_LOCAL, nodes=1)
    assert "never got past" not in messages(one)
    [up] = explain(LINK_LOCAL + "NvYt-a:3795:3795 [0] NCCL INFO comm 0x1 rank 0 nranks 4 cudaDev 0 busId 8000 - "
                                "Init COMPLETE\n", nodes=2)
    assert "never got past" not in messages(up) and "link-local" in messages(up, "warn")


def test_an_engine_traceback_cut_at_a_known_check_names_what_that_check_is():
    """djangodevreng/dgx-spark-benchmarks (kat-coder): the traceback ends in track_weights_loading's `raise ValueError(`
    and the message is cut: that function raises only for weights the checkpoint lacks."""
    [s] = explain(EXAMPLES["engine-init-failed-traced"])
    said = messages(s, "fail")
    assert "Following weights were not initialized from checkpoint" in said and "vision tower" in said
    other = EXAMPLES["engine-init-failed-traced"].replace("track_weights_loading", "load_weights")
    assert "not initialized" not in messages(explain(other)[0])
