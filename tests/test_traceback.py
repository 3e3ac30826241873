"""A Python traceback pasted on its own (grader.parsers.traceback, grader.judges.crash, explain's
``python-traceback``): each sample in the shape of the real paste its comment names, values worked out by hand."""

from __future__ import annotations

import pytest

from grader.explain import explain
from grader.parsers.common import ParseError
from grader.parsers.traceback import parse_traceback
from tests.conftest import levels, messages

# vllm-project/vllm#787 (corpus t006): `free -h`, the poster's words, then the traceback cut at its top ('...') and
# inside its last frame, before the exception line
FREE_THEN_CUT = """$ free -h
               total        used        free      shared  buff/cache   available
Mem:            62Gi       5,8Gi        13Gi        45Mi        43Gi        56Gi
Swap:           31Gi       787Mi        31Gi

Full exception:
...
  File "/home/user/ts/venv/lib/python3.10/site-packages/vllm-0.1.3-py3.10-linux-x86_64.egg/vllm/entrypoints/llm.py", line 130, in generate
  File "/home/user/ts/venv/lib/python3.10/site-packages/vllm-0.1.3-py3.10-linux-x86_64.egg/vllm/entrypoints/llm.py", line 150, in _run_engine
  File "/home/user/ts/venv/lib/python3.10/site-packages/vllm-0.1.3-py3.10-linux-x86_64.egg/vllm/engine/llm_engine.py"
"""

# a chained traceback as Python prints it (the shape of vllm-project/vllm issues' engine start failures): the first
# exception is the cause, the second what ended the program; the second matches no reported fault
CHAINED = """Traceback (most recent call last):
  File "/usr/lib/python3/dist-packages/vllm/v1/engine/core.py", line 699, in run_engine_core
    engine_core = EngineCoreProc(*args, **kwargs)
KeyError: 'model.layers.0.mlp.experts.w2_weight'

During handling of the above exception, another exception occurred:

Traceback (most recent call last):
  File "/usr/local/bin/vllm", line 8, in <module>
    sys.exit(main())
  File "/usr/lib/python3/dist-packages/vllm/entrypoints/cli/main.py", line 54, in main
    args.dispatch_function(args)
RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {}
"""

# the KV cache too small for the model's length, as vLLM V1 raises it (vllm/v1/core/kv_cache_utils.py's message; corpus
# n-class shape): a reported fault
KV_TOO_SMALL = """Traceback (most recent call last):
  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/core/kv_cache_utils.py", line 684, in check_enough_kv_cache_memory
    raise ValueError(
ValueError: To serve at least one request with the models's max seq len (131072), (16.00 GiB KV cache is needed, which is larger than the available KV cache memory (3.94 GiB). Based on the available memory, the estimated maximum model length is 32224. Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine.
"""


def test_a_traceback_is_read_to_its_exception_and_innermost_frame():
    tb = parse_traceback(CHAINED)
    assert tb.chained == 1 and len(tb.frames) == 2 and tb.type == "RuntimeError"
    assert tb.frames[-1].short == "vllm/entrypoints/cli/main.py" and tb.frames[-1].line == 54
    assert tb.exception_lines[0].startswith("KeyError: 'model.layers.0")
    (s,) = explain(CHAINED)  # vLLM's own: read as its log's error is (the first exception is the cause), chain said
    assert s.kind == "python-traceback" and levels(s) == ["info", "fail"]
    assert "`KeyError: 'model.layers.0.mlp.experts.w2_weight'`" in messages(s, "fail")
    assert "It ended 1 traceback(s) before it" in messages(s, "info")
    (s,) = explain(CHAINED.replace("vllm", "myapp"))  # not vLLM's, no reported fault: the exception, as it is
    assert levels(s) == ["fail"] and "stopped on a Python exception: `RuntimeError: Engine core initialization" \
        in messages(s, "fail") and "myapp/entrypoints/cli/main.py, line 54, in main" in messages(s, "fail")
    (s,) = explain(CHAINED.replace("RuntimeError: Engine core initialization failed. See root cause above. Failed "
                                   "core proc(s): {}", "KeyboardInterrupt"))
    assert levels(s) == ["info"] and "stopped by Ctrl-C (KeyboardInterrupt) (raised in vllm/entrypoints/cli/main.py, " \
        "line 54, in main)" in messages(s)


