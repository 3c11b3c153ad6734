-- Daily prompts: each chat's schedule, the next due instant, and one row per chat and local
-- date that makes a prompt happen at most once even across crashes and restarts.

ALTER TABLE chats ADD COLUMN daily_enabled INTEGER NOT NULL DEFAULT 0;
ALTER TABLE chats ADD COLUMN daily_time TEXT NOT NULL DEFAULT '09:00';
ALTER TABLE chats ADD COLUMN daily_days TEXT NOT NULL DEFAULT 'daily';  -- daily | weekdays
ALTER TABLE chats ADD COLUMN next_due_at TEXT;    -- UTC instant of the next prompt
ALTER TABLE chats ADD COLUMN next_due_day TEXT;   -- the local date that prompt belongs to
CREATE INDEX chats_due ON chats (next_due_at) WHERE daily_enabled = 1 AND active = 1;

CREATE TABLE daily_sends (
    chat_id     INTEGER NOT NULL,
    local_day   TEXT    NOT NULL,
    status      TEXT    NOT NULL,              -- claimed | sent | failed
    attempts    INTEGER NOT NULL DEFAULT 0,
    question_id TEXT,
    claimed_at  TEXT    NOT NULL,
    sent_at     TEXT,
    PRIMARY KEY (chat_id, local_day)
);

CREATE TABLE reminders_sent (
    user_id     INTEGER NOT NULL,
    local_day   TEXT    NOT NULL,
    sent_at     TEXT    NOT NULL,
    PRIMARY KEY (user_id, local_day)
);
