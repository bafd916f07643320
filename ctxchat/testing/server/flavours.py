"""The real servers the scripted server imitates, and the extra endpoints each one has."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from enum import StrEnum
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

from ctxchat.testing.server.answers import Answer
from ctxchat.testing.server.faults import Fault
from ctxchat.testing.server.script import simple_token_count, simple_tokens

if TYPE_CHECKING:
    from ctxchat.testing.server.scripted import ScriptedModelServer


class Flavour(StrEnum):
    """Which real server the extra endpoints imitate."""

    OPENAI = "openai"
    LLAMA_CPP = "llama.cpp"
    LLAMA_CPP_PYTHON = "llama-cpp-python"
    OLLAMA = "ollama"
    LMSTUDIO = "lmstudio"
    VLLM = "vllm"


def served_model(server: ScriptedModelServer, asked: str) -> str:
    """The model a reply names: the one set on the server; llama.cpp's the one it loaded,
    whatever was asked; others the one asked for."""
    if server.served_model:
        return server.served_model
    if server.flavour is Flavour.LLAMA_CPP and server.models:
        return server.models[0]
    return asked


def overflow_fault(flavour: Flavour, *, stream: bool) -> Fault:
    """How this kind of server refuses a prompt longer than its window."""
    if flavour is Flavour.LLAMA_CPP_PYTHON and stream:
        # It has begun the event stream when the model refuses: the stream just ends.
        return Fault.EMPTY_STREAM
    if flavour is Flavour.LLAMA_CPP:
        return Fault.LLAMA_CPP_CONTEXT
    if flavour is Flavour.LMSTUDIO:
        return Fault.ERROR_IN_STREAM
    return Fault.CONTEXT_LENGTH_EXCEEDED


def get_answer(server: ScriptedModelServer, path: str) -> Answer:
    """The answer to a GET: the model list, or a flavour's own endpoint, or 404."""
    flavour = server.flavour
    if path == "/v1/models":
        return Answer.json(200, model_list(server))
    if path == "/props" and flavour is Flavour.LLAMA_CPP:
        return Answer.json(200, _props(server))
    if path == "/health" and flavour is Flavour.LLAMA_CPP:
        return Answer.json(200, {"status": "ok"})
    if path == "/api/tags" and flavour is Flavour.OLLAMA:
        return Answer.json(200, {"models": [{"name": m, "model": m} for m in server.models]})
    if path == "/api/version" and flavour is Flavour.OLLAMA:
        return Answer.json(200, {"version": "0.6.0"})
    if path == "/api/v0/models" and flavour is Flavour.LMSTUDIO:
        return Answer.json(
            200, {"object": "list", "data": [_lmstudio(server, m) for m in server.models]}
        )
    if path.startswith("/api/v0/models/") and flavour is Flavour.LMSTUDIO:
        model = unquote(path.removeprefix("/api/v0/models/"))
        if model in server.models:
            return Answer.json(200, _lmstudio(server, model))
        return Answer.error(404, f"Model '{model}' not found")
    return not_found(flavour, path)


def post_answer(server: ScriptedModelServer, path: str, body: dict[str, Any]) -> Answer:
    """The answer to a POST other than a chat request: tokenizers, Ollama's show, or 404."""
    flavour = server.flavour
    if path in _TOKENIZE_PATHS.get(flavour, ()) and server.tokenizer_fault is not None:
        return _tokenizer_fault(server, server.tokenizer_fault)
    if path == "/tokenize" and flavour is Flavour.VLLM:
        return _vllm_tokenize(server, body)
    if path == "/tokenize" and flavour is Flavour.LLAMA_CPP:
        return Answer.json(200, {"tokens": llama_cpp_tokens(body)})
    if path == "/apply-template" and flavour is Flavour.LLAMA_CPP:
        return _apply_template(server, body)
    if path == "/extras/tokenize/count" and flavour is Flavour.LLAMA_CPP_PYTHON:
        return Answer.json(200, {"count": simple_token_count(str(body.get("input", "")))})
    if path == "/api/show" and flavour is Flavour.OLLAMA:
        return _ollama_show(server, str(body.get("model") or body.get("name") or ""))
    return not_found(flavour, path)


