-- A private chat's time zone is its user's (users.timezone, also the clock of their streak and
-- their evening reminder), stored once: reads of a private chat take the user's zone, and the
-- copy kept in chats goes. Where the two differed, the user's wins: it is what /timezone last
-- set and what streaks and reminders already used. A copy with no user zone beside it was the
-- bot's default zone when the schedule was saved (the schedule then showed the "set your
-- zone" hint, which it still does); such a chat follows the default zone from now on, as the
-- user's streak and reminders always did.
UPDATE chats SET timezone = NULL WHERE kind = 'private';
