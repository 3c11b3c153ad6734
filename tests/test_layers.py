"""The layers' import rules, read from the source with `ast` (no module is imported).

Data flows one way (docs/architecture.md): handlers call services, services call core,
storage and delivery; background jobs call services. A handler importing another handler or
reaching storage itself, a job importing a handler, or core importing telegram or aiosqlite
is a use case or a rule in the wrong place.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

BOT = Path(__file__).resolve().parent.parent / "bot"
# The handlers' shared kit (the per-update context, sending): used by handlers, not one itself.
HANDLER_KIT = {"bot.handlers.common"}


def module_name(path: Path) -> str:
    parts = path.relative_to(BOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path) -> set[str]:
    return imports_in(path.read_text(encoding="utf-8"), module_name(path), path.name)


def imports_in(source: str, module: str, filename: str = "") -> set[str]:
    """Every module `source` imports, absolute (relative imports resolved), at any depth."""
    tree = ast.parse(source, filename=filename)
    package = module.rsplit(".", 1)[0] if filename != "__init__.py" else module
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                base = ".".join(anchor[: len(anchor) - node.level + 1] + ([base] if base else []))
            found.add(base)
            # `from bot.handlers import groups` imports the module bot.handlers.groups
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return found


def modules(package: str) -> list[Path]:
    return sorted((BOT.parent / package.replace(".", "/")).rglob("*.py"))


def within(name: str, package: str) -> bool:
    return name == package or name.startswith(package + ".")


def handler_module(name: str) -> str | None:
    """The handler module `name` is or is inside of (bot.handlers.groups.quiz: groups)."""
    parts = name.split(".")
    if parts[:2] != ["bot", "handlers"] or len(parts) < 3:
        return None
    module = ".".join(parts[:3])
    return None if module in HANDLER_KIT else module


def is_handler(name: str) -> bool:
    return handler_module(name) is not None


def broken(package: str, forbidden: object) -> list[str]:
    assert callable(forbidden)
    return [
        f"{module_name(path)} imports {name}"
        for path in modules(package)
        for name in sorted(imports_of(path))
        if forbidden(module_name(path), name)
    ]


def test_no_handler_imports_another_handler() -> None:
    assert broken("bot.handlers", lambda me, name: handler_module(name) not in (None, me)) == []


def test_jobs_and_services_import_no_handler() -> None:
    for package in ("bot.jobs", "bot.services"):
        assert broken(package, lambda _me, name: within(name, "bot.handlers")) == []


@pytest.mark.parametrize(
    "library", ["telegram", "aiosqlite", "asyncpg", "bot.storage", "bot.services"]
)
def test_core_imports_no_io(library: str) -> None:
    assert broken("bot.core", lambda _me, name: within(name, library)) == []


# What a handler may take from bot.storage: what a database error means (it reads no data).
STORAGE_ERRORS = {"is_busy", "is_full"}
# The update de-duplication (group -2) claims update_ids in storage itself: the transport's
# guard, run before any context is loaded, one keyed insert with no rule to share.
STORAGE_GUARD = {"bot.handlers.updates"}


def storage_uses(source: str, filename: str = "") -> list[str]:
    """Where `source` reaches storage: a `.storage` attribute, or an import from bot.storage
    of anything but its error predicates."""
    found: list[str] = []
    for node in ast.walk(ast.parse(source, filename=filename)):
        if isinstance(node, ast.Attribute) and node.attr == "storage":
            found.append(f"line {node.lineno}: .storage")
        elif isinstance(node, ast.Import):
            found += [f"line {node.lineno}: import {a.name}" for a in node.names
                      if within(a.name, "bot.storage")]  # fmt: skip
        elif isinstance(node, ast.ImportFrom) and within(node.module or "", "bot.storage"):
            names = {a.name for a in node.names}
            if node.module != "bot.storage" or not names <= STORAGE_ERRORS:
                found.append(f"line {node.lineno}: from {node.module} import {sorted(names)}")
    return found


def test_handlers_reach_storage_only_through_services() -> None:
    """Handlers call a service method per action: no handler holds the storage object or
    imports from bot.storage (but what a database error means, for the error handler)."""
    assert {
        module_name(path): uses
        for path in modules("bot.handlers")
        if module_name(path) not in STORAGE_GUARD
        and (uses := storage_uses(path.read_text(encoding="utf-8"), path.name))
    } == {}


def test_the_storage_check_sees_each_way_of_reaching_it() -> None:
    source = (
        "from bot.storage import is_busy, is_full\n"
        "from bot.storage import Storage\n"
        "import bot.storage.users\n"
        "async def f(svc):\n    await svc.storage.get_user(1)\n"
    )
    assert [use.split(":")[0] for use in storage_uses(source)] == ["line 2", "line 3", "line 5"]


def test_sql_driver_only_in_storage() -> None:
    """aiosqlite and asyncpg (the connections that run SQL) only in storage; sqlite3's error
    types may be caught elsewhere (the outbox sender does)."""
    outside = [
        path for path in sorted(BOT.rglob("*.py")) if not within(module_name(path), "bot.storage")
    ]
    assert [
        f"{module_name(path)} imports {name}"
        for path in outside
        for name in imports_of(path)
        if within(name, "aiosqlite") or within(name, "asyncpg")
    ] == []


def test_the_check_sees_each_way_of_importing() -> None:
    """The parser finds every form of import (so the rules above can fail)."""
    source = (
        "from bot.handlers import groups\n"
        "import bot.handlers.daily\n"
        "def f():\n    from .settings import level\n"
        "from ..core import scoring\n"
    )
    found = imports_in(source, "bot.handlers.private", "private.py")
    assert {"bot.handlers.groups", "bot.handlers.daily", "bot.handlers.settings"} <= found
    assert "bot.core.scoring" in found
    assert all(is_handler(name) for name in ("bot.handlers.groups", "bot.handlers.settings"))
    assert not is_handler("bot.handlers.common")


# The scorer's stages in order (bot/core/scoring/__init__.py): each module imports only the
# stages before it, so a rule is read from its stage forward and never back.
SCORER_STAGES = [
    "records",
    "values",
    "layout",
    "cues",
    "phrases",
    "compiled",
    "reading",
    "attribution",
    "judging",
    "names",
    "reference",
    "total",
]


def test_each_scorer_stage_uses_only_the_stages_before_it() -> None:
    package = "bot.core.scoring"
    files = {p.stem: p for p in modules(package) if p.stem != "__init__"}
    assert sorted(files) == sorted(SCORER_STAGES)
    backwards = []
    for i, stage in enumerate(SCORER_STAGES):
        later = {f"{package}.{s}" for s in SCORER_STAGES[i:]}
        used = {m for m in imports_of(files[stage]) if within(m, package)}
        backwards.extend(f"{stage} imports {m}" for m in sorted(used & later))
    assert backwards == []


def test_no_scorer_module_is_over_400_lines() -> None:
    long = {
        p.name: n
        for p in [*modules("bot.core.scoring"), *modules("bot.core.lang")]
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > 400
    }
    assert long == {}


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The groups of modules that import each other, directly or round a loop (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    cycles: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                cycles.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return cycles


def test_no_two_modules_import_each_other() -> None:
    # Any import counts, a lazy one inside a function or one for type checking too: a loop
    # means neither module can be read, tested or moved without the other.
    found = {module_name(p): p for p in modules("bot")}
    graph = {m: {i for i in imports_of(p) if i in found and i != m} for m, p in found.items()}
    assert import_cycles(graph) == []


def test_the_cycle_check_sees_a_loop_round_three_modules() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert import_cycles(graph) == [["a", "b", "c"]]


@pytest.mark.parametrize("module", ["render.py", "keyboards.py", "picture.py"])
def test_what_draws_messages_takes_its_types_from_core_only(module: str) -> None:
    # render/keyboards/picture sit below services and handlers: what they show comes in as
    # core types, so they import nothing of the layers that call them (nor storage).
    names = imports_of(BOT / module)
    above = ("bot.services", "bot.handlers", "bot.jobs", "bot.storage", "bot.app", "bot.delivery")
    assert [n for n in names if any(within(n, layer) for layer in above)] == []
