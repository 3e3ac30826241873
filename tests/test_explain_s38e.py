"""Session 38 (builder e): NCCL, RDMA, links and GPU topology of the blind batches wd, we and wf, each rule fed the real
output it was built for (read from the field corpus by path, or its lines quoted) and a neighbouring output on which it
must stay silent."""

from __future__ import annotations

from pathlib import Path

from grader.explain import explain
from tests.conftest import levels, messages

FIELD = Path(__file__).resolve().parent / "fixtures" / "field"


def _field(stem: str) -> str:
    [path] = [p for d in ("corpus", "pending") for p in (FIELD / d).glob(f"{stem}*.txt")]
    return path.read_text()


def _one(text: str, **kw):
    sections = [s for s in explain(text, **kw) if s.kind is not None]
    assert len(sections) == 1, [s.kind for s in sections]
    return sections[0]


def test_nccl_2_0_warn_lines_are_read_as_nccl_log():
    """NCCL 2.0 printed no `NCCL` before WARN (https://github.com/NVIDIA/nccl/issues/111): the connect refused is read,
    a socket failure, never an InfiniBand requirement nor a wrong GID."""
    s = _one(_field("wd001_"), host="other", nodes=2)
    assert s.kind == "nccl-log" and "fail" in levels(s)
    said = messages(s, "fail")
    assert "Connection refused" in said and "nothing listened" in said and "no InfiniBand is needed" in said
    assert "GID_INDEX" not in messages(s)  # the error line's GID advice: the WARN read says which call failed


def test_nccl_socket_creation_failure_in_a_container():
    """https://github.com/NVIDIA/nccl-tests/issues/14: NCCL 2.2's `WARN Socket creation failed : Address family not
    supported by protocol` is the failure (no usable interface: --net=host); the libibverbs WARN beside it a note."""
    s = _one(_field("wf001_"), host="other", nodes=1)
    fails = messages(s, "fail")
    assert "Socket creation failed" in fails and "--net=host" in fails and "libibverbs" not in fails
    assert "libibverbs" in messages(s, "info")


def test_a_warn_whose_error_is_passed_up_init_is_the_failure():
    """https://github.com/NVIDIA/nccl/issues/520: `ring 2 does not loop back to start`, then `graph/connect.cc:281 -> 3`
    up through init.cc and group.cc: the communicator failed with ncclInternalError (nccl.h: 3), not a warning."""
    s = _one(_field("we003_"), host="other", nodes=1)
    fails = messages(s, "fail")
    assert "does not loop back" in fails and "internal error" in fails and "init" in fails
    assert "timeout" not in messages(s).lower()


def test_a_warn_with_no_error_chain_stays_a_warning():
    """The same WARN without NCCL passing an error up (the run went on past it): not raised to a failure."""
    text = ("h:1:2 [0] graph/rings.cc:38 NCCL WARN Error : ring 2 does not loop back to start (7 != 2)\n"
            "h:1:2 [0] NCCL INFO comm 0x1 rank 0 nranks 2 cudaDev 0 busId 1000 - Init COMPLETE\n")
    s = _one(text, host="other", nodes=1)
    assert "fail" not in levels(s)


def test_topology_lookup_failure_is_an_internal_error():
    """https://github.com/NVIDIA/nccl-tests/issues/352: `Could not find NET with id 0` (graph/topo.h returns
    ncclInternalError) fails the run; the simple-order fallback beside it stays a warning."""
    s = _one(_field("we015_"), host="other", nodes=2)
    assert "NET with id 0" in messages(s, "fail") and "NCCL_ALGO" in messages(s, "fail")
    assert "simple order" in messages(s, "warn")


def test_malformed_topology_file_is_the_users_file_not_an_nccl_bug():
    """magnate3/linux-riscv-dev openMpi notes: NCCL_TOPO_FILE naming a file NCCL's XML reader rejects; the `internal
    error - please report` line follows from it and is not said twice."""
    s = _one(_field("wf016_"), host="other", nodes=1)
    fails = [f.message for f in s.findings if f.level == "fail"]
    assert len(fails) == 1 and "NCCL_TOPO_FILE" in fails[0] and "not NCCL" in fails[0]
