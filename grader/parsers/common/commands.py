"""The program a command line really runs, and its arguments (re-exported by ``grader.parsers.common``); whether a
command line changes the machine's state (:func:`changes_state`, :func:`silent_on_success`)."""

from __future__ import annotations

import functools
import os
import re
import shlex

_WRAPPERS = {"sudo", "env", "time", "nice", "command", "exec", "stdbuf", "nohup", "doas",
             "uvx", "numactl", "taskset"}  # (uvx: uv's tool runner; numactl and taskset pin a program's CPUs)
_NUMACTL_VALUED = ("-C", "-N", "-m", "-p", "-i", "-P", "--physcpubind", "--cpunodebind", "--membind", "--preferred",
                   "--interleave")  # numactl's options that take a value as the next word (``-C 8-15``, ``--membind 1``)
PERFTEST_PROGRAMS = ("ib_write_bw", "ib_read_bw", "ib_send_bw", "ib_atomic_bw", "ib_write_lat", "ib_read_lat",
                     "ib_send_lat", "ib_atomic_lat", "raw_ethernet_bw", "raw_ethernet_lat")
"""perftest's programs (grader.parsers.perftest reads their output): here, so that explain registers their kind without
importing that parser before a paste holds their output."""
_SSH_ARG_OPTS = set("bcDEeFIiJLlmOopQRSWw")
_FANOUT = ("pdsh", "clush", "pssh", "parallel-ssh")  # run one command on several machines, each line labelled
_FANOUT_ARG_OPTS = set("wxRltufgXoeEhHpO")  # their options that take a value (-w HOSTS, -l USER, -t TIMEOUT, ...)
_FANOUT_LONG_ARG_OPTS = frozenset({"--hosts", "--host", "--user", "--par", "--timeout", "--outdir", "--errdir",
                                   "--option", "--extra-args", "--nodes", "--exclude", "--group", "--fanout"})


def command_argv(command: str | None) -> list[str]:
    """The argv of the program a command line really runs, first pipeline stage only.

    ``"sudo ethtool enp1s0f1np1 | grep Speed"`` -> ``["ethtool", "enp1s0f1np1"]``.
    Unwraps sudo (and its options), env, ``VAR=x`` assignments, time, ``ip netns exec NS``,
    ``ssh [opts] host`` and pdsh, clush and pssh with their options (``pdsh -w a,b "ip addr"``);
    the program is reduced to its basename. Returns [] for None or an empty command. Never raises.
    """
    return list(_argv(command)) if command else []


def option_value(argv: list[str], *names: str) -> str | None:
    """The value of the first of the options ``names`` in argv (``--num-prompts 50``, ``--num-prompts=50``, ``-B
    10.0.0.1``); "" when it is the last word with no value; None when argv has none of them."""
    for i, arg in enumerate(argv):
        name, eq, value = arg.partition("=")
        if name in names:
            return value if eq else (argv[i + 1] if i + 1 < len(argv) else "")
    return None


def _argv(command: str) -> tuple[str, ...]:
    return _argv_and_host(command)[0]


def ssh_host(command: str | None) -> str | None:
    """The machine ``command`` ran on when it runs through ``ssh [options] [user@]HOST COMMAND`` (past sudo, env and
    variables set for it; ssh's options that take a value skip it): ``HOST`` without its user, else None (no ssh, or
    an ``ssh HOST`` that runs no command here)."""
    return _argv_and_host(command)[1] if command and "ssh" in command else None


