"""Session 41, fixer J (issue 27): the confident-wrong readings break-it review 24 found in session 41g's rules,
each mended on the probe's shape (a variation of the named real output) with the real output still read as before."""

from __future__ import annotations

from pathlib import Path

from grader.explain import explain
from tests.conftest import said_in_all, worst_level

FIELD = Path(__file__).resolve().parent / "fixtures" / "field"


def _read(stem: str, folder: str = "corpus") -> str:
    return next((FIELD / folder).glob(stem + "*.txt")).read_text(encoding="utf-8", errors="replace")


GPUD_TWO = """$ gpud status --json
[
  {
    "component": "accelerator-nvidia-remapped-rows",
    "states": [
      {
        "time": "2025-12-05T04:46:00Z",
        "component": "accelerator-nvidia-remapped-rows",
        "name": "accelerator-nvidia-remapped-rows",
        "health": "Unhealthy",
        "reason": "GPU 0 has pending row remapping; reset required"
      }
    ]
  },
  {
    "component": "accelerator-nvidia-memory",
    "states": [
      {
        "time": "2025-12-05T04:46:00Z",
        "component": "accelerator-nvidia-memory",
        "health": "Healthy",
        "reason": "all 8 GPU(s) were checked, no memory issue found"
      }
    ]
  }
]
"""


def test_gpud_unhealthy_component_is_not_read_as_the_next_ones_healthy():
    """A variation of corpus m025 (leptonai/gpud#1170, https://github.com/leptonai/gpud/issues/1170): gpud's states
    output with two components, remapped-rows Unhealthy (a pending row remap) before memory Healthy (break-it 24 p18).
    The Healthy reading stays inside its own component's block, and the Unhealthy one is a fault."""
    sections = explain(GPUD_TWO, host="other")
    assert worst_level(sections) == "fail"
    assert "accelerator-nvidia-remapped-rows check reports Unhealthy" in said_in_all(sections, "fail")
    said = said_in_all(sections)
    assert "remapped-rows check reports Healthy" not in said
    assert "accelerator-nvidia-memory check reports Healthy" in said
    degraded = GPUD_TWO.replace('"Unhealthy"', '"Degraded"')
    assert worst_level(explain(degraded, host="other")) == "warn"
    # the real output (one Healthy component after the NVML fallback) keeps its notes
    real = explain(_read("m025_"), host="spark", nodes=1)
    assert worst_level(real) == "info" and "accelerator-nvidia-memory check reports Healthy" in said_in_all(real)


_V1 = ("INFO 07-28 {t} [loggers.py:118] Engine 000: Avg prompt throughput: 600.0 tokens/s, Avg generation throughput: "
       "1700.0 tokens/s, Running: {r} reqs, Waiting: 0 reqs, GPU KV cache usage: {kv}%, Prefix cache hit rate: 0.0%\n")


def test_kv_cache_rising_fast_after_an_idle_line_is_a_warning():
    """A variation of vllm-project/vllm#18115's V1 stats lines (https://github.com/vllm-project/vllm/issues/18115,
    break-it 24 p26): an earlier run ends at 95.8%, an idle line (Running 0, 0.0%), then a new run climbs 22.5% ->
    94.6% in 30 s: the trend is the new run's, full within seconds, not flat for the earlier high."""
    text = "".join(_V1.format(t=t, r=r, kv=kv) for t, r, kv in (
        ("06:40:00", 48, 95.8), ("06:40:10", 21, 61.2), ("06:40:20", 0, 0.0), ("06:55:00", 48, 22.5),
        ("06:55:10", 48, 54.9), ("06:55:20", 48, 78.1), ("06:55:30", 48, 94.6)))
    sections = explain(text)
    assert worst_level(sections) == "warn"
    assert "nearly full and rising" in said_in_all(sections, "warn")
    assert "does not rise" not in said_in_all(sections)


