"""Redaction by structure (grader/redact.py, issue 12 part 1).

The 18 kinds of secret the break-it campaign planted where the probes read
(../shared/fixtures/adversarial/C/secrets.json: 13 were redacted, 5 leaked; the leaks are in
C/secrets-leak-excerpts.txt), each as a unit case with the exact redacted text; a correct netplan
with a Wi-Fi password still passing L1.netplan; idempotence; linear time on 4 MB; and, on the
simulated cluster (root only; hold the sim lock: ``flock /tmp/clusterlab-sim.lock .venv/bin/python
-m pytest tests/test_redact.py``), every kind planted on the nodes and grepped for in every artefact
of ``check`` and ``grade``.

secrets.json records the kinds and where they leaked, not the planted values, so each value here
is rebuilt from the kind's name and the excerpts; every one holds the word PLANTED in each of its
parts, so a leaked fragment is found too.
"""

from __future__ import annotations

import copy
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from grader.evidence import RawOutput, load_evidence, read_evidence, redact as evidence_redact
from grader.facts.lesson1 import derive as lesson1_facts, split_netplan_listing
from grader.grading import grade
from grader.parsers.netplan import parse_netplan
from grader.redact import (KEY_REDACTED, is_secret_name, is_secret_yaml_key, redact, redact_private_keys,
                           redact_text, redact_yaml)

HERE = Path(__file__).resolve().parent
GOLDEN_L1 = HERE / "fixtures" / "golden" / "lesson1-sim-healthy.json"

KEY_BODY = ("b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n"
            "QyNTUxOQAAACCutBoundaryPLANTEDkeyBodyLineTwoAAAAAAAAAAAAAAAAAAAAAAAAAAAA\n"
            "AAAAPLANTEDkeyBodyLineThreeAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\n")
PUTTY = ("PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: planted\nPublic-Lines: 2\n"
         "AAAAC3NzaC1lZDI1NTE5AAAAIPuttyPublic\nAAAA\nPrivate-Lines: 1\n"
         "AAAAIPLANTEDPuttyPrivateLinesXYZ0123456789abcdefgh\nPrivate-MAC: 5a6b7c8d9e0f\n")


def listing(path: str, body: str, mode: str = "600") -> str:
    """The netplan probe's output for one file (grader.probes.lesson1.NETPLAN_LISTING)."""
    return f"=== {mode} root:root {path}\n{body}"


WIFI_HEAD = "network:\n  version: 2\n  wifis:\n    wlan0:\n      dhcp4: true\n      access-points:\n"

