"""The command line, in-process and as real processes."""
