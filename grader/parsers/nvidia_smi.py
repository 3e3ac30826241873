"""Parsers for ``nvidia-smi``: the ``--query-gpu`` CSV, ``topo -m``, ``topo -p2p``, the plain table, ``-q``.

Every parser takes pasted text (prompts, ``#`` comment lines, ANSI codes, CRLF allowed), reads
what is there, says what is missing (a cut-off paste gives ``truncated`` and notes), and raises
ParseError naming the command and the line for output it cannot read or nvidia-smi's own errors
(``Field "x" is not a valid field to query``, ``NVIDIA-SMI has failed``, ``No devices were found``).

Shapes seen (tests/fixtures/captured/h200x1/, shared/fixtures/real/h200x2/, driver 580):

- CSV header cells are ``name [unit]`` (``power.draw [W]``); values carry the unit unless
  ``nounits`` (``700.00 W`` / ``700.00``); unavailable values read ``[N/A]`` or
  ``[Not Supported]``. Some fields print another name than the one queried: ``clocks.sm`` prints
  ``clocks.current.sm``; older drivers say ``clocks_throttle_reasons`` where newer ones say
  ``clocks_event_reasons``. Columns are matched by name, never by position.
- ``topo -m``: a tab-separated matrix (first header cell empty), then a legend; with NICs, a
  ``NIC Legend`` maps NIC0 to mlx5_0.
- ``-q``: ``Key : value`` lines nested by indentation under section titles.

One module per topic, all names importable from here: :mod:`.nvidia_smi_query` (the CSV, and the
command's own errors every parser shares), :mod:`.nvidia_smi_topo` (``topo -m``, ``topo -p2p``),
:mod:`.nvidia_smi_table` (the plain table, ``-q``).
"""

from __future__ import annotations

from .nvidia_smi_query import (CMD, FIELD_ALIASES, STRING_FIELDS, QueryGpu, QueryRow, canonical_field,
                               parse_query_gpu, smi_value)
from .nvidia_smi_table import SmiQGpu, SmiQuery, SmiTable, SmiTableGpu, parse_smi_q, parse_smi_table
from .nvidia_smi_topo import (LINK_CODES, LINK_MEANING, MAX_MATRIX_DEVICES, P2P_STATUS, TopoMatrix, TopoP2P,
                              link_family, parse_topo_matrix, parse_topo_p2p)

__all__ = ["CMD", "FIELD_ALIASES", "LINK_CODES", "LINK_MEANING", "MAX_MATRIX_DEVICES", "P2P_STATUS", "STRING_FIELDS",
           "QueryGpu", "QueryRow", "SmiQGpu", "SmiQuery", "SmiTable", "SmiTableGpu", "TopoMatrix", "TopoP2P",
           "canonical_field", "link_family", "parse_query_gpu", "parse_smi_q", "parse_smi_table", "parse_topo_matrix",
           "parse_topo_p2p", "smi_value"]
