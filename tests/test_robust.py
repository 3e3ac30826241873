"""Issue 12, parts 3 and 4: no traceback anywhere, and evidence whose every graded field is covered.

Part 3: every reproducer of the break-it campaign (``../shared/fixtures/adversarial/``: A explain,
B grade, B2 tampering, C the sim's faults) ends in one line on stderr and the right exit status
(0 pass, 1 fail or not measured, 2 could not run), within 5 s, never a traceback; a bad key file
names itself and the fix while the other node's evidence is saved; a node lost mid-check keeps its
reason; ``--json`` is strict JSON; ``| head`` ends quietly.

Part 4: the manifest (grader.evidence.manifest_parts): an edit, addition or deletion of any graded
field is refused like an edited stdout; an untouched file loads; an edited summary (``facts``) is only
noted; a file without a manifest was recorded by an older grader.
"""

from __future__ import annotations

import copy
import json
import math
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from grader import strictjson
from grader.evidence import Evidence, EvidenceError, RawOutput, digest, load_evidence, read_evidence, seal
from tests.helpers_cli import quick, run_cli, took

ROOT = Path(__file__).resolve().parents[1]
ADV = Path(os.environ.get("CLUSTERLAB_ADVERSARIAL", ROOT / "tests" / "fixtures" / "adversarial"))
GOLDEN_L1 = ROOT / "tests" / "fixtures" / "golden" / "lesson1-sim-healthy.json"
LIMIT_S = 5.0


def shared(*parts: str) -> Path:
    """A file of the shared adversarial fixtures; the test is skipped when they are not here."""
    p = ADV.joinpath(*parts)
    if not p.exists():
        pytest.fail(f"the adversarial fixture {p} is missing: it ships in tests/fixtures/adversarial")
    return p


