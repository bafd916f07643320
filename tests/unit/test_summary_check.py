"""The check of a summary besides what it lost: its instructions or the transcript repeated,
numbers and names the folded turns do not hold."""

from ctxchat.core.history import HistoryMessage
from ctxchat.core.summary import SummaryStrategy
from ctxchat.core.summary_check import SummaryFaults, check_summary

TEXTS = [
    ("user", "We are planning a trip to Lyon with Marta in May."),
    (
        "assistant",
        "Lyon in May is mild. Book the train from Paris early: tickets cost about 40 euros "
        "and the trip takes two hours.",
    ),
    ("user", "Marta wants a cooking class; what do they cost?"),
    ("assistant", "A half-day cooking class costs around 90 euros a person."),
]
TURNS = [HistoryMessage(number, role, text, 20) for number, (role, text) in enumerate(TEXTS, 1)]


def check(text: str, previous: str | None = None) -> SummaryFaults:
    return check_summary(text, TURNS, strategy=SummaryStrategy.SUMMARIZE, previous=previous)


def test_a_faithful_summary_has_no_fault() -> None:
    faults = check(
        "The user plans a May trip to Lyon with Marta. Trains from Paris take two hours and "
        "cost about 40 euros; a half-day cooking class costs around 90 euros a person."
    )
    assert not faults
    assert faults.words() == ()


def test_repeating_its_instructions_is_a_fault() -> None:
    faults = check("Trip to Lyon with Marta in May. Write the summary.")
    assert faults.instructions == ("Write the summary.",)
    assert faults.words() == ("repeats its own instructions (“Write the summary.”)",)


def test_repeating_the_transcript_is_a_fault() -> None:
    echoed = check("[user] " + TURNS[0].content + "\n\n[assistant] " + TURNS[1].content)
    assert echoed.copied == 1.0
    copied = check(TURNS[1].content + " " + TURNS[3].content)
    assert copied.copied >= 0.5
    assert copied.words()[0].startswith("repeats the transcript (")


def test_numbers_and_names_the_turns_do_not_hold_are_invented() -> None:
    faults = check(
        "The user plans a trip to Lyon with Marta and Giovanni; they ordered a 200-piece "
        "combo for 40 euros."
    )
    assert "200" in faults.invented and "Giovanni" in faults.invented
    assert "40" not in faults.invented and "Lyon" not in faults.invented
    assert faults.words()[-1].startswith("states what the folded turns do not hold: ")


def test_what_the_previous_summary_held_is_not_invented() -> None:
    assert not check("Budget 1,500 euros. Trip to Lyon.", previous="Budget: 1,500 euros.")
