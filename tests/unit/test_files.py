"""The files layer: attached files whole while they fit, else their most relevant parts."""

import pytest

from ctxchat.core.budget import Budget, BudgetShares, Layer
from ctxchat.core.files import (
    FILES_HEADER,
    AttachedFile,
    DiskState,
    plan_files,
    sendable_text,
    split_into_parts,
)
from ctxchat.core.plan import Reason
from ctxchat.core.tokens import TokenCounter, count_message

from .plans import plan_with

BUDGET = Budget(8_000, 1_000, BudgetShares(files=0.1, working=0.5))
FUNCTIONS = [f"def step_{n}():\n    return 'step {n} of the migration'\n\n" for n in range(1, 21)]
FUNCTIONS[11] = "def switch_dsn():\n    return 'postgres://pg16-a/billing'\n\n"


def attached(
    counter: TokenCounter, file_id: int, name: str, text: str, part_tokens: int = 45
) -> AttachedFile:
    sent = sendable_text(text)
    parts = split_into_parts(sent, counter, part_tokens)
    return AttachedFile(file_id, name, sent, counter.count_text(sent), parts)


@pytest.fixture
def notes(counter: TokenCounter) -> AttachedFile:
    return attached(counter, 1, "notes.md", "# Notes\nThe cluster is pg16-a.\nRestore tonight.")


@pytest.fixture
def code(counter: TokenCounter) -> AttachedFile:
    return attached(counter, 2, "migrate.py", "".join(FUNCTIONS))


def test_parts_cover_the_text_at_line_ends_within_their_size(code: AttachedFile) -> None:
    assert "".join(code.part_text(part) for part in code.parts) == code.text
    assert [(p.first_line, p.last_line, p.tokens) for p in code.parts] == [
        (1, 7, 35),
        (8, 15, 40),
        (16, 22, 35),
        (23, 30, 40),
        (31, 37, 36),
        (38, 45, 40),
        (46, 52, 35),
        (53, 60, 40),
    ]
    assert all(code.part_text(p).endswith("\n") for p in code.parts)
    assert code.lines == code.text.count("\n") == 60


def test_a_line_longer_than_a_part_is_cut_inside_it(counter: TokenCounter) -> None:
    text = "word " * 3_000 + "\n"
    parts = split_into_parts(text, counter, 100)
    assert "".join(text[p.start : p.end] for p in parts) == text
    assert len(parts) == 38
    assert all(p.tokens <= 100 and p.first_line == p.last_line == 1 for p in parts)


def test_files_that_fit_are_sent_whole_in_the_order_attached(
    counter: TokenCounter, notes: AttachedFile, code: AttachedFile
) -> None:
    layer, text = plan_files(BUDGET, counter, [notes, code], 700, "Which DSN?")
    assert text is not None
    assert text.startswith(
        f"{FILES_HEADER}\n--- BEGIN notes.md (whole file, 3 lines) ---\n# Notes\n"
        "The cluster is pg16-a.\nRestore tonight.\n--- END notes.md ---\n"
        "--- BEGIN migrate.py (whole file, 60 lines) ---\ndef step_1():\n"
    )
    assert [(item.ref, item.tokens, item.label) for item in layer.items] == [
        ("file:1", 31, "notes.md: whole file, 3 lines, 0.4% of the budget"),
        ("file:2", 319, "migrate.py: whole file, 60 lines, 4.6% of the budget"),
    ]
    assert layer.tokens == count_message(counter, "system", text).tokens == 388
    assert (layer.left_out, layer.notes, layer.hints) == ((), (), ())


