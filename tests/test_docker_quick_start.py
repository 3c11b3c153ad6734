"""The Docker quick start works as written, checked without a Docker daemon.

The README says `cp .env.example .env`, `docker build -t interview-bot .` and
`docker run --env-file .env -v interview-data:/data interview-bot`. Once, `.env.example` set
DATABASE_PATH=data/bot.sqlite3, which `--env-file` puts over the image's /data/bot.sqlite3:
the bot, in /app as a user who may not write there, stopped with status 3; and with no
`.dockerignore` the build sent ~300 MB (.venv/, .git) and the `.env` with the token to the
daemon. Here the build context is computed by Docker's rules (tests/support/docker.py) and
the container's environment is put together as `docker run --env-file` does; then the
Dockerfile's steps are replayed in a folder standing for the image, into a fresh venv
(tests/support/image.py, ~20-45 s once per run: the only test here that installs packages,
from pip's index and cache), and the image's CMD runs with the README's `.env` against the
fake Bot API.
"""

from __future__ import annotations

import asyncio
import os
import re
import shlex
import shutil
import signal
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.config import Settings
from tests.conftest import ROOT
from tests.support.docker import build_context, container_env, env_file, is_excluded
from tests.support.docker import read_dockerignore as patterns
from tests.support.fake_bot_api import FakeBotAPI, FakeUser
from tests.support.image import ReplayedImage, replay
from tests.support.wait import until

DOCKERFILE = (ROOT / "Dockerfile").read_text(encoding="utf-8")
ENV_EXAMPLE = (ROOT / ".env.example").read_text(encoding="utf-8")
TOKEN = "123456:fake-token-for-the-test"
# Settings fields no operator sets: terminal practice reads the locale from them.
LOCALE = {"lc_all", "lc_messages", "lang"}


def readme_env_file() -> str:
    """The README's `.env`: .env.example copied, the token put in."""
    line = "TELEGRAM_BOT_TOKEN="
    filled, count = re.subn(f"(?m)^{line}$", line + TOKEN, ENV_EXAMPLE)
    assert count == 1
    return filled


