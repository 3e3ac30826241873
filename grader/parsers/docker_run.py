"""Parser for what ``docker run -d`` (``--detach``; podman alike) prints: the new container's ID, one line of 64 hex
digits, after the lines of an image pull when the image was not there yet::

    Unable to find image 'vllm/vllm-openai:latest' locally
    latest: Pulling from vllm/vllm-openai
    Digest: sha256:...
    Status: Downloaded newer image for vllm/vllm-openai:latest
    cb2dc97286d9e65858472bd6ce020f2694718b012dd6b2d89782fbf1e41eee05

Everything the container itself prints goes to ``docker logs NAME``, not here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .common import ParseError, content_lines

COMMAND = "docker run -d"

ID_RE = re.compile(r"^[0-9a-f]{64}$")
PULL_RE = re.compile(r"^(?:Unable to find image '[^']{1,300}' locally|[\w.-]{1,128}: Pulling from \S{1,300}"
                     r"|Digest: sha256:[0-9a-f]{64}|Status: (?:Downloaded newer image|Image is up to date) for \S{1,300}"
                     r"|[0-9a-f]{12}: (?:Pulling fs layer|Waiting|Download complete|Pull complete|Already exists"
                     r"|Verifying Checksum))$")


_GLUED_ID_RE = re.compile(r"(?:^|\s)(?P<id>[0-9a-f]{64})$")  # the ID joined to a warning line above it
_ERROR_RE = re.compile(r"^(?:docker: |Error response from daemon:|Error: |nvidia-container-cli: |unauthorized:|denied:"
                       r"|pull access denied|manifest unknown|toomanyrequests:)")
_WARNING_RE = re.compile(r"^WARNING: (?P<msg>.{1,300})")


@dataclass
class DockerRun:
    """``container_id``: the 64-hex ID docker printed (None when the paste stops before it); ``pulled``: whether it
    pulled the image first; ``error``: docker's (or the NVIDIA runtime's) first error line, cut to 300 characters: the
    container was not started, though with -d docker prints the ID before it starts it; ``warnings``: docker's own
    ``WARNING:`` lines (a platform the host cannot run, ports a host network ignores)."""

    container_id: str | None
    pulled: bool
    error: str | None = None
    warnings: tuple[str, ...] = ()


def parse_docker_run(text: str) -> DockerRun:
    """Read ``docker run -d``'s output (module docstring). Raises ParseError when it holds no container ID, no image
    pull's lines and no docker error; never otherwise."""
    cid, pulled, error, warnings = None, False, None, []
    for line in content_lines(text):
        s = line.text.strip()
        if ID_RE.match(s):
            cid = s
        elif PULL_RE.match(s):
            pulled = True
        elif _ERROR_RE.match(s):
            error = error or s[:300]
        elif m := _WARNING_RE.match(s):
            glued = _GLUED_ID_RE.search(s)
            warnings.append((s[:glued.start()] if glued else s)[len("WARNING: "):][:300].strip())
            cid = glued.group("id") if glued else cid
    if cid is None and not pulled and error is None:
        raise ParseError(COMMAND, "no container ID (a line of 64 hex digits), no image pull and no docker error found")
    return DockerRun(cid, pulled, error, tuple(warnings))
