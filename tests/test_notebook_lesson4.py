"""Lesson 4's notebook (solutions/lesson4/lesson4.ipynb, TensorRT-LLM multi-node and NVIDIA Dynamo): its
shape, its answers, its answer tests, and one headless run. No machine checks in this lesson.

Expected values are worked out here: the decisions from the lesson's sources (NVIDIA's playbooks, the
Dynamo docs, shared/research/figures.md §6), the KV bytes from config.json's shape.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.test_notebook_lesson2 import (MACHINE, answer_tests, assert_answer_tests_pass_then_fail_released,
                                         assert_headless_full_points, assert_mistake_caught, check_shape, load,
                                         solution_values)

NOTEBOOK = Path(__file__).resolve().parents[1] / "solutions" / "lesson4" / "lesson4.ipynb"


def test_shape_and_no_machine_checks():
    cells = check_shape(NOTEBOOK)
    assert not any(MACHINE.search(c.source) for c in cells.values() if c.cell_type == "code")
    assert len(answer_tests(cells)) == 3


def test_solutions_are_right():
    ns = solution_values(load(NOTEBOOK))
    # a: one Spark suffices; b: NVIDIA's TRT-LLM playbook lists Qwen3-235B-A22B NVFP4 "two Sparks only";
    # c: many GPUs, many users, TTFT targets, an RDMA fabric: disaggregation; d: NVIDIA's vLLM playbook (Ray)
    assert ns["stack"] == {"a": "single-spark", "b": "trtllm-mpi", "c": "dynamo-disagg", "d": "vllm-ray"}
    assert ns["trt_launcher"] == "mpirun"
    assert ns["ompi_var"] == "OMPI_MCA_btl_tcp_if_include"
    assert ns["dynamo_services"] == {"etcd", "nats"}
    # 80 layers x 8 KV heads x 128 x (K, V) x 2 B = 327,680 B per token; 8,192 tokens; 25 GB/s
    assert ns["kv_transfer_gb"] == pytest.approx(327_680 * 8_192 / 1e9) == pytest.approx(2.684, abs=1e-3)
    assert ns["transfer_ms"] == pytest.approx(2.684 / 25 * 1000, rel=1e-3)


def test_answer_tests_pass_with_the_solutions_and_fail_without():
    assert_answer_tests_pass_then_fail_released(NOTEBOOK, 3)


@pytest.mark.parametrize("cell, wrong", [
    ("ex1_answer", 'stack = {"a": "single-spark", "b": "vllm-ray", "c": "dynamo-disagg", "d": "vllm-ray"}'),
    ("ex1_answer", 'stack = {"a": "single-spark", "b": "trtllm-mpi", "c": "vllm-ray", "d": "vllm-ray"}'),
    ("ex2_answer", 'trt_launcher = "ray"\nompi_var = "OMPI_MCA_btl_tcp_if_include"\ndynamo_services = {"etcd", "nats"}'),
    ("ex2_answer", 'trt_launcher = "mpirun"\nompi_var = "UCX_NET_DEVICES"\ndynamo_services = {"etcd", "nats"}'),
    ("ex2_answer", 'trt_launcher = "mpirun"\nompi_var = "OMPI_MCA_btl_tcp_if_include"\ndynamo_services = {"etcd", "redis"}'),
    ("ex3_answer", "kv_transfer_gb = 80 * 64 * 128 * 2 * 2 * PROMPT_TOKENS / 1e9\ntransfer_ms = kv_transfer_gb / 25 * 1000"),
    ("ex3_answer", "kv_transfer_gb = 2.684\ntransfer_ms = kv_transfer_gb / 200 * 1000"),
])
def test_answer_tests_catch_plausible_mistakes(cell, wrong):
    """vLLM for the TRT-LLM-only model, Ray for MPI, UCX's variable for Open MPI's, all 64 attention heads
    instead of the 8 KV heads, Gb/s taken for GB/s: each fails its test."""
    assert_mistake_caught(NOTEBOOK, cell, wrong)


def test_headless_run_scores_full_points(tmp_path):
    pytest.importorskip("nbclient")
    assert_headless_full_points(NOTEBOOK, tmp_path / "lesson4", 3)
