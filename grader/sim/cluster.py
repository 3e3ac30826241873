"""Build, inspect and remove the simulated DGX Spark pair on this Linux box (root only).

``up(faults)`` builds the :mod:`~grader.sim.topology` spec with the named faults applied and returns
the inventory path; ``down()`` removes everything ``up`` made; ``status()`` reports what is there;
``reboot(node)`` restarts one node as a machine restarts.

What one node is: a machine of its own. A network namespace (``spark-a``) with the Spark's interface
names, and a small init (:mod:`~grader.sim.node_init`) as PID 1 of its own PID, UTS and mount namespaces:
its own hostname, process table (``ps``, ``pkill``, ``ray stop`` see only the node), /tmp, /run and
/dev/shm (fresh tmpfs), /root (``nodes/<node>/root``), /home (``nodes/<node>/home``: the login user's) and /etc (an overlay: the host's /etc below, the
node's own files above, in ``nodes/<node>/etc``: hostname, hosts, machine-id, the sim marker, netplan/ and
ssh/, those two opaque so the host's own files never show). The sim's commands (ibdev2netdev, netplan,
rdma, ray, vllm) are bound over /usr/local/sbin; the other nodes' folders, the sim's keys, the grader's
private key and the state file are covered, so nothing of the grader is readable inside a node. The sshd
started in it (through :func:`~grader.sim.host.node_command`, as every process the sim starts there) and
every SSH session inherit all of that. The host's own /etc, /root, /tmp, /run and /dev/shm are never changed.

Each node is a machine of its own to the platform probe (grader.probes.platform): its own
``/etc/machine-id``, fresh at every ``up`` (each ``up`` builds new machines, so evidence recorded
on one, such as the replays shipped with the labs, never has the identity of another), and the
sim marker ``/etc/clusterlab-sim-node`` holding its name (the host has none).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import time
from datetime import datetime, timezone
from pathlib import Path

from grader.sim import accounts as _acc
from grader.sim import groups as _groups
from grader.sim import ibdev2netdev_sim as _shim
from grader.sim import multi as _multi
from grader.sim import node as N
from grader.sim import roce_sim
from grader.sim import topology as T
from grader.sim.host import (SimError, _ip_batch, _locked, _mkdir, _netns_list, _ns_pids, _pid_in_ns,  # noqa: F401
                              _read_state, _run, _tcp_open, _which, _write, _write_state, node_command, own)
from grader.sim.topology import Spec

APT_HINT = "apt-get install openssh-server iproute2 iperf3 iputils-ping ethtool"
TOOLS = ("sshd", "ip", "tc", "iperf3", "ping", "ethtool", "ssh", "ssh-keygen", "unshare", "nsenter",
         "mount", "hostname")
SIM_MARKER = Path("/etc/clusterlab-sim-node")
"""In each node: a file holding its name (grader.probes.platform.SIM_MARKER reads it); empty on the host."""
MACHINE_ID = Path("/etc/machine-id")


# --- small helpers -----------------------------------------------------------------------------

def serve_venv_ray() -> Path | None:
    """The serving environment's ``ray`` (scripts/install-serve.sh), or None when not installed."""
    ray = Path(os.environ.get("CLUSTERLAB_SERVE_VENV", "/opt/clusterlab/serve-venv")) / "bin" / "ray"
    return ray if os.access(ray, os.X_OK) else None


def _preflight() -> None:
    if os.geteuid() != 0:
        raise SimError("run as root: the sim makes network namespaces (e.g. `sudo clusterlab sim up`)")
    missing = [t for t in TOOLS if not _which(t)]
    if missing:
        raise SimError(f"missing {', '.join(missing)}: {APT_HINT}")


# --- keys --------------------------------------------------------------------------------------

def _keypair(path: Path, comment: str) -> str:
    """Make an ed25519 key at ``path`` unless one is there; return its public line."""
    pub = Path(str(path) + ".pub")
    if not (path.is_file() and pub.is_file()):
        path.unlink(missing_ok=True)
        pub.unlink(missing_ok=True)
        _run([_which("ssh-keygen"), "-q", "-t", "ed25519", "-N", "", "-C", comment, "-f", str(path)],
             what="ssh-keygen")
    os.chmod(path, 0o600)
    return pub.read_text(encoding="ascii").strip()


def _host_key(node: str) -> Path:
    return T.KEYS_DIR / f"ssh_host_ed25519_key.{node}"