def settings_in(env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> Settings:
    """The bot's settings in a process whose whole environment is `env`, with no .env file
    (the image holds none: the Dockerfile copies only bot/, content/ and the build files)."""
    for name in list(os.environ):
        monkeypatch.delenv(name)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return Settings(_env_file=None)


# Docker's own cases for its pattern matcher (moby/patternmatcher): does the path, or a
# folder it is in, match?
@pytest.mark.parametrize(
    ("lines", "path", "excluded"),
    [
        (["*"], "fileutils.go", True),
        (["*.go"], "fileutils.go", True),
        (["!fileutils.go", "*.go"], "fileutils.go", True),
        (["*.go", "!fileutils.go"], "fileutils.go", False),
        (["docs", "!docs/README.md"], "docs/README.md", False),
        (["docs/", "!docs/README.md"], "docs/README.md", False),
        (["docs/*", "!docs/README.md"], "docs/README.md", False),
        (["**"], "dir/file", True),
        (["**/"], "file", True),
        (["dir/**"], "dir/dir2/file", True),
        (["**/dir"], "dir/file", True),
        (["**/dir2/*"], "dir/dir2/file", True),
        (["**file"], "dir/file", True),
        (["**/file*.txt"], "dir/dir/file.txt", True),
        (["**/**/*.txt2"], "dir/dir/file.txt", False),
        (["**/*.txt"], "file.txt", True),
        (["a**/*.txt"], "a/dir/dir/file.txt", True),
        (["a/*.txt"], "a/dir/file.txt", False),
        (["a[b-d]e"], "ace", True),
        (["a[b-d]e"], "aae", False),
        (["a[^b-d]e"], "aze", True),
        ([".*"], "foo", False),
        (["abc.def"], "abcZdef", False),
        (["abc?def"], "abcZdef", True),
        (["abc/**"], "abc", False),
        (["**/.foo"], "bar.foo", False),
        (["a(b)c/def"], "a(b)c/def", True),
        (["a\\*b"], "a*b", True),
        (["a*/b"], "a/c/b", False),
        (["**", "!util/docker/web"], "util/docker/web/foo", False),
        (["**", "!util/docker/web", "util/docker/web/foo"], "util/docker/web/foo", True),
        # Anchored at the context's root, unlike .gitignore; a leading / or ./ changes nothing.
        (["data"], "sub/data", False),
        (["/data"], "data/bot.sqlite3", True),
        (["./data/"], "data/bot.sqlite3", True),
        (["# .env", ".venv"], ".env", False),
        (["  !x", "*"], "x", True),
    ],
)
def test_dockerignore_patterns_read_as_docker_reads_them(
    lines: list[str], path: str, excluded: bool
) -> None:
    assert is_excluded(path, patterns("\n".join(lines))) is excluded


def test_a_lone_exclamation_mark_is_an_error_as_in_docker() -> None:
    with pytest.raises(ValueError, match="illegal exclusion"):
        patterns("!")


def test_the_build_context_is_small_and_holds_what_the_dockerfile_copies() -> None:
    context = build_context(ROOT)
    size = sum(context.values())
    assert size < 5_000_000, f"{size / 1e6:.1f} MB: {sorted(context)[:20]}"
    for line in DOCKERFILE.splitlines():
        if line.startswith("COPY "):
            for source in shlex.split(line)[1:-1]:
                assert any(p == source or p.startswith(f"{source}/") for p in context), source
    assert not [p for p in context if Path(p).name.startswith(".env")]
    assert not [p for p in context if "__pycache__" in p or p.startswith(("tests/", ".git"))]


@pytest.mark.parametrize(
    "secret_or_bulk",
    [
        ".env",
        ".env.local",
        "content/.env",
        "bot/.env",
        ".venv/bin/python",
        ".venv-tools/bin/uv",
        ".git/config",
        "data/bot.sqlite3",
        "data/backups/bot-2026-03-01.sqlite3",
        "mutants/bot/core/text.py",
        "tests/test_cli.py",
        "bot/__pycache__/app.cpython-311.pyc",
        "content/__pycache__/x.pyc",
        "interview_bot.egg-info/PKG-INFO",
        ".mypy_cache/3.11/bot/app.json",
        "build/lib/bot/app.py",
    ],
)
def test_the_build_context_leaves_out_secrets_and_bulk(secret_or_bulk: str, tmp_path: Path) -> None:
    (tmp_path / ".dockerignore").write_bytes((ROOT / ".dockerignore").read_bytes())
    for path in (secret_or_bulk, "bot/app.py", "content/triton.yaml", "requirements.lock"):
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text("x")
    context = build_context(tmp_path)
    assert secret_or_bulk not in context
    assert {"bot/app.py", "content/triton.yaml", "requirements.lock"} <= context.keys()


def test_the_readme_docker_commands_are_the_ones_checked_here() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "cp .env.example .env" in readme
    assert "docker build -t interview-bot ." in readme
    assert "docker run --env-file .env -v interview-data:/data interview-bot" in readme


def test_the_readme_env_file_keeps_the_database_in_the_volume(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    env = container_env(DOCKERFILE, readme_env_file(), caller={})
    settings = settings_in(env, monkeypatch)
    assert settings.database_path == Path("/data/bot.sqlite3")
    assert settings.content_dir == Path("/app/content")
    assert settings.telegram_bot_token is not None
    assert settings.telegram_bot_token.get_secret_value() == TOKEN
    assert settings.telegram_webhook_url is None  # long polling: no port to open


def test_a_path_set_in_the_env_file_would_win_over_the_image(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """What went wrong before: --env-file lines win over ENV, so a path there moves the
    database out of the volume (the check above would catch it coming back)."""
    old = readme_env_file() + "DATABASE_PATH=data/bot.sqlite3\n"
    settings = settings_in(container_env(DOCKERFILE, old, caller={}), monkeypatch)
    assert settings.database_path == Path("data/bot.sqlite3")


def test_env_file_values_are_taken_as_docker_takes_them() -> None:
    text = '\ufeffA=1\n  # comment\n\nB= spaced "quoted" \nC\nD\n  E=x=y\n'
    assert env_file(text, caller={"C": "from caller"}) == {
        "A": "1",
        "B": ' spaced "quoted" ',
        "C": "from caller",
        "E": "x=y",
    }
    with pytest.raises(ValueError, match="poorly formatted"):
        env_file("A B=1\n", caller={})


def test_make_run_from_a_fresh_clone_keeps_the_database_in_data(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`make run` reads .env from the working folder (the clone): the defaults apply."""
    (tmp_path / ".env").write_text(readme_env_file(), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    for name in list(os.environ):
        monkeypatch.delenv(name)
    settings = Settings()
    assert settings.database_path == Path("data/bot.sqlite3")
    assert settings.content_dir == Path("content")
    assert settings.telegram_bot_token is not None


def test_env_example_names_every_setting_with_its_default() -> None:
    shown: dict[str, str] = {}
    for line in ENV_EXAMPLE.splitlines():
        if m := re.fullmatch(r"#?([A-Z][A-Z0-9_]*)=(.*)", line):
            shown[m.group(1).lower()] = m.group(2)
    assert shown.keys() == Settings.model_fields.keys() - LOCALE
    active = [line for line in ENV_EXAMPLE.splitlines() if re.match(r"[A-Z]", line)]
    assert active == ["TELEGRAM_BOT_TOKEN="]  # the rest commented out: the defaults win
    for name, value in shown.items():
        default = Settings.model_fields[name].default
        if value:
            parsed = Settings(_env_file=None, **{name: value})  # type: ignore[arg-type]
            assert getattr(parsed, name) == default, name
        else:
            assert default is None, name


def test_the_image_runs_as_a_user_who_owns_the_volume() -> None:
    instructions = [line.split(None, 1) for line in DOCKERFILE.splitlines() if line[:1].isalpha()]
    names = [word.upper() for word, *_ in instructions]
    user = next(rest for word, rest in instructions if word == "USER").strip()
    assert user not in {"root", "0"}
    chown = next(i for i, (word, rest) in enumerate(instructions) if "chown" in rest)
    assert re.search(rf"chown {user}\b.* /data\b", instructions[chown][1])
    assert chown < names.index("USER") < names.index("VOLUME") < names.index("CMD")
    healthcheck = DOCKERFILE[DOCKERFILE.index("HEALTHCHECK") :]
    assert 'CMD ["interview-bot", "health"]' in healthcheck


# -- the image's steps replayed: the bot it would run ------------------------------------------

NEW_OPERATOR = FakeUser(424242, "Neo", "en")


@pytest.fixture(scope="module")
def image() -> Iterator[ReplayedImage]:
    """The Dockerfile's steps replayed once (tests/support/image.py): a fresh venv with the
    lock and the package installed, ~15 s from pip's cache."""
    # Not under pytest's own temporary folder, which only its owner may enter.
    root = Path(tempfile.mkdtemp(prefix="interview-bot-image-"))
    started = time.monotonic()
    built = replay(DOCKERFILE, ROOT, root)
    print(f"image replayed in {time.monotonic() - started:.1f} s")  # seen with -s
    yield built
    built.remove()


async def stderr_of(process: asyncio.subprocess.Process) -> str:
    """What the process wrote on stderr, once it has stopped."""
    _, stderr = await asyncio.wait_for(process.communicate(), 60)
    return stderr.decode()


async def test_the_readme_docker_steps_replayed_serve_with_the_database_in_the_volume(
    api: FakeBotAPI, image: ReplayedImage, tmp_path: Path
) -> None:
    """The README's `.env` (`cp .env.example .env`, the token put in) given to the image's
    CMD as `docker run --env-file .env -v interview-data:/data` would: the bot starts, answers
    /start, keeps its database in /data, the HEALTHCHECK passes, SIGTERM stops it with 0.

    /app and /data are folders of the replayed image (tests/support/image.py). Not checked
    here: the base image itself (this machine's Python 3.11 in a venv stands for it), the
    `bot` user and its uid (the image's files are made read-only and /data writable instead,
    which is what that user finds), the volume's ownership, HEALTHCHECK's timing, the network
    between a container and the Bot API.
    """
    # .env as the README makes it, with the test's Bot API server put in as well.
    shutil.copyfile(ROOT / ".env.example", tmp_path / ".env")
    text = (tmp_path / ".env").read_text(encoding="utf-8")
    text, tokens = re.subn("(?m)^TELEGRAM_BOT_TOKEN=$", f"TELEGRAM_BOT_TOKEN={api.token}", text)
    text, urls = re.subn(
        "(?m)^#TELEGRAM_API_BASE_URL=$", f"TELEGRAM_API_BASE_URL={api.base_url}", text
    )
    assert (tokens, urls) == (1, 1)
    (tmp_path / ".env").write_text(text, encoding="utf-8")

    env = image.env(env_file((tmp_path / ".env").read_text(encoding="utf-8"), caller={}))
    process = await asyncio.create_subprocess_exec(
        *image.command(image.cmd, env), cwd=image.path("."), env=env,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    try:
        await until(lambda: api.calls["getUpdates"] or process.returncode is not None, 120)
        assert process.returncode is None, (await stderr_of(process))[-2000:]
        api.message(NEW_OPERATOR, "/start")
        (welcome,) = await api.wait_for(NEW_OPERATOR.id, 1, timeout=60)
        assert "Hi Neo" in welcome.visible

        assert image.path("/data/bot.sqlite3").is_file()
        assert not image.path("/app/data").exists()

        health = await asyncio.create_subprocess_exec(
            *image.command(image.healthcheck, env), cwd=image.path("."), env=env,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
        )  # fmt: skip
        said, _ = await asyncio.wait_for(health.communicate(), 60)
        assert health.returncode == 0, said.decode()
        assert "renewed its lease" in said.decode()  # the running bot, not "stopped"
    finally:
        if process.returncode is None:
            process.send_signal(signal.SIGTERM)
        logs = await stderr_of(process)
    assert process.returncode == 0, logs[-2000:]
    assert "bot @interview_test_bot started: long polling" in logs
    assert api.token.split(":")[1] not in logs
