"""Helpers the test tiers share: a running service, a test ship on the broker."""
