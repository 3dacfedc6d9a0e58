"""Revisions, oldest first: 0001 the log and games, 0002 raw sensor traces, 0003 stored Riff
Raff games keep the rules edition they were played under."""
