"""`python -m bot` runs the same command line as `interview-bot`."""

from bot.entry import main

raise SystemExit(main())
