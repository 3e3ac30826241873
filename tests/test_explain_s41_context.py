"""Session 41: a paste read with no context (`clusterlab explain FILE`, no --host, no --nodes) is judged as what it
shows. Where nothing says the machines are Sparks, what a Spark pair needs is said as a condition, not as a fault;
told `--host spark` or `--nodes 2`, the same output is the fault it is for the course. Real outputs from the field
corpus (their URLs in the entries' .toml)."""

from __future__ import annotations

import re
from pathlib import Path

from grader.explain import explain
from tests.conftest import levels, messages

FIELD = Path(__file__).parent / "fixtures" / "field"


def _paste(prefix: str) -> str:
    [path] = [p for folder in ("corpus", "pending") for p in (FIELD / folder).glob(prefix + "_*.txt")]
    return path.read_text()


def _ray(text: str, **context):
    return next(s for s in explain(text, **context) if s.kind == "ray-status")


def test_one_ray_node_is_a_condition_when_nothing_says_how_many_machines():
    """https://github.com/skypilot-org/skypilot/issues/2608 (corpus zv014): one node, one GPU, idle. With no context
    a one-machine cluster, said with what would make it a fault; told two nodes, the other has not joined."""
    text = _paste("zv014")
    unsaid = _ray(text)
    assert "fail" not in levels(unsaid) and "warn" not in levels(unsaid)
    assert "Ray sees 1 node: a one-machine cluster, unless" in messages(unsaid, "info")
    assert "--nodes N" in messages(unsaid, "info")
    assert "only 1 node" in messages(_ray(text, nodes=2), "fail")
    assert "only 1 node" in messages(_ray(text, host="spark"), "fail")  # a Spark: the course's pair
    assert "a one-machine cluster, as this run is" in messages(_ray(text, nodes=1), "info")


def test_a_cpu_only_ray_cluster_is_not_a_missing_gpu_unless_the_host_is_a_spark():
    """https://github.com/ray-project/ray/pull/39638 (pending wb007): one node, CPUs only, nothing pending. No context:
    a CPU-only cluster (an info that says what a Spark would need); told it is a Spark, Ray lost its GPU (a fail)."""
    text = _paste("wb007")
    unsaid = _ray(text)
    assert set(levels(unsaid)) <= {"ok", "info"}
    assert "a CPU-only cluster" in messages(unsaid, "info") and "`explain --host spark`" in messages(unsaid, "info")
    assert "Ray reports no GPU: vLLM's Ray executor" in messages(_ray(text, host="spark"), "fail")
    assert "`explain --host spark`" not in messages(_ray(text, host="other"))


def test_a_gpu_demand_waiting_on_a_cluster_without_gpus_fails_in_any_context():
    """A placement group asking for GPUs on a cluster that reports none: the workload says what the cluster is for,
    so the missing GPU is the fault whatever the host (the neighbour the condition above must not soften)."""
    text = ("======== Autoscaler status: 2026-01-01 00:00:00 ========\nNode status\n-----\nActive:\n"
            " 1 node_aaaaaaaabbbbbbbb\nPending:\n (no pending nodes)\nRecent failures:\n (no failures)\n\nResources\n"
            "-----\nTotal Usage:\n 1.0/16.0 CPU\n 0B/60.00GiB memory\n\nFrom request_resources:\n (none)\n"
            "Pending Demands:\n {'GPU': 1.0} * 2 (PACK): 1+ pending placement groups\n")
    assert "Ray reports no GPU" in messages(_ray(text), "fail")


def test_nccl_lines_of_a_second_gpu_on_one_host_say_it_is_not_a_spark():
    """A DGX Spark has one GPU: NCCL's `cudaDev 1` on a host says another machine, so with no host said a TCP
    transport between machines is the other-host reading (a warning that names the Spark case), not the Spark
    pair's fault; told `--host spark`, it is the fault."""
    text = ("hostA:100:100 [1] NCCL INFO cudaDev 1 nvmlDev 1 busId 41000 commId 0x1 - Init START\n"
            "hostA:100:100 [1] NCCL INFO NET/IB : No device found.\n"
            "hostA:100:100 [1] NCCL INFO NET/Socket : Using [0]eth0:10.1.0.5<0>\n"
            "hostA:100:100 [1] NCCL INFO Using network Socket\n"
            "hostA:100:100 [1] NCCL INFO Channel 00/0 : 1[1] -> 2[0] [send] via NET/Socket/0\n")
    [unsaid] = explain(text, nodes=2)
    assert "fail" not in levels(unsaid) and "TCP sockets" in messages(unsaid, "warn")
    assert "On a DGX Spark pair this is a fault" not in messages(unsaid)  # the log shows it is not one
    [one_gpu] = explain(text.replace("cudaDev 1 nvmlDev 1", "cudaDev 0 nvmlDev 0"), nodes=2)
    assert "fail" not in levels(one_gpu) and "On a DGX Spark pair this is a fault" in messages(one_gpu, "warn")
    [spark] = explain(text, nodes=2, host="spark")
    assert "TCP sockets" in messages(spark, "fail")


def test_an_iperf3_rate_between_ethernet_speeds_warns_on_any_host():
    """https://github.com/esnet/iperf/issues/408 (corpus c005): 3.31 Gbit/s on one stream. Whatever the host, no
    Ethernet link runs full at that rate (above 2.5 GbE's line rate, well under 5 GbE's TCP): said with no context
    too, beside the hedged Spark bar; on a Spark pair it is a fail against the published figures."""
    text = _paste("c005")
    [unsaid] = explain(text)
    assert "no Ethernet link runs full at this rate" in messages(unsaid, "warn")
    assert "The host is not said" in messages(unsaid, "info") and "fail" not in levels(unsaid)
    [spark] = explain(text, host="spark")
    assert "far below" in messages(spark, "fail")


def test_a_slow_decode_asks_about_nccl_only_where_the_run_spanned_machines():
    """https://github.com/djangodevreng/dgx-spark-benchmarks (corpus zm006): one Spark's `vllm bench serve` at ~1.6
    tok/s per stream. A client's output does not show how many machines served it: the NCCL check is asked only where
    `--nodes` says several (its reader: nothing of NCCL on one Spark)."""
    text = _paste("zm006")
    unsaid = " ".join(messages(s) for s in explain(text))
    assert "very slow decode" in unsaid and "NCCL" not in unsaid
    assert "NCCL uses RDMA" in " ".join(messages(s) for s in explain(text, nodes=2))


