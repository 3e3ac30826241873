"""The learner's view in a real browser: JupyterLab in headless Chromium runs lesson 1's "Check my
cluster" cell and shows the verdict table (the ipywidgets panel of grader.notebook).

Debian's Chromium (/usr/bin/chromium) driven by Playwright's Python package (its driver ships in the
wheel; no browser is downloaded: never `playwright install`). JupyterLab runs on loopback with a
token, in its own process group, in a temporary folder holding a copy of the released labs/lesson1/,
and is stopped by process group. As root the test brings the simulated cluster up (live mode: the
panel probes spark-a and spark-b and writes evidence in the temporary folder) and down at the end;
otherwise it runs in replay mode (recorded/lesson1.json), which is what Binder shows. The screenshot
is kept in the test's tmp folder and copied to /tmp/clusterlab-browser.png to look at.

Running it by hand as root, hold the sim lock:
``flock /tmp/clusterlab-sim.lock .venv/bin/python -m pytest tests/test_browser.py``.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = Path("/usr/bin/chromium")
LESSON = "lesson1"
SHOT = Path("/tmp/clusterlab-browser.png")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run", "--disable-quic"]
"""shared/research/browser.md: without the background-networking flags Chromium keeps calling hosts it cannot reach."""

sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is in the test extra: pip install -e '.[test]'")
pytestmark = [
    pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian's chromium is not installed (apt-get install chromium)"),
    pytest.mark.skipif(not (ROOT / "labs" / LESSON / f"{LESSON}.ipynb").is_file(),
                       reason=f"labs/{LESSON}/{LESSON}.ipynb not generated yet (bash scripts/generate_labs.sh)"),
]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def sim_mode():
    """``"live"`` with the sim up (root), else ``"replay"``; the sim is brought down afterwards."""
    if os.geteuid() != 0:
        yield "replay"
        return
    from grader import sim

    try:
        sim.up([])
        yield "live"
    finally:
        sim.down()


@pytest.fixture
def lab_server(tmp_path):
    """JupyterLab on 127.0.0.1 serving a copy of labs/lesson1; yields (base URL, token, folder)."""
    work = tmp_path / "course"
    shutil.copytree(ROOT / "labs" / LESSON, work / LESSON, ignore=shutil.ignore_patterns("evidence"))
    port, token = free_port(), secrets.token_hex(16)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CLUSTERLAB_", "NBGRADER_"))}
    env.update(JUPYTER_CONFIG_DIR=str(tmp_path / "jconfig"), JUPYTER_RUNTIME_DIR=str(tmp_path / "jruntime"),
               IPYTHONDIR=str(tmp_path / "ipython"), PATH=f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}")
    # no "official Jupyter news" toast over the screenshot
    (tmp_path / "jconfig" / "labconfig").mkdir(parents=True)
    (tmp_path / "jconfig" / "labconfig" / "page_config.json").write_text(
        json.dumps({"disabledExtensions": {"@jupyterlab/apputils-extension:announcements": True}}))
    log = open(tmp_path / "jupyter.log", "w")
    proc = subprocess.Popen(
        [str(Path(sys.executable).parent / "jupyter"), "lab", "--allow-root", "--no-browser", "--ip=127.0.0.1",
         f"--port={port}", f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={work}",
         "--ServerApp.open_browser=False"],
        cwd=work, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                with urllib.request.urlopen(f"{base}/lab?token={token}", timeout=5) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"JupyterLab did not answer on {base} within 90 s:\n{(tmp_path / 'jupyter.log').read_text()[-3000:]}")
            time.sleep(1)
        yield base, token, work / LESSON
    finally:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=20)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        log.close()


def dismiss_dialogs(page, seen: list[str]) -> None:
    """Close any JupyterLab dialog in the way (Escape), keeping its text in ``seen`` for the report."""
    dialog = page.locator(".jp-Dialog")
    while dialog.count():
        seen.append(dialog.first.inner_text()[:300])
        page.keyboard.press("Escape")
        page.wait_for_timeout(300)
        if len(seen) > 10:
            raise AssertionError(f"a dialog will not close: {seen[-1]!r}")


def run_cell(page, text: str, seen: list[str]) -> None:
    """Run the first code cell whose source contains ``text`` (click, Shift+Enter) and wait until the
    kernel has taken it (its prompt shows ``[*]`` or ``[n]``); retried while the kernel is still starting."""
    cell = page.locator(".jp-CodeCell", has=page.locator(".jp-InputArea-editor", has_text=text)).first
    prompt = cell.locator(".jp-InputPrompt")
    for _attempt in range(6):
        dismiss_dialogs(page, seen)
        cell.locator(".jp-InputArea-editor").click(timeout=10_000)
        page.keyboard.press("Shift+Enter")
        for _ in range(20):
            if re.search(r"\[(\*|\d+)\]", prompt.inner_text()):
                return
            page.wait_for_timeout(500)
    raise AssertionError(f"the cell with {text!r} never started running (dialogs seen: {seen})")


def test_check_my_cluster_shows_the_verdict_table(sim_mode, lab_server, tmp_path):
    base, token, folder = lab_server
    shot = tmp_path / f"{LESSON}.png"
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.goto(f"{base}/lab/tree/{LESSON}/{LESSON}.ipynb?token={token}")
            page.wait_for_selector(".jp-Notebook .jp-CodeCell", timeout=90_000)
            # the learner's JupyterLab (scripts/install.sh's default: jupyter_tools.sh learner) shows none of
            # nbgrader's instructor tools: no Nbgrader menu, no Create Assignment sidebar
            config = json.loads(page.locator("#jupyter-config-data").text_content())
            menus = page.locator(".lm-MenuBar-itemLabel").all_inner_texts()
            create = page.locator('[title*="Create Assignment"], [data-id*="create-assignment"]').count()
            dialogs: list[str] = []
            run_cell(page, "import notebook as cl", dialogs)
            run_cell(page, "check_my_cluster(", dialogs)
            try:
                table = page.wait_for_selector(f"#clusterlab-verdicts-{LESSON}", timeout=180_000)
            except sync_api.TimeoutError:
                page.screenshot(path=str(shot))
                shutil.copy(shot, SHOT)
                raise AssertionError(f"no verdict table after 180 s; the page is in {SHOT}; dialogs: {dialogs}") from None
            table.evaluate("e => e.scrollIntoView({block: 'center'})")
            page.wait_for_timeout(500)
            page.screenshot(path=str(shot))
            print("dialogs closed on the way:", dialogs)
            n_rows = page.locator(f"#clusterlab-verdicts-{LESSON} tr").count()
            text = page.locator(f"#clusterlab-verdicts-{LESSON}").inner_text()
            panel = page.locator(".jp-OutputArea-output", has=page.locator(f"#clusterlab-verdicts-{LESSON}")).first.inner_text()
        finally:
            browser.close()
    shutil.copy(shot, SHOT)
    assert shot.stat().st_size > 10_000
    instructor = {f"@jupyter/nbgrader:{p}" for p in ("formgrader", "create-assignment", "course-list",
                                                     "assignment-list", "menu")}
    assert instructor <= set(config.get("disabledExtensions") or []), config.get("disabledExtensions")
    assert menus and "Nbgrader" not in menus and create == 0, (menus, create)
    import tomllib

    ids = [c["id"] for c in tomllib.loads((ROOT / "checks" / f"{LESSON}.toml").read_text())["check"]]
    assert n_rows == len(ids) + 1, f"one row per check plus the header: {n_rows} rows for {len(ids)} checks"
    for check_id in ids:
        assert check_id in text, f"{check_id} missing from the verdict table: {text[:500]}"
    if sim_mode == "live":
        assert "evidence:" in panel and (folder / "evidence" / f"{LESSON}.json").is_file(), panel[:500]
        assert text.count("PASS") == len(ids), f"the healthy sim should pass every check: {text}"
    else:
        assert "replay: no cluster inventory was found" in panel, panel[:500]
