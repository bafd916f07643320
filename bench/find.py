"""Benchmark of finding text in a 10,000-message database, from the full-text index: the
switcher's search over every conversation, as a ratio to scanning every message's text (what
`list_conversations(search=…)` does), and the find bar's over one conversation (all 10,000
messages in a second run), as a ratio to reading that conversation and looking in each
message. Run: python bench/find.py"""

from __future__ import annotations

import random
import sys
import tempfile
from pathlib import Path

from ctxchat.store import Store
from ctxchat.store.search import find_words

sys.path.insert(0, str(Path(__file__).resolve().parent))

from store import MESSAGES, text_for, timed  # bench/store.py: the same texts, the same timer

CONVERSATIONS = 50
RUNS = 7
QUERIES = ["migra", "constraints release", "миграции", "json loads", "nothingsuchword"]


def read_and_look(store: Store, conversation_id: int, query: str) -> list[int]:
    """The find bar without an index: every message read, each word looked for."""
    words = find_words(query)
    return [
        message.id
        for message in store.messages.messages(conversation_id)
        if all(word in message.content.casefold() for word in words)
    ]


def fill(store: Store, conversations: int) -> list[int]:
    rng = random.Random(11)
    ids = [store.conversations.create_conversation(f"talk {n}").id for n in range(conversations)]
    with store.transaction():
        for index in range(MESSAGES):
            store.messages.add_message(
                ids[index % conversations],
                "user" if index % 2 == 0 else "assistant",
                text_for(rng, index),
                tokens=1,
                exact=False,
                encoding="estimate",
            )
    return ids


def measure(store: Store, conversation_id: int) -> None:
    """Each query: the switcher's search and the find bar's in `conversation_id`."""
    for query in QUERIES:

        def scanning(q: str = query) -> object:
            return store.conversations.list_conversations(search=q)

        def switching(q: str = query) -> object:
            return store.search.find_conversations(q)

        def reading(q: str = query) -> object:
            return read_and_look(store, conversation_id, q)

        def finding(q: str = query) -> object:
            return store.search.find_in_conversation(conversation_id, q)

        scan, switcher = timed(scanning, RUNS), timed(switching, RUNS)
        read, find_bar = timed(reading, RUNS), timed(finding, RUNS)
        hits = len(store.search.find_in_conversation(conversation_id, query))
        print(
            f"  {query!r:22} switcher {switcher * 1000:6.2f} ms "
            f"({switcher / scan:4.2f} × scanning); find bar {find_bar * 1000:6.2f} ms "
            f"({find_bar / read:4.2f} × reading the conversation); {hits:,} hits"
        )


def main() -> None:
    for conversations in (CONVERSATIONS, 1):
        with (
            tempfile.TemporaryDirectory() as directory,
            Store.open(Path(directory) / "ctxchat.db") as store,
        ):
            first = fill(store, conversations)[0]
            print(f"{MESSAGES:,} messages in {conversations} conversation(s)")
            measure(store, first)


if __name__ == "__main__":
    main()