@functools.lru_cache(maxsize=256)  # a paste runs a few commands, often again and again
def _argv_and_host(command: str) -> tuple[tuple[str, ...], str | None]:
    host = None
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
                takes_value = prog == "sudo" and argv[0] in ("-u", "-g", "-h", "-p", "-C") \
                    or prog == "numactl" and argv[0] in _NUMACTL_VALUED
                argv = argv[2:] if takes_value else argv[1:]
            if prog == "taskset" and argv and re.match(r"^(?:0x)?[\dA-Fa-f,-]{1,64}$", argv[0]):
                argv = argv[1:]  # its CPU mask or list (``taskset -c 0-7 cmd``, ``taskset 0x3 cmd``)
        elif re.match(r"^[A-Za-z_]\w*=", argv[0]):
            argv = argv[1:]
        elif prog == "ip" and argv[1:3] == ["netns", "exec"] and len(argv) > 4:
            argv = argv[4:]
        elif prog == "ssh":
            rest = _drop_options(argv[1:], _SSH_ARG_OPTS)
            host = rest[0].rpartition("@")[2] if len(rest) > 1 else host
            argv = list(_argv(rest[1])) if len(rest) == 2 and " " in rest[1] else rest[1:]  # the host dropped; `ssh h "cmd"`
        elif prog in _FANOUT:
            rest = _drop_options(argv[1:], _FANOUT_ARG_OPTS, _FANOUT_LONG_ARG_OPTS)
            argv = list(_argv(rest[0])) if len(rest) == 1 and " " in rest[0] else rest  # `pdsh -w a,b "ip addr"`
        else:
            break
    if argv:
        argv[0] = os.path.basename(argv[0])
    return tuple(argv), host


def _drop_options(words: list[str], takes_value: set[str], long_takes_value: frozenset[str] = frozenset()) -> list[str]:
    """``words`` after a program's leading options: ``-x`` whose letter is in ``takes_value`` (or a long option in
    ``long_takes_value``) drops the word after it too."""
    rest = list(words)
    while rest and rest[0].startswith("-"):
        opt = rest.pop(0)
        if (len(opt) == 2 and opt[1] in takes_value or opt in long_takes_value) and rest:
            rest.pop(0)
    return rest


_GAP = r"[^\n;&|]{0,200}?"  # words between a program and its verb, bounded: a flood of words stays linear
_START = (r"(?:^|[;&|(]\s*+)(?:[A-Za-z_]\w*+=\S*+\s++)*+(?:(?:sudo|doas|nohup|time|env)(?:\s++-\S++)*+\s++"
          r"|(?:docker|podman|kubectl)\s++exec\s++(?:-\S++\s++)*+\S++\s++|ssh\s++(?:-\S++\s++)*+\S++\s++)*+")
"""Where a command starts in a line: at its start or after ``;``, ``&&``, ``|``, past variables set for it
(``VAR=1``) and what runs it elsewhere (sudo, ``docker exec NAME``, ``ssh HOST``)."""
_IP_SET = r"ip\s+(?:-\d\s+)?(?:link\s+set|(?:addr|address|a|route|r)\s+(?:add|del|delete|replace|flush|change))\b"
_ETHTOOL_SET = r"ethtool\s+(?:-[sAKGLCNUX]\b|--set-|--change)"
_MODULE = r"modprobe\s+(?!-[cnDR]\b|--show|--dry-run)|rmmod\b"
_SERVICE = r"systemctl\s+(?:start|restart|stop|reload)\b"
_TO_SYSFS = r"echo\s[^\n>]{0,400}+>+\s*/(?:sys|proc)/"
_RAY = r"ray\s+(?:start|stop)\b"
_RDMA_LINK_SET = r"rdma\s+link\s+(?:add|delete)\b"
_IFCONFIG_SET = r"ifconfig\s+\S+\s+(?:up|down|mtu|-?promisc|\d)\b"  # net-tools: up, down, an MTU or an address
CHANGES_STATE = re.compile(_START + "(?:" + "|".join((
    _IP_SET, r"netplan\s+(?:apply|try)\b", r"nmcli\s" + _GAP + r"\b(?:up|down|modify|mod|add|reload)\b", _SERVICE,
    _ETHTOOL_SET, _MODULE, _RAY, r"mlxconfig\b" + _GAP + r"\bset\b", r"sysctl\s+-w\b",
    _IFCONFIG_SET + r"|ifup\b|ifdown\b|reboot\s*+$", _RDMA_LINK_SET,
    r"devlink\s+dev\s+(?:param\s+set|reload)\b", r"cma_roce_mode\b" + _GAP + r"\s-m\b",
    r"docker\s+(?:run|start|restart|stop|rm|compose\s+(?:up|down|restart))\b", _TO_SYSFS,
    r"tee\s+(?:-a\s+)?/(?:sys|proc)/")) + ")")
