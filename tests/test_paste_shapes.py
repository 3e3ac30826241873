"""The shapes a paste takes (issue 14 parts 1 and 3): the same real output, decorated as people paste it, is read
as the clean output is.

Decorations: shell prompts (``user@host:~$``, ``root@host:/#``, ``(venv) $``, ``>>>``), sudo password prompts in
several languages (alone on their line or with the output after them), colour codes (real ESC, the literal
``^[[0;36m`` some terminals copy, the ``[0;36m`` left when the ESC was lost, OSC titles), CRLF and lone CR, a command
line above the output (with ``\\`` continuations, with bash's ``> `` in front of them, or without a prompt), a
prompt glued to the last output line. Also: a log line wrapped over several lines is read as one, and the exit
status of ``clusterlab explain`` is the verdict (1 with a fail finding, 0 without, 2 when nothing was read).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from grader import cli
from grader.explain import explain
from grader.parsers.common import clean_lines, host_caption, is_log_line, join_wrapped, split_chunks

FIXTURES = Path(__file__).resolve().parent / "fixtures"


def body(rel: str) -> str:
    """A fixture without its ``# source`` header lines and without prompt lines: the bare output."""
    lines = (FIXTURES / rel).read_text().splitlines()
    return "\n".join(x for x in lines if not x.startswith("# ") and not re.match(r"^\S+@\S+:\S*\$", x)) + "\n"


# (name, command that printed it, fixture): real or captured outputs, several kinds
BASES = [
    ("ip-addr", "ip addr show enp1s0f1np1", "real/spark/04_ip_addr_show_cx7_nvidia_playbooks.txt"),
    ("ibdev2netdev", "ibdev2netdev", "real/spark/01_ibdev2netdev_port1_up_nvidia_connect_two_sparks.txt"),
    ("nvidia-smi", "nvidia-smi", "real/h200x2/nvidia-smi.txt"),
    ("ray-status", "ray status -v", "captured/sim_serve/ray_status_v.txt"),
    ("nccl-log", "NCCL_DEBUG=INFO torchrun --nproc-per-node 2 allreduce.py",
     "real/h200x2/nccl-allreduce-socket-fallback.txt"),
    ("ethtool", "sudo ethtool enp1s0f1np1", "captured/ethtool_veth.txt"),
]
IDS = [b[0] for b in BASES]


def reading(text: str) -> list[tuple]:
    """What explain concludes: per section, its kind, whether it was read, its facts and findings."""
    return [(s.kind, s.error, s.facts, tuple((f.level, f.message) for f in s.findings)) for s in explain(text)]


def every_third(text: str, before: str, after: str = "") -> str:
    return "\n".join(before + x + after if i % 3 == 0 and x else x for i, x in enumerate(text.split("\n")))


DECORATIONS = {  # what a person's terminal or editor adds around an output that says nothing by itself
    "crlf": lambda t: t.replace("\n", "\r\n"),
    "lone-cr": lambda t: t.replace("\n", "\r"),
    "ansi-real": lambda t: every_third(t, "\x1b[1;32m", "\x1b[0m"),
    "ansi-literal": lambda t: every_third(t, "^[[0;36m", "^[[0m"),
    "ansi-esc-lost": lambda t: every_third(t, "[0;36m", "[0;0m"),
    "osc-title": lambda t: "\x1b]0;nvidia@spark-a: ~\x07" + t,
    "osc-title-literal": lambda t: "^[]0;nvidia@spark-a: ~^G" + t,
    "sudo-en": lambda t: "[sudo] password for nvidia: \n" + t,
    "sudo-de": lambda t: "[sudo] Passwort für nvidia: \n" + t,
    "sudo-fr": lambda t: "[sudo] mot de passe de nvidia : \n" + t,
    "sudo-ja": lambda t: "[sudo] nvidia のパスワード: \n" + t,
    "sudo-same-line": lambda t: "[sudo] Passwort für nvidia: " + t,
    "prompt-after": lambda t: t + "nvidia@spark-a:~$ \n",
    "python-prompt-glued": lambda t: ">>> " + t,
    "venv-prompt-glued": lambda t: "(venv) $ " + t,
    "caption": lambda t: "Case1 performance data:\n" + t,  # a poster's caption above the output
    "caption-bold": lambda t: "**Output on spark-a:**\n\n" + t,
    "fence-lang": lambda t: "```console\n" + t + "\n```\n",
    # GitHub's collapsible block around a long paste
    "details": lambda t: "<details>\n<summary>ip addr output</summary>\n\n```\n" + t + "\n```\n</details>\n",
    # a forum post's Markdown bold on three figures (perftest issue #65: `**5544.28**`)
    "md-bold": lambda t: re.sub(r"(?<![\w.*])(\d+\.\d+)(?![\w.*])", r"**\1**", t, count=3),
}

