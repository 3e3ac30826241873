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
from grader.parsers.common import clean_lines, is_log_line, join_wrapped, split_chunks

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
    assert clean_lines("a **5544.28** b **112.5 Gb/s** c") == ["a 5544.28 b 112.5 Gb/s c"]
    banner = "*" * 36
    assert clean_lines(f"{banner}\n**note** this **v2**\n") == [banner, "**note** this **v2**"]

