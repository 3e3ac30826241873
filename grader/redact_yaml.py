"""Redaction, pass 2: netplan YAML by structure, and line by line where it does not parse; see
:mod:`grader.redact`, which runs the passes and re-exports these names."""

from __future__ import annotations

import bisect
import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import yaml  # imported where used: PyYAML costs every command that redacts no YAML ~15 ms

from grader.redact_keys import KEY_REDACTED, _line_end
from grader.redact_text import (_ALREADY, _EMPTY, REDACTED, _bracket_end, _continuation_end, _junk_after,
                                _quoted_end, is_secret_yaml_key, redact_text)

YAML_REDACTED = '"[redacted]"'
"""What a secret value becomes in YAML: the string "[redacted]" (quoted, so the file stays valid YAML)."""
MAX_YAML_CHARS = 256_000
"""A netplan file larger than this is redacted line by line, not parsed (real ones are under 10 kB)."""

# --------------------------------------------------------------------------- YAML

_YAML_KEY_LINE = re.compile(
    r"""(?P<ind>[ \t]*+)(?P<dash>(?:-[ \t]++)*+)"""
    r"""(?P<key>"(?:[^"\\\n]++|\\.)*+"|'(?:[^'\n]++|'')*+'|[^\s#'"{}\[\],&*!|>%@`?:][^:#\n]{0,200}?)"""
    r"""[ \t]*+:(?=[ \t]|$)[ \t]*+""", re.M)


def _yaml_key_text(key: str) -> str:
    if key[:1] == '"':
        return key[1:-1].replace('\\"', '"')
    if key[:1] == "'":
        return key[1:-1].replace("''", "'")
    return key.strip()


def redact_yaml_lines(text: str) -> str:
    """A YAML text that does not parse, redacted line by line: each ``key: value`` line whose key is a
    secret's (:func:`is_secret_yaml_key`, with the keys above it by indentation) gets ``"[redacted]"``
    for its value: a plain value to the end of the line, a quoted one to its closing quote (escapes
    honoured), a block scalar (``|``, ``>-``) or a value continued on deeper-indented lines with those
    lines. Then the free-text pass."""
    out, pos, i = [], 0, 0
    stack: list[tuple[int, str]] = []
    n = len(text)
    while i <= n:
        e = _line_end(text, i)
        m = _YAML_KEY_LINE.match(text, i, e)
        if m is None or not m.group("key").strip():
            i = e + 1
            continue
        col = m.end("dash") - i
        key = _yaml_key_text(m.group("key"))
        while stack and stack[-1][0] >= col:
            stack.pop()
        path = tuple(k for _, k in stack)
        stack.append((col, key))
        v, nxt = m.end(), e + 1
        if is_secret_yaml_key(key, path):
            span = _yaml_value_span(text, v, e, col)
            if span is not None:
                out += [text[pos:span[0]], YAML_REDACTED]
                pos = span[1]
                nxt = _line_end(text, span[1]) + 1
        i = nxt
    return redact_text("".join(out) + text[pos:] if out else text)


def _yaml_value_span(text: str, v: int, eol: int, col: int) -> tuple[int, int] | None:
    c = text[v] if v < eol else ""
    if c == "#":
        c = ""
    closed, end = False, eol
    if c in ("'", '"'):
        end, closed = _quoted_end(text, v)
    elif c in ("[", "{"):
        end, closed = _bracket_end(text, v)
    if closed and _junk_after(text, end):
        end = eol
    end = max(end, _continuation_end(text, _line_end(text, end), col))  # deeper lines belong to it
    while end > v and text[end - 1] in " \t\r\n":
        end -= 1
    if end <= v or _ALREADY.fullmatch(text, v, end) or text[v:end] in _EMPTY:
        return None
    return v, end


def _span_text_is_redacted(text: str) -> bool:
    t = text.strip()
    return t in (REDACTED, YAML_REDACTED, "'[redacted]'", KEY_REDACTED) or t.strip("'\"") == REDACTED


def _walk_marks(root: yaml.Node, text: str) -> list[yaml.Node]:
    """The nodes to redact: every scalar under a secret key (keys kept; a value already redacted, even
    as ``[redacted]``, left alone) and every other scalar that the free-text pass would change. Each
    node once (aliases share nodes), without recursion."""
    import yaml

    marks: dict[int, yaml.Node] = {}
    seen: set[tuple[int, bool]] = set()
    todo: list[tuple[yaml.Node, tuple[str, ...], bool]] = [(root, (), False)]
    while todo:
        node, path, secret = todo.pop()
        if (id(node), secret) in seen:
            continue
        seen.add((id(node), secret))
        if secret and _span_text_is_redacted(text[node.start_mark.index:node.end_mark.index]):
            continue
        if isinstance(node, yaml.MappingNode):
            for k, v in node.value:
                kname = k.value if isinstance(k, yaml.ScalarNode) else ""
                if isinstance(k, yaml.ScalarNode) and not secret and redact_text(k.value) != k.value:
                    marks[id(k)] = k
                elif not isinstance(k, yaml.ScalarNode):
                    todo.append((k, path, secret))
                todo.append((v, path + (kname,), secret or is_secret_yaml_key(kname, path)))
        elif isinstance(node, yaml.SequenceNode):
            todo += [(item, path, secret) for item in node.value]
        elif isinstance(node, yaml.ScalarNode):
            if (secret and node.value.strip() and node.tag != "tag:yaml.org,2002:null") \
                    or redact_text(node.value) != node.value:
                marks[id(node)] = node
    return list(marks.values())