# kind -> (the text as a probe records it, the text as redacted)
KINDS: dict[str, tuple[str, str]] = {
    "wifi_quoted": (
        listing("/etc/netplan/60-wifi.yaml", WIFI_HEAD + '        "HomeNet":\n          password: "PLANTEDwifiQuoted"\n'),
        listing("/etc/netplan/60-wifi.yaml", WIFI_HEAD + '        "HomeNet":\n          password: "[redacted]"\n')),
    "wifi_unquoted_spaces": (
        listing("/etc/netplan/60-wifi.yaml", WIFI_HEAD + '        "Cafe Net":\n'
                "          password: Tr0ub4dorPLANTED s3condPLANTED halfPLANTED   # the cafe's\n"),
        listing("/etc/netplan/60-wifi.yaml", WIFI_HEAD + '        "Cafe Net":\n'
                '          password: "[redacted]"   # the cafe\'s\n')),
    "wifi_block_scalar": (
        listing("/etc/netplan/60-wifi.yaml", WIFI_HEAD + '        "Block Net":\n          password: >-\n'
                "            s3cretBlockScalarPLANTED\n            secondLinePLANTED\n        \"Next\":\n"
                "          password: \"PLANTEDnext\"\n"),
        listing("/etc/netplan/60-wifi.yaml", WIFI_HEAD + '        "Block Net":\n          password: "[redacted]"\n'
                '        "Next":\n          password: "[redacted]"\n')),
    "wifi_eap_private_key_password": (
        listing("/etc/netplan/60-wifi.yaml", WIFI_HEAD + '        "Corp":\n          auth:\n'
                "            key-management: eap\n            method: tls\n            identity: \"me@corp\"\n"
                "            client-key: /etc/ssl/me.key\n            client-key-password: PLANTEDeapKeyPw\n"
                "            password: 'PLANTEDeap'\n"),
        listing("/etc/netplan/60-wifi.yaml", WIFI_HEAD + '        "Corp":\n          auth:\n'
                "            key-management: eap\n            method: tls\n            identity: \"me@corp\"\n"
                '            client-key: /etc/ssl/me.key\n            client-key-password: "[redacted]"\n'
                '            password: "[redacted]"\n')),
    "hf_token_env": (
        "INFO 12-01 12:00:00 [env.py:1] HF_TOKEN=hf_PLANTEDenvAAAAAAAAAAAAAAAAAAAAAA HF_HOME=/m\n",
        "INFO 12-01 12:00:00 [env.py:1] HF_TOKEN=[redacted] HF_HOME=/m\n"),
    "hf_token_short_name": (  # a token shorter than the hf_ pattern's 20 characters, under short names
        "export HF_TOKEN=hf_PLANTED1\ntoken: hf_PLANTED2\n",
        "export HF_TOKEN=[redacted]\ntoken: [redacted]\n"),
    "api_key_flag": (
        "INFO 12-01 12:00:00 [cli.py:1] vllm serve /m --api-key sk-PLANTEDflag --port 8000\n",
        "INFO 12-01 12:00:00 [cli.py:1] vllm serve /m --api-key [redacted] --port 8000\n"),
    "api_key_eq": (
        "0:00 [cli.py:1] vllm serve /m --api-key=sk-PLANTEDeq\n",
        "0:00 [cli.py:1] vllm serve /m --api-key=[redacted]\n"),
    "api_key_args_dict": (
        "INFO 12-01 12:00:00 [utils.py:2] non-default args: {'model': '/m', 'api_key': ['sk-PLANTEDdict'], "
        "'port': 8000}\n",
        "INFO 12-01 12:00:00 [utils.py:2] non-default args: {'model': '/m', 'api_key': [redacted], 'port': 8000}\n"),
    "api_key_cmdline": (  # the serving_env probe's `=== <pid> <cmdline>` header
        "=== 14760 python3 -c import time; time.sleep(600) vllm serve /m --api-key sk-PLANTEDcmdline \n"
        "NCCL_SOCKET_IFNAME=enp1s0f1np1\n",
        "=== 14760 python3 -c import time; time.sleep(600) vllm serve /m --api-key [redacted] \n"
        "NCCL_SOCKET_IFNAME=enp1s0f1np1\n"),
    "json_escaped_password": (
        'INFO 12-01 12:00:00 [x.py:3] config {"password": "PLANTEDjson\\"JsonTailPLANTED", "port": 1}\n'
        '{"msg": "{\\"password\\": \\"PLANTEDnested\\\\\\"TailPLANTED\\"}"}\n',
        'INFO 12-01 12:00:00 [x.py:3] config {"password": [redacted], "port": 1}\n'
        '{"msg": "{\\"password\\": [redacted]}"}\n'),
    "private_key_body": (
        "NCCL INFO before\n-----BEGIN OPENSSH PRIVATE KEY-----\n" + KEY_BODY
        + "-----END OPENSSH PRIVATE KEY-----\nNCCL INFO after\n",
        f"NCCL INFO before\n{KEY_REDACTED}\nNCCL INFO after\n"),
    "private_key_cut_body": (  # the 4 MB tail window starts inside the key: no BEGIN line in it
        "DAzNTUxOQPLANTEDcutFirstLine\n" + KEY_BODY + "-----END OPENSSH PRIVATE KEY-----\nNCCL INFO after\n",
        f"{KEY_REDACTED}\nNCCL INFO after\n"),
    "putty_private_lines": (
        "NCCL INFO before\n" + PUTTY + "NCCL INFO after\n",
        f"NCCL INFO before\n{KEY_REDACTED}\nNCCL INFO after\n"),
    "bearer_token": (
        "curl -H 'Authorization: Bearer PLANTEDbearer123' http://192.168.100.10:8000/v1/models\n",
        "curl -H 'Authorization: Bearer [redacted]' http://192.168.100.10:8000/v1/models\n"),
    "url_password": (
        "git clone https://bob:PLANTEDurlpw@example.org/r.git\n",
        "git clone https://bob:[redacted]@example.org/r.git\n"),
    "aws_secret": (
        "AWS_SECRET_ACCESS_KEY=PLANTEDaws/Key+1\nAWS_ACCESS_KEY_ID=AKIA0000\n",
        "AWS_SECRET_ACCESS_KEY=[redacted]\nAWS_ACCESS_KEY_ID=AKIA0000\n"),
    "hf_token_process_env": (  # a process environment as the serving_env probe lists one
        "=== 14760 vllm serve /m \nHF_TOKEN=hf_PLANTEDprocessEnvAAAAAAAAAAAAAA\nNCCL_SOCKET_IFNAME=enp1s0f1np1\n",
        "=== 14760 vllm serve /m \nHF_TOKEN=[redacted]\nNCCL_SOCKET_IFNAME=enp1s0f1np1\n"),
}
EXTRA: dict[str, tuple[str, str]] = {
    "wifi_single_quoted_doubled": (
        listing("/etc/netplan/60-wifi.yaml", WIFI_HEAD + "        'It''s':\n          password: 'it''sPLANTED s3cretPLANTED'\n"),
        listing("/etc/netplan/60-wifi.yaml", WIFI_HEAD + "        'It''s':\n          password: \"[redacted]\"\n")),
    "pgp_private_key": (
        "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQOYBFPLANTED\n=ab12\n-----END PGP PRIVATE KEY BLOCK-----\n",
        f"{KEY_REDACTED}\n"),
    "putty_cut_before_header": (
        "AAAAIPLANTEDPuttyPrivate\nPrivate-MAC: 0123abcd\nNCCL INFO after\n", f"{KEY_REDACTED}\nNCCL INFO after\n"),
    "putty_private_lines_only": (
        "x\nPrivate-Lines: 2\nAAAAPLANTED1\nAAAAPLANTED2\nPrivate-MAC: 0a\ny\n", f"x\n{KEY_REDACTED}\ny\n"),
    "yaml_block_in_free_text": (
        "  password: |\n    PLANTEDline1\n    PLANTEDline2\n  next: 1\n", "  password: [redacted]\n  next: 1\n"),
    "sshpass": ("sshpass -p 'PLANTED pw' ssh spark-b\n", "sshpass -p [redacted] ssh spark-b\n"),
}