def test_a_spark_device_name_on_another_netdev_is_another_connectx():
    """https://github.com/chestergillon (blind batch ve002): a ConnectX-4 Lx whose RDMA devices the kernel named
    rocep1s0f0/rocep1s0f1, as a Spark's are, but on netdevs enp1s0f0/enp1s0f1 (a Spark's are ...np0/...np1), with
    only link-local GIDs. Not a Spark: said between "the nodes", a warning (show_gids shows no port state); on a
    Spark's own pairing, rocep1s0f0 on enp1s0f0np0, the Sparks' fail."""
    text = _paste("ve002")
    [s] = explain(text)
    assert "cannot route between the nodes" in messages(s, "warn") and "Sparks" not in messages(s)
    [spark] = explain(re.sub(r"enp1s0f([01])$", r"enp1s0f\1np\1", text, flags=re.M))
    assert "cannot route between the Sparks" in messages(spark, "fail")


def test_a_port_whose_modes_top_out_below_200g_is_not_a_sparks_whatever_its_name():
    """https://xtremeownage.com (blind batch ve008): `ethtool enp1s0f0np0` on kube01, a ConnectX-4 Lx at 25000Mb/s,
    its supported modes 25000baseCR at most. A Spark's twin has that name, but no Spark's ConnectX-7 tops out at
    25G: with no host said it is another NIC, up at its own rate; said to be a Spark, 25 GbE is the fault."""
    text = _paste("ve008")
    [s] = explain(text)
    assert set(levels(s)) <= {"ok", "info"} and "not a Spark QSFP interface" in messages(s)
    [spark] = explain(text, host="spark")
    assert "a Spark QSFP port should show" in messages(spark, "fail")
    cx7 = text.replace("25000baseSR/Full\n                Supported pause",
                       "25000baseSR/Full\n                                        200000baseCR4/Full\n"
                       "                Supported pause")
    assert "a Spark QSFP port should show" in messages(explain(cx7)[0], "fail")  # a 200G port named so: a twin


def test_a_busbw_above_what_one_qsfp_cable_carries_is_not_a_spark_pairs():
    """https://github.com/NVIDIA/nccl/issues/1435 (corpus a022): nccl-tests rows only, busbw up to 140 GB/s. With no
    context, more than the Spark pair's cable carries (checks/ranges.toml allgather_busbw_gbs max) says the ranks are
    not two Sparks over it: read as another machine's (NVLink), not against the Spark bars."""
    [s] = explain(_paste("a022"))
    assert "not a two-Spark run" in messages(s, "info") and "NVLink" in messages(s, "info")
    assert "spark_cluster_setup.py" not in messages(s)


def test_one_node_of_eight_gpus_with_nothing_waiting_is_a_one_machine_cluster_when_not_told_more():
    """https://github.com/rllm-org (pending wv003): one node, 8 of 8 GPUs held by placement groups, no demands. Not a
    Spark (eight GPUs on a node), the node count not said: one machine, a condition, with no Spark words (a one-GPU
    node's may be a Spark's: there the Spark pair is named); told two nodes, the other has not joined."""
    text = _paste("wv003")
    unsaid = _ray(text)
    assert "fail" not in levels(unsaid) and "a one-machine cluster, unless" in messages(unsaid, "info")
    assert "Spark" not in messages(unsaid)  # eight GPUs on a node: no Spark, so no Spark words
    assert "(a Spark pair's two)" in messages(_ray(_paste("zv014")), "info")  # one GPU a node: it may be one
    assert "only 1 node" in messages(_ray(text, nodes=2), "fail")


def test_vllm_v0_multiprocessing_workers_are_one_machine_without_being_told():
    """https://github.com/vllm-project/vllm/issues/7800 (corpus p018): TP=8 in Docker, `(VllmWorkerProcess pid=...)`
    workers (vLLM V0's multiprocessing executor, which runs every worker on the machine of its engine) and NCCL's
    `unhandled system error`: with no --nodes, the one-machine reading (shared memory, --ipc=host), not the QSFP
    twins' GID index."""
    said = " ".join(messages(s) for s in explain(_paste("p018")))
    assert "with every rank on this one machine" in said and "NCCL_IB_GID_INDEX" not in said


# --------------------------------------------------------------------------- break-it review 24 (session 41): probes
# written as variations of real outputs (corpus y005, field paste 04, an ASUS GX10's lscpu, show_gids of NCCL's issues)

_GX10_LSCPU = ("user@gx10-7f3a:~$ lscpu\nArchitecture:                aarch64\nCPU(s):                      20\n"
               "Vendor ID:                   ARM\n  Model name:                Cortex-X925\n"
               "    Core(s) per cluster:     10\n  Model name:                Cortex-A725\n")


def test_a_sparks_own_cpu_is_a_spark_sign_not_another_machines():
    """Break-it 24 F1: `lscpu` of a GB10 names Cortex-X925 and Cortex-A725; "A725" once read as a data-center GPU's
    name (A100's pattern) and made the Spark's iperf3 at 30 Gbit/s "not a Spark". Now the cores are a Spark's sign:
    the rate fails against the Spark figures."""
    iperf = ("user@gx10-7f3a:~$ iperf3 -c 192.168.100.11 -P 4 -t 10\nConnecting to host 192.168.100.11, port 5201\n"
             "[ ID] Interval           Transfer     Bitrate         Retr\n"
             "[SUM]   0.00-10.00  sec  35.0 GBytes  30.1 Gbits/sec    0             sender\n"
             "[SUM]   0.00-10.00  sec  35.0 GBytes  30.1 Gbits/sec                  receiver\n")
    said = " ".join(messages(s, "fail") for s in explain(_GX10_LSCPU + iperf) if s.kind == "iperf3")
    assert "far below" in said


def test_an_x86_servers_connectx_at_pci_bus_1_is_not_a_spark():
    """Break-it 24 F2: any ConnectX at PCI 0000:01 is named rocep1s0f0/enp1s0f0np0, as a Spark's first twins are; a
    Xeon above the show_gids says whose: no Spark words, the unknown-use warning (show_gids shows no port state)."""
    text = ("user@gpu-srv-03:~$ grep -m1 \"model name\" /proc/cpuinfo\nmodel name\t: Intel(R) Xeon(R) Platinum 8480+\n"
            "user@gpu-srv-03:~$ show_gids\nDEV\tPORT\tINDEX\tGID\t\t\t\t\tIPv4  \t\tVER\tDEV\n---\t----\t-----\t---\t\t\t\t\t"
            "------------  \t---\t---\n"
            "rocep1s0f0\t1\t0\tfe80:0000:0000:0000:a288:c2ff:fe3a:51b0\t\t\tv1\tenp1s0f0np0\n"
            "rocep1s0f0\t1\t1\tfe80:0000:0000:0000:a288:c2ff:fe3a:51b0\t\t\tv2\tenp1s0f0np0\nn_gids_found=2\n")
    gids = next(s for s in explain(text) if s.kind == "show-gids")
    assert "fail" not in levels(gids) and "between the nodes" in messages(gids, "warn") and "Spark" not in messages(gids)


