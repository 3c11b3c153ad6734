"""Voice answers in the real `interview-bot run`, configured from the environment as an
operator would: a failing speech-to-text service is said to the user, the question stays
open for a typed answer, and the operator's log names the failure but never the key (not
even when the service's error quotes it)."""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path

from tests.support.fake_bot_api import FakeBotAPI, FakeUser, Sent
from tests.support.fake_stt import FakeSTT
from tests.support.run import run_env, start_run
from tests.support.wait import until

ADA = FakeUser(1001, "Ada", "en")
KEY = "sk-proj-voice-key-9d41c0ffee"
ANSWER = "Python backend 在独立子进程里跑，通过 shared memory 和 socket 通信，GIL 不会阻塞 C++ core"


def asked(sent: list[Sent]) -> bool:
    return any(d.startswith("hint:triton-q9") for m in sent for _, d in m.buttons)


async def test_a_failing_stt_in_a_real_run_is_said_and_its_key_never_logged(
    tmp_path: Path,
) -> None:
    api, stt = FakeBotAPI(), FakeSTT(api_key=KEY, failure="status", status=401)
    await api.start()
    await stt.start()
    env = run_env(
        api,
        tmp_path / "bot.sqlite3",
        LOG_LEVEL="DEBUG",  # every line the bot and its libraries write
        STT_BASE_URL=stt.base_url + "/",
        STT_API_KEY=KEY,
        STT_MODEL="whisper-test",
    )
    process = await start_run(env, tmp_path)
    try:
        await until(lambda: api.calls["getUpdates"] >= 1, 60, "the first poll")
        api.message(ADA, "/start q_triton-q9")
        await until(lambda: asked(api.to(ADA.id)), 30, "the shared question")
        before = len(api.to(ADA.id))
        api.voice(ADA, audio=b"OggS a recording")
        (note,) = (await api.wait_for(ADA.id, before + 1, timeout=30))[before:]
        assert note.visible.startswith("🎙 I could not transcribe that recording")
        assert len(stt.requests) == 1  # the service was asked, with the key, and said no
        assert stt.requests[0].authorization == f"Bearer {KEY}"
        api.message(ADA, ANSWER)  # the question is still open: typed instead
        scored = (await api.wait_for(ADA.id, before + 2, timeout=30))[before + 1 :]
        assert "Score: " in "\n".join(m.visible for m in scored)
    finally:
        process.send_signal(signal.SIGTERM)
        stdout, stderr = await asyncio.wait_for(process.communicate(), 30)
        await stt.stop()
        await api.stop()
    output = stdout.decode() + stderr.decode()
    assert "speech to text failed (3 s of audio): HTTP 401" in output, output[-3000:]
    assert KEY not in output and KEY[8:] not in output
    assert stt.violations == [] and api.violations == []
