"""A scripted learner (issue 26): the sim starts where the learner starts, and the learner's own commands,
taken from the notebook they read, earn lesson 1's machine points.

``clusterlab sim up`` (the real CLI, as the notebook prints it) builds lesson 1's start: the check finds the
cable in the right port and its link up, and nothing else done. The test then reads lesson 1's released
notebook (labs/lesson1/lesson1.ipynb), takes the commands it prints for the netplan file, the SSH keys and
/etc/hosts, and types them into each node through ``clusterlab sim shell NODE`` (as the node's login user)
with the node's own values filled in where the notebook says so (spark-b: ``.11``; the peer's address). Where
the learner types at a prompt (sudo's password, ``ssh-copy-id``'s host-key question and the peer's password),
an askpass script answers ``yes`` and the sim's password, as a person would (tests/helpers_learner.py). No grader or sim code does any step. The check then passes every
lesson-1 check, and still does after ``sim reboot`` of each node (everything the notebook sets persists).

``solve lesson1`` from the start state rebuilds the answer key's state and says that it did the steps.

Lesson 2 goes on from there: ``clusterlab start lesson2`` (nothing serves; the model is made), then the commands
lesson 2's notebook prints for the sim (its "Your path" cell: the interface variables, ``ray start`` on each
node, ``vllm serve`` on the head, the ``[serve]`` table appended to the learner's copy of the inventory), typed
into the nodes the same way. Every lesson-2 check that applies to the sim then passes, from the learner's own
Ray and vLLM; ``ray stop`` on spark-b leaves spark-a's head running.

The lab goes on from a finished pair: ``clusterlab start lab`` as its notebook prints it (lesson 2's end with vLLM
stopped), the pair served in the nodes as section 4 prints it and load-tested, the switch to spark-a alone typed as
section 5 prints it, and the lab notebook run beside the learner's inventory at full marks. The switch of four:
``sim up --nodes 4`` starts new, and lesson 1's N-node section, applied as it says, makes every check pass.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from grader import sim
from grader.sim import topology as T
from tests.helpers_learner import SSH_PROMPTS, typed, typed_at_prompt
from tests.helpers_notebooks import assert_full_marks, execute

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = ROOT / "labs" / "lesson1" / "lesson1.ipynb"
NOTEBOOK2 = ROOT / "labs" / "lesson2" / "lesson2.ipynb"
CLI = [sys.executable, "-m", "grader.cli"]
A, B = T.NODES
PEER_ADDR = {A: "192.168.100.11", B: "192.168.100.10"}
"""Each node's peer on the first twin, from the notebook's address table (section 2)."""

live = pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("sshd", path="/usr/sbin:/usr/bin:/sbin:/bin"),
                          reason="the sim needs root and OpenSSH sshd")

# --- what the notebook prints ------------------------------------------------------------------

def _section(title_start: str, notebook: Path = NOTEBOOK) -> str:
    """The markdown of the notebook cell whose heading starts with ``title_start``."""
    cells = json.loads(notebook.read_text())["cells"]
    hits = ["".join(c["source"]) for c in cells if c["cell_type"] == "markdown"
            and "".join(c["source"]).startswith(title_start)]
    assert len(hits) == 1, f"{notebook}: {len(hits)} cells start with {title_start!r}"
    return hits[0]


def _blocks(markdown: str, lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", markdown, re.S)


def _commands(block: str) -> list[str]:
    """The command lines of a ```sh block, each without its trailing ``# comment`` (the block's own comments
    keep the line they explain)."""
    out = []
    for line in block.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        out.append(re.sub(r"\s+#\s.*$", "", line).rstrip())
    return out


def netplan_steps() -> tuple[str, list[str]]:
    """Section 2: the 40-cx7.yaml for spark-a and the commands to run on each node after writing it."""
    md = _section("## 2. Addresses")
    (yaml,), (sh,) = _blocks(md, "yaml"), _blocks(md, "sh")
    assert "spark-b: `.11` in both addresses" in md  # how the notebook tells spark-b's file from spark-a's
    return yaml, _commands(sh)


def ssh_steps() -> list[str]:
    """Section 4: the commands on spark-a (spark-b: 'the same ... with the other address')."""
    (sh,) = _blocks(_section("## 4. Passwordless SSH"), "sh")
    return _commands(sh)


def hosts_steps() -> dict[str, str]:
    """Section 5: the /etc/hosts line for each node (the line whose comment names the node)."""
    blocks = [b for b in _blocks(_section("## 5. Verify the link"), "sh") if "/etc/hosts" in b]
    assert len(blocks) == 1, blocks
    lines = {}
    for line in blocks[0].splitlines():
        m = re.search(r"#\s*on (spark-[ab])\s*$", line)
        if m:
            lines[m.group(1)] = re.sub(r"\s+#.*$", "", line).strip()
    assert set(lines) == {A, B}, blocks[0]
    return lines


def lesson2_sim_steps() -> tuple[list[str], list[tuple[str, str]], str]:
    """Lesson 2's sim path ("Your path" cell): the commands on this machine (``start``, the inventory copy), the
    node commands as (node or "both", command) in the order printed, and the script that appends ``[serve]``."""
    md = _section("## Your path, and the machine checks", NOTEBOOK2)
    host, nodes, serve = [b for b in _blocks(md, "sh")]
    steps = []
    for line in nodes.splitlines():
        m = re.search(r"\s+#\s*on (both|spark-[ab])\s*$", line)
        assert m, f"{NOTEBOOK2}: a node command without `# on NODE`: {line!r}"
        steps.append((m.group(1), line[:m.start()].strip()))
    return _commands(host), steps, serve