def test_a_spark_sized_ray_status_without_gpus_warns_and_others_stay_a_condition():
    """Break-it 24 L1 (corpus y005 with its GPU line removed): two nodes of 20 CPUs and ~111 GiB each are a Spark
    pair's size as Ray counts it (checks/specs/gpus.toml [dgx_spark] cpu_cores, cuda_memory_gib); no GPU there is a
    hedged warning (Sparks started without their GPUs, or CPU-only machines of that size: break-it 25 F3), told a
    Spark a fail; a CPU-only cluster of other sizes stays a condition."""
    text = ("======== Autoscaler status: 2026-04-19 17:08:02.711002 ========\nNode status\n-----\nActive:\n"
            " 1 node_83e4b7723832f251eff177c9faf45a5305de7b1755a7f91ce1f3c911\n"
            " 1 node_4dcd7509dc73bd2e758e4048d40233b19eb019dfb54c66095a01e30f\nPending:\n (no pending nodes)\n"
            "Recent failures:\n (no failures)\n\nResources\n-----\nTotal Usage:\n 0.0/40.0 CPU\n 0B/221.76GiB memory\n"
            " 0B/19.46GiB object_store_memory\n\nFrom request_resources:\n (none)\nPending Demands:\n"
            " (no resource demands)\n")
    assert "on nodes of a DGX Spark's size" in messages(_ray(text), "warn") and "fail" not in levels(_ray(text))
    assert "Ray reports no GPU: vLLM's Ray executor" in messages(_ray(text, host="spark"), "fail")
    other = text.replace("0.0/40.0 CPU", "0.0/64.0 CPU")
    assert "fail" not in levels(_ray(other)) and "a CPU-only cluster" in messages(_ray(other), "info")


def test_soft_roce_on_a_host_shown_to_be_a_spark_warns():
    """Break-it 24 L2: `rdma link` on spark-e2a9 lists only rxe0 on enP7s7 (the Spark's 10 GbE port): the
    ConnectX-7's devices are missing and Soft-RoCE stands in: a warning, as with --host spark."""
    [s] = explain("user@spark-e2a9:~$ rdma link\nlink rxe0/1 state ACTIVE physical_state LINK_UP netdev enP7s7\n")
    assert "Soft-RoCE" in messages(s, "warn")


def test_one_sparks_ray_status_is_a_condition_whatever_the_hostname():
    """Break-it 24 L3: one Spark's `ray status` (one node, one GPU, nothing pending) read the same on a host named
    spark-... and gx10-...: a Spark says which bars apply, not that a second one was meant."""
    status = ("======== Autoscaler status: 2026-04-10 05:23:31.894412 ========\nNode status\n-----\nActive:\n"
              " 1 node_a81cfbad5c01fb9a0060b29a3698e0ec84f5ec6b0349790e329b7410\nPending:\n (no pending nodes)\n"
              "Recent failures:\n (no failures)\n\nResources\n-----\nTotal Usage:\n 0.0/20.0 CPU\n 0.0/1.0 GPU\n"
              " 0B/109.42GiB memory\n\nFrom request_resources:\n (none)\nPending Demands:\n (no resource demands)\n")
    for host in ("spark-e2a9", "gx10-7f3a"):
        s = _ray(f"user@{host}:~$ docker exec node-58 ray status\n" + status)
        assert "fail" not in levels(s) and "a one-machine cluster, unless" in messages(s, "info"), host
        assert "only 1 node: the " in messages(_ray(f"user@{host}:~$ ray status\n" + status, nodes=2), "fail")
    assert "the second Spark" in messages(_ray("user@spark-e2a9:~$ ray status\n" + status, nodes=2), "fail")


def test_an_all_reduce_table_over_more_than_two_ranks_is_not_a_spark_pairs():
    """Break-it 24 N3: nccl-tests rows alone, busbw 1.75 x algbw (all-reduce over 8 ranks): no Spark pair's
    reading beside the rank count the same table gives."""
    rows = ("#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw "
            "#wrong\n   268435456      67108864     float     sum      -1    63511    4.23    7.40      0    63470    "
            "4.23    7.40      0\n  1073741824     268435456     float     sum      -1   253611    4.23    7.41      0   "
            "253590    4.23    7.41      0\n")
    said = " ".join(messages(s) for s in explain(rows))
    assert "8 ranks" in said and "two DGX Sparks" not in said and "Spark pair" not in said


def test_one_twin_up_with_carrier_is_said_up():
    """https://github.com/ideo-plus (blind batch vh003): `ip link show enp1s0f0np0` on a Spark worker, UP and
    LOWER_UP at MTU 9000: said up with carrier (the cable is in), beside the twin the output does not show; a twin UP
    without LOWER_UP is not said so."""
    [s] = explain(FIELD.joinpath("pending").glob("vh003_*.txt").__next__().read_text())
    assert "is UP with carrier (LOWER_UP)" in messages(s, "ok") and "twin enP2p1s0f0np0 is not in this output" in messages(s)
    line = ("3: enp1s0f0np0: <BROADCAST,MULTICAST,UP> mtu 9000 qdisc mq state DOWN mode DEFAULT group default qlen 1000\n"
            "    link/ether 02:00:00:00:00:0b brd ff:ff:ff:ff:ff:ff\n")
    assert "with carrier" not in messages(explain(line)[0])


def test_a_spark_share_a_little_above_the_recipe_is_a_note_and_far_above_a_warning():
    """The field's readers of one-Spark vLLM starts (checks/specs/gpus.toml [dgx_spark]
    vllm_gpu_memory_utilization_risky): at 0.89 (blind batch vh008, poolside Laguna, serving) a healthy start with a
    note; at 0.95 (corpus zm005) the host's starvation warned."""
    low = " ".join(messages(s, "info") for s in explain(_paste("vh008"), host="spark", nodes=1))
    assert "--gpu-memory-utilization 0.89 on a DGX Spark" in low
    assert not any("GB10 recipe" in f.message for s in explain(_paste("vh008"), host="spark", nodes=1)
                   for f in s.findings if f.level == "warn")
    high = " ".join(messages(s, "warn") for s in explain(_paste("zm005"), host="spark", nodes=1))
    assert "--gpu-memory-utilization 0.95 on a DGX Spark" in high


def test_a_loopback_head_given_on_purpose_for_one_machine_is_a_note():
    """Break-it 23 p01 (a variation of ray-project/ray#24130's head output): `ray start --head
    --node-ip-address=127.0.0.1`, the join line printed, one machine told: the user's one-machine runtime (a note
    that says the address was given); told two machines, the warning, worded for an address given, not chosen."""
    text = P01_HEAD
    one = next(s for s in explain(text, nodes=1) if s.kind == "ray-start")
    assert "warn" not in levels(one) and "as --node-ip-address gives it: a Ray runtime for this one machine" in messages(one, "info")
    two = next(s for s in explain(text, nodes=2) if s.kind == "ray-start")
    assert "as --node-ip-address gives it: no other node can reach it" in messages(two, "warn")


