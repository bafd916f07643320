"""The OpenAI-compatible client against the scripted server over real HTTP."""
