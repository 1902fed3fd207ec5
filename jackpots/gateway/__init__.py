"""The server side of the venue's SAS gateway (gateway/README.md "Server route"): its configuration API,
its websocket and the commands it is sent (mystery awards, remote handpay resets)."""