def _keys(names: list[str]) -> dict[str, str]:
    """Public lines: 'grader', 'shared', and each node's host key (kept across down/up)."""
    _mkdir(T.KEYS_DIR, 0o700)
    pubs = {"grader": _keypair(T.GRADER_KEY, "clusterlab-grader"),
            "shared": _keypair(T.KEYS_DIR / T.SHARED_KEY_NAME, T.SHARED_KEY_COMMENT)}
    for node in names:
        pubs[node] = _keypair(_host_key(node), f"root@{node}")
    return pubs


def _key_body(pub_line: str) -> str:
    """'ssh-ed25519 AAAA...' without the comment (as known_hosts wants it)."""
    return " ".join(pub_line.split()[:2])


# --- files -------------------------------------------------------------------------------------

def _write_files(spec: Spec, pubs: dict[str, str]) -> None:
    names = spec.names
    known = "".join(f"{','.join(spec.ssh_names(n))} {_key_body(pubs[n])}\n" for n in names)
    moduli = Path("/etc/ssh/moduli")
    accounts = _acc.accounts(T.LOGIN_PASSWORD)
    new = spec.start is not None  # a new machine: no key shared with the peer, no peer known
    for node in names:
        n = spec.nodes[node]
        etc = N.etc(node)
        shutil.rmtree(etc, ignore_errors=True)  # a new machine at every up
        shutil.rmtree(etc.with_name("etc-work"), ignore_errors=True)
        _mkdir(etc, 0o755)
        _mkdir(etc.with_name("etc-work"), 0o700)
        _write(etc / "hostname", node + "\n")
        _write(etc / MACHINE_ID.name, os.urandom(16).hex() + "\n", 0o444)
        _write(etc / SIM_MARKER.name, node + "\n")
        _write(etc / "hosts", T.hosts_file(spec, node))
        for name, text in accounts.items():
            _write(etc / name, text, 0o640 if "shadow" in name else 0o644)
        N.opaque(etc / "netplan")  # the host's own netplan files never show in a node
        if n.netplan is not None:
            _write(etc / "netplan" / T.NETPLAN_FILE, T.netplan_yaml(n.netplan), 0o600)
        ssh = etc / "ssh"
        N.opaque(ssh)  # nor the host's sshd config and host keys
        _write(ssh / "sshd_config", T.sshd_config(node))
        _write(ssh / "ssh_config", T.SSH_CLIENT_CONFIG)
        shutil.copyfile(_host_key(node), ssh / "ssh_host_ed25519_key")
        os.chmod(ssh / "ssh_host_ed25519_key", 0o600)
        _write(ssh / "ssh_host_ed25519_key.pub", pubs[node] + "\n")
        if moduli.is_file():
            shutil.copyfile(moduli, ssh / "moduli")

        root_home = N.home(node)
        _mkdir(root_home, 0o700)
        _write(root_home / ".profile", T.PROFILE)
        _mkdir(root_home / ".ssh", 0o700)
        _write(root_home / ".ssh" / "authorized_keys", pubs["grader"] + "\n", 0o600)  # the sim's own tools
        shutil.rmtree(N.homes(node), ignore_errors=True)
        _mkdir(N.homes(node), 0o755)
        home = N.user_home(node)  # the login user's: the learner's and the grader's
        _mkdir(home, 0o750)
        _write(home / ".profile", T.PROFILE)
        dot = home / ".ssh"
        _mkdir(dot, 0o700)
        auth = [pubs["grader"]] + ([pubs["shared"]] if n.authorize_shared_key else [])
        _write(dot / "authorized_keys", "\n".join(auth) + "\n", 0o600)
        if not new:  # what discover-sparks leaves: the shared key, its config line, the peers' host keys
            shutil.copyfile(T.KEYS_DIR / T.SHARED_KEY_NAME, dot / T.SHARED_KEY_NAME)
            os.chmod(dot / T.SHARED_KEY_NAME, 0o600)
            _write(dot / (T.SHARED_KEY_NAME + ".pub"), pubs["shared"] + "\n")
            _write(dot / "config", T.USER_SSH_CONFIG, 0o600)
            _write(dot / "known_hosts", known)
            # and lesson 1's sudoers rule, which lets the grader read the netplan files (grader.facts.lesson1)
            _mkdir(etc / "sudoers.d", 0o755)
            _write(etc / "sudoers.d" / _acc.READ_RULE_FILE, _acc.READ_RULE, 0o440)
        if node == T.NODES[0] and spec.topology == "pair" and not new:
            _write(home / roce_sim.NCCL_LOG_NAME, roce_sim.nccl_log(spec))
        own(home)
        roce_sim.write_sysfs(spec, node, _expected_up(spec)[node], T.NODES_DIR / node / "infiniband")

    _mkdir(T.BIN_DIR, 0o755)
    _write(T.BIN_DIR / "ibdev2netdev", _shim.shell_script(), 0o755)
    _write(T.BIN_DIR / "rdma", roce_sim.rdma_shell_script(), 0o755)
    N.install_commands()
    ray = serve_venv_ray()
    if ray is not None:  # `ray status` over SSH, as on a node with Ray installed (the serve venv is not on PATH)
        (T.BIN_DIR / "ray").unlink(missing_ok=True)
        (T.BIN_DIR / "ray").symlink_to(ray)
        vllm = ray.with_name("vllm")  # `vllm bench serve` over SSH (clusterlab loadtest), the same way
        if os.access(vllm, os.X_OK):
            (T.BIN_DIR / "vllm").unlink(missing_ok=True)
            (T.BIN_DIR / "vllm").symlink_to(vllm)
    _mkdir(T.RUN_DIR, 0o755)
    _mkdir(T.LOG_DIR, 0o700)
    _write(T.KNOWN_HOSTS, "".join(f"{T.HOUSE_ADDR[n]} {_key_body(pubs[n])}\n" for n in names))
    nodes = "".join(
        f'\n[[nodes]]\nname = "{n}"\naddress = "{T.HOUSE_ADDR[n]}"\nport = 22\nuser = "{T.LOGIN_USER}"\n'
        f'key_file = "{T.GRADER_KEY}"\n' for n in names)
    if spec.topology == "pair":
        head = f'profile = "sim"\nqsfp_port = {T.QSFP_PORT}\nknown_hosts = "{T.KNOWN_HOSTS}"\n'
        # the finished pair's simulated NCCL log; at a start state there is none: the learner's own vLLM run
        # with NCCL_DEBUG=INFO writes it (grader/sim/nccl_sim.py), and they name their log in their inventory
        logs = "" if new else NCCL_LOGS_TABLE
    else:  # a ring cables both ports (no qsfp_port); the simulated NCCL log is the pair's only
        port = f"qsfp_port = {T.QSFP_PORT}\n" if spec.topology == "switch" else ""
        head = f'profile = "sim"\ntopology = "{spec.topology}"\n{port}known_hosts = "{T.KNOWN_HOSTS}"\n'
        logs = ""
    _write(T.INVENTORY, head + nodes + logs)


