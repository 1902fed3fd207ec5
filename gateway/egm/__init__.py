"""A SAS slot machine emulator: the gateway's counterpart over a pty pair or a real serial port."""