def not_found(flavour: Flavour, path: str) -> Answer:
    """The 404 of a path the server does not have."""
    if flavour is Flavour.LLAMA_CPP:
        return Answer.error(404, "File Not Found", type="not_found_error", code=404)
    return Answer.error(404, f"File Not Found: {path}")


_TOKENIZE_PATHS = {
    Flavour.LLAMA_CPP: ("/tokenize",),
    Flavour.LLAMA_CPP_PYTHON: ("/extras/tokenize/count",),
    Flavour.VLLM: ("/tokenize",),
}


# llama.cpp's template when the model carries none (Gemma 3 270M's GGUF has none): ChatML.
CHATML_TEMPLATE = (
    "{%- for message in messages -%}\n"
    "  {{- '<|im_start|>' + message.role + '\\n' + message.content + '<|im_end|>\\n' -}}\n"
    "{%- endfor -%}\n"
    "{%- if add_generation_prompt -%}\n"
    "  {{- '<|im_start|>assistant\\n' -}}\n"
    "{%- endif -%}"
)
BOS = "<bos>"
EOS = "<eos>"


def render_chatml(messages: Sequence[Mapping[str, Any]]) -> str:
    """`messages` in ChatML with the reply's primer, as llama.cpp renders them (its BOS is
    left out of the text: the tokenizer adds it). A last message from the assistant is a
    start of the reply to go on from: left open, with no primer after it."""
    turns = [
        f"<|im_start|>{message.get('role', '')}\n{message.get('content') or ''}"
        for message in messages
    ]
    if messages and messages[-1].get("role") == "assistant":
        return "".join(f"{turn}<|im_end|>\n" for turn in turns[:-1]) + turns[-1]
    return "".join(f"{turn}<|im_end|>\n" for turn in turns) + "<|im_start|>assistant\n"


def llama_cpp_prompt(server: ScriptedModelServer, messages: Sequence[Mapping[str, Any]]) -> str:
    """The prompt llama.cpp renders for `messages`: ChatML, without the system messages when
    the server's template drops them (`drops_system`)."""
    if server.drops_system:
        messages = [message for message in messages if message.get("role") != "system"]
    return render_chatml(messages)


def llama_cpp_prompt_tokens(
    server: ScriptedModelServer, messages: Sequence[Mapping[str, Any]]
) -> int:
    """The prompt tokens llama.cpp reports: its tokenizer's count of the rendered prompt,
    with the BOS it adds."""
    return 1 + simple_token_count(llama_cpp_prompt(server, messages))


def cached_tokens(server: ScriptedModelServer, messages: Sequence[Mapping[str, Any]]) -> int | None:
    """The prompt tokens a request reuses (`usage.prompt_tokens_details.cached_tokens`):
    the number set on the server; on llama.cpp, the tokens its prompt shares at the start
    with the previous one, less the last, which llama.cpp always reads again (0 at first,
    and always reported); otherwise not reported (None)."""
    if server.cached_tokens is not None or server.flavour is not Flavour.LLAMA_CPP:
        return server.cached_tokens
    tokens = [BOS, *simple_tokens(llama_cpp_prompt(server, messages))]
    previous, server.previous_prompt = server.previous_prompt, tokens
    shared = 0
    for mine, theirs in zip(tokens, previous, strict=False):
        if mine != theirs:
            break
        shared += 1
    return max(0, min(shared, len(tokens) - 1))


def llama_cpp_timings(usage: Mapping[str, Any]) -> dict[str, Any]:
    """llama.cpp's `timings` for a reply of `usage` (the speeds are made up, the counts not)."""
    details = usage.get("prompt_tokens_details") or {}
    cached = int(details.get("cached_tokens") or 0)
    read = int(usage["prompt_tokens"]) - cached
    written = int(usage["completion_tokens"])
    return {
        "cache_n": cached,
        "prompt_n": read,
        "prompt_ms": float(read),
        "prompt_per_token_ms": 1.0,
        "prompt_per_second": 1000.0,
        "predicted_n": written,
        "predicted_ms": 10.0 * written,
        "predicted_per_token_ms": 10.0,
        "predicted_per_second": 100.0,
    }


def llama_cpp_tokens(body: Mapping[str, Any]) -> list[Any]:
    """llama.cpp's `/tokenize` answer: ids, or ids with their pieces (`with_pieces`); a BOS
    first with `add_special`."""
    pieces = [BOS] if body.get("add_special") is True else []
    pieces += simple_tokens(str(body.get("content", "")))
    if body.get("with_pieces") is True:
        return [{"id": index + 1, "piece": piece} for index, piece in enumerate(pieces)]
    return list(range(1, len(pieces) + 1))


