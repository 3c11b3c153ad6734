-- Group rounds: one open round per group, each member's latest answer in it.

ALTER TABLE chats ADD COLUMN round_minutes INTEGER;   -- NULL = the bot's default
ALTER TABLE users ADD COLUMN started INTEGER NOT NULL DEFAULT 0;  -- has a private chat with us

CREATE TABLE rounds (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    chat_id      INTEGER NOT NULL,
    question_id  TEXT    NOT NULL,
    message_id   INTEGER,            -- the question message members reply to
    opened_by    INTEGER,            -- NULL for a daily round
    opened_at    TEXT    NOT NULL,
    closes_at    TEXT    NOT NULL,
    closed_at    TEXT,
    daily        INTEGER NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX one_open_round_per_chat ON rounds (chat_id) WHERE closed_at IS NULL;
CREATE INDEX rounds_closing ON rounds (closes_at) WHERE closed_at IS NULL;
CREATE INDEX rounds_by_message ON rounds (chat_id, message_id);

CREATE TABLE round_answers (
    round_id     INTEGER NOT NULL REFERENCES rounds(id) ON DELETE CASCADE,
    user_id      INTEGER NOT NULL,
    first_name   TEXT    NOT NULL,
    message_id   INTEGER NOT NULL,
    answer       TEXT    NOT NULL,
    score        REAL    NOT NULL,
    covered      TEXT    NOT NULL,   -- JSON list of concept labels
    missed       TEXT    NOT NULL,
    answered_at  TEXT    NOT NULL,
    local_day    TEXT    NOT NULL,
    PRIMARY KEY (round_id, user_id)
);
