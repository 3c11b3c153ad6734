"""`python -m bot` runs the same command line as `interview-bot`."""

from bot.cli import main

raise SystemExit(main())