COMMAND_LINES = {  # the command above the output, as people paste it: each labels it as "$ CMD" does
    "user-prompt": lambda c: f"nvidia@spark-a:~$ {c}",
    "root-prompt": lambda c: f"root@spark-b:/# {c}",
    "venv-prompt": lambda c: f"(venv) $ {c}",
    "venv-user-prompt": lambda c: f"(venv) nvidia@spark-a:~/work$ {c}",
    "continued": lambda c: "$ " + " \\\n    ".join(c.split(" ")),
    "continued-ps2": lambda c: "$ " + " \\\n> ".join(c.split(" ")),
    "bare": lambda c: c,
    "bare-continued": lambda c: " \\\n  ".join(c.split(" ")),
}


@pytest.mark.parametrize("deco", sorted(DECORATIONS))
@pytest.mark.parametrize("name,command,rel", BASES, ids=IDS)
def test_a_decorated_output_reads_as_the_clean_one(name, command, rel, deco):
    clean = body(rel)
    want = reading(clean)
    assert want and all(k == name and err is None for k, err, _, _ in want), want  # the clean output is read
    assert reading(DECORATIONS[deco](clean)) == want


@pytest.mark.parametrize("shape", sorted(COMMAND_LINES))
@pytest.mark.parametrize("name,command,rel", BASES, ids=IDS)
def test_a_command_line_above_labels_the_output(name, command, rel, shape):
    clean = body(rel)
    want = reading(f"$ {command}\n{clean}")
    got = explain(f"{COMMAND_LINES[shape](command)}\n{clean}")
    assert reading(f"{COMMAND_LINES[shape](command)}\n{clean}") == want
    assert got[0].command == command and got[0].kind == name  # the label, joined over its continuations
    assert all(s.kind is not None for s in got)  # never an unknown output


def test_a_continued_command_of_no_known_kind_is_a_label_not_an_output():
    text = ("python3 bench.py --tp 2 \\\n    --model /models/x \\\n    --out result.json\n"
            "rocep1s0f1 port 1 ==> enp1s0f1np1 (Up)\n")
    [s] = explain(text)
    assert s.kind == "ibdev2netdev" and s.command == "python3 bench.py --tp 2 --model /models/x --out result.json"


def test_split_chunks_joins_continuations_and_keeps_line_numbers():
    text = "$ sudo ib_write_bw -d rocep1s0f1 \\\n    -x 3 --report_gbits \\\n    192.168.100.11\nline A\nline B\n"
    [chunk] = split_chunks(text)
    assert chunk.command == "sudo ib_write_bw -d rocep1s0f1 -x 3 --report_gbits 192.168.100.11"
    assert chunk.lines == ("line A", "line B") and chunk.linenos == (4, 5)


def test_a_quoted_argument_over_several_lines_is_part_of_its_command():
    # curl -d '{ ... }' pretty-printed: bash reads on to the closing quote, and so does the paste's reader
    text = ("$ curl http://localhost:8000/v1/chat/completions \\\n  -d '{\n    \"model\": \"m\",\n"
            "    \"max_tokens\": 8\n  }'\n{\"id\": \"chatcmpl-1\"}\n")
    [chunk] = split_chunks(text)
    assert chunk.command == ('curl http://localhost:8000/v1/chat/completions -d \'{ "model": "m", '
                             '"max_tokens": 8 }\'')
    assert chunk.lines == ('{"id": "chatcmpl-1"}',) and chunk.linenos == (6,)
    # an apostrophe inside a word, or a quote that never closes, joins nothing
    assert split_chunks("$ echo don't\nline A\n")[0].lines == ("line A",)
    [open_quote] = split_chunks("$ grep -e 'a\nline A\nline B\n")
    assert open_quote.command == "grep -e 'a" and open_quote.lines == ("line A", "line B")


