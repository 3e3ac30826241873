"""Judge of a machine's memory: ``free`` (``-h``, ``-m``, ``-g``, and the old format without ``available``), read for what
a new program can still take, and on a Spark for what vLLM's --gpu-memory-utilization takes its share of (the GPU has no
memory of its own); ``df``, for the shared memory (/dev/shm) a container gives NCCL and vLLM. Its figures:
checks/specs/memory.toml (the share of memory a running machine should keep available, the /dev/shm to give).
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from .common import info, ok, output_machine, warn
from .model import Finding, Summary


def _as_mib_on_a_spark(f: Any) -> tuple[Any, str]:
    """``free``'s plain numbers, pasted without its command line on a Spark, read as MiB (``free -m``) or bytes (``free
    -b``) where that makes the total the Spark's own memory (checks/specs/gpus.toml [dgx_spark] cuda_memory_gib, within
    a tenth) and KiB a thousandth or a thousand times it (blind batch wa009: ``Mem: 124546 117684 ...``; wi013: ``Mem:
    130663231488 ...``), with the unit's note; else ``(f, "")``."""
    from ..calc.specs import match_gpu
    from .context import context
    spec = match_gpu("GB10") if not f.unit_known and context().host == "spark" else None
    spark = spec.graded("cuda_memory_gib") if spec is not None else None
    scale = next((k for k in (1024, 1 / 1024) if spark and abs(f.mem.total * k / 1024 ** 3 - spark) * 10 <= spark), 0)
    if not scale:
        return f, ""

    def scaled(r: Any) -> Any:
        return None if r is None else dataclasses.replace(r, **{k: None if v is None else int(v * scale)
                                                                 for k, v in vars(r).items()})
    said = "MiB, `free -m`" if scale > 1 else "bytes, `free -b`"
    return dataclasses.replace(f, mem=scaled(f.mem), swap=scaled(f.swap), unit_known=True), (
        f" (plain numbers read as {said}: so they make a Spark's memory; paste the command line too)")


def summarise_free(f: Any, command: str | None) -> Summary:
    from ..calc.specs import row
    from .context import context
    low = row("memory.toml", "headroom").graded("low_available_fraction")
    thin = row("memory.toml", "headroom").graded("thin_available_fraction_no_swap")
    spark_swap = row("memory.toml", "headroom").graded("spark_swapped_gib")
    f, as_mib = _as_mib_on_a_spark(f)
    gib = 1024 ** 3
    mem, swap = f.mem, f.swap
    findings: list[Finding] = []
    swapped = swap.used if swap is not None and swap.used else 0
    in_swap = f", and {swapped / gib:.1f} GiB already swapped out" if swapped else ""
    unit = as_mib or ("" if f.unit_known else " (plain numbers read as KiB, free's default: paste the command line too)")
    no_swap = " There is no swap: when memory runs out, the kernel's OOM killer ends a process." \
        if swap is not None and swap.total == 0 else ""
    if mem.available is None:
        guess = mem.estimated_available
        said = (f"about {guess / gib:.1f} GiB at most is available (free + buffers + cached - shared"
                + (f": the {mem.shared / gib:.1f} GiB shared, tmpfs and shared memory, cannot be dropped like "
                   "cache" if mem.shared and 4 * mem.shared >= (mem.cache or 0) else "")
                + "; /proc/meminfo's MemAvailable is the kernel's own figure)") if guess is not None else \
            "what a new program can take is not shown"
        low_now = guess is not None and low is not None and bool(mem.total) and guess / mem.total < low
        # the `-/+ buffers/cache` free counts the shared memory (tmpfs) as droppable: more than twice what can be had,
        # with no swap behind it, is a machine closer to the OOM killer than that line says (earlyoom#20)
        overstated = (mem.free or 0) + (mem.cache or 0) if guess is not None and mem.shared else 0
        misleads = bool(no_swap) and overstated > 2 * guess if guess is not None else False
        line = "The `-/+ buffers/cache` line's" if f.buffers_line else "Free + buffers + cached, the"
        findings.append((warn if low_now or misleads else info)(
            f"Memory: {mem.total / gib:.1f} GiB in all, {(mem.used or 0) / gib:.1f} GiB used{unit}; this free has no "
            f"`available` column (procps before 3.3.10): {said}.{no_swap}" + (
                f" {line} {overstated / gib:.1f} GiB free" + ("" if f.buffers_line else " the old free's `-/+ "
                "buffers/cache` line would show,") + " counts the shared memory as if it could be dropped: the "
                "machine is closer to the OOM killer than that line says." if misleads else "")))
    else:
        share = mem.available / mem.total if mem.total else 0.0
        said = (f"{mem.available / gib:.1f} GiB of {mem.total / gib:.1f} GiB ({share:.0%}) is available{in_swap}"
                + unit)
        if not f.unit_known and not as_mib and mem.total < gib:  # as KiB under 1 GiB: no such machine; -g or -m
            said = (f"{mem.available // 1024} of {mem.total // 1024} ({share:.0%}) is available, in a unit the paste "
                    "does not show (plain numbers, no command line: read as KiB, free's default, the machine would "
                    "have under 1 GiB, so `free -g` or `free -m` likely printed them)")
        spark = " On a Spark that pool is also the GPU's memory: lower --gpu-memory-utilization or stop a server."
        if low is not None and share < low:
            findings.append(warn(f"Only {said}: the next allocation (a model load, a longer context, another "
                                 "process) makes the kernel reclaim and swap, or OOM-kills a process." + spark))
        elif thin is not None and share < thin and no_swap and context().host == "spark":
            findings.append(warn(f"Only {said}, and no swap: thin headroom. A vLLM (or other server) running here is "
                                 "expected to hold most of it, but a second launch, a longer context or a large file "
                                 "read can run it out, and the OOM killer (or a hard reset) follows." + spark))
        elif swapped and spark_swap is not None and swapped >= spark_swap * gib and context().host == "spark":
            findings.append(warn(f"Memory: {said}. On a Spark that pool is also the GPU's memory: this much in swap "
                                 "means it ran short at some point while something ran (some process's memory pushed "
                                 "out to disk), and a server here is one large request or a second launch from stalls "
                                 "or the OOM killer. `grep VmSwap /proc/*/status` shows who holds it; keep more "
                                 "headroom (a lower --gpu-memory-utilization, a shorter context)."))
        else:
            findings.append(info(f"Memory: {said}."
                                 + (" Something was short of memory at some point, or swap is eager." if swapped
                                    else "") + no_swap))
    if context().host == "spark" and mem.total and mem.available is not None:
        findings.append(info("A Spark's GPU has no memory of its own: this is the pool vLLM's "
                             "--gpu-memory-utilization takes its share of."))
    facts = {"mem": f.mem.__dict__, "swap": f.swap.__dict__ if f.swap else None, "unit_known": f.unit_known}
    return facts, findings


