"""Session 38, helper l (issue 27): confident-wrong readings a break-it reviewer found in the s38f-i rules, each on the
reviewer's probe (quoted) and the real output the rule was built for, which still reads as before."""

from __future__ import annotations

from pathlib import Path

from grader.explain import explain
from tests.conftest import levels, messages

PENDING = Path(__file__).parent / "fixtures" / "field" / "pending"
CORPUS = Path(__file__).parent / "fixtures" / "field" / "corpus"

NCCL_START = ("node1:1234:1234 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>\n"
              "NCCL version 2.21.5+cuda12.4\n"
              "node1:1234:1290 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE [RO]; OOB eth0:10.0.0.1<0>\n"
              "node1:1234:1290 [0] NCCL INFO Using network IB\n")


def _kind(text: str, kind: str, **kw):
    return [x for x in explain(text, **kw) if x.kind == kind]


def test_a_figure_of_speech_or_another_programs_hang_is_not_the_run_hanging():
    """https://github.com/vllm-project/vllm/issues/5484 (xp008) is what `told_hang` reads; the sender being stuck on
    a problem, or a download that hangs, says nothing of the NCCL run: the cut excerpt's info note suffices."""
    for said in ("I've been stuck on this for two days, here is the start of the NCCL log from node 1:\n",
                 "The model download hangs sometimes, but that's a separate thing. NCCL part, first lines:\n"):
        [s] = _kind(said + NCCL_START, "nccl-log", host="other")
        assert "fail" not in levels(s) and "says the run hangs" not in messages(s)
        assert "the excerpt ends while NCCL was still setting its communicator up" in messages(s, "info")
    [s] = _kind("The job hangs after this:\n" + NCCL_START, "nccl-log", host="other")
    assert "fail" in levels(s) and "The paste says the run hangs" in messages(s, "fail")


RAY_WAIT = ("$ ray start --address=192.168.1.10:6379\nLocal node IP: 192.168.1.11\n"
            "[2024-05-02 10:01:13,346 W 4242 4242] global_state_accessor.cc:449: Some processes that the driver needs "
            "to connect to have not registered with GCS, so retrying. Have you run 'ray start' on this node?\n")
RAY_UP = "\n--------------------\nRay runtime started.\n--------------------\n\nTo terminate the Ray runtime, run\n  ray stop\n"


def test_ray_registration_wait_that_cleared_is_info_and_a_later_commands_traceback_is_not_its_end():
    """Ray's global_state_accessor.cc retries while the raylet registers; `Ray runtime started.` in the same output
    means it came up, and a traceback under the next prompt belongs to another command (the kuberay#1563 shape, the
    line then a traceback, still fails)."""
    later = "$ python3 -c \"import torch\"\nTraceback (most recent call last):\n  File \"<string>\", line 1\n" \
            "ModuleNotFoundError: No module named 'torch'\n"
    for text in (RAY_WAIT + RAY_UP, RAY_WAIT + RAY_UP + later):
        [s] = _kind(text, "ray-start", host="other")
        assert "fail" not in levels(s) and "gave up" not in messages(s)
        assert "the wait cleared by itself" in messages(s, "info")
        assert "Ray is waiting for this node's own processes" not in messages(s)
    [s] = _kind(RAY_WAIT + "$ echo next\nnext\n", "ray-start", host="other")
    assert "Ray is waiting for this node's own processes" in messages(s, "warn")
    wh021 = next(PENDING.glob("wh021_*.txt")).read_text()  # kuberay#1563: the traceback in a block of its own below
    assert "and gave up" in " ".join(messages(x, "fail") for x in explain(wh021, host="other", nodes=2))


def _batch(text: str):
    return " ".join(messages(x) for x in explain(text, host="spark", nodes=2) if x.kind == "known-error")


def test_a_batch_share_near_half_is_no_queue_when_lengths_vary_or_the_requests_went_one_at_a_time():
    """checks/specs/serving.toml [batch]: the share reads a queue only for requests of one length sent at once;
    requests of different lengths run together also average about half the batch, and requests sent one at a time
    are queued by design. Pending wg010 (elizabetht/spark 03_Replicated_Serving, 100-token requests) still warns."""
    rows = "  Requests:        8/8 successful\n  Total time:      12.00 s\n  Avg latency:     6500.0 ms\n"
    assert "did not run together" in _batch("Sending 8 requests at once\n" + rows)
    assert "did not run together" not in _batch("Sending 8 requests at once (max_tokens varies 64..1024)\n" + rows)
    assert "did not run together" not in _batch(
        "Running 8 requests sequentially (one at a time, concurrency=1) to measure single-stream latency...\n" + rows)
    wg010 = next(PENDING.glob("wg010_*.txt")).read_text()
    assert "All 8 of 8 requests sent at once succeeded, but they did not run together" in _batch(wg010)