def test_the_notebook_prints_every_step_the_learner_needs():
    """Pure: the notebook's blocks hold what the live test types (so a change to the notebook that drops a
    step fails here first, without a sim)."""
    from grader.facts.lesson1 import NETPLAN_READ_INSTALL, NETPLAN_READ_RULE

    yaml, after = netplan_steps()
    assert "192.168.100.10/24" in yaml and "192.168.101.10/24" in yaml and yaml.count("mtu: 9000") == 2
    assert any("netplan apply" in c for c in after) and any("chmod 600" in c for c in after)
    assert after[-2:] == [NETPLAN_READ_RULE, NETPLAN_READ_INSTALL]  # the grader's read: what L1.netplan's hint says
    steps = ssh_steps()
    assert any(c.startswith("ssh-copy-id") and PEER_ADDR[A] in c for c in steps)
    assert any("BatchMode=yes" in c and PEER_ADDR[A] in c for c in steps)
    assert f"{T.LOGIN_USER}@" not in " ".join(steps)  # the learner's own user name: the same on both nodes
    assert hosts_steps() == {A: 'echo "192.168.100.11 spark-b" | sudo tee -a /etc/hosts',
                             B: 'echo "192.168.100.10 spark-a" | sudo tee -a /etc/hosts'}
    host, nodes, serve = lesson2_sim_steps()
    assert host[0].startswith(".venv/bin/clusterlab start lesson2 ") and host[1].startswith("cp ")
    assert [n for n, c in nodes if c.startswith("ray start")] == [A, B]
    assert nodes[-1][0] == A and "vllm serve" in nodes[-1][1] and "--distributed-executor-backend ray" in nodes[-1][1]
    assert "[serve]" in serve and "inventory.toml" in serve


# --- live ----------------------------------------------------------------------------------------

def shell(node: str, script: str, stdin: str | None = None, env: str = "") -> subprocess.CompletedProcess:
    """``clusterlab sim shell NODE bash -c SCRIPT``, as a learner types it in the node's shell."""
    p = typed(node, (env + " " if env else "") + script, stdin=stdin)
    assert p.returncode == 0, f"on {node}: {script}\nrc {p.returncode}\n{p.stdout}{p.stderr}"
    return p


def check(inventory: str, evidence: Path) -> dict:
    p = subprocess.run(CLI + ["check", "lesson1", "--inventory", inventory, "--evidence", str(evidence), "--json"],
                       capture_output=True, text=True, timeout=180)
    assert p.returncode in (0, 1), p.stderr
    return json.loads(p.stdout)


def grade_cells(evidence_dir: Path, lesson: str = "lesson1") -> float:
    """What a lesson's grade cells give ``evidence_dir``'s evidence: each cell's call as the released notebook
    writes it, scored by the function the cells call (grader.scoring.score_checks)."""
    from grader.scoring import score_checks

    notebook, cells = {"lesson1": (NOTEBOOK, 3), "lesson2": (NOTEBOOK2, 6)}[lesson]
    calls = re.findall(rf'grade_checks\(\\"{lesson}\\", \[(.*?)\], points=(\d+)\)', notebook.read_text())
    assert len(calls) == cells, calls
    return sum(score_checks(lesson, re.findall(r'\\"(L\d\.\w+)\\"', ids), float(pts), evidence_dir)[0]
               for ids, pts in calls)


def statuses(report: dict) -> dict[str, str]:
    return {v["id"]: v["status"] for v in report["verdicts"]}


def learner_does_lesson1() -> None:
    """Every step of lesson 1 the notebook prints, typed into both nodes."""
    yaml, after = netplan_steps()
    for node in (A, B):
        mine = yaml if node == A else yaml.replace(".10/24", ".11/24")
        shell(node, "sudo tee /etc/netplan/40-cx7.yaml > /dev/null", stdin=mine)  # the learner's editor, under sudo
        for cmd in after:
            shell(node, cmd)
    hosts = hosts_steps()
    for node in (A, B):
        shell(node, hosts[node])
    for node in (A, B):
        for cmd in ssh_steps():
            cmd = cmd.replace(PEER_ADDR[A], PEER_ADDR[node])
            out = shell(node, cmd, stdin="", env=SSH_PROMPTS)
            if "BatchMode=yes" in cmd:
                assert out.stdout.strip() == (B if node == A else A), out.stdout + out.stderr