def test_a_prompt_glued_to_the_last_line_is_cut_off_it():
    text = "nvidia@spark-a:~$ ibdev2netdev\nrocep1s0f1 port 1 ==> enp1s0f1np1 (Up)nvidia@spark-a:~$ ip -br addr\n"
    chunks = split_chunks(text)
    assert [c.command for c in chunks] == ["ibdev2netdev", "ip -br addr"]
    assert chunks[0].lines == ("rocep1s0f1 port 1 ==> enp1s0f1np1 (Up)",)


def test_cleaning_keeps_what_looks_like_a_code_but_is_output():
    # iperf3's "[  5]", perftest's "[Gb/sec]", a duration "[5m]", and IPv6 brackets are output, not colour codes
    lines = ["[  5]   0.00-1.00   sec", "BW average[Gb/sec]", "timeout [5m]", "[::1]:8000", "a[1m]"]
    assert clean_lines("\n".join(lines)) == lines
    assert clean_lines("^[[1;31mERROR^[[0m x\n[1;36m(EngineCore_DP0 pid=1)[0;0m INFO y\n") == [
        "ERROR x", "(EngineCore_DP0 pid=1) INFO y"]
    assert clean_lines("[sudo] mprg のパスワード: \nFEC parameters for x:\n") == ["", "FEC parameters for x:"]


# --------------------------------------------------------------------------- wrapped log lines

WARN = ("spark-a:315:401 [0] misc/ibvwrap.cc:218 NCCL WARN Call to ibv_modify_qp failed with 101 Network is "
        "unreachable, local GID ::ffff:192.168.100.10, remote GID ::ffff:192.168.100.11")


def nccl_log_with(line: str) -> str:
    return body("real/h200x2/nccl-allreduce-p2p.txt") + line + "\n"


def wrapped(line: str, width: int) -> str:
    return "\n".join(line[k:k + width] for k in range(0, len(line), width))


@pytest.mark.parametrize("width", [80, 100])
def test_a_wrapped_error_is_read_as_one_line(width):
    want = reading(nccl_log_with(WARN))
    assert "Network is unreachable" in str(want)  # the whole message is read (and named) when unwrapped
    assert reading(nccl_log_with(wrapped(WARN, width))) == want


def test_a_log_line_wrapped_at_words_is_rejoined_with_a_space():
    words, out, cur = WARN.split(" "), [], ""
    for w in words:  # an editor's wrap at 76 columns, at a space
        if len(cur) + len(w) + 1 > 76:
            out.append(cur)
            cur = w
        else:
            cur = f"{cur} {w}" if cur else w
    out.append(cur)
    assert len(out) > 1
    assert join_wrapped(out)[0] == [WARN]
    assert reading(nccl_log_with("\n".join(out))) == reading(nccl_log_with(WARN))


def test_wrap_joining_leaves_tables_tracebacks_and_short_lines_alone():
    log = ["INFO 11-29 16:15:21 [core.py:91] EngineCore failed to start because the engine could not be built here",
           "Traceback (most recent call last):",
           '  File "/usr/lib/python3/x.py", line 1, in <module>',
           "ValueError: Free memory on device (1.0/121.69 GiB) on startup is less than desired GPU memory",
           "spark-a:1:1 [0] NCCL INFO short line",
           "not a continuation: the line above is short"]
    assert join_wrapped(log)[0] == log
    table = ["1: lo: <LOOPBACK,UP,LOWER_UP> mtu 65536 qdisc noqueue state UNKNOWN group default qlen 1000",
             "    link/loopback 00:00:00:00:00:00 brd 00:00:00:00:00:00"]
    assert join_wrapped(table)[0] == table
    assert is_log_line("(RayWorkerWrapper pid=1, ip=10.0.0.2) anything") and is_log_line("W1129 13:41:56.08 1 x")
    assert not is_log_line("ailed with 101 Network is unreachable")