def test_each_batch_run_is_read_on_its_own_and_a_partial_batch_is_not_all():
    """Two runs in one paste (direct, then through a proxy): the second's queue is found and named, the first's
    numbers do not hide it; 7/8 successful is `7 of 8`, not `All 7 of 8`. Pending wg021 (one run, its comparison
    table below) still reads 0.85x."""
    run = ("  Requests:        {ok}/8 successful\n  Total time:      {t} s\n  Avg latency:     {a} ms\n")
    two = ("=== Run A: direct to one server ===\n" + run.format(ok=8, t="7.69", a="7690.0")
           + "=== Run B: through the proxy ===\n" + run.format(ok=8, t="30.20", a="18600.0"))
    said = _batch(two)
    assert "In `Run B: through the proxy`: All 8 of 8 requests sent at once succeeded, but they did not" in said
    said = _batch("Sending 8 requests at once...\n" + run.format(ok=7, t="30.20", a="18600.0"))
    assert "7 of 8 requests" in said and "All 7 of 8" not in said
    wg021 = next(PENDING.glob("wg021_*.txt")).read_text()
    assert "ran together" in _batch(wg021) and "0.85x" in _batch(wg021)


def test_a_negated_or_unrelated_thunderbolt_mention_keeps_the_narrow_slot_warn():
    """Pending wg018 (https://github.com/noonghunna/club-3090/issues/347: an RTX A5000 at x4 of x16, Gen3): a paste
    that says the card is in an eGPU enclosure makes x4 expected; `no Thunderbolt, no eGPU` or a USB4 port with a
    keyboard dock on it does not."""
    wg018 = next(PENDING.glob("wg018_*.txt")).read_text()
    for said in ("Both cards sit in the board's PCIe slots (no Thunderbolt, no eGPU: the A5000 is in the chipset x4 "
                 "slot):\n", "Both cards are in the motherboard slots. The USB4 port has only a keyboard dock on it.\n"):
        [s] = explain(said + wg018, host="other", nodes=1)
        assert "slot (or its riser, or a chipset slot) is narrower than the card" in messages(s, "warn")
        assert "behind a Thunderbolt eGPU enclosure" not in messages(s)
    [s] = explain("My TB3 eGPU enclosure:\n" + wg018, host="other", nodes=1)
    assert "behind a Thunderbolt eGPU enclosure" in messages(s, "info") and "warn" not in levels(s)


IBSTAT_IB = ("$ ibstat mlx5_0\nCA 'mlx5_0'\n\tCA type: MT4123\n\tNumber of ports: 1\n\tFirmware version: 20.31.1014\n"
             "\tPort 1:\n\t\tState: Active\n\t\tPhysical state: LinkUp\n\t\tRate: 200\n\t\tBase lid: 12\n"
             "\t\tLink layer: InfiniBand\n")


def test_ib_roce_v1_on_an_infiniband_port_or_an_mlx4_device_is_no_setting_to_mend():
    """The kernel's cma_configfs prints IB_GID_TYPE_IB and RoCE v1 as one name (`IB/RoCE v1`) and makes RoCE v2 the
    default wherever the device supports it (cma.c, CMA_PREFERRED_ROCE_GID_TYPE): on an InfiniBand port, or an mlx4
    (ConnectX-3) device, v1 is the device's own default. On an mlx5 RoCE port (the s38i case) it stays a warning."""
    mode = "$ cat /sys/kernel/config/rdma_cm/mlx5_0/ports/1/default_roce_mode\nIB/RoCE v1\n"
    [s] = _kind(IBSTAT_IB + mode, "roce-mode", host="other")
    assert "warn" not in levels(s) and "IB GID type" in messages(s, "info")
    [s] = _kind("$ cma_roce_mode -d mlx4_0 -p 1\nIB/RoCE v1\n", "roce-mode", host="other")
    assert "warn" not in levels(s) and "ConnectX-3" in messages(s, "info")
    [s] = _kind(IBSTAT_IB.replace("InfiniBand", "Ethernet") + mode, "roce-mode", host="other")
    assert "RoCE v1: connections set up through RDMA CM" in messages(s, "warn")


