"""What an evidence file's own outputs prove about the machines it was recorded on.

Pure functions over an :class:`~grader.evidence.Evidence`, no cluster needed:

- :func:`platform`: per node, the GPUs, DMI product, sim marker, machine-id hash and SSH host key,
  read from the ``platform`` raw output (grader.probes.platform) and the provenance;
- :func:`profile_problem`: whether those outputs SHOW the profile the evidence claims (a profile
  is otherwise only the learner's word in the inventory, and one machine claiming ``single-spark``
  would earn the points of checks that are then all n.a.);
- :func:`identity`: one hash per set of machines (host keys + machine-id hashes, node names left out):
  two submissions with the same identity were recorded on the same machines;
- :func:`replay_problem`: whether the evidence is the course's replay (saved into a ``recorded/``
  folder, or recorded on the machines of a shipped replay, ``checks/replays.toml``).
- :func:`sim_work_problem`: whether sim evidence of a lesson with a start state was recorded on a sim built
  at that start (the sim's own record, sealed into the evidence), so that its points are the learner's work.

What a DGX Spark shows, and where that is seen:

- ``nvidia-smi`` names its GPU ``NVIDIA GB10``: the nvidia-smi table in snowflakedb/ArcticTraining
  pull request #345 (driver 580.126.09, ``0  NVIDIA GB10  On | 0000000F:01:00.0``), and NCCL's device
  lines in ../shared/fixtures/real/spark/07_* and 08_* (``device 0 [000f:01:00] NVIDIA GB10``, on
  DGX Sparks and on Dell Pro Max GB10, an OEM GB10 box);
- DMI ``/sys/class/dmi/id/product_name`` reads ``NVIDIA_DGX_Spark`` (sys_vendor ``NVIDIA``, board
  ``P4242``), read on a DGX Spark in lablup/all-smi issue #147. OEM GB10 boxes carry their own
  product names; their GPU is still ``NVIDIA GB10``, so either one is accepted.

This is evidence, not proof against a determined forger (a learner can put a fake ``nvidia-smi`` on
the PATH); the identity and ``clusterlab audit``/``verify`` are the instructor's other tools.
"""

from __future__ import annotations

import functools
import os
import hashlib
import re
from importlib import resources
from typing import Any

from grader.evidence import Evidence, _how_to_record

try:
    import tomllib
except ModuleNotFoundError:  # pragma: no cover
    import tomli as tomllib  # type: ignore[no-redef]

PROBE = "platform"
"""The probe id of the platform output in evidence (grader.probes.platform.PROBE)."""

SIM_MARKER = "/etc/clusterlab-sim-node"

REPLAYS_FILE = "replays.toml"
"""In checks/: the identities of the replay evidence shipped with the labs (scripts/register_replays.py)."""

_SPARK_GPU = re.compile(r"\bGB10\b", re.I)
_SPARK_PRODUCT = re.compile(r"DGX[\s_-]*Spark|\bGB10\b", re.I)
_LINE = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*:[ \t]?(.*)$")
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
_HEX64 = re.compile(r"[0-9a-f]{64}")
_NOT_A_GPU = re.compile(r"NVIDIA-SMI has failed|No devices were found|Failed to initialize NVML|not found|"
                        r"command not found|couldn't communicate|Unable to determine|\bERR!|Insufficient Permissions",
                        re.I)
_WHAT = {"spark-pair": "two DGX Sparks (or OEM GB10 machines)", "single-spark": "one DGX Spark (or OEM GB10 machine)",
         "dual-gpu-desktop": "one machine with two GPUs", "sim": "the simulated cluster `clusterlab sim up` builds"}


# ---------------------------------------------------------------------------------------------
# reading the platform output