def test_the_18_kinds_are_all_here():
    kinds = json.loads((HERE / "fixtures/adversarial/C/secrets.json").read_text())["leaks"]
    assert set(kinds) == set(KINDS) and len(KINDS) == 18


@pytest.mark.parametrize("kind", [*KINDS, *EXTRA])
def test_each_kind_is_redacted_exactly(kind):
    text, want = {**KINDS, **EXTRA}[kind]
    out = redact(text)
    assert out == want
    assert "PLANTED" not in out
    assert redact(out) == out  # idempotent: load_evidence redacts again before it checks each sha256
    assert evidence_redact is redact  # evidence.py records with this very function


@pytest.mark.parametrize("kind", [k for k in {**KINDS, **EXTRA} if {**KINDS, **EXTRA}[k][0].startswith("=== 600")])
def test_redacted_netplan_is_valid_yaml_with_the_same_structure(kind):
    text, _ = {**KINDS, **EXTRA}[kind]
    [(_, _, before)] = split_netplan_listing(text)
    [(_, _, after)] = split_netplan_listing(redact(text))

    def blank(x):  # the original with every password value replaced
        if isinstance(x, dict):
            return {k: ("[redacted]" if is_secret_yaml_key(str(k)) else blank(v)) for k, v in x.items()}
        return x

    assert yaml.safe_load(after) == blank(yaml.safe_load(before))


