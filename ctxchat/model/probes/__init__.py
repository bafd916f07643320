"""Server detection: one small probe per server kind, tried through a registry."""
