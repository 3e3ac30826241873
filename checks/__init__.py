"""The check catalogue and expected ranges, as data (TOML files beside this module)."""
