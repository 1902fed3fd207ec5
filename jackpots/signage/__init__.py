"""Live signage: the websocket protocol of API.md ("Signage"), the screen page and its reads."""