def grader_read_rule_holds(node: str) -> None:
    """Section 2's sudoers rule, as the learner's two lines installed it on ``node``, is the one a finished pair has
    (grader.sim.accounts.READ_RULE, for the login user), root's and of mode 440; it lets the login user ``sudo -n cat``
    the netplan file without a password (the grader's read), and refuses a path out of /etc/netplan and a second
    file."""
    from grader.sim.accounts import READ_RULE

    assert shell(node, "sudo cat /etc/sudoers.d/clusterlab-read").stdout == READ_RULE
    assert shell(node, "stat -c '%a %U' /etc/sudoers.d/clusterlab-read").stdout.split() == ["440", "root"]
    assert "enp1s0f1np1" in shell(node, "sudo -n cat /etc/netplan/40-cx7.yaml").stdout
    for argv in (["/etc/netplan/../shadow"], ["/etc/netplan/40-cx7.yaml", "/etc/shadow"], ["/etc/shadow"]):
        # sudo -K first: the password the steps above gave sudo is remembered for a while (the grader's SSH
        # session never has it)
        p = subprocess.run(CLI + ["sim", "shell", node, "bash", "-c", "sudo -K; sudo -n cat " + " ".join(argv)],
                           capture_output=True, text=True, timeout=30)
        assert p.returncode != 0 and "a password is required" in p.stderr and "root:" not in p.stdout, argv


@live
def test_a_learner_earns_lesson1_with_the_notebooks_commands(tmp_path):
    try:
        p = subprocess.run(CLI + ["sim", "up"], capture_output=True, text=True, timeout=120)
        assert p.returncode == 0, p.stderr
        inventory = p.stdout.strip()
        assert "lesson 1's start" in p.stderr and f"password {T.LOGIN_PASSWORD}" in p.stderr
        assert sim.start_state() == "lesson1"

        start = check(inventory, tmp_path / "start")
        # the cable is in port 1 and the link is up: a new pair's given; every step of the lesson is left
        assert statuses(start) == {"L1.port": "pass", "L1.link_speed": "pass", "L1.addressing": "fail",
                                   "L1.netplan": "fail", "L1.mtu": "fail", "L1.ssh": "fail", "L1.route": "fail",
                                   "L1.tcp": "fail"}, json.dumps(start["verdicts"], indent=1)[:3000]
        assert start["score"] == {"earned": 0, "total": 11} and grade_cells(tmp_path / "start") == 0
        for node in (A, B):  # a new machine: no key of the peer, no peer known
            assert shell(node, "ls -A ~/.ssh").stdout.split() == ["authorized_keys"]
            assert "spark-" not in shell(node, "grep -v 127.0.1.1 /etc/hosts").stdout

        learner_does_lesson1()
        done = check(inventory, tmp_path / "done")
        assert set(statuses(done).values()) == {"pass"}, json.dumps(done["verdicts"], indent=1)[:3000]
        assert done["score"] == {"earned": 11, "total": 11}  # L1.port, L1.link_speed: the sim's, 0 points
        assert done["unfit"] == [] and grade_cells(tmp_path / "done") == 14

        grader_read_rule_holds(A)

        for node in (A, B):  # everything the notebook set survives a reboot
            sim.reboot(node)
        again = check(inventory, tmp_path / "rebooted")
        assert set(statuses(again).values()) == {"pass"}, json.dumps(again["verdicts"], indent=1)[:3000]

        solved = subprocess.run(CLI + ["solve", "lesson1"], capture_output=True, text=True, timeout=120)
        assert solved.returncode == 0 and "it was at lesson1's start: the steps were done for you" in solved.stdout, \
            solved.stdout + solved.stderr
        assert sim.start_state() is None
        check(inventory, tmp_path / "solved")
        assert grade_cells(tmp_path / "solved") == 0  # the answer key's work earns nothing
    finally:
        sim.down()


@live
def test_a_fault_needs_the_finished_pair():
    with pytest.raises(sim.SimError, match="break-fix exercise on a finished cluster"):
        sim.up(["mtu-1500"], start="lesson1")


