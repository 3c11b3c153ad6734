"""Question packs: the pydantic models, YAML loading and validation with readable errors.

A pack is data (YAML in `content/`); this module turns it into validated models and turns
every problem into a `PackError` that names the file, the question id and the field. With a
cache (`interview-bot run`), a pack text this code validated on an earlier start is rebuilt
from the fields it validated to, without validating again (issue 30: a pack costs a start
next to nothing); a changed text, or changed validating code, is validated as before.
"""

from __future__ import annotations

import hashlib
import re
import sys
import unicodedata
from collections.abc import Callable, Collection, Iterable, Sequence
from functools import cache as once
from pathlib import Path
from typing import Annotated, Any

import pydantic
import pydantic_core
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator
from pydantic_core import PydanticCustomError

from bot.core.levels import Level, parse_level
from bot.core.text import one_latin_character, words_of
from bot.core.textfile import UnreadableFile, read_text
from bot.core.yamlcache import YamlCache, YamlError, parse_yaml, yaml_loader

ID_PATTERN = r"^[a-z0-9][a-z0-9_-]{0,47}$"  # short enough for callback data

NonEmpty = Annotated[str, Field(min_length=1)]

DEFAULT_FIELD = "general"  # the field of a pack that names none


NAME_CHARS = 40  # a concept label longer than this is a claim (a sentence), not a name


