"""Optional: summaries and extraction against a real llama-cpp-python server serving Gemma 3
270M on its 4,096-token window: a reply cut at the summary's limit is kept to its last whole
sentence and flagged, a conversation longer than the window folds in chunks that each fit,
and extraction with a small output limit offers what its reply held whole.

Skipped, with the reason, like `test_llama_cpp_integration.py` (whose server it starts).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ctxchat.chat.extractor import ExtractionFailed, extract_facts
from ctxchat.chat.session import ChatSession
from ctxchat.chat.summarizer import Summarizer
from ctxchat.config.settings import ContextSettings, ProviderProfile, Settings, SummarySettings
from ctxchat.model.openai_backend import OpenAIBackend
from ctxchat.store import Store
from ctxchat.testing.proxy import RecordingProxy

from ..real_servers import N_CTX, running_server
from .real_sessions import add_history
from .test_llama_cpp_integration import SAMPLES

pytestmark = pytest.mark.integration

FACTS = (
    "We decided to deploy the billing service on Friday 2024-06-14 at 06:00 UTC. The "
    "config lives in /srv/billing/config.yaml and the service listens on port 8443. "
    "Never deploy outside the maintenance window. Priya Raman approves every release."
)


@pytest.fixture(scope="module")
def gemma() -> Iterator[str]:
    """The server as DESIGN.md starts it: --n_ctx 4096."""
    with running_server(N_CTX) as root:
        yield root


@pytest.fixture
def fresh_store(tmp_path: Path) -> Iterator[Store]:
    with Store.open(tmp_path / "ctxchat.db") as opened:
        yield opened


async def session_on(
    store: Store, base_url: str, *, summary_tokens: int = 0, output_reserve: int = 0
) -> ChatSession:
    """A session on the real server's one model, which it asks what it serves."""
    backend = OpenAIBackend(base_url, chunk_timeout=120, first_chunk_timeout=600)
    (model,) = await backend.list_models()
    profile = ProviderProfile(name="local", base_url=base_url, model=model)
    settings = Settings(
        profiles={"local": profile},
        default_profile="local",
        context=ContextSettings(system_prompt="You are terse.", output_reserve=output_reserve),
        summary=SummarySettings(max_tokens=summary_tokens),
    )
    conversation = store.conversations.create_conversation("summaries")
    session = ChatSession(store, settings, profile, conversation.id, backend=backend)
    # As every command and the app: the window, and that the template drops system messages.
    await session.detect_window()
    assert session.window.context_window == N_CTX
    return session


def chat_bodies(proxy: RecordingProxy, since: int) -> list[dict[str, Any]]:
    """The chat requests the proxy passed on after its first `since` requests."""
    return [b for b in proxy.bodies[since:] if isinstance(b, dict) and "messages" in b]


async def test_a_summary_cut_at_its_limit(gemma: str, fresh_store: Store) -> None:
    with RecordingProxy(gemma, timeout=900) as proxy:
        session = await session_on(fresh_store, proxy.base_url, summary_tokens=60)
        probed = len(proxy.bodies)
        try:
            add_history(session, 12, FACTS)
            fold = session.pending_fold(manual=True)
            assert fold is not None
            version = await Summarizer.for_session(session).fold(fold)
        finally:
            await session.aclose()
    (body,) = chat_bodies(proxy, probed)
    assert body["max_tokens"] == 60
    print(f"\nsummary (cut={version.cut}, {version.tokens} tokens): {version.text!r}")
    print(f"lost: {[(i.kind.value, i.text) for i in version.lost]}")
    # The base model writes on until the limit stops it: the reply is cut, kept whole.
    assert version.cut
    assert version.tokens <= 60
    assert fresh_store.summaries.active_summary(session.stored_id) == version


async def test_a_fold_longer_than_the_window_goes_in_chunks(gemma: str, fresh_store: Store) -> None:
    with RecordingProxy(gemma, timeout=900) as proxy:
        # A short summary: each request writes little, so the test stays quick on 2 cores.
        session = await session_on(fresh_store, proxy.base_url, summary_tokens=128)
        probed = len(proxy.bodies)
        try:
            add_history(session, 22, SAMPLES["English"] + "\n\n" + SAMPLES["code"])
            fold = session.pending_fold(manual=True)
            assert fold is not None
            folded = sum(m.tokens for m in fold.messages)
            summarizer = Summarizer.for_session(session)
            version = await summarizer.fold(fold)
        finally:
            await session.aclose()
    bodies = chat_bodies(proxy, probed)
    print(
        f"\n{folded:,} tokens of turns folded in {len(bodies)} requests "
        f"(max_tokens {bodies[0]['max_tokens']}); summary {version.tokens} tokens, "
        f"cut={version.cut}"
    )
    # One request could not hold them with the reply and the summary so far.
    assert folded + 2 * summarizer.max_tokens() > N_CTX
    assert len(bodies) >= 2
    assert all(body["max_tokens"] == summarizer.max_tokens() for body in bodies)
    # Each request after the first carries the summary so far and only the next turns; the
    # instructions come first in the user's message, the template dropping system messages.
    assert [m["role"] for m in bodies[1]["messages"]] == ["user"]
    assert "---\n\nCurrent summary:\n" in bodies[1]["messages"][0]["content"]
    assert version.tokens <= summarizer.max_tokens()


async def test_extraction_with_a_small_output_limit(gemma: str, fresh_store: Store) -> None:
    with RecordingProxy(gemma, timeout=900) as proxy:
        session = await session_on(fresh_store, proxy.base_url, output_reserve=48)
        probed = len(proxy.bodies)
        try:
            add_history(session, 2, FACTS)
            try:
                result = await extract_facts(session)
            except ExtractionFailed as failed:
                # Cut before its first entry ended: one line, one setting.
                print(f"\n{failed}")
                assert str(failed).endswith("Raise output_reserve in the [context] config table.")
                result = None
        finally:
            await session.aclose()
    (body,) = chat_bodies(proxy, probed)
    assert body["max_tokens"] == 48
    if result is not None:
        print(f"\ncut={result.cut}; proposals {[p.text for p in result.proposals]}")
        print(f"problems: {list(result.problems)}")
        if result.cut:
            assert result.problems[0].startswith(
                "The model's reply was cut off at its output limit;"
            )