P01_HEAD = "$ ray start --head --node-ip-address=127.0.0.1 --port=6379 --num-gpus=1\nUsage stats collection is enabled. To disable this, add `--disable-usage-stats` to the command that starts the cluster, or run the following command: `ray disable-usage-stats` before starting the cluster. See https://docs.ray.io/en/master/cluster/usage-stats.html for more details.\n\nLocal node IP: 127.0.0.1\n\n--------------------\nRay runtime started.\n--------------------\n\nNext steps\n  To add another node to this Ray cluster, run\n    ray start --address='127.0.0.1:6379'\n\n  To connect to this Ray cluster:\n    import ray\n    ray.init(_node_ip_address='127.0.0.1')\n\n  To submit a Ray job using the Ray Jobs CLI:\n    RAY_ADDRESS='http://127.0.0.1:8265' ray job submit --working-dir . -- python my_script.py\n\n  See https://docs.ray.io/en/latest/cluster/running-applications/job-submission/index.html\n  for more information on submitting Ray jobs to the Ray cluster.\n\n  To terminate the Ray runtime, run\n    ray stop\n\n  To view the status of the cluster, use\n    ray status\n\n  To monitor and debug Ray, view the dashboard at\n    127.0.0.1:8265\n\n  If connection to the dashboard fails, check your firewall settings and network configuration.\n"


def test_a_server_that_came_up_and_then_crashed_is_not_said_up():
    """Break-it 23 p14 (a variation of a vLLM serve log on one Spark): the ready line, then `Segmentation fault (core
    dumped)`: the server came up and its process ended (a note beside the crash's fail), not "the server is up"."""
    [s] = explain(P14_SEGFAULT, host="spark", nodes=1)
    assert "and then its process ended" in messages(s, "info") and "The server is up" not in messages(s)
    assert "segmentation fault" in messages(s, "fail")
    [up] = explain(P14_SEGFAULT.split("Segmentation fault")[0].rsplit("\n", 1)[0] + "\n", host="spark", nodes=1)
    assert "The server is up" in messages(up, "ok")


P14_SEGFAULT = 'INFO 06-12 10:20:11 [api_server.py:1880] Starting vLLM API server 0 on http://0.0.0.0:8000\nINFO:     Started server process [48211]\nINFO:     Waiting for application startup.\nINFO:     Application startup complete.\n!!!!!!! Segfault encountered !!!!!!!\nSegmentation fault (core dumped)\n'


def test_ethtool_i_without_its_command_is_read_as_ethtool():
    """https://github.com/kyuz0 (blind batch ve007): `ethtool -i` of an Intel E810 pasted without its command line
    (driver: ice, firmware-version: 4.91 ...): read as ethtool's driver report, not an output of no known kind."""
    [s] = explain(_paste("ve007"))
    assert s.kind == "ethtool" and s.error is None and "driver ice" in messages(s) and "firmware 4.91" in messages(s)



# --------------------------------------------------------------------------- break-it review 25 (session 41): probes
# written as variations of real outputs (nvidia-smi -q -x of two cards, nvtop on a wide terminal, a docker compose log
# around a vLLM server, corpus zz010's launch line)

def test_an_xml_report_of_two_gpus_is_not_read_across_them():
    """Break-it 25 F1: one GPU busy at P2 (98 %) beside one idle at P8: the idle one's P-state is not 'held down under
    load' by the other's utilisation (nor said idle beside a busy one): no warning."""
    said = " ".join(messages(s) for s in explain(P03_XML_TWO))
    assert "clocks held down" not in said and "warn" not in [f.level for s in explain(P03_XML_TWO) for f in s.findings]


def test_nvtop_headers_side_by_side_are_not_paired_by_order():
    """Break-it 25 F2: nvtop on a wide terminal puts Device 0's and Device 1's headers on one line; Device 1 at PCIe
    Gen 1 is idle (0 %), and Device 0's 98 % bar is not read as its."""
    said = " ".join(messages(s, "warn") for s in explain(P04_NVTOP_WIDE))
    assert "held back" not in said and "98%" not in said


def test_another_containers_exit_after_the_ready_line_is_not_the_servers():
    """Break-it 25 F4: docker compose's open-webui exits with code 1 after vLLM's ready line, and vLLM answers a
    request after it: vLLM is up."""
    s = next(x for x in explain(P05_COMPOSE) if x.kind == "vllm-log")
    assert "its process ended" not in messages(s) and "The server is up" in messages(s, "ok")


def test_a_median_ttft_near_the_mean_is_a_queue_not_a_tail():
    """Break-it 25 F5: median TTFT 9.41 s against a mean of 11.9 s on short prompts at a client cap: every request
    waited (the queue warning), not a few stalled ones."""
    said = " ".join(messages(s, "warn") for s in explain(P02_BENCH))
    assert "no standing queue" not in said


def test_ib_disabled_on_a_port_named_as_a_sparks_twin_warns_on_another_host():
    """Break-it 25 F13 (corpus zz010's launch line with the NIC renamed enp1s0f1np1, the name any ConnectX at PCI 01
    gets): told `--host other`, the RDMA-off warning stands."""
    said = " ".join(messages(s, "warn") for s in explain(P19_LAUNCH, host="other"))
    assert "NCCL_IB_DISABLE=1 with NCCL_SOCKET_IFNAME=enp1s0f1np1" in said