# --- network -----------------------------------------------------------------------------------

def _free_root_ifindexes(count: int, start: int = 7710) -> list[int]:
    used = set()
    for dev in os.listdir("/sys/class/net"):
        with contextlib.suppress(OSError, ValueError):
            used.add(int(Path("/sys/class/net", dev, "ifindex").read_text()))
    free = []
    idx = start
    while len(free) < count:
        if idx not in used:
            free.append(idx)
        idx += 1
    return free


def _check_house_subnet_free() -> None:
    """The house network must not shadow a network the host already routes to."""
    out = _run(["ip", "-j", "route", "show", "match", T.HOUSE_ADDR[T.NODES[0]]], what="reading routes").stdout
    clash = [r for r in json.loads(out or "[]") if r.get("dst") != "default" and r.get("dev") != T.BRIDGE]
    if clash:
        raise SimError(f"this host already routes {clash[0].get('dst')} via {clash[0].get('dev')}; the sim's "
                       f"house network {T.BRIDGE_ADDR} would clash with it: remove that route first")


def _switch_end(node: str, iface: str) -> str:
    """The host end of ``node``'s ``iface`` cabled to the switch (a bridge port), e.g. ``clsim-sc1``."""
    return f"clsim-s{node[-1]}{T.switch_lane(iface)}"


def _switch_ends() -> list[str]:
    """The switch's host ends present now (``clsim-s<node><lane>``, not its bridges): a namespace's removal takes its
    veths' host ends with it only when the kernel's cleanup gets to them, which under load comes after the next
    ``up`` has tried to make them again ("File exists"), so teardown removes them itself."""
    with contextlib.suppress(OSError):
        return sorted(d for d in os.listdir("/sys/class/net") if d.startswith("clsim-s") and d not in T.SWITCH_BRIDGES)
    return []


