"""Parser for ``kubectl get pods`` (and ``-o wide``): each pod's name, how many of its containers are ready, its
status and restarts, as a KubeRay or vLLM-on-Kubernetes cluster shows them::

    NAME                                READY   STATUS       RESTARTS      AGE     IP           NODE
    raycluster-head-wk5dx               1/1     Running      0             6m23s   10.0.0.5     node-1
    raycluster-worker-bp7pn             0/1     Init:0/1     0             6m23s
    vllm-0                              0/1     CrashLoopBackOff   5 (40s ago)   10m

The header is optional (a pasted excerpt often drops it); text after the AGE column (``-o wide``'s IP and node, a
note the poster added) is kept as ``rest``. STATUS values are Kubernetes' own (``Running``, ``Pending``,
``ContainerCreating``, ``Init:N/M``, ``Init:Error``, ``CrashLoopBackOff``, ``ImagePullBackOff``, ``ErrImagePull``,
``Error``, ``Completed``, ``OOMKilled``, ``Terminating``, ``Evicted``...).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .common import ParseError, content_lines, raise_if_shell_error

COMMAND = "kubectl get pods"

_HEADER_RE = re.compile(r"^(?:NAMESPACE\s+)?NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE\b")
_ROW_RE = re.compile(r"^(?:(?P<ns>[a-z0-9][\w.-]*)\s+)?(?P<name>[a-z0-9][\w.-]*)\s+(?P<ready>\d+)/(?P<want>\d+)\s+"
                     r"(?P<status>[A-Za-z][\w:/-]*)\s+(?P<restarts>\d+)(?:\s+\([^)]*\))?(?:\s+(?P<age>\d+[smhdy][\w]*)"
                     r"(?P<rest>\s.*)?)?$")
_AGE_RE = re.compile(r"^\d+[smhdy]\w{0,20}$")  # the AGE column a narrow terminal wrapped onto a line of its own
FAILED_STATES = ("CrashLoopBackOff", "Error", "ImagePullBackOff", "ErrImagePull", "OOMKilled", "Evicted",
                 "CreateContainerConfigError", "InvalidImageName", "Init:Error", "Init:CrashLoopBackOff",
                 "Init:ImagePullBackOff", "Init:ErrImagePull")
"""Statuses of a pod that will not come up by waiting."""


@dataclass(frozen=True)
class Pod:
    """One row: ``ready``/``containers`` from READY (``0/1``), ``status`` as printed, ``restarts``, ``age`` as printed
    (``6m23s``), ``rest`` what follows AGE (``-o wide``'s columns, or a note), stripped."""

    name: str
    ready: int
    containers: int
    status: str
    restarts: int
    age: str
    rest: str = ""

    @property
    def up(self) -> bool:
        """Running with every container ready (or Completed with no restart: a job that ended; one restarted is a
        container that keeps exiting, as a Deployment's restarts even one that exits 0)."""
        return (self.status == "Running" and self.ready == self.containers) or (self.status == "Completed"
                                                                                 and not self.restarts)

    @property
    def failed(self) -> bool:
        return self.status in FAILED_STATES or self.status.startswith("Init:") and not re.match(r"^Init:\d+/\d+$",
                                                                                               self.status)


def parse_kubectl_pods(text: str) -> list[Pod]:
    """The pods of a ``kubectl get pods`` listing, in order. ParseError when no row reads as one (or the paste is a
    shell error)."""
    lines = content_lines(text)
    pods: list[Pod] = []
    for i, line in enumerate(lines):
        s = line.text.strip()
        if _HEADER_RE.match(s):
            continue
        m = _ROW_RE.match(s)
        age = m and (m.group("age") or next((x for x in (lines[i + 1].text.strip(),) if _AGE_RE.match(x)), None)
                     if m.group("age") or i + 1 < len(lines) else None)
        if m and age:
            pods.append(Pod(m.group("name"), int(m.group("ready")), int(m.group("want")), m.group("status"),
                            int(m.group("restarts")), age, (m.group("rest") or "").strip()))
    if not pods:
        raise_if_shell_error(lines, COMMAND)
        raise ParseError(COMMAND, "no pod row found (expected `NAME  READY  STATUS  RESTARTS  AGE` rows such as "
                                  "`vllm-0  1/1  Running  0  5m`)")
    return pods
