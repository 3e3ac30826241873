"""Shapes of pastes of several blocks with a person's words around them (corpus classes s, t and u, 2026-12-05), each on
a short sample in the shape of the real paste its comment names, with the values worked out by hand."""

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
    # not the script's own steps (`+ sleep 60` after a backgrounded `+ vllm serve ... &`): the log goes on under them
    assert parse_prompt("+ sleep 10") is None
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


# GB10 owner's notebook (corpus u020): one `ibv_devinfo` listing a Spark's four devices, all active
def _hca(name: str, guid: str) -> str:
    return (f"hca_id:\t{name}\n\ttransport:\t\t\tInfiniBand (0)\n\tfw_ver:\t\t\t\t28.45.4028\n"
            f"\tnode_guid:\t\t\t{guid}\n\tvendor_id:\t\t\t0x02c9\n\tvendor_part_id:\t\t\t4129\n"
            "\tphys_port_cnt:\t\t\t1\n\t\tport:\t1\n\t\t\tstate:\t\t\tPORT_ACTIVE (4)\n"
            "\t\t\tmax_mtu:\t\t4096 (5)\n\t\t\tactive_mtu:\t\t1024 (3)\n\t\t\tlink_layer:\t\tEthernet\n")


FOUR = "\n".join(_hca(n, f"30c5:9903:00a1:b21{i}") for i, n in
                 enumerate(("rocep1s0f0", "rocep1s0f1", "roceP2p1s0f0", "roceP2p1s0f1")))


def test_one_ibv_devinfo_of_four_devices_is_one_output_and_the_same_device_again_is_another():
    """Each `hca_id:` opens a device of the same output: four devices, both ports' twins active, no 'twin not
    listed'; the same four again (another host's, pasted below with no prompt) is a second output."""
    (s,) = explain("=== RDMA Devices ===\n" + FOUR, host="spark")
    assert s.kind == "ibv-devinfo" and "4 devices (rocep1s0f0, rocep1s0f1, roceP2p1s0f0, roceP2p1s0f1)" in messages(s)
    assert "warn" not in levels(s) and "fail" not in levels(s) and "not listed" not in messages(s)
    two = explain(FOUR + "\n" + FOUR.replace("28.45.4028", "28.45.1200"), host="spark")
    assert [x.kind for x in two] == ["ibv-devinfo", "ibv-devinfo"] and "28.45.1200" in messages(two[1])


# NVIDIA/nccl#1608 (corpus t003): an H100 NVL pair's `nvidia-smi nvlink -s`, 12 of 18 links wired by its bridges
NVL = "GPU 0: NVIDIA H100 NVL (UUID: GPU-0)\n" + "".join(
    f"\t Link {i}: {'<inactive>' if i in (4, 5, 10, 11, 16, 17) else '26.562 GB/s'}\n" for i in range(18))


def test_a_pcie_cards_unwired_nvlinks_are_no_fault_but_a_baseboards_are():
    (s,) = explain("$ nvidia-smi nvlink -s\n" + NVL)
    assert levels(s) == ["info"] and "12 of 18 NVLink links active at 26.562 GB/s each" in messages(s)
    assert "NV12 to its partner" in messages(s)
    (s,) = explain("$ nvidia-smi nvlink -s\n" + NVL.replace("H100 NVL", "H100 80GB HBM3"))
    assert "12 of 18 active" in messages(s, "fail")


# NVIDIA/nccl#1817 (corpus k019): an 8-GPU `topo -m` behind a `ᐅ` prompt, cut inside GPU4's row
TOPO8 = """\u1405 nvidia-smi topo -m
        GPU0    GPU1    GPU2    GPU3    GPU4    GPU5    GPU6    GPU7    CPU Affinity    NUMA Affinity   GPU NUMA ID
GPU0     X      PIX     NODE    NODE    SYS     SYS     SYS     SYS     0-47,96-143     0               N/A
GPU1    PIX      X      NODE    NODE    SYS     SYS     SYS     SYS     0-47,96-143     0               N/A
GPU2    NODE    NODE     X      PIX     SYS     SYS     SYS     SYS     0-47,96-143     0               N/A
GPU3    NODE    NODE    PIX      X      SYS     SYS     SYS     SYS     0-47,96-143     0               N/A
GPU4    SYS     SYS     SYS     SYS      X      PI
"""


