"""The README and docs/ stay true to the code: every setting documented, every link resolving,
the figures they quote taken from where the code keeps them, the README short."""

from __future__ import annotations

import re
from itertools import accumulate
from pathlib import Path

import pytest

from bot.config import Settings
from bot.delivery import REPLY_RETRY_DELAYS, REPLY_RETRY_WINDOW
from tests.conftest import ROOT

PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def anchors(page: Path) -> set[str]:
    """The ids GitHub gives a page's headings."""
    found = set()
    for line in page.read_text(encoding="utf-8").splitlines():
        if m := re.match(r"#+ (.+)", line):
            found.add(re.sub(r"[^\w\- ]", "", m.group(1).strip().lower()).replace(" ", "-"))
    return found


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_relative_link_resolves(page: Path) -> None:
    text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.S)
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if target.startswith(("http://", "https://", "mailto:")):
            continue
        path, _, fragment = target.partition("#")
        dest = (page.parent / path).resolve() if path else page
        assert dest.exists(), f"{page.name}: {target}"
        if fragment:
            assert fragment in anchors(dest), f"{page.name}: {target}"


def test_the_readme_is_a_front_door() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 150
    for command in ("make run", "make test", "make practice", "/start"):
        assert command in readme


def test_every_setting_is_in_the_configuration_page() -> None:
    page = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
    documented = {name.lower() for name in re.findall(r"`([A-Z][A-Z0-9_]+)`", page)}
    assert Settings.model_fields.keys() <= documented


def test_the_reply_retry_schedule_is_the_one_the_code_keeps() -> None:
    page = (ROOT / "docs" / "operations.md").read_text(encoding="utf-8")
    text = re.sub(r"\s+", " ", page)
    delays = ", ".join(f"{d:g}" for d in REPLY_RETRY_DELAYS[:-1])
    assert f"tried again {delays} and {REPLY_RETRY_DELAYS[-1]:g} s apart" in text
    times = [f"+{t:g}" for t in accumulate(REPLY_RETRY_DELAYS)]
    assert f"(at {', '.join(times[:-1])} and {times[-1]} s;" in text
    assert f"within {REPLY_RETRY_WINDOW:g} s of the first try" in text


def test_the_exit_statuses_of_run_are_the_ones_operations_lists() -> None:
    """docs/operations.md's table and `interview-bot run --help` come from one table."""
    from bot.cli import EXIT_STATUSES

    page = (ROOT / "docs" / "operations.md").read_text(encoding="utf-8")
    section = page.split("## Exit statuses", 1)[1].split("\n## ", 1)[0]
    documented = {int(n) for n in re.findall(r"^\| (\d+) \|", section, re.M)}
    assert documented == set(EXIT_STATUSES["run"])


def test_the_settings_each_help_names_are_settings() -> None:
    from bot.cli import READS

    named = {
        n
        for lines in READS.values()
        for n in re.findall(r"\b[A-Z][A-Z0-9_]{2,}\b", "\n".join(lines))
    }
    assert named - {"FILE", "PACK", "GRADED", "YAML", "JSON", "SQLITE", "GET"} <= {
        name.upper() for name in Settings.model_fields
    }


def test_the_compose_example_runs_two_replicas_on_postgresql_behind_a_proxy() -> None:
    """docs/compose.yaml parses, its services are the ones docs/operations.md names, the
    bots' settings are settings, and the proxy sends /telegram to both replicas' port."""
    import yaml

    compose = yaml.safe_load((ROOT / "docs" / "compose.yaml").read_text(encoding="utf-8"))
    services = compose["services"]
    assert set(services) == {"db", "bot-1", "bot-2", "proxy"}
    assert services["db"]["image"] == "postgres:15"
    settings = {name.upper() for name in Settings.model_fields}
    for name in ("bot-1", "bot-2"):
        bot = services[name]
        env = bot["environment"]
        assert set(env) <= settings, set(env) - settings
        assert env["DATABASE_URL"].startswith("postgresql://")
        assert "@db:5432/" in env["DATABASE_URL"]
        assert env["TELEGRAM_WEBHOOK_URL"].endswith("/telegram")
        assert bot["hostname"] == name  # each replica its own host name and wire log
        assert bot["volumes"] == [f"{name}:/data"]
    caddyfile = compose["configs"]["caddyfile"]["content"]
    port = services["bot-1"]["environment"]["WEBHOOK_PORT"]
    assert f"reverse_proxy bot-1:{port} bot-2:{port}" in caddyfile
    assert "handle /telegram" in caddyfile and "health_uri /healthz" in caddyfile
    page = (ROOT / "docs" / "operations.md").read_text(encoding="utf-8")
    section = page.split("### Replicas and PostgreSQL", 1)[1].split("\n## ", 1)[0]
    assert "(compose.yaml)" in section
    for name in services:
        assert f"`{name}`" in section
