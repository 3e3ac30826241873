"""The one definition of "this output was filtered" (grader.parsers.common.commands.filters_output), which the link,
port and RDMA-device judges ask before they call something missing (session 41: three judges had three tests, a `|`
anywhere in two of them and a list of five programs in the third)."""

import pytest

from grader.explain import explain
from grader.parsers.common.commands import filters_output


@pytest.mark.parametrize("command, filtered", [
    ("ip addr | grep inet", True),
    ("ibv_devices | head -5", True),
    ("ip -br a |& grep en", True),          # stderr too
    ("ip a | /usr/bin/head", True),        # a path to the program
    ("ip a| cut -d: -f2", True),           # cut drops fields, jq, uniq: any program not known to keep lines
    ("rdma link | sort | uniq", True),     # sort keeps every line, uniq does not
    ("sudo ibv_devinfo | sudo grep state", True),
    ("ip addr | tee ip.txt", False),       # tee, cat, less keep every line
    ("ip a | cat", False),
    ("ip addr || true", False),            # an or, not a pipe
    ('grep "mlx5|rocep" dmesg.txt', False),  # a pipe inside quotes is the pattern's
    ("ibv_devices", False),
    (None, False),
    ("", False),
])
def test_filters_output(command, filtered):
    assert filters_output(command) is filtered


_SYSFS = """$ ls /sys/class/infiniband/
mlx5_0  mlx5_1  mlx5_2
"""


@pytest.mark.parametrize("pipe, said", [(" | tee devices.txt", True), (" | grep mlx5_0", False)])
def test_devices_not_opened_reads_through_tee_not_through_grep(pipe, said):
    """Three RDMA devices in sysfs, one listed by ibv_devices: through `tee` that is every device it could open (the
    other two are said); through `grep mlx5_0` the list was filtered (nothing said of the others)."""
    text = _SYSFS + f"""$ ibv_devices{pipe}
    device                 node GUID
    ------              ----------------
    mlx5_0              0c42a10300a1b2c3
"""
    words = " ".join(f.message for s in explain(text, host="other", nodes=1) for f in s.findings)
    assert ("libibverbs cannot open mlx5_1, mlx5_2" in words) is said, words