def test_a_traceback_cut_before_its_exception_asks_for_it_and_leaves_the_output_above_alone():
    free, tb = explain(FREE_THEN_CUT)
    assert free.kind == "free" and "warn" not in levels(free) and "fail" not in levels(free)
    assert tb.kind == "python-traceback" and "warn" in levels(tb) and "fail" not in levels(tb)
    # the innermost frame with a line number: llm.py line 150 (the last File line lost its number)
    assert "vllm/entrypoints/llm.py, line 150, in _run_engine" in messages(tb, "warn")
    assert "cut before its exception line" in messages(tb, "warn")


def test_an_exception_vllm_raises_is_read_as_in_a_vllm_log():
    (s,) = explain(KV_TOO_SMALL)  # vLLM's own frames: its log reader's diagnosis, with its numbers
    assert s.kind == "python-traceback" and "fail" in levels(s)
    said = messages(s, "fail")
    assert "(131072 tokens) needs 16.0 GiB of KV cache but only 3.94 GiB is left" in said and "--max-model-len 32224" in said


def test_a_traceback_inside_a_vllm_log_stays_in_the_log():
    log = ("INFO 12-01 10:00:00 [api_server.py:1] vLLM API server version 0.11.0\n"
           "ERROR 12-01 10:00:05 [core.py:700] EngineCore failed to start.\n" + CHAINED)
    assert [s.kind for s in explain(log)] == ["vllm-log"]


def test_text_without_a_traceback_is_a_clear_error():
    with pytest.raises(ParseError, match="no Python traceback"):  # an exception line alone is vLLM's or a person's
        parse_traceback("RuntimeError: boom\n")


def test_an_exception_line_alone_is_said_but_a_tools_error_or_a_warning_is_not_taken_for_one():
    # corpus b009 starts with the end of a traceback whose frames were cut: the exception is said (warn)
    (s,) = explain("FileNotFoundError: [Errno 2] No such file or directory\n")
    assert levels(s) == ["warn"] and "An exception line without its traceback: `FileNotFoundError" in messages(s)
    # nmcli's and ip's `Error: ...`, and a Python warning, are no exception that stopped anything
    for line in ("Error: unknown connection 'cx7'.", "FutureWarning: `resume_download` is deprecated"):
        (s,) = explain(line + "\n")
        assert "exception line" not in messages(s) and "warn" not in levels(s), line


def test_a_clean_exit_and_a_fatal_error_dump_are_read_as_what_they_are():
    # sys.exit() raises SystemExit: status 0 is a normal end; faulthandler lists the most recent call first
    (s,) = explain('Traceback (most recent call last):\n  File "/home/u/run.py", line 3, in <module>\n'
                   '    sys.exit(0)\nSystemExit: 0\n')
    assert levels(s) == ["info"] and "ended itself normally" in messages(s)
    for status, level in (("SystemExit", "info"), ("SystemExit: 1", "fail")):
        (s,) = explain('Traceback (most recent call last):\n  File "/home/u/run.py", line 3, in <module>\n'
                       f'    sys.exit()\n{status}\n')
        assert level in levels(s), status
    tb = parse_traceback('Fatal Python error: Segmentation fault\n\nCurrent thread 0x00007f (most recent call first):\n'
                         '  File "/usr/lib/python3/dist-packages/torch/cuda/__init__.py", line 300 in _lazy_init\n'
                         '  File "/usr/local/bin/vllm", line 10 in <module>\n')
    assert tb.exception == "Fatal Python error: Segmentation fault" and not tb.cut
    assert tb.innermost.short == "torch/cuda/__init__.py" and tb.innermost.line == 300
