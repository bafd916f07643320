"""Settings, paths, state and the config template."""
