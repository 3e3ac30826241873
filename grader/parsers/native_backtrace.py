"""The native backtrace UCX and Open MPI print under a crash (``Caught signal 11 (Segmentation fault: ...)`` then
``==== backtrace (tid: N) ====``), read for the frame that crashed: the innermost one that names its function, past the
signal handler's own frames. The two shapes of a frame::

     1 0x000000000006c4e4 PMPI_Comm_rank()  /build-result/src/hpcx-.../ompi/mpi/c/profile/pcomm_rank.c:41
     5  /usr/local/lib/python3.10/dist-packages/.../libuct-b36f5a30.so.0.0.0(uct_tcp_ep_am_bcopy+0x8a) [0x7fbeb852804a]
"""

from __future__ import annotations

import re

_FRAME_NAMED_RE = re.compile(r"^\s{0,8}\d{1,3}\s{1,8}(?:0x[0-9a-f]{1,16}\s{1,8}(?P<fn>[A-Za-z_]\w{0,100})\(\)\s{1,8}"
                             r"(?P<src>\S{1,400})|(?P<lib>/\S{1,400}?)\((?P<fn2>[A-Za-z_]\w{0,100})\+0x[0-9a-f]{1,16}\))", re.M)
"""A frame of UCX's (or Open MPI's) ``==== backtrace`` that names its function: ``1 0x...6c4e4 PMPI_Comm_rank()
/path/pcomm_rank.c:41`` or ``5 /path/libuct-b36f5a30.so.0.0.0(uct_tcp_ep_am_bcopy+0x8a) [0x...]``."""
_HANDLER_RE = re.compile(r"^(?:ucs_handle_error|ucs_error_signal_handler|ucs_debug_\w{1,60}|__sigaction|__restore_rt"
                         r"|_sigtramp)$")
"""The signal handler's own frames, above the one that crashed."""


_LIBRARIES = {"libuct": "UCX's transports", "libucp": "UCX", "libucs": "UCX", "libnccl": "NCCL", "libmpi": "Open MPI",
              "libcuda": "the CUDA driver", "libibverbs": "rdma-core's verbs", "libmlx5": "the mlx5 verbs provider"}


MAX_BACKTRACE_CHARS = 20_000
"""The frames are looked for in this many characters from the backtrace's heading (a bounded cost)."""


def crash_frame(text: str) -> tuple[str, str, str | None] | None:
    """(function, library or source file, whose library it is when known) of the innermost named frame of the first
    backtrace in ``text`` past the signal handler's frames (`uct_tcp_ep_am_bcopy`, `libuct`, UCX's transports); None
    when no backtrace names one."""
    at = text.find("==== backtrace")
    for m in _FRAME_NAMED_RE.finditer(text, at if at >= 0 else len(text), (at + MAX_BACKTRACE_CHARS) if at >= 0 else len(text)):
        fn = m["fn"] or m["fn2"]
        if _HANDLER_RE.match(fn):
            continue
        path = m["src"] or m["lib"]
        where = path.rsplit("/", 1)[-1]
        lib = re.match(r"lib\w{1,60}?(?=[-.])", where)
        name = lib.group() if lib else where
        owner = _LIBRARIES.get(name) or ("Open MPI" if "/ompi/" in path else None)
        return fn, name, owner
    return None
