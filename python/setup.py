"""Build fpref's Python extension from the repository's own C sources.

The extension compiles libfpref's sources (the lists are read from
../Makefile.am's per-layer libfpref_LAYER_la_SOURCES, so that they never
drift from the autotools build) together with src/fpref/_fpref.c, and links GNU MPFR and
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

here = Path(__file__).resolve().parent
top = Path(os.environ.get("FPREF_SOURCE_DIR", here.parent)).resolve()
makefile = top / "Makefile.am"
configure = top / "configure.ac"
if not makefile.is_file() or not configure.is_file():
    raise SystemExit(
        f"fpref: the C sources are not at {top} (Makefile.am, configure.ac): build the package from "
        "the fpref repository (pip install ./python), or set FPREF_SOURCE_DIR to a checkout")


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

extension = Extension(
    "fpref._fpref",
    sources=["src/fpref/_fpref.c"],
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


setup(version=VERSION, ext_modules=[extension], cmdclass={"build_ext": build_ext_with_library})
