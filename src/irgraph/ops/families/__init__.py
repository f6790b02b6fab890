"""Shared bases of op families: a member op is a few declarative lines."""
