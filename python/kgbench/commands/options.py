"""Option handling shared by ``kgbench evaluate`` (:mod:`~kgbench.commands.evaluate`) and
``kgbench run`` (:mod:`~kgbench.commands.run`)."""

from __future__ import annotations


def neo4j_version_option(requested: str | None) -> str | None:
    """The offered Neo4j release ``--neo4j-version`` names
    (:func:`kgbench.neo4j.versions.resolve_version`), or None when the option was not given
    (the disposable server then runs the default release, the 5.26 LTS). :mod:`kgbench.neo4j`
    is imported only when the option was given.

    Raises:
        UnknownNeo4jVersionError: a release kgbench does not offer (one line listing them).
    """
    if requested is None:
        return None
    from kgbench.neo4j.versions import resolve_version

    return resolve_version(requested)