def test_leak_excerpts_are_redacted_now():
    """The campaign's excerpts (already mangled by the old patterns) lose every secret fragment."""
    out = redact((HERE / "fixtures/adversarial/C/secrets-leak-excerpts.txt").read_text())
    for fragment in ("s3cond half", "s3cretBlockScalar", "JsonTail", "PLANTEDkeyBody", "PuttyPrivateLines"):
        assert fragment not in out
    assert redact(out) == out


# --------------------------------------------------------------------------- L1.netplan

CX7_A = ("network:\n  version: 2\n  ethernets:\n    enp1s0f1np1:\n      addresses:\n        - 192.168.100.10/24\n"
         "      dhcp4: no\n      mtu: 9000\n    enP2p1s0f1np1:\n      addresses:\n        - 192.168.101.10/24\n"
         "      dhcp4: no\n      mtu: 9000\n")
WIFIS = ("  wifis:\n    wlan0:\n      dhcp4: true\n      access-points:\n"
         '        "Cafe Net":\n          password: Tr0ub4dor PLANTED half\n'
         '        "Block Net":\n          password: >-\n            PLANTEDblock\n'
         "        'It''s':\n          password: 'it''s PLANTED'\n")


def _with_netplan(ev, listings: dict[str, str]):
    ev = copy.deepcopy(ev)
    for i, r in enumerate(ev.raw):
        if r.probe == "netplan":
            ev.raw[i] = RawOutput(**{**r.__dict__, "stdout": listings[r.node], "sha256": ""})
    return ev


@pytest.mark.parametrize("layout", ["one file", "own file"])
def test_a_correct_netplan_with_a_wifi_password_passes_l1_netplan(layout, tmp_path):
    ev, edited = read_evidence(GOLDEN_L1)  # the sim's healthy recording (its outputs, whatever its manifest)
    assert not edited
    cx7 = {r.node: r.stdout for r in ev.raw if r.probe == "netplan"}
    if layout == "one file":  # the twins' addresses in the very file that holds the Wi-Fi passwords
        listings = {n: listing("/etc/netplan/50-cloud-init.yaml", split_netplan_listing(t)[0][2] + "\n" + WIFIS)
                    for n, t in cx7.items()}
    else:
        listings = {n: t + listing("/etc/netplan/60-wifi.yaml", "network:\n  version: 2\n" + WIFIS) for n, t in cx7.items()}
    assert split_netplan_listing(listings["spark-a"])[0][2].startswith(CX7_A.split("  ethernets")[0])
    mine = _with_netplan(ev, listings)
    stored = {r.node: r.stdout for r in mine.raw if r.probe == "netplan"}
    for node, text in stored.items():
        assert "PLANTED" not in text
        for (path, mode, after), (_, _, before) in zip(split_netplan_listing(text), split_netplan_listing(listings[node])):
            assert parse_netplan(after) == parse_netplan(before)  # the same addresses, read the same way
    verdicts = {v.id: v for v in grade(lesson1_facts(mine), "lesson1", mine.profile)}
    assert verdicts["L1.netplan"].status == "pass", verdicts["L1.netplan"]
    # and through a file, as `clusterlab grade` reads it: saved, loaded, re-redacted, hashes still match
    path = mine.save(tmp_path)
    again = load_evidence(path)
    assert [r.stdout for r in again.raw] == [r.stdout for r in mine.raw]


