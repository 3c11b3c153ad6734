"""The `interview-bot` command's first module: the cyclic collector is off while it loads.

Loading allocates hundreds of thousands of objects (modules, classes, pydantic's schemas,
PTB's) and frees almost none of them, so the collector's passes meanwhile find nothing to
collect (issue 13; BENCHMARKS.md). It is turned on again once the command has started: by
`bot.cli.main` for every command but `run`, and for `run` by `bot.app.run_bot` once the bot
is built, before anything waits on Telegram.
"""

from __future__ import annotations

import gc


def main() -> int:
    gc.disable()
    from bot.cli import main as cli_main

    return cli_main()
