"""The pure core: content, scoring, streaks, schedules. No Telegram, no SQL, no I/O clocks."""