def parse_platform(text: str) -> dict[str, Any]:
    """One platform output (grader.probes.platform) as ``{"gpus": [str], "product": str|None,
    "sys_vendor": str|None, "sim_node": str|None, "machine_id_sha256": str|None, "nvidia_smi_exit": int|None}``.

    Tolerant: unknown and unreadable lines are skipped, CR/LF and colour codes removed, a truncated
    machine-id hash (not 64 hex digits) is None, a ``gpu:`` line that is an nvidia-smi error message is
    no GPU, and when nvidia-smi's exit status says it failed no GPU is taken. Never raises.
    """
    out: dict[str, Any] = {"gpus": [], "product": None, "sys_vendor": None, "sim_node": None,
                           "machine_id_sha256": None, "nvidia_smi_exit": None}
    for line in _ANSI.sub("", text or "").replace("\r", "\n").split("\n"):
        m = _LINE.match(line)
        if not m:
            continue
        key, val = m.group(1).lower(), m.group(2).strip()
        if key == "gpu":
            if val and not _NOT_A_GPU.search(val):
                out["gpus"].append(val)
        elif key == "nvidia_smi_exit":
            out[key] = int(val) if val.isdigit() else None
        elif key == "machine_id_sha256":
            out[key] = val.lower() if _HEX64.fullmatch(val.lower()) else None
        elif key in ("product", "sys_vendor", "sim_node") and out[key] is None:
            out[key] = val or None
    if out["nvidia_smi_exit"] not in (None, 0):
        out["gpus"] = []
    return out


def _nodes(ev: Evidence) -> list[str]:
    """The evidence's node names: its inventory's, in order, else those of its raw outputs."""
    names = [n.get("name") for n in (ev.inventory or {}).get("nodes", []) if isinstance(n, dict)]
    names = [n for n in names if isinstance(n, str)]
    return names or list(dict.fromkeys(r.node for r in ev.raw))


def _host_key(ev: Evidence, node: str) -> str | None:
    nodes = ev.provenance.get("nodes") if isinstance(ev.provenance, dict) else None
    entry = nodes.get(node) if isinstance(nodes, dict) else None
    key = entry.get("host_key") if isinstance(entry, dict) else None
    return key if isinstance(key, str) and key.strip() else None


def _read(ev: Evidence) -> dict[str, dict[str, Any]]:
    """Every node of the evidence with its parsed platform output (``None`` fields when it has none)
    plus ``host_key`` and ``has_probe``."""
    info = {}
    for node in _nodes(ev):
        raw = ev.outputs(node, PROBE)
        p = parse_platform(raw.stdout) if raw is not None else parse_platform("")
        info[node] = {**p, "host_key": _host_key(ev, node), "has_probe": raw is not None}
    return info


def platform(ev: Evidence) -> dict[str, dict[str, Any]]:
    """``{node: {"gpus": [str], "product": str|None, "sim": bool, "machine_id_sha256": str|None,
    "host_key": str|None}}`` for each node with a platform output or a recorded host key.

    ``gpus``: the GPU names nvidia-smi listed (``NVIDIA GB10`` on a DGX Spark); ``product``: the DMI
    product name (``NVIDIA_DGX_Spark``); ``sim``: the node carries the clusterlab sim marker;
    ``machine_id_sha256``: sha256 of ``clusterlab:`` + /etc/machine-id (64 hex digits);
    ``host_key``: its SSH host key fingerprint as the grader verified it (``SHA256:...``).
    """
    return {n: {"gpus": list(i["gpus"]), "product": i["product"], "sim": bool(i["sim_node"]),
                "machine_id_sha256": i["machine_id_sha256"], "host_key": i["host_key"]}
            for n, i in _read(ev).items() if i["has_probe"] or i["host_key"]}


# ---------------------------------------------------------------------------------------------
# the profile


def is_spark(node: dict[str, Any]) -> bool:
    """A node's platform shows a DGX Spark or an OEM GB10 machine: a GPU named GB10, or a DMI product
    name saying DGX Spark or GB10 (see the module docstring for the sources)."""
    return any(_SPARK_GPU.search(g) for g in node.get("gpus") or []) or \
        bool(node.get("product") and _SPARK_PRODUCT.search(node["product"]))


def describe(node: dict[str, Any]) -> str:
    """What one node's platform output shows, in words: its GPUs, DMI product and sim marker."""
    gpus = node.get("gpus") or []
    if gpus:
        counts = {g: gpus.count(g) for g in dict.fromkeys(gpus)}
        what = "nvidia-smi lists " + ", ".join(f"{g}" + (f" x{c}" if c > 1 else "") for g, c in counts.items())
    elif node.get("nvidia_smi_exit") == 127:
        what = "nvidia-smi is not installed"
    elif node.get("nvidia_smi_exit") not in (None, 0):
        what = f"nvidia-smi failed (exit {node['nvidia_smi_exit']}: no driver loaded, or no GPU)"
    else:
        what = "nvidia-smi lists no GPU"
    what += f", DMI product {node['product']!r}" if node.get("product") else ", no DMI product name"
    if node.get("sim_node"):
        what += f", clusterlab sim marker {node['sim_node']!r}"
    return what


