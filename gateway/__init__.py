"""Progressivo SAS gateway: polls slot machines over SAS and forwards their events to the server.

Standalone on purpose: no Django, talks to the server only over its HTTP API and websocket.
"""
