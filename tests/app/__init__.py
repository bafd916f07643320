"""The whole app, driven with Textual's pilot."""