def _how(ev: Evidence) -> str:
    return _how_to_record(ev.lesson)


def profile_problem(ev: Evidence) -> str | None:
    """None when the evidence's own platform outputs SHOW its profile; else one or two sentences naming
    what is missing or contradicts it, and the fix.

    Rules (each node's ``platform`` output, grader.probes.platform):

    - ``spark-pair``: two nodes, each a DGX Spark or OEM GB10 machine (:func:`is_spark`), and two
      different machines (machine-id hashes, else host keys, differ);
    - ``single-spark``: its node is a DGX Spark or OEM GB10 machine;
    - ``dual-gpu-desktop``: a node whose nvidia-smi lists at least two GPUs;
    - ``sim``: every node carries the clusterlab sim marker (/etc/clusterlab-sim-node, which only
      ``clusterlab sim up`` creates), and the two nodes are different (sim) machines;
    - under any other profile than ``sim``, a node carrying the sim marker contradicts it;
    - evidence without any platform output (recorded by an older grader) shows no profile at all;
      a node without one (not reached when recorded) shows nothing for that node.
    """
    profile, how = ev.profile, _how(ev)
    info = _read(ev)
    names = list(info)
    what = _WHAT.get(profile, f"profile {profile!r}")
    if not names:
        return f"This evidence names no node, so nothing in it shows {what}. Record it again with {how}."
    if not any(i["has_probe"] for i in info.values()):
        if any(r.node in info for r in ev.raw):
            when = (ev.provenance or {}).get("created_at") or "at an unknown time"
            return (f"This evidence has no platform probe (it was recorded {when} by a grader without one), so "
                    f"nothing in it shows that the machines are {what}: profile {profile} is only claimed. Check "
                    f"again with this grader: {how}.")
        return (f"No node of this evidence answered when it was recorded, so nothing shows {what}. "
                f"Record it again with {how}.")

    sims = [n for n in names if info[n]["sim_node"]]
    if profile != "sim" and sims:
        one = len(sims) == 1
        return (f"{_join(sims)} {'is a clusterlab sim node' if one else 'are clusterlab sim nodes'} "
                f"(the sim marker {SIM_MARKER} is there), which contradicts profile {profile}: the sim is not "
                f"{what}. Grade it as profile sim, or record it on the real machines with {how}.")
    silent = [n for n in names if not info[n]["has_probe"]]
    if silent:
        old = "recorded by a grader without the platform probe"
        why = "; ".join((ev.errors or {}).get(n) or f"{n}: " + (old if any(r.node == n for r in ev.raw) else "no output")
                        for n in silent)
        return (f"{_join(silent)} gave no platform output ({why}), so nothing shows that "
                f"{'it is' if len(silent) == 1 else 'they are'} part of {what}. Check again with every node "
                f"reachable: {how}.")
    fix = (f"If the machines are something else, set `profile` in the inventory to what they are and check "
           f"again with {how}.")
    if profile == "sim":
        plain = [n for n in names if not info[n]["sim_node"]]
        if plain:
            return (f"{_join(plain)} carr{'ies' if len(plain) == 1 else 'y'} no clusterlab sim marker ({SIM_MARKER}; "
                    f"{'; '.join(f'{n}: {describe(info[n])}' for n in plain)}), so "
                    f"{'it is' if len(plain) == 1 else 'they are'} not a node of the simulated cluster that profile sim "
                    f"claims. Record it on the sim (`clusterlab sim up`), or {fix[0].lower() + fix[1:]}")
    elif profile in ("spark-pair", "single-spark"):
        others = [n for n in names if not is_spark(info[n])]
        if others:
            return (f"Profile {profile} needs {what}: nvidia-smi naming an `NVIDIA GB10` GPU, or DMI product "
                    f"`NVIDIA_DGX_Spark`. {'; '.join(f'{n}: {describe(info[n])}' for n in others)}. {fix}")
    elif profile == "dual-gpu-desktop":
        if not any(len(info[n]["gpus"]) >= 2 for n in names):
            return (f"Profile dual-gpu-desktop needs a machine whose nvidia-smi lists at least two GPUs. "
                    f"{'; '.join(f'{n}: {describe(info[n])}' for n in names)}. Check that both cards show in "
                    f"`nvidia-smi -L` (seated, powered, driver loaded); {fix[0].lower() + fix[1:]}")
    if len(names) == 2:
        a, b = (info[n] for n in names)
        same = [what_ for what_, key in (("machine-id", "machine_id_sha256"), ("SSH host key", "host_key"))
                if a[key] and a[key] == b[key]]
        if same:
            return (f"{names[0]} and {names[1]} are one machine (the same {' and '.join(same)}): the inventory "
                    f"names it twice, but profile {profile} needs two. Point each node at its own machine and check "
                    f"again with {how}.")
    return None