def test_shipped_sim_evidence_earns_nothing_unless_the_instructor_lifts_the_rule(tmp_path, monkeypatch):
    """The golden lesson-1 evidence the repository ships was recorded on a sim built finished: the grade cells
    give a copy of it 0, saying why; CLUSTERLAB_SIM_OWN_WORK=off (the instructor's switch) gives it its 14."""
    shutil.copyfile(ROOT / "tests" / "fixtures" / "golden" / "lesson1-sim-healthy.json", tmp_path / "lesson1.json")
    monkeypatch.delenv("CLUSTERLAB_SIM_OWN_WORK", raising=False)
    assert grade_cells(tmp_path) == 0
    from grader.scoring import score_checks

    _, lines = score_checks("lesson1", ["L1.mtu", "L1.ssh"], 4.0, tmp_path)
    assert any("was built finished" in line for line in lines), lines  # recorded after `solve lesson1`
    monkeypatch.setenv("CLUSTERLAB_SIM_OWN_WORK", "off")
    assert grade_cells(tmp_path) == 14


def learner_does_lesson2(workdir: Path) -> Path:
    """Lesson 2's sim path as its notebook prints it: ``start`` and the inventory copy on this machine (in
    ``workdir``, the learner's course folder), the node commands in order (each node's shell keeps what it
    exported, as a terminal does), ``vllm serve`` awaited in its log, the ``[serve]`` table appended. Returns the
    learner's inventory."""
    host, nodes, serve = lesson2_sim_steps()
    for cmd in host:
        argv = cmd.split()
        if argv[0] == "cp":
            shutil.copyfile(argv[1], workdir / argv[2])
            continue
        assert argv[0] == ".venv/bin/clusterlab", cmd
        p = subprocess.run(CLI + argv[1:], capture_output=True, text=True, timeout=300, cwd=workdir)
        assert p.returncode == 0, p.stdout + p.stderr
    both = [c for n, c in nodes if n == "both"]
    exported: dict[str, list[str]] = {A: [], B: []}
    i = 0
    while i < len(nodes):
        node = nodes[i][0]
        if node == "both":
            i += 1
            continue
        segment = []
        while i < len(nodes) and nodes[i][0] in (node, "both"):
            if nodes[i][0] == node:
                segment.append(nodes[i][1])
            i += 1
        shell(node, "\n".join(both + exported[node] + segment))
        exported[node] += [c for c in segment if c.startswith("export ")]
    deadline = time.monotonic() + 300
    while "Application startup complete" not in shell(A, "cat ~/vllm.log").stdout:
        log = shell(A, "tail -5 ~/vllm.log").stdout
        assert time.monotonic() < deadline and "Traceback" not in log, log
        time.sleep(3)
    subprocess.run(["bash", "-c", serve], cwd=workdir, check=True, timeout=30)
    return workdir / "inventory.toml"


def serving_logs() -> str:
    """For a failure's message: the tail of every serving log the sim keeps (until ``sim down``) and the host's
    serving processes, so a failure that happens once says more than its exit status."""
    out = []
    for log in sorted(T.LOG_DIR.glob("*/*.log")):
        out.append(f"\n--- {log} (last 30 lines)\n" + "\n".join(log.read_text(errors="replace").splitlines()[-30:]))
    ps = subprocess.run(["ps", "-eo", "pid,ppid,pgid,etimes,args"], capture_output=True, text=True).stdout
    out.append("\n--- serving processes\n" + "\n".join(line[:200] for line in ps.splitlines()
                                                     if "serve-venv" in line or "vllm" in line or "ray" in line))
    return "".join(out)


def check2(inventory: Path, evidence: Path) -> tuple[int, dict]:
    p = subprocess.run(CLI + ["check", "lesson2", "--inventory", str(inventory), "--evidence", str(evidence), "--json"],
                       capture_output=True, text=True, timeout=180)
    assert p.returncode in (0, 1) and "Traceback" not in p.stderr, p.stderr
    return p.returncode, json.loads(p.stdout)


@live
@pytest.mark.busy_ok  # lesson 2 on the sim judges no timed figure: it may run while the other half loads the machine
@pytest.mark.skipif(os.geteuid() == 0 and __import__("grader.sim.serve", fromlist=["installed"]).installed() is not None,
                    reason="lesson 2 on the sim needs the serving stack (scripts/install-serve.sh)")
