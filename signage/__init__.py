"""Live signage: the websocket protocol of docs/api.md ("Signage"), the screen page and its reads."""
