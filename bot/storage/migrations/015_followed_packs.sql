-- The packs a chat follows (/packs, a field chosen at /start, a pack's link): its questions
-- (/quiz, the daily question, reviews) come from these. None: the packs in the user's
-- language. A private chat's are its user's; a group's are chosen by its admins.
CREATE TABLE followed_packs (
    chat_id     INTEGER NOT NULL,
    pack_id     TEXT    NOT NULL,
    followed_at TEXT    NOT NULL,
    PRIMARY KEY (chat_id, pack_id)
);

-- "There are no questions in your language yet" is said once per chat and language by the
-- daily question (a /quiz says it each time it is asked).
CREATE TABLE pack_offers (
    chat_id   INTEGER NOT NULL,
    language  TEXT    NOT NULL,
    told_at   TEXT    NOT NULL,
    PRIMARY KEY (chat_id, language)
);
