"""The command line: the TUI's launcher and non-interactive commands for scripts."""
