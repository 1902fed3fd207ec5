"""The server side of the venue's SAS gateway (gateway/README.md "Server route"): its configuration API,
its websocket, the commands it is sent (mystery awards, remote handpay resets) and the award answers it
sends back (``SasAward``). Above the engine: it hears of hits through ``jackpots.hooks``."""