def test_a_topology_of_many_gpus_says_each_path_once_and_a_cut_cell_ends_the_paste():
    """Pairs of one path are said in one finding (2 PIX, 4 NODE, 16 SYS pairs among the rows shown: GPU4's row is
    cut inside its GPU5 cell, whose partial 'PI' is not read); no 'all cards on NUMA node 0' with rows missing."""
    (s,) = explain(TOPO8)
    assert s.command == "nvidia-smi topo -m" and s.error is None
    said = messages(s)
    assert "GPU0-GPU1, GPU2-GPU3 (2 pairs): PIX" in said
    assert "GPU0-GPU2, GPU0-GPU3, GPU1-GPU2, GPU1-GPU3 (4 pairs): path NODE" in said
    # GPU4-7's rows are cut, so only NUMA node 0 is shown; but GPU0-3 reach each other without SYS and every path
    # to GPU4-7 is SYS: those sit on the other socket, the server's layout (the corpus's k019 reading: info)
    assert "(16 pairs): path SYS" in messages(s, "info") and levels(s).count("warn") == 0
    assert "NUMA node 0: no CPU-to-CPU hop" not in said and "rows GPU5, GPU6, GPU7 are missing" in said


def test_a_table_whose_header_a_person_cut_to_four_columns_is_read():
    """A Spark owner's all_gather table cut to `size time algbw busbw` (corpus u018): its row is read against the
    Spark pair's figure (22.16 GB/s at 16 GiB)."""
    (s,) = explain("$ mpirun -np 2 -H 192.168.200.12:1,192.168.200.13:1 ./all_gather_perf -b 16G -e 16G\n"
                   "#       size      time   algbw   busbw\n#        (B)      (us)  (GB/s)  (GB/s)\n"
                   " 17179869184   387603   44.32   22.16\n# Avg bus bandwidth    : 21.9736\n", host="spark")
    assert "busbw 22.16 GB/s" in messages(s, "ok") and "recomputed from the rows" in messages(s)


def test_more_prompt_forms():
    """`~$`, `~ #`, `root# ` (a known program only), a name and `$ ` before a known program, `ᐅ`/`❯`, a conda env
    before cmd.exe's prompt, and `host:/path:~$` with nothing typed."""
    cases = {"~$ show_gids": "show_gids", "~ # ip addr show": "ip addr show", "root# nvidia-smi": "nvidia-smi",
             "spark$ ibdev2netdev": "ibdev2netdev", "\u276f ray status": "ray status",
             "(base) C:\\Users\\j\\Desktop>ray start --head": "ray start --head", "ubuntu:/home/ubuntu:~$": ""}
    for line, command in cases.items():
        assert parse_prompt(line).command == command, line
    for line in ("root# something else", "costs $ 5", "total # 3", "foo$ bar", "(EngineCore pid=1) INFO x"):
        assert parse_prompt(line) is None, line


def test_commands_quoted_in_sentences_have_no_output_to_read():
    """`ray start` quoted inline above a person's next words (verl#2950-like, corpus t012): its output is not in the
    paste, said as such, not as an output that could not be read."""
    sections = explain("in head node:\n`ray start --head --port=6379`\nswitch to second node:\n"
                       "`ray start --address=\"10.0.0.1:6379\"`\nin both node:\n")
    assert [x.command for x in sections] == ["ray start --head --port=6379", 'ray start --address="10.0.0.1:6379"']
    assert all(x.error is None and "Its output is not in the paste" in messages(x) for x in sections)


def test_sglangs_offered_rate_is_read():
    """SGLang's `Traffic request rate: 32.0` against 8.98 req/s served over 1,920 requests (corpus u011)."""
    (s,) = explain("============ Serving Benchmark Result ============\nBackend:                                 "
                   "sglang-oai\nTraffic request rate:                    32.0\nMax request concurrency:                "
                   "not set\nSuccessful requests:                     1920\nBenchmark duration (s):                  "
                   "213.71\nRequest throughput (req/s):              8.98\n")
    assert "offered at 32/s and completed at 8.98/s" in messages(s)


