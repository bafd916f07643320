"""The database schema: its version in `PRAGMA user_version` and the migrations that build it."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from ctxchat.store.errors import NewerSchema, StoreError

# "ctxc": marks the file as ctxchat's, so another program's SQLite file is not taken for ours.
APPLICATION_ID = 0x63747863

# Each migration is a list of statements run in order; all pending ones run in one transaction.
# Never edit a released migration: add a new one.
MIGRATIONS: tuple[tuple[str, ...], ...] = (
    (
        """
        CREATE TABLE conversations (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            title TEXT NOT NULL DEFAULT '',
            model TEXT,
            profile TEXT,
            active_summary_id INTEGER REFERENCES summaries(id) ON DELETE SET NULL,
            created_at REAL NOT NULL,
            updated_at REAL NOT NULL
        )
        """,
        "CREATE INDEX conversations_by_update ON conversations(updated_at)",
        "CREATE INDEX conversations_by_summary ON conversations(active_summary_id)",
        # AUTOINCREMENT: ids of deleted messages are never reused, so a stale reference
        # (a plan, a memory entry's source) can never point at a different message.
        """
        CREATE TABLE messages (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            conversation_id INTEGER NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
            parent_id INTEGER REFERENCES messages(id) ON DELETE SET NULL,
            role TEXT NOT NULL,
            content TEXT NOT NULL DEFAULT '',
            reasoning TEXT NOT NULL DEFAULT '',
            tokens INTEGER NOT NULL DEFAULT 0,
            exact INTEGER NOT NULL DEFAULT 0,
            encoding TEXT NOT NULL DEFAULT '',
            model TEXT,
            status TEXT NOT NULL,
            finish_reason TEXT,
            error TEXT,
            prompt_tokens INTEGER,
            completion_tokens INTEGER,
            cached_tokens INTEGER,
            estimated_prompt_tokens INTEGER,
            stream_owner TEXT,
            created_at REAL NOT NULL,
            updated_at REAL NOT NULL
        )
        """,
        "CREATE INDEX messages_by_conversation ON messages(conversation_id, id)",
        # Without it every deleted message would scan the table for children (O(n²) deletes).
        "CREATE INDEX messages_by_parent ON messages(parent_id)",
        "CREATE INDEX messages_streaming ON messages(status) WHERE status = 'streaming'",
        """
        CREATE TABLE summaries (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            conversation_id INTEGER NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
            version INTEGER NOT NULL,
            text TEXT NOT NULL,
            first_message_id INTEGER NOT NULL,
            last_message_id INTEGER NOT NULL,
            strategy TEXT NOT NULL,
            model TEXT,
            tokens INTEGER NOT NULL,
            edited INTEGER NOT NULL DEFAULT 0,
            note TEXT NOT NULL DEFAULT '',
            created_at REAL NOT NULL,
            UNIQUE (conversation_id, version)
        )
        """,
        """
        CREATE TABLE memory (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            kind TEXT NOT NULL,
            text TEXT NOT NULL,
            key TEXT,
            pinned INTEGER NOT NULL DEFAULT 0,
            importance INTEGER NOT NULL DEFAULT 5 CHECK (importance BETWEEN 1 AND 10),
            conversation_id INTEGER REFERENCES conversations(id) ON DELETE CASCADE,
            source TEXT NOT NULL DEFAULT 'manual',
            enabled INTEGER NOT NULL DEFAULT 1,
            tags TEXT NOT NULL DEFAULT '[]',
            created_at REAL NOT NULL,
            updated_at REAL NOT NULL
        )
        """,
        "CREATE INDEX memory_by_conversation ON memory(conversation_id)",
        # Texts sent in requests, stored once per conversation and counted by the plans using
        # them, so deleting replies can free the texts no other plan needs.
        """
        CREATE TABLE plan_blobs (
            id INTEGER PRIMARY KEY,
            conversation_id INTEGER NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
            hash BLOB NOT NULL,
            content TEXT NOT NULL,
            refs INTEGER NOT NULL,
            UNIQUE (conversation_id, hash)
        )
        """,
        """
        CREATE TABLE reply_plans (
            message_id INTEGER PRIMARY KEY REFERENCES messages(id) ON DELETE CASCADE,
            packed BLOB NOT NULL
        )
        """,
        f"PRAGMA application_id = {APPLICATION_ID}",
    ),
    # 2: full-text search over messages, for recall (BM25 ranking), kept in step by triggers.
    (
        """
        CREATE VIRTUAL TABLE messages_fts USING fts5(
            content, content='messages', content_rowid='id',
            tokenize='unicode61 remove_diacritics 2'
        )
        """,
        """
        CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages BEGIN
            INSERT INTO messages_fts (rowid, content) VALUES (new.id, new.content);
        END
        """,
        """
        CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages BEGIN
            INSERT INTO messages_fts (messages_fts, rowid, content)
            VALUES ('delete', old.id, old.content);
        END
        """,
        """
        CREATE TRIGGER messages_fts_update AFTER UPDATE OF content ON messages BEGIN
            INSERT INTO messages_fts (messages_fts, rowid, content)
            VALUES ('delete', old.id, old.content);
            INSERT INTO messages_fts (rowid, content) VALUES (new.id, new.content);
        END
        """,
        # How many messages hold each word: common words are left out of recall queries.
        "CREATE VIRTUAL TABLE messages_vocab USING fts5vocab(messages_fts, 'row')",
        "INSERT INTO messages_fts (messages_fts) VALUES ('rebuild')",
    ),
    # 3: embeddings for semantic recall (the optional `embeddings` extra fills them in).
    (
        """
        CREATE TABLE message_embeddings (
            message_id INTEGER PRIMARY KEY REFERENCES messages(id) ON DELETE CASCADE,
            model TEXT NOT NULL,
            vector BLOB NOT NULL
        )
        """,
        # An edited message must be embedded again.
        """
        CREATE TRIGGER message_embeddings_stale AFTER UPDATE OF content ON messages BEGIN
            DELETE FROM message_embeddings WHERE message_id = new.id;
        END
        """,
    ),
    # 4: what the server itself said about a failed reply (`error` is ctxchat's sentence).
    ("ALTER TABLE messages ADD COLUMN error_detail TEXT",),
    # 5: token counts of texts every plan uses (system prompt, memory entries), by a digest of
    # the text, so the next start draws its plan before the tokenizer has loaded.
    (
        """
        CREATE TABLE kept_counts (
            id INTEGER PRIMARY KEY,
            encoding TEXT NOT NULL,
            digest BLOB NOT NULL,
            tokens INTEGER NOT NULL,
            used INTEGER NOT NULL,
            UNIQUE (encoding, digest)
        )
        """,
        "CREATE INDEX kept_counts_by_use ON kept_counts(encoding, used)",
        # A digest still confirms a guessed text: when a text goes (a message, a memory
        # entry, a summary, with their conversation) or its words change, every kept count
        # goes with it, and the next plan counts again what it needs. A reply still
        # streaming was never counted in a plan, and its saves would empty the table.
        *(
            f"""
            CREATE TRIGGER kept_counts_forget_{table}_{event.split()[0].lower()}
            AFTER {event} ON {table} {when} BEGIN
                DELETE FROM kept_counts;
            END
            """
            for table, event, when in (
                ("messages", "DELETE", ""),
                (
                    "messages",
                    "UPDATE OF content",
                    "WHEN old.status <> 'streaming' AND old.content IS NOT new.content",
                ),
                ("memory", "DELETE", ""),
                ("memory", "UPDATE OF text", "WHEN old.text IS NOT new.text"),
                ("summaries", "DELETE", ""),
                ("summaries", "UPDATE OF text", "WHEN old.text IS NOT new.text"),
            )
        ),
    ),
    # 6: memory entries that know their time: the entry that replaced one on its key (and
    # since when), and the user turn an entry was made or confirmed in. Entries made before
    # start their clock now, so no old hypothesis is flagged at once.
    (
        "ALTER TABLE memory ADD COLUMN superseded_by INTEGER "
        "REFERENCES memory(id) ON DELETE SET NULL",
        "ALTER TABLE memory ADD COLUMN superseded_at REAL",
        "ALTER TABLE memory ADD COLUMN turn INTEGER NOT NULL DEFAULT 0",
        "UPDATE memory SET turn = (SELECT count(*) FROM messages WHERE role = 'user')",
        "CREATE INDEX memory_by_key ON memory(key COLLATE NOCASE) WHERE key IS NOT NULL",
    ),
    # 7: vectors keyed by (message, model), so switching the embedding model keeps the
    # other model's vectors instead of overwriting them.
    (
        """
        CREATE TABLE message_vectors (
            message_id INTEGER NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
            model TEXT NOT NULL,
            vector BLOB NOT NULL,
            PRIMARY KEY (message_id, model)
        )
        """,
        "INSERT INTO message_vectors SELECT message_id, model, vector FROM message_embeddings",
        "DROP TRIGGER message_embeddings_stale",
        "DROP TABLE message_embeddings",
        "ALTER TABLE message_vectors RENAME TO message_embeddings",
        # An edited message must be embedded again, by every model.
        """
        CREATE TRIGGER message_embeddings_stale AFTER UPDATE OF content ON messages BEGIN
            DELETE FROM message_embeddings WHERE message_id = new.id;
        END
        """,
    ),
    # 8: token counts by a server's own tokenizer (llama.cpp, llama-cpp-python, vLLM), by
    # tokenizer and text digest; beside tiktoken's, never mixed with them. A changed text
    # has a new digest, so nothing needs forgetting.
    (
        """
        CREATE TABLE server_counts (
            tokenizer TEXT NOT NULL,
            digest BLOB NOT NULL,
            tokens INTEGER NOT NULL,
            PRIMARY KEY (tokenizer, digest)
        ) WITHOUT ROWID
        """,
    ),
    # 9: variants of a reply (the same request asked again with a change: without a layer or
    # an item, in the other mode, to another model), each with its own plan, count and usage.
    # The plan is kept whole as JSON: variants are few, and one can be kept as the reply.
    (
        """
        CREATE TABLE reply_variants (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            reply_id INTEGER NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
            change TEXT NOT NULL,
            content TEXT NOT NULL DEFAULT '',
            reasoning TEXT NOT NULL DEFAULT '',
            tokens INTEGER NOT NULL DEFAULT 0,
            exact INTEGER NOT NULL DEFAULT 0,
            encoding TEXT NOT NULL DEFAULT '',
            model TEXT,
            status TEXT NOT NULL,
            finish_reason TEXT,
            error TEXT,
            error_detail TEXT,
            prompt_tokens INTEGER,
            completion_tokens INTEGER,
            cached_tokens INTEGER,
            estimated_prompt_tokens INTEGER,
            stream_owner TEXT,
            plan TEXT NOT NULL,
            created_at REAL NOT NULL,
            updated_at REAL NOT NULL
        )
        """,
        "CREATE INDEX reply_variants_by_reply ON reply_variants(reply_id, id)",
    ),
    # 10: the profile and model the user chose for a conversation (F4), used whenever it is
    # opened again. NULL: none chosen, the configured one is used (`model` and `profile`
    # record what the conversation started with, not a choice).
    (
        "ALTER TABLE conversations ADD COLUMN chosen_profile TEXT",
        "ALTER TABLE conversations ADD COLUMN chosen_model TEXT",
    ),
    # 11: memory entries kept when their conversation was deleted: global from then on, left
    # out of requests until the user includes them; `kept_from` is that conversation's title.
    ("ALTER TABLE memory ADD COLUMN kept_from TEXT",),
    # 12: where an imported conversation came from: the tool whose history it was (`origin`:
    # chatgpt, claude, llm, open-webui) and its id there (`origin_id`). Importing the same
    # history again finds it by the pair and adds nothing. NULL: made in ctxchat.
    (
        "ALTER TABLE conversations ADD COLUMN origin TEXT",
        "ALTER TABLE conversations ADD COLUMN origin_id TEXT",
        "CREATE UNIQUE INDEX conversations_by_origin ON conversations(origin, origin_id) "
        "WHERE origin_id IS NOT NULL",
    ),
    # 13: a summary version says whether the model's reply was cut at its limit, what the
    # folded turns held that it does not (a JSON list of {text, kind, message_id, context}),
    # and whether the user reviewed that. And the summaries being made, one row per
    # conversation, so another process sees one running and does not fold the same turns.
    (
        "ALTER TABLE summaries ADD COLUMN cut INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE summaries ADD COLUMN lost TEXT NOT NULL DEFAULT '[]'",
        "ALTER TABLE summaries ADD COLUMN reviewed INTEGER NOT NULL DEFAULT 0",
        """
        CREATE TABLE summary_jobs (
            conversation_id INTEGER PRIMARY KEY
                REFERENCES conversations(id) ON DELETE CASCADE,
            job TEXT NOT NULL,
            kind TEXT NOT NULL,
            owner TEXT NOT NULL,
            first_message_id INTEGER,
            last_message_id INTEGER,
            messages INTEGER NOT NULL DEFAULT 0,
            step INTEGER NOT NULL DEFAULT 0,
            steps INTEGER NOT NULL DEFAULT 1,
            started_at REAL NOT NULL,
            updated_at REAL NOT NULL,
            state TEXT NOT NULL,
            error TEXT
        )
        """,
    ),
    # 14: messages the user left out of requests: kept, searched and shown, never sent (nor
    # recalled, summarized or read for facts) until included again.
    (
        "ALTER TABLE messages ADD COLUMN excluded INTEGER NOT NULL DEFAULT 0",
        "CREATE INDEX messages_excluded ON messages(conversation_id) WHERE excluded = 1",
    ),
    # 15: a conversation's task state: its goal and its steps (JSON: text and done each).
    (
        """
        CREATE TABLE tasks (
            conversation_id INTEGER PRIMARY KEY REFERENCES conversations(id) ON DELETE CASCADE,
            goal TEXT NOT NULL DEFAULT '',
            steps TEXT NOT NULL DEFAULT '[]',
            updated_at REAL NOT NULL
        )
        """,
    ),
    # 16: files attached to a conversation: the copy read (what requests send), its digest
    # and size and time on disk then (to tell a change), its count and its parts (JSON: lines,
    # offsets and count of each), counted with `encoding`.
    (
        """
        CREATE TABLE attachments (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            conversation_id INTEGER NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
            path TEXT NOT NULL,
            name TEXT NOT NULL,
            content TEXT NOT NULL,
            digest TEXT NOT NULL,
            size INTEGER NOT NULL,
            mtime REAL NOT NULL,
            tokens INTEGER NOT NULL,
            encoding TEXT NOT NULL,
            parts TEXT NOT NULL,
            attached_at REAL NOT NULL,
            read_at REAL NOT NULL,
            UNIQUE (conversation_id, path)
        )
        """,
    ),
    # 17: whether a reply's server charges for it ("free": on this machine or the local
    # network; "priced": its usage times the model's price); NULL: not recorded.
    (
        "ALTER TABLE messages ADD COLUMN billing TEXT",
        "ALTER TABLE reply_variants ADD COLUMN billing TEXT",
    ),
    # 18: the preset a conversation chose ([presets.NAME] in the config; NULL: none) and its own
    # system prompt (NULL: the preset's, else the config's).
    (
        "ALTER TABLE conversations ADD COLUMN preset TEXT",
        "ALTER TABLE conversations ADD COLUMN system_prompt TEXT",
    ),
    # 19: memory entries the user switched off in one conversation (they stay on in the others).
    (
        """
        CREATE TABLE memory_off (
            memory_id INTEGER NOT NULL REFERENCES memory(id) ON DELETE CASCADE,
            conversation_id INTEGER NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
            PRIMARY KEY (memory_id, conversation_id)
        ) WITHOUT ROWID
        """,
        "CREATE INDEX memory_off_by_conversation ON memory_off(conversation_id)",
    ),
    # 20: projects: named sets of conversations sharing memory entries. A conversation is in
    # one project or none; an entry is global, a project's or a conversation's.
    (
        """
        CREATE TABLE projects (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            name TEXT NOT NULL UNIQUE COLLATE NOCASE,
            created_at REAL NOT NULL
        )
        """,
        "ALTER TABLE conversations ADD COLUMN project_id INTEGER "
        "REFERENCES projects(id) ON DELETE SET NULL",
        "ALTER TABLE memory ADD COLUMN project_id INTEGER REFERENCES projects(id) ON DELETE CASCADE",
        "CREATE INDEX conversations_by_project ON conversations(project_id)",
        "CREATE INDEX memory_by_project ON memory(project_id)",
    ),
    # 21: what requests taught about a server and model (how much more it counts than
    # ctxchat's estimate, the largest difference seen, a window a refusal named), shared by
    # every process and run so they all plan alike. `server` is "<base URL> <model>".
    (
        """
        CREATE TABLE server_learning (
            server TEXT PRIMARY KEY,
            undercount REAL NOT NULL DEFAULT 1,
            gap INTEGER NOT NULL DEFAULT 0,
            window INTEGER,
            window_note TEXT,
            updated_at REAL NOT NULL
        ) WITHOUT ROWID
        """,
    ),
    # 22: what the check of a summary found besides lost details (a JSON list of sentences:
    # it repeats its instructions or the transcript, it states what the turns do not hold),
    # and whether it waits for the user's review, not in force (an automatic summary the
    # check found something in).
    (
        "ALTER TABLE summaries ADD COLUMN faults TEXT NOT NULL DEFAULT '[]'",
        "ALTER TABLE summaries ADD COLUMN waiting INTEGER NOT NULL DEFAULT 0",
    ),
)

SCHEMA_VERSION = len(MIGRATIONS)


def schema_version(conn: sqlite3.Connection) -> int:
    version: int = conn.execute("PRAGMA user_version").fetchone()[0]
    return version


def check_ownership(conn: sqlite3.Connection, path: Path) -> None:
    """Refuse another program's SQLite file and a database newer than this code."""
    app_id: int = conn.execute("PRAGMA application_id").fetchone()[0]
    version = schema_version(conn)
    if app_id not in (0, APPLICATION_ID) or (
        version == 0
        and app_id == 0
        and conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
    ):
        raise StoreError(
            f"{path} is an SQLite database of another program, not ctxchat's; "
            "choose another data directory."
        )
    if version > SCHEMA_VERSION:
        raise NewerSchema(path, version, SCHEMA_VERSION)


def migrate(conn: sqlite3.Connection, path: Path) -> int:
    """Bring the schema up to date in one transaction; returns how many migrations ran."""
    if schema_version(conn) == SCHEMA_VERSION:
        return 0
    conn.execute("BEGIN IMMEDIATE")
    try:
        # Another process may have migrated while we waited for the write lock.
        check_ownership(conn, path)
        current = schema_version(conn)
        for statements in MIGRATIONS[current:]:
            for statement in statements:
                conn.execute(statement)
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
    return SCHEMA_VERSION - current
