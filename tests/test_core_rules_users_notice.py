"""Rules a user would notice if they broke, which mutation testing showed no test guarded."""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta

from bot.core.review import weak_concepts
from bot.core.rounds import MemberResult, closes_at, points, rank, week_start
from bot.core.schedule import DailySchedule, Days, next_occurrence, parse_daily
from bot.core.streaks import StreakState, at_risk, record_answer, visible_streak

MONDAY = date(2026, 3, 2)


def _days(n: int) -> StreakState:
    state = StreakState()
    for i in range(n):
        state = record_answer(state, MONDAY + timedelta(i))
    return state


def test_no_reminder_for_a_streak_already_lost() -> None:
    lost = _days(2)  # last answer Tuesday; Friday: two missed days, no freeze
    friday = MONDAY + timedelta(4)
    assert visible_streak(lost, friday).current == 0
    assert not at_risk(lost, friday)  # "your 0-day streak is at risk" is never sent
    assert not at_risk(StreakState(), friday)  # nor to someone who never answered


def test_a_freeze_is_earned_on_the_seventh_day_not_the_sixth() -> None:
    assert _days(6).freezes == 0
    assert _days(7).freezes == 1
    assert _days(13).freezes == 1
    assert _days(14).freezes == 2


def test_weekday_schedules_include_friday() -> None:
    schedule = DailySchedule(time(9, 0), Days.WEEKDAYS, "UTC")
    friday_early = datetime(2026, 3, 6, 7, tzinfo=UTC)
    assert next_occurrence(schedule, friday_early).day == date(2026, 3, 6)
    thursday_late = datetime(2026, 3, 5, 10, tzinfo=UTC)
    assert next_occurrence(schedule, thursday_late).day == date(2026, 3, 6)
    every_day = DailySchedule(time(9, 0), Days.EVERY_DAY, "UTC")
    saturday_early = datetime(2026, 3, 7, 7, tzinfo=UTC)
    assert next_occurrence(every_day, saturday_early).day == date(2026, 3, 7)


def test_daily_every_day_turns_the_prompt_on() -> None:
    for words in (["every", "day"], ["everyday"], ["每天"], ["weekdays"]):
        command = parse_daily(words)
        assert command.enabled is True, words
        assert command.problem is None and not command.show


def test_daily_time_with_every_day() -> None:
    command = parse_daily(["08:30", "every", "day"])
    assert command.problem is None
    assert (command.at, command.days, command.enabled) == (time(8, 30), Days.EVERY_DAY, True)
    command = parse_daily(["8:30pm", "每天"])
    assert (command.at, command.days) == (time(20, 30), Days.EVERY_DAY)


def test_weak_spots_heal_when_covered_again() -> None:
    missed_twice = [([], ["a"]), ([], ["a"])]
    assert weak_concepts(missed_twice) == ["a"]
    healed = [(["a"], []), (["a"], []), (["a"], []), *missed_twice]  # newest first
    assert weak_concepts(healed) == []


def test_week_starts_on_monday_from_any_weekday() -> None:
    monday = datetime(2026, 3, 2, 0, 0, tzinfo=UTC)
    for offset in range(7):
        now = monday + timedelta(days=offset, hours=15)
        assert week_start(now, "UTC") == monday, now
    assert week_start(monday + timedelta(days=7), "UTC") == monday + timedelta(days=7)
    # In Shanghai, Sunday 20:00 UTC is already Monday: a new week there.
    sunday_evening = datetime(2026, 3, 8, 20, 0, tzinfo=UTC)
    assert week_start(sunday_evening, "Asia/Shanghai") == datetime(2026, 3, 8, 16, 0, tzinfo=UTC)


def test_points_are_round_scores_times_100_summed() -> None:
    assert points(0.0) == 0
    assert points(1.0) == 100
    assert points(1.75) == 175  # two rounds: 100 + 75
    assert points(0.456) == 46  # rounded to whole points
    assert points(-0.1) == 0


def test_at_most_three_weak_spots() -> None:
    answers = [([], ["a", "b", "c", "d"])] * 2
    assert weak_concepts(answers) == ["a", "b", "c"]


