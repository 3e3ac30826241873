"""Parser for netplan YAML files (``/etc/netplan/*.yaml``, ``netplan get``)."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any

from .common import ParseError, clean_lines, is_prompt_line, is_sudo_line, raise_if_shell_error, Line

_FENCES = ("```", "~~~")

MAX_CHARS = 128 * 1024
"""The longest text read as a netplan file, in characters (a real one is a few hundred bytes). YAML is
read by pure Python here, about 0.3 MB/s: a bound keeps every paste and probe output well under a second."""


@functools.lru_cache(maxsize=1)
def _yaml() -> tuple[Any, type, type]:
    """PyYAML, and the two classes defined here, made when a netplan file is first read (importing PyYAML costs every
    other paste ~15 ms): (the yaml module, _AliasFound, _NoAliasLoader)."""
    import yaml

    class _AliasFound(yaml.MarkedYAMLError):
        """An alias (``*name``) in the YAML: refused, see :class:`_NoAliasLoader`."""

    class _NoAliasLoader(yaml.SafeLoader):
        """YAML's safe loader, refusing aliases (``*name``).

        netplan files never need them, and each alias is a reference a reader expands: nine nested lists
        of nine aliases, a few hundred bytes, are 43 million items once printed (25 MB of ``explain`` and
        ``grade --json`` output). Anchors alone (``&name``) are harmless and kept.
        """

        def compose_node(self, parent: Any, index: Any) -> Any:
            if self.check_event(yaml.AliasEvent):
                event = self.peek_event()
                raise _AliasFound(None, None, f"*{event.anchor}", event.start_mark)
            return super().compose_node(parent, index)

    return yaml, _AliasFound, _NoAliasLoader


@dataclass(frozen=True)
class NetplanInterface:
    """One ``ethernets:`` entry.

    ``addresses`` are CIDR strings as written (mapping-form entries like
    ``- 10.0.0.1/24: {lifetime: 0}`` give their key). ``dhcp4``, ``mtu`` (bytes),
    ``link_local`` (e.g. ``("ipv4",)``; ``()`` for ``link-local: []``) and ``optional`` are
    None when the key is absent.
    """

    name: str
    addresses: tuple[str, ...] = ()
    dhcp4: bool | None = None
    mtu: int | None = None
    link_local: tuple[str, ...] | None = None
    optional: bool | None = None


@dataclass(frozen=True)
class NetplanConfig:
    """A netplan file: ``renderer`` (``networkd``, ``NetworkManager``; None when absent),
    ``version`` (2), the ``ethernets`` by interface name, in file order, and ``bonds``/``bridges``: each
    one's name -> ``(its member interfaces, as listed; its entry read as an interface: addresses, mtu ...)``."""

    renderer: str | None
    ethernets: dict[str, NetplanInterface]
    version: int | None = None
    bonds: dict[str, tuple[tuple[str, ...], NetplanInterface]] = field(default_factory=dict)
    bridges: dict[str, tuple[tuple[str, ...], NetplanInterface]] = field(default_factory=dict)
    cut: str | None = None
    """The last line, when it broke the YAML and was set aside: the paste stops in the middle of a key (a copy cut
    short); None when the whole text was read."""