def test_a_caption_that_says_one_error_is_gone_keeps_the_new_error_it_names():
    """A caption that says the quoted OOM is gone but the run now dies with an illegal memory access: the gone clause
    is left out (the s38f rule: test_a_caption_saying_the_quoted_error_is_gone_is_no_error_report), the new error is
    read, and the vLLM log's OOM is not (vLLM's CUDA errors: `CUDA error: an illegal memory access was encountered`)."""
    text = ("$ vllm serve /models/llama --gpu-memory-utilization 0.8\n"
            "INFO 04-01 10:00:00 [api_server.py:1090] vLLM API server version 0.8.4\n"
            "INFO 04-01 10:01:00 [api_server.py:1090] Starting vLLM API server on http://0.0.0.0:8000\n"
            'The "CUDA error: out of memory" is gone after lowering --gpu-memory-utilization, but now it dies with '
            '"RuntimeError: CUDA error: an illegal memory access was encountered" at the first request.\n')
    said = " ".join(messages(x, "fail") for x in explain(text, host="other"))
    assert "illegal memory access" in said and "ran out of memory" not in said
    gone = ('After setting NCCL_IB_HCA the earlier "CUDA error: an illegal memory access was encountered" is gone; '
            "full log below\n" + text.rsplit("\n", 2)[0] + "\n")
    assert "fail" not in {lv for x in explain(gone, host="other") for lv in levels(x)}


NM_HOUSE = ("$ nmcli connection show \"Wired connection 1\"\nconnection.id:                          Wired connection 1\n"
            "connection.type:                        802-3-ethernet\nconnection.interface-name:              enP7s7\n"
            "connection.autoconnect:                 yes\nipv4.method:                            auto\n"
            "ipv6.method:                            auto\nipv6.may-fail:                          no\n"
            "GENERAL.STATE:                          activated\nIP4.ADDRESS[1]:                         192.168.1.50/24\n"
            "IP6.ADDRESS[1]:                         2a02:8071:1234:5600::50/128\n")


def test_a_spark_house_port_that_came_up_with_ipv6_is_not_warned_for_may_fail_nor_told_of_a_direct_cable():
    """NetworkManager's nm-settings(5): ipv6.may-fail no waits for an IPv6 address; the Spark's RJ45 port (enP7s7) has
    a router, and this profile came up with a global address: nothing to say of it. On a QSFP twin the warn stays."""
    [s] = _kind(NM_HOUSE, "nmcli-show", host="spark")
    assert "warn" not in levels(s) and "may-fail" not in messages(s) and "direct cable" not in messages(s)
    twin = NM_HOUSE.replace("enP7s7", "enp1s0f0np0").replace("activated", "activating").split("IP4.ADDRESS")[0]
    [s] = _kind(twin, "nmcli-show", host="spark")
    assert "`ipv6.may-fail no`" in messages(s, "warn")


def test_docker0s_profile_not_autoconnecting_is_expected():
    """NetworkManager shows interfaces made by others (Docker's docker0 bridge) as external profiles
    (GENERAL.IS-EXTERNAL yes) with autoconnect no: Docker brings it up. A port's own profile with autoconnect no warns
    (tests/test_explain_nmcli.py)."""
    text = ("$ nmcli connection show docker0\nconnection.id:                          docker0\n"
            "connection.type:                        bridge\nconnection.interface-name:              docker0\n"
            "connection.autoconnect:                 no\nipv4.method:                            manual\n"
            "ipv4.addresses:                         172.17.0.1/16\nGENERAL.STATE:                          activated\n"
            "GENERAL.IS-EXTERNAL:                    yes\n")
    [s] = _kind(text, "nmcli-show", host="spark")
    assert "warn" not in levels(s) and "another program made" in messages(s, "info")


PING_OK = ("$ ping -c 3 192.168.100.2\nPING 192.168.100.2 (192.168.100.2) 56(84) bytes of data.\n"
           "64 bytes from 192.168.100.2: icmp_seq=1 ttl=64 time=0.312 ms\n"
           "64 bytes from 192.168.100.2: icmp_seq=2 ttl=64 time=0.281 ms\n"
           "64 bytes from 192.168.100.2: icmp_seq=3 ttl=64 time=0.290 ms\n\n--- 192.168.100.2 ping statistics ---\n"
           "3 packets transmitted, 3 received, 0% packet loss, time 2003ms\n"
           "rtt min/avg/max/mdev = 0.281/0.294/0.312/0.013 ms\n")
