"""Redaction: what must never reach evidence, and how it is found.

Every raw output (stdout and stderr of every probe) goes through :func:`redact` before it is
hashed, saved, graded or printed (grader.evidence.RawOutput), and again when an evidence file is
read back (so the sha256 check compares like with like). Three passes, structure first:

1. **Private keys**, whole: PEM blocks (``-----BEGIN ... PRIVATE KEY-----``, ``BEGIN OPENSSH
   PRIVATE KEY``, ``BEGIN ENCRYPTED PRIVATE KEY``, ``BEGIN PGP PRIVATE KEY BLOCK``, ssh.com's
   ``---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----``) from BEGIN to END (to the end of the text when
   the END is missing), and PuTTY key files (``PuTTY-User-Key-File-N:`` through ``Private-MAC:`` or
   ``Private-Hash:``; a ``Private-Lines: N`` line and its N lines wherever they stand). The logs
   are read with ``tail -c 4000000``, so a window can start inside a key: an END line (or a PuTTY
   ``Private-MAC:``) with no BEGIN before it takes everything from the start of the text (or the
   previous key) to it, whatever it looks like. Each becomes
   ``[private key redacted by clusterlab]``.
2. **Netplan YAML by structure**: in the ``netplan`` probe's listing (``=== <mode> <owner:group>
   <path>`` then the file's text, grader.probes.lesson1.NETPLAN_LISTING) each file is parsed as
   YAML (composed only: aliases are never expanded, so an alias bomb costs nothing); the values of
   secret keys (:func:`is_secret_yaml_key`: ``password``, ``psk``, ``auth`` passwords,
   ``client-key-password``, ``private-key-password``, NetworkManager passthrough ``*.psk`` /
   ``*.password`` / ``wep-key0``, WireGuard ``key`` / ``keys: {private, shared}``, modem ``pin``...)
   and any other scalar the free-text pass would change become the string ``"[redacted]"``, spliced
   into the original text in place (comments, layout and every other value kept; comments get the
   free-text pass). The result is parsed again and must have the same structure, so
   grader.parsers.netplan reads the same addresses as before redaction (L1.netplan on a correct
   file with a Wi-Fi password still passes); failing that the redacted tree is re-emitted by the
   YAML serializer, and a file that does not parse at all is redacted line by line
   (:func:`redact_yaml_lines`: block scalars, quoted values with escapes, multi-line values).
3. **Free text** (:func:`redact_text`): Hugging Face tokens anywhere (``hf_...``), ``Bearer`` /
   ``Basic`` credentials, ``scheme://user:pass@``, ``sshpass -p``, and values by variable name
   (:func:`is_secret_name`) in every form the grader meets: ``NAME=value`` (environments),
   ``name: value`` (YAML-ish, logs), ``"name": "value"`` (JSON, also JSON inside a JSON string,
   ``\\"name\\": \\"value\\"``), ``'name': ['value']`` (vLLM's "non-default args", a Python dict),
   ``--name value`` / ``--name=value`` (command lines). Quoted values end at their real closing
   quote (backslash escapes and YAML's ``''`` honoured; an unclosed quote runs to the end of the
   line); a name that starts its line takes its unquoted value to the end of the line (a password
   may contain spaces) and the indented lines below it (YAML block scalars ``|``/``>-`` and
   continuation lines). Each becomes ``[redacted]``.

Why not patterns alone: issue 12 found a netplan password with spaces becoming
``password: [redacted] s3cond half``, block scalars and ``''`` leaking, a JSON ``\\"`` cutting a
value short, keys leaking when the window started inside them, PuTTY's ``Private-Lines`` kept, and
pattern redaction turning valid netplan into invalid YAML (L1.netplan failed a correct setup).
Reproducers: ../shared/fixtures/adversarial/C/ (secrets.json, secrets-leak-excerpts.txt).

Guarantees: **idempotent** (``redact(redact(t)) == redact(t)``: an already ``[redacted]`` value is
left alone, which load_evidence relies on), and **linear time** (no regex that can backtrack over
a long line: possessive quantifiers, bounded name lengths, literal-led searches, every scan
consumes what it reads): a 4 MB log, one line or many, in about 0.1 s of CPU; 4 MB of nothing but
secret assignments (crafted) in under 2 s. Over-redaction is preferred to a leak, but nothing a
check reads is a secret's value, so redaction never changes a verdict.

One module per pass, every name importable from here: :mod:`grader.redact_keys` (1),
:mod:`grader.redact_yaml` (2), :mod:`grader.redact_text` (3, and the secret names).
"""

from __future__ import annotations

import re

from grader.redact_keys import KEY_REDACTED, redact_private_keys
from grader.redact_text import REDACTED, is_secret_name, is_secret_yaml_key, redact_text
from grader.redact_yaml import MAX_YAML_CHARS, YAML_REDACTED, redact_yaml, redact_yaml_lines

__all__ = ["KEY_REDACTED", "MAX_YAML_CHARS", "MAX_YAML_FILES", "REDACTED", "YAML_REDACTED", "is_secret_name",
           "is_secret_yaml_key", "redact", "redact_private_keys", "redact_text", "redact_yaml", "redact_yaml_lines"]

# --------------------------------------------------------------------------- listings and entry point

_LISTING_HEADER = re.compile(r"^=== \d{3,4} [^\s:]++:\S++ /\S*?\.ya?ml$", re.M)
"""A file header of the ``netplan`` probe (grader.probes.lesson1.NETPLAN_LISTING)."""


MAX_YAML_FILES = 64
"""Files of one listing parsed as YAML; any more (or more than :data:`MAX_YAML_CHARS` in all) are redacted
line by line, so a crafted listing cannot make the (pure Python) YAML parser the bottleneck."""


def _redact_listing(text: str, headers: list[re.Match[str]]) -> str:
    out = [redact_text(text[:headers[0].start()])]
    parsed, budget = 0, MAX_YAML_CHARS
    for k, h in enumerate(headers):
        body_start = min(h.end() + 1, len(text))
        body_end = headers[k + 1].start() - 1 if k + 1 < len(headers) else len(text)
        body_end = max(body_end, body_start)
        body = text[body_start:body_end]
        if body.strip() and body.strip() != "!!! unreadable" and (parsed >= MAX_YAML_FILES or len(body) > budget):
            out.append(redact_yaml_lines(text[h.start():]))  # the rest, headers and all, in one pass
            break
        out.append(text[h.start():body_start])
        if not body.strip() or body.strip() == "!!! unreadable":
            out.append(body)
        else:
            parsed, budget = parsed + 1, budget - len(body)
            out.append(redact_yaml(body))
        out.append(text[body_end:headers[k + 1].start()] if k + 1 < len(headers) else "")
    return "".join(out)


def redact(text: str) -> str:
    """``text`` with private keys, passwords, tokens and API keys removed (module docstring: what, how,
    why). A netplan listing is redacted by YAML structure, anything else as free text. Idempotent,
    linear time."""
    if not text:
        return text
    text = redact_private_keys(text)
    headers = list(_LISTING_HEADER.finditer(text)) if "=== " in text else []
    if headers:
        return _redact_listing(text, headers)
    return redact_text(text)