_MANY_HOSTS_RE = re.compile(r"\b(?:ssh|pdsh|clush|srun|mpirun|ansible)\b|^==+ ?\S{1,80}", re.M)
_RELEASE_RE = re.compile(r"/wake_up|\bwake_up\(|\b(?:kill|pkill|killall)\b|\b(?:docker|podman)\s{1,8}(?:stop|rm|kill)\b|"
                         r"\bsystemctl\s{1,8}stop\b|\b(?:ray|vllm)\s{1,8}stop\b|\brm\s{1,8}\S{0,80}\s{0,8}/dev/shm", re.I)
_PUT_IN_SHM_RE = re.compile(r"(?:\b(?:cp|mv|dd|rsync|tee|tar|wget|curl|huggingface-cli|hf)\b[^\n]{0,400}/dev/shm|"
                            r">\s{0,8}/dev/shm/|\bmount\s{1,8}-t\s{0,8}tmpfs\b)", re.I)


_SLEPT_RE = re.compile(r"/sleep\b(?![^\n]{0,200}/wake_up)")


def _between(paste: str, commands: list[str]) -> tuple[str, str]:
    """The paste between the first two ``free`` outputs (by their commands, in order), and between the second and the
    last: where a step that raised, or was meant to release, shared memory must be to explain the figures."""
    at, marks = 0, []
    for command in commands:
        found = paste.find(command, at) if command else -1
        marks.append(found if found >= 0 else at)
        at = max(marks[-1] + len(command), at)
    if len(marks) < 3 or marks[-1] <= marks[1]:
        return paste, paste  # (commands not found in order: the whole paste, as before)
    return paste[marks[0]:marks[1]], paste[marks[1]:marks[-1]]


