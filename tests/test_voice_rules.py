"""The rules of voice answers, as tables: what stops a recording before it is downloaded,
the language hint the speech-to-text service gets, what its answer says, the one URL
setting that could point every request at the wrong path, and where what was heard is
shown."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from bot.config import Settings
from bot.core.voice import (
    NotEnabled,
    SttFailed,
    TooLong,
    before_download,
    stt_language,
    transcript_of,
)
from bot.i18n import Html, Strings
from bot.render import with_heard
from tests.conftest import CONTENT


@pytest.mark.parametrize(
    ("enabled", "seconds", "limit", "expected"),
    [
        (False, 3, 180, NotEnabled()),
        (False, 999, 180, NotEnabled()),  # off is said first: no length to complain about
        (True, 181, 180, TooLong(181, 180)),
        (True, 180, 180, None),  # the limit itself is allowed
        (True, 1, 180, None),
        (True, None, 180, None),  # no length given: fetched, the service's limits apply
        (True, 61, 60, TooLong(61, 60)),
    ],
)
def test_what_stops_a_recording_before_download(
    enabled: bool, seconds: int | None, limit: int, expected: object
) -> None:
    assert before_download(enabled, seconds, limit) == expected


@pytest.mark.parametrize(("lang", "hint"), [("zh", "zh"), ("en", "en")])
def test_the_language_hint_is_the_users_language(lang: str, hint: str) -> None:
    assert stt_language(lang) == hint


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (b'{"text": " Triton \\u8c03\\u5ea6"}', "Triton 调度"),
        (b'{"text": "hello", "language": "en", "duration": 2.1}', "hello"),
        (b'{"text": "   "}', SttFailed("no words were heard")),
        (b'{"text": ""}', SttFailed("no words were heard")),
        (b'{"segments": []}', SttFailed("the answer has no text")),
        (b'{"text": 3}', SttFailed("the answer has no text")),
        (b"[1, 2]", SttFailed("the answer has no text")),
        (b"<html>502 Bad Gateway</html>", SttFailed("the answer is not JSON")),
        (b"\xff\xfe\x00", SttFailed("the answer is not JSON")),
    ],
    ids=[
        "whisper-leading-space",
        "verbose-fields",
        "blank",
        "empty",
        "no-text",
        "not-a-string",
        "a-list",
        "html",
        "not-utf8",
    ],
)
def test_what_a_transcription_answer_says(body: bytes, expected: object) -> None:
    assert transcript_of(body) == expected


@pytest.mark.parametrize(
    ("given", "kept"),
    [("http://stt:8000", "http://stt:8000"), ("https://api.openai.com/", "https://api.openai.com")],
)
def test_the_stt_url_is_the_services_root(given: str, kept: str) -> None:
    settings = Settings(_env_file=None, stt_base_url=given)  # type: ignore[call-arg]
    assert settings.stt_base_url == kept


@pytest.mark.parametrize(
    "given", ["http://stt:8000/v1", "http://stt:8000/v1/audio/transcriptions", "stt:8000"]
)
def test_an_stt_url_that_would_miss_the_endpoint_is_refused(given: str) -> None:
    with pytest.raises(ValidationError, match="stt_base_url"):
        Settings(_env_file=None, stt_base_url=given)  # type: ignore[call-arg]


def test_unset_stt_url_leaves_voice_answers_off() -> None:
    settings = Settings(_env_file=None, stt_base_url="")  # type: ignore[call-arg]
    assert settings.stt_base_url is None and settings.stt_max_seconds == 180


# -- how what was heard is shown ---------------------------------------------------------------


@pytest.fixture(scope="module")
def strings() -> Strings:
    return Strings.load(CONTENT / "strings")


def test_what_was_heard_goes_atop_the_first_message_when_it_fits(strings: Strings) -> None:
    shown = with_heard(strings, "en", "max_batch_size 是 8", [Html("Score: 40%"), Html("b")])
    assert shown == ["🎙 I heard: <i>max_batch_size 是 8</i>\nScore: 40%", "b"]


def test_what_was_heard_comes_as_a_message_of_its_own_when_the_first_is_full(
    strings: Strings,
) -> None:
    full = Html("x" * 4000)
    shown = with_heard(strings, "en", "a & b " * 200, [full])
    assert shown[1:] == [full]
    assert shown[0].startswith("🎙 I heard: <i>a &amp; b a &amp; b")
    assert all(len(m) <= 4096 for m in shown)


def test_a_typed_answer_gets_no_transcript(strings: Strings) -> None:
    assert with_heard(strings, "zh", None, [Html("得分")]) == ["得分"]
