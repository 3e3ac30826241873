"""An optical module's receive power in ``ethtool -m`` against the module's own low thresholds (its EEPROM carries
them: SFF-8472 for SFP, SFF-8636 and CMIS for QSFP, each lane's power on a line of its own). A reading past its
low-warning threshold with the flag not shown On, or within checks/specs/ethernet.toml [module_rx_power] margin_db
above it, is a warn: the link works with little optical margin; well above it, an ok. The rest of the module is
:func:`grader.judges.link.summarise_module`'s."""

from __future__ import annotations

import re
from typing import Any

from .common import ok, warn
from .model import Summary

_RX_KEY_RE = re.compile(r"^(?:Receiver signal average optical power|Rcvr signal avg optical power|Rx power)"
                        r"\s{0,3}(?:\((?:Chan(?:nel)?) ?(?P<lane>\d{1,2})\))?$", re.I)
_DBM_RE = re.compile(r"/ (?P<dbm>-?\d{1,3}(?:\.\d{1,4})?) dBm")


def _dbm(value: str | None) -> float | None:
    m = _DBM_RE.search(value or "")
    return float(m.group("dbm")) if m else None


def _threshold(fields: dict[str, str], level: str) -> float | None:
    return next((_dbm(v) for k, v in fields.items()
                 if re.fullmatch(rf"(?:Laser )?rx power low {level} threshold", k, re.I) and _dbm(v) is not None), None)


def summarise_module(m: Any, command: str | None) -> Summary:
    from .link import summarise_module as module
    facts, findings = module(m, command)
    return facts, findings + rx_power_margin(m)


def rx_power_margin(m: Any) -> list:
    """The receive power of each lane shown against the module's own low-warning (and alarm) threshold."""
    from ..calc.specs import row
    low, alarm = _threshold(m.fields, "warning"), _threshold(m.fields, "alarm")
    margin = row("ethernet.toml", "module_rx_power").graded("margin_db")
    lanes = [(mm.group("lane"), _dbm(v)) for k, v in m.fields.items() if (mm := _RX_KEY_RE.match(k))]
    lanes = [(lane, p) for lane, p in lanes if p is not None]
    if low is None or margin is None or not lanes or any("rx power" in f.lower() or "rcvr" in f.lower()
                                                         for f in m.flags_on):
        return []  # no threshold to weigh it against, or the module's own flag says it (summarise_module)
    name = m.interface or "the port"
    lane, worst = min(lanes, key=lambda x: x[1])
    where = f"{name}{f' lane {lane}' if lane else ''}"
    limits = f"its own low-warning threshold {low:g} dBm" + (f", low alarm {alarm:g} dBm" if alarm is not None else "")
    if worst < low + margin:
        how = (f"{low - worst:.2f} dB below" if worst < low else f"only {worst - low:.2f} dB above")
        return [warn(f"{where}: the module receives {worst:g} dBm of light (rx power), {how} {limits}: light "
                     "arrives, with little optical margin: a little more loss and the link takes errors or drops. Clean and inspect both "
                     "fibre ends and the patch cord (a dirty or damaged connector, too long or older multimode "
                     "fibre), and read the far end's transmit power (`ethtool -m` there).")]
    return [ok(f"{where}: rx power {worst:g} dBm, {worst - low:.2f} dB above {limits}.")]