def test_kv_cache_plateau_after_its_ramp_up_is_a_note():
    """A variation of vllm-project/vllm#18115's V1 stats lines (break-it 24 p03): 0% -> 92.4% in the first 30 s, then
    four minutes flat between 91.8% and 92.6% with the same 32 running: steady, not about to fill (a note); the real
    output (corpus b025, a slow rise) and tenstorrent/vllm#55's fast rise (corpus b026) keep their readings."""
    ramp = [("06:40:00", 0, 0.0), ("06:40:10", 32, 41.3), ("06:40:20", 32, 78.6), ("06:40:30", 32, 92.4)]
    flat = [(f"06:{40 + (40 + 10 * i) // 60}:{(40 + 10 * i) % 60:02d}", 32, (92.1, 92.6, 91.8, 92.3, 92.0, 92.5)[i % 6])
            for i in range(24)]
    sections = explain("".join(_V1.format(t=t, r=r, kv=kv) for t, r, kv in ramp + flat))
    assert worst_level(sections) == "info"
    assert "nearly full but none waits" in said_in_all(sections, "info")
    assert worst_level(explain(_read("b025_"))) == "info"
    assert "nearly full and rising" in said_in_all(explain(_read("b026_"), host="other"), "warn")


XML_BUSY_P8 = """$ nvidia-smi -q -x
<nvidia_smi_log>
	<driver_version>550.120</driver_version>
	<attached_gpus>1</attached_gpus>
	<gpu id="00000000:01:00.0">
		<product_name>NVIDIA GeForce RTX 4090</product_name>
		<performance_state>P8</performance_state>
		<clocks_event_reasons>
			<clocks_event_reason_gpu_idle>Not Active</clocks_event_reason_gpu_idle>
			<clocks_event_reason_sw_power_cap>Not Active</clocks_event_reason_sw_power_cap>
			<clocks_event_reason_hw_slowdown>Active</clocks_event_reason_hw_slowdown>
			<clocks_event_reason_hw_thermal_slowdown>Not Active</clocks_event_reason_hw_thermal_slowdown>
			<clocks_event_reason_hw_power_brake_slowdown>Active</clocks_event_reason_hw_power_brake_slowdown>
			<clocks_event_reason_sw_thermal_slowdown>Not Active</clocks_event_reason_sw_thermal_slowdown>
		</clocks_event_reasons>
		<utilization>
			<gpu_util>100 %</gpu_util>
		</utilization>
		<clocks>
			<graphics_clock>210 MHz</graphics_clock>
		</clocks>
		<processes>
			<process_info>
				<pid>48211</pid>
				<type>C</type>
				<process_name>python3</process_name>
				<used_memory>21920 MiB</used_memory>
			</process_info>
		</processes>
	</gpu>
</nvidia_smi_log>
"""


def test_xml_p8_is_not_idleness_where_the_report_shows_the_gpu_busy_and_braked():
    """A variation of pending zs020 (netdata/netdata#15755, https://github.com/netdata/netdata/issues/15755: an RTX
    4090's `nvidia-smi -q -x` at P8, 210 MHz, idle): the same report at 100% with a python process on it and the
    power brake Active (break-it 24 p19/p20) is throttled, not idle: no idleness note, the slowdowns warned for this
    GPU by its bus id, and no second card assumed."""
    sections = explain(XML_BUSY_P8, host="other")
    said = said_in_all(sections)
    assert worst_level(sections) == "warn"
    assert "idleness, not a fault" not in said and "while its utilisation is 100%" in said
    assert "GPU 00000000:01:00.0: HW Power Brake Slowdown is Active" in said_in_all(sections, "warn")
    assert "two cards" not in said and "bus id not in the paste" not in said
    for grep_only in ("<performance_state>P8</performance_state>\n<gpu_util>100 %</gpu_util>\n",
                      "<performance_state>P8</performance_state>\n<hw_slowdown>Active</hw_slowdown>\n",
                      "<performance_state>P8</performance_state>\n<pid>48211</pid>\n<used_memory>21920 MiB</used_memory>\n"):
        assert "idleness" not in said_in_all(explain("$ nvidia-smi -q -x | grep -E 'x'\n" + grep_only, host="other"))
    grepped = explain("$ nvidia-smi -q -x | grep -E 'performance_state|gpu_util'\n<performance_state>P8</performance_state>"
                      "\n<gpu_util>100 %</gpu_util>\n", host="other")
    assert worst_level(grepped) == "warn" and "while its utilisation is 100%" in said_in_all(grepped, "warn")
    # the real idle report keeps its note
    assert "an idle state" in said_in_all(explain(_read("zs020_", "pending"), host="other"))


