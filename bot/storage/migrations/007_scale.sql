-- Costs that do not grow with the audience: an index for every lookup by user or chat, one
-- row per chat and question in `asked`, and running totals for the all-time group leaderboard.

-- /forget deletes a user's group answers; the open question goes with the user (foreign key).
CREATE INDEX round_answers_by_user ON round_answers (user_id);
CREATE INDEX open_questions_by_user ON open_questions (user_id);
-- A group becoming a supergroup moves its answers to the new chat id.
CREATE INDEX answers_by_chat ON answers (chat_id);
-- /stats: counts, averages and distinct questions per level from the index alone, and the
-- answers per local day for the picture's calendar.
CREATE INDEX answers_stats ON answers (user_id, level, question_id, score);
CREATE INDEX answers_by_day ON answers (user_id, local_day);
-- /top this week: the group's rounds closed since Monday.
CREATE INDEX rounds_by_chat_closed ON rounds (chat_id, closed_at);
-- Retention deletes bookkeeping rows by age.
CREATE INDEX daily_sends_by_day ON daily_sends (local_day);
CREATE INDEX reminders_sent_by_day ON reminders_sent (local_day);
CREATE INDEX rounds_closed ON rounds (closed_at) WHERE closed_at IS NOT NULL;

-- Only a chat's latest asking of each question matters (repeats are avoided by recency):
-- keep that one, and from now on a new asking replaces the old row.
DELETE FROM asked WHERE id NOT IN (SELECT MAX(id) FROM asked GROUP BY chat_id, question_id);
CREATE UNIQUE INDEX asked_once ON asked (chat_id, question_id);

-- The all-time leaderboard: each member's points in a group, added to when a round closes
-- (in the closing transaction), so /top reads ten rows instead of a year of answers.
CREATE TABLE group_totals (
    chat_id      INTEGER NOT NULL,
    user_id      INTEGER NOT NULL,
    first_name   TEXT    NOT NULL,   -- as of the member's latest closed round
    total        REAL    NOT NULL,   -- sum of scores (0..1) over closed rounds
    answers      INTEGER NOT NULL,
    PRIMARY KEY (chat_id, user_id)
);
CREATE INDEX group_totals_rank ON group_totals (chat_id, total DESC, answers DESC, user_id);
CREATE INDEX group_totals_by_user ON group_totals (user_id);
INSERT INTO group_totals (chat_id, user_id, first_name, total, answers)
SELECT r.chat_id, ra.user_id, MAX(ra.first_name), SUM(ra.score), COUNT(*)
FROM round_answers ra JOIN rounds r ON r.id = ra.round_id
WHERE r.closed_at IS NOT NULL
GROUP BY r.chat_id, ra.user_id;