def test_wrapped_lines_keep_the_paste_s_line_numbers():
    parts = wrapped(WARN, 80).split("\n")
    assert len(parts) == 3
    lines, numbers = join_wrapped(parts + ["spark-a:1:1 [0] NCCL INFO next"], [10, 11, 12, 13])
    assert lines == [WARN, "spark-a:1:1 [0] NCCL INFO next"] and numbers == [10, 13]


# --------------------------------------------------------------------------- truncation

def test_lines_left_out_are_named():
    text = "$ ibdev2netdev\nroceP2p1s0f1 port 1 ==> enP2p1s0f1np1 (Up)\n...\nrocep1s0f1 port 1 ==> enp1s0f1np1 (Up)\n"
    [s] = explain(text)
    assert s.kind == "ibdev2netdev" and s.error is None
    left = [f for f in s.findings if "left out" in f.message]
    assert left and left[0].level == "info" and "line 3" in left[0].message and "ibdev2netdev" in left[0].message


def test_an_unreadable_output_says_what_to_paste_next():
    [s] = explain("$ sudo ethtool enp1s0f1np1\nSettings for enp1s0f1np1:\n\tSpeed: fast\n")
    assert s.kind == "ethtool" and s.error and "paste all of it" in s.error and "sudo ethtool enp1s0f1np1" in s.error


# --------------------------------------------------------------------------- exit status

def run_explain(tmp_path, capsys, text: str, *extra: str) -> tuple[int, str, str]:
    path = tmp_path / "paste.txt"
    path.write_text(text)
    rc = cli.main(["explain", str(path), *extra])
    out, err = capsys.readouterr()
    return rc, out, err


def test_exit_status_is_1_for_a_paste_with_a_failure(tmp_path, capsys):
    text = "nvidia@spark-a:~$ ibdev2netdev\n" + body(BASES[1][2]).replace("(Up)", "(Down)")
    assert any(f.level == "fail" for s in explain(text) for f in s.findings)
    rc, out, _ = run_explain(tmp_path, capsys, text)
    assert rc == 1 and "FAIL" in out


def test_exit_status_is_1_for_a_failed_nccl_init_even_wrapped(tmp_path, capsys):
    text = nccl_log_with(wrapped(WARN, 80))
    assert run_explain(tmp_path, capsys, text)[0] == 1
    assert run_explain(tmp_path, capsys, text, "--json")[0] == 1


def test_exit_status_is_1_when_one_output_fails_and_another_is_unreadable(tmp_path, capsys):
    text = ("$ ibdev2netdev\nrocep1s0f1 port 1 ==> enp1s0f1np1 (Down)\nroceP2p1s0f1 port 1 ==> enP2p1s0f1np1 (Down)\n"
            "$ sudo ethtool enp1s0f1np1\nSettings for enp1s0f1np1:\n\tSpeed: fast\n")
    assert run_explain(tmp_path, capsys, text)[0] == 1


def test_exit_status_is_0_for_a_healthy_paste(tmp_path, capsys):
    text = "nvidia@spark-a:~$ ibdev2netdev\n" + body(BASES[1][2])
    assert not any(f.level == "fail" for s in explain(text) for f in s.findings)
    assert run_explain(tmp_path, capsys, "[sudo] Passwort für nvidia: \n" + text)[0] == 0


def test_exit_status_is_2_only_when_nothing_was_read(tmp_path, capsys):
    rc, _, err = run_explain(tmp_path, capsys, "hello\nworld\n")
    assert rc == 2 and "could not read" in err
    assert run_explain(tmp_path, capsys, "$ sudo ethtool enp1s0f1np1\nSettings for x:\n\tSpeed: fast\n")[0] == 2


