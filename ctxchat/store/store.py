"""The SQLite store: the database, and the repositories that read and write its tables."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from pathlib import Path

from ctxchat.store.attachments import Attachments
from ctxchat.store.branches import Branches
from ctxchat.store.connection import connect
from ctxchat.store.conversations import Conversations
from ctxchat.store.costs import Costs
from ctxchat.store.counts import KeptCounts
from ctxchat.store.database import Database
from ctxchat.store.exclusions import Exclusions
from ctxchat.store.history_import import HistoryImports
from ctxchat.store.memory import Memory
from ctxchat.store.messages import Messages
from ctxchat.store.other_embeddings import OtherEmbeddings
from ctxchat.store.plans import Plans
from ctxchat.store.projects import Projects
from ctxchat.store.replies import Replies
from ctxchat.store.search import Search
from ctxchat.store.server_counts import ServerCounts
from ctxchat.store.server_learning import ServerLearning
from ctxchat.store.summaries import Summaries
from ctxchat.store.summary_jobs import SummaryJobs
from ctxchat.store.tasks import Tasks
from ctxchat.store.transfer import Transfer
from ctxchat.store.variants import Variants


class Store(Database):
    """ctxchat's database: conversations, messages, memory, summaries and reply plans.

    Open it with `Store.open(path)`; use it as a context manager or `close()` it. Every
    write is one `BEGIN IMMEDIATE` transaction; `transaction()` groups several, across
    repositories. Each table is read and written through its repository, named by the
    caller: `store.messages.add_message(...)`, `store.memory.list_memory()`.
    """

    interrupted_on_open: int = 0
    """How many replies a crashed process left streaming, marked interrupted by `open`."""

    # The repositories, one per table or job, made by `__init__`; the caller names the one
    # it uses. One that needs another is given it, so none inherits from another.
    conversations: Conversations
    messages: Messages
    exclusions: Exclusions
    plans: Plans
    summaries: Summaries
    memory: Memory
    projects: Projects
    replies: Replies
    variants: Variants
    costs: Costs
    tasks: Tasks
    attachments: Attachments
    branches: Branches
    transfer: Transfer
    search: Search
    other_embeddings: OtherEmbeddings
    counts: KeptCounts
    server_counts: ServerCounts
    server_learning: ServerLearning
    imports: HistoryImports
    summary_jobs: SummaryJobs

    def __init__(self, conn: sqlite3.Connection, path: Path, clock: Callable[[], float]) -> None:
        super().__init__(conn, path, clock)
        self.conversations = Conversations(self)
        self.messages = Messages(self)
        self.exclusions = Exclusions(self)
        self.plans = Plans(self)
        self.summaries = Summaries(self)
        self.memory = Memory(self)
        self.projects = Projects(self)
        self.replies = Replies(self)
        self.variants = Variants(self, self.plans)
        self.costs = Costs(self)
        self.tasks = Tasks(self)
        self.attachments = Attachments(self)
        self.branches = Branches(
            self,
            conversations=self.conversations,
            messages=self.messages,
            exclusions=self.exclusions,
            tasks=self.tasks,
            summaries=self.summaries,
        )
        self.transfer = Transfer(
            self,
            conversations=self.conversations,
            messages=self.messages,
            summaries=self.summaries,
            plans=self.plans,
            variants=self.variants,
            memory=self.memory,
            tasks=self.tasks,
            attachments=self.attachments,
        )
        self.search = Search(self)
        self.other_embeddings = OtherEmbeddings(self)
        self.counts = KeptCounts(self)
        self.server_counts = ServerCounts(self)
        self.server_learning = ServerLearning(self)
        self.imports = HistoryImports(self)
        self.summary_jobs = SummaryJobs(self)

    @classmethod
    def open(cls, path: Path | str, *, clock: Callable[[], float] = time.time) -> Store:
        """Open (creating and migrating if needed) the database at `path`.

        Raises CorruptDatabase for a damaged or non-SQLite file, NewerSchema for a database
        from a newer ctxchat, StoreError for anything else that stops it (permissions).
        """
        path = Path(path).expanduser()
        store = cls(connect(path), path, clock)
        try:
            store.interrupted_on_open = store.replies.interrupt_abandoned_replies()
            store.variants.interrupt_abandoned_variants()
        except BaseException:
            store.close()
            raise
        return store