def test_a_learner_serves_lesson2_with_the_notebooks_commands(tmp_path):
    from tests.test_lesson2_sim import SERVE_CHECKS, SIM_CHECKS

    try:
        p = subprocess.run(CLI + ["sim", "up"], capture_output=True, text=True, timeout=120)
        assert p.returncode == 0, p.stderr
        learner_does_lesson1()
        work = tmp_path / "course"
        work.mkdir()
        for node in (A, B):  # lesson 2 starts with nothing of Ray or vLLM anywhere
            assert shell(node, "pgrep -f '[r]aylet|[v]llm serve' || true").stdout.strip() == ""
        inventory = learner_does_lesson2(work)
        code, report = check2(inventory, tmp_path / "ev")
        status = {v["id"]: v["status"] for v in report["verdicts"]}
        assert {i for i, st in status.items() if st == "pass"} == SIM_CHECKS | SERVE_CHECKS and code == 0, \
            json.dumps(report["verdicts"], indent=1)[:4000]
        facts = json.loads((tmp_path / "ev" / "lesson2.json").read_text())["facts"]["pair"]
        assert facts["ray_node_ips"] == {A: "192.168.100.10", B: "192.168.100.11"} and facts["pp"] == 2
        assert facts["kv_tokens_logged"] == facts["kv_tokens_predicted"] == 131_072

        # 27 cell points, 4 of them the fabric measurements (n.a. on the sim): the learner's own work earns 23
        assert grade_cells(tmp_path / "ev", "lesson2") == 23
        # and the lesson's notebook, run beside the learner's inventory.toml, earns its full marks from it (the one
        # full-marks run of lesson 2's notebook: tests/test_notebooks_execute.py leaves it to this test)
        nb = execute(ROOT / "solutions" / "lesson2" / "lesson2.ipynb", work, timeout=600)
        assert_full_marks(nb, "lesson2", work)
        from grader.sim import serve
        with pytest.raises(serve.ServeError, match="already run"):  # the sim's serving would collide: it says so
            serve.start("ray")
        health = shell(A, "curl -s -o /dev/null -w '%{http_code}' http://192.168.100.10:8000/health").stdout
        assert health == "200"  # and it killed nothing of theirs

        shell(B, "ray stop")  # the worker's node only: spark-a's head is a process of another machine
        assert "Active:" in shell(A, "ray status").stdout

        # the answer key's serving earns nothing, even on the learner's sim: from the learner's own lesson-1 start
        # it rebuilds the finished pair and serves (the track of solve lesson2, whose
        # tests/test_track.py::test_lesson_track[lesson2] is start and finish only)
        from tests.test_track import served_facts_hold

        p = subprocess.run(CLI + ["solve", "lesson2"], capture_output=True, text=True, timeout=600)
        assert p.returncode == 0 and "it was at lesson1's start: the steps were done for you" in p.stdout, \
            p.stdout + p.stderr + serving_logs()  # once in a full run (2026-12-04): vLLM got a SIGTERM mid-start
        assert sim.start_state() is None
        sim_inventory = T.INVENTORY
        code, served = check2(sim_inventory, tmp_path / "served")
        assert code == 0, json.dumps(served["verdicts"], indent=1)[:4000]
        served_facts_hold(served, json.loads((tmp_path / "served" / "lesson2.json").read_text())["facts"])
        assert grade_cells(tmp_path / "served", "lesson2") == 0
        g = subprocess.run(CLI + ["grade", str(tmp_path / "served" / "lesson2.json"), "--json"],
                           capture_output=True, text=True, timeout=120)
        graded = json.loads(g.stdout)
        assert g.returncode == 1 and graded["score"]["earned"] == 0 and "was built finished" in " ".join(graded["unfit"])
        p = subprocess.run(CLI + ["finish", "lesson2", "--inventory", str(sim_inventory)], capture_output=True,
                           text=True, timeout=120)
        assert p.returncode == 0 and "stopped the sim's Ray and vLLM" in p.stdout, p.stdout + p.stderr
        assert "nothing of clusterlab's is left running" in p.stdout, p.stdout
    finally:
        sim.down()


def test_lesson2_earns_from_its_start_states_and_never_from_the_sims_own_serving(monkeypatch):
    """The rule for lesson 2's sim evidence (grader.provenance.sim_work_problem), on the healthy served sim's
    recorded evidence with its sim record set as each way of getting there would seal it."""
    from grader.evidence import load_evidence
    from grader.provenance import _read, sim_work_problem

    monkeypatch.delenv("CLUSTERLAB_SIM_OWN_WORK", raising=False)
    ev = load_evidence(ROOT / "tests" / "fixtures" / "golden" / "lesson2-sim-healthy.json")
    ids = {n: i["machine_id_sha256"] for n, i in _read(ev).items()}
    assert len(ids) == 2 and all(ids.values())
    for start in ("lesson1", "lesson2"):  # the learner's own lesson 1, or `start lesson2` after the answer key's
        ev.provenance["sim"] = {"start": start, "built_at": "t", "nodes": ids, "served_by_sim": False}
        assert sim_work_problem(ev) is None, start
    ev.provenance["sim"]["served_by_sim"] = True  # `start lab` or a ready-made serve on the learner's sim
    assert "the sim's own ready-made Ray and vLLM were running" in sim_work_problem(ev)
    ev.provenance["sim"].update(start=None, served_by_sim=False)  # `sim up --serve`, `solve`
    assert "was built finished" in sim_work_problem(ev) and "clusterlab start lesson2" in sim_work_problem(ev)


# --- the lab -------------------------------------------------------------------------------------

NOTEBOOK_LAB = ROOT / "labs" / "lab" / "lab.ipynb"