PERFTEST_TWO_RUNS = """Case1 perfermance data:
#bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]
1024       1000             0.00               **5544.28**\t\t   5.677340

Case2 perfermance data:
#bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]
 1024       1000             0.00               **{second}** \t\t   {rate}
"""
"""linux-rdma/perftest#65 as posted (ib_send_bw at 1 KiB, 1000 iterations, two runs, Markdown bold), the second
figure a parameter."""


def test_two_perftest_tables_without_banners_are_read_and_compared():
    """Captions and bold markers around two bare result tables: one perftest section, two runs; 5544.28 against
    920.13 MB/sec is 6.03 times apart (over [spark-pair.ib_write_bw_gbps] repeat_ratio_max 1.5), each run 1000
    iterations at 5.68 and 0.94 Mpps: 0.18 and 1.06 ms."""
    [s] = explain(PERFTEST_TWO_RUNS.format(second="920.13", rate="0.942218"))
    assert s.kind == "perftest" and s.error is None and len(s.facts["runs"]) == 2
    [w] = [f.message for f in s.findings if f.level == "warn"]
    assert "5544.28 MB/sec" in w and "920.13 MB/sec" in w and "6 times apart" in w, w
    assert "1000 iterations in about 0.2 ms" in w and "1000 iterations in about 1.1 ms" in w and "-D 10" in w
    # 5000.00 against 5544.28 is 1.11 apart: they agree, said as info
    [s] = explain(PERFTEST_TWO_RUNS.format(second="5000.00", rate="5.12"))
    assert not [f for f in s.findings if f.level in ("warn", "fail")]
    assert any("2 runs at 1024 B per message agree" in f.message for f in s.findings)


def test_markdown_bold_is_taken_off_figures_only():
    assert clean_lines("a **5544.28** b **192.168.100.10/24** c") == ["a 5544.28 b 192.168.100.10/24 c"]
    # bold around a figure and its unit stays (a reader then says it cannot read the row, rather than guess)
    assert clean_lines("a **112.5 Gb/s** c") == ["a **112.5 Gb/s** c"]
    assert clean_lines("**65536  5000  23.40  23.38  0.044**") == ["65536  5000  23.40  23.38  0.044"]
    banner = "*" * 36
    assert clean_lines(f"{banner}\n**note** this **v2**\n") == [banner, "**note** this **v2**"]


@pytest.mark.parametrize("paste, prog, fix", [
    ("nvidia@spark-a:~$ ./discover-sparks\n./discover-sparks: line 12: avahi-browse: command not found\n",
     "avahi-browse", "`sudo apt install avahi-utils`"),
    ("/bin/bash: line 1: avahi-browse: command not found\n", "avahi-browse", "`sudo apt install avahi-utils`"),
    ("$ frobnicate -x\nbash: frobnicate: command not found\n", "frobnicate", "apt-file search"),
    # a program a kind reads: its reader finds no output, the shell's line says why (not "could not read")
    ("user@spark:~$ ifconfig\nbash: ifconfig: command not found\n", "ifconfig", "`sudo apt install net-tools`"),
    ("$ ethtool enp1s0f0np0\n-bash: ethtool: command not found\n", "ethtool", "`sudo apt install ethtool`"),
    ("user@spark:~$ ibdev2netdev\nibdev2netdev: command not found\n", "ibdev2netdev", "apt-file search"),
])
def test_a_program_that_is_not_installed_is_named_with_its_package(paste, prog, fix):
    """bash's own forms (a script's `NAME: line N: PROG: command not found`, `bash -c`'s `/bin/bash: line 1: ...`):
    a fail naming the program and, for the course's programs, Ubuntu's package; never "which command printed this"."""
    [s] = explain(paste)
    assert s.error is None
    [f] = s.findings
    assert f.level == "fail" and f"no program `{prog}`" in f.message and fix in f.message, f.message


@pytest.mark.parametrize("name,command,rel", BASES, ids=IDS)
def test_a_question_below_the_output_is_set_aside(name, command, rel):
    """A poster's sentence after the output (strict readers once stopped at it with "could not read"): the output
    is read as without it, with the same ok/warn/fail findings."""
    clean = body(rel)
    want = reading(clean)
    got = reading(clean + "\nAny ideas what is wrong?\n")
    assert [(k, e) for k, e, _, _ in got] == [(k, e) for k, e, _, _ in want]
    judged = lambda r: [[f for f in findings if f[0] != "info"] for _, _, _, findings in r]  # noqa: E731
    assert judged(got) == judged(want)