def test_a_file_too_big_for_its_share_sends_the_parts_the_message_needs(
    counter: TokenCounter, notes: AttachedFile, code: AttachedFile
) -> None:
    # "dsn" finds `switch_dsn`: snake_case names are words apart in a file's index.
    layer, text = plan_files(BUDGET, counter, [notes, code], 200, "Which DSN do we switch to?")
    assert [(item.ref, item.tokens, item.label) for item in layer.items] == [
        ("file:1", 31, "notes.md: whole file, 3 lines, 0.4% of the budget"),
        ("file:2#5", 60, "migrate.py lines 31-37 (part 5 of 8): matched dsn, switch; score 3.75"),
    ]
    assert (
        text is not None
        and (
            "--- BEGIN migrate.py, lines 31-37 (part 5 of 8) ---\n"
            "def step_11():\n    return 'step 11 of the migration'\n\n"
            "def switch_dsn():\n    return 'postgres://pg16-a/billing'\n\n"
            "def step_13():\n--- END migrate.py ---\n"
        )
        in text
    )
    assert layer.tokens == count_message(counter, "system", text).tokens == 129
    assert [(o.ref, o.tokens, o.reason, o.detail, o.label) for o in layer.left_out] == [
        (
            "file:2#1-4",
            150,
            Reason.BUDGET,
            "dropped: over the files budget (less relevant to the new message)",
            "migrate.py lines 1-30, 4 parts of 8",
        ),
        (
            "file:2#6-8",
            115,
            Reason.BUDGET,
            "dropped: over the files budget (less relevant to the new message)",
            "migrate.py lines 38-60, 3 parts of 8",
        ),
    ]
    assert layer.hints == (
        "migrate.py is 301 tokens, more than the files share leaves: it is sent in the parts "
        "most relevant to the new message",
    )


@pytest.mark.parametrize(
    ("draft", "why"),
    [
        (None, "no new message to match yet: in file order"),
        ("What about lunch?", "the file matches none of the new message's words: in file order"),
    ],
)
def test_with_nothing_to_match_a_file_is_sent_from_its_start(
    counter: TokenCounter, code: AttachedFile, draft: str | None, why: str
) -> None:
    layer, _text = plan_files(BUDGET, counter, [code], 200, draft)
    assert [item.ref for item in layer.items] == ["file:2#1", "file:2#2"]
    assert all(item.label.endswith(why) for item in layer.items)
    assert [(o.ref, o.detail) for o in layer.left_out] == [
        ("file:2#3-8", "dropped: over the files budget (later in the file)")
    ]


@pytest.mark.parametrize(
    ("disk", "note"),
    [
        (DiskState.SAME, None),
        (
            DiskState.CHANGED,
            "notes.md changed on disk since it was attached; the attached copy is sent "
            "(attach it again with --refresh to read it anew)",
        ),
        (DiskState.GONE, "notes.md is no longer readable on disk; the attached copy is sent"),
    ],
)
def test_a_file_changed_on_disk_is_noted_and_its_copy_sent(
    counter: TokenCounter, notes: AttachedFile, disk: DiskState, note: str | None
) -> None:
    changed = AttachedFile(notes.id, notes.name, notes.text, notes.tokens, notes.parts, disk)
    layer, text = plan_files(BUDGET, counter, [changed], 700, None)
    assert layer.notes == ((note,) if note else ())
    assert text is not None and "The cluster is pg16-a." in text


def test_attached_files_take_their_share_from_working_after_the_task(
    counter: TokenCounter, notes: AttachedFile, code: AttachedFile
) -> None:
    def plan(files: list[AttachedFile]) -> tuple[tuple[str, ...], list[Layer], int]:
        made = plan_with(counter, new_input="Which DSN?", files=files)
        layer = made.layer(Layer.FILES)
        return made.share_notes, [m.layer for m in made.messages], layer.budget

    assert plan([notes, code]) == (
        ("2 files: they take 25% from working",),
        [Layer.SYSTEM, Layer.FILES, Layer.INPUT],
        1_750,
    )
    assert plan([notes])[0] == ("a file is attached: it takes 25% from working",)
    assert plan([]) == ((), [Layer.SYSTEM, Layer.INPUT], 0)


def test_nothing_fits_in_no_room(counter: TokenCounter, notes: AttachedFile) -> None:
    layer, text = plan_files(BUDGET, counter, [notes], 20, None)
    assert (layer.tokens, layer.items, text) == (0, (), None)
    assert [o.ref for o in layer.left_out] == ["file:1#1"]
