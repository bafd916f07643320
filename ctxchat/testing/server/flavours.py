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
        return Answer.json(200, {"object": "list", "data": model_entries(server)})
    if path == "/props" and flavour is Flavour.LLAMA_CPP:
        return Answer.json(200, _props(server))
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
    return Answer.error(404, f"File Not Found: {path}")


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


def render_chatml(messages: Sequence[Mapping[str, Any]]) -> str:
    """`messages` in ChatML with the reply's primer, as llama.cpp renders them (its BOS is
    left out of the text: the tokenizer adds it)."""
    turns = "".join(
        f"<|im_start|>{message.get('role', '')}\n{message.get('content') or ''}<|im_end|>\n"
        for message in messages
    )
    return turns + "<|im_start|>assistant\n"


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
        return Answer.error(500, "[json.exception.out_of_range.403] key 'messages' not found")
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


def model_entries(server: ScriptedModelServer) -> list[dict[str, Any]]:
    """`/v1/models` entries; vLLM adds `max_model_len`."""
    vllm = server.flavour is Flavour.VLLM
    entries: list[dict[str, Any]] = []
    for model in server.models:
        entry: dict[str, Any] = {"id": model, "object": "model", "created": 0}
        entry["owned_by"] = "vllm" if vllm else "organization"
        if vllm and server.n_ctx is not None:
            entry["max_model_len"] = server.n_ctx
        entries.append(entry)
    return entries


def _props(server: ScriptedModelServer) -> dict[str, Any]:
    n_ctx = server.n_ctx
    # Newer llama.cpp nests n_ctx under default_generation_settings, older puts it on top.
    if server.props_nested:
        return {
            "default_generation_settings": {"n_ctx": n_ctx},
            "total_slots": 1,
            "chat_template": CHATML_TEMPLATE,
            "bos_token": BOS,
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
