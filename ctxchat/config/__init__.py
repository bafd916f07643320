"""Configuration: where files live, the user's config file, and the app's own state file."""
