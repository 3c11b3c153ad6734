-- Concepts an answer got only part of the credit for (named without being explained, or
-- partly stated), as a JSON list of labels. They stay in `missed` too, which keeps meaning
-- "not stated in full" (what weak spots count); `partly` tells them apart from the concepts
-- not mentioned at all, for /export. Rows from before this version read as '[]': their
-- partly credited concepts cannot be told from the missed ones any more.
ALTER TABLE answers ADD COLUMN partly TEXT NOT NULL DEFAULT '[]';
ALTER TABLE round_answers ADD COLUMN partly TEXT NOT NULL DEFAULT '[]';
