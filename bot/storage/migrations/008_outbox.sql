-- Messages the bot owes a chat, recorded before they are sent (the outbox), and the lease
-- that lets one process at a time serve a database.

CREATE TABLE outbox (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    kind        TEXT    NOT NULL,   -- daily | round | ranking | feedback | reminder
    dedup_key   TEXT    NOT NULL UNIQUE,  -- what makes it once-only, e.g. daily:CHAT:DAY
    chat_id     INTEGER NOT NULL,
    payload     TEXT    NOT NULL,   -- JSON: messages (HTML), keyboard, reply_to
    parts_sent  INTEGER NOT NULL DEFAULT 0,  -- messages of the payload Telegram accepted
    -- pending: waits for a sender; claimed: a sender holds it (owner), nothing on the wire;
    -- sending: its request left the process; then sent | failed | unknown | expired.
    status      TEXT    NOT NULL DEFAULT 'pending',
    owner       TEXT,
    attempts    INTEGER NOT NULL DEFAULT 0,
    created_at  TEXT    NOT NULL,
    deadline    TEXT    NOT NULL,   -- UTC instant after which it is not worth sending
    local_day   TEXT,               -- a daily prompt: its daily_sends row
    question_id TEXT,               -- a daily prompt: the question it asks
    round_id    INTEGER,            -- a round's question: the round that waits for its message
    message_id  INTEGER,            -- the first message Telegram accepted
    finished_at TEXT,
    last_error  TEXT
);
CREATE INDEX outbox_by_status ON outbox (status, id);
CREATE INDEX outbox_by_chat ON outbox (chat_id);

-- What a finished row changes elsewhere, in the same statement that finishes it.
CREATE TRIGGER outbox_settles_daily AFTER UPDATE OF status ON outbox
WHEN NEW.local_day IS NOT NULL AND NEW.status IN ('sent', 'failed', 'unknown', 'expired')
BEGIN
    UPDATE daily_sends SET status = NEW.status, sent_at = NEW.finished_at,
        question_id = NEW.question_id
    WHERE chat_id = NEW.chat_id AND local_day = NEW.local_day;
END;

-- Members answer a round by replying to its question: the round needs that message's id.
CREATE TRIGGER outbox_posts_round AFTER UPDATE OF status ON outbox
WHEN NEW.round_id IS NOT NULL AND NEW.status = 'sent'
BEGIN
    UPDATE rounds SET message_id = NEW.message_id WHERE id = NEW.round_id;
END;

-- A round whose question never (surely) arrived never happened.
CREATE TRIGGER outbox_drops_round AFTER UPDATE OF status ON outbox
WHEN NEW.round_id IS NOT NULL AND NEW.status IN ('failed', 'unknown', 'expired')
BEGIN
    DELETE FROM rounds WHERE id = NEW.round_id AND message_id IS NULL;
END;

CREATE TABLE instance_lease (
    name         TEXT    PRIMARY KEY,   -- 'bot': one holder per database
    owner        TEXT    NOT NULL,      -- random per process start
    pid          INTEGER NOT NULL,
    host         TEXT    NOT NULL,
    since        TEXT    NOT NULL,
    heartbeat_at TEXT    NOT NULL,
    expires_at   TEXT    NOT NULL
);
