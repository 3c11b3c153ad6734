-- Spaced repetition: the FSRS card per user and question, and what it was before the last
-- answer, so a one-tap override can redo that review with another rating.

CREATE TABLE reviews (
    user_id         INTEGER NOT NULL REFERENCES users(user_id) ON DELETE CASCADE,
    question_id     TEXT    NOT NULL,
    card            TEXT    NOT NULL,   -- FSRS card as JSON
    due_at          TEXT    NOT NULL,
    previous_card   TEXT,               -- before the last answer (NULL: it was the first)
    last_answer_id  INTEGER NOT NULL,
    reviewed_at     TEXT    NOT NULL,
    rating          INTEGER NOT NULL,
    PRIMARY KEY (user_id, question_id)
);
CREATE INDEX reviews_due ON reviews (user_id, due_at);