IP_B = "$ ip -br addr show enp1s0f0np0\nenp1s0f0np0      UP             192.168.100.2/24 fe80::4ebb:47ff:fe2e:2201/64\n"


def test_an_address_shown_on_another_machine_is_not_the_pinging_hosts_own():
    """Linux answers its own addresses through lo (ip-sysctl.txt); but where the paste's comments or `host$` prompts
    put the `ip addr` and the ping on two machines (or cannot tell), the address is the peer's, not this host's own.
    The same two outputs with no machine named stay read as one host's (the s38g rule)."""
    for text in ("# on the second Spark:\n" + IP_B + "# on the first Spark:\n" + PING_OK,
                 "spark-b$ " + IP_B[2:] + "spark-a$ " + PING_OK[2:],
                 "nvidia@spark-b:~$ " + IP_B[2:] + PING_OK):
        [s] = _kind(text, "ping", host="spark", nodes=2)
        assert "this host's own addresses" not in messages(s) and "reachable over IP" in messages(s, "ok"), text
    [s] = _kind(IP_B + PING_OK, "ping", host="spark", nodes=2)
    assert "one of this host's own addresses" in messages(s, "info")


def test_a_local_mtu_refusal_does_not_read_another_machines_interface():
    """ping's `local error: message too long, mtu=1500` is the pinging host's route; an `ip link` of MTU 9000 shown
    under `# second Spark` is the peer's: the hedge (which of the two the paste does not show), not `the interface
    shown is larger`."""
    link = ("$ ip link show enp1s0f0np0\n3: enp1s0f0np0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 9000 qdisc mq state UP "
            "mode DEFAULT group default qlen 1000\n    link/ether 4c:bb:47:2e:22:01 brd ff:ff:ff:ff:ff:ff\n")
    ping = ("$ ping -M do -s 8972 -c 2 192.168.100.2\nPING 192.168.100.2 (192.168.100.2) 8972(9000) bytes of data.\n"
            "ping: local error: message too long, mtu=1500\nping: local error: message too long, mtu=1500\n\n"
            "--- 192.168.100.2 ping statistics ---\n2 packets transmitted, 0 received, +2 errors, 100% packet loss, "
            "time 1012ms\n")
    [s] = _kind("# second Spark\n" + link + "# first Spark\n" + ping, "ping", host="spark", nodes=2)
    assert "yet the interface shown" not in messages(s) and "`ip link` shows the interface's MTU" in messages(s)
    [s] = _kind(link + ping, "ping", host="spark", nodes=2)
    assert "yet the interface shown (enp1s0f0np0 MTU 9000) is larger" in messages(s)


LLAMA_FULL = ("ggml_cuda_init: found 2 CUDA devices:\n"
              "  Device 0: NVIDIA GeForce RTX 3090 Ti, compute capability 8.6, VMM: yes\n"
              "  Device 1: NVIDIA GeForce GTX 1070, compute capability 6.1, VMM: yes\n"
              "llm_load_tensors: offloaded 81/81 layers to GPU\n"
              "llm_load_tensors:        CPU buffer size =   430.55 MiB\n"
              "llm_load_tensors:      CUDA0 buffer size = 21517.75 MiB\n"
              "llm_load_tensors:      CUDA1 buffer size =  7524.23 MiB\n")
LLAMA_RAN = ("llama_kv_cache_init:      CUDA0 KV buffer size =   488.00 MiB\n"
             "llama_kv_cache_init:      CUDA1 KV buffer size =   152.00 MiB\n"
             "llama_new_context_with_model:      CUDA0 compute buffer size =   400.01 MiB\n"
             "llama_new_context_with_model:      CUDA1 compute buffer size =   400.02 MiB\n"
             "llama_print_timings:        load time =   14231.10 ms\n"
             "llama_print_timings:        eval time =    9817.55 ms /   127 runs   (   77.30 ms per token,    12.94 "
             "tokens per second)\n")


