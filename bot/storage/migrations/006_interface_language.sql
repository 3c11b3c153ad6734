-- The interface language has two sources: `language` is what the user chose with /lang (or
-- the settings screen), `telegram_language` is what their Telegram client reports, kept
-- current on each contact. Replies use the first one set, then the second, then English.
-- Before this migration `language` held the client's language from the first contact:
-- it is copied, and stays the user's choice until they change it.
ALTER TABLE users ADD COLUMN telegram_language TEXT;
UPDATE users SET telegram_language = language;
