"""The `interview-bot` command: run the bot, practise in a terminal, score, manage content."""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from pydantic import ValidationError

from bot.config import SettingRefused, Settings
from bot.core.content import (
    Library,
    Pack,
    PackError,
    load_library,
    load_pack,
    missing_paths,
    pack_files,
    parse_pack,
)
from bot.core.levels import LEVEL_CHOICES, Level, parse_level
from bot.core.yamlcache import YamlCache, beside
from bot.i18n import LANGUAGES

EXIT_CONFIG = 1  # a setting that does not fit, or a pack that does not load
EXIT_USAGE = 2  # also argparse's, for a command line that does not parse
EXIT_DATABASE = 3  # the database file is unusable: the one-line reason is on stderr
EXIT_TOKEN = 4  # Telegram rejected the token
EXIT_RUNNING = 5  # another process serves the database
EXIT_LEASE_LOST = 6  # while running, another process took the database over
EXIT_OUTPUT_CLOSED = 141  # the reader of the output went away: 128 + SIGPIPE, as `yes | head`

# What each command reads and how it exits: the epilog of its --help. `run`'s statuses are the
# table in docs/operations.md too, which a test keeps equal (tests/test_docs_match_the_code.py).
SETTINGS = "the environment, then .env in the working directory:"
DATABASE_READ = "DATABASE_PATH, the SQLite file (default data/bot.sqlite3)"
READS: dict[str, tuple[str, ...]] = {
    "run": (
        f"{SETTINGS} TELEGRAM_BOT_TOKEN, TELEGRAM_API_BASE_URL, DATABASE_PATH, CONTENT_DIR,"
        " TELEGRAM_WEBHOOK_URL, WEBHOOK_LISTEN, WEBHOOK_PORT, WEBHOOK_SECRET_TOKEN and the"
        " other settings in docs/configuration.md",
        f"{DATABASE_READ}, and its -wal, -shm, -wire, -clean, -yaml files beside it",
        "CONTENT_DIR: question packs (*.yaml), strings/, fonts/",
    ),
    "practice": (
        f"{SETTINGS} DATABASE_PATH, CONTENT_DIR, DEFAULT_TIMEZONE,"
        " LC_ALL / LC_MESSAGES / LANG (the language, without --lang)",
        f"{DATABASE_READ} (your answers and streak)",
        "CONTENT_DIR: question packs and strings/; your answers from standard input",
    ),
    "score": (
        f"{SETTINGS} CONTENT_DIR",
        "CONTENT_DIR: question packs; the answer (or --batch JSON lines) from standard input",
    ),
    "export": (f"{SETTINGS} DATABASE_PATH", DATABASE_READ),
    "backup": (f"{SETTINGS} DATABASE_PATH", f"{DATABASE_READ}: the live database it copies"),
    "restore": (
        f"{SETTINGS} DATABASE_PATH",
        "the backup file given (read only, never changed)",
        f"{DATABASE_READ} and its -wire file: the database it replaces, read to mark what was"
        " sent since the backup",
        "writes DATABASE_PATH (the backup, reconciled); moves the replaced database and every"
        " file beside it (-wal, -shm, -wire, …) into replaced-<date-time>/ in its folder",
    ),
    "health": (
        f"{SETTINGS} DATABASE_PATH, LEASE_SECONDS, TELEGRAM_WEBHOOK_URL, WEBHOOK_LISTEN,"
        " WEBHOOK_PORT (webhook mode: asks the listener's GET /healthz)",
        f"{DATABASE_READ}, read-only, with the running bot's lease",
    ),
    "content check": (
        f"{SETTINGS} CONTENT_DIR",
        "the pack files or folders given, else CONTENT_DIR/*.yaml",
    ),
    "content import": (
        f"{SETTINGS} CONTENT_DIR",
        "FILE; the shipped glossary, CONTENT_DIR/glossary/ and each --glossary",
        "writes --out, else CONTENT_DIR/<pack>.yaml",
    ),
    "content eval": (
        f"{SETTINGS} CONTENT_DIR",
        "PACK (a file, or a pack id in CONTENT_DIR) and the GRADED YAML file",
    ),
}
USAGE = "a command line that does not parse"
SETTING_OR_PACK = "a setting that does not fit, or a question pack that does not load"
OUTPUT_CLOSED = "the reader of its output went away (`| head`): it stops quietly"
UNUSABLE_DATABASE = "a database file it cannot use (the line names the file and why)"
EXIT_STATUSES: dict[str, dict[int, str]] = {
    "run": {
        0: "stopped by SIGTERM or Ctrl-C",
        EXIT_CONFIG: SETTING_OR_PACK,
        EXIT_USAGE: "no TELEGRAM_BOT_TOKEN, or a usage error",
        EXIT_DATABASE: f"{UNUSABLE_DATABASE}, at the start or found damaged while running",
        EXIT_TOKEN: "Telegram rejected the token",
        EXIT_RUNNING: "another bot already serves this database",
        EXIT_LEASE_LOST: "the database was taken over, or its file deleted or replaced,"
        " while running",
    },
    "practice": {
        0: "done (/quit, or the end of the input)",
        EXIT_CONFIG: SETTING_OR_PACK,
        EXIT_USAGE: f"no such --pack, --mock not 1-10, or {USAGE}",
        EXIT_DATABASE: UNUSABLE_DATABASE,
        EXIT_OUTPUT_CLOSED: OUTPUT_CLOSED,
    },
    "score": {
        0: "scored (with --batch: each bad line is a JSON error line)",
        EXIT_CONFIG: f"{SETTING_OR_PACK}, or an unknown question id",
        EXIT_USAGE: f"neither QUESTION_ID nor --batch, or {USAGE}",
        EXIT_OUTPUT_CLOSED: OUTPUT_CLOSED,
    },
    "export": {
        0: "written",
        EXIT_CONFIG: "a setting that does not fit, or no database at DATABASE_PATH",
        EXIT_USAGE: USAGE,
        EXIT_DATABASE: UNUSABLE_DATABASE,
        EXIT_OUTPUT_CLOSED: OUTPUT_CLOSED,
    },
    "backup": {
        0: "copied and checked",
        EXIT_CONFIG: "a setting that does not fit, no database, or FILE exists (no --force)",
        EXIT_USAGE: f"FILE is the live database itself, or {USAGE}",
        EXIT_DATABASE: UNUSABLE_DATABASE,
        EXIT_OUTPUT_CLOSED: OUTPUT_CLOSED,
    },
    "restore": {
        0: "restored (the output says where the replaced files are, and what the backup lacks)",
        EXIT_CONFIG: "no such backup file, or a setting that does not fit; nothing changed",
        EXIT_USAGE: f"the backup given is the database itself, or {USAGE}",
        EXIT_DATABASE: f"{UNUSABLE_DATABASE}: the backup, or the copy being made; nothing changed",
        EXIT_RUNNING: "a bot is running on the database: stop it first; nothing changed",
    },
    "health": {
        0: "the bot can serve, or it is stopped (no bot is running) and the database answers",
        EXIT_CONFIG: "unhealthy (stuck, no database, listener not answering),"
        " or a setting that does not fit",
        EXIT_USAGE: USAGE,
        EXIT_DATABASE: UNUSABLE_DATABASE,
        EXIT_OUTPUT_CLOSED: OUTPUT_CLOSED,
    },
    "content check": {
        0: "every pack loads",
        EXIT_CONFIG: "a pack that does not load, no pack files, warnings with --strict,"
        " or a setting that does not fit",
        EXIT_USAGE: USAGE,
        EXIT_OUTPUT_CLOSED: OUTPUT_CLOSED,
    },
    "content import": {
        0: "the draft pack is written",
        EXIT_CONFIG: "FILE unreadable, a draft that does not validate, the output exists"
        " (no --force), or a setting that does not fit",
        EXIT_USAGE: f"a --pack id that is not a-z, 0-9, - and _, or {USAGE}",
        EXIT_OUTPUT_CLOSED: OUTPUT_CLOSED,
    },
    "content eval": {
        0: "the report is printed",
        EXIT_CONFIG: "no such pack, a graded file that does not read, or a setting that"
        " does not fit",
        EXIT_USAGE: USAGE,
        EXIT_OUTPUT_CLOSED: OUTPUT_CLOSED,
    },
}