def _build_network(spec: Spec) -> None:
    _check_house_subnet_free()
    names = spec.names
    for ns in (*names, T.VOID_NS):
        _run(["ip", "netns", "add", ns], what="making network namespace " + ns)
    root = [f"link add {T.BRIDGE} type bridge",
            f"addr add {T.BRIDGE_ADDR} dev {T.BRIDGE}",
            f"link set {T.BRIDGE} up"]
    if spec.switched:
        for br in T.SWITCH_BRIDGES:
            root += [f"link add {br} mtu {T.JUMBO_MTU} type bridge", f"link set {br} up"]
    free = _free_root_ifindexes(len(names) + len(spec.switched))
    for node, root_idx in zip(names, free):
        end = T.HOUSE_ROOT_END[node]
        root += [f"link add {end} index {root_idx} mtu {T.HOUSE_MTU} type veth peer name {T.HOUSE_IF} "
                 f"index {T.ifindex(node, T.HOUSE_IF)} netns {node}",
                 f"link set {end} master {T.BRIDGE} up"]
    for (na, ia), (nb, ib) in spec.cables:
        root.append(f"link add {ia} index {T.ifindex(na, ia)} netns {na} type veth "
                    f"peer name {ib} index {T.ifindex(nb, ib)} netns {nb}")
    for (node, iface), root_idx in zip(spec.switched, free[len(names):]):
        end = _switch_end(node, iface)
        root += [f"link add {end} index {root_idx} mtu {T.JUMBO_MTU} type veth peer name {iface} "
                 f"index {T.ifindex(node, iface)} netns {node}",
                 f"link set {end} master {spec.cabled(node, iface)[1]} up"]
    void_idx = T.IFINDEX_BASE[T.VOID_NS]
    for node in names:
        for iface in spec.nodes[node].ifaces:
            if spec.cabled(node, iface) is None:  # uncabled: the far end sits, down, in the void
                root.append(f"link add {iface} index {T.ifindex(node, iface)} netns {node} type veth "
                            f"peer name {T.void_name(node, iface)} index {void_idx} netns {T.VOID_NS}")
                void_idx += 1
    _ip_batch(root, what="making the bridge and the veth cables")

    for node in names:
        n = spec.nodes[node]
        cmds = ["link set lo up",
                f"link set {T.HOUSE_IF} mtu {T.HOUSE_MTU} up",
                f"addr add {n.house_addr}/{T.HOUSE_PREFIX} dev {T.HOUSE_IF}"]
        for iface in n.ifaces.values():
            cmds.append(f"link set {iface.name} mtu {iface.mtu}")
            for addr in iface.addresses:
                scope = " scope link" if addr.startswith("169.254.") else ""
                cmds.append(f"addr add {addr} brd + dev {iface.name}{scope}")
            if iface.up:
                cmds.append(f"link set {iface.name} up")
        _ip_batch(cmds, node, what=f"configuring {node}'s interfaces")
        _run(["tc", "-n", node, "qdisc", "replace", "dev", T.HOUSE_IF, "root", "tbf", *T.HOUSE_TBF],
             what=f"shaping {node}'s {T.HOUSE_IF} (tc tbf)")


def _expected_up(spec: Spec) -> dict[str, set[str]]:
    """Per node, the netdevs that must report operstate up: up, and cabled to an up netdev."""
    want: dict[str, set[str]] = {node: {T.HOUSE_IF} for node in spec.names}
    for node in spec.names:
        for iface in spec.nodes[node].ifaces.values():
            far = spec.cabled(node, iface.name)
            if iface.up and far and (far[0] == "switch" or spec.nodes[far[0]].ifaces[far[1]].up):
                want[node].add(iface.name)
    return want


def _wait_carrier(spec: Spec, timeout: float = 3.0) -> None:
    """Operstate follows carrier asynchronously (the kernel's linkwatch, up to ~1 s): wait for it,
    so a probe right after ``up`` sees the links as they are (ibdev2netdev (Up), state UP)."""
    want = _expected_up(spec)
    deadline = time.monotonic() + timeout
    while True:
        late = {}
        for node, names in want.items():
            out = _run(["ip", "-n", node, "-j", "link", "show"], what="reading link state").stdout
            up = {link["ifname"] for link in json.loads(out) if link.get("operstate") == "UP"}
            if names - up:
                late[node] = sorted(names - up)
        if not late:
            return
        if time.monotonic() > deadline:
            raise SimError(f"links never came up: {late}")
        time.sleep(0.02)