NVTOP_BUSY = """$ nvtop
 Device 0 [NVIDIA GeForce RTX 3090] PCIe GEN 1@16x RX: 248.0 MiB/s TX: 251.0 MiB/s
 GPU 1905MHz MEM 9751MHz TEMP  74°C FAN  78% POW 342 / 350 W
 GPU[||||||||||||||||||||||||||||||||100%] MEM[|||||||||||||||||||22.1Gi/24.0Gi]
 Device 1 [NVIDIA GeForce RTX 3090] PCIe GEN 4@16x RX: 12.31 GiB/s TX: 11.87 GiB/s
 GPU 1920MHz MEM 9751MHz TEMP  71°C FAN  75% POW 338 / 350 W
 GPU[||||||||||||||||||||||||||||||||100%] MEM[|||||||||||||||||||22.1Gi/24.0Gi]

    PID USER DEV    TYPE  GPU        GPU MEM    CPU  HOST MEM Command
 118233 user   0 Compute 100%  22574MiB  92%   101%   8912MiB python train.py
 118234 user   1 Compute 100%  22574MiB  92%   101%   8904MiB python train.py
"""


def test_nvtop_gen1_under_full_load_is_a_held_link_not_power_saving():
    """A variation of corpus p020 (Syllo/nvtop#6, https://github.com/Syllo/nvtop/issues/6: an idle GTX 1080 Ti's
    header at `PCIe GEN 1@16x`): the same header for a card at 100% and 342 W with a training process on it
    (break-it 24 p21) is a link held at Gen 1 under load (a warning), not an idle step-down; the real header alone
    keeps its power-saving note, and a card between bursts (a few %) is read neither way."""
    sections = explain(NVTOP_BUSY, host="other")
    assert worst_level(sections) == "warn"
    said = said_in_all(sections)
    assert "power saving" not in said and "at 100% utilisation with its PCIe link still at Gen 1" in said
    real = explain(_read("p020_"), host="other")
    assert worst_level(real) == "info" and "power saving" in said_in_all(real)
    light = NVTOP_BUSY.replace("||||||||||||||||||||||||||||||||100%] MEM[|||||||||||||||||||22.1", "|3%] MEM[|1", 1)
    light = light.replace(" 118233 user   0 Compute", " 118233 user   1 Compute")
    said_light = said_in_all(explain(light, host="other"))
    assert "power saving" not in said_light and "still at Gen 1" not in said_light


RAY_WORKER = """$ ray start --address=192.168.100.10:6379 --block
2026-03-13 09:30:48,783	INFO scripts.py:1124 -- Local node IP: {ip}
2026-03-13 09:30:51,270	SUCC scripts.py:1140 -- --------------------
2026-03-13 09:30:51,270	SUCC scripts.py:1141 -- Ray runtime started.
2026-03-13 09:30:51,270	SUCC scripts.py:1142 -- --------------------
2026-03-13 09:30:51,270	INFO scripts.py:1144 -- To terminate the Ray runtime, run
2026-03-13 09:30:51,270	INFO scripts.py:1145 --   ray stop
2026-03-13 09:30:51,270	INFO scripts.py:1155 -- --block
2026-03-13 09:30:51,270	INFO scripts.py:1156 -- This command will now block forever until terminated by a signal.
2026-03-13 09:30:51,270	INFO scripts.py:1159 -- Running subprocesses are monitored and a message will be printed if any of them terminate unexpectedly. Subprocesses exit with SIGTERM will be treated as graceful, thus NOT reported.
"""
RAYLET_DIED = """2026-03-13 09:31:27,902	ERR scripts.py:1175 -- Some Ray subprocesses exited unexpectedly:
2026-03-13 09:31:27,902	ERR scripts.py:1179 --   raylet [exit code=1]
2026-03-13 09:31:27,903	ERR scripts.py:1184 -- Remaining processes will be killed.
"""


def test_a_joined_worker_is_not_said_fine_beside_its_raylet_exit_or_a_bridge_address():
    """A variation of pending wn002 (tom-doerr/llm's spark3.log, https://github.com/tom-doerr/llm/blob/
    760cf91214ddd3977d9f098f93aba033f43ab1e2/crash-logs/20260313_103305/spark3.log: a worker's `ray start --block`):
    the raylet exits 36 s later (break-it 24 p01), or the node IP is Docker's bridge 172.17.0.3 (p02): the start line
    says it registered, not "nothing wrong in this output"; the real worker's start keeps its joined note."""
    died = explain(RAY_WORKER.format(ip="192.168.100.11") + RAYLET_DIED)
    assert worst_level(died) == "fail"
    assert "nothing wrong" not in said_in_all(died) and "registered with the head's GCS" in said_in_all(died)
    bridge = explain(RAY_WORKER.format(ip="172.17.0.3"))
    assert worst_level(bridge) == "warn" and "nothing wrong" not in said_in_all(bridge)
    fine = explain(RAY_WORKER.format(ip="192.168.100.11"))
    assert "this node joined the cluster; nothing wrong in this output" in said_in_all(fine)
    real = explain(_read("wn002_", "pending"), host="spark", nodes=2)
    assert "this node joined the cluster" in said_in_all(real) and worst_level(real) == "info"