def test_a_card_seen_on_the_bus_but_never_enabled_warns():
    """Control `Mem-` with its regions `[disabled]` (an RTX 4090 on a Raspberry Pi, corpus u012): no driver enabled it."""
    (s,) = explain("$ sudo lspci -vvvv\n01:00.0 VGA compatible controller: NVIDIA Corporation Device 2684 (rev a1)\n"
                   "\tControl: I/O- Mem- BusMaster- SpecCycle- MemWINV- VGASnoop- ParErr- Stepping- SERR- FastB2B-\n"
                   "\tRegion 0: Memory at 618000000 (32-bit, non-prefetchable) [disabled] [size=16M]\n")
    assert "memory decoding is off" in messages(s, "warn")
    (s,) = explain("$ sudo lspci -vvvv\n01:00.0 VGA compatible controller: NVIDIA Corporation Device 2684 (rev a1)\n"
                   "\tControl: I/O+ Mem+ BusMaster+ SpecCycle- MemWINV- VGASnoop- ParErr- Stepping- SERR- FastB2B-\n"
                   "\tRegion 0: Memory at 618000000 (32-bit, non-prefetchable) [size=16M]\n")
    assert "memory decoding" not in messages(s)


ETHTOOL_10M = """$ sudo ethtool enp6s0
Settings for enp6s0:
	Supported link modes:   10baseT/Half 10baseT/Full
	                        1000baseT/Full
	                        2500baseT/Full
	Advertised link modes:  10baseT/Half 10baseT/Full
	                        1000baseT/Full
	                        2500baseT/Full
	Speed: 10Mb/s
	Duplex: Full
	Auto-negotiation: on
	Link detected: yes
"""


def test_a_port_up_at_a_tenth_of_what_it_advertises_warns_off_a_spark():
    """10 Mb/s with auto-negotiation on, advertising up to 2500baseT/Full and no partner modes shown (Bazzite#3973,
    corpus t008); 1000 Mb/s of the same port is no tenth, and is only said."""
    (s,) = explain(ETHTOOL_10M, host="other")
    assert "10Mb/s with auto-negotiation on, though it advertises up to 2500baseT/Full" in messages(s, "warn")
    assert "no link" not in messages(s).lower()
    (s,) = explain(ETHTOOL_10M.replace("Speed: 10Mb/s", "Speed: 1000Mb/s"), host="other")
    assert "warn" not in levels(s)


def test_show_gids_with_only_its_header_and_a_cut_count_has_no_gid():
    """A pod's show_gids: header, rule, `n_gids_foun` (cut): no GID at all, a fail (k8s-rdma-sriov#33, corpus t007)."""
    (s,) = explain("$ show_gids\nDEV     PORT    INDEX   GID                                     IPv4            VER"
                   "     DEV\n---     ----    -----   ---                                     ------------    ---     "
                   "---\nn_gids_foun\n")
    assert s.error is None and "no row under its header; the count line is cut" in messages(s, "fail")


def test_nccls_own_words_quoted_bare_and_its_version_line():
    """`Call to ibv_reg_mr_iova2 failed with error Cannot allocate memory` without NCCL's WARN prefix (three GB10s on
    kernel 7.0, corpus u003) is the memory-registration fault; an nccl-tests header's NCCL_DEBUG lines give the NCCL
    version (corpus t010)."""
    (s,) = explain("startup fails with kernel 7.0.0-1019-nvidia:\n\n```\nCall to ibv_reg_mr_iova2 failed with error "
                   "Cannot allocate memory\n```\n")
    assert "Registering memory with the RDMA NIC failed" in messages(s, "fail")
    (s,) = explain("$ mpirun -np 2 -H a:1,b:1 ./all_reduce_perf -b 8 -e 1G -f 2 -g 1\n# Using devices\n"
                   "#  Rank  0 Group  0 Pid   3521 on      test1 device  0 [0x81] NVIDIA A100-PCIE-40GB\n"
                   "#  Rank  1 Group  0 Pid   3985 on      test2 device  0 [0x81] NVIDIA A100-PCIE-40GB\n"
                   "test1:3521:3521 [0] NCCL INFO Bootstrap : Using eno1:192.168.160.111<0>\n"
                   "NCCL version 2.21.5+cuda12.4\n")
    assert "2 ranks on test1, test2 (NVIDIA A100-PCIE-40GB), NCCL 2.21.5." in messages(s)