# --- teardown ----------------------------------------------------------------------------------

def _teardown(state: dict) -> None:
    if state.get("serve"):  # Ray and vLLM first, by process group, and their /dev/shm files
        _groups.stop_groups(state)
    N.kill_processes(state)
    cmds = [f"link del {end}" for end in T.HOUSE_ROOT_END.values() if Path(f"/sys/class/net/{end}").exists()]
    cmds += [f"link del {end}" for end in _switch_ends()]  # (with their peers in the nodes, at once)
    cmds += [f"link del {br}" for br in (T.BRIDGE, *T.SWITCH_BRIDGES) if Path(f"/sys/class/net/{br}").exists()]
    present = _netns_list()
    cmds += [f"netns del {ns}" for ns in (*T.NODE_NAMES, T.VOID_NS) if ns in present]
    _ip_batch(cmds, what="removing the sim's namespaces and bridge", force=True)
    for node in T.NODE_NAMES:
        shutil.rmtree(T.ETC_NETNS / node, ignore_errors=True)
    for part in T.RUNTIME_PARTS:
        if part.is_dir():
            shutil.rmtree(part, ignore_errors=True)
        else:
            part.unlink(missing_ok=True)
    for created in reversed(state.get("created", [])):  # only what up itself made
        path = Path(created)
        with contextlib.suppress(OSError):
            if path.is_dir():
                path.rmdir()  # fails, and is kept, if someone put something in it since
            elif path.is_file() and path.stat().st_size == 0:
                path.unlink()
    leftovers = [ns for ns in (*T.NODE_NAMES, T.VOID_NS) if ns in _netns_list()]
    leftovers += [d for d in (T.BRIDGE, *T.SWITCH_BRIDGES, *T.HOUSE_ROOT_END.values())
                  if Path(f"/sys/class/net/{d}").exists()] + _switch_ends()
    if leftovers:
        raise SimError(f"could not remove {', '.join(leftovers)}; remove by hand with `ip netns del` / `ip link del`")


def _is_up_or_partial(state: dict) -> bool:
    return bool(state) or bool(_netns_list() & {*T.NODE_NAMES, T.VOID_NS}) or \
        Path(f"/sys/class/net/{T.BRIDGE}").exists() or any((T.ETC_NETNS / n).exists() for n in T.NODE_NAMES) \
        or bool(_switch_ends())


# --- public API --------------------------------------------------------------------------------

def up(faults: list[str] | None = None, nodes: int = 2, topology: str = "pair", start: str | None = None) -> Path:
    """Build the simulated cluster with ``faults`` applied (replacing any cluster already up): the pair,
    or ``nodes`` nodes through a switch or in a ring (grader/sim/multi.py, whose faults apply there).

    ``start`` None builds the course's end state (the answer key; every fault edits it); ``"lesson1"``
    builds lesson 1's start, a new pair out of the box (:func:`grader.sim.topology.lesson1_start`), what
    ``clusterlab sim up`` gives a learner. A fault needs the end state (it is a break-fix exercise on it).

    Returns the inventory path. Raises SimError naming the fix (not root, tools missing, unknown
    fault, bad node count or topology, kernel refusing namespaces, sshd not starting); a failed ``up``
    leaves nothing behind.
    """
    faults = list(faults or [])
    if start not in (None, "lesson1"):
        raise SimError(f"unknown start state {start!r}: the sim builds lesson 1's start or the answer key's state")
    if start and faults:
        raise SimError("a fault is a break-fix exercise on a finished cluster, not on lesson 1's start: "
                       "give --fault without a start state")
    try:
        spec = _multi.build_spec(nodes, topology, faults)
    except ValueError as e:
        raise SimError(str(e)) from None
    if start == "lesson1":
        spec = T.lesson1_start(spec)
    _preflight()
    t0 = time.monotonic()
    with _locked():
        old = _read_state()
        if _is_up_or_partial(old):
            _teardown(old)
        state: dict = {"faults": spec.faults, "created": [], "init_pids": {}, "complete": False,
                       "serve_env": {n: spec.nodes[n].serve_env for n in spec.names},
                       "nodes": spec.names, "topology": spec.topology, "start": spec.start}
        _write_state(state)
        try:
            pubs = _keys(spec.names)
            _write_files(spec, pubs)
            _build_network(spec)
            for node in spec.names:
                N.boot(node, state, netplan=False)  # the spec's live state is the start state
            N.wait_sshd(tuple(spec.names))
            _wait_carrier(spec)
        except BaseException as e:
            _write_state(state)
            with contextlib.suppress(SimError):
                _teardown(state)
            if isinstance(e, SimError):
                raise
            if isinstance(e, OSError):
                raise SimError(f"sim up failed: {e}") from e
            raise
        state.update(complete=True, up_seconds=round(time.monotonic() - t0, 3),
                     built_at=datetime.now(timezone.utc).isoformat(timespec="seconds"),
                     namespaces=[*spec.names, T.VOID_NS], bridge=T.BRIDGE, inventory=str(T.INVENTORY))
        _write_state(state)
    return T.INVENTORY