P03_XML_TWO = '$ nvidia-smi -q -x\n<?xml version="1.0" ?>\n<!DOCTYPE nvidia_smi_log SYSTEM "nvsmi_device_v12.dtd">\n<nvidia_smi_log>\n\t<timestamp>Sat Dec  5 14:22:10 2026</timestamp>\n\t<driver_version>550.120</driver_version>\n\t<cuda_version>12.4</cuda_version>\n\t<attached_gpus>2</attached_gpus>\n\t<gpu id="00000000:01:00.0">\n\t\t<product_name>NVIDIA GeForce RTX 3090</product_name>\n\t\t<product_brand>GeForce</product_brand>\n\t\t<uuid>GPU-2f0c1a7e-5b1d-4c1e-9d0a-3f2b7c9e1a10</uuid>\n\t\t<minor_number>0</minor_number>\n\t\t<pci>\n\t\t\t<pci_bus>00</pci_bus>\n\t\t\t<pci_gpu_link_info>\n\t\t\t\t<pcie_gen>\n\t\t\t\t\t<max_link_gen>4</max_link_gen>\n\t\t\t\t\t<current_link_gen>4</current_link_gen>\n\t\t\t\t</pcie_gen>\n\t\t\t\t<link_widths>\n\t\t\t\t\t<max_link_width>16x</max_link_width>\n\t\t\t\t\t<current_link_width>16x</current_link_width>\n\t\t\t\t</link_widths>\n\t\t\t</pci_gpu_link_info>\n\t\t</pci>\n\t\t<fan_speed>71 %</fan_speed>\n\t\t<performance_state>P2</performance_state>\n\t\t<clocks_event_reasons>\n\t\t\t<clocks_event_reason_gpu_idle>Not Active</clocks_event_reason_gpu_idle>\n\t\t\t<clocks_event_reason_applications_clocks_setting>Not Active</clocks_event_reason_applications_clocks_setting>\n\t\t\t<clocks_event_reason_sw_power_cap>Not Active</clocks_event_reason_sw_power_cap>\n\t\t\t<clocks_event_reason_hw_slowdown>Not Active</clocks_event_reason_hw_slowdown>\n\t\t\t<clocks_event_reason_hw_thermal_slowdown>Not Active</clocks_event_reason_hw_thermal_slowdown>\n\t\t\t<clocks_event_reason_hw_power_brake_slowdown>Not Active</clocks_event_reason_hw_power_brake_slowdown>\n\t\t\t<clocks_event_reason_sync_boost>Not Active</clocks_event_reason_sync_boost>\n\t\t\t<clocks_event_reason_sw_thermal_slowdown>Not Active</clocks_event_reason_sw_thermal_slowdown>\n\t\t\t<clocks_event_reason_display_clocks_setting>Not Active</clocks_event_reason_display_clocks_setting>\n\t\t</clocks_event_reasons>\n\t\t<fb_memory_usage>\n\t\t\t<total>24576 MiB</total>\n\t\t\t<reserved>308 MiB</reserved>\n\t\t\t<used>21340 MiB</used>\n\t\t\t<free>2928 MiB</free>\n\t\t</fb_memory_usage>\n\t\t<utilization>\n\t\t\t<gpu_util>98 %</gpu_util>\n\t\t\t<memory_util>49 %</memory_util>\n\t\t\t<encoder_util>0 %</encoder_util>\n\t\t\t<decoder_util>0 %</decoder_util>\n\t\t\t<jpeg_util>0 %</jpeg_util>\n\t\t\t<ofa_util>0 %</ofa_util>\n\t\t</utilization>\n\t\t<temperature>\n\t\t\t<gpu_temp>74 C</gpu_temp>\n\t\t</temperature>\n\t\t<gpu_power_readings>\n\t\t\t<power_state>P2</power_state>\n\t\t\t<power_draw>331.42 W</power_draw>\n\t\t\t<current_power_limit>350.00 W</current_power_limit>\n\t\t</gpu_power_readings>\n\t\t<clocks>\n\t\t\t<graphics_clock>1860 MHz</graphics_clock>\n\t\t\t<sm_clock>1860 MHz</sm_clock>\n\t\t\t<mem_clock>9501 MHz</mem_clock>\n\t\t</clocks>\n\t\t<processes>\n\t\t\t<process_info>\n\t\t\t\t<gpu_instance_id>N/A</gpu_instance_id>\n\t\t\t\t<compute_instance_id>N/A</compute_instance_id>\n\t\t\t\t<pid>48211</pid>\n\t\t\t\t<type>C</type>\n\t\t\t\t<process_name>python3</process_name>\n\t\t\t\t<used_memory>21020 MiB</used_memory>\n\t\t\t</process_info>\n\t\t</processes>\n\t</gpu>\n\t<gpu id="00000000:02:00.0">\n\t\t<product_name>NVIDIA GeForce RTX 3090</product_name>\n\t\t<product_brand>GeForce</product_brand>\n\t\t<uuid>GPU-8a1d9c44-0e6b-47f2-b1a3-77e2c5d0f9b3</uuid>\n\t\t<minor_number>0</minor_number>\n\t\t<pci>\n\t\t\t<pci_bus>00</pci_bus>\n\t\t\t<pci_gpu_link_info>\n\t\t\t\t<pcie_gen>\n\t\t\t\t\t<max_link_gen>4</max_link_gen>\n\t\t\t\t\t<current_link_gen>1</current_link_gen>\n\t\t\t\t</pcie_gen>\n\t\t\t\t<link_widths>\n\t\t\t\t\t<max_link_width>16x</max_link_width>\n\t\t\t\t\t<current_link_width>16x</current_link_width>\n\t\t\t\t</link_widths>\n\t\t\t</pci_gpu_link_info>\n\t\t</pci>\n\t\t<fan_speed>30 %</fan_speed>\n\t\t<performance_state>P8</performance_state>\n\t\t<clocks_event_reasons>\n\t\t\t<clocks_event_reason_gpu_idle>Active</clocks_event_reason_gpu_idle>\n\t\t\t<clocks_event_reason_applications_clocks_setting>Not Active</clocks_event_reason_applications_clocks_setting>\n\t\t\t<clocks_event_reason_sw_power_cap>Not Active</clocks_event_reason_sw_power_cap>\n\t\t\t<clocks_event_reason_hw_slowdown>Not Active</clocks_event_reason_hw_slowdown>\n\t\t\t<clocks_event_reason_hw_thermal_slowdown>Not Active</clocks_event_reason_hw_thermal_slowdown>\n\t\t\t<clocks_event_reason_hw_power_brake_slowdown>Not Active</clocks_event_reason_hw_power_brake_slowdown>\n\t\t\t<clocks_event_reason_sync_boost>Not Active</clocks_event_reason_sync_boost>\n\t\t\t<clocks_event_reason_sw_thermal_slowdown>Not Active</clocks_event_reason_sw_thermal_slowdown>\n\t\t\t<clocks_event_reason_display_clocks_setting>Not Active</clocks_event_reason_display_clocks_setting>\n\t\t</clocks_event_reasons>\n\t\t<fb_memory_usage>\n\t\t\t<total>24576 MiB</total>\n\t\t\t<reserved>308 MiB</reserved>\n\t\t\t<used>4 MiB</used>\n\t\t\t<free>24264 MiB</free>\n\t\t</fb_memory_usage>\n\t\t<utilization>\n\t\t\t<gpu_util>0 %</gpu_util>\n\t\t\t<memory_util>0 %</memory_util>\n\t\t\t<encoder_util>0 %</encoder_util>\n\t\t\t<decoder_util>0 %</decoder_util>\n\t\t\t<jpeg_util>0 %</jpeg_util>\n\t\t\t<ofa_util>0 %</ofa_util>\n\t\t</utilization>\n\t\t<temperature>\n\t\t\t<gpu_temp>33 C</gpu_temp>\n\t\t</temperature>\n\t\t<gpu_power_readings>\n\t\t\t<power_state>P8</power_state>\n\t\t\t<power_draw>21.37 W</power_draw>\n\t\t\t<current_power_limit>350.00 W</current_power_limit>\n\t\t</gpu_power_readings>\n\t\t<clocks>\n\t\t\t<graphics_clock>210 MHz</graphics_clock>\n\t\t\t<sm_clock>210 MHz</sm_clock>\n\t\t\t<mem_clock>405 MHz</mem_clock>\n\t\t</clocks>\n\t\t<processes>\n\t\t</processes>\n\t</gpu>\n</nvidia_smi_log>\n'
P04_NVTOP_WIDE = ' Device 0 [NVIDIA GeForce RTX 3090] PCIe GEN 4@16x RX: 1.371 GiB/s TX: 42.00 MiB/s  Device 1 [NVIDIA GeForce RTX 3090] PCIe GEN 1@16x RX: 0.000 KiB/s TX: 0.000 KiB/s\n GPU 1860MHz MEM 9501MHz TEMP  74°C FAN  71% POW 331 / 350 W                         GPU 210MHz MEM 405MHz TEMP  33°C FAN  30% POW  21 / 350 W\n GPU[||||||||||||||||||||||||||||||||98%] MEM[|||||||||||||||||||20.8Gi/24.0Gi]       GPU[                                  0%] MEM[                     0.0Gi/24.0Gi]\n\n    PID USER      DEV    TYPE  GPU        GPU MEM    CPU  HOST MEM Command\n  48211 alice       0 Compute  98%  21020MiB  86%   100%   4820MiB python3 train.py --bs 32\n   2113 root        1 Graphic   0%      4MiB   4%     0%     96MiB /usr/lib/xorg/Xorg vt2\n F2Setup  F6Sort  F9Kill  F10Quit  F12Save Config\n'
P05_COMPOSE = '$ docker compose up\n[+] Running 2/2\n ✔ Container stack-vllm-1        Created                                                0.1s\n ✔ Container stack-open-webui-1  Created                                                0.1s\nAttaching to open-webui-1, vllm-1\nvllm-1        | INFO 12-05 14:02:11 [__init__.py:241] Automatically detected platform cuda.\nvllm-1        | (APIServer pid=1) INFO 12-05 14:02:15 [api_server.py:1805] vLLM API server version 0.10.1.1\nvllm-1        | (APIServer pid=1) INFO 12-05 14:02:15 [utils.py:326] non-default args: {\'model\': \'Qwen/Qwen2.5-7B-Instruct\', \'host\': \'0.0.0.0\', \'max_model_len\': 16384}\nvllm-1        | (EngineCore_0 pid=146) INFO 12-05 14:02:31 [core.py:636] Waiting for init message from front-end.\nvllm-1        | (EngineCore_0 pid=146) INFO 12-05 14:02:40 [gpu_model_runner.py:1953] Model loading took 14.2474 GiB and 6.818245 seconds\nvllm-1        | (EngineCore_0 pid=146) INFO 12-05 14:02:52 [gpu_worker.py:276] Available KV cache memory: 5.94 GiB\nvllm-1        | (EngineCore_0 pid=146) INFO 12-05 14:02:52 [kv_cache_utils.py:849] GPU KV cache size: 111,232 tokens\nvllm-1        | (EngineCore_0 pid=146) INFO 12-05 14:02:52 [kv_cache_utils.py:853] Maximum concurrency for 16,384 tokens per request: 6.79x\nvllm-1        | (EngineCore_0 pid=146) INFO 12-05 14:03:05 [gpu_model_runner.py:2708] Graph capturing finished in 12 secs, took 0.52 GiB\nvllm-1        | (APIServer pid=1) INFO 12-05 14:03:07 [api_server.py:1880] Starting vLLM API server 0 on http://0.0.0.0:8000\nvllm-1        | (APIServer pid=1) INFO:     Started server process [1]\nvllm-1        | (APIServer pid=1) INFO:     Waiting for application startup.\nvllm-1        | (APIServer pid=1) INFO:     Application startup complete.\nopen-webui-1  | Traceback (most recent call last):\nopen-webui-1  |   File "/app/backend/open_webui/main.py", line 12, in <module>\nopen-webui-1  | PermissionError: [Errno 13] Permission denied: \'/app/backend/data/webui.db\'\nopen-webui-1 exited with code 1\nvllm-1        | (APIServer pid=1) INFO:     172.18.0.1:51234 - "GET /v1/models HTTP/1.1" 200 OK\n'
P02_BENCH = '$ vllm bench serve --model Qwen/Qwen2.5-7B-Instruct --dataset-name random --random-input-len 512 --random-output-len 256 --num-prompts 640 --max-concurrency 64 --percentile-metrics ttft,tpot,itl,e2el\nStarting initial single prompt test run...\nInitial test run completed. Starting main benchmark run...\nTraffic request rate: inf\nBurstiness factor: 1.0 (Poisson process)\nMaximum request concurrency: 64\n100%|██████████| 640/640 [04:06<00:00,  2.60it/s]\n============ Serving Benchmark Result ============\nSuccessful requests:                     640       \nMaximum request concurrency:             64        \nBenchmark duration (s):                  246.15    \nTotal input tokens:                      327680    \nTotal generated tokens:                  163840    \nRequest throughput (req/s):              2.60      \nOutput token throughput (tok/s):         665.61    \nTotal Token throughput (tok/s):          1996.83   \n---------------Time to First Token----------------\nMean TTFT (ms):                          14120.65  \nMedian TTFT (ms):                        9412.17   \nP99 TTFT (ms):                           78410.22  \n-----Time per Output Token (excl. 1st token)------\nMean TPOT (ms):                          49.10     \nMedian TPOT (ms):                        48.77     \nP99 TPOT (ms):                           61.32     \n---------------Inter-token Latency----------------\nMean ITL (ms):                           49.02     \nMedian ITL (ms):                         41.55     \nP99 ITL (ms):                            212.40    \n----------------End-to-end Latency----------------\nMean E2EL (ms):                          26615.80  \nMedian E2EL (ms):                        21930.44  \nP99 E2EL (ms):                           91230.11  \n==================================================\n'
P19_LAUNCH = '(base) ann@lccn02:~$ NCCL_IB_DISABLE=1 NCCL_CUDA_PATH=/usr/lib/x86_64-linux-gnu/ NCCL_SOCKET_IFNAME=enp1s0f1np1 NCCL_DEBUG=INFO OMP_NUM_THREADS=8 torchrun \\\n--nnodes 2 \\\n--nproc_per_node 8 \\\n--rdzv_id ctils \\\n--rdzv_backend c10d \\\n--rdzv_endpoint lccn02:45557 \\\n--master-addr lccn02 \\\n--master-port 45557 \\\ntest.py\nINFO\nenp1s0f1np1\nPreparing to init...\n[W801 04:55:17.113400444 socket.cpp:697] [c10d] The client socket has failed to connect to [lccn01]:56183 (errno: 22 - Invalid argument).\nINFO\nenp1s0f1np1\nPreparing to init...\n'



