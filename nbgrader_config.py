"""nbgrader's configuration for this course (the instructor side; see README "Instructors").

``solutions/`` is nbgrader's source folder and ``labs/`` its release folder (generated, committed).
Everything nbgrader writes while grading (gradebook, submitted, autograded, feedback, exchange)
lives outside the repository, under ``$CLUSTERLAB_COURSE_DIR`` (default
``~/.local/share/clusterlab-course``). Why each setting: docs/research/grading.md §2.7, §2.12.
"""

import os
import sys
from pathlib import Path

c = get_config()  # noqa: F821 - nbgrader provides it

try:  # the lessons are named once, in grader/lessons.py (it imports nothing else of the grader)
    from grader import lessons
except ImportError:  # nbgrader run without clusterlab installed: read the registry beside this file
    import importlib.util

    _spec = importlib.util.spec_from_file_location(
        "clusterlab_lessons", Path(__file__).resolve().parent / "grader" / "lessons.py")
    lessons = importlib.util.module_from_spec(_spec)
    sys.modules[_spec.name] = lessons  # dataclasses look their module up while the file runs
    _spec.loader.exec_module(lessons)

ASSIGNMENTS = lessons.names()
work = Path(os.environ.get("CLUSTERLAB_COURSE_DIR", "~/.local/share/clusterlab-course")).expanduser()
# nbgrader's sqlite cannot create the gradebook in a folder that does not exist: it then says "There was an
# error accessing the nbgrader database" *after* `generate_assignment --force` removed the release folder
# (labs/<lesson>), so the course folder is made here, before nbgrader touches anything
work.mkdir(parents=True, exist_ok=True)
# nbgrader makes a new gradebook by running `alembic` found on PATH: the one beside this nbgrader (.venv/bin),
# so that `.venv/bin/nbgrader ...` works as printed without activating the environment
_bin = str(Path(sys.executable).parent)
if _bin not in os.environ.get("PATH", "").split(os.pathsep):
    os.environ["PATH"] = _bin + os.pathsep + os.environ.get("PATH", "")

c.CourseDirectory.course_id = "clusterlab"
c.CourseDirectory.root = str(Path(__file__).resolve().parent)
c.CourseDirectory.source_directory = "solutions"
c.CourseDirectory.release_directory = "labs"
c.CourseDirectory.db_url = f"sqlite:///{work / 'gradebook.db'}"
c.CourseDirectory.submitted_directory = str(work / "submitted")
c.CourseDirectory.autograded_directory = str(work / "autograded")
c.CourseDirectory.feedback_directory = str(work / "feedback")
c.CourseDirectory.solution_directory = str(work / "solution")
c.Exchange.root = str(work / "exchange")  # never nbgrader's world-writable default (§2.12 trap 6)

# A submission's own grader/ or checks/ folder would shadow the installed grader and its ranges
# (the kernel imports from the notebook's folder first): never copy them into autograded/.
# nbgrader matches these against each file's name: a learner's grader.py, grader/ package,
# sitecustomize.py or .pth file would be imported before the installed ones. Submissions are the
# notebook and evidence/*.json; no .py file of a learner's is needed to grade them.
c.CourseDirectory.ignore = [".ipynb_checkpoints", "*.pyc", "__pycache__", "feedback", "grader", "grader.*",
                            "checks", "checks.*", "*.py", "*.pth", "*.so", "sitecustomize*", "usercustomize*"]

# Autograde copies every file of solutions/<lab>/ over the learner's: never the learner's evidence.
c.Autograde.exclude_overwriting = {lab: [lessons.get(lab).evidence_file] for lab in ASSIGNMENTS}

# Which evidence profiles earn machine-check points, per lesson (the kernels inherit these variables;
# every grade cell prints the setting). CLUSTERLAB_PROFILES_<LESSON> (LESSON1, LESSON2, LESSON3, LAB)
# overrides CLUSTERLAB_PROFILES; unset: all four. The profile must also be proven by the evidence's own
# outputs (a spark-pair shows two GB10s, a dual-gpu-desktop two GPUs in nvidia-smi, the sim its
# markers), and the labs' replay files (recorded/<lesson>.json) never earn points. A check that does
# not apply to a profile earns nothing there: lesson 1's checks need two nodes (spark-pair or sim),
# lesson 3's a dual-gpu-desktop. For a class with one Spark each, for example:
# os.environ["CLUSTERLAB_PROFILES_LESSON1"] = "spark-pair,sim"          # one-Spark learners use the sim
# os.environ["CLUSTERLAB_PROFILES_LESSON3"] = "dual-gpu-desktop"
# os.environ["CLUSTERLAB_PROFILES_LAB"] = "spark-pair,single-spark,dual-gpu-desktop"
#
# Sim evidence of lesson 1 earns points only when the sim's record sealed into it shows the learner built
# the sim at lesson 1's start (`clusterlab sim up`) and neither `clusterlab solve` nor a ready-made
# `sim up --fault/--serve` did the work since (grader.provenance.sim_work_problem). To lift that rule:
# os.environ["CLUSTERLAB_SIM_OWN_WORK"] = "off"

c.Execute.timeout = 120  # seconds per cell; grade cells read files, nothing probes under nbgrader
# seconds for a notebook's kernel to start (nbclient's default: 60). A kernel that starts slowly on a grading
# machine busy with other work is not a failed submission; the suite's other half, run at nice 19 beside vLLM on
# two cores, once reported a whole student as an error with no traceback kept, which a slow start would explain
c.Execute.startup_timeout = 300
