"""What the table hears: the narrator (narrator.py, the public log's new lines) and its voice
(speech.py, espeak-ng to WAV, played on ALSA or kept in a folder)."""
