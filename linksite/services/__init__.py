"""Writes of the site's side of a wide-area progressive: the outbox (``outbox``), the forwarder's
acknowledgements (``acks``), the pool as heard and the awards (``mirror``)."""