def test_a_line_naming_a_host_labels_the_output_below_it():
    """`spark-a:` / `spark-b:` above the same command's output from each Spark (no prompts): two sections with
    their hosts, compared as prompts would have them (the pair's cross-check: the same QSFP port)."""
    one = body("real/spark/01_ibdev2netdev_port1_up_nvidia_connect_two_sparks.txt")
    sections = explain(f"spark-a:\n{one}\n\n**On spark-b (worker):**\n{one}\n", host="spark", nodes=2)
    assert [(s.kind, s.host, s.error) for s in sections] == [("ibdev2netdev", "spark-a", None),
                                                             ("ibdev2netdev", "spark-b", None)]
    assert any("spark-a and spark-b use the same QSFP port" in f.message for f in sections[1].findings)


@pytest.mark.parametrize("line, host", [
    ("spark-a:", "spark-a"), ("**On spark-b (worker):**", "spark-b"), ("Output of gx10-01:", "gx10-01"),
    ("node1 (head):", "node1"), ("From dgx1:", "dgx1"),
    ("Head node:", "Head"), ("worker-1:", "worker-1"), ("dgx-spark-1:", "dgx-spark-1"),
    # not hosts: output lines that end in a colon (netplan keys, ray status, ethtool, topo -m), indented lines, and
    # a poster's labels of runs, models and settings (the two outputs of one machine must not be compared as two)
    ("network:", None), ("enp1s0f1np1:", None), ("enP2p1s0f1np1:", None), ("Active:", None), ("Pending:", None),
    ("Settings for enp1s0f1np1:", None), ("GPU0:", None), ("eth0:", None), ("  spark-a:", None), ("Node 2:", None),
    ("Run1:", None), ("Before-fix:", None), ("Qwen3-8B:", None), ("TP-2:", None), ("v0.11.0:", None),
    ("ConnectX-7:", None), ("Case1:", None), ("wg0:", None), ("Nodes:", None), ("Hostname:", None),
])
def test_host_captions(line, host):
    assert host_caption(line) == host


IBDEV_A = ("roceP2p1s0f0 port 1 ==> enP2p1s0f0np0 (Down)\nroceP2p1s0f1 port 1 ==> enP2p1s0f1np1 (Up)\n"
           "rocep1s0f0 port 1 ==> enp1s0f0np0 (Down)\nrocep1s0f1 port 1 ==> enp1s0f1np1 (Up)\n")
IBDEV_B = IBDEV_A.replace("(Down)", "(X)").replace("(Up)", "(Down)").replace("(X)", "(Up)")  # port 0 cabled


@pytest.mark.parametrize("paste", [
    f"**spark-a:**\n```\n$ ibdev2netdev\n{IBDEV_A}```\n\n**spark-b:**\n```\n$ ibdev2netdev\n{IBDEV_B}```\n",  # GitHub
    f"spark-a:\n{IBDEV_A}spark-b:\n{IBDEV_B}",  # `for h in ...; do echo "$h:"; ssh $h ibdev2netdev; done`
    f"spark-a:\nibdev2netdev\n{IBDEV_A}\nspark-b:\nibdev2netdev\n{IBDEV_B}",  # a bare command under the caption
])
def test_host_captions_above_prompts_fences_and_without_blank_lines(paste):
    """The caption's host reaches the output below it whatever comes between (a fence, a prompt, a bare command),
    and two hosts' ports are compared: port 1 on spark-a against port 0 on spark-b fails."""
    sections = explain(paste, host="spark", nodes=2)
    assert [(s.kind, s.host) for s in sections] == [("ibdev2netdev", "spark-a"), ("ibdev2netdev", "spark-b")]
    assert any(f.level == "fail" and "cable the same physical port" in f.message for f in sections[1].findings)


