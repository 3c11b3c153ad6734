-- Telegram updates already taken, by update_id: one that arrives again (a webhook retry or
-- replay, a restart before long polling confirmed its offset) is handled once. Rows older than
-- a day are pruned: Telegram keeps an undelivered update for 24 hours at most.

CREATE TABLE processed_updates (
    update_id        INTEGER PRIMARY KEY,
    seen_at          TEXT    NOT NULL
);
CREATE INDEX processed_updates_by_age ON processed_updates (seen_at);
