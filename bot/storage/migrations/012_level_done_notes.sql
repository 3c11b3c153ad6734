-- "You have answered every Beginner question…" is said once per user and level: the levels a
-- user has been told about, kept across restarts (and forgotten with the user).
CREATE TABLE level_done_notes (
    user_id   INTEGER NOT NULL REFERENCES users(user_id) ON DELETE CASCADE,
    level     TEXT    NOT NULL,
    told_at   TEXT    NOT NULL,
    PRIMARY KEY (user_id, level)
);