def shared_still_held(items: list[tuple[Any, Any]]) -> list[tuple[int, Finding]]:
    """Three or more ``free`` outputs of one machine in one paste: shared memory (tmpfs, /dev/shm, shared mappings) that
    rose by a large share of the machine (memory.toml [headroom] shared_growth_fraction) between the first two and
    stayed in every later output is held by something no later step released (vllm#16663: sleep mode's weights
    offloaded to host shared memory, unchanged after wake_up). Said on the last output: a warning where the paste shows
    a step meant to release memory (wake_up, a kill or a stopped server); a note naming the step where the paste
    itself copied into /dev/shm (on purpose) or shows no such step. One machine: its prompt's host or ``ssh HOST``;
    with neither, outputs of one total in a paste that reaches no other machine (ssh, pdsh, `== host` headers), and
    units known (plain KiB guesses say nothing)."""
    from ..calc.specs import row
    from .context import context
    grow = row("memory.toml", "headroom").graded("shared_growth_fraction")
    paste = context().paste or ""
    by_host: dict[Any, list[tuple[int, Any]]] = {}
    for index, (s, parsed) in enumerate(items):
        if s.kind == "free" and not s.error and parsed is not None and parsed.mem.shared is not None \
                and getattr(parsed, "unit_known", True):
            by_host.setdefault(output_machine(s), []).append((index, parsed.mem, s.command or ""))
    out = []

    def size(n: int) -> str:
        return f"{n / 1024 ** 3:.1f} GiB" if n >= 1024 ** 3 // 10 else f"{n / 1024 ** 2:.0f} MiB"
    for host, runs in by_host.items():
        if grow is None or len(runs) < 3 or host is None and (len({m.total for _, m, _ in runs}) > 1
                                                              or _MANY_HOSTS_RE.search(paste)):
            continue
        first, second, (at, last, _) = runs[0][1], runs[1][1], runs[-1]
        rise = second.shared - first.shared
        if rise < grow * first.total or size(first.shared) == size(second.shared) \
                or any(m.shared * 10 < second.shared * 9 for _, m, _ in runs[2:]):
            continue
        said = (f"Shared memory (tmpfs, /dev/shm, shared mappings) rose from {size(first.shared)} to "
                f"{size(second.shared)} between the first two `free` outputs and is still {size(last.shared)} in the "
                "last")
        put, between = _PUT_IN_SHM_RE.search(paste), _between(paste, [c for _, _, c in runs])
        slept = [m.end() for m in _SLEPT_RE.finditer(between[0])]  # a /wake_up after the /sleep, in order, releases
        released = _RELEASE_RE.search(between[0][slept[-1]:] + "\n" + between[1] if slept else between[1])
        if slept and not released:
            out.append((at, info(f"{said}: the step between, vLLM's /sleep, moves the model's weights into host memory "
                                 "by design (level 1), and no /wake_up follows in the paste, so the server still "
                                 "holds them there: expected, not a leak.")))
            continue
        if put:
            out.append((at, info(f"{said}: the paste's own `{put.group(0).strip()[:80]}` put files in RAM-backed "
                                 "/dev/shm, which hold that memory (not counted as available) until they are deleted; "
                                 "on purpose, so no fault, but it is RAM a server or the page cache cannot use.")))
        elif released:
            out.append((at, warn(f"{said}: something still holds it; the step between was meant to release it "
                                 "(vLLM's sleep mode offloads weights there, wake_up should give them back), and it "
                                 "did not, so each repeat may take more. `grep -i shmem /proc/meminfo`, `df -h "
                                 "/dev/shm` and `ps aux --sort=-rss | head` show who holds it.")))
        else:
            out.append((at, info(f"{said}: something holds it (files in /dev/shm or a tmpfs, or a process's shared "
                                 "mappings, as vLLM's sleep mode offloading weights there); a fault only if a step "
                                 "between was meant to release it. `grep -i shmem /proc/meminfo`, `df -h /dev/shm` "
                                 "and `ps aux --sort=-rss | head` show who holds it.")))
    return out


# --------------------------------------------------------------------------- df

def summarise_df(mounts: Any, command: str | None) -> Summary:
    """``df``: the shared memory a container gives NCCL and vLLM (/dev/shm against checks/specs/memory.toml [shm]),
    whether it is a container's view (its root on ``overlay``), and the root's free space."""
    from ..calc.specs import row
    gib, mib = 1024 ** 3, 1024 ** 2
    facts = {"mounts": [{"filesystem": m.filesystem, "size_bytes": m.size, "used_bytes": m.used, "avail_bytes": m.avail,
                         "mount": m.mount} for m in mounts]}
    findings: list[Finding] = []
    root = next((m for m in mounts if m.mount == "/"), None)
    boxed = root is not None and root.filesystem == "overlay"
    if root is not None:
        findings.append(info(f"/ ({root.filesystem}): {root.avail / gib:.1f} GiB free of {root.size / gib:.1f} GiB"
                             + (": a container's root (overlay), so this is the container's view." if boxed else ".")))
    shm = next((m for m in mounts if m.mount == "/dev/shm"), None)
    low = row("memory.toml", "shm").graded("low_mib")
    if shm is not None and low is not None and shm.size < low * mib:
        findings.append(warn(f"/dev/shm is {shm.size / mib:.0f} MiB{' (Docker gives a container 64 MiB)' if boxed else ''}: "
                             f"under the {low:g} MiB NCCL's guide asks for (checks/specs/memory.toml [shm]). NCCL's "
                             "shared-memory transport between local GPUs and vLLM's workers put their buffers there; "
                             "start the container with `--ipc=host` (or `--shm-size=16g`)."))
    elif shm is not None:
        findings.append(ok(f"/dev/shm is {shm.size / gib:.1f} GiB ({shm.avail / gib:.1f} GiB free): room for NCCL's "
                           "shared-memory buffers and vLLM's workers."))
    return facts, findings
