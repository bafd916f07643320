"""The store is a database that owns repositories, not a chain of mixins: a caller names the
repository it uses (`store.messages.add_message`), and no repository inherits another."""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import get_type_hints

from ctxchat.store import Store
from ctxchat.store.database import Database

# What stays on the store itself: opening, closing, transactions and the file's state.
STORE_OWN = {
    "open",
    "close",
    "now",
    "transaction",
    "reading",
    "waiting_briefly",
    "data_version",
    "reclaim_space",
    "checkpoint",
    "takes_writes",
}


def ctxchat_classes(cls: type) -> list[type]:
    return [base for base in cls.__mro__ if base.__module__.startswith("ctxchat.")]


def repositories() -> dict[str, type]:
    return {
        name: kind
        for name, kind in get_type_hints(Store).items()
        if isinstance(kind, type) and kind.__module__.startswith("ctxchat.store.")
    }


def public_methods(cls: type) -> set[str]:
    return {name for name, member in inspect.getmembers(cls, callable) if name[0] != "_"}


def test_the_stores_mro_holds_at_most_three_ctxchat_classes() -> None:
    assert ctxchat_classes(Store) == [Store, Database]
    assert len(ctxchat_classes(Store)) <= 3


def test_no_repository_inherits_another_or_the_database() -> None:
    found = repositories()
    assert len(found) >= 15
    for name, kind in found.items():
        assert ctxchat_classes(kind) == [kind], f"store.{name} ({kind.__name__}) inherits"
        assert not issubclass(kind, Database)


def test_each_method_lives_on_one_repository_and_none_on_the_store(tmp_path: Path) -> None:
    owners: dict[str, list[str]] = {}
    for name, kind in repositories().items():
        for method in public_methods(kind):
            owners.setdefault(method, []).append(name)
    assert {method: names for method, names in owners.items() if len(names) > 1} == {}
    assert public_methods(Store) == STORE_OWN
    with Store.open(tmp_path / "ctxchat.db") as store:
        made = {name: type(getattr(store, name)) for name in repositories()}
    assert made == repositories()


def test_repositories_share_the_stores_connection_and_transactions(tmp_path: Path) -> None:
    with Store.open(tmp_path / "ctxchat.db") as store:
        conversation = store.conversations.create_conversation("one")
        try:
            with store.transaction():
                store.messages.add_message(
                    conversation.id, "user", "Hello", tokens=1, exact=True, encoding="o200k_base"
                )
                store.memory.add_memory("fact", "Kept only if the whole transaction is.")
                raise RuntimeError("undo both")
        except RuntimeError:
            pass
        assert store.messages.count_messages(conversation.id) == 0
        assert store.memory.list_memory(include_all_scopes=True) == []
