"""Readings the field corpus's `f` class (gathered 2026-12-05, tests/fixtures/field/corpus/f*) found explain getting
wrong, each on the output as its thread printed it (URL above each) or a minimal form of it.

- an old vLLM's `# GPU blocks: N` with the engine's `max_seq_len`: N x 16 tokens against one request's length;
- V1's `EngineCore failed to start.` and a traceback cut before its exception;
- KV-cache ValueError lines pasted alone, wrapped by the poster;
- a one-line `Frag needed` ping with no PING header: no packet size is invented, no Spark advice for a host not said;
- a task's GPU demand larger than any one node's free GPUs (Ray places a task on one node);
- a prompt that is only the working directory (`/workspace# ray status`), with a library's notes before the banner.
"""

from __future__ import annotations

from grader.explain import explain
from grader.parsers.common import parse_prompt

V0 = ("INFO 01-11 15:51:02 llm_engine.py:70] Initializing an LLM engine with config: model='/m/alpaca-2', "
      "tokenizer='/m/alpaca-2', tokenizer_mode=auto, revision=None, trust_remote_code=False, dtype=torch.float16, "
      "max_seq_len=4096, download_dir=None, load_format=auto, tensor_parallel_size=1, quantization=None, seed=0)\n"
      "INFO 01-11 15:51:18 llm_engine.py:275] # GPU blocks: {blocks}, # CPU blocks: 512\n")


def _levels(section) -> list[str]:
    return [f.level for f in section.findings]


def test_old_vllm_blocks_against_the_max_seq_len():
    """https://github.com/vllm-project/vllm/issues/2418: 229 blocks x 16 tokens = 3,664 < max_seq_len 4,096: it warns
    alone and fails with the traceback that followed in the thread; https://github.com/netease-youdao/QAnything/issues/302:
    0 blocks is no KV cache at all (fail). 300 blocks (4,800 tokens) hold one request: ok."""
    [short] = explain(V0.format(blocks=229))
    [said] = [f for f in short.findings if "3,664" in f.message]
    assert said.level == "warn" and "4,096" in said.message and "--max-model-len to 3,664" in said.message
    [failed] = explain(V0.format(blocks=229) + "Traceback (most recent call last):\n")
    assert [f.level for f in failed.findings if "3,664" in f.message] == ["fail"]
    [zero] = explain(V0.format(blocks=0))
    assert any(f.level == "fail" and "No memory is left for the KV cache" in f.message for f in zero.findings)
    [fits] = explain(V0.format(blocks=300))
    assert "fail" not in _levels(fits) and "warn" not in _levels(fits)


def test_an_engine_core_that_failed_to_start_is_a_failure_not_a_slow_start():
    """https://github.com/vllm-project/vllm/issues/33685: the KV cache was sized, then `EngineCore failed to start.`
    and a traceback the paste cuts: a fail naming the traceback, and no "still starting"."""
    p = "(EngineCore_DP0 pid=563) "
    text = (f"{p}INFO 02-04 19:47:43 [kv_cache_utils.py:1307] GPU KV cache size: 692,656 tokens\n"
            f"{p}INFO 02-04 19:47:43 [kv_cache_utils.py:1312] Maximum concurrency for 262,144 tokens per request: 9.61x\n"
            f"{p}ERROR 02-04 19:47:43 [core.py:966] EngineCore failed to start.\n"
            f"{p}ERROR 02-04 19:47:43 [core.py:966] Traceback (most recent call last):\n")
    [s] = explain(text)
    fails = [f.message for f in s.findings if f.level == "fail"]
    assert len(fails) == 1 and "failed to start" in fails[0] and "traceback" in fails[0]
    assert not any("still starting" in f.message for f in s.findings)


def test_a_kv_cache_value_error_pasted_alone_and_wrapped():
    """https://github.com/kaito-project/kaito/issues/2132: the ValueError alone, wrapped over three lines."""
    [s] = explain("ValueError: To serve at least one request with the model's max seq len (1048576),\n"
                  "22.5 GiB KV cache is needed, which is larger than the available KV cache memory (17.39 GiB).\n"
                  "Based on the available memory, the estimated maximum model length is 810208.\n")
    assert s.kind == "vllm-log" and _levels(s) == ["fail"] and "810208" in s.findings[0].message