def _epilog(command: str) -> str:
    """The `reads:` and `exit statuses:` of a command's --help, wrapped to 88 columns."""
    import textwrap

    def wrap(text: str, first: str, rest: str) -> list[str]:
        return textwrap.wrap(text, 88, initial_indent=first, subsequent_indent=rest)

    reads = [line for text in READS[command] for line in wrap(text, "  ", "    ")]
    width = max(len(str(n)) for n in EXIT_STATUSES[command])
    statuses = [
        line
        for n, why in sorted(EXIT_STATUSES[command].items())
        for line in wrap(why, f"  {n:<{width}}  ", " " * (4 + width))
    ]
    return "\n".join(["reads:", *reads, "", "exit statuses:", *statuses])


def _command(
    sub: argparse._SubParsersAction[argparse.ArgumentParser], name: str, key: str, help: str
) -> argparse.ArgumentParser:
    """A subcommand whose --help ends with what it reads and how it exits (READS and
    EXIT_STATUSES under `key`)."""
    return sub.add_parser(
        name,
        help=help,
        epilog=_epilog(key),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )


def _settings() -> Settings:
    try:
        return Settings()
    except ValidationError as exc:
        # One line per setting, each whole: grep-able, and none hidden at the end of another.
        raise SystemExit(
            "\n".join(
                f"Configuration error: {'.'.join(map(str, e['loc'])).upper()}:"
                f" {e['msg'].removeprefix('Value error, ')}"
                for e in exc.errors()
            )
        ) from None