def test_a_spot_covered_as_often_as_missed_is_not_weak() -> None:
    assert weak_concepts([(["a"], []), (["a"], []), ([], ["a"]), ([], ["a"])]) == []
    assert weak_concepts([(["a"], []), ([], ["a"]), ([], ["a"])]) == ["a"]


def test_covering_a_topic_under_another_label_heals_it() -> None:
    topics = {"monitoring": "observability", "metrics": "observability"}
    answers = [(["metrics"], []), (["metrics"], []), (["metrics"], []), ([], ["monitoring"]),
               ([], ["monitoring"])]  # fmt: skip
    assert weak_concepts(answers, topics) == []


def test_daily_arguments_leave_unsaid_parts_unset() -> None:
    command = parse_daily(["08:30"])
    assert command.zone is None and command.days is None
    assert parse_daily(["13PM"]).problem == "time"  # looks like a time, in any case
    assert parse_daily(["8.30PM", "weekdays"]).days is Days.WEEKDAYS


def test_ties_rank_more_concepts_first_then_the_earlier_answer() -> None:
    at = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
    two = MemberResult(1, "a", 0.5, 2, 4, at)
    three = MemberResult(2, "b", 0.5, 3, 4, at + timedelta(minutes=1))
    early = MemberResult(3, "c", 0.5, 3, 4, at)
    assert [r.user_id for r in rank([two, three, early])] == [3, 2, 1]


def test_a_daily_round_closes_in_the_local_evening_or_after_its_minutes() -> None:
    def close(opened: datetime) -> datetime:
        return closes_at(opened, minutes=10, daily=True, zone="Asia/Shanghai", evening_hour=20)

    # 01:00 on Tuesday in Shanghai (Monday 17:00 UTC): Tuesday 20:00 Shanghai.
    assert close(datetime(2026, 3, 2, 17, 0, tzinfo=UTC)) == datetime(2026, 3, 3, 12, 0, tzinfo=UTC)
    # Opened at 20:05 local, after the evening: ten minutes, never before it opened.
    opened = datetime(2026, 3, 2, 12, 5, tzinfo=UTC)
    assert close(opened) == opened + timedelta(minutes=10)


def test_defaults_no_hints_and_three_suggestions() -> None:
    from fsrs import Rating

    from bot.core.review import rating_for
    from bot.core.timezones import suggest_timezones

    assert rating_for(0.9) is Rating.Easy  # no hints unless told
    assert len(suggest_timezones("Santa")) == 3  # Santarem, Santiago, Santo_Domingo…


def test_boundaries_of_level_up_and_grace() -> None:
    from bot.core.levels import Level
    from bot.core.review import level_up
    from bot.core.schedule import Due, due_state

    assert level_up(Level.BEGINNER, [0.8] * 5) is Level.INTERMEDIATE  # 80% is enough
    at = datetime(2026, 3, 2, 9, tzinfo=UTC)
    assert due_state(at, at + timedelta(minutes=120), timedelta(minutes=120)) is Due.SEND


def test_schedule_instants_are_utc() -> None:
    at = DailySchedule(time(8, 30), Days.EVERY_DAY, "Asia/Tokyo").local_instant(MONDAY)
    assert at.tzinfo is UTC and at == datetime(2026, 3, 1, 23, 30, tzinfo=UTC)


def test_times_people_write() -> None:
    from bot.core.schedule import parse_time

    assert parse_time("8 p.m.") == time(20, 0)
    assert parse_time("8 a.m.") == time(8, 0)
    assert parse_time("1pm") == time(13, 0)
    assert parse_time("晚上8点") == time(20, 0)
    assert parse_time("下午12点") == time(12, 0)
    assert parse_time("8:60") is None


def test_a_zero_offset_reads_plus() -> None:
    from bot.core.timezones import zone_label

    assert zone_label("Etc/GMT-0") == zone_label("Etc/GMT+0") == "UTC+00:00"


def test_question_choice_is_the_seeds() -> None:
    import random

    from bot.core.content import load_library
    from bot.core.levels import Level
    from bot.core.selection import pick_question
    from tests.conftest import CONTENT

    pool = load_library([CONTENT]).pool(Level.ADVANCED)
    picks = {pick_question(pool, [], random.Random(3)).id for _ in range(8)}  # type: ignore[union-attr]
    assert len(picks) == 1
    assert pick_question(pool, [], None) is not None