def test_no_verbs_in_a_pod_beside_an_active_rdma_port_stays_a_warning():
    """Break-it 25 F10: `ibstat` on the host shows a ConnectX-7 port Active at 400 Gb/s, and the pod's NCCL log cannot
    open libibverbs and runs NET/Socket between the nodes: the RDMA port is there, so TCP is a fault to mend (a
    warning), not what such machines have."""
    said = " ".join(messages(s, "warn") for s in explain(P09_POD))
    assert "several transports" in said


def test_a_loopback_head_given_with_nothing_told_is_a_one_machine_note_with_no_join_line():
    """Break-it 25 N2: `ray start --head --node-ip-address=127.0.0.1`, no flags: the user's one-machine runtime (a
    note), and the join line at 127.0.0.1 is not offered to other nodes."""
    s = next(x for x in explain(P13_HEAD) if x.kind == "ray-start")
    assert "warn" not in levels(s) and "other nodes join with" not in messages(s)
    assert "as --node-ip-address gives it: a Ray runtime for this one machine" in messages(s, "info")


P09_POD = "$ ibstat mlx5_0   # on the host, node-0\nCA 'mlx5_0'\n\tCA type: MT4129\n\tNumber of ports: 1\n\tFirmware version: 28.39.1002\n\tHardware version: 0\n\tNode GUID: 0xa088c20300e8d3f4\n\tSystem image GUID: 0xa088c20300e8d3f4\n\tPort 1:\n\t\tState: Active\n\t\tPhysical state: LinkUp\n\t\tRate: 400\n\t\tBase lid: 17\n\t\tLMC: 0\n\t\tSM lid: 1\n\t\tCapability mask: 0xa651e848\n\t\tPort GUID: 0xa088c20300e8d3f4\n\t\tLink layer: InfiniBand\n\n$ kubectl logs pytorchjob-llama-master-0 | grep NCCL\npytorchjob-llama-master-0:98:98 [0] NCCL INFO Bootstrap : Using eth0:10.244.3.17<0>\npytorchjob-llama-master-0:98:98 [0] NCCL INFO NET/Plugin: No plugin found (libnccl-net.so)\npytorchjob-llama-master-0:98:98 [0] NCCL INFO NET/Plugin: Plugin load returned 2 : libnccl-net.so: cannot open shared object file: No such file or directory : when loading libnccl-net.so\npytorchjob-llama-master-0:98:98 [0] NCCL INFO NET/Plugin: Using internal network plugin.\npytorchjob-llama-master-0:98:98 [0] NCCL INFO cudaDriverVersion 12040\nNCCL version 2.21.5+cuda12.4\npytorchjob-llama-master-0:98:311 [0] NCCL INFO Failed to open libibverbs.so[.1]\npytorchjob-llama-master-0:98:311 [0] NCCL INFO NET/Socket : Using [0]eth0:10.244.3.17<0>\npytorchjob-llama-master-0:98:311 [0] NCCL INFO Using non-device net plugin version 0\npytorchjob-llama-master-0:98:311 [0] NCCL INFO Using network Socket\npytorchjob-llama-master-0:98:311 [0] NCCL INFO comm 0x5581e2a0c6f0 rank 0 nranks 16 cudaDev 0 nvmlDev 0 busId 18000 commId 0x7d1c5e3b9a0f2468 - Init START\npytorchjob-llama-master-0:98:311 [0] NCCL INFO Setting affinity for GPU 0 to ffffffff,00000000,ffffffff\npytorchjob-llama-master-0:98:311 [0] NCCL INFO comm 0x5581e2a0c6f0 rank 0 nRanks 16 nNodes 2 localRanks 8 localRank 0 MNNVL 0\npytorchjob-llama-master-0:98:311 [0] NCCL INFO Channel 00/04 :    0   7   6   5   4   3   2   1   8  15  14  13  12  11  10   9\npytorchjob-llama-master-0:98:311 [0] NCCL INFO Trees [0] 1/8/-1->0->-1 [1] 1/-1/-1->0->8 [2] 1/8/-1->0->-1 [3] 1/-1/-1->0->8\npytorchjob-llama-master-0:98:311 [0] NCCL INFO P2P Chunksize set to 131072\npytorchjob-llama-master-0:98:311 [0] NCCL INFO Channel 00/0 : 9[1] -> 0[0] [receive] via NET/Socket/0\npytorchjob-llama-master-0:98:311 [0] NCCL INFO Channel 02/0 : 9[1] -> 0[0] [receive] via NET/Socket/0\npytorchjob-llama-master-0:98:311 [0] NCCL INFO Channel 00/0 : 0[0] -> 7[7] via P2P/CUMEM/read\npytorchjob-llama-master-0:98:311 [0] NCCL INFO Channel 01/0 : 0[0] -> 7[7] via P2P/CUMEM/read\npytorchjob-llama-master-0:98:311 [0] NCCL INFO Connected all rings\npytorchjob-llama-master-0:98:311 [0] NCCL INFO Channel 01/0 : 8[0] -> 0[0] [receive] via NET/Socket/0\npytorchjob-llama-master-0:98:311 [0] NCCL INFO Channel 00/0 : 0[0] -> 8[0] [send] via NET/Socket/0\npytorchjob-llama-master-0:98:311 [0] NCCL INFO Connected all trees\npytorchjob-llama-master-0:98:311 [0] NCCL INFO comm 0x5581e2a0c6f0 rank 0 nranks 16 cudaDev 0 nvmlDev 0 busId 18000 commId 0x7d1c5e3b9a0f2468 - Init COMPLETE\n"
P13_HEAD = "$ ray start --head --node-ip-address=127.0.0.1 --port=6379 --num-gpus=2\nUsage stats collection is enabled. To disable this, add `--disable-usage-stats` to the command that starts the cluster, or run the following command: `ray disable-usage-stats` before starting the cluster. See https://docs.ray.io/en/master/cluster/usage-stats.html for more details.\n\nLocal node IP: 127.0.0.1\n\n--------------------\nRay runtime started.\n--------------------\n\nNext steps\n  To add another node to this Ray cluster, run\n    ray start --address='127.0.0.1:6379'\n\n  To connect to this Ray cluster:\n    import ray\n    ray.init(_node_ip_address='127.0.0.1')\n\n  To submit a Ray job using the Ray Jobs CLI:\n    RAY_ADDRESS='http://127.0.0.1:8265' ray job submit --working-dir . -- python my_script.py\n\n  See https://docs.ray.io/en/latest/cluster/running-applications/job-submission/index.html\n  for more information on submitting Ray jobs to the Ray cluster.\n\n  To terminate the Ray runtime, run\n    ray stop\n\n  To view the Ray dashboard in your browser, visit\n    127.0.0.1:8265\n"


