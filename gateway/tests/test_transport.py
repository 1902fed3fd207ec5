"""The wakeup bit on a real serial line: MARK parity for the address byte, SPACE for the rest."""

from __future__ import annotations

from types import SimpleNamespace

from gateway.transport import SerialTransport

# pyserial's constants, so this test runs where pyserial is not installed (the server's test run)
serial = SimpleNamespace(PARITY_MARK="M", PARITY_SPACE="S")


class FakePort:
    """Records what a pyserial port is told, in order."""

    def __init__(self) -> None:
        self.parity = serial.PARITY_SPACE
        self.log: list[tuple[str, object]] = []

    def write(self, data: bytes) -> None:
        self.log.append((self.parity, bytes(data)))

    def flush(self) -> None:
        self.log.append(("drain", None))


def transport() -> tuple[SerialTransport, FakePort]:
    line = SerialTransport.__new__(SerialTransport)
    line._serial = serial
    line.port = FakePort()
    return line, line.port


def test_host_frame_sends_its_first_byte_with_mark_parity_and_drains_before_switching():
    line, port = transport()
    line.send(bytes.fromhex("012f"))
    assert port.log == [
        (serial.PARITY_MARK, b"\x01"),
        ("drain", None),
        (serial.PARITY_SPACE, b"\x2f"),
        ("drain", None),
    ]
    assert port.parity == serial.PARITY_SPACE  # ready to receive the answer


def test_general_poll_is_one_byte_with_the_wakeup_bit():
    line, port = transport()
    line.send(b"\x81")
    assert port.log == [(serial.PARITY_MARK, b"\x81"), ("drain", None)]


def test_machine_answers_never_set_the_wakeup_bit():
    line, port = transport()
    line.send(bytes.fromhex("019400e124"), wakeup=False)
    assert port.log == [(serial.PARITY_SPACE, bytes.fromhex("019400e124")), ("drain", None)]
