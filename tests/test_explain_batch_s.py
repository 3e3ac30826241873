"""Shapes of pastes of several blocks with a person's words around them (corpus class s, 2026-12-05), each on a
short sample in the shape of the real paste its comment names, with the values worked out by hand."""

from __future__ import annotations

from grader.explain import explain
from grader.parsers.common import clean_lines, parse_prompt
from grader.parsers.ibdev2netdev import parse_ibdev2netdev
from tests.conftest import levels, messages

# nccl-tests#27 (corpus s004): a question, then the command and its output quoted in single backticks (a code span
# that opens on one line and closes lines below), under labels ending in ':'
TWO_SUMMARIES = """I tried this but it seems that the two hosts ran separately?

Here's my command:
`mpirun -H 10.0.0.1,10.0.0.2 -np 2 ./all_reduce_perf -b 8 -e 128M -f 2 -g 2`
and part of the output:
`# Out of bounds values : 0 OK
# Avg bus bandwidth    : 3.94145
#
# Out of bounds values : 0 OK
# Avg bus bandwidth    : 3.94156 `

And on one node:
command:
`mpirun -H 10.0.0.1 ./all_reduce_perf -b 8 -e 128M -f 2 -g 2`
result:
`# Out of bounds values : 0 OK
# Avg bus bandwidth    : 3.95192`
"""


def test_a_code_span_around_lines_is_markdown_not_output():
    """A line wrapped in one code span loses both backticks; an odd backtick at either end (a span opened or closed
    there) goes; fences and spans inside a line stay."""
    assert clean_lines("`ip -br addr`\n`# a\n# b `\n```\nuse `--tp 2` here\n``x``") == [
        "ip -br addr", "# a", "# b", "```", "use `--tp 2` here", "``x``"]


def test_two_summaries_under_one_mpirun_of_two_processes_are_two_independent_runs():
    """Two `# Avg bus bandwidth` lines under one `mpirun -np 2`: each process ran alone (a fail, with both figures);
    the one-node run's single average is said as printed, with no 'did not measure'. The question above is a
    caption, not an unknown output."""
    first, second = explain(TWO_SUMMARIES)
    assert first.kind == second.kind == "nccl-tests" and first.command.startswith("mpirun -H 10.0.0.1,10.0.0.2")
    assert levels(first).count("fail") == 1
    assert "2 `# Avg bus bandwidth` summaries, 3.94145, 3.94156 GB/s, from one launch of 2 processes" in messages(first)
    assert "fail" not in levels(second) and "warn" not in levels(second)
    assert "# Avg bus bandwidth 3.95192 GB/s as printed" in messages(second)
    assert "No data row" not in messages(second)


# nccl-tests#294 (corpus s007): rows of 16 one-rank runs interleaved under `mpirun -np 16`
INTERLEAVED = """$ mpirun -np 16 -N 8 -hostfile hostfile ./all_reduce_perf -b 128M -e 2048M -f 2 -g 1
   134217728      33554432     float     sum      -1    631.9  212.41    0.00      0     0.51  263017.30    0.00      0
   536870912     134217728     float     sum      -1   2202.2  243.79    0.00      0     0.31  1747057.96    0.00      0
   268435456      67108864     float     sum      -1   1007.4  266.46    0.00      0     0.31  857621.27    0.00      0
"""


def test_sizes_starting_again_under_one_launch_of_several_processes_fail():
    """The size column falling (536870912 then 268435456) under one launch of 16 processes: independent copies (a
    fail); the same rows with no launch line stay a warning (two runs may have been pasted together)."""
    (s,) = explain(INTERLEAVED)
    assert "the size column starting again, from one launch of 16 processes" in messages(s, "fail")
    (s,) = explain(INTERLEAVED.split("\n", 1)[1], kind="nccl-tests")
    assert "fail" not in levels(s) and "The size column starts again partway" in messages(s, "warn")


def test_a_script_trace_is_a_prompt_and_a_read_only_known_hosts_is_chatter():
    """`+ mpirun ...` (set -x) names the command; ssh's `Failed to add the host to the list of known hosts` (a
    read-only ~/.ssh: it still connects) is no failure of the test (aks-rdma-infiniband#150, corpus s011)."""
    assert parse_prompt("+ mpirun -np 16 ./all_reduce_perf -g 1").command == "mpirun -np 16 ./all_reduce_perf -g 1"
    assert parse_prompt("+ some words") is None and parse_prompt("+-----+") is None
    (s,) = explain("+ mpirun -np 16 /opt/rccl-tests/build/all_reduce_perf -b 512M -e 8G -f 2 -g 1\n"
                   "Failed to add the host to the list of known hosts (/root/.ssh/known_hosts).\n"
                   "# Collective test starting: all_reduce_perf\n"
                   "# nThread 1 nGpus 1 minBytes 536870912 maxBytes 8589934592 step: 2(factor) warmup iters: 5 "
                   "iters: 20 agg iters: 1\n", host="other")
    assert s.kind == "nccl-tests" and s.command.startswith("mpirun -np 16")
    assert set(levels(s)) == {"info"} and "known hosts" not in messages(s)


# cbio/helpdesk#81 (corpus s002): a 2014 driver's table, Disp.A `N/A` and a 4-digit PCI domain
OLD_TABLE = """+------------------------------------------------------+
| NVIDIA-SMI 331.62     Driver Version: 331.62         |
|-------------------------------+----------------------+----------------------+
| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |
| Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |
|===============================+======================+======================|
|   0  GeForce GTX 680     Off  | 0000:03:00.0     N/A |                  N/A |
| 30%   39C  N/A     N/A /  N/A |      9MiB /  4095MiB |     N/A      Default |
+-------------------------------+----------------------+----------------------+
"""


def test_an_old_drivers_table_is_read_and_names_its_gpus():
    (s,) = explain(OLD_TABLE)
    assert s.kind == "nvidia-smi" and s.error is None
    assert "GPU0 (GeForce GTX 680): 9 of 4095 MiB used" in messages(s)


# NVIDIA/nccl-tests#36 (corpus s005): ibdev2netdev -v's port state, then the poster's words
IBDEV_V = """$ sudo ibdev2netdev -v
0002:00:02.0 mlx4_0 (MT4100 - NA)  fw 2.43.7008 port 1 (ACTIVE) ==> ib0 (Down)

on both nodes.

Testing the IB connectivity;
"""


def test_ibdev2netdev_v_says_the_rdma_ports_state_and_leaves_the_words_after_it():
    (m,) = parse_ibdev2netdev(IBDEV_V.splitlines()[1]).mappings
    assert (m.rdma_device, m.port, m.netdev, m.state, m.port_state) == ("mlx4_0", 1, "ib0", "Down", "ACTIVE")
    (s,) = explain(IBDEV_V, host="other")
    assert s.error is None and "mlx4_0 port 1 ACTIVE ==> ib0 Down" in messages(s)
    assert "Not output, so not read: 'Testing the IB connectivity;'" in messages(s)
