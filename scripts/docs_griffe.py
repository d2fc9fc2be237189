"""A griffe extension for the Python reference (mkdocs.yml, mkdocstrings' `extensions`).

The package's docstrings are written for Python's own tools and use Sphinx roles
(:class:`leaseq.Worker`, :meth:`Client.queue`, :mod:`leaseq.aio`). mkdocstrings renders a
docstring as Markdown, where a role shows as typed (":class:" before the name); each role
becomes the inline code it names.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

ROLE = re.compile(r":(?:py:)?(?:class|meth|func|mod|attr|data|exc|obj|const):`~?([^`]+)`")


def _rewrite(obj: griffe.Object) -> None:
    if obj.docstring is not None:
        obj.docstring.value = ROLE.sub(lambda m: f"`{m.group(1)}`", obj.docstring.value)
    for member in obj.members.values():
        if not member.is_alias:  # an alias's target is rewritten where it is defined
            _rewrite(member)


class SphinxRolesAsCode(griffe.Extension):
    """Rewrites :role:`target` to `target` in every docstring of a package once it is loaded
    (the package's own docstring included, which griffe's per-member events do not reach)."""

    def on_package(self, *, pkg: griffe.Module, **kwargs: Any) -> None:
        _rewrite(pkg)