def down(purge: bool = False) -> None:
    """Remove everything ``up`` made. A no-op when nothing is up.

    The grader key and the node host keys (state dir ``grader_ed25519``, ``keys/``) are kept so
    known_hosts entries stay valid across down/up; ``purge=True`` removes the state dir too.
    """
    if os.geteuid() != 0:
        raise SimError("run as root: the sim makes network namespaces (e.g. `sudo clusterlab sim down`)")
    if not T.STATE_DIR.exists():
        return
    with _locked():
        state = _read_state()
        if _is_up_or_partial(state):
            _teardown(state)
    if purge:
        shutil.rmtree(T.STATE_DIR, ignore_errors=True)
        with contextlib.suppress(OSError):
            T.STATE_DIR.parent.rmdir()


def rebuild(faults: list[str] | None = None) -> Path:
    """:func:`up` again with ``faults``, keeping the nodes and topology of the sim that is up (or was last
    built): ``solve`` and ``finish`` clear a switch of 4's faults and leave a switch of 4. Returns the
    inventory path; raises SimError as :func:`up` does."""
    state = _read_state()
    names = state.get("nodes") or list(T.NODES)
    return up(faults, nodes=len(names), topology=state.get("topology") or "pair")


def work_record() -> dict | None:
    """The sim's own record of how the cluster that is up was built, which ``check`` seals into sim evidence
    (``provenance["sim"]``, grader.provenance.sim_work_problem reads it): ``{"start": "lesson1", "lesson2" or None,
    "built_at": UTC ISO time, "nodes": {node: sha256 of "clusterlab:" + its /etc/machine-id}, "served_by_sim":
    whether the sim's own ready-made Ray and vLLM run (not the learner's; the lab's start, the sim's Ray with no vLLM,
    is not)}`` (the same
    hash as the platform probe's ``machine_id_sha256``, so a record is bound to the machines the outputs show).
    ``start`` None: built finished (``solve``, ``sim up --fault``, ``sim up --serve``). None when nothing is up.
    Kept in the sim's state folder, which no node can read."""
    import hashlib

    from grader.probes.platform import MACHINE_ID_KEY

    state = _read_state()
    if not state.get("complete"):
        return None
    nodes = {}
    for node in state.get("nodes") or T.NODES:
        try:
            nodes[node] = hashlib.sha256(MACHINE_ID_KEY.encode() + (N.etc(node) / MACHINE_ID.name).read_bytes()).hexdigest()
        except OSError:
            nodes[node] = None
    serve = state.get("serve") or {}
    return {"start": state.get("start"), "built_at": state.get("built_at"), "nodes": nodes,
            "served_by_sim": bool(serve) and not serve.get("ray_only")}


NCCL_LOGS_TABLE = f'\n[logs]\nnccl_debug = "~/{roce_sim.NCCL_LOG_NAME}"\n'
"""The sim inventory's [logs] table on the finished pair: where its simulated NCCL log is."""