def _library(
    settings: Settings, paths: Sequence[Path] = (), cache: YamlCache | None = None
) -> Library:
    try:
        return load_library(paths or [settings.content_dir], cache)
    except PackError as exc:
        raise SystemExit(f"Content error:\n{exc}") from None


def _level_arg(word: str) -> Level:
    level = parse_level(word)
    if level is None:
        raise argparse.ArgumentTypeError(f"unknown level {word!r}; use {LEVEL_CHOICES}")
    return level


# -- content ---------------------------------------------------------------------------------


def cmd_content_check(args: argparse.Namespace) -> int:
    # only `content check` needs them
    from bot.core.authoring import duplicate_warnings, level_warnings, pack_warnings

    settings = _settings()
    paths = [Path(p) for p in args.paths] or [settings.content_dir]
    if missing := missing_paths(paths):
        print("\n".join(missing), file=sys.stderr)
        return 1
    files = pack_files(paths)
    if not files:
        print(f"No pack files (*.yaml) in {', '.join(map(str, paths))}", file=sys.stderr)
        return 1
    failed = False
    loaded: list[Path] = []
    packs: list[tuple[str, Pack]] = []
    for file in files:
        try:
            pack = load_pack(file)
        except PackError as exc:
            failed = True
            for problem in exc.problems:
                print(problem, file=sys.stderr)
            continue
        loaded.append(file)
        packs.append((str(file), pack))
        levels = Counter(q.level for q in pack.questions)
        detail = ", ".join(f"{levels[lv]} {lv.value}" for lv in Level if levels[lv])
        count = f"{len(pack.questions)} question{'' if len(pack.questions) == 1 else 's'}"
        about = f"{pack.language}, field {pack.field}" + (
            f", translates {pack.translates}" if pack.translates else ""
        )
        print(f"OK {file}: pack {pack.id} ({about}), {count} ({detail})")
        warnings = pack_warnings(pack)
        # Levels out of balance are advice (a pack may be meant for one level): not --strict.
        for warning in (*level_warnings(pack), *warnings):
            print(f"warning: {file}: {warning}")
        if warnings and args.strict:
            failed = True
    # The same question in other words, in one file or across them.
    duplicates = duplicate_warnings(packs)
    for warning in duplicates:
        print(f"warning: {warning}")
    if duplicates and args.strict:
        failed = True
    # Ids repeated across the files that load, whatever else is broken: one broken file
    # must not hide another problem.
    if len(loaded) > 1:
        try:
            load_library(loaded)  # duplicate ids across files
        except PackError as exc:
            print(exc, file=sys.stderr)
            failed = True
    return 1 if failed else 0


def _pack_yaml(pack: object) -> str:
    """A pack as YAML, multi-line texts as literal blocks (PyYAML: only this command writes)."""
    import yaml

    class LiteralDumper(yaml.SafeDumper):
        pass

    def literal(dumper: yaml.SafeDumper, data: str) -> yaml.ScalarNode:
        style = "|" if "\n" in data else None
        return dumper.represent_scalar("tag:yaml.org,2002:str", data, style=style)

    LiteralDumper.add_representer(str, literal)
    return yaml.dump(pack, Dumper=LiteralDumper, allow_unicode=True, sort_keys=False, width=100)


# The field's glossary shipped beside the package (a clone, an editable install, the image):
# an import run from another folder, where CONTENT_DIR/glossary does not exist, still gets
# its bilingual aliases. CONTENT_DIR/glossary and --glossary extend it.
SHIPPED_GLOSSARY = Path(__file__).resolve().parent.parent / "content" / "glossary"


