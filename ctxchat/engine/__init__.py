"""ctxchat's own engine: llama.cpp's server (xllamacpp) run on this machine, one per user.

`control.ensure_engine` starts it when first needed (or finds it running), `stop_engine`
and `engine_status` answer `ctxchat engine stop|status`; `serve` is the engine process
itself (`python -m ctxchat.engine serve ...`); `backend.EngineBackend` is a model backend
that starts it again when it went away. Nothing here imports xllamacpp but `serve`.
"""

from ctxchat.engine.errors import EngineError
from ctxchat.engine.files import BUNDLED, bundled_model, engine_installed

__all__ = ["BUNDLED", "EngineError", "bundled_model", "engine_installed"]
