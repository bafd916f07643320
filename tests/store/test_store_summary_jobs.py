"""Summary jobs in the store, and what a version keeps besides its text: the cut flag, the
loss report, whether it was reviewed, and the version it was made from."""

from collections.abc import Callable
from pathlib import Path

import pytest

from ctxchat.core.detail_kind import DetailKind
from ctxchat.core.summary_loss import LostDetail
from ctxchat.store import SCHEMA_VERSION, Store, StoredMessage, schema
from ctxchat.store.summaries import SummaryChanged
from ctxchat.store.summary_jobs import JobKind, SummaryBusy

Say = Callable[[int, str, str], StoredMessage]


def test_one_job_per_conversation_at_a_time(store: Store) -> None:
    first = store.conversations.create_conversation("a").id
    other = store.conversations.create_conversation("b").id
    job = store.summary_jobs.start_summary_job(
        first, JobKind.FOLD, first_message_id=3, last_message_id=9
    )
    assert job.running and job.here and (job.step, job.steps) == (0, 1)
    with pytest.raises(SummaryBusy) as busy:
        store.summary_jobs.start_summary_job(first, JobKind.REBUILD)
    assert busy.value.job == job
    assert str(busy.value).startswith(
        "This conversation is already being summarized: this process is summarizing "
        "messages 3-9, for "
    )
    assert store.summary_jobs.start_summary_job(other, JobKind.FOLD).running  # another conversation
    moved = store.summary_jobs.advance_summary_job(job, 2, 3)
    assert store.summary_jobs.summary_job(first) == moved and (moved.step, moved.steps) == (2, 3)
    store.summary_jobs.end_summary_job(moved)
    assert store.summary_jobs.summary_job(first) is None
    assert [j.conversation_id for j in store.summary_jobs.summary_jobs()] == [other]


def test_a_failed_job_is_kept_until_the_next_one(store: Store) -> None:
    conversation = store.conversations.create_conversation("a").id
    job = store.summary_jobs.start_summary_job(conversation, JobKind.FOLD)
    store.summary_jobs.end_summary_job(job, "Summarization failed: the server is down. Retry.")
    failed = store.summary_jobs.summary_job(conversation)
    assert failed is not None and failed.failed and not failed.running
    run = failed.run()
    assert run is not None and run.failure == "the server is down"
    assert store.summary_jobs.summary_jobs() == []
    assert store.summary_jobs.start_summary_job(conversation, JobKind.FOLD).running


def test_a_version_made_from_one_no_longer_in_force_is_refused(store: Store, say: Say) -> None:
    conversation = store.conversations.create_conversation().id
    ids = [say(conversation, "user", f"m{i}").id for i in range(4)]
    first = store.summaries.add_summary(
        conversation,
        text="one",
        first_message_id=ids[0],
        last_message_id=ids[1],
        strategy="summarize",
        model=None,
        tokens=1,
        in_force=None,
    )
    with pytest.raises(SummaryChanged):
        store.summaries.add_summary(
            conversation,
            text="also one",
            first_message_id=ids[0],
            last_message_id=ids[1],
            strategy="summarize",
            model=None,
            tokens=2,
            in_force=None,
        )
    second = store.summaries.add_summary(
        conversation,
        text="two",
        first_message_id=ids[0],
        last_message_id=ids[3],
        strategy="summarize",
        model=None,
        tokens=1,
        cut=True,
        lost=[LostDetail("m2", DetailKind.IDENTIFIER, ids[2], "m2")],
        in_force=first.id,
    )
    assert [v.text for v in store.summaries.summaries(conversation)] == ["one", "two"]
    assert second.cut and second.flagged
    reviewed = store.summaries.mark_summary_reviewed(second.id)
    assert reviewed.reviewed and not reviewed.flagged and reviewed.lost == second.lost


def test_a_database_from_before_loss_reports_is_upgraded(
    db_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(schema, "MIGRATIONS", schema.MIGRATIONS[:10])
    monkeypatch.setattr(schema, "SCHEMA_VERSION", 10)
    with Store.open(db_path) as old, old.transaction() as conn:
        conn.execute(
            "INSERT INTO conversations (id, title, created_at, updated_at) VALUES (1, 'c', 5, 5)"
        )
        conn.execute(
            "INSERT INTO messages (id, conversation_id, role, status, created_at, updated_at) "
            "VALUES (1, 1, 'user', 'complete', 5, 5)"
        )
        conn.execute(
            "INSERT INTO summaries (conversation_id, version, text, first_message_id, "
            "last_message_id, strategy, tokens, created_at) "
            "VALUES (1, 1, 'kept', 1, 1, 'summarize', 1, 5)"
        )
    monkeypatch.undo()
    with Store.open(db_path) as store:
        (version,) = store.summaries.summaries(1)
        assert (version.text, version.cut, version.lost, version.reviewed) == (
            "kept",
            False,
            (),
            False,
        )
        assert store.summary_jobs.start_summary_job(1, JobKind.FOLD).running
        with store.reading() as conn:
            assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