# --------------------------------------------------------------------------- names, structure

@pytest.mark.parametrize("name", ["HF_TOKEN", "token", "auth-token", "AWS_SECRET_ACCESS_KEY", "clientSecret", "apiKey",
                                  "client-key-password", "api_key", "api-key", "wifi-security.psk", "DB_PASSWORD",
                                  "wpa_passphrase", "accessToken", "private_key", "psk"])
def test_secret_names(name):
    assert is_secret_name(name)


@pytest.mark.parametrize("name", ["total_token_throughput", "max_num_batched_tokens", "token_budgets", "eos_token",
                                  "time_to_first_token", "bytes_per_token", "tokenizer", "pin_memory", "key", "keys",
                                  "num_tokens", "eosToken"])
def test_not_secret_names(name):
    assert not is_secret_name(name)


def test_yaml_secret_keys_follow_netplan():
    assert all(is_secret_yaml_key(k) for k in ("password", "client-key-password", "private-key-password",
                                               "wifi-security.psk", "802-1x.password", "wifi-security.wep-key0", "pin"))
    assert not any(is_secret_yaml_key(k) for k in ("key-management", "method", "identity", "client-key",
                                                   "ca-certificate", "phase2-auth", "addresses", "public"))
    assert is_secret_yaml_key("private", ("network", "tunnels", "wg0", "keys"))
    assert is_secret_yaml_key("shared", ("network", "tunnels", "wg0", "peers", "keys"))
    assert is_secret_yaml_key("key", ("network", "tunnels", "wg0"))
    assert not is_secret_yaml_key("key", ("network", "ethernets", "eth0"))


def test_yaml_aliases_wireguard_and_comments():
    text = ("# old: password: PLANTEDcomment\nnetwork:\n  x: &pw PLANTEDanchor\n  tunnels:\n    wg0:\n"
            "      mode: wireguard\n      key: PLANTEDwg=\n      peers:\n        - keys:\n            public: pub=\n"
            "            shared: PLANTEDshared=\n  wifis: {w: {access-points: {a: {password: *pw, mode: ap}}}}\n")
    out = redact_yaml(text)
    assert "PLANTED" not in out and redact_yaml(out) == out
    assert out.startswith("# old: password: [redacted]\n") and "x: &pw \"[redacted]\"" in out
    assert yaml.safe_load(out)["network"]["tunnels"]["wg0"]["peers"][0]["keys"]["public"] == "pub="


def test_unparseable_netplan_is_redacted_line_by_line():
    text = ("network:\n  wifis:\n    w:\n      access-points:\n        a:\n          password: Tr0ub4dor PLANTED half\n"
            "        b:\n          password: >-\n            PLANTEDblock\n        c:\n"
            "          password: \"PLANTED\\\" x\"\n\tbroken: tab\n")
    out = redact(listing("/etc/netplan/99-bad.yaml", text))
    assert "PLANTED" not in out and redact(out) == out
    assert out.count('password: "[redacted]"') == 3 and "\tbroken: tab" in out


def test_alias_bomb_is_not_expanded():
    rows = ["a: &a [x, x, x, x, x, x, x, x, x]"] + [f"{c}: &{c} [{', '.join(['*' + p] * 9)}]"
                                                     for p, c in zip("abcdefgh", "bcdefghi")]
    text = listing("/etc/netplan/01-bomb.yaml", "\n".join(rows) + "\npassword: PLANTEDbomb\n")
    t = time.process_time()
    out = redact(text)
    assert time.process_time() - t < 1.0 and len(out) < 2 * len(text) and "PLANTED" not in out


