"""Synthetic conversation text for the benchmarks: English, Russian and code, deterministic."""

from __future__ import annotations

import random

ENGLISH = [
    "We should keep the database schema small and add migrations as we go.",
    "Can you explain why the cache misses when the prefix changes between requests?",
    "The deploy failed because the health check timed out after thirty seconds.",
    "Let's decide on PostgreSQL for production and SQLite for local development.",
    "I prefer short answers with a code example when it helps.",
]
RUSSIAN = [
    "Мы решили хранить историю сообщений в SQLite, а сводку обновлять постепенно.",
    "Почему модель забывает то, что мы обсуждали в начале разговора?",
    "Нужно, чтобы приложение работало без сети и не теряло сообщения пользователя.",
]
CODE = [
    "```python\ndef fold(summary: str, messages: list[str]) -> str:\n"
    "    return summary + '\\n'.join(messages)\n```",
    "```sql\nSELECT id, role, content FROM messages WHERE conversation_id = ? ORDER BY id;\n```",
]


def synthetic_texts(count: int, seed: int = 7) -> list[str]:
    """`count` message texts of one to four sentences or a code block each."""
    rng = random.Random(seed)
    pools = [ENGLISH, RUSSIAN, CODE]
    texts = []
    for _ in range(count):
        pool = rng.choices(pools, weights=[5, 3, 2])[0]
        texts.append(" ".join(rng.choice(pool) for _ in range(rng.randint(1, 4))))
    return texts


_SYLLABLES = "ka lo mi ne ru ta vo xi ze pa do fe gu hi ja ko lu ma ni po qu ra se ti".split()  # noqa: SIM905
_FUNCTION_WORDS = "the a of to and in is that it for on with as we you this be are".split()  # noqa: SIM905


def varied_texts(count: int, seed: int = 5, vocabulary: int = 8_000) -> list[str]:
    """`count` messages over a Zipf-distributed vocabulary of invented words.

    Real conversations use many distinct words, each rarely; this is closer to that than
    `synthetic_texts`, where every message repeats one of ten sentences.
    """
    rng = random.Random(seed)
    words: list[str] = []
    seen: set[str] = set()
    while len(words) < vocabulary:
        word = "".join(rng.choice(_SYLLABLES) for _ in range(rng.randint(2, 4)))
        if word not in seen:
            seen.add(word)
            words.append(word)
    weights = [1 / (rank + 1) for rank in range(vocabulary)]
    texts = []
    for _ in range(count):
        length = rng.randint(8, 40)
        content = rng.choices(words, weights=weights, k=length)
        mixed = [w if rng.random() > 0.35 else rng.choice(_FUNCTION_WORDS) for w in content]
        texts.append(" ".join(mixed).capitalize() + ".")
    return texts
