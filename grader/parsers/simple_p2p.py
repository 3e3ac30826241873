"""Parser for CUDA samples' ``simpleP2P``: whether each GPU pair reports peer access, whether enabling it worked, the
one copy's rate, and whether the data checked out.

Shape (cuda-samples, Samples/0_Introduction/simpleP2P; as posted in NVIDIA/cuda-samples issue 284 and
tinygrad/open-gpu-kernel-modules issue 29)::

    [./simpleP2P] - Starting...
    CUDA-capable device count: 2
    > Peer access from NVIDIA L4 (GPU0) -> NVIDIA L4 (GPU1) : Yes
    Enabling peer access between GPU0 and GPU1...
    cudaMemcpyPeer / cudaMemcpy between GPU0 and GPU1: 19.87GB/s
    Test passed

Or ``Two or more GPUs with Peer-to-Peer access capability are required`` / ``Peer to Peer access is not available
amongst GPUs in the system, waiving test.``; a CUDA error (``CUDA error at simpleP2P.cu:130 code=205
(cudaErrorMapBufferObjectFailed) "cudaDeviceEnablePeerAccess(gpuid[1], 0)"``); ``Verification error @ element 1: val =
0.000000, ref = 4.000000`` then ``Test failed!``. The rate is GB/s (10^9 bytes/s) of one 64 MB copy.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .common import ParseError, content_lines, raise_if_shell_error

CMD = "simpleP2P"

PEER_RE = re.compile(r"^(?:> )?Peer access from (?P<a_name>.{1,80}?) \(GPU(?P<a>\d+)\) -> (?P<b_name>.{1,80}?) \(GPU(?P<b>\d+)\)"
                      r" : (?P<yes>Yes|No)\s*$")
_RATE_RE = re.compile(r"^cudaMemcpyPeer / cudaMemcpy between GPU(?P<a>\d+) and GPU(?P<b>\d+): (?P<gbs>\d+(?:\.\d+)?)GB/s")
_ERROR_RE = re.compile(r"CUDA error at \S*simpleP2P\.cu:\d+ code=(?P<code>\d+)\((?P<name>\w+)\) \"(?P<call>[^\"]{1,120})\"")
_VERIFY_RE = re.compile(r"^Verification error @ element (?P<i>\d+): val = (?P<val>\S+), ref = (?P<ref>\S+)")
_WAIVED_RE = re.compile(r"Two or more GPUs with Peer-to-Peer access capability are required|Peer to Peer access is not "
                        r"available amongst GPUs|waiving test")


@dataclass(frozen=True)
class SimpleP2p:
    """``peer`` {(a, b): True for Yes}, ``names`` {GPU index: name}, ``rate_gbs`` the copy's GB/s (None when it did not
    get there), ``error`` ``(code, name, call)`` of a CUDA error, ``verify_errors`` how many verification errors were
    printed, ``passed`` True/False for ``Test passed``/``Test failed!`` (None when the paste stops before), ``waived``
    the test's own word that no pair has peer access."""

    peer: dict[tuple[int, int], bool]
    names: dict[int, str]
    rate_gbs: float | None = None
    error: tuple[int, str, str] | None = None
    verify_errors: int = 0
    passed: bool | None = None
    waived: bool = False


def parse_simple_p2p(text: str) -> SimpleP2p:
    """Read simpleP2P's output (see the module docstring). ParseError when none of its lines is there."""
    lines = content_lines(text)
    raise_if_shell_error(lines, CMD)
    peer: dict[tuple[int, int], bool] = {}
    names: dict[int, str] = {}
    rate = error = passed = None
    verify, waived, seen = 0, False, False
    for line in lines:
        s = line.text.strip()
        if m := PEER_RE.match(s):
            a, b = int(m.group("a")), int(m.group("b"))
            peer[(a, b)] = m.group("yes") == "Yes"
            names[a], names[b] = m.group("a_name"), m.group("b_name")
        elif m := _RATE_RE.match(s):
            rate = float(m.group("gbs"))
        elif m := _ERROR_RE.search(s):
            error = error or (int(m.group("code")), m.group("name"), m.group("call"))
        elif _VERIFY_RE.match(s):
            verify += 1
        elif s in ("Test passed", "Test failed!", "Test failed"):
            passed = s == "Test passed"
        elif _WAIVED_RE.search(s):
            waived = True
        else:
            seen = seen or s.startswith(("[./simpleP2P]", "[simpleP2P]", "Checking GPU(s) for support of peer"))
            continue
        seen = True
    if not seen:
        raise ParseError(CMD, "no simpleP2P line (`> Peer access from ... : Yes`, `Test passed` ...)")
    return SimpleP2p(peer, names, rate, error, verify, passed, waived)