def test_a_window_that_starts_inside_a_key_loses_all_of_it():
    """`tail -c 4000000` of a file whose key BEGIN line lies before the window."""
    key = "-----BEGIN OPENSSH PRIVATE KEY-----\n" + KEY_BODY + "-----END OPENSSH PRIVATE KEY-----\n"
    tail = "NCCL INFO after the key\n" * 1000
    whole = "NCCL INFO padding\n" * 10 + key + tail
    window = whole[-(len(tail) + len(key) - 60):]  # cut 60 characters into the key
    assert "BEGIN" not in window and "PLANTED" in window
    out = redact(window)
    assert out == KEY_REDACTED + "\n" + tail and redact(out) == out


# --------------------------------------------------------------------------- time

def _cpu(fn, *args) -> float:
    t = time.process_time()
    fn(*args)
    return time.process_time() - t


def test_a_4mb_single_line_redacts_in_well_under_a_second():
    n = 4_000_000
    line = ("NCCL INFO padding line for the tail window, tokens/s 12.5, max_num_batched_tokens=2048 "
            * (n // 90 + 1))[:n]
    line = "HF_TOKEN=hf_PLANTEDaaaaaaaaaaaaaaaaaaaa " + line[:n // 2] + " --api-key sk-PLANTED " + line[n // 2:]
    out = redact(line)
    assert "PLANTED" not in out
    assert _cpu(redact, line) < 0.8
    b64 = ("QyNTUxOQAAACCutBoundaryPLANTEDkeyBodyLineTwoAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA+/" * (n // 76 + 1))[:n]
    assert _cpu(redact, b64) < 0.8


@pytest.mark.parametrize("unit", ['"password": "', '\\"password\\": \\"', "--api-key ", "password: |\n", "token=a ",
                                  "-----END PRIVATE KEY-----", "[", "'", "tokentoken", "=== 600 a:b /x.yaml\n",
                                  "Private-Lines: 999999999\n", "PuTTY-User-Key-File-3: x\n"])
def test_crafted_input_is_linear(unit):
    """Dense crafted input: twice the size takes about twice the time (never quadratic), and 4 MB of
    nothing but secret assignments stays within a few seconds."""
    small = unit * (1_000_000 // len(unit))
    big = unit * (4_000_000 // len(unit))
    # Best of a few runs: one run on a loaded 2-core CI machine can take 10x its usual time (seen:
    # 0.064 s then 0.87 s for 4x the input, linear when measured again). Quadratic stays slow in every run.
    t_small = min(_cpu(redact, small) for _ in range(3))
    t_big = _cpu(redact, big)
    for _ in range(2):
        if t_big < 5.0 and t_big < 8 * t_small + 0.3:
            break
        t_big = min(t_big, _cpu(redact, big))
    assert t_big < 5.0 and t_big < 8 * t_small + 0.3, (t_small, t_big)


def test_free_text_and_keys_are_separate_passes():
    assert redact_private_keys("no key here") == "no key here"
    assert redact_text("password=x y") == "password=[redacted]"


# --------------------------------------------------------------------------- the sim

def _sim_usable() -> str | None:
    if os.geteuid() != 0:
        return "needs root"
    if not shutil.which("sshd") and not Path("/usr/sbin/sshd").exists():
        return "needs OpenSSH sshd"
    return None


@pytest.mark.skipif(_sim_usable() is not None, reason=str(_sim_usable()))
def test_no_planted_secret_reaches_any_artefact_on_the_sim(tmp_path):
    """Plant every kind where the probes read (netplan files of both nodes, the NCCL log the
    inventory names with a key cut by the 4 MB window, a vLLM log, a running fake `vllm serve` with
    an API key on its command line and HF_TOKEN in its environment), run `check lesson1 lesson2`
    and `grade`, and find none of them in the evidence, stdout, stderr or --json."""
    from grader import sim
    from grader.sim import topology as T

    if sim.status().get("up"):
        pytest.skip("the sim is already up (someone else's): not touching it")
    try:
        inv = sim.up([])
    except Exception as e:  # noqa: BLE001 - the sim cannot come up here
        pytest.skip(f"the sim cannot come up: {e}")
    fake = None
    planted: dict[Path, str | None] = {}
    try:
        secrets, inventory, fake = _plant(Path(inv), tmp_path, planted)
        evidence = tmp_path / "evidence"
        cli = [sys.executable, "-m", "grader.cli"]
        runs = [subprocess.run(cli + ["check", "lesson1", "lesson2", "--inventory", str(inventory), "--evidence",
                                      str(evidence), "--json"], capture_output=True, text=True, timeout=300)]
        runs += [subprocess.run(cli + ["check", "lesson1", "lesson2", "--inventory", str(inventory), "--evidence",
                                       str(tmp_path / "evidence-text")], capture_output=True, text=True, timeout=300)]
        files = sorted(evidence.glob("*.json")) + sorted((tmp_path / "evidence-text").glob("*.json"))
        assert {f.name for f in files} >= {"lesson1.json", "lesson2.json"}, runs[0].stderr
        for f in files:
            runs += [subprocess.run(cli + ["grade", str(f), *extra], capture_output=True, text=True, timeout=120)
                     for extra in ([], ["--json"])]
        artefacts = {f"run {i} {k}": getattr(r, k) for i, r in enumerate(runs) for k in ("stdout", "stderr")}
        crashed = [w for w, t in artefacts.items() if "Traceback (most recent call last)" in t]
        assert not crashed, crashed  # (a raw output may hold one: `ray status` with no cluster prints its own)
        artefacts.update({str(f): f.read_text() for f in files})
        # what was read: the planted files did reach the evidence (so 0 hits means redacted, not unread)
        l1 = json.loads((evidence / "lesson1.json").read_text())
        l2 = json.loads((evidence / "lesson2.json").read_text())
        assert all("60-wifi.yaml" in r["stdout"] for r in l1["raw"] if r["probe"] == "netplan")
        assert any(r["probe"] == "log:nccl_debug" and KEY_REDACTED in r["stdout"] for r in l2["raw"])
        assert any(r["probe"] == "log:vllm" and "--api-key=[redacted]" in r["stdout"] for r in l2["raw"])
        assert any(r["probe"] == "serving_env" and "--api-key [redacted]" in r["stdout"] for r in l2["raw"])
        l1_json = next(r for r in json.loads(runs[0].stdout) if r["lesson"] == "lesson1")
        assert {v["id"]: v["status"] for v in l1_json["verdicts"]}["L1.netplan"] == "pass"  # read, and correct
        hits = {kind: [where for where, text in artefacts.items() if any(v in text for v in values)]
                for kind, values in secrets.items()}
        assert hits == {kind: [] for kind in secrets}, hits
        assert not [where for where, text in artefacts.items() if "PLANTED" in text]
    finally:
        if fake is not None:
            os.killpg(fake.pid, signal.SIGKILL)
            fake.wait(timeout=10)
        for p, original in planted.items():  # remove what was planted, put back what was there
            if original is None:
                p.unlink(missing_ok=True)
            elif p.exists():
                p.write_text(original)
        sim.down()
    assert not any(p.exists() for p in planted)
    assert not T.ETC_NETNS.joinpath("spark-a").exists()


def _plant(inv: Path, tmp: Path, planted: dict[Path, str | None]):
    """Plant the 18 kinds on the running sim, noting in ``planted`` each file written and its text
    before (None: it was not there); return ({kind: [values]}, the inventory to use, the fake vllm process)."""
    from grader import sim
    from grader.sim import node as N
    from grader.sim import roce_sim
    from grader.sim.host import login_command
    from grader.sim import topology as T

    secrets = {kind: _planted_parts(text) for kind, (text, _) in KINDS.items()}
    # netplan: both nodes, written in each node's own /etc (its overlay's upper folder keeps the file)
    wifi = ("network:\n  version: 2\n  wifis:\n    wlan0:\n      dhcp4: true\n      access-points:\n"
            + "".join(KINDS[k][0].split("access-points:\n", 1)[1]
                      for k in ("wifi_quoted", "wifi_unquoted_spaces", "wifi_block_scalar",
                                "wifi_eap_private_key_password"))
            + EXTRA["wifi_single_quoted_doubled"][0].split("access-points:\n", 1)[1])
    yaml.safe_load(wifi)  # a valid file
    for node in T.NODES:
        planted[N.etc(node) / "netplan" / "60-wifi.yaml"] = None
        subprocess.run(sim.node_command(node) + ["sh", "-c", "cat > /etc/netplan/60-wifi.yaml && "
                                                 "chmod 600 /etc/netplan/60-wifi.yaml"], input=wifi, text=True, check=True)
    # the NCCL log the inventory names, on the head: a key whose BEGIN falls before the 4 MB window
    log = N.user_home(T.NODES[0]) / roce_sim.NCCL_LOG_NAME  # the login user's home, where the grader reads it
    original = planted[log] = log.read_text()
    free = "".join(KINDS[k][0] for k in ("hf_token_env", "hf_token_short_name", "json_escaped_password",
                                          "putty_private_lines", "bearer_token", "url_password", "aws_secret",
                                          "private_key_body"))
    key = "-----BEGIN OPENSSH PRIVATE KEY-----\n" + KEY_BODY + "-----END OPENSSH PRIVATE KEY-----\n"
    cut = len("-----BEGIN OPENSSH PRIVATE KEY-----\n") + 100  # the window starts 100 characters into the body
    after = free + original
    pad_line = "NCCL INFO padding line for the tail window " + "." * 36 + "\n"
    need = 4_000_000 - (len(key) - cut) - len(after)
    padding = pad_line * (need // len(pad_line)) + "#" * (need % len(pad_line) - 1) + "\n" if need % len(pad_line) \
        else pad_line * (need // len(pad_line))
    body = "NCCL INFO head of the log\n" * 40 + key + padding + after
    log.write_text(body)
    assert len(body) - 4_000_000 == 40 * len("NCCL INFO head of the log\n") + cut
    # a vLLM log and a [serve] table so lesson 2 reads it
    vllm_log = N.user_home(T.NODES[0]) / "vllm.log"
    planted[vllm_log] = None
    vllm_log.write_text(KINDS["api_key_eq"][0] + KINDS["api_key_flag"][0] + KINDS["api_key_args_dict"][0]
                        + KINDS["json_escaped_password"][0])
    inventory = tmp / "inventory.toml"
    text = inv.read_text()
    text = text.replace("\n[logs]\n", '\n[serve]\nurl = "http://192.168.100.10:8000"\nmodel = "/nonexistent/m"\n'
                                      '\n[logs]\nvllm = "~/vllm.log"\n')
    inventory.write_text(text)
    # a fake `vllm serve` in spark-a's network namespace: the API key on its command line, HF_TOKEN in its environment
    env_value = KINDS["hf_token_process_env"][0].split("HF_TOKEN=")[1].split("\n")[0]
    python = "/usr/bin/python3" if Path("/usr/bin/python3").exists() else sys.executable  # a node's /root hides a venv there
    # as the node's login user, as a learner's own vLLM runs (the grader, that user too, reads its environment)
    fake = subprocess.Popen(login_command(T.NODES[0], workdir=None) + ["env", f"HF_TOKEN={env_value}", python, "-c",
                             "import time; time.sleep(600)", "vllm", "--api-key", "sk-PLANTEDcmdline"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    time.sleep(0.5)
    return secrets, inventory, fake


def _planted_parts(text: str) -> list[str]:
    """The secret fragments of a case: every blank-separated word holding PLANTED (a leak of any part shows)."""
    words = text.replace("\\", " ").replace('"', " ").replace("'", " ").replace("=", " ").replace(":", " ").split()
    return sorted({w.strip(",;[]{}()") for w in words if "PLANTED" in w})
