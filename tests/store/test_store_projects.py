"""Projects: named sets of conversations sharing memory entries, in and out, and deleted."""

import pytest

from ctxchat.core.memory import MemoryKind
from ctxchat.store import InvalidValue, NotFound, Store


def test_entries_of_a_project_reach_its_conversations_and_no_other(store: Store) -> None:
    garden = store.projects.create_project("Garden")
    beds = store.conversations.create_conversation("Beds").id
    pond = store.conversations.create_conversation("Pond").id
    trip = store.conversations.create_conversation("Trip").id
    store.projects.move_to_project(beds, garden.id)
    store.projects.move_to_project(pond, garden.id)
    shared = store.memory.add_memory(MemoryKind.FACT, "The soil is clay.", project_id=garden.id)
    everywhere = store.memory.add_memory(MemoryKind.FACT, "Lives in Porto.")
    assert (shared.scope, shared.scope_words) == ("project", "project Garden")
    for conversation in (beds, pond):
        listed = store.memory.list_memory(conversation_id=conversation)
        assert [e.id for e in listed] == [shared.id, everywhere.id]
    assert [e.id for e in store.memory.list_memory(conversation_id=trip)] == [everywhere.id]
    assert store.projects.conversation_project(beds) == garden.id
    assert store.projects.conversation_project(trip) is None

    store.projects.move_to_project(pond, None)
    assert [e.id for e in store.memory.list_memory(conversation_id=pond)] == [everywhere.id]
    (project,) = store.projects.projects()
    assert (project.name, project.conversations, project.entries) == ("Garden", 1, 1)
    assert [c.project for c in store.conversations.list_conversations()] == [None, None, "Garden"]


def test_names_are_one_line_and_unique_whatever_their_case(store: Store) -> None:
    created = store.projects.create_project("  Home   garden \n")
    assert created.name == "Home garden"
    with pytest.raises(InvalidValue, match="There is already a project named “HOME garden”"):
        store.projects.create_project("HOME garden")
    with pytest.raises(InvalidValue, match="A project needs a name"):
        store.projects.create_project("   ")
    assert store.projects.project_named("home GARDEN").id == created.id
    with pytest.raises(InvalidValue, match="There is no project named “Allotment”"):
        store.projects.project_named("Allotment")
    with pytest.raises(NotFound):
        store.projects.move_to_project(store.conversations.create_conversation().id, created.id + 1)


def test_an_entry_is_a_projects_or_a_conversations_not_both(store: Store) -> None:
    project = store.projects.create_project("Garden").id
    conversation = store.conversations.create_conversation().id
    with pytest.raises(InvalidValue, match="not both"):
        store.memory.add_memory("fact", "x", project_id=project, conversation_id=conversation)
    entry = store.memory.add_memory("fact", "x", project_id=project)
    assert store.memory.update_memory(entry.id, conversation_id=conversation).project_id is None
    moved = store.memory.update_memory(entry.id, project_id=project)
    assert (moved.project_id, moved.conversation_id) == (project, None)
    # A key supersedes only within the same scope: the global entry on it stays current.
    store.memory.add_memory("fact", "global", key="soil")
    store.memory.add_memory("fact", "project", key="soil", project_id=project)
    assert [e.superseded for e in store.memory.list_memory(include_all_scopes=True)][1:] == [
        False,
        False,
    ]


@pytest.mark.parametrize(("entries", "left"), [("global", ["global"]), ("delete", [])])
def test_deleting_a_project_keeps_its_conversations(
    store: Store, entries: str, left: list[str]
) -> None:
    project = store.projects.create_project("Garden").id
    conversation = store.conversations.create_conversation("Beds").id
    store.projects.move_to_project(conversation, project)
    entry = store.memory.add_memory("fact", "The soil is clay.", project_id=project)
    store.memory.switch_memory(entry.id, conversation, on=False)
    store.projects.delete_project(project, entries=entries)  # type: ignore[arg-type]
    assert store.projects.projects() == []
    assert store.conversations.get_conversation(conversation).project_id is None
    assert [e.scope for e in store.memory.list_memory(include_all_scopes=True)] == left