def test_a_gpud_component_unhealthy_then_healthy_is_a_past_fault():
    """Break-it 25 F11 (after leptonai/gpud PR #1151): the fabric manager's component Unhealthy at 04:46, then Healthy
    at 04:49 after a restart: a note of the mended fault, no fail; alone, the Unhealthy state still fails."""
    from tests.test_field_faults import GPUD_RECOVERED
    said = [(f.level, f.message) for s in explain(GPUD_RECOVERED) for f in s.findings]
    assert not [m for level, m in said if level == "fail"] and any("a later state of the same component" in m for _, m in said)
    first = GPUD_RECOVERED.split("After restart")[0]
    assert any(f.level == "fail" and "reports Unhealthy" in f.message for s in explain(first) for f in s.findings)



def test_kv_usage_swinging_near_full_is_not_a_rise():
    """Break-it 25 F7 (a variation of vLLM's engine stats lines, corpus b025's shape): usage going back and forth
    between 88 and 93% for 150 s with none waiting: not "rising, full in about N s" (no warning); the last line is no
    higher than the run's earlier high."""
    said = " ".join(messages(s, "warn") for s in explain(P07_SWING))
    assert "full in about" not in said


P07_SWING = '(APIServer pid=1) INFO:     Application startup complete.\n(APIServer pid=1) INFO 12-05 14:20:00 [loggers.py:123] Engine 000: Avg prompt throughput: 1800.0 tokens/s, Avg generation throughput: 2210.0 tokens/s, Running: 50 reqs, Waiting: 0 reqs, GPU KV cache usage: 89.8%, Prefix cache hit rate: 12.4%\n(APIServer pid=1) INFO 12-05 14:20:10 [loggers.py:123] Engine 000: Avg prompt throughput: 1837.0 tokens/s, Avg generation throughput: 2223.0 tokens/s, Running: 51 reqs, Waiting: 0 reqs, GPU KV cache usage: 91.2%, Prefix cache hit rate: 12.4%\n(APIServer pid=1) INFO 12-05 14:20:20 [loggers.py:123] Engine 000: Avg prompt throughput: 1874.0 tokens/s, Avg generation throughput: 2236.0 tokens/s, Running: 52 reqs, Waiting: 0 reqs, GPU KV cache usage: 92.6%, Prefix cache hit rate: 12.4%\n(APIServer pid=1) INFO 12-05 14:20:30 [loggers.py:123] Engine 000: Avg prompt throughput: 1911.0 tokens/s, Avg generation throughput: 2249.0 tokens/s, Running: 49 reqs, Waiting: 0 reqs, GPU KV cache usage: 90.1%, Prefix cache hit rate: 12.4%\n(APIServer pid=1) INFO 12-05 14:20:40 [loggers.py:123] Engine 000: Avg prompt throughput: 1948.0 tokens/s, Avg generation throughput: 2262.0 tokens/s, Running: 48 reqs, Waiting: 0 reqs, GPU KV cache usage: 88.7%, Prefix cache hit rate: 12.4%\n(APIServer pid=1) INFO 12-05 14:20:50 [loggers.py:123] Engine 000: Avg prompt throughput: 1800.0 tokens/s, Avg generation throughput: 2275.0 tokens/s, Running: 50 reqs, Waiting: 0 reqs, GPU KV cache usage: 90.3%, Prefix cache hit rate: 12.4%\n(APIServer pid=1) INFO 12-05 14:21:00 [loggers.py:123] Engine 000: Avg prompt throughput: 1837.0 tokens/s, Avg generation throughput: 2288.0 tokens/s, Running: 51 reqs, Waiting: 0 reqs, GPU KV cache usage: 92.0%, Prefix cache hit rate: 12.4%\n(APIServer pid=1) INFO 12-05 14:21:10 [loggers.py:123] Engine 000: Avg prompt throughput: 1874.0 tokens/s, Avg generation throughput: 2210.0 tokens/s, Running: 52 reqs, Waiting: 0 reqs, GPU KV cache usage: 93.0%, Prefix cache hit rate: 12.4%\n(APIServer pid=1) INFO 12-05 14:21:20 [loggers.py:123] Engine 000: Avg prompt throughput: 1911.0 tokens/s, Avg generation throughput: 2223.0 tokens/s, Running: 50 reqs, Waiting: 0 reqs, GPU KV cache usage: 90.8%, Prefix cache hit rate: 12.4%\n(APIServer pid=1) INFO 12-05 14:21:30 [loggers.py:123] Engine 000: Avg prompt throughput: 1948.0 tokens/s, Avg generation throughput: 2236.0 tokens/s, Running: 48 reqs, Waiting: 0 reqs, GPU KV cache usage: 89.1%, Prefix cache hit rate: 12.4%\n(APIServer pid=1) INFO 12-05 14:21:40 [loggers.py:123] Engine 000: Avg prompt throughput: 1800.0 tokens/s, Avg generation throughput: 2249.0 tokens/s, Running: 48 reqs, Waiting: 0 reqs, GPU KV cache usage: 88.6%, Prefix cache hit rate: 12.4%\n(APIServer pid=1) INFO 12-05 14:21:50 [loggers.py:123] Engine 000: Avg prompt throughput: 1837.0 tokens/s, Avg generation throughput: 2262.0 tokens/s, Running: 49 reqs, Waiting: 0 reqs, GPU KV cache usage: 90.2%, Prefix cache hit rate: 12.4%\n(APIServer pid=1) INFO 12-05 14:22:00 [loggers.py:123] Engine 000: Avg prompt throughput: 1874.0 tokens/s, Avg generation throughput: 2275.0 tokens/s, Running: 50 reqs, Waiting: 0 reqs, GPU KV cache usage: 91.0%, Prefix cache hit rate: 12.4%\n(APIServer pid=1) INFO 12-05 14:22:10 [loggers.py:123] Engine 000: Avg prompt throughput: 1911.0 tokens/s, Avg generation throughput: 2288.0 tokens/s, Running: 51 reqs, Waiting: 0 reqs, GPU KV cache usage: 91.9%, Prefix cache hit rate: 12.4%\n(APIServer pid=1) INFO 12-05 14:22:20 [loggers.py:123] Engine 000: Avg prompt throughput: 1948.0 tokens/s, Avg generation throughput: 2210.0 tokens/s, Running: 51 reqs, Waiting: 0 reqs, GPU KV cache usage: 92.4%, Prefix cache hit rate: 12.4%\n(APIServer pid=1) INFO 12-05 14:22:30 [loggers.py:123] Engine 000: Avg prompt throughput: 1800.0 tokens/s, Avg generation throughput: 2223.0 tokens/s, Running: 52 reqs, Waiting: 0 reqs, GPU KV cache usage: 93.1%, Prefix cache hit rate: 12.4%\n'
