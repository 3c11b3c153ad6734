-- Evening reminders are due the way daily prompts are: each user carries the instant of
-- their next possible reminder (UTC, NULL: none until they answer again), and the scheduler
-- reads only the users whose instant has come, through this index.
ALTER TABLE users ADD COLUMN remind_at TEXT;
CREATE INDEX users_remind_at ON users (remind_at, user_id) WHERE remind_at IS NOT NULL;

-- Users whose streak may be at risk now or soon are looked at on the first tick (the
-- instant is "now"): the scheduler sends only if it is their reminder hour on a day the
-- streak is at risk, and otherwise moves the instant to the right evening. A streak last
-- answered more than three days ago is lost whatever the freezes (at most two).
UPDATE users SET remind_at = strftime('%Y-%m-%dT%H:%M:%S+00:00', 'now')
WHERE reminders = 1 AND streak_current > 0 AND streak_last_day >= date('now', '-4 days');
