"""The Dockerfile's steps replayed in a folder, as `docker build` would run them, with no daemon.

`replay(dockerfile, context, root)` makes `root` stand for the image's `/`: an absolute path
of the image, `/app` or `/data`, is `root/app` or `root/data`, and every absolute path in the
image's `ENV` (and in a `--env-file` given to `ReplayedImage.env`) is rewritten the same way,
since a test cannot create `/data`. Step by step:

- `FROM python:X.Y-slim`: this machine's Python, which must be X.Y, in a fresh venv made with
  `python -m venv` at `root/usr/local` (where the base image's Python installs packages);
  the base image's own environment is reduced to PATH (that venv first) and LANG=C.UTF-8.
- `ENV`, `WORKDIR`, `VOLUME`, `HEALTHCHECK` and `CMD` as written.
- `COPY`: only the files the build context holds (`.dockerignore` applied, as
  tests/support/docker.py computes it), to the same places.
- `RUN pip …`: run with the venv's pip in the working directory, with the image's
  environment but not PIP_NO_CACHE_DIR, so this machine's pip cache and configuration serve
  the downloads (the lock's hashes are checked all the same).
- `RUN useradd … && mkdir -p /data && chown … /data` and `USER`: not replayed as a user
  (the venv's Python may live where another user cannot read). What that user finds is:
  the files of the image belong to root and cannot be written, `/data` and its home can.
  So once built, everything under `root` but those two is made read-only, the commands
  started by `command()` run without the capabilities that let root write anyway, and HOME
  is the user's home.

Any other instruction, or another RUN step, stops the replay: teach it here first.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import stat
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from tests.support.docker import build_context, env_words, instructions

USER_SETUP = re.compile(
    r"useradd --create-home --uid (?P<uid>\d+) (?P<name>\w+) && mkdir -p (?P<volume>/\S+)"
    r" && chown (?P=name) (?P=volume)"
)


@dataclass
class ReplayedImage:
    root: Path
    image_env: dict[str, str] = field(default_factory=dict)  # ENV, as the image holds it
    workdir: str = "/"
    user: str | None = None
    home: str | None = None
    writable: list[str] = field(default_factory=list)  # what the user may write: /data
    cmd: list[str] = field(default_factory=list)
    healthcheck: list[str] = field(default_factory=list)

    def path(self, image_path: str) -> Path:
        """Where a path of the image lies in this folder (a relative one: from WORKDIR)."""
        absolute = PurePosixPath(self.workdir) / image_path
        return self.root.joinpath(*absolute.parts[1:])

    def mapped(self, value: str) -> str:
        return str(self.path(value)) if value.startswith("/") else value

    def env(self, env_file: Mapping[str, str] | None = None) -> dict[str, str]:
        """The environment of `docker run --env-file`: the base image's, the image's ENV, then
        the file's lines; absolute paths mapped into this folder."""
        base = {
            "PATH": f"{self.path('/usr/local/bin')}:/usr/bin:/bin",
            "LANG": "C.UTF-8",
            "HOME": str(self.path(self.home or "/root")),
        }
        given = self.image_env | dict(env_file or {})
        return base | {name: self.mapped(value) for name, value in given.items()}

    def command(self, argv: list[str], env: Mapping[str, str]) -> list[str]:
        """`argv` (CMD, HEALTHCHECK) as the container runs it: found on its PATH, and as root
        without the capabilities that would let it write the image's read-only files."""
        found = shutil.which(argv[0], path=env["PATH"])
        assert found, f"{argv[0]} is not on the image's PATH"
        prefix: list[str] = []
        if os.geteuid() == 0:
            caps = "-dac_override,-dac_read_search,-fowner"
            prefix = ["setpriv", f"--bounding-set={caps}", f"--inh-caps={caps}"]
        return [*prefix, found, *argv[1:]]

    def remove(self) -> None:
        for folder, _, _ in os.walk(self.root):
            Path(folder).chmod(Path(folder).stat().st_mode | stat.S_IWUSR)
        shutil.rmtree(self.root)


def replay(dockerfile: str, context_root: Path, root: Path) -> ReplayedImage:
    image = ReplayedImage(root)
    context = build_context(context_root)
    for instruction, rest in instructions(dockerfile):
        if instruction == "FROM":
            match = re.fullmatch(r"python:(\d+)\.(\d+)-slim", rest)
            assert match, f"a base image the replay does not know: {rest}"
            wanted = tuple(map(int, match.groups()))
            assert sys.version_info[:2] == wanted, f"the image has Python {wanted}"
            subprocess.run([sys.executable, "-m", "venv", image.path("/usr/local")], check=True)
        elif instruction == "ENV":
            image.image_env.update(env_words(rest))
        elif instruction == "WORKDIR":
            image.workdir = str(PurePosixPath(image.workdir) / rest)
            image.path(".").mkdir(parents=True, exist_ok=True)
        elif instruction == "COPY":
            *sources, destination = shlex.split(rest)
            for source in sources:
                _copy(context_root, context, source, image, destination, len(sources) > 1)
        elif instruction == "RUN" and rest.startswith("pip "):
            environment = os.environ | image.image_env
            environment.pop("PIP_NO_CACHE_DIR", None)
            python = str(image.path("/usr/local/bin/python"))
            argv = [python, "-m", "pip", "--quiet", *shlex.split(rest)[1:]]
            done = subprocess.run(argv, cwd=image.path("."), env=environment, capture_output=True)
            assert done.returncode == 0, f"RUN {rest}:\n{done.stderr.decode()[-3000:]}"
        elif instruction == "RUN" and (match := USER_SETUP.fullmatch(rest)):
            image.user, image.home = match["name"], f"/home/{match['name']}"
            image.writable += [image.home, match["volume"]]
            for folder in image.writable:
                image.path(folder).mkdir(parents=True, exist_ok=True)
        elif instruction == "USER":
            assert rest == image.user, f"USER {rest}: not the user the replay made"
        elif instruction == "VOLUME":
            for volume in json.loads(rest):
                image.path(volume).mkdir(parents=True, exist_ok=True)
        elif instruction in ("HEALTHCHECK", "CMD"):
            exec_form = rest.partition("CMD ")[2] if instruction == "HEALTHCHECK" else rest
            setattr(image, instruction.lower(), json.loads(exec_form))
        else:
            raise AssertionError(f"a step the replay does not know: {instruction} {rest}")
    _read_only(image)
    return image


def _copy(
    context_root: Path,
    context: Mapping[str, int],
    source: str,
    image: ReplayedImage,
    destination: str,
    into_folder: bool,
) -> None:
    """One source of a COPY: a file of the context, or a folder's files in the context."""
    target = image.path(destination)
    if source in context:
        if into_folder or destination.endswith("/"):
            target = target / PurePosixPath(source).name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(context_root / source, target)
        return
    inside = [path for path in context if path.startswith(f"{source}/")]
    assert inside, f"COPY {source}: not in the build context"
    for path in inside:
        (target / path[len(source) + 1 :]).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(context_root / path, target / path[len(source) + 1 :])


def _read_only(image: ReplayedImage) -> None:
    """What the image's user may not write: everything but its home and the volume."""
    keep = {image.path(folder) for folder in image.writable}
    write = stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH
    for folder, _, files in os.walk(image.root, topdown=False):
        here = Path(folder)
        if here in keep or keep & set(here.parents):
            continue
        for path in [here / name for name in files] + [here]:
            if not path.is_symlink():
                path.chmod(path.stat().st_mode & ~write)
