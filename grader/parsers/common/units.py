"""Units of the sizes programs print (re-exported by ``grader.parsers.common``)."""

from __future__ import annotations

BYTE_UNITS = {"B": 1, "bytes": 1, "KiB": 2 ** 10, "MiB": 2 ** 20, "GiB": 2 ** 30, "TiB": 2 ** 40, "PiB": 2 ** 50,
              "KB": 10 ** 3, "MB": 10 ** 6, "GB": 10 ** 9, "TB": 10 ** 12, "PB": 10 ** 15}
"""Bytes per unit of a size as programs print it: binary (``GiB``, Ray's and PyTorch's) and decimal (``GB``)."""
