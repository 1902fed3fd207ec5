"""Writes of the slots app. The events API's entry point is ``event_batch_ingest``."""