def test_weights_nearly_filling_a_card_that_then_ran_are_an_info():
    """llama.cpp allocates the KV cache and compute buffers after the weights (llama_kv_cache_init, then the context's
    compute buffers): where they were allocated and tokens generated, a card nearly full of weights fits at this
    context (info); the load log alone (the s38h case) stays a warn."""
    [s] = explain(LLAMA_FULL + LLAMA_RAN, host="other", nodes=1)
    assert "warn" not in levels(s) and "yet its KV cache and compute buffers were allocated" in messages(s, "info")
    [s] = explain(LLAMA_FULL, host="other", nodes=1)
    assert "holds 21.0 GiB of weights: nearly full" in messages(s, "warn")


def test_llama_buffer_sizes_with_decimal_commas_and_a_loopback_rpc_server():
    """llama.cpp prints sizes with printf %.2f, so a locale's decimal comma (`4437,80 MiB`) is the same figure; an
    rpc-server at 127.0.0.1 (`--rpc 127.0.0.1:50052`, llama.cpp's tools/rpc README) is on this machine, no network."""
    log = ("$ ./llama-cli -m model.gguf -ngl 99 --rpc {rpc} -p hi -n 64\n"
           "ggml_cuda_init: found 1 CUDA devices:\n  Device 0: NVIDIA GeForce RTX 4090, compute capability 8.9, VMM: yes\n"
           "llm_load_tensors: offloaded 33/33 layers to GPU\nllm_load_tensors:      CUDA0 buffer size =  4437,80 MiB\n"
           "llama_print_timings:        load time =    1523,12 ms\n")
    [s] = explain(log.format(rpc="127.0.0.1:50052"), host="other", nodes=1)
    assert "weights CUDA0 4.3 GiB" in messages(s, "ok")
    assert "a loopback address" in messages(s, "info") and "over the network" not in messages(s)
    [s] = explain(log.format(rpc="192.168.1.20:50052"), host="other", nodes=1)
    assert "over the network at load" in messages(s, "info")


def _all(text: str, **kw) -> list[tuple[str, str]]:
    return [(f.level, f.message) for x in explain(text, **kw) for f in x.findings]


def test_a_back_off_whose_pod_now_runs_an_api_mismatch_before_a_reboot_and_a_timeout_kill_are_not_failures():
    """kubectl get pod's `1/1 Running 4 (11m ago)` after kubelet's BackOff (it restarted, runs now: a warn); NVRM's
    API mismatch logged before a reboot, with nvidia-smi after it on one version (resolved: info); bash's `Killed`
    under `timeout -s KILL` (coreutils timeout(1): on purpose, info). Each without the later evidence stays a fail
    (kuberay#3897, nvidia-docker#182, llama.cpp#5156)."""
    backoff = ("$ kubectl describe pod vllm-head-0 | tail -3\n  Warning  BackOff  12m (x4 over 14m)   kubelet  Back-off "
               "restarting failed container vllm in pod vllm-head-0_default(3f1c2a9e-1b2c-4d5e-8f90-123456789abc)\n")
    running = "$ kubectl get pod vllm-head-0\nNAME          READY   STATUS    RESTARTS      AGE\n" \
              "vllm-head-0   1/1     Running   4 (11m ago)   15m\n"
    said = _all(backoff + running, host="other")
    assert "fail" not in [lv for lv, _ in said] and any(lv == "warn" and "Running and ready now" in m for lv, m in said)
    assert any(lv == "fail" and "keeps restarting" in m for lv, m in _all(backoff, host="other"))
    dmesg = ("$ sudo dmesg | grep NVRM      # before the reboot\n[ 8812.331204] NVRM: API mismatch: the client has the "
             "version 550.120, but\n               NVRM: this kernel module has the version 550.107.02.  Please\n")
    smi = "$ sudo reboot\n$ nvidia-smi --query-gpu=name,driver_version --format=csv\nname, driver_version\n" \
          "NVIDIA GeForce RTX 4090, 550.120\n"
    said = _all(dmesg + smi, host="other")
    assert "fail" not in [lv for lv, _ in said] and any("so they match now; resolved" in m for _, m in said)
    assert any(lv == "fail" and "API mismatch" in m for lv, m in _all(dmesg.replace("# before the reboot", ""),
                                                                        host="other"))
    run = ("$ {t}./all_reduce_perf -b 8 -e 128M -f 2 -g 2\n# nThread 1 nGpus 2 minBytes 8 maxBytes 134217728\n"
           "#  Rank  0 Group  0 Pid  41234 on     box1 device  0 [0x01] NVIDIA GeForce RTX 4090\nKilled\n")
    said = _all(run.format(t="timeout -s KILL 30 "), host="other")
    assert "fail" not in [lv for lv, _ in said] and any("killed (`Killed`) by the `timeout`" in m for _, m in said)
    assert any(lv == "fail" and "OOM killer" in m for lv, m in _all(run.format(t=""), host="other"))


