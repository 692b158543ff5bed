"""Dark Moon table companion: the product core (rules, table, event store, phone web app)."""
