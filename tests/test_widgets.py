"""The lesson-3 ipywidgets calculators build without a display, and changing an input changes the result."""

from __future__ import annotations

import subprocess
import sys


from grader.widgets import calculators as calc


def test_module_imports_without_ipywidgets_or_display():
    code = ("import sys; sys.modules['ipywidgets'] = None; import grader.widgets.calculators as c; "
            "print(callable(c.power_calculator))")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env={"PATH": ""}, check=False)
    assert res.returncode == 0 and res.stdout.strip() == "True", res.stderr


def test_pcie_calculator():
    box = calc.pcie_calculator()
    assert "31.51 GB/s" in box.output.value and "23.6-27.1 GB/s" in box.output.value
    box.inputs["lanes"].value = 4
    assert "7.88 GB/s" in box.output.value and "31.51" not in box.output.value
    box.inputs["gen"].value = 6
    assert "UNVERIFIED" in box.output.value


def test_traffic_calculator():
    box = calc.traffic_calculator()
    before = box.output.value
    assert "160 × 16,384 B (16 KiB)" in before and "2.669 ms" in before and "≤ 44.4 tok/s" in before
    box.inputs["link"].value = "pcie4-p2p"
    assert "0.258 ms" in box.output.value and box.output.value != before
    box.inputs["model"].value = "gpt-oss-20b"
    assert (box.inputs["hidden"].value, box.inputs["layers"].value) == (2880, 24)
    assert "48 × 5,760 B" in box.output.value


def test_memory_calculator():
    box = calc.memory_calculator()
    assert "does not fit" in box.output.value
    box.inputs["context"].value = 4096
    assert ">fits<" in box.output.value
    box.inputs["gpu"].value = "rtx_pro_6000"
    box.inputs["context"].value = 131072
    assert ">fits<" in box.output.value and "96 GB (trust C)" in box.output.value


def test_power_calculator():
    box = calc.power_calculator()
    v = box.output.value
    assert "2 × 450 + 253 + 100 = 1253 W" in v and "within its rating" in v and "2600 W" in v
    assert "1392 W at 90% efficiency" in v and "4,750 BTU/h" in v
    box.inputs["gpu"].value = "rtx5090"
    assert "= 1503 W" in box.output.value and "OVER its rating" in box.output.value
    box.inputs["limit_w"].value = 400
    assert "2 × 400 + 253 + 100 = 1153 W" in box.output.value and "within its rating" in box.output.value
    box.inputs["volts"].value = 230
    box.inputs["amps"].value = 16
    assert "2944 W continuous" in box.output.value and "UNVERIFIED" in box.output.value
    assert "not persistent" in box.children[-1].children[0].value


def test_impossible_input_shows_the_error_instead_of_raising():
    import ipywidgets

    lanes = ipywidgets.IntText(value=16)
    box = calc._assemble("t", {"lanes": lanes}, lambda: f"{calc.pcie.link_bandwidth(4, lanes.value).gbyte_s:.2f}")
    assert box.output.value == "31.51"
    lanes.value = 3
    assert "width must be one of" in box.output.value and "color:#cf222e" in box.output.value
    lanes.value = 8
    assert box.output.value == "15.75"
