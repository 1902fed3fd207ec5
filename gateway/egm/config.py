"""What an emulated SAS machine is: the meters it keeps (SAS Table C-7 codes, in credits) and its
configuration, down to the choices SAS 6.02 leaves to each machine.
"""

from __future__ import annotations

from dataclasses import dataclass, field

# SAS Table C-7 meter codes the emulator keeps, all in credits.
COIN_IN, COIN_OUT, JACKPOT, HANDPAID, GAMES_PLAYED, GAMES_WON = 0x00, 0x01, 0x02, 0x03, 0x05, 0x06
BILLS_IN, TICKET_IN, TICKET_OUT = 0x0B, 0x15, 0x16
MACHINE_PAID_PROG, ATTENDANT_PAID_PROG = 0x1D, 0x20
METERS = (
    COIN_IN,
    COIN_OUT,
    JACKPOT,
    HANDPAID,
    GAMES_PLAYED,
    GAMES_WON,
    BILLS_IN,
    TICKET_IN,
    TICKET_OUT,
    MACHINE_PAID_PROG,
    ATTENDANT_PAID_PROG,
)


@dataclass
class EgmConfig:
    address: int
    denomination: int = 1  # cents per credit
    games_per_minute: float = 0.0  # 0: games only on command; else the mean rate, start to start
    # Seconds from the press (7E, the wager on coin in) to the reels' stop (7F, the win on the meters): a
    # video slot's game cycle is about 3 s, so a real machine's 7E has left its queue long before its 7F
    # is raised. 0: the game ends as it starts (7E and 7F together), for tests that want instant games.
    spin: float = 3.0
    bet_mix: list[tuple[int, float]] = field(default_factory=lambda: [(1, 1.0)])  # (credits, weight)
    pays: list[tuple[int, float]] = field(default_factory=lambda: [(0, 0.7), (1, 0.2), (5, 0.1)])
    group: int = 0
    levels: list[int] = field(default_factory=list)  # SAS levels of its progressive group
    hit_chance: float = 0.0  # chance per game reported in real time of a progressive hit, random level
    # What a game must be to win a level, as the server's map says (a win it reports otherwise is refused):
    max_bet_levels: list[int] = field(default_factory=list)  # won only on the largest bet of bet_mix
    min_wager: dict[int, int] = field(default_factory=dict)  # level -> cents wagered at least
    mystery_levels: list[int] = field(default_factory=list)  # drawn by the server, never hit here
    handpay_limit: int = 120_000  # cents
    seed: int = 0
    # How this machine reads SAS 6.02 where the standard leaves a choice (README "Link layer"):
    meter_size: int = 0  # LP 2F meter size: 0 each meter's Table C-7 minimum; 5 five bytes at least
    rte_preempts: bool = False  # in real-time mode a queued event answers any long poll in its place
    # A general poll with nothing to report in real-time mode: "00", "silent" (§12.6) or "ff00" (addr FF 00)
    rte_idle: str = "00"
