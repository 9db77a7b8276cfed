"""Shared pytest configuration: nothing here touches tmux or the network."""
