"""Session 40, builder C (issue 27): serving and GPU outputs read as a careful engineer does, each test on a real
output (the corpus file, by path) and a neighbouring one the rule must leave alone."""

from __future__ import annotations

from pathlib import Path

from grader.explain import explain
from tests.conftest import levels, messages

PENDING = Path(__file__).parent / "fixtures" / "field" / "pending"
CORPUS = Path(__file__).parent / "fixtures" / "field" / "corpus"


def _one(path: Path, kind: str, **kw):
    [s] = [x for x in explain(path.read_text(encoding="utf-8"), **kw) if x.kind == kind]
    return s


def _entry(folder: Path, stem: str) -> Path:
    [p] = folder.glob(stem + "_*.txt")
    return p


def test_a_one_gpu_topo_matrix_with_nics_is_said_healthy_with_its_nic_port_pairs():
    """https://github.com/jeffersonjhunt/code-monkeys/blob/dba17c57e975091dc772326faf5f4a8bd5c731ed/spark/cluster/docs/inventory-starsky.md
    (pending wq002): `nvidia-smi topo -m` on a DGX Spark, one GB10 and the
    ConnectX-7's four functions, NIC0-NIC1 and NIC2-NIC3 PIX: the machine's layout as built, said so with the pairs."""
    s = _one(_entry(PENDING, "wq002"), "nvidia-smi-topo", host="spark", nodes=1)
    assert set(levels(s)) <= {"ok", "info"}
    [lay] = [m for m in messages(s, "info").splitlines() if m.startswith("Layout: one GPU")]
    assert "NIC0-NIC1, NIC2-NIC3 PIX to each other" in lay and "DGX Spark's layout as built" in lay
    assert "nothing wrong" in lay
    other = _one(_entry(PENDING, "wq002"), "nvidia-smi-topo", host="other", nodes=1)  # not told it is a Spark
    [lay] = [m for m in messages(other, "info").splitlines() if m.startswith("Layout: one GPU")]
    assert "DGX Spark" not in lay and "no GPU-to-GPU path to judge" in lay


def test_nic_port_pairs_are_named_in_a_multi_gpu_layout_and_absent_without_pix_nics():
    """https://github.com/luigifcruz/stelline/blob/383e316755e36e66f619d1dfccc9bd7e5f19d008/hardware/asus-esc8000a-e12.md
    (pending wo010): a two-socket ESC8000A, four GPUs and two dual-port ConnectX-7
    (NIC0-NIC1, NIC2-NIC3 PIX): the layout sentence names the port pairs; corpus f026 (five GPUs, no NIC) does not,
    and no one-GPU layout is said for a multi-GPU matrix."""
    s = _one(_entry(PENDING, "wo010"), "nvidia-smi-topo", host="other", nodes=1)
    [lay] = [m for m in messages(s, "info").splitlines() if m.startswith("Layout:")]
    assert "NIC0-NIC1, NIC2-NIC3 PIX to each other" in lay and "one GPU" not in lay
    f = _one(_entry(CORPUS, "f026"), "nvidia-smi-topo", host="other", nodes=1)
    assert not any("PIX to each other" in m for m in messages(f).splitlines())


def test_a_type_subscript_this_python_does_not_take_names_the_package_and_python_version():
    """https://github.com/phivan3008/meeting-translator/blob/d57f674fba7cccecd0fb30d9addfd669819087a2/vllm_serve.log
    (pending wr003): vLLM 0.27.1 on Python 3.11 dies in kernel warm-up at flashinfer's `array.array[int]` (subscriptable
    from 3.12): the fail names flashinfer and the Python version, not memory; a bare `'type' object is not
    subscriptable` (Python 3.8, no frame shown) is read without a package; a clean start of the same log's shape is
    not touched (corpus z009's boot has no TypeError)."""
    s = _one(_entry(PENDING, "wr003"), "vllm-log", host="other", nodes=1)
    fail = messages(s, "fail")
    assert "type subscript of `array.array`" in fail and "raised in the package `flashinfer`" in fail
    assert "3.12" in fail and "python --version" in fail
    from grader.diagnoses import diagnose_text
    bare = diagnose_text("    x: list[int] = []\nTypeError: 'type' object is not subscriptable\n")
    [d] = [d for d in bare if d.kind == "type-not-subscriptable"]
    assert "raised in the package" not in d.message and "3.9" in d.message
    z = _one(_entry(CORPUS, "z009"), "vllm-log", host="spark", nodes=1)
    assert "type subscript" not in messages(z)


