"""Prompt templates of ``kgbench predict``: the shipped ones (package data in
``kgbench/predict/prompts/``, each with its source and licence in the README there) and a
user's own file.

A template is text with ``{name}`` placeholders. :meth:`PromptTemplate.fill` replaces them in
one pass (a value that itself contains ``{schema}`` is not expanded again); any other text,
braces included, is kept as it is, so a template may hold JSON examples. For the shipped
templates this gives exactly Python's ``str.format`` of the seeds' code.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from kgbench.errors import InputError

#: Directory of the shipped templates.
PROMPT_DIR = Path(__file__).resolve().parent / "prompts"

_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")


@dataclass(frozen=True)
class PromptTemplate:
    """A prompt template: ``name`` (a shipped name, or the file's path), ``text`` (the
    template, byte for byte) and ``sha256`` (hex digest of ``text`` in UTF-8)."""

    name: str
    text: str
    sha256: str

    @classmethod
    def from_text(cls, name: str, text: str) -> PromptTemplate:
        """A template of ``text`` (its SHA-256 computed here)."""
        return cls(name, text, hashlib.sha256(text.encode("utf-8")).hexdigest())

    def placeholders(self) -> set[str]:
        """The placeholder names the template uses."""
        return set(_PLACEHOLDER.findall(self.text))

    def check(self, needed: Iterable[str]) -> None:
        """Raise :class:`~kgbench.errors.InputError` naming the first of ``needed`` that the
        template lacks."""
        have = self.placeholders()
        for name in needed:
            if name not in have:
                raise InputError(
                    f"prompt {self.name}: the placeholder {{{name}}} is missing "
                    f"(this family needs {', '.join('{' + n + '}' for n in needed)})"
                )

    def fill(self, values: Mapping[str, str]) -> str:
        """The template with every ``{name}`` of ``values`` replaced (one pass; placeholders
        without a value are left as they are)."""

        def repl(m: re.Match[str]) -> str:
            value = values.get(m.group(1))
            return m.group(0) if value is None else value

        return _PLACEHOLDER.sub(repl, self.text)


def builtin_names() -> list[str]:
    """Names of the shipped templates (file stems in :data:`PROMPT_DIR`), sorted."""
    return sorted(p.stem for p in PROMPT_DIR.glob("*.txt"))


def load_prompt(spec: str | Path, needed: Iterable[str]) -> PromptTemplate:
    """The template named ``spec`` (a shipped name such as ``cypherbench_zero_shot``) or read
    from the file ``spec``, checked for the ``needed`` placeholders.

    Raises:
        InputError: no such shipped name or file, a file that is not UTF-8, or a needed
            placeholder missing (named)."""
    names = builtin_names()
    path = PROMPT_DIR / f"{spec}.txt" if str(spec) in names else Path(spec)
    name = str(spec)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(
            f"--prompt {spec}: not a shipped prompt ({', '.join(names)}) nor a readable file "
            f"({exc.strerror or exc})"
        ) from exc
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"--prompt {spec}: not UTF-8 text (byte {exc.start})") from exc
    template = PromptTemplate.from_text(name, text)
    template.check(list(needed))
    return template
