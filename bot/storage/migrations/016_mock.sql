-- Mock interviews (/mock): a run of questions put one at a time, each answer maybe followed
-- by one follow-up, the report at the end. The state lives here, not in memory, so a restart
-- resumes at the same step. At most one session runs per chat (ended_at NULL).
CREATE TABLE mock_sessions (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    chat_id       INTEGER NOT NULL,
    user_id       INTEGER NOT NULL REFERENCES users(user_id) ON DELETE CASCADE,
    questions     TEXT    NOT NULL,  -- JSON list of question ids, in the order put
    position      INTEGER NOT NULL DEFAULT 0,  -- the question being answered (0-based)
    phase         TEXT    NOT NULL DEFAULT 'question',  -- 'question' | 'follow-up'
    follow_label  TEXT,  -- the concept the follow-up asks about (phase 'follow-up')
    follow_said   TEXT,  -- the concept the answer stated that the follow-up names
    limit_seconds INTEGER,  -- per answer; NULL: none
    started_at    TEXT    NOT NULL,
    step_at       TEXT    NOT NULL,  -- when the current question or follow-up was put
    last_update   INTEGER,  -- the update that moved it last: handled again, it moves nothing
    ended_at      TEXT,
    end_reason    TEXT  -- 'done' | 'stopped' | 'stale'
);
CREATE UNIQUE INDEX mock_sessions_running ON mock_sessions (chat_id) WHERE ended_at IS NULL;
CREATE INDEX mock_sessions_by_user ON mock_sessions (user_id, id);

-- One row per question put: its answer (the answers row, counted like any other) or a skip,
-- the time taken, and the follow-up's concept and score.
CREATE TABLE mock_items (
    session_id      INTEGER NOT NULL REFERENCES mock_sessions(id) ON DELETE CASCADE,
    position        INTEGER NOT NULL,
    question_id     TEXT    NOT NULL,
    answer_id       INTEGER,
    score           REAL,  -- NULL: skipped
    missed          TEXT    NOT NULL DEFAULT '[]',
    seconds         INTEGER,
    follow_label    TEXT,
    follow_score    REAL,
    follow_seconds  INTEGER,
    PRIMARY KEY (session_id, position)
);
