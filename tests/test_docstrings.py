"""Every public name of kgbench's Python API has a docstring (issue 33).

The API reference of the documentation site (``docs/reference/api/``, mkdocstrings) is made
from these docstrings, so a public function, class or method without one is a hole in it.

Public means: in a public package of kgbench (:data:`PUBLIC_PACKAGES`) or any of its modules
whose name does not start with ``_``, the names of the module's ``__all__`` when it has one,
else the functions and classes the module defines under a name without a leading ``_``; and of
each such class, the methods, properties, class and static methods it defines under such a
name. A class needs its own docstring (a dataclass's generated ``Name(field, ...)`` text does
not count); a method may inherit its base class's.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import pkgutil
from collections.abc import Iterator
from types import ModuleType
from typing import Any

#: The packages of the API reference (docs/reference/api/), as ``kgbench.NAME``.
PUBLIC_PACKAGES = (
    "convert",
    "neo4j",
    "generate",
    "evaluate",
    "iso",
    "noise",
    "rdb",
    "predict",
    "llm",
    "report",
)


def _modules() -> Iterator[ModuleType]:
    for name in PUBLIC_PACKAGES:
        package = importlib.import_module(f"kgbench.{name}")
        yield package
        for info in pkgutil.walk_packages(package.__path__, f"{package.__name__}."):
            if not any(part.startswith("_") for part in info.name.split(".")):
                yield importlib.import_module(info.name)


def _public_names(module: ModuleType) -> list[str]:
    if hasattr(module, "__all__"):
        return list(module.__all__)
    return [
        name
        for name, value in vars(module).items()
        if not name.startswith("_")
        and (inspect.isclass(value) or inspect.isfunction(value))
        and value.__module__ == module.__name__
    ]


def _has_own_docstring(obj: Any) -> bool:
    doc = obj.__dict__.get("__doc__") if inspect.isclass(obj) else obj.__doc__
    if not doc or not doc.strip():
        return False
    # dataclasses write "Name(field: type, ...)" into a class without a docstring
    return not (
        inspect.isclass(obj)
        and dataclasses.is_dataclass(obj)
        and doc.startswith(obj.__name__ + "(")
    )


def _undocumented_members(qualname: str, cls: type) -> Iterator[str]:
    for name, value in vars(cls).items():
        if name.startswith("_"):
            continue
        if isinstance(value, property):
            documented = bool(value.__doc__ and value.__doc__.strip())
        elif isinstance(value, (classmethod, staticmethod)) or inspect.isroutine(value):
            documented = bool(inspect.getdoc(getattr(cls, name)))
        else:
            continue  # a class attribute, a dataclass field, an enum member
        if not documented:
            yield f"{qualname}.{name}"


def undocumented(modules: list[ModuleType]) -> tuple[list[str], int]:
    """The public names of ``modules`` without a docstring, and how many names were checked."""
    missing: list[str] = []
    seen: set[int] = set()
    checked = 0
    for module in modules:
        for name in _public_names(module):
            value = getattr(module, name)
            if not (inspect.isclass(value) or inspect.isroutine(value)) or id(value) in seen:
                continue  # constants are documented by the module; re-exports checked once
            seen.add(id(value))
            checked += 1
            qualname = f"{module.__name__}.{name}"
            if not _has_own_docstring(value):
                missing.append(qualname)
            if inspect.isclass(value):
                missing.extend(_undocumented_members(qualname, value))
    return missing, checked


def test_every_public_name_has_a_docstring() -> None:
    modules = list(_modules())
    missing, checked = undocumented(modules)
    assert not missing, f"{len(missing)} public names without a docstring:\n" + "\n".join(missing)
    # the walk reached the whole API: every package, its submodules and the native re-exports
    assert {m.__name__ for m in modules} >= {f"kgbench.{p}" for p in PUBLIC_PACKAGES}
    assert "kgbench.rdb.sql2sparql" in {m.__name__ for m in modules}
    assert checked > 300, checked


def test_the_check_finds_what_lacks_a_docstring() -> None:
    module = ModuleType("kgbench_docstring_probe")

    @dataclasses.dataclass
    class Plain:
        value: int

        def method(self) -> int:
            return self.value

        @property
        def prop(self) -> int:
            return self.value

    class Documented:
        """A documented class."""

        def method(self) -> None:
            """A documented method."""

        def _private(self) -> None:
            pass

    def function() -> None:
        pass

    for obj in (Plain, Documented, function):
        obj.__module__ = module.__name__
        setattr(module, obj.__name__, obj)
    missing, checked = undocumented([module])
    assert checked == 3
    assert sorted(missing) == [
        "kgbench_docstring_probe.Plain",
        "kgbench_docstring_probe.Plain.method",
        "kgbench_docstring_probe.Plain.prop",
        "kgbench_docstring_probe.function",
    ]
