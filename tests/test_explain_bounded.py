"""explain on a paste that repeats itself (issue 27, "bounded output"): an output pasted again and again is read
once and said once, with its count; a line repeated inside one output gives one finding that says how often; a
list of facts longer than MAX_SHOWN_ITEMS is cut, saying how long it was. Inputs are real outputs
(tests/fixtures/real/spark) repeated, the way a learner's 5 MB log is one excerpt logged again and again."""

from __future__ import annotations

import json
import re
from pathlib import Path

from grader.explain import explain, render, to_jsonable
from grader.explain.output import MAX_SHOWN_ITEMS

REAL = Path(__file__).resolve().parent / "fixtures" / "real" / "spark"


def _real(name: str) -> str:
    text = "\n".join(line for line in (REAL / name).read_text().splitlines() if not line.startswith("#"))
    return text.strip("\n") + "\n"


def test_an_output_pasted_many_times_is_read_once_and_says_how_often():
    once = _real("01_ibdev2netdev_port1_up_nvidia_connect_two_sparks.txt")
    alone = explain(once)
    sections = explain(once * 3000)
    assert len(sections) == len(alone) == 1
    assert [f.message for f in sections[0].findings[:-1]] == [f.message for f in alone[0].findings]
    assert sections[0].findings[-1].level == "info"
    assert "appears 3,000 times" in sections[0].findings[-1].message
    assert len(json.dumps(to_jsonable(sections))) < 20_000 and len(render(sections)) < 5_000


def test_two_outputs_alternating_are_each_read_once():
    a = _real("01_ibdev2netdev_port1_up_nvidia_connect_two_sparks.txt")
    b = _real("04_ip_addr_show_cx7_nvidia_playbooks.txt")
    sections = explain((a + b) * 500)
    kinds = [s.kind for s in sections]
    assert kinds.count("ibdev2netdev") == 1 and kinds.count("ip-addr") >= 1, kinds
    assert all("appears 500 times" in s.findings[-1].message for s in sections), render(sections)


def test_a_line_repeated_inside_one_output_gives_one_finding_with_its_count():
    log = _real("16_vllm_startup_kv_lines_single_spark_issue39734.txt")
    single = explain(log, kind="vllm-log")[0]
    repeated = explain(log * 40, kind="vllm-log")[0]
    messages = [f.message for f in repeated.findings]
    assert len(messages) == len(set(messages)) <= len(single.findings) + 1
    assert any("said 40 times" in m for m in messages), messages


def test_a_long_list_of_facts_is_cut_and_says_how_long_it_was():
    text = (REAL / "08_nccl_all_gather_16G_mtu1500_issue25.txt").read_text()  # nccl-tests' own header is `#` lines
    row = next(line for line in text.splitlines() if line.strip()[:1].isdigit())  # the one 16 GiB row
    paste = text.rstrip("\n") + "\n" + "\n".join([row] * (2 * MAX_SHOWN_ITEMS)) + "\n"
    facts = to_jsonable(explain(paste, kind="nccl-tests"))[0]["facts"]
    long = [v for v in facts.values() if isinstance(v, list) and v and isinstance(v[-1], str) and "[cut:" in v[-1]]
    assert long and all(len(v) == MAX_SHOWN_ITEMS + 1 for v in long), {k: len(v) for k, v in facts.items()
                                                                       if isinstance(v, list)}
    counts = [int(re.search(r"\[cut: ([\d,]+) items\]", v[-1]).group(1).replace(",", "")) for v in long]
    assert all(n > MAX_SHOWN_ITEMS for n in counts), counts  # how many there were, not how many are shown


def _to_megabytes(excerpt: str, size: int = 1_200_000) -> str:
    """``excerpt`` again and again to ``size`` characters, the last copy cut in the middle of a line (as a log
    file copied in part is)."""
    return (excerpt * (size // len(excerpt) + 1))[:size]


def test_one_excerpt_said_again_to_megabytes_within_one_output_is_read_once():
    """A vLLM log of one excerpt logged again and again (no prompt between copies: one output) is read as the
    excerpt, with the number of copies (grader.parsers.common.repeated_block): the same findings as the excerpt
    alone, plus the count of whole copies and the cut one after them."""
    log = _real("16_vllm_startup_kv_lines_single_spark_issue39734.txt")
    paste = _to_megabytes(log)
    whole, cut = divmod(len(paste), len(log))  # whole copies, and the start of one more
    alone = explain(log)
    sections = explain(paste)
    assert [s.kind for s in sections] == ["vllm-log"] and cut
    assert [f.message for f in sections[0].findings[:-1]] == [f.message for f in alone[0].findings]
    assert (f"These {len(log.splitlines()):,} lines repeat {whole:,} times over in this output and the start of one "
            "more") in sections[0].findings[-1].message


def test_an_excerpt_repeated_is_read_once_with_its_kind_named_too():
    """`explain --kind vllm-log` skips detection, not the folding: the same count of copies as without --kind (and
    the same reading; only the note on `...` lines left out needs the paste's line numbers, which --kind reads
    without)."""
    log = _real("16_vllm_startup_kv_lines_single_spark_issue39734.txt")
    paste = _to_megabytes(log)
    [named] = explain(paste, kind="vllm-log")
    [found] = explain(paste)
    said = [f.message for f in found.findings if not f.message.startswith("Lines were left out")]
    assert [f.message for f in named.findings] == said and "lines repeat" in said[-1]


def test_a_long_output_that_is_not_one_excerpt_repeated_is_read_whole():
    """Copies of an excerpt with one line changed in one of them are not one excerpt repeated: every line is read
    (the KV-cache line's count says so), and nothing says the output was folded."""
    log = _real("16_vllm_startup_kv_lines_single_spark_issue39734.txt")
    paste = _to_megabytes(log)
    lines = paste.splitlines()
    lines[len(lines) // 2] += " (changed)"
    sections = explain("\n".join(lines))
    messages = [f.message for s in sections for f in s.findings]
    assert not any("lines repeat" in m for m in messages), messages
    said = [int(m.group(1).replace(",", "")) for m in map(re.compile(r"said ([\d,]+) times").search, messages) if m]
    assert said and max(said) >= len(paste) // len(log) - 1, messages


def test_the_kernel_s_link_events_are_never_read_as_one_copy():
    """From a break-it review: megabytes of `Link down` / `Link up` (a link flapping, as `dmesg -t` prints it) ending
    on `Link down` are read whole: how often the link went down and how it ended are the reading
    (KindSpec.counts_repeats)."""
    pair = ("mlx5_core 0000:01:00.0 enp1s0f0np0: Link down\n"
            "mlx5_core 0000:01:00.0 enp1s0f0np0: Link up\n")
    copies = 1_050_000 // len(pair) + 1
    [s] = explain("$ sudo dmesg -t | grep mlx5\n" + pair * copies + "mlx5_core 0000:01:00.0 enp1s0f0np0: Link down\n\n")
    warned = " ".join(f.message for f in s.findings if f.level == "warn")
    assert "DOWN at the end" in warned and f"went down {copies + 1} times" in warned
    assert not any("lines repeat" in f.message for f in s.findings)


def test_blank_lines_after_the_copies_change_nothing():
    """From a break-it review: one or two blank lines at the end of a pasted output are not a copy, nor a reason
    not to fold."""
    log = _real("16_vllm_startup_kv_lines_single_spark_issue39734.txt")
    base = log * (1_200_000 // len(log) + 1)
    said = {tail: [f.message for f in explain(base + tail)[0].findings][-1] for tail in ("", "\n", "  \n\n")}
    assert len(set(said.values())) == 1 and "lines repeat" in said[""], said
