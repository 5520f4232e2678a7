"""Build fpref's Python extension from the repository's own C sources.

The extension compiles libfpref's sources (the list is read from
../Makefile.am's libfpref_la_SOURCES, so that it never drifts from the
autotools build) together with src/fpref/_fpref.c, and links GNU MPFR and
GMP.  No configure run is needed: the one thing the sources take from
config.h, PACKAGE_VERSION, is read from ../configure.ac's AC_INIT and given
as a macro (include/config.h stands in for the generated header).

The repository above this folder must be there at build time: `pip install
./python` from a clone builds in place, so it is.  FPREF_SOURCE_DIR names
another checkout.
"""
import os
import re
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py

here = Path(__file__).resolve().parent
top = Path(os.environ.get("FPREF_SOURCE_DIR", here.parent)).resolve()
makefile = top / "Makefile.am"
configure = top / "configure.ac"
if not makefile.is_file() or not configure.is_file():
    raise SystemExit(
        f"fpref: the C sources are not at {top} (Makefile.am, configure.ac): build the package from "
        "the fpref repository (pip install ./python), or set FPREF_SOURCE_DIR to a checkout")


def library_sources():
    text = makefile.read_text().replace("\\\n", " ")
    m = re.search(r"^libfpref_la_SOURCES\s*=(.*)$", text, re.M)
    if not m:
        raise SystemExit(f"fpref: no libfpref_la_SOURCES in {makefile}")
    return [str(top / s) for s in m.group(1).split() if s.endswith(".c")]


def version():
    m = re.search(r"AC_INIT\(\[fpref\],\s*\[([^\]]+)\]", configure.read_text())
    if not m:
        raise SystemExit(f"fpref: no AC_INIT version in {configure}")
    return m.group(1)


VERSION = version()

extension = Extension(
    "fpref._fpref",
    sources=["src/fpref/_fpref.c"],
    include_dirs=[str(here / "include"), str(top)] + [str(top / d) for d in ("formats", "ref", "emu", "golden")],
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
            ext.depends = ext.depends + [str(h) for d in ("", "formats", "ref", "emu", "golden")
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


setup(version=VERSION, ext_modules=[extension],
      cmdclass={"build_ext": build_ext_with_library, "build_py": build_py_with_suites})
