-- The /forget confirmation the user may still confirm: each confirmation carries a fresh
-- token in its buttons, and only the newest one (not cancelled, not used) deletes. NULL: none
-- open (rows from before this version: an old "yes" button has no token and is expired).
ALTER TABLE users ADD COLUMN forget_token TEXT;