def test_nvidia_smi_dmon_is_read_and_a_busy_kernel_without_memory_traffic_is_a_hedged_warn():
    """https://al-engr.com/minimax-sglang-debug.html (corpus zh008, SGLang TP=2 on two Sparks): `nvidia-smi dmon -s u`
    at SM 96%, memory 0% on each sample while CUDA-graph capture made no progress: a polling kernel (an NCCL
    collective waiting for its peer: cupy/cupy#3557, NVIDIA/nccl#968 show blocked GPUs at 100%), said with what
    decides a hang. NVIDIA/gpu-monitoring-tools#12's idle sample (sm 0, mem 1) is read without a warn."""
    s = _one(_entry(CORPUS, "zh008"), "nvidia-smi", host="spark", nodes=2)
    [w] = messages(s, "warn").splitlines()
    assert "GPU0: a kernel ran almost the whole time (SM 96%)" in w and "memory 0%" in w and "polling" in w
    assert "cannot prove a hang" in w and "py-spy dump" in w
    assert "nvidia-smi dmon: GPU0 (2 samples): SM 96%, memory 0%." in messages(s, "info")
    idle = ("$ nvidia-smi dmon\n# gpu   pwr  temp    sm   mem   enc   dec  mclk  pclk\n"
            "# Idx     W     C     %     %     %     %   MHz   MHz\n"
            "    0    43    48     0     1     0     0  3505   936\n    0    43    48     0     1     0     0  3505   936\n")
    [d] = [x for x in explain(idle, host="other") if x.kind == "nvidia-smi"]
    assert set(levels(d)) <= {"ok", "info"}
    assert "GPU0 (2 samples): SM 0%, memory 1%, power 43 W, SM clock 936 MHz" in messages(d)


def test_a_light_load_whose_arrivals_ended_early_is_not_read_as_capacity_nor_as_overload():
    """https://github.com/vllm-project/vllm/issues/3297 (pending xa003): benchmark_serving.py --request-rate 10
    --num-prompts 100 (the rate read from the command line): 3.39 req/s served with a median TTFT of 97 ms is a light
    load stretched by its longest requests, not the server's capacity; corpus u011 (SGLang at 32/s served 8.98/s, no
    TTFT in the cut paste) is still read as an overload."""
    text = _entry(PENDING, "xa003").read_text(encoding="utf-8")
    said = "\n".join(messages(s) for s in explain(text, host="other", nodes=1) if s.kind == "vllm-bench")
    assert "offered at 10/s and completed at 3.39/s, yet TTFT (96.76 ms) shows no queue" in said
    assert "The 100 prompts' arrivals ended after about 10 s" in said and "not the server's capacity" in said
    assert "piled up" not in said
    u = _one(_entry(CORPUS, "u011"), "vllm-bench", host="other", nodes=1)
    assert "piled up" in messages(u) and "shows no queue" not in messages(u)


def test_nvidia_smi_refusing_an_option_without_its_value_is_said_so_and_the_next_matrix_still_read():
    """https://github.com/aikitoria/open-gpu-kernel-modules/issues/13 (corpus d015): `nvidia-smi topo -p2p -p` answers
    `Option "-p2p" is missing its value.`: said as nvidia-smi refusing the command line (with -p2p's values), not a
    matrix it could not read; the `-p2p p` run after it is still read as all OK."""
    ss = explain(_entry(CORPUS, "d015").read_text(encoding="utf-8"), host="other", nodes=1)
    p2p = [s for s in ss if s.kind == "nvidia-smi-p2p"]
    assert "nvidia-smi refused the command line" in p2p[0].error and "r, w, n, a or p" in p2p[0].error
    assert "nothing wrong" in messages(p2p[1]) and set(levels(p2p[1])) <= {"ok", "info"}


def test_vllm_log_records_run_together_on_one_line_are_each_read():
    """https://github.com/vllm-project/vllm/issues/18115 (corpus b025): three `loggers.py:118` stats records on one line
    (their newlines lost): the last whole one (91.9%) is the last stats read, not the first of the line (91.6%);
    corpus zp014's V0 `metrics.py:467]` records (no bracket before the file) likewise (0.2%, not 0.1%)."""
    s = _one(_entry(CORPUS, "b025"), "vllm-log", nodes=1)
    assert "KV cache 91.9% used" in messages(s) and "91.6%" not in messages(s)
    z = _one(_entry(CORPUS, "zp014"), "vllm-log", host="other", nodes=2)
    assert "Last engine stats: 1 running, 0 waiting, KV cache 0.2% used" in messages(z)