def test_a_long_mean_ttft_from_a_few_stalled_requests_is_not_a_server_queue():
    """A variation of pending wt004 (joorklee/p2p-bench, https://github.com/joorklee/p2p-bench/blob/
    de2a7e718dd5873c4557728814f0547805a571e4/p2p-bench/results/2026-06-16_5060ti-16gb_2cards_gen3-x4_p2p-sweep-c1-2-4-8/
    scenarios/p2p_on-c8/run_1.stdout.txt: `vllm bench serve` at --max-concurrency 8, mean TTFT 16.4 s with the median
    as long, a queue in the server): the same summary with a
    median TTFT of 0.18 s, a mean of 11 s and a p99 of 95 s (break-it 24 p04) is a few stalled requests, not a server
    that runs fewer than the client sends; the real one keeps its queue reading."""
    text = (
        "$ vllm bench serve --backend vllm --model Qwen/Qwen2.5-7B-Instruct --dataset-name random --random-input-len 512"
        " --random-output-len 256 --num-prompts 200 --max-concurrency 8 --ignore-eos\n"
        "============ Serving Benchmark Result ============\n"
        "Successful requests:                     200\n"
        "Maximum request concurrency:             8\n"
        "Benchmark duration (s):                  466.20\n"
        "Total input tokens:                      102400\n"
        "Total generated tokens:                  51200\n"
        "Request throughput (req/s):              0.43\n"
        "Output token throughput (tok/s):         109.82\n"
        "Total Token throughput (tok/s):          329.47\n"
        "---------------Time to First Token----------------\n"
        "Mean TTFT (ms):                          11012.37\n"
        "Median TTFT (ms):                        182.55\n"
        "P99 TTFT (ms):                           95310.84\n"
        "-----Time per Output Token (excl. 1st token)------\n"
        "Mean TPOT (ms):                          30.02\n"
        "Median TPOT (ms):                        29.87\n"
        "P99 TPOT (ms):                           33.41\n"
        "----------------End-to-end Latency----------------\n"
        "Mean E2EL (ms):                          18667.15\n"
        "Median E2EL (ms):                        7842.90\n"
        "P99 E2EL (ms):                           103012.77\n"
        "==================================================\n")
    sections = explain(text)
    warned = said_in_all(sections, "warn")
    assert worst_level(sections) == "warn"
    assert "waited in its queue for a slot" not in warned and "saturated" not in warned
    assert "no standing queue" in warned and "0.18 s" in warned
    real = explain(_read("wt004_", "pending"))
    assert "waited in its queue for a slot" in said_in_all(real, "warn")


def test_a_shell_trace_followed_by_the_programs_output_is_not_said_to_end_the_paste():
    """A variation of pending wv004 (Tongyi-Zhiwen/Qwen-Doc#6, https://github.com/Tongyi-Zhiwen/Qwen-Doc/issues/6: a
    verl launch script's `set -x` assignments, where the paste ends): `bash -x ./launch.sh`'s assignments followed by
    vLLM's own lines and its error (break-it 24 p32): the program's output is in the paste, so no note that it is
    not; the real trace that ends the paste keeps its note."""
    text = ("$ bash -x ./launch.sh\n+ MODEL=Qwen/Qwen2.5-7B-Instruct\n+ PORT=8000\n+ TP=2\n"
            "+ vllm serve Qwen/Qwen2.5-7B-Instruct --port 8000 --tensor-parallel-size 2\n"
            "INFO 09-02 11:20:04 [__init__.py:241] Automatically detected platform cuda.\n"
            "INFO 09-02 11:20:09 [api_server.py:1805] vLLM API server version 0.10.1.1\n"
            "ValueError: The number of required GPUs exceeds the total number of available GPUs in the placement "
            "group.\n")
    said = said_in_all(explain(text))
    assert "shell's trace" not in said and "placement group holds fewer GPUs" in said
    assert "output of the commands it ran after them is not in this paste" in said_in_all(explain(_read("wv004_", "pending")))
