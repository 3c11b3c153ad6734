"""What `docker build` sends and what `docker run --env-file` sets, computed without a daemon.

Three small readers, each following the Docker client's documented rules:

- `.dockerignore` (the build context): a line starting with `#` is a comment; the rest are
  trimmed, cleaned like a path (`./a//b/` is `a/b`, a leading `/` dropped) and anchored at
  the context's root (`data` is ./data only, unlike .gitignore). `*` and `?` match within one
  path segment, `[...]` a character class, `**` any number of segments; `!` lets a path back
  in. A path is excluded when the last pattern that matches it, or one of its parent
  folders, is an exclusion (so `*` then `!bot/` lets in all of bot/).
- `ENV` in a Dockerfile: `ENV KEY=value KEY2="v 2"` (shell-like words, `\\` continuing the
  line) or the older `ENV KEY value`.
- `--env-file`: one `KEY=value` a line, the value taken as it is (no quotes removed, no
  trimming); blank lines and lines starting with `#` skipped; a bare `KEY` passes the
  caller's value on, or nothing when the caller has none. The file's values win over the
  image's `ENV`.
"""

from __future__ import annotations

import os
import posixpath
import re
import shlex
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Pattern:
    text: str  # cleaned, without the leading `!`
    exclusion: bool  # a `!` pattern: lets matching paths back in
    regex: re.Pattern[str]

    def matches(self, path: str) -> bool:
        return self.regex.match(path) is not None


def pattern_regex(pattern: str) -> re.Pattern[str]:
    """A cleaned pattern as a regular expression on slash-separated relative paths, built as
    Docker builds its own: `*` and `?` stay within a segment, `**` spans segments, `\\`
    escapes the next character, `[` and `]` pass through (a character class), and the
    characters that mean something to a regular expression but not to a glob are escaped."""
    rest = pattern[2:]
    if pattern.startswith("**") and not re.search(r"[*?\[\]\\]", rest):
        # Docker compares this one as a plain suffix, and `**/foo` matches `foo` too.
        alone = "|" + re.escape(rest[1:]) if rest.startswith("/") else ""
        return re.compile(f"(?:.*{re.escape(rest)}{alone})\\Z")
    out, i = "", 0
    while i < len(pattern):
        ch = pattern[i]
        i += 1
        if pattern.startswith("**", i - 1):
            i += 1
            if pattern.startswith("/", i):
                i += 1
            # At the end `**` takes the rest; elsewhere any number of whole segments, even none.
            out += ".*" if i == len(pattern) else "(?:.*/)?"
        elif ch == "*":
            out += "[^/]*"
        elif ch == "?":
            out += "[^/]"
        elif ch == "\\":
            out += re.escape(pattern[i]) if i < len(pattern) else "\\\\"
            i += 1
        elif ch in ".+()|{}$":
            out += "\\" + ch
        else:
            out += ch  # `[`, `]`, `^` and `-` too: a character class as in the pattern
    return re.compile(out + r"\Z")


def read_dockerignore(text: str) -> list[Pattern]:
    patterns = []
    for number, raw in enumerate(text.splitlines()):
        line = raw.removeprefix("\ufeff") if number == 0 else raw
        if line.startswith("#"):
            continue
        line = line.strip()
        if not line:
            continue
        exclusion = line.startswith("!")
        if exclusion:
            line = line[1:].strip()
        if line:
            line = posixpath.normpath(re.sub("/+", "/", line))
            if len(line) > 1 and line.startswith("/"):
                line = line[1:]
        if not line:
            raise ValueError('illegal exclusion pattern: "!"')
        patterns.append(Pattern(line, exclusion, pattern_regex(line)))
    return patterns


def is_excluded(path: str, patterns: list[Pattern]) -> bool:
    """Whether `path` (relative, slash-separated) stays out of the context."""
    parents = path.split("/")[:-1]
    ancestors = ["/".join(parents[: i + 1]) for i in range(len(parents))]
    excluded = False
    for pattern in patterns:
        if pattern.exclusion != excluded:
            continue  # an exclusion matters only to an excluded path, and the other way round
        if pattern.matches(path) or any(pattern.matches(a) for a in ancestors):
            excluded = not pattern.exclusion
    return excluded


def build_context(root: Path) -> dict[str, int]:
    """The files `docker build root` would send, with their sizes (symlinks as links)."""
    ignore = root / ".dockerignore"
    patterns = read_dockerignore(ignore.read_text(encoding="utf-8")) if ignore.exists() else []
    return {path: size for path, size in _files(root) if not is_excluded(path, patterns)}


def _files(root: Path) -> Iterator[tuple[str, int]]:
    for folder, dirs, files in os.walk(root):
        base = Path(folder).relative_to(root).as_posix()
        for name in files + [d for d in dirs if (Path(folder) / d).is_symlink()]:
            path = name if base == "." else f"{base}/{name}"
            yield path, (Path(folder) / name).lstat().st_size


def instructions(dockerfile: str) -> list[tuple[str, str]]:
    """The Dockerfile's instructions in order, as (INSTRUCTION, the rest): lines continued with
    `\\` joined, comments (also inside a continued instruction) left out."""
    out: list[tuple[str, str]] = []
    logical = ""
    for line in dockerfile.splitlines():
        if line.lstrip().startswith("#"):
            continue
        if line.rstrip().endswith("\\"):
            logical += line.rstrip()[:-1] + " "
            continue
        logical += line
        instruction, _, rest = logical.strip().partition(" ")
        logical = ""
        if instruction:
            out.append((instruction.upper(), rest.strip()))
    return out


def env_words(rest: str) -> dict[str, str]:
    """What one `ENV` instruction sets."""
    words = shlex.split(rest)
    if words and "=" not in words[0]:  # the older form: ENV KEY the rest of the line
        key, _, value = rest.strip().partition(" ")
        return {key: value.strip()}
    return dict(word.partition("=")[::2] for word in words)


def dockerfile_env(dockerfile: str) -> dict[str, str]:
    """The environment the image's `ENV` instructions set, in order."""
    env: dict[str, str] = {}
    for instruction, rest in instructions(dockerfile):
        if instruction == "ENV":
            env.update(env_words(rest))
    return env


def env_file(text: str, caller: Mapping[str, str]) -> dict[str, str]:
    """What `docker run --env-file` sets from `text` (`caller`: the environment it runs in)."""
    env: dict[str, str] = {}
    for number, raw in enumerate(text.splitlines()):
        line = (raw.removeprefix("\ufeff") if number == 0 else raw).lstrip()
        if not line or line.startswith("#"):
            continue
        key, has_value, value = line.partition("=")
        key = key.lstrip(" \t")
        if not key or any(c in key for c in " \t"):
            raise ValueError(f"poorly formatted environment: {line!r}")
        if has_value:
            env[key] = value
        elif key.strip() in caller:
            env[key.strip()] = caller[key.strip()]
    return env


def container_env(dockerfile: str, env_file_text: str, caller: Mapping[str, str]) -> dict[str, str]:
    """The environment of `docker run --env-file`: the image's ENV, then the file's lines."""
    return {**dockerfile_env(dockerfile), **env_file(env_file_text, caller)}
