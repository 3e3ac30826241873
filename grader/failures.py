"""One line for an error no reader expected (never a traceback): shared by the command line and ``explain``."""

from __future__ import annotations


def describe_failure(e: BaseException) -> str:
    """One line for an error no command expected: what was too large or too deep in the input, or the
    error's type and message (never a traceback)."""
    text = " ".join(str(e).split())[:300]
    if isinstance(e, RecursionError):
        return "the input is nested too deeply to read (thousands of levels of brackets or indentation)"
    if isinstance(e, ValueError) and "integer string conversion" in text:
        return "the input holds an integer of more than 4,300 digits, which no command's output prints"
    if isinstance(e, MemoryError):
        return "out of memory reading the input: it is far larger than any output the grader reads"
    if isinstance(e, UnicodeError):
        return f"text that is not valid Unicode ({text})"
    return f"{type(e).__name__}: {text}" if text else type(e).__name__
