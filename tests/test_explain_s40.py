"""Session 40: the lead's policy changes, each on the field's outputs that decide it (issue 27)."""

from __future__ import annotations

from pathlib import Path

from grader.explain import explain
from grader.judges.bench import failed_level
from tests.conftest import messages

FIELD = Path(__file__).parent / "fixtures" / "field"


def paste(stem: str) -> str:
    return next(FIELD.glob(f"*/{stem}_*.txt")).read_text()


def bench(stem: str, **context):
    return next(s for s in explain(paste(stem), **context) if s.kind == "vllm-bench")


def test_a_few_failed_requests_warn_and_a_third_fails():
    """vllm bench serve on one DGX Spark (https://github.com/djangodevreng/dgx-spark-benchmarks, commit 5636536):
    1 of 250 requests failed (ServerDisconnectedError, blind batch xm016) and 1 of 200 (a reset, wt006) are a few: the
    run stands on the rest, a warning; 102 of 300 failed with HTTP 500 (xm015) is a broken run. Corpus n014 (vllm#2119's
    bench, 999 of 1,000) warns too."""
    for stem, failed, total in (("xm016", 1, 250), ("wt006", 1, 200), ("n014", 1, 1000)):
        section = bench(stem, host="spark", nodes=1)
        assert f"{failed} of {total} requests failed" in messages(section, "warn"), stem
        assert "failed" not in messages(section, "fail"), stem
    broken = bench("xm015", host="spark", nodes=1)
    assert "102 request(s) of the 300 sent failed" in messages(broken, "fail")


def test_failed_level_is_one_in_a_hundred():
    """The figure is serving.toml's failed_share_warn (0.01): 1 of 100 warns, 2 of 100 fail, none of none fails."""
    assert failed_level(1, 100) == "warn" and failed_level(10, 1000) == "warn"
    assert failed_level(2, 100) == "fail" and failed_level(1, 1) == "fail" and failed_level(0, 0) == "fail"


def test_ssh_host_is_read_where_the_command_is_read():
    """``ssh [options] [user@]HOST COMMAND`` names the machine the output came from (grader.parsers.common.commands,
    the same reading that strips ssh from the command): options that take a value are skipped, the user is dropped,
    and an ssh that runs nothing here names no machine's output."""
    from grader.parsers.common.commands import ssh_host
    assert ssh_host("sudo ssh -p 2222 -i key user@spark-b free -h") == "spark-b"
    assert ssh_host("ssh -o StrictHostKeyChecking=no 10.0.0.2 'free -g'") == "10.0.0.2"
    assert ssh_host("ssh -t spark2") is None and ssh_host("free -g") is None and ssh_host(None) is None
