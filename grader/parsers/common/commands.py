"""The program a command line really runs, and its arguments (re-exported by ``grader.parsers.common``)."""

from __future__ import annotations

import functools
import os
import re
import shlex

_WRAPPERS = {"sudo", "env", "time", "nice", "command", "exec", "stdbuf", "nohup", "doas"}
_SSH_ARG_OPTS = set("bcDEeFIiJLlmOopQRSWw")


def command_argv(command: str | None) -> list[str]:
    """The argv of the program a command line really runs, first pipeline stage only.

    ``"sudo ethtool enp1s0f1np1 | grep Speed"`` -> ``["ethtool", "enp1s0f1np1"]``.
    Unwraps sudo (and its options), env, ``VAR=x`` assignments, time, ``ip netns exec NS``
    and ``ssh [opts] host``; the program is reduced to its basename. Returns [] for None
    or an empty command. Never raises.
    """
    return list(_argv(command)) if command else []


@functools.lru_cache(maxsize=256)  # a paste runs a few commands, often again and again
def _argv(command: str) -> tuple[str, ...]:
    try:
        lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
        lexer.whitespace_split = True
        tokens = list(lexer)
    except ValueError:  # unbalanced quotes in a pasted prompt
        tokens = command.split()
    argv: list[str] = []
    for tok in tokens:
        if tok and all(ch in "|;&<>()" for ch in tok):
            if tok[0] in "<>" and argv and argv[-1].isdigit():
                argv.pop()  # the "2" of "2>&1"
            break
        argv.append(tok)
    while argv:
        prog = os.path.basename(argv[0])
        if prog in _WRAPPERS:
            argv = argv[1:]
            while argv and (argv[0].startswith("-") or re.match(r"^\w+=", argv[0])):
                takes_value = prog == "sudo" and argv[0] in ("-u", "-g", "-h", "-p", "-C")
                argv = argv[2:] if takes_value else argv[1:]
        elif re.match(r"^[A-Za-z_]\w*=", argv[0]):
            argv = argv[1:]
        elif prog == "ip" and argv[1:3] == ["netns", "exec"] and len(argv) > 4:
            argv = argv[4:]
        elif prog == "ssh":
            rest = argv[1:]
            while rest and rest[0].startswith("-"):
                opt = rest.pop(0)
                if len(opt) == 2 and opt[1] in _SSH_ARG_OPTS and rest:
                    rest.pop(0)
            argv = rest[1:]  # drop the host
        else:
            break
    if argv:
        argv[0] = os.path.basename(argv[0])
    return tuple(argv)