def test_a_sparkrun_step_that_failed_then_went_through_is_info_and_its_stderr_is_quoted():
    """sparkrun's orchestration/ssh.py prints the script's stderr after `FAILED rc=N (Ts):`, and `SSH script <- HOST
    OK` when a later step there works; pending wh015 (sparkrun#205, the colon with nothing after) stays a warn."""
    failed = ("[WARNING] sparkrun.orchestration.ssh:   SSH script <- 192.168.20.31 FAILED rc=1 (0.3s): docker: Error "
              "response from daemon: No such container: sparkrun_head\n")
    later = "[INFO] sparkrun.orchestration.ssh:   SSH script <- 192.168.20.31 OK (4.1s)\n"
    said = _all(failed + later, host="other", nodes=1)
    assert "warn" not in [lv for lv, _ in said] and any("a later one on 192.168.20.31 went through" in m for _, m in said)
    said = _all(failed, host="other", nodes=1)
    assert any(lv == "warn" and "stderr follows it: `docker: Error response" in m for lv, m in said)
    assert not any("what the script printed is not in it" in m for _, m in said)


def test_max_devices_above_one_is_no_cpu_only_build_and_a_teardown_takes_the_cuda_note_with_it():
    """llama-cpp-python's llama.py: LLAMA_MAX_DEVICES=1 means a build without a GPU backend (llama-cpp-python#1166);
    =16 is a GPU build asked for more devices than it has, not the catalogue's CPU-only reading. PyTorch's note under a
    CUDA error (`CUDA kernel errors might be asynchronously reported`) under `driver shutting down` at exit belongs to
    the teardown (cudaErrorCudartUnloading): a warn, no fail."""
    said = _all("ValueError: Attempt to split tensors that exceed maximum supported devices. Current "
                "LLAMA_MAX_DEVICES=16\n", host="other")
    assert not any("llama-cpp-python refused to split" in m for _, m in said)
    said = _all("ValueError: Attempt to split tensors that exceed maximum supported devices. Current "
                "LLAMA_MAX_DEVICES=1\n", host="other")
    assert any(lv == "fail" and "CPU-only build" in m for lv, m in said)
    text = ("$ python bench.py\nstep 100/100 loss 1.234\nSaved checkpoint to out/ckpt-100.pt\n"
            "terminate called after throwing an instance of 'c10::Error'\n  what():  CUDA error: driver shutting down\n"
            "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below "
            "might be incorrect.\n")
    said = _all(text, host="other")
    assert "fail" not in [lv for lv, _ in said] and any(lv == "warn" and "at its exit" in m for lv, m in said)


def test_ibverbs_warning_beside_a_socket_run_over_ipoib_names_the_missing_providers():
    """NCCL's NET/IB finds no device while the bootstrap and NET/Socket use ib0 (an IPoIB interface: the machine has
    an InfiniBand HCA): libibverbs' missing providers are the cause, not noise (rdma-core's libibverbs.d)."""
    text = ("$ torchrun --nnodes 2 --nproc_per_node 8 --rdzv_endpoint 192.168.100.1:29500 train.py\n"
            "libibverbs: Warning: couldn't open config directory '/etc/libibverbs.d'.\n"
            "gpu-a01:2211:2211 [0] NCCL INFO Bootstrap : Using ib0:192.168.100.1<0>\nNCCL version 2.18.1+cuda12.1\n"
            "gpu-a01:2211:2290 [0] NCCL INFO NET/IB : No device found.\n"
            "gpu-a01:2211:2290 [0] NCCL INFO NET/Socket : Using [0]ib0:192.168.100.1<0>\n"
            "gpu-a01:2211:2290 [0] NCCL INFO Using network Socket\n"
            "gpu-a01:2211:2290 [0] NCCL INFO comm 0x55e1 rank 0 nranks 16 cudaDev 0 nvmlDev 0 busId 7000 commId 0x9a1 - "
            "Init COMPLETE\n")
    said = _all(text, host="other")
    assert any(lv == "fail" and "no vendor's user-space driver" in m for lv, m in said)
    assert not any("nothing in the paste shows an RDMA NIC" in m for _, m in said)


