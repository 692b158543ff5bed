"""Seat buttons (keyboard, GPIO, serial): emits (seat, button, time) and knows nothing of the game."""