def _apply_template(server: ScriptedModelServer, body: Mapping[str, Any]) -> Answer:
    messages = body.get("messages")
    if not isinstance(messages, list):
        why = "'messages' is required" if messages is None else "Expected 'messages' to be an array"
        return Answer.error(400, why, code=400, type="invalid_request_error")
    return Answer.json(200, {"prompt": llama_cpp_prompt(server, messages)})


def _tokenizer_fault(server: ScriptedModelServer, fault: str) -> Answer:
    if fault == "garbage":
        return Answer(200, b"<html>tokens: many</html>", "text/html")
    if fault == "stall":
        server.pause(30)
    return Answer.error(500, "tokenizer crashed", type="server_error")


def _vllm_tokenize(server: ScriptedModelServer, body: dict[str, Any]) -> Answer:
    prompt = body.get("prompt")
    if not isinstance(prompt, str):
        return Answer.error(400, "Field required: prompt", type="BadRequestError", code=400)
    count = simple_token_count(prompt)
    return Answer.json(
        200, {"count": count, "max_model_len": server.n_ctx, "tokens": list(range(count))}
    )


def model_list(server: ScriptedModelServer) -> dict[str, Any]:
    """The `/v1/models` answer; llama.cpp adds the same models in Ollama's shape."""
    answer: dict[str, Any] = {"object": "list", "data": model_entries(server)}
    if server.flavour is Flavour.LLAMA_CPP:
        answer["models"] = [
            {"name": m, "model": m, "type": "model", "capabilities": ["completion"]}
            for m in server.models
        ]
    return answer


def model_entries(server: ScriptedModelServer) -> list[dict[str, Any]]:
    """`/v1/models` entries; vLLM adds `max_model_len`, llama.cpp a `meta` with the window
    it runs and the one the model was trained with."""
    vllm = server.flavour is Flavour.VLLM
    llama_cpp = server.flavour is Flavour.LLAMA_CPP
    entries: list[dict[str, Any]] = []
    for model in server.models:
        entry: dict[str, Any] = {"id": model, "object": "model", "created": 0}
        entry["owned_by"] = "vllm" if vllm else "llamacpp" if llama_cpp else "organization"
        if vllm and server.n_ctx is not None:
            entry["max_model_len"] = server.n_ctx
        if llama_cpp:
            entry["aliases"] = [model]
            entry["meta"] = {"n_ctx": server.n_ctx, "n_ctx_train": server.trained_ctx}
        entries.append(entry)
    return entries


def _props(server: ScriptedModelServer) -> dict[str, Any]:
    n_ctx = server.n_ctx
    # Newer llama.cpp nests n_ctx under default_generation_settings, older puts it on top.
    if server.props_nested:
        return {
            "default_generation_settings": {"n_ctx": n_ctx, "params": {}},
            "total_slots": 4,
            "model_path": server.models[0] if server.models else "",
            "chat_template": CHATML_TEMPLATE,
            "chat_template_caps": {"supports_system_role": not server.drops_system},
            "bos_token": BOS,
            "eos_token": EOS,
            "build_info": "b0-unknown",
            "is_sleeping": False,
        }
    return {"n_ctx": n_ctx, "total_slots": 1}


def _lmstudio(server: ScriptedModelServer, model: str) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "id": model,
        "object": "model",
        "type": "llm",
        "max_context_length": server.trained_ctx,
        "state": "loaded" if server.n_ctx is not None else "not-loaded",
    }
    if server.n_ctx is not None:
        entry["loaded_context_length"] = server.n_ctx
    return entry


def _ollama_show(server: ScriptedModelServer, model: str) -> Answer:
    if model not in server.models:
        return Answer.error(404, f"model '{model}' not found")
    parameters = 'stop "<end_of_turn>"'
    if server.n_ctx is not None:
        parameters = f"num_ctx {server.n_ctx}\n{parameters}"
    return Answer.json(
        200,
        {
            "parameters": parameters,
            "details": {"family": "gemma3"},
            "model_info": {
                "general.architecture": "gemma3",
                "gemma3.context_length": server.trained_ctx,
            },
        },
    )
