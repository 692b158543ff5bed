"""Fixtures shared by test folders: gpiozero's MockFactory as the pin factory for one test,
reset and closed after it, as gpiozero's own test suite does (so no pin stays claimed)."""
from __future__ import annotations

import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory


@pytest.fixture
def mock_factory():
    saved = Device.pin_factory
    Device.pin_factory = factory = MockFactory()
    try:
        yield factory
    finally:
        factory.reset()
        factory.close()
        Device.pin_factory = saved
