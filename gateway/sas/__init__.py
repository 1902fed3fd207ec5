"""SAS 6.02 wire format: CRC, BCD and one encode/decode pair per frame (see gateway/README.md)."""
