"""Widgets, hosted alone."""