def _node_steps(block: str) -> list[tuple[str, str]]:
    """A ```sh block of node commands, each line ending ``# on NODE``: (node, command) in order."""
    steps = []
    for line in block.splitlines():
        m = re.search(r"\s+#\s*on (spark-[ab])\s*$", line)
        assert m, f"{NOTEBOOK_LAB}: a node command without `# on NODE`: {line!r}"
        steps.append((m.group(1), line[:m.start()].strip()))
    return steps


def lab_sim_steps() -> dict[str, object]:
    """The lab's sim path as its released notebook prints it: ``start`` (the command on this machine), and for
    each side (``pair``: section 4, ``baseline``: section 5) the node commands and the script run on this machine
    (the inventory copy and its [serve] table; the mode's edit), from the blocks after the sim's paragraph."""
    start = re.findall(r"`(\.venv/bin/clusterlab start lab [^`]*)`", _section("## Before you begin", NOTEBOOK_LAB))
    assert len(start) == 1, start
    out: dict[str, object] = {"start": start[0].split()}
    for side, title, marker in (("pair", "## 4. Serve the model", "**The sim**"),
                                ("baseline", "## 5. The baseline", "**On the sim**")):
        md = _section(title, NOTEBOOK_LAB)
        assert md.count(marker) == 1, (title, marker)
        nodes, host = _blocks(md.split(marker)[1], "sh")
        out[side] = (_node_steps(nodes), host)
    return out


def test_the_lab_prints_every_step_of_its_sim_path():
    """Pure: the lab notebook's blocks hold what the live learner types."""
    steps = lab_sim_steps()
    assert steps["start"][1:4] == ["start", "lab", "--inventory"]
    (pair, pair_host), (single, single_host) = steps["pair"], steps["baseline"]
    assert [n for n, _ in pair] == [A, A] and "--pipeline-parallel-size 2 --distributed-executor-backend ray" in pair[1][1]
    assert "[serve]" in pair_host and 'mode = "ray"' in pair_host and pair_host.startswith("cp ")
    assert [c for _, c in single[:3]] == ['pkill -f "vllm serve"', "ray stop", "ray stop"]
    assert single[-1][0] == A and "--pipeline-parallel-size" not in single[-1][1] and "vllm serve" in single[-1][1]
    assert 'mode = "single"' in single_host


def type_into(node: str, script: str) -> None:
    """A learner's lines typed at ``node``'s prompt: ``clusterlab sim shell NODE bash -s`` reading them (a shell
    whose command line holds none of them, as an interactive one's does not: ``pkill -f`` finds only its target)."""
    p = typed_at_prompt(node, script)
    assert p.returncode == 0, f"on {node}: {script}\nrc {p.returncode}\n{p.stdout}{p.stderr}"


def served(node_steps: list[tuple[str, str]]) -> None:
    """Type ``node_steps`` (consecutive lines of one node in one shell), then wait for the log the last
    ``vllm serve`` writes to say the server is up."""
    i = 0
    while i < len(node_steps):
        node, lines = node_steps[i][0], []
        while i < len(node_steps) and node_steps[i][0] == node:
            lines.append(node_steps[i][1])
            i += 1
        type_into(node, "\n".join(lines))
    node, last = node_steps[-1]
    log = re.search(r">(~/\S+\.log)", last).group(1)
    deadline = time.monotonic() + 300
    while "Application startup complete" not in shell(node, f"cat {log}").stdout:
        tail = shell(node, f"tail -5 {log}").stdout
        assert time.monotonic() < deadline and "Traceback" not in tail, tail
        time.sleep(3)


def lab_verified(lab_json: Path, inventory: Path, tmp_path: Path, side: str) -> None:
    """`verify` of a lab.json while ``side`` (pair or baseline) still serves: its smallest level run again agrees;
    a copy with every time x0.25 and every hash recomputed (output tok/s x4, TPOT x0.25, outside the spreads even
    when the honest re-run lands 1.75x from the recording) differs, on those rows only."""
    from tests.test_verify_sim import edited, rows, verify

    code, out, err = verify(lab_json, inventory)
    assert code == 0, err + json.dumps(out, indent=1)
    got = rows(out)
    thr, tpot = got[f"{side} c1 output throughput"], got[f"{side} c1 median TPOT"]
    assert (thr["status"], thr["unit"], tpot["status"], tpot["unit"]) == ("agree", "tok/s", "agree", "ms"), got
    assert got[f"{side} serving URL"]["measured"] == "http://192.168.100.10:8000"

    def faster(data):
        for r in data["raw"]:
            if r["probe"].startswith("vllm-bench:"):
                res = json.loads(r["stdout"])
                res["duration"] *= 0.25
                for key in ("ttfts", "latencies"):
                    res[key] = [t * 0.25 for t in res[key]]
                res["itls"] = [[t * 0.25 for t in gaps] for gaps in res["itls"]]
                r["stdout"] = json.dumps(res)

    code2, out2, err2 = verify(edited(lab_json, tmp_path / "forged.json", faster), inventory)
    assert code2 == 1, err2
    got2 = rows(out2)
    assert got2[f"{side} c1 output throughput"]["status"] == "DIFFERS"
    assert got2[f"{side} c1 output throughput"]["recorded"] == pytest.approx(4 * thr["recorded"], rel=1e-6)
    assert got2[f"{side} c1 median TPOT"]["status"] == "DIFFERS"
    assert got2["raw outputs match their sha256"]["status"] == "agree"


