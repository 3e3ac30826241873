"""Notebook widgets (ipywidgets) and views (matplotlib), the ``notebook`` extra. Importing this package needs no display."""
