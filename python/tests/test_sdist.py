"""The sdist carries the C sources it builds from (csrc/), so that it
builds outside the repository: every source of Makefile.am's
libfpref_la_SOURCES, every header, Makefile.am, configure.ac and the
golden suites.  (Building the archive itself takes half a minute; the
notes of issue 15 record it done by hand: pip install fpref-*.tar.gz in a
fresh venv outside the checkout.)"""
import re
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

TOP = Path(__file__).resolve().parents[2]


def test_sdist_carries_the_library(tmp_path):
    if not (TOP / "Makefile.am").is_file():
        pytest.skip("not in a checkout")
    pkg = tmp_path / "python"
    shutil.copytree(TOP / "python", pkg, ignore=shutil.ignore_patterns("build", "dist", "csrc", "*.egg-info"))
    env = {"FPREF_SOURCE_DIR": str(TOP), "PATH": "/usr/bin:/bin"}
    r = subprocess.run([sys.executable, "setup.py", "-q", "sdist", "-d", str(tmp_path / "dist")], cwd=pkg, env=env,
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    (archive,) = (tmp_path / "dist").glob("fpref-*.tar.gz")
    with tarfile.open(archive) as t:
        names = {n.split("/", 1)[1] for n in t.getnames() if "/" in n}
    text = (TOP / "Makefile.am").read_text().replace("\\\n", " ")
    sources = re.search(r"^libfpref_la_SOURCES\s*=(.*)$", text, re.M).group(1).split()
    want = {f"csrc/{s}" for s in sources}
    want |= {f"csrc/{h.relative_to(TOP)}" for d in ("formats", "ref", "emu", "golden") for h in (TOP / d).glob("*.h")}
    want |= {"csrc/fpref.h", "csrc/Makefile.am", "csrc/configure.ac", "include/config.h", "setup.py"}
    want |= {f"src/fpref/{p.name}" for p in (TOP / "python" / "src" / "fpref").glob("_fpref*.[ch]")}
    want |= {f"csrc/golden/suites/{p.name}" for p in (TOP / "golden" / "suites").glob("*.suite")}
    assert not want - names, sorted(want - names)
    assert "csrc/config.h" not in names  # configure's output stays out


def test_build_without_sources_says_why(tmp_path):
    pkg = tmp_path / "python"
    shutil.copytree(TOP / "python", pkg, ignore=shutil.ignore_patterns("build", "dist", "csrc", "*.egg-info"))
    r = subprocess.run([sys.executable, "setup.py", "--version"], cwd=pkg, env={"PATH": "/usr/bin:/bin"},
                       capture_output=True, text=True)
    assert r.returncode != 0 and "the C sources are not at" in r.stderr and "csrc" in r.stderr