def test_a_frag_needed_line_alone_invents_no_packet_size():
    """https://www.fir3net.com/Networking/Protocols/notes-mtu-and-pmtu.html: one `Frag needed` line, no PING header and
    no command: the size is not known, and the host is not said, so it warns with both readings; on a Spark, fail."""
    line = "From 10.1.1.20 icmp_seq=1 Frag needed and DF set (mtu = 1500)\n"
    [s] = explain(line)
    assert _levels(s) == ["warn"] and "28-byte" not in s.findings[0].message and "`-s 1472`" in s.findings[0].message
    assert "both Sparks" not in s.findings[0].message
    [spark] = explain(line, host="spark")
    assert _levels(spark) == ["fail"] and "both Sparks" in spark.findings[0].message


def test_a_task_asking_for_more_gpus_than_one_node_has_can_never_run():
    """https://github.com/ray-project/ray/issues/50348: two nodes, 16 GPUs free, one task asks for 16: it waits for
    ever (a task runs on one node); a demand one node could hold stays a warning."""
    status = ("/workspace# ray status\n"
              "2025-02-08 14:36:33,147 - INFO - NumExpr defaulting to 16 threads.\n"
              "======== Autoscaler status: 2025-02-08 14:36:31.736729 ========\nNode status\n"
              "---------------------------------------------------------------\nActive:\n 1 node_9a8e4a65cdc3\n"
              " 1 node_9749a2bf68e5\nPending:\n (no pending nodes)\nRecent failures:\n (no failures)\n\nResources\n"
              "---------------------------------------------------------------\nUsage:\n 0.0/384.0 CPU\n 0.0/16.0 GPU\n\n"
              "Demands:\n {'GPU': {n}}: 1+ pending tasks/actors\n")
    sections = explain(status.replace("{n}", "16.0"))
    assert [s.kind for s in sections] == ["ray-status"] and sections[0].command == "ray status"
    [f] = [f for f in sections[0].findings if "Pending demand" in f.message]
    assert f.level == "fail" and "single node" in f.message and "16 GPUs are free across 2 nodes" in f.message
    [s] = explain(status.replace("{n}", "4.0"))
    assert [f.level for f in s.findings if "Pending demand" in f.message] == ["warn"]


def test_a_prompt_that_is_only_the_working_directory():
    assert parse_prompt("/workspace# ray status").command == "ray status"
    assert parse_prompt("~/src$ ip -br addr").command == "ip -br addr"
    assert parse_prompt("/usr/lib/foo# bar") is None  # not a program people type here: not taken for a prompt
    assert parse_prompt("/sys/class/net/x/device/current_link_width:4") is None


def test_an_output_not_read_but_holding_a_known_fault_is_not_compared_across_hosts():
    """From a break-it review: a host's `ip addr` that cannot be read but holds a known fault line (an Xid) gave its
    cross checks nothing to iterate, and explain failed as a grader bug; the fault is said instead."""
    [s] = explain("spark1:\n$ ip addr\n1: lo: <LOOPBACK,UP,LOWER_UP> mtu 65536 qdisc noqueue state UNKNOWN group "
                  "default qlen 1000\nlink/loopback 00:00:00:00:00:00 brd 00:00:00:00:00:00\n\n\n[Mon Jul 25 16:46:04 "
                  "2022] NVRM: Xid (PCI:0000:3b:00): 120, pid=1, name=x, GSP Error: Task 1 raised error code 0x5\n")
    assert s.error is None and s.findings[0].level == "fail" and "Xid 120" in s.findings[0].message


# --------------------------------------------------------------------------- class g (gathered 2026-12-05)

def test_a_link_slower_than_both_ends_advertise():
    """https://github.com/ublue-os/bazzite/issues/5094: a 2.5 GbE port and its partner both advertise 1000baseT/Full,
    and the link came up at 100 Mb/s: a cable pair or port (warn); with auto-negotiation off nothing is inferred."""
    text = ("Settings for eno1:\n\tAdvertised link modes:  10baseT/Full 100baseT/Full 1000baseT/Full 2500baseT/Full\n"
            "\tLink partner advertised link modes:  10baseT/Full 100baseT/Full 1000baseT/Full\n"
            "\tSpeed: 100Mb/s\n\tDuplex: Full\n\tAuto-negotiation: {an}\n\tLink detected: yes\n")
    [s] = explain(text.replace("{an}", "on"), host="other")
    [w] = [f.message for f in s.findings if f.level == "warn"]
    assert "100Mb/s, though both ends advertise 1000baseT/Full" in w and "pairs" in w
    [off] = explain(text.replace("{an}", "off"), host="other")
    assert "warn" not in _levels(off)


