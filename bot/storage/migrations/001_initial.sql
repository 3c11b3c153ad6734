-- Users, chats, the open question per chat, the history of asked questions and answers.
-- Instants are ISO-8601 UTC text; local days are ISO dates in the user's time zone.

CREATE TABLE users (
    user_id          INTEGER PRIMARY KEY,
    first_name       TEXT    NOT NULL DEFAULT '',
    language         TEXT,               -- 'en' | 'zh'; NULL until known
    timezone         TEXT,               -- IANA name; NULL = the bot's default
    level            TEXT,               -- beginner | intermediate | advanced; NULL = beginner
    pack             TEXT,               -- preferred pack id; NULL = all packs
    reminders        INTEGER NOT NULL DEFAULT 1,
    active           INTEGER NOT NULL DEFAULT 1,  -- 0 after the user blocked the bot
    streak_current   INTEGER NOT NULL DEFAULT 0,
    streak_best      INTEGER NOT NULL DEFAULT 0,
    streak_last_day  TEXT,
    streak_freezes   INTEGER NOT NULL DEFAULT 0,
    created_at       TEXT    NOT NULL
);

CREATE TABLE chats (
    chat_id          INTEGER PRIMARY KEY,
    kind             TEXT    NOT NULL,   -- private | group | supergroup | channel
    title            TEXT    NOT NULL DEFAULT '',
    language         TEXT,
    timezone         TEXT,
    level            TEXT,
    active           INTEGER NOT NULL DEFAULT 1,
    created_at       TEXT    NOT NULL
);

-- The question a private chat is answering right now: survives restarts.
CREATE TABLE open_questions (
    chat_id          INTEGER PRIMARY KEY,
    user_id          INTEGER NOT NULL REFERENCES users(user_id) ON DELETE CASCADE,
    question_id      TEXT    NOT NULL,
    asked_at         TEXT    NOT NULL,
    hints            INTEGER NOT NULL DEFAULT 0
);

-- Every question put to a chat, newest last: used to avoid repeats.
CREATE TABLE asked (
    id               INTEGER PRIMARY KEY AUTOINCREMENT,
    chat_id          INTEGER NOT NULL,
    question_id      TEXT    NOT NULL,
    asked_at         TEXT    NOT NULL
);
CREATE INDEX asked_by_chat ON asked (chat_id, id);

CREATE TABLE answers (
    id               INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id          INTEGER NOT NULL REFERENCES users(user_id) ON DELETE CASCADE,
    chat_id          INTEGER NOT NULL,
    question_id      TEXT    NOT NULL,
    level            TEXT    NOT NULL,
    answer           TEXT    NOT NULL,
    score            REAL    NOT NULL,
    covered          TEXT    NOT NULL,   -- JSON list of concept labels
    missed           TEXT    NOT NULL,   -- JSON list of concept labels
    hints            INTEGER NOT NULL DEFAULT 0,
    answered_at      TEXT    NOT NULL,
    local_day        TEXT    NOT NULL
);
CREATE INDEX answers_by_user ON answers (user_id, answered_at);
