"""Judge of a GPU's memory health as ``nvidia-smi -q`` reports it (for grader.judges.gpu's summarise_q): its ECC error
counts and its row remapping (A100 and later; retired pages on older cards).

ECC corrects single-bit errors as they happen (a correctable count is no fault by itself); an uncorrectable one kills
the process that touched it (Xid 48, 63, 64, 94, 95). From the A100 on the driver remaps the row of a failing cell: a
remap ``Pending`` takes effect at the next GPU reset, and a ``Remapping Failure`` (or a bank with no spare row left) is
NVIDIA's sign to replace the board. Source: NVIDIA's GPU Memory Error Management guide (row remapping, its states and
what to do); blind batch vv001 (an A100: 177 correctable DRAM errors, a remap pending).
"""

from __future__ import annotations

from typing import Any

from .common import fail, info, warn
from .model import Finding


def _count(value: Any) -> int | None:
    if isinstance(value, dict):  # the older layout: a kind's counts per memory, with their Total
        value = value.get("Total")
    return int(value) if isinstance(value, str) and value.strip().isdigit() else None


_BAD = ("Uncorrectable", "Double Bit")
"""What an ECC count's name says of an error ECC could not correct (``DRAM Uncorrectable``, ``SRAM Uncorrectable
SEC-DED`` and ``... Parity`` since driver 550, ``Double Bit`` before the A100); the rest (``Correctable``, ``Single
Bit``) were corrected."""


def memory_health(g: Any) -> list[Finding]:
    """The ECC and row-remapping findings of one ``-q`` GPU (``g``: grader.parsers.nvidia_smi.SmiQGpu); [] where its
    report shows neither section."""
    out: list[Finding] = []
    counts = {(scope, kind): n for scope in ("Volatile", "Aggregate")
              for kind, value in (g.get("ECC Errors", scope) or {}).items() if (n := _count(value)) is not None}
    bad = {k: n for k, n in counts.items() if any(w in k[1] for w in _BAD)}
    good = {k: n for k, n in counts.items() if k not in bad}
    said = lambda c: ", ".join(f"{k[1]} {n} ({k[0].lower()})" for k, n in c.items() if n)  # noqa: E731
    if str(g.get("ECC Errors", "Aggregate", "SRAM Threshold Exceeded") or "").strip().lower() == "yes":
        out.append(fail(f"GPU {g.bus_id}: `SRAM Threshold Exceeded: Yes`: its on-chip memory (SRAM) has corrected more "
                        "errors than NVIDIA's threshold allows: the sign to replace the board (RMA)."))
    if any(bad.values()):
        out.append(warn(f"GPU {g.bus_id}: uncorrectable ECC errors ({said(bad)}): each killed the process that touched "
                        "that memory (an Xid 48, 94 or 95 in `sudo dmesg`). Volatile counts are since the last reset; "
                        "if they recur, the card's memory is failing: its retired pages or remapped rows, or NVIDIA's "
                        "field diagnostics, decide whether to replace it."))
    elif any(good.values()):
        out.append(info(f"GPU {g.bus_id}: correctable ECC errors ({said(good)}): ECC fixed each as it happened, so "
                        "no result was wrong; a count that keeps growing marks cells the driver will remap."))
    retired = g.get("Retired Pages")
    if isinstance(retired, dict) and str(retired.get("Pending Page Blacklist", retired.get("Pending Page Retirement",
                                                                                               ""))).strip().lower() == "yes":
        out.append(warn(f"GPU {g.bus_id}: a page retirement is pending (`Pending Page Blacklist: Yes`): the driver "
                        "retires a failing page of memory at the next GPU reset or reboot; until then the card runs "
                        "with it. Reset the GPU (no process on it) or reboot."))
    remap = g.get("Remapped Rows")
    if isinstance(remap, dict):
        failed = str(remap.get("Remapping Failure Occurred", "")).strip().lower() == "yes"
        pending = str(remap.get("Pending", "")).strip().lower() == "yes"
        rows = ", ".join(f"{k.lower()} {v}" for k, v in remap.items() if isinstance(v, str) and k.endswith("Error")
                         and v.strip() not in ("0", "N/A"))
        if failed:
            out.append(fail(f"GPU {g.bus_id}: `Remapping Failure Occurred: Yes`: a failing memory row could not be "
                            "remapped (no spare row left in its bank): NVIDIA's sign to replace the board (RMA)."))
        elif pending:
            out.append(warn(f"GPU {g.bus_id}: a row remap is pending (`Pending: Yes`" + (f"; remapped for {rows}" if rows
                            else "") + "): the driver set a spare row aside for a failing cell, and it takes effect "
                            "at the next GPU reset. Until then the card runs with that cell: reset the GPU "
                            "(`sudo nvidia-smi -r -i <index>` with no process on it) or reboot."))
        elif rows:
            out.append(info(f"GPU {g.bus_id}: rows remapped ({rows}): spare rows replaced failing cells, as designed; "
                            "none pending."))
    return out
