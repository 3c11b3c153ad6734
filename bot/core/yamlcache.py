"""YAML parsed once: what a pack or strings file's text parses to, kept as JSON until it changes.

Start-up reads every pack and both string tables. libyaml parses them, but PyYAML builds the
Python objects in Python, and importing PyYAML costs about as much again (issue 13). So
`interview-bot run` keeps the parsed data of each text in one JSON file beside the database
(`bot.sqlite3-yaml`), keyed by the text's SHA-256 (and the installed PyYAML), and on the
next start reads that instead of parsing, without importing PyYAML at all. The data is
validated after it is read exactly as if it had just been parsed, so the cache never changes
what a file means or which error it gives; a text whose data JSON cannot hold exactly (a
date, a number as a mapping's key) is parsed every time, and a broken or unwritable cache
file is ignored.

Beside the parsed data it keeps what validating a text gave (a pack's validated fields,
issue 30), keyed by the text's SHA-256 and a stamp of the code that validated it: a text
validated before by the same code is not validated again. A text that failed validation is
never kept, so a broken pack is refused on every start.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import logging
import os
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

FORMAT = 2  # 2: with `validated`


def beside(database: Path) -> Path:
    """The cache file of a database: `bot.sqlite3-yaml` beside `bot.sqlite3`."""
    return database.with_name(f"{database.name}-yaml")


class YamlError(Exception):
    """The text is not valid YAML; `original` is PyYAML's error (its problem and mark)."""

    def __init__(self, original: Exception) -> None:
        super().__init__(str(original))
        self.original = original


def yaml_loader() -> Any:
    """libyaml's safe loader when PyYAML has it (about 10x faster), else PyYAML's own."""
    import yaml

    return getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def parse_yaml(text: str) -> Any:
    """PyYAML's safe reading of `text`; YamlError if it is not YAML."""
    import yaml

    try:
        return yaml.load(text, Loader=yaml_loader())  # noqa: S506 (a safe loader)
    except yaml.YAMLError as exc:
        raise YamlError(exc) from None
    except ValueError as exc:
        # Well-formed YAML with a value its type cannot hold: `answer: 2024-02-30` (read
        # as a date), `!!int abc`. PyYAML raises a plain ValueError, with no place in it.
        raise YamlError(_unreadable_value(text, exc)) from None


def _unreadable_value(text: str, exc: ValueError) -> Exception:
    """A YAML error naming the line of the first scalar that cannot be read as its type."""
    import yaml

    loader = yaml_loader()
    problem = f"{exc}: the value is read as a date or a number; put it in quotes to keep it as text"
    try:
        stack = [yaml.compose(text, Loader=loader)]
    except yaml.YAMLError:
        return yaml.MarkedYAMLError(problem=problem)
    reader = loader("")
    while stack:
        node = stack.pop()
        if isinstance(node, yaml.ScalarNode):
            try:
                reader.construct_object(node, deep=True)
            except ValueError:
                return yaml.MarkedYAMLError(problem=problem, problem_mark=node.start_mark)
        elif isinstance(node, yaml.SequenceNode):
            stack.extend(reversed(node.value))
        elif isinstance(node, yaml.MappingNode):
            stack.extend(part for pair in reversed(node.value) for part in reversed(pair))
    return yaml.MarkedYAMLError(problem=problem)


def _yaml_stamp() -> str:
    """The installed PyYAML, found without importing it: a new version parses afresh."""
    spec = importlib.util.find_spec("yaml")
    origin = spec.origin if spec is not None else None
    if origin is None:
        return "none"
    stat = os.stat(origin)
    return f"{origin}:{stat.st_size}:{stat.st_mtime_ns}"


class YamlCache:
    """The parsed data of texts read before, from and to `path` (None: no cache at all)."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._stamp = _yaml_stamp()
        self._entries: dict[str, Any] = {}
        self._used: dict[str, Any] = {}
        self._validated: dict[str, Any] = {}
        self._validated_used: dict[str, Any] = {}
        self._changed = False
        if path is None:
            return
        try:
            stored = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return  # none yet, or unreadable: parse everything, write a new one
        if (
            isinstance(stored, dict)
            and stored.get("format") == FORMAT
            and stored.get("yaml") == self._stamp
            and isinstance(stored.get("entries"), dict)
            and isinstance(stored.get("validated"), dict)
        ):
            self._entries = stored["entries"]
            self._validated = stored["validated"]

    def load(self, text: str) -> Any:
        """What `parse_yaml(text)` gives, read from the cache when this text was seen."""
        key = _text_key(text)
        if key in self._entries:
            data = self._entries[key]
            self._used[key] = data
            return data
        data = parse_yaml(text)
        if self.path is not None and _json_holds(data):
            self._used[key] = data
            self._changed = True
        return data

    def validated(self, text: str, code: str) -> Any:
        """What `keep_validated` kept for this text and this validating code, or None."""
        key = _validated_key(text, code)
        data = self._validated.get(key)
        if data is not None:
            self._validated_used[key] = data
        return data

    def keep_validated(self, text: str, code: str, data: Any) -> None:
        """Keep what validating `text` with the code stamped `code` gave: JSON's own types
        (a `model_dump(mode="json")`), so only what JSON cannot write is looked for."""
        if self.path is not None and data is not None and _json_writes(data):
            self._validated_used[_validated_key(text, code)] = data
            # Its parsed data is not read again while this is kept: not kept beside it.
            self._used.pop(_text_key(text), None)
            self._changed = True

    def save(self) -> None:
        """Keep what this run read (and only that) for the next one, if anything changed."""
        if self.path is None or not (
            self._changed
            or self._used.keys() != self._entries.keys()
            or self._validated_used.keys() != self._validated.keys()
        ):
            return
        body = {
            "format": FORMAT,
            "yaml": self._stamp,
            "entries": self._used,
            "validated": self._validated_used,
        }
        partial = self.path.with_name(f".{self.path.name}.{os.getpid()}")
        try:
            partial.write_text(json.dumps(body, ensure_ascii=False), encoding="utf-8")
            os.replace(partial, self.path)
        except OSError as exc:
            log.debug("could not write the content cache %s: %s", self.path, exc)
            partial.unlink(missing_ok=True)
            return
        self._entries = dict(self._used)
        self._validated = dict(self._validated_used)
        self._changed = False


def _text_key(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _validated_key(text: str, code: str) -> str:
    """The text's SHA-256 with the validating code's stamp: either changed, another key."""
    digest = hashlib.sha256(code.encode("utf-8", "surrogatepass"))
    digest.update(b"\0")
    digest.update(text.encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


def _json_writes(data: Any) -> bool:
    """`save` can write this data: no NaN or infinity, no lone surrogate (no UTF-8)."""
    try:
        json.dumps(data, allow_nan=False, ensure_ascii=False).encode("utf-8")
    except (TypeError, ValueError):
        return False
    return True


def _json_holds(data: Any) -> bool:
    """JSON gives back exactly this data: same values, same types, string keys only.

    Checked on the bytes `save` writes: a lone surrogate (PyYAML's pure-Python loader reads
    `"\\ud800"` as one) has no UTF-8, so its text is parsed every time.
    """
    try:
        again = json.loads(json.dumps(data, allow_nan=False, ensure_ascii=False).encode("utf-8"))
    except (TypeError, ValueError):
        return False
    return _same(data, again)


def _same(a: Any, b: Any) -> bool:
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)