"""A command line that changes the machine's network, driver or cluster state (what a later output of the same
command may show differently), searched where each command of the line starts (:data:`_START`), in the line with
its quoted strings taken out (``history | grep "ip link set"`` reads nothing). Read-only
commands (``ip a``, ``ethtool IF``, ``rdma link``, ``modprobe -c``, ``last reboot``) never match. Only a command's
first ``MAX_COMMAND`` characters are searched."""
SILENT_ON_SUCCESS = re.compile(_START + r"(?:/|[\w.-]++/)*+(?:" + "|".join((_IP_SET, _ETHTOOL_SET, _MODULE, _SERVICE,
                                                           r"netplan\s+apply\b", _TO_SYSFS, _RDMA_LINK_SET,
                                                           _IFCONFIG_SET)) + ")")
"""The state changes that print nothing when they succeed, their program named or given with its path
(``/sbin/ethtool -G ...``); ``ray start`` and ``ray stop`` always print; ``tee`` and ``sysctl -w`` echo the value."""
MAX_COMMAND = 2000
_QUOTED_RE = re.compile(r"'[^'\n]*+'|\"[^\"\n]*+\"")


def _unquoted(command: str) -> str:
    return _QUOTED_RE.sub("''", command[:MAX_COMMAND])


_PIPE_INTO_RE = re.compile(r"(?<![|])[|](?![|])&?\s{0,8}(?:sudo\s{1,8})?(?:[\w.~-]{0,200}/)?([\w.+-]{1,64})")
_PASS_THROUGH = frozenset({"tee", "cat", "less", "more", "most", "column", "nl", "ts", "sort", "bat", "batcat", "lolcat",
                           "ccze", "pv"})  # what keeps every line (sort only orders them)


def filters_output(command: str | None) -> bool:
    """Whether ``command`` pipes its output through a program that can drop lines (``| grep``, ``| head``, ``| awk``,
    ``| cut``, ``| jq``, any program not known to keep every line), so that what is missing from the output may only
    be filtered out: ``ip addr | grep inet`` is; ``ip addr | tee ip.txt``, ``ip addr || true`` and ``grep "a|b" f``
    are not. The one definition of "filtered" that the judges ask."""
    return bool(command) and any(m.group(1) not in _PASS_THROUGH
                                 for m in _PIPE_INTO_RE.finditer(_unquoted(command)))


def changes_state(command: str | None) -> bool:
    """Whether ``command`` changes the machine's network, driver or cluster state (:data:`CHANGES_STATE`)."""
    return bool(command) and CHANGES_STATE.search(_unquoted(command)) is not None


_RAY_LIFECYCLE = re.compile(_START + _RAY)


def ray_lifecycle(command: str | None) -> bool:
    """Whether ``command`` starts or stops a Ray node (``ray start``/``ray stop``, through sudo, docker exec or
    ssh; not in a quoted string): a change of the cluster's state, which ``ray status`` shows on every node."""
    return bool(command) and _RAY_LIFECYCLE.search(_unquoted(command)) is not None


def silent_on_success(command: str | None) -> bool:
    """Whether ``command`` is a state change that prints nothing when it succeeds (:data:`SILENT_ON_SUCCESS`)."""
    return bool(command) and SILENT_ON_SUCCESS.search(_unquoted(command)) is not None