def parse_netplan(text: str, cut_ok: bool = False) -> NetplanConfig:
    """Parse a netplan YAML file (``network: {version: 2, ethernets: {...}}``).

    Prompt lines (``$ sudo cat /etc/netplan/40-cx7.yaml``), sudo prompts and markdown
    fences are dropped and common indentation is removed before YAML parsing. Accepts
    NVIDIA's static file and its older ``link-local: [ ipv4 ]`` variant. ``bonds`` and ``bridges`` are read (their
    members and their own addresses); other sections (``vlans``...) are ignored.

    ``cut_ok`` (a person's paste, not the probe's read of a file): a last line that alone breaks the YAML (the paste
    stops in the middle of a key) is set aside, read as ``cut``, and the rest is read; the probe's read of a file keeps
    it, and a file netplan would reject raises.

    Raises ParseError for YAML syntax errors (with the line number in the text given),
    ``Permission denied`` / ``No such file`` from ``cat``, no ``network:`` mapping, and
    values netplan itself would reject (``addresses`` not a list, a non-numeric ``mtu``); and,
    to stay bounded, for YAML aliases (``*name``, see ``_NoAliasLoader``), nesting deeper than
    Python's recursion limit, and a text longer than ``MAX_CHARS`` characters.
    """
    kept = [(no, line) for no, line in enumerate(clean_lines(text), start=1)
            if not (is_prompt_line(line) or is_sudo_line(line) or line.strip().startswith(_FENCES))]
    raise_if_shell_error([Line(no, s, None, 0) for no, s in kept], "netplan")
    body = _dedent([s for _, s in kept])
    numbers = [no for no, _ in kept]

    def where(mark: Any) -> tuple[str | None, int | None]:
        if mark is None or not numbers:
            return None, None
        idx = min(mark.line, len(numbers) - 1)
        lines = body.splitlines()  # may be shorter than numbers (trailing blanks dropped)
        return (lines[idx].strip() if idx < len(lines) else None), numbers[idx]

    if len(body) > MAX_CHARS:
        raise ParseError("netplan", f"{len(body) / 2**20:.1f} MB of text is not a netplan file (one is a few hundred "
                         "bytes): paste the file alone, e.g. `sudo cat /etc/netplan/40-cx7.yaml`")
    cut = None
    yaml, _AliasFound, _NoAliasLoader = _yaml()
    try:
        try:
            node = yaml.compose(body, Loader=_NoAliasLoader)
        except yaml.YAMLError as err:  # the last line alone breaks it (cut in the middle of a key): read the rest
            rest, _, last = body.rstrip("\n").rpartition("\n")
            mark = getattr(err, "problem_mark", None) or getattr(err, "context_mark", None)
            if not cut_ok or not rest.strip() or isinstance(err, _AliasFound) or mark is None \
                    or mark.line < rest.count("\n") + 1:
                raise
            node, cut = yaml.compose(rest, Loader=_NoAliasLoader), last.strip()
        data = yaml.SafeLoader("").construct_document(node) if node is not None else None
    except _AliasFound as err:
        line, no = where(err.problem_mark)
        raise ParseError("netplan", f"the YAML uses an alias (`{err.problem}`): netplan files do not need aliases, "
                         "and each one repeats a whole value (nested ones grow to millions of items); write the "
                         "value out instead", line, no) from None
    except RecursionError:
        raise ParseError("netplan", "the YAML is nested too deeply to be a netplan file") from None
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None) or getattr(err, "context_mark", None)
        line, no = where(mark)
        problem = getattr(err, "problem", None) or str(err).splitlines()[0]
        raise ParseError("netplan", f"invalid YAML: {problem}", line, no) from None
    network = data.get("network") if isinstance(data, dict) else None
    if not isinstance(network, dict):
        raise ParseError("netplan", "no top-level `network:` mapping (is this a netplan file?)")
    ethernets = network.get("ethernets") or {}
    if not isinstance(ethernets, dict):
        raise ParseError("netplan", "`ethernets:` must be a mapping of interface names")
    out = {}
    for name, conf in ethernets.items():
        try:
            out[str(name)] = _interface(str(name), conf or {})
        except ParseError as err:  # point at the offending line
            raise ParseError(err.command, err.message, *_find_line(kept, str(name), err.line)) from None
    groups: dict[str, dict] = {"bonds": {}, "bridges": {}}
    for section, found in groups.items():
        entries = network.get(section) or {}
        for name, conf in (entries.items() if isinstance(entries, dict) else ()):
            conf = conf if isinstance(conf, dict) else {}
            members = conf.get("interfaces") or []
            try:
                found[str(name)] = (tuple(str(m) for m in members) if isinstance(members, list) else (),
                                    _interface(str(name), {k: v for k, v in conf.items() if k != "interfaces"}))
            except ParseError as err:
                raise ParseError(err.command, err.message, *_find_line(kept, str(name), err.line)) from None
    renderer = network.get("renderer")
    version = network.get("version")
    return NetplanConfig(None if renderer is None else str(renderer), out,
                         version if isinstance(version, int) else None, groups["bonds"], groups["bridges"], cut)


def _find_line(kept: list[tuple[int, str]], name: str, key_line: str | None) -> tuple[str | None, int | None]:
    """The (text, number) of the first line after ``name:`` that starts like key_line."""
    key = (key_line or "").split(":")[0].strip()
    inside = False
    for no, line in kept:
        s = line.strip()
        inside = inside or s.startswith(f"{name}:")
        if inside and key and s.startswith(f"{key}:"):
            return s, no
    return key_line, None


def _dedent(lines: list[str]) -> str:
    """Remove the indentation all YAML lines share (markdown pastes), ignoring comments."""
    indents = [len(x) - len(x.lstrip(" ")) for x in lines if x.strip() and not x.lstrip().startswith("#")]
    cut = min(indents, default=0)
    return "\n".join(x[cut:] if x[:cut] == " " * cut else x.lstrip(" ") for x in lines)


def _interface(name: str, conf: Any) -> NetplanInterface:
    if not isinstance(conf, dict):
        raise ParseError("netplan", f"`{name}:` must be a mapping of settings", str(conf))
    addresses = conf.get("addresses", [])
    if addresses is None:
        addresses = []
    if not isinstance(addresses, list):
        raise ParseError("netplan", f"`{name}: addresses` must be a list, e.g. "
                         f"`addresses: [192.168.100.10/24]` (netplan rejects a single string)",
                         f"addresses: {addresses}")
    cidrs = []
    for entry in addresses:
        if isinstance(entry, dict) and len(entry) == 1:
            cidrs.append(str(next(iter(entry))))
        elif isinstance(entry, (str, int, float)):
            cidrs.append(str(entry))
        else:
            raise ParseError("netplan", f"`{name}: addresses` entry is not an address", str(entry))
    mtu = conf.get("mtu")
    if mtu is not None and (isinstance(mtu, bool) or not str(mtu).isdigit()):
        raise ParseError("netplan", f"`{name}: mtu` must be a number of bytes", f"mtu: {mtu}")
    link_local = conf.get("link-local")
    if link_local is not None:
        link_local = tuple(str(x) for x in link_local) if isinstance(link_local, list) else (str(link_local),)
    return NetplanInterface(name, tuple(cidrs), _bool(conf.get("dhcp4")),
                            None if mtu is None else int(mtu), link_local, _bool(conf.get("optional")))


def _bool(value: Any) -> bool | None:
    """YAML booleans, also quoted ``"yes"``/``"no"``/``"true"``/``"false"``."""
    if value is None or isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("yes", "true", "on", "y"):
        return True
    if text in ("no", "false", "off", "n"):
        return False
    return None