def test_a_pasted_netplan_file_cut_in_a_key_is_read_up_to_the_cut():
    """https://github.com/canonical/cloud-init/issues/3034: the paste stops at `enp94s` (a key cut short): the lines
    above are read and the cut is said; the probe's own read of a file (parse_netplan) still refuses it."""
    import pytest

    from grader.parsers import ParseError
    from grader.parsers.netplan import parse_netplan
    text = ("network:\n    version: 2\n    ethernets:\n        enp94s0f0:\n            addresses:\n"
            "                - 10.5.0.12/24\n            mtu: 9000\n        enp94s\n")
    [s] = explain("$ cat /etc/netplan/50-cloud-init.yaml\n" + text, host="other")
    assert s.kind == "netplan" and s.error is None and "cut off at its last line (`enp94s`)" in s.findings[0].message
    assert any("mtu 9000" in f.message for f in s.findings)
    with pytest.raises(ParseError):
        parse_netplan(text)


def test_a_load_test_of_one_output_token_per_request():
    """https://github.com/sgl-project/sglang/pull/9812: 768 tokens for 768 requests: TTFT is the whole request."""
    text = ("============ Serving Benchmark Result ============\nSuccessful requests:                     768\n"
            "Benchmark duration (s):                  60.00\nTotal input tokens:                      98304\n"
            "Total generated tokens:                  768\nRequest throughput (req/s):              12.80\n"
            "Output token throughput (tok/s):         12.80\n---------------Time to First Token----------------\n"
            "Mean TTFT (ms):                          900.00\nMedian TTFT (ms):                        850.00\n"
            "P99 TTFT (ms):                           2000.00\n")
    [s] = explain(text)
    assert any("one or two output tokens each" in f.message for f in s.findings), [f.message for f in s.findings]


def test_ctrl_c_in_ping_output_and_short_prompts():
    """https://github.com/lxc/incus/issues/2405: `^C` where the person stopped ping; prompts without a working
    directory (`root@node2$`), `~ $`, and zsh's with a conda env before it; kubectl's `k` alias."""
    [s] = explain("$ ping 1.1.1.1 -M do -s 1412\nPING 1.1.1.1 (1.1.1.1) 1412(1440) bytes of data.\n"
                  "1420 bytes from 1.1.1.1: icmp_seq=1 ttl=59 time=15.5 ms\n^C\n--- 1.1.1.1 ping statistics ---\n"
                  "1 packets transmitted, 1 received, 0% packet loss, time 0ms\n")
    assert s.kind == "ping" and s.error is None and _levels(s) == ["ok"]
    assert parse_prompt("root@node2$ lspci | grep Mellanox").command == "lspci | grep Mellanox"
    assert parse_prompt("~ $ ip a").command == "ip a"
    assert parse_prompt("(base) user@host Downloads % k get pods -n ray").command == "k get pods -n ray"
    [pods] = explain("(base) user@host Downloads % k get pods -n ray\nNAME              READY   STATUS    RESTARTS   AGE\n"
                     "raycluster-head   0/1     Running   0          5m\n")
    assert pods.kind == "kubectl-pods"


def test_nccl_tests_under_srun_labels_with_busbw_collapsing_and_the_last_row_cut():
    """https://github.com/ROCm/rccl/issues/1490: `srun --label` puts ` 0: ` before every line; 32 GPUs (4 nodes x 8
    tasks) is no Spark pair; the last row is cut before its `#wrong` value, and its busbw (0.03 GB/s at 2 MiB) fell
    from 1.20 / 1.26 GB/s at 256 KiB: a warning on any host."""
    rows = [(65536, 512, 0.59, 0.60), (131072, 1024, 0.60, 0.63), (262144, 2048, 1.20, 1.26),
            (524288, 4096, 0.73, 0.75), (1048576, 8192, 0.70, 0.78)]
    text = ("$ srun --nodes=4 --ntasks-per-node=8 --label -- all_gather_perf -b 64K -e 4G -f 2 -g 1\n"
            " 0: #       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw"
            "   busbw #wrong\n"
            + "".join(f" 0: {s:>12} {c:>13}     float    none      -1    100.0    0.61  {a:>6}      0    100.0    0.62"
                      f"  {b:>6}      0\n" for s, c, a, b in rows)
            + " 0:      2097152         16384     float    none      -1    70248    0.03    0.03      0    73593    0.03"
              "    0.03\n")
    [s] = explain(text)
    assert s.kind == "nccl-tests" and s.facts["rows"][-1]["size_bytes"] == 2097152
    said = [(f.level, f.message) for f in s.findings]
    assert ("warn", next(m for lv, m in said if m.startswith("busbw falls"))) in said
    # the best row by the mean of both columns, (1.20+1.26)/2 = 1.23, said as printed
    assert any("falls from 1.2 / 1.26 GB/s at 262,144 B to 0.03 / 0.03 GB/s at 2,097,152 B" in m for _, m in said)
    assert not any("Spark" in m and lv == "fail" for lv, m in said)