@live
@pytest.mark.skipif(os.geteuid() == 0 and __import__("grader.sim.serve", fromlist=["installed"]).installed() is not None,
                    reason="the lab on the sim needs the serving stack (scripts/install-serve.sh)")
def test_a_learner_serves_the_lab_with_the_notebooks_commands(tmp_path, monkeypatch):
    """The lab from its start on a finished pair (lessons 1 and 2 by the answer key): ``start lab`` as printed,
    the pair served in the nodes as section 4 prints it and load-tested with the command the notebook's cell
    runs, the switch of section 5 typed in the nodes, then the notebook itself run beside the learner's inventory:
    its baseline cell measures, and every grade cell earns full marks from what the learner served (the one
    full-marks run of the lab's notebook: tests/test_notebooks_execute.py leaves it to this test)."""
    from grader.evidence import load_evidence
    from grader.provenance import sim_work_problem

    monkeypatch.delenv("CLUSTERLAB_SIM_OWN_WORK", raising=False)
    steps = lab_sim_steps()
    work = tmp_path / "course"
    work.mkdir()
    try:
        for argv in (["sim", "up"], ["solve", "lesson1"]):
            p = subprocess.run(CLI + argv, capture_output=True, text=True, timeout=300)
            assert p.returncode == 0, p.stdout + p.stderr
        argv = steps["start"]
        p = subprocess.run(CLI + argv[1:], capture_output=True, text=True, timeout=300, cwd=work)
        assert p.returncode == 0 and "ready: lab can begin" in p.stdout, p.stdout + p.stderr
        assert sim.start_state() == "lab"

        pair, pair_host = steps["pair"]
        served(pair)
        subprocess.run(["bash", "-c", pair_host], cwd=work, check=True, timeout=30)
        cell = "".join(next(c["source"] for c in json.loads(NOTEBOOK_LAB.read_text())["cells"]
                            if c.get("id") == "lab-measure-helpers"))
        load = re.findall(r'"(--?[\w-]+|[\d,]+)"', re.search(r'LOAD = \{"sim": \[(.*?)\]', cell, re.S).group(1))
        p = subprocess.run(CLI + ["loadtest", "--inventory", "inventory.toml", "--label", "pair", "--evidence",
                                  "evidence", *load], capture_output=True, text=True, timeout=600, cwd=work)
        assert p.returncode in (0, 1) and "Traceback" not in p.stderr, p.stdout + p.stderr
        pair_ev = load_evidence(work / "evidence" / "lab.json")
        assert pair_ev.provenance["sim"]["start"] == "lab" and sim_work_problem(pair_ev) is None
        # the lab measured once per test run (issue 29): `verify` of the learner's recording while the pair serves
        lab_verified(work / "evidence" / "lab.json", work / "inventory.toml", tmp_path, "pair")

        single, single_host = steps["baseline"]
        served(single)
        subprocess.run(["bash", "-c", single_host], cwd=work, check=True, timeout=30)
        for node in (A, B):  # the pair's server and Ray are gone: one machine serves
            assert shell(node, "pgrep -f '[r]aylet' || true").stdout.strip() == ""

        nb = execute(ROOT / "solutions" / "lab" / "lab.ipynb", work, timeout=600)
        assert_full_marks(nb, "lab", work)
        ev = load_evidence(work / "evidence" / "lab.json")
        bench = sorted(r.probe for r in ev.raw if r.probe.startswith("vllm-bench:"))
        assert bench == ["vllm-bench:baseline:c1", "vllm-bench:baseline:c4", "vllm-bench:pair:c1",
                         "vllm-bench:pair:c4"] and sim_work_problem(ev) is None
        for r in ev.raw:  # per-request detail came back from every level
            if r.probe.startswith("vllm-bench:"):
                data = json.loads(r.stdout)
                assert data["completed"] == 8 and len(data["ttfts"]) == 8, r.probe
        g = subprocess.run(CLI + ["grade", "evidence/lab.json", "--json"], capture_output=True, text=True,
                           timeout=120, cwd=work)
        graded = json.loads(g.stdout)
        status = {v["id"]: v["status"] for v in graded["verdicts"]}
        assert status["LAB.recorded"] == status["LAB.sane"] == "pass" and graded["unfit"] == [], graded
        assert status["LAB.pair_vs_one"] in ("pass", "warn") and g.returncode == 0, graded
        p = subprocess.run(CLI + ["finish", "lab", "--inventory", "inventory.toml"], capture_output=True, text=True,
                           timeout=120, cwd=work)
        assert p.returncode == 0, p.stdout + p.stderr
    finally:
        sim.down()


