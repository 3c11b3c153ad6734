-- The inbox: an update is recorded here, with its raw JSON, before Telegram is told it was
-- received (before the next getUpdates moves the offset past it; in webhook mode before the
-- request is answered 200), and handled from here. Long polling confirmed a batch when it
-- fetched the next one, before the batch was handled: a crash lost those updates (issue 28).
--
-- The rows are the update_id claims of 005 too: `state` is 'received' (recorded, not yet
-- taken by a handler), 'handling' (taken: a crash now means it is handled again by the next
-- start) or 'done' (its body is dropped then; the row stays a day, as before, so that a
-- redelivery is still recognised). `tries` counts starts that found it not done: one that
-- kills the process each time it is handled is given up after a few. Claims from before
-- this version were handled: 'done'.
ALTER TABLE processed_updates ADD COLUMN state TEXT NOT NULL DEFAULT 'done';
ALTER TABLE processed_updates ADD COLUMN body TEXT;
ALTER TABLE processed_updates ADD COLUMN tries INTEGER NOT NULL DEFAULT 0;
CREATE INDEX processed_updates_open ON processed_updates (update_id) WHERE state != 'done';

-- The update an answer came in (NULL before this version): handled again after a crash, an
-- answer already stored gives its feedback again instead of "no open question".
ALTER TABLE answers ADD COLUMN update_id INTEGER;
CREATE UNIQUE INDEX answers_by_update ON answers (update_id) WHERE update_id IS NOT NULL;
