"""Content folders made of some of the shipped packs, for behaviour that depends on which
languages the packs are in (say, no pack in the user's language now that content/ has one)."""

from __future__ import annotations

from pathlib import Path

import yaml

from tests.conftest import CONTENT


def shipped_packs_in(language: str, folder: Path) -> Path:
    """`folder`, made a content folder with the shipped packs in `language` alone (read from
    the files), the strings, glossary and fonts linked."""
    folder.mkdir()
    for name in ("strings", "glossary", "fonts"):
        (folder / name).symlink_to(CONTENT / name)
    for path in CONTENT.glob("*.yaml"):
        if yaml.safe_load(path.read_text(encoding="utf-8"))["language"] == language:
            (folder / path.name).symlink_to(path)
    return folder
