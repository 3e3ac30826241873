"""Fuzzing the readers a person's text reaches, beyond the per-parser families (tests/test_fuzz_parsers.py).

- ``explain`` with no ``--kind``: one or two mutated outputs of any family (real ones, the captured
  ones, the field pastes) pasted together; detection, every parser it picks and every summariser run
  on it. No internal error, the report renders, its JSON is strict.
- redaction: a planted secret of each kind tests/test_redact.py knows, put between the lines of a
  mutated real output: none of it survives :func:`grader.redact.redact`, and redacting again changes
  nothing.
- the inventory reader: mutated inventory files give an Inventory or an InventoryError with a reason,
  never another exception.

Examples per test: CLUSTERLAB_FUZZ_EXAMPLES (default 200); derandomised unless CLUSTERLAB_FUZZ_RANDOM=1.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from grader import strictjson  # noqa: E402
from grader.explain import explain, render, to_jsonable  # noqa: E402
from grader.inventory import InventoryError, load_inventory  # noqa: E402
from grader.redact import redact  # noqa: E402
from tests.conftest import field_fixtures_root, real_fixtures_root  # noqa: E402
from tests.fuzzing import CASES, DrawChooser, mutate_text, seed_texts  # noqa: E402
from tests.test_redact import EXTRA, KINDS  # noqa: E402
from tests.test_robust import strict  # noqa: E402

HERE = Path(__file__).resolve().parent
EXAMPLES = max(200, int(os.environ.get("CLUSTERLAB_FUZZ_EXAMPLES", "200")))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, database=None,
                derandomize=not os.environ.get("CLUSTERLAB_FUZZ_RANDOM"),
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                       HealthCheck.function_scoped_fixture])
FIELD = field_fixtures_root()


SEEDS = seed_texts(real_fixtures_root(), HERE / "fixtures" / "captured", FIELD)


def test_fuzz_explain_detects_any_paste() -> None:
    assert len(SEEDS) > 20, "the real and captured outputs were not found"

    @FUZZ
    @given(st.data())
    def run(data: st.DataObject) -> None:
        CASES["explain (detected kind)"] += 1
        c = DrawChooser(data.draw)
        text = "\n".join(mutate_text(c.choice(SEEDS), c) for _ in range(c.integer(1, 2)))
        sections = explain(text)
        for s in sections:
            err = s.error or ""
            assert not err.startswith("internal error") and "grader bug" not in err, err
        render(sections)
        strict(strictjson.dumps(to_jsonable(sections)))

    run()


PLANTED = {**KINDS, **EXTRA}


@pytest.mark.parametrize("kind", sorted(PLANTED))
def test_fuzz_no_planted_secret_survives(kind: str) -> None:
    planted, _ = PLANTED[kind]
    seeds = [t for t in SEEDS if "=== " not in t[:4]][:60]  # free text (a netplan listing is its own test)

    @settings(FUZZ, max_examples=max(20, EXAMPLES // 10))
    @given(st.data())
    def run(data: st.DataObject) -> None:
        CASES["redact (planted secret in a mutated output)"] += 1
        c = DrawChooser(data.draw)
        lines = mutate_text(c.choice(seeds), c).split("\n")
        i = c.integer(0, len(lines))
        text = "\n".join(lines[:i] + [planted.rstrip("\n")] + lines[i:])
        out = redact(text)
        assert "PLANTED" not in out, f"{kind}: {out[max(0, out.find('PLANTED') - 80):out.find('PLANTED') + 40]!r}"
        assert redact(out) == out, "redacting again changed the text"

    run()


INVENTORY = """\
profile = "spark-pair"

[[nodes]]
name = "spark-a"
host = "192.168.1.10"
user = "learner"
key_file = "~/.ssh/id_ed25519"

[[nodes]]
name = "spark-b"
host = "192.168.1.11"
user = "learner"
key_file = "~/.ssh/id_ed25519"

[desktop]
psu_watts = 1000
circuit_volts = 120
circuit_amps = 15

[serve]
model = "openai/gpt-oss-120b"
port = 8000
"""


def test_fuzz_inventory(tmp_path: Path) -> None:
    path = tmp_path / "inventory.toml"

    @FUZZ
    @given(st.data())
    def run(data: st.DataObject) -> None:
        CASES["inventory file"] += 1
        path.write_text(mutate_text(INVENTORY, DrawChooser(data.draw)), encoding="utf-8", errors="surrogatepass")
        try:
            load_inventory(path)
        except InventoryError as e:
            assert str(e).strip() and "Traceback" not in str(e)

    run()
