"""A learner at a sim node's prompt, for the tests that type the course's commands there as a person would.

The learner is the node's login user (grader.sim.topology.LOGIN_USER), in ``clusterlab sim shell NODE``; ``sudo``
asks for their password as on a Spark, and ``ssh-copy-id`` for the peer's. With no terminal, sudo asks the program
in SUDO_ASKPASS (DISPLAY set) and ssh the one in SSH_ASKPASS (where a step sets SSH_ASKPASS_REQUIRE=force):
:data:`ASKPASS` answers as the learner would, ``yes`` to a host key they have checked, else the password.
"""

from __future__ import annotations

import subprocess
import sys

from grader.sim import topology as T

CLI = [sys.executable, "-m", "grader.cli"]
ASKPASS = ("#!/bin/sh\n# the learner at ssh's and sudo's prompts: yes to the peer's host key (after reading its "
           "fingerprint), else the password (the peer's, or their own for sudo)\n"
           f"case \"$1\" in *yes/no*) echo yes ;; *) echo {T.LOGIN_PASSWORD} ;; esac\n")
AT_THE_PROMPT = (f"[ -x /tmp/askpass ] || {{ cat > /tmp/askpass <<'EOF'\n{ASKPASS}EOF\n"
                 "chmod 700 /tmp/askpass; }\nexport SUDO_ASKPASS=/tmp/askpass DISPLAY=:0\n")
"""Shell lines that put :data:`ASKPASS` in the node's /tmp (once per boot) and point sudo at it."""
SSH_PROMPTS = "SSH_ASKPASS=/tmp/askpass SSH_ASKPASS_REQUIRE=force"
"""Put before an ``ssh``/``ssh-copy-id`` command whose prompts the learner answers."""


def typed(node: str, script: str, stdin: str | None = None, timeout: float = 90) -> subprocess.CompletedProcess:
    """``script`` run by ``bash -c`` in ``clusterlab sim shell NODE`` (the learner's shell), after
    :data:`AT_THE_PROMPT`; stdin ``stdin`` (none: empty). Returns the finished process; asserts nothing."""
    return subprocess.run(CLI + ["sim", "shell", node, "bash", "-c", AT_THE_PROMPT + script], input=stdin or "",
                          capture_output=True, text=True, timeout=timeout)


def typed_at_prompt(node: str, script: str, timeout: float = 90) -> subprocess.CompletedProcess:
    """``script``'s lines typed at ``node``'s prompt: ``bash -s`` reading them (a shell whose command line holds
    none of them, as an interactive one's does not: ``pkill -f`` finds only its target)."""
    return subprocess.run(CLI + ["sim", "shell", node, "bash", "-s"], input=AT_THE_PROMPT + script + "\n",
                          capture_output=True, text=True, timeout=timeout)