def _shape(roots: list[yaml.Node], marked: set[int]) -> list[Any]:
    """A comparable picture of composed documents (marked scalars as the string "[redacted]";
    a node met again as a reference, so aliases cost nothing)."""
    import yaml

    ids: dict[int, int] = {}
    out: list[Any] = []
    todo: list[yaml.Node] = list(reversed(roots))
    while todo:
        node = todo.pop()
        if id(node) in ids:
            out.append(("ref", ids[id(node)]))
            continue
        ids[id(node)] = len(ids)
        if isinstance(node, yaml.ScalarNode):
            out.append(("s", "tag:yaml.org,2002:str", REDACTED) if id(node) in marked else ("s", node.tag, node.value))
        elif isinstance(node, yaml.MappingNode):
            out.append(("m", node.tag, len(node.value)))
            todo += [x for kv in reversed(node.value) for x in reversed(kv)]
        else:
            out.append(("q", node.tag, len(node.value)))
            todo += list(reversed(node.value))
    return out


def _compose(text: str) -> list[yaml.Node]:
    import yaml

    return [d for d in yaml.compose_all(text, Loader=yaml.SafeLoader) if d is not None]


_ANCHOR_OR_TAG = re.compile(r"([&!][^\s]*+)[ \t\r\n]++")


def _splice_value(span: str) -> str:
    """A marked node's source text replaced: its anchor kept, its tag dropped, surrounding blanks kept."""
    core = span.rstrip()
    trail = span[len(core):]
    anchors, i = [], 0
    while (m := _ANCHOR_OR_TAG.match(core, i)) is not None:
        if m.group(1).startswith("&"):
            anchors.append(m.group(1) + " ")
        i = m.end()
    return "".join(anchors) + YAML_REDACTED + trail


def _comment_spans(text: str) -> list[tuple[int, int]]:
    """Where the comments are: ``#`` to the end of the line, outside every YAML token."""
    import yaml

    tokens = [(t.start_mark.index, t.end_mark.index) for t in yaml.scan(text, Loader=yaml.SafeLoader)
              if t.end_mark.index > t.start_mark.index]
    tokens.sort()
    starts = [s for s, _ in tokens]
    spans, i = [], 0
    while (h := text.find("#", i)) >= 0:
        k = bisect.bisect_right(starts, h) - 1
        if k >= 0 and tokens[k][1] > h:
            i = tokens[k][1]
            continue
        e = _line_end(text, h)
        spans.append((h, e))
        i = e
    return spans


def redact_yaml(text: str) -> str:
    """One YAML file (a netplan file) redacted by structure; see the module docstring.

    The result parses to the same documents, but with every secret key's value (and any scalar with a
    token, URL password... in it) the string "[redacted]": grader.parsers.netplan reads the same
    addresses. Not YAML (or over :data:`MAX_YAML_CHARS`): :func:`redact_yaml_lines`.
    """
    import yaml

    if len(text) > MAX_YAML_CHARS:
        return redact_yaml_lines(text)
    try:
        roots = _compose(text)
        marks = [] if not roots else [n for r in roots for n in _walk_marks(r, text)]
        marks = list({id(n): n for n in marks}.values())
        edits = []
        for node in marks:
            s, e = node.start_mark.index, node.end_mark.index
            if not _span_text_is_redacted(text[s:e]) and node.value not in (REDACTED,):
                edits.append((s, e, _splice_value(text[s:e])))
        for s, e in _comment_spans(text):
            red = redact_text(text[s:e])
            if red != text[s:e]:
                edits.append((s, e, red))
        if not edits:
            return text
        edits.sort()
        out, pos = [], 0
        for s, e, repl in edits:
            if s < pos:  # overlapping spans: cannot splice safely
                raise ValueError("overlapping edits")
            out += [text[pos:s], repl]
            pos = e
        spliced = "".join(out) + text[pos:]
        marked = {id(n) for n in marks}
        want = _shape(roots, marked)
        try:
            if _shape(_compose(spliced), set()) == want:
                return spliced
        except Exception:  # noqa: BLE001 - any failure: re-emit instead
            pass
        for node in marks:  # re-emit the redacted tree (comments are lost, structure kept)
            node.value, node.tag, node.style = REDACTED, "tag:yaml.org,2002:str", '"'
        emitted = yaml.serialize_all(roots, Dumper=yaml.SafeDumper)
        if _shape(_compose(emitted), set()) == want:
            return emitted
    except Exception:  # noqa: BLE001 - not YAML (or YAML this code cannot splice): line by line
        pass
    return redact_yaml_lines(text)