def _glossary_paths(settings: Settings, extra: Sequence[str]) -> list[Path]:
    """The glossary folders and files an import reads, each once."""
    paths: list[Path] = []
    for path in (SHIPPED_GLOSSARY, settings.content_dir / "glossary", *map(Path, extra)):
        if path.resolve() not in {p.resolve() for p in paths}:
            paths.append(path)
    return paths


def cmd_content_import(args: argparse.Namespace) -> int:
    # Only this command needs the importer (and its segmenters).
    from bot.core.glossary import GlossaryError, load_glossary
    from bot.core.importer import ImportError_, import_document
    from bot.core.textfile import UnreadableFile, read_text

    settings = _settings()
    source = Path(args.file)
    try:
        text, encoding = read_text(source, other_encodings=True)
    except UnreadableFile as exc:
        print(f"{source}: {exc}", file=sys.stderr)
        return 1
    try:
        glossary = load_glossary(_glossary_paths(settings, args.glossary))
        pack, warnings = import_document(
            text,
            args.pack,
            title=args.title,
            language=args.language,
            glossary=glossary,
            source_name=source.name,
        )
    except (ImportError_, GlossaryError) as exc:
        print(f"{source}: {exc}", file=sys.stderr)
        return 1
    out = Path(args.out) if args.out else settings.content_dir / f"{args.pack}.yaml"
    header = (
        f"# Imported from {source.name} by `interview-bot content import`.\n"
        "# A draft: each concept is one claim of the reference answer, with the key terms a\n"
        "# good answer states (aliases, both languages via the glossary) and, for `X：…`\n"
        "# claims, the subject they are said of. Review labels, aliases and weights, set the\n"
        "# field (docs/packs.md lists them), remove `draft: true`, then run\n"
        "# `interview-bot content check`.\n"
    )
    body = _pack_yaml(pack)
    try:
        parse_pack(body, str(out))
    except PackError as exc:
        print(f"The imported pack does not validate:\n{exc}", file=sys.stderr)
        return 1
    if out.exists() and not args.force:
        print(f"{out} exists; pass --force to overwrite, or --out another path", file=sys.stderr)
        return 1
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(header + body, encoding="utf-8")
    if encoding != "UTF-8":
        warnings.insert(0, f"{source} is {encoding}, not UTF-8: read as {encoding}")
    if not any(glossary.groups):
        warnings.insert(
            0,
            f"no glossary found (looked in {settings.content_dir / 'glossary'}): concepts got "
            "no aliases in the other language; set CONTENT_DIR or pass --glossary",
        )
    for warning in warnings:
        print(f"warning: {warning}", file=sys.stderr)
    levels = Counter(q["level"] for q in pack["questions"])
    detail = ", ".join(f"{levels[lv.value]} {lv.value}" for lv in Level if levels[lv.value])
    n = len(pack["questions"])
    print(f"Wrote {out}: {n} question{'' if n == 1 else 's'} ({detail}). Review its concepts.")
    return 0


def _pack_arg(settings: Settings, name: str) -> Pack | None:
    """A pack by file path, or by id among the packs in CONTENT_DIR."""
    path = Path(name)
    if path.suffix in (".yaml", ".yml") or path.exists():
        return load_pack(path)
    return _library(settings).packs.get(name)


def cmd_content_eval(args: argparse.Namespace) -> int:
    from bot.core.evaluation import GradedError, agreement, parse_graded, report

    settings = _settings()
    try:
        pack = _pack_arg(settings, args.pack)
    except PackError as exc:
        print(exc, file=sys.stderr)
        return 1
    if pack is None:
        print(
            f"No pack {args.pack!r}: give a pack file or the id of a pack in "
            f"{settings.content_dir}",
            file=sys.stderr,
        )
        return 1
    from bot.core.content import yaml_problem
    from bot.core.yamlcache import YamlError, parse_yaml

    text = ""
    try:
        text = Path(args.graded).read_text(encoding="utf-8")
        data = parse_yaml(text)
        graded = parse_graded(data, args.graded)
        result = agreement({q.id: q for q in pack.questions}, graded, worst=args.worst)
    except YamlError as exc:  # PyYAML's own text names "<unicode string>": not the file
        print(f"Cannot evaluate {args.graded}: {yaml_problem(exc, text)}", file=sys.stderr)
        return 1
    except (OSError, UnicodeDecodeError, GradedError) as exc:
        print(f"Cannot evaluate {args.graded}: {exc}", file=sys.stderr)
        return 1
    print(f"pack {pack.id} ({len(pack.questions)} questions) against {args.graded}")
    print(report(result))
    return 0


# -- score -----------------------------------------------------------------------------------


