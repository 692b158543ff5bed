"""The serial button box's firmware (MicroPython), importable here as hardware.firmware so
the Pi shares its protocol codec (dmproto) and the tests run its logic (box). The Pico has no
use for this file."""