@pytest.mark.parametrize("paste", [
    f"Run1:\n{IBDEV_A}\nRun2:\n{IBDEV_B}",
    f"$ ibdev2netdev\n{IBDEV_A}And ip addr output:\nBefore-fix:\n"
    + "4: enp1s0f1np1: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 9000 qdisc mq state UP group default qlen 1000\n",
])
def test_a_label_of_runs_is_no_host_and_ends_the_output_above(paste):
    """`Run1:`/`Run2:` name runs, not machines: no cross-host comparison (no "port [1] on Run1 but [0] on Run2"),
    and a caption between two outputs ends the first one instead of breaking its reading."""
    sections = explain(paste, host="spark", nodes=2)
    assert all(s.error is None and s.host is None for s in sections), [(s.kind, s.error) for s in sections]
    assert not any("Run1" in f.message for s in sections for f in s.findings)


def test_labels_inside_an_output_stay_in_it():
    """`ray status`'s own `Pending:`/`Usage:` lines end in ':' and are followed by lines of that output: one section."""
    from tests.conftest import field_text
    text = field_text("14_ray-status")
    assert [s.kind for s in explain(text)] == ["ray-status"]


@pytest.mark.parametrize("tail", ["Any ideas?", "Thanks!", "Why is it only 23.5 Gb/s?", 'Why does it say "Down"?',
                                  "Is NCCL_IB_HCA=rocep1s0f1 right?", "EDIT: solved, it was the cable."])
def test_sentences_below_a_strict_output_are_set_aside(tail):
    [s] = explain(f"$ ibdev2netdev\n{IBDEV_A}{tail}\n")
    assert s.error is None and any(f"Not output, so not read: {tail!r}" == f.message for f in s.findings)


@pytest.mark.parametrize("paste", [
    f"<details><summary>ibdev2netdev on spark-a</summary>\n\n<pre>{IBDEV_A}</pre>\n</details>\n",
    f"<summary><code>ibdev2netdev</code></summary>\n<pre>\n{IBDEV_A}</pre>\n",
])
def test_forum_markup_around_an_output(paste):
    """One-line <details><summary>, and <pre> glued to the first and last lines: the output as printed."""
    [s] = explain(paste)
    assert s.kind == "ibdev2netdev" and s.error is None
    assert any(f.level == "ok" and "port 1" in f.message for f in s.findings)


def test_a_bold_address_is_the_address():
    """NVIDIA's playbook style `inet **192.168.100.10/24** brd` once read as "no IPv4 address" (a FAIL)."""
    ip = ("4: enp1s0f1np1: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 9000 qdisc mq state UP group default qlen 1000\n"
          "    link/ether 02:00:00:00:00:01 brd ff:ff:ff:ff:ff:ff\n"
          "    inet **192.168.100.10/24** brd 192.168.100.255 scope global enp1s0f1np1\n")
    [s] = explain("$ ip addr show enp1s0f1np1\n" + ip, host="spark")
    assert any(f.level == "ok" and "192.168.100.10/24" in f.message for f in s.findings)
    assert not any(f.level == "fail" for f in s.findings)


def test_a_bold_figure_with_its_unit_is_not_read_silently():
    """`**23.38 Gb/sec**` in a perftest row: the row cannot be read as printed, and explain says so (exit 2), where
    it once dropped the row and passed."""
    [s] = explain("#bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]\n"
                  " 65536      5000             23.40              **23.38 Gb/sec**             0.044\n")
    assert s.kind == "perftest" and s.error and "not all numbers" in s.error


def test_two_long_perftest_runs_that_disagree_name_a_change_not_a_short_run():
    """Two runs of ~50 s each (3,812,345 iterations at 76 kmsg/s): apart 2.3 times, each long enough to be steady
    (over [spark-pair.ib_write_bw_gbps] repeat_short_run_s 1 s), so the finding names a change between them."""
    t = ("#bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]\n"
         " 65536      3812345          39.90              39.87                0.076049\n\n"
         "#bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]\n"
         " 65536      3812345          92.60              92.53                0.176490\n")
    [s] = explain(t)
    [w] = [f.message for f in s.findings if f.level == "warn" and "disagree" in f.message]
    assert "2.3 times apart" in w and "something changed between them" in w and "A run this short" not in w