def _score_line(library: Library, line: str, number: int) -> dict[str, object]:
    try:
        item = json.loads(line)
    except json.JSONDecodeError as exc:
        return {"line": number, "error": f"invalid JSON: {exc.msg}"}
    if not isinstance(item, dict):
        return {"line": number, "error": "expected an object with question_id and answer"}
    qid, answer = item.get("question_id"), item.get("answer")
    if not isinstance(qid, str):
        return {"line": number, "error": "missing question_id"}
    if not isinstance(answer, str):
        return {"line": number, "question_id": qid, "error": "missing answer (a string)"}
    question = library.question(qid)
    if question is None:
        return {"line": number, "question_id": qid, "error": f"unknown question_id {qid!r}"}
    from bot.core.scoring import score_answer  # not loaded by the commands that do not score

    return score_answer(question, answer).summary()


def cmd_score(args: argparse.Namespace, stdin: TextIO | None = None) -> int:
    stdin = stdin or sys.stdin
    library = _library(_settings())
    if args.batch:
        for number, line in enumerate(stdin, start=1):
            if not line.strip():
                continue
            result = _score_line(library, line, number)
            print(json.dumps(result, ensure_ascii=False), flush=True)
        return 0
    if not args.question_id:
        print("Give a QUESTION_ID, or --batch for JSON lines", file=sys.stderr)
        return EXIT_USAGE
    question = library.question(args.question_id)
    if question is None:
        known = ", ".join(sorted(library.questions)[:20])
        print(f"Unknown question id {args.question_id!r}. Known: {known}", file=sys.stderr)
        return 1
    from bot.core.scoring import score_answer

    scored = score_answer(question, stdin.read())
    print(json.dumps(scored.summary(), ensure_ascii=False))
    return 0


# -- run / practice / export -----------------------------------------------------------------


def cmd_run(args: argparse.Namespace) -> int:
    settings = _settings()
    if settings.telegram_bot_token is None:
        print(
            "TELEGRAM_BOT_TOKEN is not set.\n"
            "  1. Create a bot with @BotFather and copy its token.\n"
            "  2. cp .env.example .env and put the token in TELEGRAM_BOT_TOKEN.\n"
            "To try the questions without Telegram: interview-bot practice (or make practice).",
            file=sys.stderr,
        )
        return EXIT_USAGE
    from bot.logs import install_excepthook, register_secrets

    # From here on, a traceback nobody catches is printed with the token redacted.
    secrets = (settings.telegram_bot_token, settings.webhook_secret_token)
    register_secrets([s.get_secret_value() for s in secrets if s is not None])
    install_excepthook()
    # The packs' and strings' parsed YAML from the last start, beside the database (written
    # back by build_application once the database is checked): read, not parsed, if unchanged.
    database = settings.database_path
    cache = YamlCache(None if str(database) == ":memory:" else beside(database))
    library = _library(settings, cache=cache)
    from bot.jobs.lease import LeaseLost, LeaseTaken, refuse_if_served

    # A database another process serves is not touched: not even migrated (a newer version
    # started beside an older one would change the schema under it).
    try:
        refuse_if_served(database)
    except LeaseTaken as exc:
        print(exc, file=sys.stderr)
        return EXIT_RUNNING
    was_empty = str(database) != ":memory:" and database.is_file() and database.stat().st_size == 0
    # The database is checked (and migrated) before anything talks to Telegram, so a bad file
    # stops the bot with its one-line reason and no network traffic.
    asyncio.run(_check_database(settings))
    from telegram.error import InvalidToken

    from bot.app import TokenRejectedWhilePolling, run_bot  # Telegram is imported only here

    try:
        # Checked above: once per start.
        run_bot(settings, library, checked=True, cache=cache, was_empty=was_empty)
    except InvalidToken:
        # PTB's own message quotes the token: say what happened without it.
        print(
            "Telegram rejected TELEGRAM_BOT_TOKEN (getMe answered 401/404): check the token"
            " with @BotFather and the TELEGRAM_API_BASE_URL.",
            file=sys.stderr,
        )
        return EXIT_TOKEN
    except TokenRejectedWhilePolling:
        print(
            "Telegram rejected TELEGRAM_BOT_TOKEN while the bot was running (401/404):"
            " was it revoked with @BotFather? Check it and the TELEGRAM_API_BASE_URL;"
            " the messages owed are sent by the next start.",
            file=sys.stderr,
        )
        return EXIT_TOKEN
    except SettingRefused as exc:
        print(f"Configuration error: {exc}", file=sys.stderr)
        return EXIT_CONFIG
    except LeaseTaken as exc:
        print(exc, file=sys.stderr)
        return EXIT_RUNNING
    except LeaseLost as exc:
        print(exc, file=sys.stderr)
        return EXIT_LEASE_LOST
    return 0