def cli(*args: str, cwd: Path | None = None, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    """``clusterlab ARGS`` in a fresh interpreter, timed (``.wall_s``)."""
    return run_cli(*args, cwd=cwd, stdin=stdin, timeout=60)


def clean(res, code: int | tuple[int, ...], *words: str, limit_s: float = LIMIT_S) -> str:
    """Assert: the exit status, no traceback, within ``limit_s`` (5 s) beyond the interpreter's start (:func:`quick`);
    for exit 2 exactly one line on stderr, naming ``words``. Returns stderr."""
    codes = code if isinstance(code, tuple) else (code,)
    err = res.err
    assert "Traceback" not in err and "Traceback" not in res.out, err[-2000:]
    assert res.returncode in codes, (res.returncode, err[-2000:])
    assert quick(res, limit_s), took(res)
    if res.returncode == 2:
        lines = [line for line in err.splitlines() if line.strip()]
        assert len(lines) == 1 and lines[0].startswith("clusterlab: "), err
    for w in words:
        assert w in err, (w, err)
    return err


def strict(text: str):
    """``json.loads`` that refuses NaN and Infinity (what jq, JavaScript and Go refuse)."""
    def bad(c):
        raise AssertionError(f"not strict JSON: {c}")
    return json.loads(text, parse_constant=bad)


def sealed_copy(src: Path, dest_dir: Path, edit=None) -> Path:
    """``src`` copied into ``dest_dir`` (same name), ``edit(data)`` applied, then sealed as a grader would."""
    data = json.loads(src.read_text())
    if edit:
        edit(data)
    dest_dir.mkdir(parents=True, exist_ok=True)
    out = dest_dir / src.name
    out.write_text(json.dumps(seal(data)))
    return out


# ====================================================================================== part 3: grade (B)


@pytest.mark.parametrize("case, name, code, words", [
    ("grade_errors_null", "lab.json", 2, ["recorded by an older grader: check again"]),
    ("grade_provenance_null", "lesson1.json", 2, ["recorded by an older grader: check again"]),
    ("grade_lone_surrogate", "lesson1.json", 2, ["lone surrogate", "Record it again"]),
])
def test_grade_reproducers_as_handed_in(case, name, code, words):
    clean(cli("grade", str(shared("B", case, name))), code, *words)


@pytest.mark.parametrize("case, name, code, words", [
    ("grade_errors_null", "lab.json", (0, 1), []),          # graded: null errors are no errors
    ("grade_provenance_null", "lesson1.json", (0, 1), []),  # graded: null provenance shows nothing
    ("grade_lone_surrogate", "lesson1.json", 2, ["lone surrogate"]),
])
def test_grade_reproducers_sealed_as_a_grader_would(tmp_path, case, name, code, words):
    """The same mutations in a file whose manifest vouches for them (a learner who recomputed it)."""
    p = sealed_copy(shared("B", case, name), tmp_path / case)
    clean(cli("grade", str(p)), code, *words)
    res = cli("grade", "--json", str(p))
    clean(res, code)
    if res.returncode != 2:
        strict(res.out)


def _smallest_cases() -> list[Path]:
    root = ADV / "B" / "smallest"
    return sorted(p for p in root.glob("*/*.json") if p.name != "case.json") if root.is_dir() else []


@pytest.mark.parametrize("path", _smallest_cases() or [None], ids=lambda p: p.parent.name if p else "absent")
def test_grade_smallest_traceback_cases(tmp_path, path):
    if path is None:
        pytest.skip(f"no {ADV}/B/smallest")
    clean(cli("grade", str(path)), 2)  # no manifest, or a lone surrogate: refused
    res = cli("grade", "--json", str(sealed_copy(path, tmp_path)))
    clean(res, (0, 1, 2))
    if res.returncode != 2:
        strict(res.out)


def test_grade_summary_lists_these_signatures():
    summary = json.loads(shared("B", "smallest", "INDEX.json").read_text())
    assert {c["smallest"] for c in summary} == {"type:provenance=null", "type:errors=null", "raw0:stdout=surrogate"}


def _minimal(lesson: str = "lesson1") -> dict:
    return Evidence(lesson, "single-spark", {"profile": "single-spark", "nodes": [{"name": "spark-a"}]},
                    [RawOutput("spark-a", "hostname", "hostname", "spark-a\n", "", 0)]).to_json()


@pytest.mark.parametrize("mutate, words", [
    (lambda t: t.replace('"exit_status": 0', '"exit_status": ' + "9" * 5001), "integer of more than 4,300 digits"),
    (lambda t: t.replace('"measurements": {}', '"measurements": ' + "[" * 100000 + "]" * 100000),
     "nested too deeply"),
    (lambda t: t.replace('"spark-a\\n"', '"\\udfff"'), "lone surrogate"),
])
def test_grade_huge_int_deep_json_and_surrogates_in_the_file(tmp_path, mutate, words):
    p = tmp_path / "lesson1.json"
    p.write_text(mutate(json.dumps(seal(_minimal()))))
    clean(cli("grade", str(p)), 2, words)


@pytest.mark.parametrize("stdout", ["[" * 50000 + "]" * 50000, '{"end": {"sum_received": {"bits_per_second": '
                                    + "1" * 5001 + "}}}", '{"a": NaN, "b": Infinity}'])
def test_grade_outputs_no_reader_expected_give_one_line(tmp_path, stdout):
    """Deep JSON, a 5,001-digit number and NaN inside a raw output whose hashes were recomputed."""
    ev = Evidence("lesson1", "single-spark", {"profile": "single-spark", "nodes": [{"name": "spark-a"}]},
                  [RawOutput("spark-a", p, "x", stdout, "", 0) for p in ("ip_addr", "ip_link", "netplan", "platform")])
    p = ev.save(tmp_path)
    res = cli("grade", "--json", str(p))
    clean(res, (0, 1, 2))
    if res.returncode != 2:
        strict(res.out)


# ==================================================================================== part 3: explain (A)


@pytest.mark.parametrize("name, code", [
    ("explain_deep_json_recursion.txt", 2),
    ("explain_huge_int_soft_crash.txt", 2),
    ("explain_json_nan_stdout.txt", 1),
])
@pytest.mark.parametrize("as_json", [False, True], ids=["text", "json"])
def test_explain_reproducers(name, code, as_json):
    res = cli("explain", *(["--json"] if as_json else []), str(shared("A", name)))
    clean(res, code)
    if as_json:
        strict(res.out)


@pytest.mark.parametrize("name, words", [("explain_deep_json_recursion.txt", "nested too deeply"),
                                         ("explain_huge_int_soft_crash.txt", "4,300 digits")])
def test_explain_says_what_was_too_large_not_internal_error(name, words):
    err = clean(cli("explain", str(shared("A", name))), 2)
    assert words in err and "grader bug" not in err and "internal error" not in err


def test_explain_json_nan_becomes_null_with_a_reason():
    data = strict(cli("explain", "--json", str(shared("A", "explain_json_nan_stdout.txt"))).out)
    text = json.dumps(data)
    assert "NaN" not in text.replace("NaN: not a finite", "")  # only in a reason


# ========================================================================== part 3: strict JSON everywhere


def test_strictjson_replaces_what_json_cannot_carry():
    value = {"a": math.nan, "b": [1.0, math.inf, -math.inf], "c": {"d": 10 ** 5000}, "e": "x\ud800y",
             "f": (1, 2), "g": object.__new__(object), "ok": 1.5}
    data = strict(strictjson.dumps(value))
    assert data["a"] is None and data["a_reason"].startswith("NaN")
    assert data["b"] == [1.0, None, None] and "item 1: Infinity" in data["b_reason"]
    assert data["c"]["d"] is None and "digits" in data["c"]["d_reason"]
    assert data["e"] == "x\ufffdy" and data["f"] == [1, 2] and data["ok"] == 1.5
    assert strictjson.sanitise([[[]]]) == [[[]]] and value["a"] != value["a"]  # the input is not changed


def test_report_and_verify_json_are_strict():
    from grader.grading import Verdict
    from grader.report import to_json
    from grader.verify import Report, Row

    v = Verdict("L1.x", "t", "pass", 1.0, 1.0, (), "h", "s")
    data = strict(to_json([v], comparison={"ratio": math.nan}, speed=math.inf))
    assert data["comparison"] == {"ratio": None, "ratio_reason": "NaN: not a finite number, written as null"}
    assert data["speed"] is None and "Infinity" in data["speed_reason"]
    rep = Report("e.json", "i.toml", "lesson1", [Row("TCP", math.nan, math.inf, "Gbit/s")])
    row = strict(rep.to_json())["rows"][0]
    assert row["recorded"] is None and row["measured"] is None and "recorded_reason" in row


def test_no_json_printer_writes_nan():
    """Every --json printer goes through grader.strictjson (or report.to_json, which does)."""
    import re

    for f in sorted((ROOT / "grader").rglob("*.py")):
        if "sim" in f.relative_to(ROOT / "grader").parts[:1]:
            continue  # the sim's helper scripts print JSON for the grader itself, not for a user
        text = f.read_text()
        for m in re.finditer(r"print\((?:[^()]|\([^()]*\))*(?<![\w.])json\.dumps\(", text):
            raise AssertionError(f"{f.relative_to(ROOT)}: prints json.dumps (not strict): {m.group(0)[:80]}")


# ================================================================================ part 3: | head (SIGPIPE)


def test_a_closed_stdout_ends_quietly(tmp_path):
    """`clusterlab ... | head`: the reader went away; exit 141 (128 + SIGPIPE) with nothing on stderr."""
    ev = Evidence("lesson1", "single-spark", {"profile": "single-spark", "nodes": [{"name": "spark-a"}]},
                  [RawOutput("spark-a", "hostname", "hostname", "spark-a\n", "", 0)])
    p = ev.save(tmp_path)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-m", "grader.cli", "grade", str(p)], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()  # before the grader has imported anything: its first write meets a closed pipe
    err = proc.stderr.read().decode()  # the grade's notes, if any; never a traceback
    assert proc.wait(30) == 141, err
    assert "Traceback" not in err and "BrokenPipe" not in err and "Exception ignored" not in err, err
    res = subprocess.run(f"{sys.executable} -m grader.cli grade {p} | head -n 1", shell=True, cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=30)
    assert "Traceback" not in res.stderr and "BrokenPipe" not in res.stderr and res.stdout.count("\n") == 1


def test_describe_failure_words():
    from grader.failures import describe_failure

    assert "nested too deeply" in describe_failure(RecursionError("maximum recursion depth exceeded"))
    try:
        int("9" * 5000)
    except ValueError as e:
        assert "4,300 digits" in describe_failure(e)
    assert describe_failure(KeyError("x")) == "KeyError: 'x'"


def test_an_unexpected_error_is_one_line(monkeypatch, capsys):
    from grader import cli as C

    def boom(args):
        raise RecursionError("maximum recursion depth exceeded while decoding")
    monkeypatch.setattr(C, "_cmd_grade", boom)
    monkeypatch.delenv("CLUSTERLAB_DEBUG", raising=False)
    assert C.main(["grade", "x.json"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "nested too deeply" in err


# =========================================================================== part 3: check (C): key files


@pytest.fixture(scope="module")
def sshd(tmp_path_factory):
    from tests.helpers_sshd import LoopbackSshd, can_run_sshd, keygen

    if not can_run_sshd():
        pytest.skip("needs root and OpenSSH sshd")
    d = tmp_path_factory.mktemp("sshd")
    key = keygen(d / "client_ed25519")
    server = LoopbackSshd(d, key)
    yield server, key, d
    server.stop()


def pair_inventory(tmp: Path, server, good: Path, bad: str) -> Path:
    """A spark-pair inventory of two names for the loopback sshd: spark-a with ``good``, spark-b with ``bad``."""
    kh = tmp / "known_hosts"
    kh.write_text(server.known_hosts_line())
    inv = tmp / "inv.toml"
    node = 'address = "127.0.0.1"\nport = {port}\nuser = "root"\nkey_file = "{key}"\n'
    inv.write_text(f'profile = "spark-pair"\nqsfp_port = 1\nknown_hosts = "{kh}"\ncommand_timeout_s = 3\n'
                   f'[[nodes]]\nname = "spark-a"\n' + node.format(port=server.port, key=good)
                   + f'[[nodes]]\nname = "spark-b"\n' + node.format(port=server.port, key=bad))
    return inv


def _bad_key(tmp: Path, kind: str, good: Path) -> str:
    if kind == "binary":
        p = tmp / "garbage_key"
        p.write_bytes(b"\x00\x98\xff\xfe" + os.urandom(300))
        return str(p)
    if kind == "public":
        return f"{good}.pub"
    if kind == "text":
        p = tmp / "notes.txt"
        p.write_text("my ssh key is on the other laptop\n")
        return str(p)
    if kind == "garbage-fixture":
        shared("C", "inventory-garbage-key.toml")
        p = tmp / "garbage_key"
        p.write_bytes(bytes.fromhex("30820122") + b"\x98" + os.urandom(200))  # as C/garbage-key.stderr.txt shows
        return str(p)
    raise ValueError(kind)


@pytest.mark.parametrize("kind, words", [
    ("binary", ["binary data, not an SSH private key", "point key_file at the private key"]),
    ("garbage-fixture", ["binary data, not an SSH private key"]),
    ("public", ["is a public key: give the private key it pairs with"]),
    ("text", ["is not an SSH private key (no -----BEGIN"]),
])
def test_check_with_a_bad_key_file_names_it_and_saves_the_good_node(sshd, tmp_path, kind, words):
    from grader.inventory import load_inventory
    from grader.transport import connect_all

    server, good, _ = sshd
    bad = _bad_key(tmp_path, kind, good)
    inv = pair_inventory(tmp_path, server, good, bad)
    t0 = time.monotonic()
    conns, errors = connect_all(load_inventory(inv))  # the bad key is named before any network
    assert set(conns) == {"spark-a"} and bad in errors["spark-b"] and time.monotonic() - t0 < LIMIT_S
    for c in conns.values():
        c.close()
    res = cli("check", "lesson1", "--inventory", str(inv), "--evidence", str(tmp_path / "ev"))
    # the good node's 16 probes over the loopback sshd take 1-5 s on a busy 2-core box: allow more
    clean(res, 1, limit_s=3 * LIMIT_S)
    line = next(x for x in res.out.splitlines() if x.startswith("UNREACHABLE spark-b"))
    assert bad in line and all(w in line for w in words), line
    ev = load_evidence(tmp_path / "ev" / "lesson1.json")  # saved, and its manifest holds
    assert {r.node for r in ev.raw} == {"spark-a"} and bad in ev.errors["spark-b"]


def test_check_with_a_directory_as_key_file_says_so(sshd, tmp_path):
    server, good, _ = sshd
    d = tmp_path / "keys"
    d.mkdir()
    res = cli("check", "lesson1", "--inventory", str(pair_inventory(tmp_path, server, good, str(d))))
    # the inventory names it (a structural error, like a missing file: exit 2)
    assert res.returncode == 2 and "Traceback" not in res.err and quick(res, LIMIT_S)
    assert "is a directory, not a key" in res.err and "does not exist" not in res.err


def test_key_file_problem_sentences(tmp_path):
    from grader.inventory import key_file_problem

    assert "does not exist" in key_file_problem(str(tmp_path / "nope"))
    assert "is a directory" in key_file_problem(str(tmp_path))
    (tmp_path / "empty").write_text("")
    assert "is empty" in key_file_problem(str(tmp_path / "empty"))
    (tmp_path / "k.ppk").write_text("PuTTY-User-Key-File-3: ssh-ed25519\n")
    assert "puttygen" in key_file_problem(str(tmp_path / "k.ppk"))
    (tmp_path / "k.pub").write_text("ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI x@y\n")
    assert f"({tmp_path / 'k'})" in key_file_problem(str(tmp_path / "k.pub"))
    (tmp_path / "k").write_text("-----BEGIN OPENSSH PRIVATE KEY-----\nabc\n-----END OPENSSH PRIVATE KEY-----\n")
    assert key_file_problem(str(tmp_path / "k")) is None


# ====================================================================== part 3: check (C): a node lost mid-check


def _children(pid: int) -> list[int]:
    out = []
    for p in os.listdir("/proc"):
        if p.isdigit():
            try:
                ppid = int(Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            if ppid == pid:
                out.append(int(p))
    return out


def test_a_node_lost_mid_command_keeps_its_reason(tmp_path):
    """sshd's session process killed while a probe runs: NodeUnreachable with a reason, never empty."""
    from tests.helpers_sshd import LoopbackSshd, can_run_sshd, keygen
    from tests.test_transport import inventory
    from grader.transport import Connection, NodeUnreachable

    if not can_run_sshd():
        pytest.skip("needs root and OpenSSH sshd")
    key = keygen(tmp_path / "k")
    server = LoopbackSshd(tmp_path, key)  # its own: its session processes are killed here, by pid
    try:
        inv = inventory(tmp_path, server.port, key, server.known_hosts_line(), timeout=5)
        c = Connection(inv.nodes[0], inv)
        c.connect(3)

        def drop():
            time.sleep(0.5)
            for pid in _children(server.proc.pid):
                os.kill(pid, signal.SIGKILL)
        threading.Thread(target=drop).start()
        with pytest.raises(NodeUnreachable) as err:
            c.run("sleep 4")
        assert "dropped while `sleep 4` ran" in str(err.value)
        for call in (lambda: c.run("true"), lambda: c.open_stream("iperf3 -s", 3)):
            with pytest.raises(NodeUnreachable, match="spark-a: the SSH connection dropped"):
                call()
    finally:
        server.stop()


def test_transport_reason_is_never_empty():
    import paramiko

    from grader.transport import reason

    assert reason(EOFError()) == "the node closed the connection (EOF)"
    assert reason(paramiko.SSHException("Unable to open channel.")) == "Unable to open channel."
    assert "SSHException" in reason(paramiko.SSHException())


class _ReplayConn:
    """A Connection that answers each fixed command with what the golden lesson-1 evidence recorded."""

    def __init__(self, name: str, data: dict):
        from grader.inventory import Node

        self.node = Node(name=name, address="127.0.0.1")
        self.host_key, self.host_key_type = "SHA256:test", "ssh-ed25519"
        self.outputs = {r["command"]: r for r in data["raw"] if r["node"] == name}

    def run(self, command, timeout_s=None):
        from grader.transport import CommandResult

        r = self.outputs.get(command)
        if r is None:
            return CommandResult(command, "", "not recorded", 127, 0.0)
        return CommandResult(command, r["stdout"], r["stderr"], r["exit_status"], 0.01, bool(r["timed_out"]))

    def close(self):
        pass


def test_the_iperf3_thread_records_why_and_prints_no_traceback(tmp_path, monkeypatch, capfd):
    """A node that goes away while iperf3 runs: paramiko raises an SSHException with no message."""
    import paramiko

    from grader.inventory import load_inventory
    from grader.probes import lesson1

    if not GOLDEN_L1.exists():
        pytest.skip("no golden lesson-1 evidence")
    data = json.loads(GOLDEN_L1.read_text())
    inv_path = tmp_path / "inv.toml"
    inv_path.write_text('profile = "sim"\nqsfp_port = 1\n[[nodes]]\nname = "spark-a"\naddress = "10.77.7.10"\n'
                        '[[nodes]]\nname = "spark-b"\naddress = "10.77.7.11"\n')
    inv = load_inventory(inv_path)

    def broken(*a, **k):
        raise paramiko.SSHException()
    monkeypatch.setattr(lesson1, "iperf3_between", broken)
    conns = {n: _ReplayConn(n, data) for n in ("spark-a", "spark-b")}
    ev = lesson1.collect(inv, conns, {})  # type: ignore[arg-type]
    err = capfd.readouterr().err
    assert "Traceback" not in err and "Exception in thread" not in err
    why = ev.measurements["iperf3_error"]
    assert why.startswith("iperf3 between spark-a and spark-b stopped: ") and "SSHException" in why


def test_fault_runs_of_the_campaign_are_the_cases_above():
    """C/faults.json: the fault runs that printed a traceback are the ones tested here."""
    faults = json.loads(shared("C", "faults.json").read_text())
    tb = sorted(f["fault"] for f in faults if f["traceback"])
    assert any("garbage" in f for f in tb) and any("mid-check" in f for f in tb)
    assert "UnicodeDecodeError" in shared("C", "garbage-key.stderr.txt").read_text()
    assert "Exception in thread iperf3" in shared("C", "iperf3-thread-traceback.stderr.txt").read_text()


# =========================================================================================== part 4: manifest


def _evidence() -> Evidence:
    """A small lesson-2 record with every graded part: a [serve] table, errors, measurements, host keys."""
    inv = {"profile": "sim", "qsfp_port": 1,
           "nodes": [{"name": "spark-a", "address": "10.0.0.1", "port": 22, "user": "root"},
                     {"name": "spark-b", "address": "10.0.0.2", "port": 22, "user": "root"}],
           "serve": {"url": "http://192.168.100.10:8000", "model": "/m", "mode": "ray", "head": "spark-a"}}
    raw = [RawOutput(n, p, f"cmd {p}", f"{p} of {n}\n", "", 0, duration_s=0.1, started_at="2026-11-29T17:00:00Z")
           for n in ("spark-a", "spark-b") for p in ("netplan", "platform", "ip_addr")]
    ev = Evidence("lesson2", "sim", inv, raw, errors={"spark-b": "nothing"}, measurements={"iperf3": {"gbps": 17.5}},
                  facts={"nodes": {"spark-a": {"hostname": "spark-a"}}},
                  provenance={"nodes": {"spark-a": {"host_key": "SHA256:aaa", "host_key_type": "ssh-ed25519"},
                                        "spark-b": {"host_key": "SHA256:bbb", "host_key_type": "ssh-ed25519"}}})
    ev.stamp()
    return ev


def _raw(d: dict, node: str, probe: str) -> dict:
    return next(r for r in d["raw"] if r["node"] == node and r["probe"] == probe)


def _drop(d: dict, node: str, probe: str) -> None:
    d["raw"].remove(_raw(d, node, probe))


EDITS = {
    "profile and the inventory's": (lambda d: (d.update(profile="spark-pair"), d["inventory"].update(profile="spark-pair")),
                                    "`profile` changed, `inventory` changed"),
    "[serve] table deleted": (lambda d: d["inventory"].pop("serve"), "`inventory` changed"),
    "a node's address": (lambda d: d["inventory"]["nodes"][1].update(address="10.0.0.3"), "`inventory` changed"),
    "lesson": (lambda d: d.update(lesson="lesson1"), "`lesson` changed"),
    "errors emptied": (lambda d: d.update(errors={}), "`errors` changed"),
    "errors deleted": (lambda d: d.pop("errors"), "`errors` deleted"),
    "measurements": (lambda d: d["measurements"]["iperf3"].update(gbps=99.0), "`measurements` changed"),
    "replay": (lambda d: d["provenance"].update(replay=False), "`provenance` changed"),
    "host key": (lambda d: d["provenance"]["nodes"]["spark-b"].update(host_key="SHA256:zzz"), "`provenance` changed"),
    "provenance deleted": (lambda d: d.pop("provenance"), "`provenance` deleted"),
    "an output deleted": (lambda d: _drop(d, "spark-b", "netplan"), "output `netplan` of spark-b deleted"),
    "timed_out": (lambda d: _raw(d, "spark-a", "netplan").update(timed_out=True), "output `netplan` of spark-a changed"),
    "exit status": (lambda d: _raw(d, "spark-a", "ip_addr").update(exit_status=1), "output `ip_addr` of spark-a changed"),
    "command": (lambda d: _raw(d, "spark-a", "ip_addr").update(command="true"), "output `ip_addr` of spark-a changed"),
    "started_at": (lambda d: _raw(d, "spark-b", "platform").update(started_at="2027-01-01T00:00:00Z"),
                   "output `platform` of spark-b changed"),
    "an output added": (lambda d: d["raw"].append({**_raw(d, "spark-a", "netplan"), "probe": "hostname"}),
                        "output `hostname` of spark-a added"),
    "one node's outputs dropped and the profile rewritten": (
        lambda d: (d.update(profile="single-spark", errors={}),
                   d["inventory"].update(profile="single-spark", nodes=d["inventory"]["nodes"][:1]),
                   d.update(raw=[r for r in d["raw"] if r["node"] == "spark-a"])),
        "`profile` changed"),
}


def test_an_untouched_file_loads_and_carries_its_manifest(tmp_path):
    ev = _evidence()
    p = ev.save(tmp_path)
    data = json.loads(p.read_text())
    m = data["manifest"]
    assert m["version"] == 1 and len(m["sha256"]) == 64
    assert {"raw spark-a netplan", "inventory", "profile", "provenance", "measurements", "errors"} <= set(m["parts"])
    assert "facts" not in m["parts"]
    back = load_evidence(p)
    assert back.manifest_problem is None and back.inventory == ev.inventory and len(back.raw) == 6
    back.save(tmp_path / "again")  # saved again: the same manifest
    assert json.loads((tmp_path / "again" / "lesson2.json").read_text())["manifest"] == m


@pytest.mark.parametrize("what", list(EDITS))
def test_each_graded_field_edited_or_deleted_is_refused(tmp_path, what):
    edit, words = EDITS[what]
    p = _evidence().save(tmp_path)
    data = json.loads(p.read_text())
    edit(data)
    p.write_text(json.dumps(data))
    with pytest.raises(EvidenceError) as err:
        load_evidence(p)
    msg = str(err.value)
    assert "\n" not in msg and msg.startswith(f"{p}: ")
    assert "the file's manifest does not match its contents" in msg and "Record it again" in msg
    assert words in msg, msg
    # the grader refuses it (exit 2, one line); verify's lenient reader names the problem
    clean(cli("grade", str(p)), 2, "manifest does not match")
    assert read_evidence(p)[0].manifest_problem == msg


def test_an_edited_stdout_is_still_named_by_its_sha256(tmp_path):
    p = _evidence().save(tmp_path)
    data = json.loads(p.read_text())
    _raw(data, "spark-a", "netplan")["stdout"] = "edited\n"
    p.write_text(json.dumps(data))
    with pytest.raises(EvidenceError, match="the output of `netplan` on spark-a does not match its sha256"):
        load_evidence(p)
    _raw(data, "spark-a", "netplan")["sha256"] = digest("edited\n", "")  # re-hashed: the manifest sees it
    p.write_text(json.dumps(data))
    with pytest.raises(EvidenceError, match=r"manifest does not match its contents \(output `netplan` of spark-a"):
        load_evidence(p)


@pytest.mark.parametrize("edit", [
    lambda d: d["manifest"].update(sha256="0" * 64),
    lambda d: d.update(manifest="x"),
    lambda d: d["manifest"].update(version=2),
])
def test_an_edited_manifest_is_refused(tmp_path, edit):
    p = _evidence().save(tmp_path)
    data = json.loads(p.read_text())
    edit(data)
    p.write_text(json.dumps(data))
    with pytest.raises(EvidenceError, match="the file's manifest does not match its contents: it was edited"):
        load_evidence(p)


def test_a_file_without_a_manifest_was_recorded_by_an_older_grader(tmp_path):
    p = _evidence().save(tmp_path)
    data = json.loads(p.read_text())
    del data["manifest"]
    p.write_text(json.dumps(data))
    with pytest.raises(EvidenceError, match="recorded by an older grader: check again with `clusterlab check lesson2"):
        load_evidence(p)


def test_facts_and_facts_code_are_outside_the_manifest_and_an_edit_is_only_noted(tmp_path):
    from grader.checking import grade_file
    from grader.evidence import facts_code

    p = _evidence().save(tmp_path)
    data = json.loads(p.read_text())
    data["facts"] = {"nodes": {"spark-a": {"hostname": "spark-z"}}}
    data["provenance"]["facts_code"] = facts_code()
    p.write_text(json.dumps(data))
    assert load_evidence(p).facts["nodes"]["spark-a"]["hostname"] == "spark-z"
    r = grade_file(p)
    assert any("disagree with its raw outputs" in n and "graded from the raw outputs" in n for n in r.notes)


def test_seal_is_what_save_writes(tmp_path):
    ev = _evidence()
    p = ev.save(tmp_path)
    data = json.loads(p.read_text())
    assert seal(copy.deepcopy(data))["manifest"] == data["manifest"]


# ----------------------------------------------------------------- the campaign's tamper cases (B2/tamper)


def _verdicts(path: Path) -> dict[str, tuple[str, float]]:
    from grader.checking import grade_file

    return {v.id: (v.status, v.earned) for v in grade_file(path).verdicts}


@pytest.mark.parametrize("original, tampered", [
    ("l1-no-netplan__ORIGINAL.json", "l1-no-netplan__netplan_timed_out_true/lesson1.json"),
    ("l2-head-on-house-network__ORIGINAL.json", "l2-head-on-house-network__drop_inventory.serve/lesson2.json"),
])
def test_tamper_cases_are_refused_and_earn_nothing_more_even_resealed(tmp_path, original, tampered):
    orig, tamp = shared("B2", "tamper", original), shared("B2", "tamper", tampered)
    clean(cli("grade", str(tamp)), 2, "recorded by an older grader")  # as handed in: no manifest
    lesson = tamp.stem
    # recorded by this grader (sealed), then edited the same way: refused, naming what changed
    base = json.loads(orig.read_text())
    good = tmp_path / "good" / f"{lesson}.json"
    good.parent.mkdir()
    good.write_text(json.dumps(seal(copy.deepcopy(base))))
    edited = json.loads(tamp.read_text())
    edited["manifest"] = json.loads(good.read_text())["manifest"]
    bad = tmp_path / "bad" / f"{lesson}.json"
    bad.parent.mkdir()
    bad.write_text(json.dumps(edited))
    clean(cli("grade", str(bad)), 2, "manifest does not match its contents (")
    # a learner who recomputed the manifest too gains nothing: what is missing is not measured (0), never a warning
    resealed = sealed_copy(tamp, tmp_path / "resealed")
    before, after = _verdicts(good), _verdicts(resealed)
    for cid, (status, earned) in after.items():
        assert earned <= before[cid][1], (cid, before[cid], (status, earned))
        if before[cid][0] == "fail":
            assert status != "warn", cid


@pytest.mark.parametrize("node", ["spark-a", "spark-b"])
def test_profile_rewritten_and_one_node_dropped_is_refused(tmp_path, node):
    orig = shared("B2", "tamper", "l1-no-netplan__ORIGINAL.json")
    data = seal(json.loads(orig.read_text()))
    data.update(profile="single-spark", errors={})
    data["inventory"].update(profile="single-spark", nodes=[n for n in data["inventory"]["nodes"] if n["name"] == node])
    data["raw"] = [r for r in data["raw"] if r["node"] == node]
    p = tmp_path / "lesson1.json"
    p.write_text(json.dumps(data))
    err = clean(cli("grade", str(p)), 2, "manifest does not match its contents")
    assert "`profile` changed" in err and "deleted" in err
