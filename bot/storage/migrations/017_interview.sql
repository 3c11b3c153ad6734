-- A user's interview date (/interview): until that day the daily question is a plan toward
-- it. `quota` is the number of questions of the day `quota_day`, fixed the first time that
-- day's plan is read (the day's answers do not shrink it). After the date, the bot asks once
-- how it went: `asked_at` when that question was recorded in the outbox, `outcome` the tap.
CREATE TABLE interview_plans (
    user_id    INTEGER PRIMARY KEY REFERENCES users (user_id) ON DELETE CASCADE,
    day        TEXT    NOT NULL,
    set_at     TEXT    NOT NULL,
    quota_day  TEXT,
    quota      INTEGER,
    asked_at   TEXT,
    outcome    TEXT
);