async def _check_database(settings: Settings) -> None:
    from bot.storage import Storage
    from bot.storage.wire import check_wire_log, wire_log_path

    check_wire_log(wire_log_path(settings.database_path))  # a folder there: status 3
    storage = Storage(settings.database_path)
    await storage.open()
    await storage.close()


def cmd_practice(args: argparse.Namespace) -> int:
    settings = _settings()
    library = _library(settings)
    if args.pack and args.pack not in library.packs:
        print(f"No pack {args.pack!r}. Packs: {', '.join(library.packs)}", file=sys.stderr)
        return EXIT_USAGE
    from bot.core.mock import MAX_COUNT, MIN_COUNT
    from bot.terminal import run_practice

    if args.mock is not None and not MIN_COUNT <= args.mock <= MAX_COUNT:
        print(f"--mock takes {MIN_COUNT} to {MAX_COUNT} questions, e.g. --mock 5", file=sys.stderr)
        return EXIT_USAGE
    return asyncio.run(
        run_practice(
            settings, library, level=args.level, pack=args.pack, lang=args.lang, mock=args.mock
        )
    )


def cmd_export(args: argparse.Namespace) -> int:
    settings = _settings()
    from bot.core.models import StoredAnswer
    from bot.export import answers_csv
    from bot.storage import Storage

    async def rows() -> list[StoredAnswer]:
        storage = Storage(settings.database_path)
        await storage.open()
        try:
            return await storage.answers_for(args.user)
        finally:
            await storage.close()

    if not settings.database_path.exists():
        print(f"No database at {settings.database_path}", file=sys.stderr)
        return 1
    found = asyncio.run(rows())
    text = answers_csv(found)
    if args.out:
        Path(args.out).write_text(text, encoding="utf-8-sig")
        print(f"Wrote {len(found)} answers to {args.out}", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0


# -- operations: backup, health ---------------------------------------------------------------


def cmd_backup(args: argparse.Namespace) -> int:
    settings = _settings()
    from bot.storage import backup_database, schema_version

    source, target = settings.database_path, Path(args.file)
    if not source.exists():
        print(f"No database at {source} (DATABASE_PATH)", file=sys.stderr)
        return 1
    if target.exists() and target.resolve() == source.resolve():
        print(f"{target} is the live database itself; choose another file", file=sys.stderr)
        return EXIT_USAGE
    if target.exists() and not args.force:
        print(f"{target} exists; pass --force to overwrite it", file=sys.stderr)
        return 1
    pages = asyncio.run(backup_database(source, target, known_version=schema_version()))
    size = target.stat().st_size
    print(f"Backed up {source} to {target}: {pages} pages, {size / 1024:.0f} KB, checked")
    return 0


def _count(n: int, noun: str) -> str:
    return f"{n:,} {noun}{'' if n == 1 else 's'}"


def cmd_restore(args: argparse.Namespace) -> int:
    settings = _settings()
    from datetime import UTC, datetime

    from bot.storage import schema_version
    from bot.storage.restore import restore, running_holder

    backup, database = Path(args.backup), settings.database_path
    if not backup.is_file():
        print(f"No backup at {backup}", file=sys.stderr)
        return EXIT_CONFIG
    if database.exists() and backup.resolve() == database.resolve():
        print(f"{backup} is the database itself (DATABASE_PATH); give a backup", file=sys.stderr)
        return EXIT_USAGE
    holder = running_holder(database)
    if holder is not None:
        import socket

        # On another host (another container) only the lease can tell: a bot killed there
        # lets it go when it runs out.
        until = (
            ""
            if holder.host == socket.gethostname()
            else f", its lease running until {holder.expires_at:%H:%M:%S} UTC"
        )
        print(
            f"A bot is running on {database} (pid {holder.pid} on {holder.host}{until}): stop"
            " it first (docker stop interview-bot, or stop `interview-bot run`), then restore"
            " again. Nothing was changed.",
            file=sys.stderr,
        )
        return EXIT_RUNNING
    now = datetime.now(UTC)
    done = restore(backup, database, known_version=schema_version(), now=now)
    print(f"Restored {backup} to {database}.")
    if done.aside is not None:
        print(f"The replaced files ({', '.join(done.moved)}) are in {done.aside}/.")
    if done.compared:
        print(
            "Sent after the backup, so marked and not sent again:"
            f" {_count(done.marked_sent, 'message')}, and {done.marked_unknown:,} that may"
            " have arrived (in flight when the bot stopped)."
        )
        lost = []
        if done.answers_lost:
            since = done.first_lost.strftime("%Y-%m-%d %H:%M UTC") if done.first_lost else "?"
            lost.append(f"{_count(done.answers_lost, 'answer')} given from {since}")
        if done.users_lost:
            lost.append(f"{_count(done.users_lost, 'user')} who started since")
        print(
            f"Not in the backup: {', '.join(lost) or 'no answers given since'}; settings"
            " changed since (schedules, levels, languages) are as they were then. The"
            " replaced database keeps them."
        )
    else:
        why = (
            f"{database} could not be read ({done.unreadable})"
            if done.unreadable
            else f"there was no database at {database}"
        )
        print(
            f"Nothing to compare with ({why}): {done.assumed:,} messages and daily prompts"
            " the backup owed whose time had come count as possibly sent by the lost"
            " database and are not sent."
        )
    print(
        f"Still owed, sent once the bot starts: {_count(done.still_owed, 'message')} recorded"
        " in the backup; daily prompts not served yet go out on their schedule. No bot holds"
        " the database: start it."
    )
    return 0


HEARTBEAT_LEASES = 3  # a heartbeat older than this many lease periods: the bot is stuck


def cmd_health(args: argparse.Namespace) -> int:
    """Exit 0 if the bot can serve (what the container's HEALTHCHECK runs).

    Webhook mode asks the running listener's /healthz; polling mode opens the database
    read-only, queries it, and reads the running bot's heartbeat (its lease, renewed every
    third of LEASE_SECONDS): one older than a few lease periods means the bot is stuck (its
    event loop or its database writes). No lease at all: no bot is running on the database
    (before a start, after a stop), which says nothing against the file.
    """
    settings = _settings()
    if settings.telegram_webhook_url:
        import urllib.request

        host = settings.webhook_listen
        if host in ("0.0.0.0", "::", ""):  # noqa: S104 - listening everywhere: ask locally
            host = "127.0.0.1"
        url = f"http://{host}:{settings.webhook_port}/healthz"
        try:
            with urllib.request.urlopen(url, timeout=5) as response:
                healthy = response.status == 200
        except OSError as exc:
            print(f"unhealthy: {url}: {exc}", file=sys.stderr)
            return 1
        print(f"ok: {url}" if healthy else f"unhealthy: {url}")
        return 0 if healthy else 1
    from datetime import UTC, datetime

    from bot.storage import Storage
    from bot.storage.outbox import LeaseHolder, gone

    database = settings.database_path
    if not database.exists():
        print(f"unhealthy: no database at {database}", file=sys.stderr)
        return 1

    async def check() -> tuple[bool, LeaseHolder | None]:
        storage = Storage(database)
        await storage.open_readonly()
        try:
            return await storage.ping(), await storage.lease_holder()
        finally:
            await storage.close()

    answers, holder = asyncio.run(check())
    if not answers:
        print(f"unhealthy: database {database} does not answer", file=sys.stderr)
        return 1
    if holder is None:
        print(f"ok: stopped: database {database} answers; no bot is running on it")
        return 0
    if gone(holder):  # it stopped without giving its lease back (kill -9, a crash)
        print(
            f"ok: stopped: database {database} answers; no bot is running on it"
            f" (pid {holder.pid}, which held it, is gone)"
        )
        return 0
    age = (datetime.now(UTC) - holder.heartbeat_at).total_seconds()
    bot = f"the bot on {database} (pid {holder.pid} on {holder.host})"
    if age > HEARTBEAT_LEASES * settings.lease_seconds:
        print(
            f"unhealthy: {bot} last renewed its lease {age:.0f} s ago; it renews every"
            f" {settings.lease_seconds / 3:.3g} s (LEASE_SECONDS {settings.lease_seconds:g}):"
            " stuck or gone",
            file=sys.stderr,
        )
        return 1
    print(f"ok: database {database} answers; {bot} renewed its lease {age:.1f} s ago")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="interview-bot",
        description=__doc__,
        epilog="Each command's --help names what it reads and its exit statuses.",
    )
    sub = parser.add_subparsers(dest="command", required=True)

    run = _command(
        sub, "run", "run", help="start the Telegram bot (long polling, or webhook if set)"
    )
    run.set_defaults(func=cmd_run)

    practice = _command(sub, "practice", "practice", help="answer questions in the terminal")
    practice.add_argument("--level", type=_level_arg, help=LEVEL_CHOICES)
    practice.add_argument("--pack", help="pack id, e.g. triton")
    practice.add_argument(
        "--mock", type=int, metavar="N", help="a mock interview of N questions (1-10)"
    )
    practice.add_argument(
        "--lang", choices=LANGUAGES, help="interface language (default: from LC_ALL/LANG)"
    )
    practice.set_defaults(func=cmd_practice)

    score = _command(sub, "score", "score", help="score an answer read from stdin, as JSON")
    score.add_argument("question_id", nargs="?", help="e.g. triton-q3")
    score.add_argument("--batch", action="store_true", help="read JSON lines of answers")
    score.set_defaults(func=cmd_score)

    export = _command(sub, "export", "export", help="a user's answers as CSV")
    export.add_argument(
        "--user", type=int, default=0, help="Telegram user id (default 0: terminal practice)"
    )
    export.add_argument("--out", help="file to write (default: standard output)")
    export.set_defaults(func=cmd_export)

    backup = _command(
        sub,
        "backup",
        "backup",
        help="copy the live database safely (SQLite's online backup), e.g. from cron",
    )
    backup.add_argument("file", help="the copy to write, e.g. backups/bot-2026-03-02.sqlite3")
    backup.add_argument("--force", action="store_true", help="overwrite an existing file")
    backup.set_defaults(func=cmd_backup)

    restore = _command(
        sub,
        "restore",
        "restore",
        help="bring a backup in place of the database; nothing sent since is sent again",
    )
    restore.add_argument("backup", help="a file `interview-bot backup` wrote")
    restore.set_defaults(func=cmd_restore)

    health = _command(sub, "health", "health", help="exit 0 if the bot can serve (for HEALTHCHECK)")
    health.set_defaults(func=cmd_health)

    content = sub.add_parser("content", help="check or import question packs")
    content_sub = content.add_subparsers(dest="content_command", required=True)
    check = _command(content_sub, "check", "content check", help="validate pack files")
    check.add_argument("paths", nargs="*", help="files or folders (default: CONTENT_DIR)")
    check.add_argument(
        "--strict", action="store_true", help="fail on authoring warnings too (exit 1)"
    )
    check.set_defaults(func=cmd_content_check)
    imp = _command(
        content_sub,
        "import",
        "content import",
        help="turn a Q&A document (seed text, Markdown, CSV/TSV) into a draft pack",
    )
    imp.add_argument("file")
    imp.add_argument("--pack", required=True, help="id of the new pack (a-z, 0-9, - and _)")
    imp.add_argument("--out", help="output file (default: CONTENT_DIR/<pack>.yaml)")
    imp.add_argument("--title", help="pack title (default: the document's first line)")
    imp.add_argument("--language", help="language of the questions (default: detected)")
    imp.add_argument(
        "--glossary",
        action="append",
        default=[],
        help="extra glossary file or folder (besides the shipped one and CONTENT_DIR/glossary)",
    )
    imp.add_argument("--force", action="store_true", help="overwrite an existing file")
    imp.set_defaults(func=cmd_content_import)
    ev = _command(
        content_sub,
        "eval",
        "content eval",
        help="measure how a pack's scores agree with graded answers (rho, pairwise)",
    )
    ev.add_argument("pack", help="a pack file, or the id of a pack in CONTENT_DIR")
    ev.add_argument("graded", help="YAML file: question id -> [{grade, answer, kind}]")
    ev.add_argument("--worst", type=int, default=5, help="disagreements to show (default 5)")
    ev.set_defaults(func=cmd_content_eval)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "command", None) != "run":
        gc.enable()  # off while the program loaded (bot/entry.py); `run` turns it on itself
    if getattr(args, "command", None) == "content" and args.content_command == "import":
        import re

        from bot.core.content import ID_PATTERN

        if not re.match(ID_PATTERN, args.pack):
            parser.error(f"--pack {args.pack!r}: use lower-case letters, digits, - and _")
    from bot.storage.files import DatabaseFileError

    try:
        code: int = args.func(args)
        sys.stdout.flush()  # a pipe's buffer: a reader gone shows here, not at exit
    except DatabaseFileError as exc:
        print(exc, file=sys.stderr)
        return EXIT_DATABASE
    except BrokenPipeError:
        return _output_closed()
    return code


def _output_closed() -> int:
    """The reader of our output went away (`interview-bot practice | head`): stop quietly,
    as a Unix tool stopped by SIGPIPE does, instead of a traceback. What is left in the
    buffer goes nowhere (Python would flush it at exit and print the error again)."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    return EXIT_OUTPUT_CLOSED