def _join(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


# ---------------------------------------------------------------------------------------------
# identity and replays


def identity(ev: Evidence) -> str | None:
    """sha256 (hex) naming the set of machines ``ev`` was recorded on, or None when it records neither
    a host key nor a machine-id hash.

    Over each node's ``"<host key fingerprint> <machine-id sha256>"`` (``-`` for a missing part), sorted,
    so node names and their order do not count: two evidence files with the same identity were recorded
    on the same machines (for the sim: on the same ``sim up``, which gives its nodes new machine-ids).
    Evidence of an older grader (host keys, no platform output) has an identity of its own.
    """
    parts = sorted(f"{i['host_key'] or '-'} {i['machine_id_sha256'] or '-'}"
                   for i in _read(ev).values() if i["host_key"] or i["machine_id_sha256"])
    if not parts:
        return None
    return hashlib.sha256(("clusterlab.identity/1\n" + "\n".join(parts)).encode()).hexdigest()


@functools.lru_cache(maxsize=1)
def registered_replays() -> dict[str, dict[str, Any]]:
    """``{identity: {"files": [path], "recorded": [UTC time]}}`` from checks/replays.toml: the replay
    evidence shipped with the labs, by the identity of the machines it was recorded on. Raises
    ValueError naming the file when it is malformed; ``{}`` when it does not exist."""
    f = resources.files("checks").joinpath(REPLAYS_FILE)
    if not f.is_file():
        return {}
    try:
        data = tomllib.loads(f.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as e:
        raise ValueError(f"checks/{REPLAYS_FILE}: not valid TOML ({e}); write it again with "
                         "`python scripts/register_replays.py`") from None
    out: dict[str, dict[str, Any]] = {}
    for i, entry in enumerate(data.get("replay", [])):
        ident = entry.get("identity") if isinstance(entry, dict) else None
        if not isinstance(ident, str) or not _HEX64.fullmatch(ident):
            raise ValueError(f"checks/{REPLAYS_FILE}: replay #{i + 1} has no 64-hex-digit `identity`; write it again "
                             "with `python scripts/register_replays.py`")
        out[ident] = {"files": list(entry.get("files", [])), "recorded": list(entry.get("recorded", []))}
    return out


def replay_problem(ev: Evidence) -> str | None:
    """A sentence when ``ev`` is the course's replay evidence rather than a record of the learner's
    machines, else None.

    A replay is evidence whose provenance marks it (``"replay": true``: saved into a folder named
    ``recorded``, grader.evidence.REPLAY_DIR, where ``clusterlab check ... --evidence
    solutions/lessonN/recorded`` writes the replays), or whose :func:`identity` is one of the shipped
    replays' (checks/replays.toml): a copy of a replay with the mark removed.
    """
    how = _how(ev)
    if (ev.provenance or {}).get("replay"):
        when = (ev.provenance or {}).get("created_at") or "an unknown time"
        return (f"This is the replay evidence shipped with the labs (recorded on the course's sim at {when} and "
                f"saved into a `recorded/` folder), not a record of your machines: it earns nothing. Record your "
                f"own with {how}.")
    ident = identity(ev)
    hit = registered_replays().get(ident) if ident else None
    if hit:
        files = ", ".join(hit["files"]) or "a replay"
        return (f"This evidence was recorded on the same machines as the replay shipped with the labs ({files}, "
                f"recorded {', '.join(hit['recorded']) or 'by the course'}): it is a copy of it, not a record of your "
                f"machines, and earns nothing. Record your own with {how}.")
    return None


def record_fault(lesson_name: str, rec: Any) -> str | None:
    """What the sim's record alone (grader.sim.cluster.work_record; None when there is none) says against points
    for ``lesson_name``'s evidence: ``"none"`` no record, ``"finished"`` the sim was not built at one of the
    lesson's start states, ``"served"`` the sim's own ready-made serving ran in a lesson whose serving is the
    learner's; None when the record allows points (a lesson without start states, or a record at its start).
    Whether the record belongs to the machines the outputs show is :func:`sim_work_problem`'s to check."""
    from grader.lessons import REGISTRY

    lesson = REGISTRY.get(lesson_name)
    if lesson is None or not lesson.sim_starts:
        return None
    if not isinstance(rec, dict):
        return "none"
    if rec.get("start") not in lesson.sim_starts:
        return "finished"
    if lesson.sim_learner_serves and rec.get("served_by_sim"):
        return "served"
    return None


SIM_OWN_WORK_ENV = "CLUSTERLAB_SIM_OWN_WORK"
"""The instructor's switch (nbgrader_config.py exports it to the kernels, as CLUSTERLAB_PROFILES): ``off`` lets
sim evidence earn points whatever built the sim (:func:`sim_work_problem` answers None); anything else, or
unset, holds sim evidence to the learner's own work."""


def sim_work_problem(ev: Evidence) -> str | None:
    """A sentence when ``ev`` is sim evidence of a lesson that has start states (``sim_starts`` in
    grader.lessons: lessons 1 and 2, the lab) whose sim was not built in one of them, or, for a lesson whose
    serving the learner starts (lesson 2, the lab), that was measured while the sim's own ready-made serving ran; else None.

    The sim's record (grader.sim.cluster.work_record), sealed into ``provenance["sim"]`` by ``check``, says
    whether the sim that was measured was built at the lesson's start (``clusterlab sim up``) or finished
    (``clusterlab solve``, ``sim up --fault``, ``sim up --serve``, or evidence recorded by a grader that kept
    no record, such as the files the project ships); the record's machine-id hashes must be those the
    platform outputs show, so a record is not moved between sims. The manifest already flags an edited record;
    a learner who forges one with the grader's own code is the instructor's ``verify`` and ``audit`` to find.
    None for another profile, a lesson without a start state, or when the instructor switched the rule off
    (:data:`SIM_OWN_WORK_ENV`)."""
    if ev.profile != "sim" or os.environ.get(SIM_OWN_WORK_ENV, "").strip().lower() == "off":
        return None
    from grader.lessons import REGISTRY

    lesson = REGISTRY.get(ev.lesson)
    starts = lesson.sim_starts if lesson else ()
    if not starts:
        return None
    practise = "on the sim, points come from your own work: " + (
        "`clusterlab start lab`, serve the model yourself in the nodes, across the pair and then on spark-a alone, "
        "and measure each with `clusterlab loadtest` (the notebook's sim path)" if ev.lesson == "lab" else
        f"after lesson 1, `clusterlab start {ev.lesson}`, start Ray and `vllm serve` in the nodes yourself (the "
        "notebook's sim path), then check again" if lesson.sim_learner_serves else
        "`clusterlab sim up` builds lesson 1's start, do the lesson's steps in the nodes, then check again")
    rec = (ev.provenance or {}).get("sim")
    fault = record_fault(ev.lesson, rec)
    if fault == "none":
        return (f"this sim evidence carries no record of how the sim was built (recorded before the sim kept one, or "
                f"one of the files the course ships), so it earns nothing: {practise}")
    if fault == "finished":
        where = " or ".join(f"{s}'s start" for s in starts)
        return (f"the sim this was recorded on was built finished (by `clusterlab solve`, `sim up --fault` or "
                f"`sim up --serve`, built {rec.get('built_at') or 'at an unknown time'}), not at {where}, so the "
                f"steps were not yours and it earns nothing: {practise}")
    if fault == "served":
        return (f"the sim's own ready-made Ray and vLLM were running when this was measured (`sim up --serve` or "
                f"`clusterlab solve` started them), so the serving was not yours and it earns nothing: "
                f"{practise}")
    ids = rec.get("nodes") if isinstance(rec.get("nodes"), dict) else {}
    seen = {n: i["machine_id_sha256"] for n, i in _read(ev).items() if i["machine_id_sha256"]}
    other = sorted(n for n, h in seen.items() if ids.get(n) != h)
    if not seen or other:
        return (f"the sim's record names other machines than the outputs show ({', '.join(other) or 'no machine-id'}): "
                f"it was not recorded with this evidence, which earns nothing: {practise}")
    return None
