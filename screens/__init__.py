"""The Textual kiosk: renders the public view and holds no rules."""
