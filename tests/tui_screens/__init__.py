"""Screens and dialogs, hosted alone."""