@pytest.mark.parametrize("line, prog", [("zsh: command not found: mlxlink", "mlxlink"),
                                        ("sudo: ./mlnx_tune: command not found", "mlnx_tune")])
def test_other_shells_not_found_forms(line, prog):
    [s] = explain(line + "\n")
    assert any(f.level == "fail" and f"no program `{prog}`" in f.message for f in s.findings)



def test_three_hosts_ports_are_listed_not_failed():
    """Three Sparks (a switch or a ring): each may use its own port, so a third host on port 0 is listed, not failed
    against the first (the two-Spark rule of one cable)."""
    paste = f"spark-a:\n{IBDEV_A}\nspark-b:\n{IBDEV_A}\nspark-c:\n{IBDEV_B}"
    sections = explain(paste, host="spark", nodes=3)
    assert [s.host for s in sections] == ["spark-a", "spark-b", "spark-c"]
    assert not any(f.level == "fail" for s in sections for f in s.findings)
    assert any("Ports Up per host: spark-a [1], spark-b [1], spark-c [0]" in f.message for f in sections[-1].findings)


def test_an_editors_line_numbers_are_taken_off():
    """Line numbers an editor or `cat -n` put in front of pasted lines (gpu-operator#2511's dmesg: `1700[   22.3]`,
    glued, then `1701 [   22.3]`; a wrapped line's rest between them carries none) come off a run of at least four
    numbered n, n+1, ...; numbers that do not go up by one (nccl-tests' sizes) or a run of three stay."""
    dmesg = ["", "1700[   22.316553] mlx5_core 0000:13:00.0: mlx5_pcie_event:297:(pid 11): PCIe slot power capability "
             "was not advertised.", "1701 [   22.325345] mlx5_core 0000:63:00.0: 504.112 Gb/s available PCIe bandwidth "
             "(32.0 GT/s PCIe x16 link)", "1702 [   22.879706] input: AVOCENT as /devices/pci0000:70/usb4/4-1.",
             "     2/4-1.2.1:1.0/input/input2", "1703 [   23.054584] mlx5_core 0000:75:00.0: Port module event: plugged"]
    assert clean_lines("\n".join(dmesg)) == ["", dmesg[1][4:], dmesg[2][5:], dmesg[3][5:], dmesg[4], dmesg[5][5:]]
    cat_n = "".join(f"     {i}\tmlx5_{i} port 1 ==> enp{i}s0 (Up)\n" for i in range(1, 5))
    assert clean_lines(cat_n)[0] == "mlx5_1 port 1 ==> enp1s0 (Up)"
    rows = "           8             2     float\n          16             4     float\n" \
           "          32             8     float\n          64            16     float\n"
    assert clean_lines(rows) == rows.rstrip("\n").split("\n")
    matrix = "   D\\D     0      1      2      3\n" + "".join(f"     {i} 1535.64  11.42  11.41  11.44\n" for i in range(4))
    assert clean_lines(matrix) == matrix.rstrip("\n").split("\n")  # p2pBandwidthLatencyTest's rows keep their index
    three = cat_n.rsplit("     4\t", 1)[0]
    assert clean_lines(three) == three.rstrip("\n").split("\n")


def test_a_trace_prompt_glued_to_the_next_prompt_is_still_a_prompt():
    """`+ ibdev2netdev` (bash -x's trace) with the next prompt glued to it: split_chunks keeps the head as an output
    line, and the parser's content_lines must still read it as a prompt, not as ibdev2netdev output (a review's
    reproducer, /tmp/breakit5/09: a speed-up that skipped that question in session 29 broke it, and was taken back)."""
    text = ("spark@spark-a:~$ ibdev2netdev\nrocep1s0f1 port 1 ==> enp1s0f1np1 (Up)\n"
            "+ ibdev2netdevspark@spark-a:~$ ip -br addr\nenp1s0f1np1 UP 10.0.0.1/24\n")
    first, second = explain(text, host="spark")
    assert first.kind == "ibdev2netdev" and first.error is None and second.kind == "ip-addr"
