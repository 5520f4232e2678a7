"""Build fpref's Python extension from the repository's own C sources.

The extension compiles libfpref's sources (the lists are read from
../Makefile.am's per-layer libfpref_LAYER_la_SOURCES, so that they never
drift from the autotools build) together with the extension's own pieces,
src/fpref/_fpref*.c (EXTENSION_SOURCES) and their header _fpref.h, and
links GNU MPFR and GMP.  No configure run is needed: the one thing the
sources take from config.h, PACKAGE_VERSION, is read from ../configure.ac's
AC_INIT and given as a macro (include/config.h stands in for the generated
header).

The C sources are found, in this order: FPREF_SOURCE_DIR (a checkout); the
repository above this folder (`pip install ./python` from a clone builds in
place); csrc/ beside this file, which an sdist (`python -m build --sdist
python`, or `python setup.py sdist` here) carries: the sdist command copies
Makefile.am, configure.ac, the library's sources and headers and the golden
suites into it, so that the archive builds anywhere.
"""
import os
import re
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py
from setuptools.command.sdist import sdist

here = Path(__file__).resolve().parent


def _has_sources(d: Path) -> bool:
    return (d / "Makefile.am").is_file() and (d / "configure.ac").is_file()


def source_tree() -> Path:
    if os.environ.get("FPREF_SOURCE_DIR"):
        candidates = [Path(os.environ["FPREF_SOURCE_DIR"])]
    else:
        candidates = [here.parent, here / "csrc"]
    for d in candidates:
        if _has_sources(d):
            return d.resolve()
    raise SystemExit(
        f"fpref: the C sources are not at {' or '.join(str(d) for d in candidates)} (Makefile.am, configure.ac): "
        "build the package from the fpref repository (pip install ./python), from an sdist made by "
        "`python -m build --sdist python` (it carries them in csrc/), or set FPREF_SOURCE_DIR to a checkout")


top = source_tree()
makefile = top / "Makefile.am"
configure = top / "configure.ac"
HEADER_DIRS = ("", "formats", "ref", "emu", "golden")


LAYERS = ("formats", "ref", "emu", "golden")


def library_sources():
    text = makefile.read_text().replace("\\\n", " ")
    sources = []
    for layer in LAYERS:
        m = re.search(rf"^libfpref_{layer}_la_SOURCES\s*=(.*)$", text, re.M)
        if not m:
            raise SystemExit(f"fpref: no libfpref_{layer}_la_SOURCES in {makefile}")
        sources += [str(top / s) for s in m.group(1).split() if s.endswith(".c")]
    return sources


def version():
    m = re.search(r"AC_INIT\(\[fpref\],\s*\[([^\]]+)\]", configure.read_text())
    if not m:
        raise SystemExit(f"fpref: no AC_INIT version in {configure}")
    return m.group(1)


VERSION = version()

# The extension's own C files, one per topic (_fpref.c: the module's table
# and init), and the header they share; MANIFEST.in carries the header
# into an sdist (setuptools carries the sources).
EXTENSION_SOURCES = ["src/fpref/_fpref.c", "src/fpref/_fpref_convert.c", "src/fpref/_fpref_gemm.c",
                     "src/fpref/_fpref_quantize.c", "src/fpref/_fpref_golden.c", "src/fpref/_fpref_order.c",
                     "src/fpref/_fpref_draw.c", "src/fpref/_fpref_probe.c"]
EXTENSION_HEADERS = ["src/fpref/_fpref.h"]

extension = Extension(
    "fpref._fpref",
    sources=EXTENSION_SOURCES,
    depends=EXTENSION_HEADERS,
    include_dirs=[str(here / "include"), str(top)] + [str(top / d) for d in LAYERS],
    define_macros=[("PACKAGE_VERSION", f'"{VERSION}"'), ("_POSIX_C_SOURCE", "200809L")],
    libraries=["mpfr", "gmp", "m"],
    extra_compile_args=["-std=c11", "-Wall", "-Wextra", "-pthread"],
    extra_link_args=["-pthread"],
)



class build_ext_with_library(build_ext):
    """Adds the library's sources when the extension is built: they lie
    outside this folder, which setuptools' manifest (egg_info) refuses to
    list, and no sdist of this folder alone could carry them anyway."""

    def build_extensions(self):
        for ext in self.extensions:
            ext.sources = ext.sources + [s for s in library_sources() if s not in ext.sources]
            # so that a changed header rebuilds the extension (setuptools compares times)
            ext.depends = ext.depends + [str(h) for d in ("",) + LAYERS
                                         for h in sorted((top / d).glob("*.h"))]
        super().build_extensions()


class build_py_with_suites(build_py):
    """Carries golden/suites/*.suite into the package (fpref/suites), so that
    fpref.gen finds the suites by name wherever the package is installed."""

    def run(self):
        super().run()
        dest = Path(self.build_lib) / "fpref" / "suites"
        dest.mkdir(parents=True, exist_ok=True)
        for suite in sorted((top / "golden" / "suites").glob("*.suite")):
            self.copy_file(str(suite), str(dest / suite.name))


class sdist_with_library(sdist):
    """An sdist that builds outside the repository: the library's sources
    (Makefile.am's list), every header of the source folders, Makefile.am,
    configure.ac and the golden suites, copied into csrc/ of the archive."""

    def make_release_tree(self, base_dir, files):
        super().make_release_tree(base_dir, files)
        dest = Path(base_dir) / "csrc"
        wanted = [Path(s).relative_to(top) for s in library_sources()]
        wanted += [h.relative_to(top) for d in HEADER_DIRS for h in sorted((top / d).glob("*.h"))
                   if h.name != "config.h"]  # configure's output, if there: include/config.h stands in
        wanted += [Path("Makefile.am"), Path("configure.ac")]
        wanted += [p.relative_to(top) for p in sorted((top / "golden" / "suites").glob("*.suite"))]
        for rel in wanted:
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            self.copy_file(str(top / rel), str(dest / rel))


setup(version=VERSION, ext_modules=[extension],
      cmdclass={"build_ext": build_ext_with_library, "build_py": build_py_with_suites, "sdist": sdist_with_library})
