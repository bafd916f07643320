"""Snapshots of the whole app."""
