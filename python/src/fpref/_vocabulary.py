"""The keywords the vocabulary replaced (docs/vocabulary.md): a function
decorated with renamed(old="new") still takes old=, as new=, with a
DeprecationWarning naming the replacement, as the command's old options
print a note."""
from __future__ import annotations

import functools
import warnings
from typing import Any, Callable, TypeVar

F = TypeVar("F", bound=Callable[..., Any])


def renamed(**old_to_new: str) -> Callable[[F], F]:
    def wrap(fn: F) -> F:
        @functools.wraps(fn)
        def call(*args: Any, **kw: Any) -> Any:
            __tracebackhide__ = True  # pytest: the failure is the caller's, not this frame's
            for old, new in old_to_new.items():
                if old in kw:
                    if new in kw:
                        raise TypeError(f"{fn.__name__}() got {old}= and {new}=, the old and the new spelling of one "
                                        f"keyword: give {new}=")
                    warnings.warn(f"fpref.{fn.__name__}: {old}= is now {new}= (the old keyword still works; "
                                  "docs/vocabulary.md)", DeprecationWarning, stacklevel=2)
                    kw[new] = kw.pop(old)
            return fn(*args, **kw)
        return call  # type: ignore[return-value]
    return wrap