def test_an_earlier_warn_of_another_run_is_not_the_failure_a_communicator_follows():
    """NCCL's init.cc ncclCommEnsureReady: the earlier failure is this process's; a WARN under an earlier prompt (a
    run of yesterday, another pid) is not it. The s38i case (one process) still names it."""
    text = ("$ NCCL_DEBUG=WARN python train.py   # yesterday, before I fixed NCCL_SOCKET_IFNAME\n"
            "node1:111:222 [0] NCCL WARN Net : No interface found in the same subnet as remote address 10.0.0.2<45123>\n"
            "$ NCCL_DEBUG=WARN NCCL_SOCKET_IFNAME=enp1s0 python train.py   # today\n"
            "node1:311:322 [0] NCCL WARN Attempt to use communicator before the previous operation returned "
            "ncclSuccess\n")
    said = " ".join(m for lv, m in _all(text, host="other") if lv == "fail")
    assert "earlier NCCL call" in said and "No interface found in the same subnet" not in said


def test_tp_above_the_gpus_seen_names_visibility_where_the_paste_shows_more_gpus_or_cuda_visible_devices():
    """vllm/config/parallel.py checks TP against the GPUs this process sees: with `nvidia-smi -L` listing more, or
    CUDA_VISIBLE_DEVICES listing exactly those it saw, visibility decides, not a one-node launch (which pending
    wh-era dynamo#4934's two-pod case still reads)."""
    smi = ("$ nvidia-smi -L\nGPU 0: NVIDIA L40S (UUID: GPU-1a2b3c4d-0000-1111-2222-333344445555)\n"
           "GPU 1: NVIDIA L40S (UUID: GPU-6a7b8c9d-0000-1111-2222-333344445555)\n")
    err = "ValueError: Tensor parallel size (2) cannot be larger than the number of available GPUs (1).\n"
    said = " ".join(m for lv, m in _all(smi + "$ vllm serve m --tensor-parallel-size 2\n" + err, host="other"))
    assert "nvidia-smi in the paste lists 2" in said and "started as a one-node run" not in said
    said = " ".join(m for lv, m in _all("$ CUDA_VISIBLE_DEVICES=0 vllm serve m --tensor-parallel-size 2\n" + err,
                                        host="other"))
    assert "`CUDA_VISIBLE_DEVICES=0` in its launch" in said
    said = " ".join(m for lv, m in _all("$ vllm serve m --tensor-parallel-size 2\n" + err, host="other"))
    assert "started as a one-node run" in said


def test_a_run_said_stuck_for_hours_is_still_told_hanging():
    """The figure-of-speech filter is the sender's own (`I've been stuck on this`), not the run's: `the job has been
    stuck at init for two hours` still tells a hang (xp008's shape)."""
    [s] = _kind("The job has been stuck at init for two hours:\n" + NCCL_START, "nccl-log", host="other")
    assert "The paste says the run hangs" in messages(s, "fail")


def test_a_sender_complaining_the_requests_ran_one_at_a_time_keeps_the_queue_warn():
    """Only a paste that says it sent the requests one at a time is queued by design; `the proxy seems to serve them
    one at a time` is the complaint the warn explains (pending wg010's arithmetic)."""
    rows = "  Requests:        8/8 successful\n  Total time:      30.20 s\n  Avg latency:     18600.0 ms\n"
    assert "did not run together" in _batch("Sending 8 requests at once; the proxy seems to serve them one at a "
                                            "time?\n" + rows)


def test_head_lines_is_splitlines_cut_without_splitting_the_rest():
    """judges.common.head_lines, which the told-hang, eGPU and machine-label readers use on the whole paste: the same
    lines as str.splitlines()[:n], whatever the line breaks (\\r\\n, \\r, \\x0b count as splitlines does)."""
    import random
    from grader.judges.common import head_lines
    rng = random.Random(38)
    texts = ["", "a", "a\n", "a\r\nb\rc\n\nd\x0be\n", "\n\n\n"] + [
        "".join(rng.choice("ab\n\r\x0b ") for _ in range(120)) for _ in range(500)]
    for text in texts:
        for n in (0, 1, 2, 5, 40):
            assert head_lines(text, n) == text.splitlines()[:n], (text, n)