def test_the_lab_earns_from_its_start_states_and_never_from_the_sims_own_serving(monkeypatch):
    """The rule for the lab's sim evidence (grader.provenance.sim_work_problem), on the lab's recorded evidence
    with its sim record set as each way of getting there would seal it."""
    from grader.evidence import load_evidence
    from grader.provenance import _read, sim_work_problem

    monkeypatch.delenv("CLUSTERLAB_SIM_OWN_WORK", raising=False)
    ev = load_evidence(ROOT / "tests" / "fixtures" / "golden" / "lab-sim-healthy.json")
    ids = {n: i["machine_id_sha256"] for n, i in _read(ev).items()}
    assert len(ids) == 2 and all(ids.values())
    assert "was built finished" in sim_work_problem(ev)  # as shipped: recorded on the answer key's sim
    for start in ("lesson1", "lesson2", "lab"):  # the learner's own lessons, or `start lab` after the answer key's
        ev.provenance["sim"] = {"start": start, "built_at": "t", "nodes": ids, "served_by_sim": False}
        assert sim_work_problem(ev) is None, start
    ev.provenance["sim"]["served_by_sim"] = True  # `sim up --serve` on the learner's sim
    assert "the sim's own ready-made Ray and vLLM were running" in sim_work_problem(ev)
    ev.provenance["sim"].update(start=None, served_by_sim=False)  # `solve lab`
    assert "was built finished" in sim_work_problem(ev) and "clusterlab start lab" in sim_work_problem(ev)
    monkeypatch.setenv("CLUSTERLAB_SIM_OWN_WORK", "off")  # the instructor's switch
    assert sim_work_problem(ev) is None


# --- a switch of four ----------------------------------------------------------------------------

def switch_steps(names: list[str]) -> tuple[dict[str, str], list[tuple[str, str]]]:
    """Lesson 1's N-node section ("The grader on N nodes") applied as it says, to ``names`` through a switch: each
    node's netplan file (the pair's file with node i's addresses, 192.168.100.(10+i) and 192.168.101.(10+i)), and
    the commands after it: the lesson's own netplan commands on each node, every peer named in /etc/hosts on each,
    and the pair's SSH steps from the head to every node and from every node back."""
    md = _section("**The grader on N nodes.**", ROOT / "labs" / "lesson1" / "lesson1.ipynb")
    assert "192.168.100.(10+i)/24" in md and "192.168.101.(10+i)/24" in md and "name every peer in `/etc/hosts`" in md
    assert "SSH from the head to every node and back" in md
    yaml, after = netplan_steps()
    addr = {n: f"192.168.100.{10 + i}" for i, n in enumerate(names)}
    files = {n: yaml.replace(".10/24", f".{10 + i}/24") for i, n in enumerate(names)}
    steps = [(n, c) for n in names for c in after]
    steps += [(n, f'echo "{addr[p]} {p}" | sudo tee -a /etc/hosts') for n in names for p in names if p != n]
    head = names[0]
    for src, dst in [(head, n) for n in names[1:]] + [(n, head) for n in names[1:]]:
        steps += [(src, c.replace(PEER_ADDR[A], addr[dst])) for c in ssh_steps()]
    return files, steps


@live
def test_a_learner_earns_lesson1_on_a_switch_of_four(tmp_path):
    """``sim up --nodes 4`` builds a switch of four at lesson 1's start; the N-node section's steps, typed into the
    nodes, make every lesson-1 check pass on every pair (iperf3 around the cycle included)."""
    names = list(T.NODE_NAMES[:4])
    files, steps = switch_steps(names)
    try:
        p = subprocess.run(CLI + ["sim", "up", "--nodes", "4"], capture_output=True, text=True, timeout=300)
        assert p.returncode == 0, p.stderr
        inventory = p.stdout.strip()
        assert sim.start_state() == "lesson1"
        start = check(inventory, tmp_path / "start")
        assert statuses(start)["L1.addressing"] == "fail" and statuses(start)["L1.ssh"] == "fail"
        for node in names:
            shell(node, "sudo tee /etc/netplan/40-cx7.yaml > /dev/null", stdin=files[node])
        for node, cmd in steps:
            shell(node, cmd, stdin="", env=SSH_PROMPTS if "ssh" in cmd else "")
        done = check(inventory, tmp_path / "done")
        assert set(statuses(done).values()) == {"pass"}, json.dumps(done["verdicts"], indent=1)[:4000]
        assert done["unfit"] == [] and done["score"]["earned"] == done["score"]["total"]
    finally:
        sim.down()