def forget_nccl_log() -> list[str]:
    """Lesson 2's start on a finished pair: no NCCL has run yet, so the simulated NCCL log the finished build
    wrote (the head's ``~/nccl_debug.log``) and the sim inventory's ``[logs]`` table naming it are removed (the
    learner's own run with NCCL_DEBUG=INFO writes the lines, and the learner names their log). Returns what
    was done (sentences); nothing when there was none."""
    log = N.user_home(T.NODES[0]) / roce_sim.NCCL_LOG_NAME
    with _locked():
        if not (log.is_file() and log.read_text(errors="replace").startswith(roce_sim.BANNER[:30])):
            return []
        log.unlink()
        if T.INVENTORY.is_file():
            text = T.INVENTORY.read_text(encoding="utf-8")
            _write(T.INVENTORY, text.replace(NCCL_LOGS_TABLE, "", 1))
    return [f"removed the simulated NCCL log the finished build wrote on {T.NODES[0]} (~/{roce_sim.NCCL_LOG_NAME}) "
            "and the sim inventory's [logs] table: your own run with NCCL_DEBUG=INFO writes NCCL's lines"]


def restore_nccl_log() -> list[str]:
    """The answer key's lesson 2 (``solve``): the finished pair's simulated NCCL log and the inventory's
    ``[logs]`` table naming it, back where :func:`forget_nccl_log` took them from (its [serve] table stays
    last). Returns what was done (sentences); nothing on a switch or ring, or when both are there."""
    state = _read_state()
    if not state.get("complete") or (state.get("topology") or "pair") != "pair":
        return []
    spec = _multi.build_spec(len(state.get("nodes") or T.NODES), "pair", state.get("faults", []))
    log = N.user_home(T.NODES[0]) / roce_sim.NCCL_LOG_NAME
    with _locked():
        text = T.INVENTORY.read_text(encoding="utf-8") if T.INVENTORY.is_file() else ""
        if log.is_file() and "\n[logs]\n" in text:
            return []
        _write(log, roce_sim.nccl_log(spec))
        own(log)
        if text and "\n[logs]\n" not in text:
            head, sep, serve = text.partition("\n[serve]\n")
            _write(T.INVENTORY, head.rstrip("\n") + "\n" + NCCL_LOGS_TABLE + (sep + serve if sep else ""))
    return [f"wrote the finished pair's simulated NCCL log on {T.NODES[0]} (~/{roce_sim.NCCL_LOG_NAME}) and named it "
            "in the sim inventory's [logs]"]


def begin(lesson: str) -> bool:
    """Mark a finished sim without faults as at ``lesson``'s start (``clusterlab start lesson2``: lesson 1 was
    the answer key's, what is launched from here on is the learner's). True when marked; False when the sim
    is down, already at a start state (the learner's own lesson 1 counts on), or carries faults."""
    with _locked():
        st = _read_state()
        if not st.get("complete") or st.get("start") or st.get("faults"):
            return False
        st["start"] = lesson
        _write_state(st)
    return True


def forfeit() -> bool:
    """The answer key did a lesson's work on a sim at a start state without rebuilding it (``solve lesson2`` on
    lesson 2's start): the record says built finished from here on (``start`` None), so what is measured after
    earns nothing. True when it was at a start state."""
    with _locked():
        st = _read_state()
        if not st.get("start"):
            return False
        st["start"] = None
        _write_state(st)
    return True


def start_state() -> str | None:
    """The start state the sim that is up was built in (``"lesson1"``, ``"lesson2"``, ``"lab"``), or None: the answer key's end
    state, with or without faults (or nothing up)."""
    return _read_state().get("start")


def status() -> dict:
    """What is up: ``{"up", "faults", "inventory", "nodes": {name: {...}}}``. Changes nothing."""
    state = _read_state()
    present = _netns_list()
    nodes = {}
    for node in state.get("nodes") or T.NODES:
        pid = N.sshd_pid(node) if node in present else None
        nodes[node] = {
            "address": T.HOUSE_ADDR[node],
            "namespace": node in present,
            "sshd_pid": pid,
            "sshd_running": pid is not None,
            "ssh_reachable": node in present and _tcp_open(T.HOUSE_ADDR[node], 22),
        }
    is_up = bool(state.get("complete")) and all(n["namespace"] for n in nodes.values())
    return {
        "up": is_up,
        "healthy": is_up and all(n["ssh_reachable"] for n in nodes.values()),
        "faults": state.get("faults", []) if is_up else [],
        "inventory": str(T.INVENTORY) if is_up and T.INVENTORY.is_file() else None,
        "nodes": nodes,
        "serve": {k: state["serve"].get(k) for k in ("mode", "url", "host_url", "ready", "ray_only")}
        if is_up and state.get("serve") else None,
    }