class Concept(BaseModel):
    """A key idea a good answer mentions, with every natural way of saying it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    label: Annotated[str, Field(min_length=1, max_length=120)]
    aliases: tuple[NonEmpty, ...] = ()
    weight: float = Field(default=1.0, gt=0, le=10)
    # Optional: the same idea in several questions (e.g. "observability"), so a learner's
    # weak spots are found across questions, not only within one.
    topic: Annotated[str, Field(pattern=ID_PATTERN)] | None = None
    # Optional: what the claim is about (`prefill` in "prefill is compute-bound"). An alias
    # only counts when the nearest subject named around it is this one, so a claim said of
    # another subject of the question ("decode is compute-bound") does not cover it.
    subject: tuple[NonEmpty, ...] = ()
    # Optional: further parts that must be said in the same sentence as an alias, each part
    # a list of ways to say it (`max_batch_size` + `0` for "set max_batch_size to 0").
    requires: tuple[tuple[NonEmpty, ...], ...] = ()
    # Optional, instead of or besides aliases: the claim's key terms, each a list of ways to
    # say it. Stating two of them (or all, if fewer) states the claim; one earns its share.
    terms: tuple[tuple[NonEmpty, ...], ...] = ()

    @field_validator("label", "aliases", "subject", mode="before")
    @classmethod
    def _strip(cls, value: Any) -> Any:
        if isinstance(value, str):
            return value.strip()
        if isinstance(value, list | tuple):
            return tuple(str(v).strip() if isinstance(v, str | int | float) else v for v in value)
        return value

    @field_validator("requires", "terms", mode="before")
    @classmethod
    def _strip_parts(cls, value: Any) -> Any:
        if isinstance(value, list | tuple):
            return tuple(cls._strip(part) for part in value)
        return value

    @model_validator(mode="after")
    def _matchable(self) -> Concept:
        parts = (*self.requires, *self.terms)
        for phrase in (*self.phrases, *self.subject, *(p for part in parts for p in part)):
            # The words only (start-up validates every phrase of every pack: no offsets).
            words = words_of(phrase)
            if not words:
                raise ValueError(f"phrase {phrase!r} has no letters, digits or CJK characters")
            if one_latin_character(words):  # tokenized once: start-up validates every phrase
                raise ValueError(
                    f"phrase {phrase!r} is a single character and would match anywhere"
                )
        return self

    @property
    def phrases(self) -> tuple[str, ...]:
        """The label and the aliases: everything that counts as naming this concept.

        A concept given as key terms has a sentence for a label, not a name: only its
        aliases (if any) name it.
        """
        return self.aliases if self.terms else (self.label, *self.aliases)


class Question(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: Annotated[str, Field(pattern=ID_PATTERN)]
    level: Level
    question: Annotated[str, Field(min_length=1, max_length=3000)]
    answer: Annotated[str, Field(min_length=1, max_length=30000)]
    concepts: tuple[Concept, ...] = Field(min_length=1, max_length=40)
    tags: tuple[str, ...] = ()

    @field_validator("level", mode="before")
    @classmethod
    def _level_words(cls, value: Any) -> Any:
        if isinstance(value, str):
            level = parse_level(value)
            if level is None:
                raise ValueError(f"unknown level {value!r}; use beginner, intermediate or advanced")
            return level
        return value

    @field_validator("question", "answer", mode="before")
    @classmethod
    def _strip_text(cls, value: Any) -> Any:
        return value.strip() if isinstance(value, str) else value

    @model_validator(mode="after")
    def _unique_labels(self) -> Question:
        seen: set[str] = set()
        for concept in self.concepts:
            key = concept.label.casefold()
            if key in seen:
                raise ValueError(f"concept label {concept.label!r} appears twice")
            seen.add(key)
        return self

    @property
    def total_weight(self) -> float:
        return sum(c.weight for c in self.concepts)


class Pack(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: Annotated[str, Field(pattern=ID_PATTERN)]
    title: Annotated[str, Field(min_length=1, max_length=120)]
    language: Annotated[str, Field(pattern=r"^[a-z]{2}(-[A-Za-z]{2,4})?$")]
    # The interview field the pack prepares for (`/start` offers one button per field, and
    # `/packs` shows it): an id such as `ml-serving` or `databases`; docs/packs.md lists them.
    field: Annotated[str, Field(pattern=ID_PATTERN)] = DEFAULT_FIELD
    # The id of the pack this one is a translation of: where both are there, a user gets the
    # one in their language, whichever of the two they follow or name.
    translates: Annotated[str, Field(pattern=ID_PATTERN)] | None = None
    tags: tuple[str, ...] = ()
    description: str = ""
    # Written by `content import`: the concepts are the importer's, not yet a person's.
    # `content check` warns until the reviewer removes it.
    draft: bool = False
    questions: tuple[Question, ...] = Field(min_length=1)

    @model_validator(mode="after")
    def _unique_question_ids(self) -> Pack:
        seen: set[str] = set()
        for q in self.questions:
            if q.id in seen:  # parse_pack names it with its lines; this guards the model
                raise PydanticCustomError(
                    "duplicate_question_id", "question id {id} appears twice", {"id": q.id}
                )
            seen.add(q.id)
        return self


class PackError(Exception):
    """One or more problems in pack files, each naming file, question and field."""

    def __init__(self, problems: Sequence[str]) -> None:
        self.problems = list(problems)
        super().__init__("\n".join(self.problems))


def problem_line(
    source: str | Path, message: str, question: str | None = None, field: str | None = None
) -> str:
    """`file: question ID: field NAME: message`, leaving out the parts there is none of (a
    YAML syntax error is in no question, a pack's title in no question)."""
    parts = [str(source)]
    if question:
        parts.append(f"question {question}")
    if field:
        parts.append(f"field {field}")
    return ": ".join([*parts, message])


def question_id_lines(text: str) -> dict[str, list[int]]:
    """The lines (from 1) where each question's `id:` is written; {} if not YAML."""
    import yaml  # for an error message only

    try:
        root = yaml.compose(text, Loader=yaml_loader())  # a safe loader
    except yaml.YAMLError:
        return {}
    lines: dict[str, list[int]] = {}
    for key, value in root.value if isinstance(root, yaml.MappingNode) else ():
        if key.value != "questions" or not isinstance(value, yaml.SequenceNode):
            continue
        for item in value.value:
            for k, v in item.value if isinstance(item, yaml.MappingNode) else ():
                if k.value == "id" and isinstance(v, yaml.ScalarNode):
                    lines.setdefault(v.value, []).append(v.start_mark.line + 1)
    return lines


def _location(data: Any, loc: tuple[int | str, ...]) -> tuple[str | None, str | None]:
    """Turn a pydantic error location into (question id, dotted field path), None for none."""
    question = None
    parts: list[str] = []
    if len(loc) >= 2 and loc[0] == "questions" and isinstance(loc[1], int):
        idx = loc[1]
        qs = data.get("questions") if isinstance(data, dict) else None
        item = qs[idx] if isinstance(qs, list) and idx < len(qs) else None
        qid = item.get("id") if isinstance(item, dict) else None
        question = str(qid) if qid else f"#{idx + 1}"
        loc = loc[2:]
    for part in loc:
        if isinstance(part, int):
            parts.append(f"[{part}]")
        else:
            parts.append(("." if parts else "") + str(part))
    return question, "".join(parts) or None


def parse_pack(text: str, source: str, cache: YamlCache | None = None) -> Pack:
    """Validate YAML text as a pack; raise PackError naming `source`, question and field.

    `cache`: where the text's parsed data, or the pack this very code validated it to on an
    earlier start, may already be.
    """
    code = validating_code() if cache is not None else None
    if cache is not None and code is not None:
        kept = cache.validated(text, code)
        pack = _rebuilt(kept) if isinstance(kept, dict) else None
        if pack is not None:
            return pack
    pack = _validated(text, source, cache)
    if cache is not None and code is not None:
        cache.keep_validated(text, code, pack.model_dump(mode="json", exclude_unset=True))
    return pack


@once
def validating_code() -> str | None:
    """A stamp of the code that validates a pack: the source of this module and of those its
    validators call, pydantic's version and Python's Unicode data (NFKC in `words_of`).
    None when a source cannot be read: then nothing validated is kept or reused."""
    digest = hashlib.sha256()
    for name in (__name__, "bot.core.levels", "bot.core.text"):
        try:
            digest.update(Path(str(sys.modules[name].__file__)).read_bytes())
        except (OSError, TypeError):
            return None
    versions = (pydantic.VERSION, pydantic_core.__version__, unicodedata.unidata_version)
    digest.update(repr(versions).encode())
    return digest.hexdigest()


def _tuples(parts: list[list[str]]) -> tuple[tuple[str, ...], ...]:
    return tuple(map(tuple, parts))


class _Rebuild:
    """How one model comes back from its validated JSON (`model_dump(mode="json",
    exclude_unset=True)`) without validating it again: what pydantic's `model_construct`
    does, without its per-field alias lookups (five times faster: a pack is rebuilt on
    every start). A field JSON does not give back as its type is converted (lists to
    tuples, a level's text to its Level, nested models rebuilt); a field not set takes its
    default; the fields set are those the validated model had."""

    def __init__(self, model: type[BaseModel], convert: dict[str, Callable[[Any], Any]]) -> None:
        self.model = model
        self.convert = convert
        self.names = tuple(model.model_fields)
        # Immutable defaults (tuples, numbers, text, None): one object shared, as pydantic does.
        self.defaults = {
            name: field.get_default(call_default_factory=True)
            for name, field in model.model_fields.items()
            if not field.is_required()
        }

    def __call__(self, data: dict[str, Any]) -> Any:
        defaults = self.defaults
        values = {name: data[name] if name in data else defaults[name] for name in self.names}
        for name, convert in self.convert.items():
            if name in data:
                values[name] = convert(data[name])
        built = self.model.__new__(self.model)
        _set(built, "__dict__", values)
        _set(built, "__pydantic_fields_set__", set(data))
        _set(built, "__pydantic_extra__", None)
        _set(built, "__pydantic_private__", None)
        return built


_set = object.__setattr__  # the models are frozen: set as pydantic's own constructor does
_concept = _Rebuild(
    Concept, {"aliases": tuple, "subject": tuple, "requires": _tuples, "terms": _tuples}
)
_question = _Rebuild(
    Question,
    {"level": Level, "concepts": lambda items: tuple(map(_concept, items)), "tags": tuple},
)
_pack = _Rebuild(Pack, {"questions": lambda items: tuple(map(_question, items)), "tags": tuple})


def _rebuilt(data: dict[str, Any]) -> Pack | None:
    """The validated pack `data` was dumped from; None if it is not such a dump (a cache
    file damaged by hand): then the text is validated again."""
    try:
        pack = _pack(data)
    except (KeyError, TypeError, ValueError, AttributeError):
        return None
    return pack if isinstance(pack, Pack) else None


def _validated(text: str, source: str, cache: YamlCache | None) -> Pack:
    try:
        data = cache.load(text) if cache is not None else parse_yaml(text)
    except YamlError as error:
        exc = error.original
        raise PackError([problem_line(source, _yaml_problem(exc, text))]) from None
    if data is None:
        raise PackError([problem_line(source, "the file is empty (no pack in it)")])
    if not isinstance(data, dict):
        kind = "a list" if isinstance(data, list) else "plain text"
        raise PackError(
            [
                problem_line(
                    source,
                    "a pack must be a YAML mapping (id:, title:, language:, questions:),"
                    f" not {kind}",
                )
            ]
        )
    try:
        return Pack.model_validate(data)
    except ValidationError as exc:
        errors = exc.errors()
        problems = []
        for err in errors:
            if err["type"] == "duplicate_question_id":
                qid = str((err.get("ctx") or {}).get("id", ""))
                lines = question_id_lines(text).get(qid, [])
                written = [str(n) for n in lines]
                where = (
                    f" (lines {', '.join(written[:-1])} and {written[-1]})"
                    if len(lines) > 1
                    else ""
                )
                times = "twice" if len(lines) <= 2 else f"{len(lines)} times"
                problems.append(problem_line(source, f"appears {times}{where}", qid, "id"))
                continue
            loc = tuple(err["loc"])
            # pydantic counts a list whose items failed as too short as well: the items'
            # own problems say it ("questions: at least 1 item" of a pack with one broken).
            if err["type"] == "too_short" and any(
                len(o["loc"]) > len(loc) and tuple(o["loc"][: len(loc)]) == loc for o in errors
            ):
                continue
            question, field = _location(data, loc)
            problems.append(problem_line(source, _message(err), question, field))
        raise PackError(problems) from None


def yaml_problem(error: YamlError, text: str) -> str:
    """What is wrong with a YAML text, in an author's words, with its line and column."""
    return _yaml_problem(error.original, text)


def _yaml_problem(exc: Exception, text: str) -> str:
    """PyYAML's complaint with its line and column: a syntax error carries a mark; a
    character YAML does not allow (a control character pasted in) only its offset."""
    mark = getattr(exc, "problem_mark", None)
    if mark is not None:
        problem = getattr(exc, "problem", None) or "not valid YAML"
        return f"{problem} (line {mark.line + 1}, column {mark.column + 1})"
    character = getattr(exc, "character", None)
    if isinstance(character, int | str):
        code = character if isinstance(character, int) else ord(character)
        # Found in the text: libyaml's offset counts bytes of UTF-8, PyYAML's characters.
        position = text.find(chr(code))
        if position < 0:
            return f"a character YAML does not allow, U+{code:04X}: delete it"
        line = text.count("\n", 0, position) + 1
        column = position - (text.rfind("\n", 0, position) + 1) + 1
        return (
            f"a character YAML does not allow, U+{code:04X} (line {line}, column {column}):"
            " delete it"
        )
    return "not valid YAML"


def _message(err: Any) -> str:
    """A pydantic error in an author's words, with the value given where it helps."""
    kind, ctx, value = err["type"], err.get("ctx") or {}, err.get("input")
    given = f" (got {value!r})" if isinstance(value, str | int | float) else ""
    if kind == "missing":
        return "missing (it is required)"
    if kind == "extra_forbidden":
        return "unknown field (a typo?)"
    if kind == "string_too_short":
        return "must not be empty"
    if kind == "too_short":
        return f"needs at least {ctx.get('min_length', 1)}, has none"
    if kind == "too_long":
        return f"too many: at most {ctx.get('max_length')} (has {ctx.get('actual_length')})"
    if kind == "string_too_long":
        return f"too long: at most {ctx.get('max_length')} characters"
    if kind == "string_pattern_mismatch" and ctx.get("pattern") == ID_PATTERN:
        return f"use lower-case letters, digits, - and _ (at most 48 characters){given}"
    if kind in ("greater_than", "less_than_equal", "greater_than_equal", "less_than"):
        return str(err["msg"]).replace("Input should be", "must be") + given
    if kind in ("float_parsing", "float_type", "int_parsing", "int_type"):
        return f"must be a number such as 1 or 0.5{given}"
    if kind in ("bool_parsing", "bool_type"):
        return f"must be true or false{given}"
    if kind == "string_type":
        return f"must be text{given}"
    if kind in ("tuple_type", "list_type"):
        return f"must be a list ([a, b] or lines starting with -){given}"
    if kind in ("model_type", "model_attributes_type", "dict_type"):
        return f"must be a mapping (name: value lines){given}"
    return re.sub(r"^Value error, ", "", err["msg"])


def load_pack(path: Path, cache: YamlCache | None = None) -> Pack:
    """Read and validate one pack file."""
    try:
        text, _ = read_text(path)
    except UnreadableFile as exc:
        raise PackError([problem_line(path, str(exc))]) from None
    return parse_pack(text, str(path), cache)


def pack_files(paths: Iterable[Path]) -> list[Path]:
    """Expand directories into their *.yaml / *.yml pack files, sorted."""
    files: list[Path] = []
    for path in paths:
        if path.is_dir():
            files.extend(sorted(p for p in path.iterdir() if p.suffix in (".yaml", ".yml")))
        else:
            files.append(path)
    return files


class Library:
    """All loaded packs, with lookups by pack and question id."""

    def __init__(self, packs: Sequence[Pack]) -> None:
        self.packs: dict[str, Pack] = {p.id: p for p in packs}
        # The packs that are asked, in file order: a draft pack is loaded but never offered.
        self.offered: dict[str, Pack] = {p.id: p for p in packs if not p.draft}
        self.drafts: tuple[str, ...] = tuple(p.id for p in packs if p.draft)
        self.questions: dict[str, Question] = {}
        self.pack_of: dict[str, str] = {}
        self.topic_of: dict[str, str] = {}  # concept label -> its topic, where one is set
        for pack in packs:
            for q in pack.questions:
                self.questions[q.id] = q
                self.pack_of[q.id] = pack.id
                for concept in q.concepts:
                    if concept.topic:
                        self.topic_of.setdefault(concept.label, concept.topic)

    def question(self, question_id: str) -> Question | None:
        return self.questions.get(question_id)

    def offered_question(self, question_id: str) -> Question | None:
        """The question if it may be asked (it is there, and not in a draft pack)."""
        question = self.questions.get(question_id)
        if question is None or self.pack_of[question_id] not in self.offered:
            return None
        return question

    def pool(
        self,
        level: Level | None = None,
        pack: str | None = None,
        *,
        packs: Collection[str] | None = None,
    ) -> list[Question]:
        """Questions at a level (or any), in one pack (or those of `packs`, or all), in file
        order.

        A draft pack (`draft: true`: the importer's concepts, not yet reviewed) is never in
        the pool: it is loaded and checked, but not asked.
        """
        return [
            q
            for pid, p in self.packs.items()
            if (pack is None or pid == pack) and (packs is None or pid in packs) and not p.draft
            for q in p.questions
            if level is None or q.level == level
        ]

    def language_of(self, question_id: str) -> str:
        """The base language of a question's pack (`zh` for `zh-Hans`)."""
        return self.pack_language(self.pack_of[question_id])

    def pack_language(self, pack_id: str) -> str:
        """The base language of a pack (`zh` for `zh-Hans`)."""
        return base_language(self.packs[pack_id].language)


def base_language(code: str) -> str:
    """`zh` for `zh-Hans`, `en` for `en-GB`: the language a user's setting is compared with."""
    return code.split("-")[0].lower()


def missing_paths(paths: Iterable[Path]) -> list[str]:
    """A problem for each of `paths` that is not there, naming the absolute path looked at
    (a relative CONTENT_DIR is read from the working directory, which may not be the one
    meant)."""
    return [
        f"{path}: does not exist (looked at {path.absolute()})"
        for path in paths
        if not path.exists()
    ]


def _duplicate_across(question_id: str, file: Path, first: Path) -> str:
    """A question id used in two files, naming both and the line in each (read again: rare)."""

    def line(path: Path) -> str:
        try:
            lines = question_id_lines(read_text(path)[0]).get(question_id)
        except UnreadableFile:
            lines = None
        return f", line {lines[0]}" if lines else ""

    here = line(file)
    message = f"also used in {first}{line(first)}" + (f" (here{here})" if here else "")
    return problem_line(file, message, question_id, "id")


def load_library(paths: Iterable[Path], cache: YamlCache | None = None) -> Library:
    """Load every pack under `paths`; collect all problems and raise them together.

    `cache`: the packs' parsed YAML from an earlier start (`interview-bot run`).
    """
    paths = list(paths)
    if missing := missing_paths(paths):
        raise PackError(missing)
    packs: list[Pack] = []
    problems: list[str] = []
    files = pack_files(paths)
    if not files:
        raise PackError([f"{', '.join(map(str, paths))}: no pack files (*.yaml) found"])
    seen_q: dict[str, str] = {}
    seen_p: dict[str, str] = {}
    for file in files:
        try:
            pack = load_pack(file, cache)
        except PackError as exc:
            problems.extend(exc.problems)
            continue
        if pack.id in seen_p:
            message = f"pack id {pack.id!r} also in {seen_p[pack.id]}"
            problems.append(problem_line(file, message, field="id"))
            continue
        seen_p[pack.id] = str(file)
        for q in pack.questions:
            if q.id in seen_q:
                problems.append(_duplicate_across(q.id, file, Path(seen_q[q.id])))
            seen_q[q.id] = str(file)
        packs.append(pack)
    problems.extend(_translation_problems(packs, {p.id: seen_p[p.id] for p in packs}))
    if problems:
        raise PackError(problems)
    return Library(packs)


def _translation_problems(packs: Sequence[Pack], files: dict[str, str]) -> list[str]:
    """`translates:` must name another loaded pack, in another language."""
    by_id = {p.id: p for p in packs}
    problems = []
    for pack in packs:
        if pack.translates is None:
            continue
        original = by_id.get(pack.translates)
        if original is None or original.id == pack.id:
            known = ", ".join(p for p in by_id if p != pack.id) or "none"
            message = f"no other pack has the id {pack.translates!r} (packs: {known})"
        elif base_language(original.language) == base_language(pack.language):
            message = (
                f"translates {original.id!r}, which is in the same language"
                f" ({original.language}): a translation is in another language"
            )
        else:
            continue
        problems.append(problem_line(files[pack.id], message, field="translates"))
    return problems