def test_a_p2p_copy_rate_is_placed_on_a_link_and_gpu_util_is_said():
    """26.28 GB/s one way fits a Gen4 x16 (23.6-27.1 GB/s practical) or Gen5 x8 link (corpus u008); the old table's
    GPU-Util is said beside each card's memory (corpus t019)."""
    from grader.calc.pcie import practical_bandwidth
    low, high = practical_bandwidth(4, 16)
    assert low <= 26.28 <= high
    text = ("Unidirectional P2P=Enabled Bandwidth (P2P Writes) Matrix (GB/s)\n   D\\D     0      1\n"
            "     0 800.00  26.28\n     1  25.83 800.00\n")
    (s,) = explain("$ ./p2pBandwidthLatencyTest\n" + text)
    assert "Copies 25.83-26.28 GB/s one way with P2P: what a Gen4 x16 or Gen5 x8 link carries." in messages(s)
    (s,) = explain(OLD_TABLE.replace("|     N/A      Default |", "|     78%      Default |"))
    assert "GPU0 (GeForce GTX 680): 9 of 4095 MiB used (4.0 GiB on the card), 78% GPU-Util." in messages(s)


def test_a_persons_story_above_the_first_output_is_left_out_but_not_a_fault_in_it():
    """Sentences without their full stop (nccl-tests#9, corpus t009) above an output are words, not an output to
    name; a line checks/diagnoses.toml knows among them is still said."""
    story = ("When I use ib_write_bw without the -R option everything looks fine to me\n"
             "However with -R the CPU usage on the server side is very high\n\n")
    sections = explain(story + "$ ibdev2netdev\nmlx5_0 port 1 ==> ib0 (Up)\n", host="other")
    assert [x.kind for x in sections] == ["ibdev2netdev"]
    sections = explain(story + "Call to ibv_reg_mr_iova2 failed with error Cannot allocate memory\n\n"
                       "$ ibdev2netdev\nmlx5_0 port 1 ==> ib0 (Up)\n", host="other")
    assert "Registering memory with the RDMA NIC failed" in messages(sections[0], "fail")


def test_a_block_of_setting_commands_is_read_one_command_at_a_time():
    """Commands that print nothing when they succeed, one under another with no prompt (a tuning recipe, corpus
    u010), are each a command, their program given with its path or not; `ethtool -C` sets too."""
    sections = explain("```\n/sbin/ethtool -G enp4s0np0 tx 8192 rx 8192\n/sbin/ethtool -C enp4s0np0 adaptive-rx off\n"
                       "sudo ip link set dev enp4s0np0 mtu 9000\n```\n")
    assert [x.command for x in sections] == ["/sbin/ethtool -G enp4s0np0 tx 8192 rx 8192",
                                             "/sbin/ethtool -C enp4s0np0 adaptive-rx off",
                                             "sudo ip link set dev enp4s0np0 mtu 9000"]
    assert all(x.error is None and "prints nothing when it succeeds" in messages(x) for x in sections)


# What the review of this session's change (helper-36) found, each kept mended.
ROW = "  {size}  {count}  {dtype}  sum  -1  5900.1  11.37  11.37  0  5890.2  11.39  11.39  0\n"
HEAD13 = ("#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw"
          "  #wrong\n")


