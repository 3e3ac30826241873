"""Notebook widgets (ipywidgets, the ``notebook`` extra). Importing this package needs no display."""
