"""The check catalogue and expected ranges, as data (TOML files beside this module).

Which file is which lesson's catalogue: the registry of lessons (grader.lessons), e.g. ``lesson1.toml``.
``ranges.toml`` holds the expected ranges per profile, ``replays.toml`` the replays shipped with the
labs, ``specs/`` the hardware figures, ``diagnoses.toml`` the known errors (pattern -> meaning -> fix ->
source) that grader.diagnoses reads in vLLM logs and in any paste.
"""
