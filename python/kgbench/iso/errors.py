"""Errors raised by :mod:`kgbench.iso` (all subclass :class:`kgbench.errors.InputError`,
hence :class:`ValueError`)."""

from __future__ import annotations

from kgbench.errors import InputError


class InvalidAnswerSubgraph(InputError):
    """The answer subgraph is not a valid GTSQA answer tree (seed Appendix A.1-A.2).

    Attributes:
        defects: names of the defects found, in a fixed order, among ``empty``,
            ``no_seeds``, ``answer_missing``, ``missing_seeds``, ``answer_is_seed``,
            ``disconnected``, ``cycle``, ``hanging_branches``, ``internal_seeds``
            (see :data:`kgbench.iso.DEFECTS`).
        index: position of the subgraph in a batch, or ``None`` for a single call.
    """

    def __init__(self, message: str, defects: tuple[str, ...] = (), index: int | None = None):
        super().__init__(message)
        self.defects = tuple(defects)
        self.index = index


class InvalidIsomorphismType(InputError):
    """A malformed GTSQA isomorphism identifier.

    Attributes:
        identifier: the identifier as given.
        offset: character offset of the first problem.
    """

    def __init__(self, message: str, identifier: str = "", offset: int = 0):
        super().__init__(message)
        self.identifier = identifier
        self.offset = offset


class NotATreeError(InputError):
    """:func:`kgbench.iso.canonical_form` got a graph that is not a tree
    (disconnected, or with a cycle, self-loop or parallel edge)."""
