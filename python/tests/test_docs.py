"""The examples of docs/python.md and of the docstrings run as tests."""
import doctest
from pathlib import Path

import pytest

import fpref
import fpref._draw
import fpref._golden
import fpref._scaling
import fpref.testing

DOC = Path(__file__).resolve().parents[2] / "docs" / "python.md"


@pytest.mark.parametrize("module", [fpref, fpref.testing, fpref._scaling, fpref._golden, fpref._draw])
def test_docstrings(module):
    r = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert r.attempted > 0 and r.failed == 0


def test_docs_python_md():
    if not DOC.is_file():
        pytest.skip("docs/python.md is not beside this checkout")
    r = doctest.testfile(str(DOC), module_relative=False, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert r.attempted > 0 and r.failed == 0
