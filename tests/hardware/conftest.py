"""Fixtures for the button tests (mock_factory, shared with the kiosk's, is in tests/conftest.py)."""
from __future__ import annotations

import pytest
from gpiozero import Device


@pytest.fixture
def no_default_factory():
    """No pin factory chosen yet, as on a freshly started process."""
    saved = Device.pin_factory
    Device.pin_factory = None
    try:
        yield
    finally:
        Device.pin_factory = saved