def test_what_the_review_of_this_sessions_change_found_stays_mended():
    # 1. an error line under a command is the command's output (an error), never 'only words' nor a silent success
    for text, said in (("$ nvidia-smi\nNVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. "
                        "Make sure that the latest NVIDIA driver is installed and running.\n", "NVIDIA-SMI has failed"),
                       ("$ sudo ip link set enP7s7 mtu 9000\nError: mtu greater than device maximum.\n", "mtu greater"),
                       ("$ ray status\nNo cluster status.\n", "printed `No cluster status.`")):
        (s,) = explain(text)
        assert said in (s.error or messages(s)) and "not in the paste" not in messages(s) \
            and "prints nothing" not in messages(s), text
    # 2. a `nan` average: no crash
    nan = "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : nan\n"
    (s,) = explain("$ mpirun -np 2 -H a:1,b:1 ./all_gather_perf -b 8 -e 16\n" + HEAD13
                   + ROW.format(size=8, count=2, dtype="float") + nan + ROW.format(size=8, count=2, dtype="float") + nan)
    assert s.error is None and "2 `# Avg bus bandwidth` summaries, nan, nan GB/s" in messages(s, "fail")
    # 3. `-d all` starts the sizes again for each type: one job, not independent runs
    rows = "".join(ROW.format(size=n, count=n // 4 if t == "float" else n, dtype=t)
                   for t in ("int8", "float") for n in (67108864, 134217728))
    (s,) = explain("$ mpirun -np 2 -H a:1,b:1 ./all_reduce_perf -b 64M -e 128M -d all\n" + HEAD13 + rows
                   + "# Avg bus bandwidth    : 11.4\n", host="other")
    assert "ran the test alone" not in messages(s) and "starts again" not in messages(s)
    # 4. nccl-tests' own -n is iterations, not processes
    (s,) = explain("$ ./all_reduce_perf -b 8 -e 16 -n 20\n" + HEAD13 + ROW.format(size=8, count=2, dtype="float")
                   + "# Avg bus bandwidth    : 1\n# Avg bus bandwidth    : 1\n", host="other")
    assert "ran the test alone" not in messages(s)
    # 5. an A100 PCIe's inactive links are a bridge off, and so are an H100 NVL's beyond its 12 wired
    for name, active, listed in (("NVIDIA A100-PCIE-40GB", 8, 12), ("NVIDIA H100 NVL", 8, 18)):
        text = f"$ nvidia-smi nvlink -s\nGPU 0: {name} (UUID: GPU-0)\n" + "".join(
            f"\t Link {i}: {'25 GB/s' if i < active else '<inactive>'}\n" for i in range(listed))
        (s,) = explain(text)
        assert f"{active} of {listed} active" in messages(s, "fail"), name
    # 7. Markdown's `+` bullets before a program that is also a word are no script's trace
    sections = explain("Setup notes, what I checked so far:\n\n+ ping between them works\n+ ip addresses are set by "
                       "netplan\n\nbut nccl all_gather only gets 2.8 GB/s.\n")
    assert not any(x.command for x in sections)
    # 8. a header cut short over rows printed whole
    (s,) = explain("$ mpirun -np 2 -H 192.168.100.10:1,192.168.100.11:1 ./all_gather_perf -b 1G -e 4G -f 2\n"
                   "#  size      time   algbw   busbw\n"
                   "  4294967296  1073741824  float  none  -1  187200  22.94  22.94  0  187100  22.95  22.95  0\n",
                   host="spark")
    assert s.error is None and "busbw 22.94 / 22.95 GB/s" in messages(s, "ok")
    # 9. a 10 GbE port on a gigabit switch is said, not warned
    (s,) = explain(ETHTOOL_10M.replace("Speed: 10Mb/s", "Speed: 1000Mb/s").replace("2500baseT", "10000baseT"),
                   host="other")
    assert "warn" not in levels(s)
    # 10. rows a person left out (`...`) above a cut count are not 'no GID at all'; a code span in a forum quote goes
    (s,) = explain("$ show_gids\nDEV     PORT    INDEX   GID                                     IPv4            VER"
                   "     DEV\n...\nn_gids_foun\n")
    assert "no GID at all" not in messages(s)
    assert clean_lines("> `ip -br addr`\n> `ibdev2netdev`") == ["ip -br addr", "ibdev2netdev"]


def test_a_setting_command_that_printed_its_complaint_refused_the_change():
    """A Synology owner's `ethtool -s` tries (corpus h010): a command that prints nothing when it works printed an
    error, so the change was refused (warn), not an output explain failed to read; `ethtool --version` is noted.
    netplan's warning on success has no complaint's words: not a refusal."""
    text = ("root@nas:~# ethtool -s eth2 autoneg off speed 5000\nCannot set new settings: Invalid argument\n"
            "  not setting speed\n  not setting autoneg\n\nroot@nas:~# ethtool --version\nethtool version 3.13\n")
    refused, version = explain(text)
    assert refused.error is None and levels(refused) == ["warn"]
    assert messages(refused).startswith("`ethtool -s eth2 autoneg off speed 5000` refused the change: `Cannot set new "
                                        "settings: Invalid argument`")
    assert version.error is None and messages(version, "info").startswith("ethtool's version: ethtool version 3.13.")
    (mtu,) = explain("$ sudo ip link set enp1s0f0np0 mtu 9800\nError: mtu greater than device maximum.\n")
    assert levels(mtu) == ["warn"] and "`Error: mtu greater than device maximum.`" in messages(mtu)
    said = explain("$ sudo netplan apply\n** (generate:4321): WARNING **: 10:01:02.123: Permissions for "
                   "/etc/netplan/40-cx7.yaml are too open. Netplan configuration should NOT be accessible by others.\n")
    assert "refused the change" not in " ".join(messages(s) for s in said)
