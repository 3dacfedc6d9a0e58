"""Revisions, oldest first: 0001 the log and games, 0002 raw sensor traces."""
