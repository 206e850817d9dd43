"""Old names that keep working for one release, with a :class:`FutureWarning`.

The API reference's naming table lists the renames; each goes through these helpers so that
every old name warns the same way.
"""

from __future__ import annotations

import warnings

__all__ = ["DEPRECATED", "module_alias", "renamed_attribute", "renamed_parameter", "warn_renamed"]

#: Default of a renamed constructor parameter: tells "not given" from any value a user passes.
DEPRECATED = "deprecated"
#: The release that removes the old names.
REMOVAL = "kmlib 0.3"


def warn_renamed(old, new, owner, stacklevel=3):
    """Warn that ``owner``'s ``old`` is now called ``new``."""
    warnings.warn(
        f"{owner}: {old} is renamed {new}; {old} will be removed in {REMOVAL}",
        FutureWarning,
        stacklevel=stacklevel,
    )


def renamed_parameter(estimator, old, new):
    """``(value, name)`` of parameter ``new``, or of the deprecated ``old`` if the user set it.

    The name is the one the user wrote, for the messages of the checks that follow.
    """
    value = getattr(estimator, old)
    if isinstance(value, str) and value == DEPRECATED:
        return getattr(estimator, new), new
    warn_renamed(old, new, type(estimator).__name__, stacklevel=4)
    return value, old


def renamed_attribute(old, new):
    """A read-only property ``old`` that warns and returns the fitted attribute ``new``."""

    def read(self):
        warn_renamed(old, new, type(self).__name__)
        return getattr(self, new)

    return property(read, doc=f"Deprecated name of ``{new}`` (removed in {REMOVAL}).")


def module_alias(module_name, name, renames, namespace):
    """A module ``__getattr__`` body: the new object for an old name, with a warning."""
    if name in renames:
        warn_renamed(name, renames[name], module_name)
        return namespace[renames[name]]
    raise AttributeError(f"module {module_name!r} has no attribute {name!r}")
