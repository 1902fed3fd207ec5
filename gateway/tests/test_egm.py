"""The emulator answers like a machine: frames in, frames out, state as SAS describes it."""

from __future__ import annotations

import itertools

from gateway.egm.config import (
    ATTENDANT_PAID_PROG,
    COIN_IN,
    COIN_OUT,
    GAMES_PLAYED,
    GAMES_WON,
    JACKPOT,
    MACHINE_PAID_PROG,
    EgmConfig,
)
from gateway.egm.line import HostFrameReader
from gateway.egm.machine import Egm
from gateway.sas import frames as f
from gateway.sas.meters import (
    extended_meters,
    extended_meters_request,
    selected_meters,
    selected_meters_request,
)


def machine(**kwargs) -> Egm:
    config = {
        "address": 1,
        "denomination": 1,
        "group": 1,
        "levels": [1, 2],
        "handpay_limit": 1000,
        "spin": 0.0,
    }
    return Egm(EgmConfig(**{**config, **kwargs}), now=0.0)


def gp(egm: Egm, now: float = 0.0) -> bytes:
    """One general poll, then the host's implied ACK: the next poll reports the next exception."""
    answer = egm.answer(f.general_poll(1), now)
    egm.answer(f.sync_poll(), now)
    return answer


def drain(egm: Egm) -> list[int]:
    codes = []
    while (answer := gp(egm)) != b"\x00":
        codes.append(answer[0] if len(answer) == 1 else answer[2])
    return codes


def test_exception_queue_keeps_twenty_and_reports_the_overflow():
    egm = machine()
    for code in range(0x20, 0x36):  # 22 distinct exceptions
        egm.raise_exception(code)
    assert len(egm.queue) == 20
    # the two oldest are lost; 70 says so before the rest come out in order
    assert drain(egm) == [0x70, *range(0x22, 0x36)]


def test_game_events_only_in_real_time_mode():
    egm = machine()
    egm.play(5)
    assert drain(egm) == []
    assert egm.answer(f.enable_rte(1, True), 0) == f.ack(1)
    egm.play(5)
    start = f.decode_rte_exception(gp(egm), 1)
    assert f.decode_game_started(start.data) == f.GameStarted(5, 10, 0, 1)
    end = f.decode_rte_exception(gp(egm), 1)
    assert f.decode_game_ended(end.data) == egm.games[-1][1]
    assert egm.meters[COIN_IN] == 10 and egm.meters[GAMES_PLAYED] == 2


def test_random_hits_only_on_games_reported_in_real_time():
    """A hit is won on a game: the host must have seen that game (7E/7F) before the hit (56)."""
    egm = machine(levels=[2], hit_chance=1.0, handpay_limit=100_000)
    egm.answer(f.multi_broadcast(1, {1: 5000, 2: 300}), 0.0)  # progressive play on, RTE still off
    assert egm.play(5)
    assert drain(egm) == []  # a game seen only in the meters wins no progressive
    assert egm.answer(f.enable_rte(1, True), 0) == f.ack(1)
    assert egm.play(5)
    assert [f.decode_rte_exception(gp(egm), 1).code for _ in range(4)] == [0x7E, 0x7F, 0x56, 0x54]
    assert egm.meters[MACHINE_PAID_PROG] == 300


def test_random_hits_only_on_levels_the_game_can_win():
    """A max-bet-only level is won only on the largest bet, a level with a minimum wager from it up, and a
    mystery level never (the server draws it): the server refuses a machine's report of any other win."""
    bets = [(1, 1.0), (5, 1.0)]
    rules = {"hit_chance": 1.0, "bet_mix": bets, "max_bet_levels": [1], "mystery_levels": [3]}
    egm = machine(levels=[1, 3], **rules)
    cheap = machine(levels=[2], hit_chance=1.0, bet_mix=bets, min_wager={2: 2})
    for m in (egm, cheap):
        m.answer(f.multi_broadcast(1, {1: 500, 2: 300, 3: 200}), 0.0)
        m.answer(f.enable_rte(1, True), 0.0)
        assert m.play(1)
        assert drain(m) == [0x7E, 0x7F]  # no hit
        assert m.play(5)
    assert (list(egm.wins), list(cheap.wins)) == ([(1, 500)], [(2, 300)])


def spinning_machine(**kwargs) -> Egm:
    """A machine whose games take 3 s from the press to the reels' stop, and win twice the bet."""
    egm = machine(spin=3.0, pays=[(2, 1.0)], **kwargs)
    assert egm.answer(f.enable_rte(1, True), 0.0) == f.ack(1)
    egm.answer(f.multi_broadcast(1, {1: 5000, 2: 300}), 10.0)  # progressive play on
    egm.tick(10.0)
    return egm


def game_meters(egm: Egm, now: float) -> bytes | None:
    """LP 2F for coin in, coin out, games played and games won, as the host reads them."""
    return egm.answer(selected_meters_request(1, [COIN_IN, COIN_OUT, GAMES_PLAYED, GAMES_WON]), now)


def test_a_game_raises_7e_at_the_press_and_7f_when_its_spin_ends():
    """7E and the coin-in meter at the press; the win, its meters and 7F only when the reels stop, 3 s on:
    the 7E has left the queue long before the 7F comes, as on a real machine."""
    egm = spinning_machine()
    assert egm.play(5)
    started = f.rte_exception(1, 0x7E, f.game_started_data(f.GameStarted(5, 5, 0, 1)))
    assert gp(egm) == started
    assert gp(egm) == b"\x00"  # nothing more while the reels spin
    assert game_meters(egm, 10.1) == selected_meters(
        1, {COIN_IN: 5, COIN_OUT: 0, GAMES_PLAYED: 1, GAMES_WON: 0}
    )
    assert not egm.play(5)  # no new game while one is spinning
    egm.tick(12.9)
    assert gp(egm) == b"\x00"
    assert egm.games == []
    egm.tick(13.0)
    assert gp(egm) == f.rte_exception(1, 0x7F, f.game_ended_data(10))
    assert game_meters(egm, 13.1) == selected_meters(
        1, {COIN_IN: 5, COIN_OUT: 10, GAMES_PLAYED: 1, GAMES_WON: 1}
    )
    assert egm.games == [(5, 10)]
    assert egm.play(3)
    assert gp(egm) == f.rte_exception(1, 0x7E, f.game_started_data(f.GameStarted(3, 8, 0, 1)))


def test_a_progressive_hit_comes_with_the_outcome_after_the_games_7f():
    egm = spinning_machine(levels=[2], hit_chance=1.0, handpay_limit=100_000)
    assert egm.play(5)
    assert drain(egm) == [0x7E]
    assert (list(egm.wins), egm.meters[MACHINE_PAID_PROG]) == ([], 0)
    egm.tick(13.0)
    assert drain(egm) == [0x7F, 0x56, 0x54]
    assert (list(egm.wins), egm.meters[MACHINE_PAID_PROG]) == ([(2, 300)], 300)


def test_games_at_their_configured_mean_rate_none_shorter_than_a_spin():
    """10 games a minute with a 3 s spin: a game every 3 s plus a pause of 3 s on average."""
    egm = machine(spin=3.0, games_per_minute=10.0, seed=5)
    starts = []
    for step in range(1, 72_001):  # an hour in ticks of 50 ms
        before = egm.meters[GAMES_PLAYED]
        egm.tick(step * 0.05)
        if egm.meters[GAMES_PLAYED] > before:
            starts.append(step * 0.05)
    gaps = [b - a for a, b in itertools.pairwise(starts)]
    assert min(gaps) >= 3.0
    assert 5.7 < sum(gaps) / len(gaps) < 6.3
    assert len(egm.games) == len(starts) - (egm.spinning is not None)


def test_a_game_spinning_at_power_off_ends_at_power_up_without_its_7f():
    """The outcome drawn at the press is shown at power-up (game recovery); real-time reporting is off
    again by then, so the host, which forgets an open game on 17, finds it in the meters."""
    egm = spinning_machine()
    assert egm.play(5)
    assert drain(egm) == [0x7E]
    egm.power_off()
    egm.tick(20.0)  # the reels stopped with the power: no outcome yet
    assert (egm.games, egm.meters[COIN_OUT]) == ([], 0)
    egm.power_on(now=30.0)
    assert (egm.games, egm.spinning) == ([(5, 10)], None)
    assert drain(egm) == [0x18, 0x17]
    assert game_meters(egm, 30.1) == selected_meters(
        1, {COIN_IN: 5, COIN_OUT: 10, GAMES_PLAYED: 1, GAMES_WON: 1}
    )
    assert egm.can_play()


def test_a_handpay_begun_mid_spin_lets_the_game_end_and_holds_the_next():
    egm = spinning_machine()
    assert egm.play(5)
    egm.answer(f.legacy_bonus(1, 2000), 10.5)  # above the 1000 limit: a handpay lockup
    egm.tick(13.0)
    assert drain(egm) == [0x7E, 0x51, 0x7F]
    assert egm.games == [(5, 10)]
    assert not egm.play(5)
    assert egm.reset_handpay()
    assert egm.play(5)


def test_no_broadcast_for_five_seconds_raises_53_and_disables_progressive_play():
    egm = machine()
    egm.answer(f.multi_broadcast(1, {1: 500, 2: 50}), 0.0)
    assert egm.progressive_enabled and egm.displayed == {1: 500, 2: 50}
    egm.tick(4.9)
    assert egm.progressive_enabled
    egm.tick(5.1)
    assert not egm.progressive_enabled
    assert not egm.hit(1)
    assert drain(egm) == [0x53]
    egm.tick(9.0)
    assert drain(egm) == []  # once per outage
    egm.answer(f.single_broadcast(1, 2, 60), 9.5)
    assert egm.progressive_enabled and egm.displayed == {1: 500, 2: 60}


def test_broadcast_for_another_group_or_with_bad_crc_is_ignored():
    egm = machine()
    egm.answer(f.multi_broadcast(2, {1: 500}), 0.0)
    bad = f.single_broadcast(1, 1, 700)
    egm.answer(bad[:-1] + bytes([bad[-1] ^ 0xFF]), 0.0)
    assert not egm.progressive_enabled and egm.displayed == {1: 0, 2: 0}


def test_machine_paid_hit_queues_56_and_54_and_the_win_until_acked():
    egm = machine()
    egm.answer(f.multi_broadcast(1, {1: 5000, 2: 300}), 0.0)
    assert egm.hit(2)
    assert drain(egm) == [0x56, 0x54]
    first = egm.answer(f.read_poll(1, 0x85), 0.1)
    again = egm.answer(f.read_poll(1, 0x85), 0.2)  # an implied NACK: the same win again
    assert (
        f.decode_progressive_win(first, 1)
        == f.decode_progressive_win(again, 1)
        == f.ProgressiveWin(1, 2, 300)
    )
    gp(egm)  # any other poll acknowledges it
    assert f.decode_progressive_win(egm.answer(f.read_poll(1, 0x85), 0.3), 1) == f.ProgressiveWin(1, 0, 0)


def test_hit_above_the_limit_locks_up_repeats_51_and_resets_by_lp94():
    egm = machine()
    egm.answer(f.multi_broadcast(1, {1: 5000, 2: 300}), 0.0)
    egm.hit(1)
    assert drain(egm) == [0x56, 0x51]
    assert not egm.play(1)
    egm.tick(1.0)
    egm.answer(f.multi_broadcast(1, {1: 100, 2: 300}), 12.0)
    egm.tick(16.5)
    assert drain(egm) == [0x51]  # repeated every 15 s while LP 1B was not read
    info = f.decode_handpay_info(egm.answer(f.read_poll(1, 0x1B), 17), 1)
    assert info == f.HandpayInfo(1, 1, 5000)
    egm.answer(f.multi_broadcast(1, {1: 100, 2: 300}), 39.0)
    egm.tick(40.0)
    assert drain(egm) == []  # LP 1B was read: no more repeats
    answer = egm.answer(f.handpay_reset(1), 41)
    assert f.decode_handpay_reset_answer(answer, 1) == f.HANDPAY_RESET_DONE
    assert drain(egm) == [0x52]
    assert egm.meters[JACKPOT] == egm.meters[ATTENDANT_PAID_PROG] == 5000
    assert (
        f.decode_handpay_reset_answer(egm.answer(f.handpay_reset(1), 42), 1) == f.HANDPAY_RESET_NOT_IN_HANDPAY
    )


def test_legacy_bonus_is_credited_and_confirmed_by_7c_and_lp90():
    egm = machine()
    assert egm.answer(f.legacy_bonus(1, 250), 0) == f.ack(1)
    assert egm.meters[COIN_OUT] == 250
    assert drain(egm) == [0x7C]
    assert f.decode_legacy_bonus_win(egm.answer(f.read_poll(1, 0x90), 0), 1).bonus == 250


def test_legacy_bonus_above_the_limit_is_a_handpay_reset_by_the_key():
    egm = machine()
    egm.answer(f.legacy_bonus(1, 2000), 0)
    assert egm.meters[COIN_OUT] == 0
    assert drain(egm) == [0x51]
    info = f.decode_handpay_info(egm.answer(f.read_poll(1, 0x1B), 0), 1)
    assert info == f.HandpayInfo(0, f.HANDPAY_NON_PROGRESSIVE, 2000)
    assert egm.reset_handpay()  # the attendant's key
    assert drain(egm) == [0x52, 0x7C]
    assert egm.meters[JACKPOT] == 2000


def test_lp9a_bonus_meters_count_what_was_paid_per_tax_status_when_it_was_paid():
    egm = machine()

    def bonus_meters() -> f.LegacyBonusMeters:
        return f.decode_legacy_bonus_meters(egm.answer(f.legacy_bonus_meters_request(1), 0), 1)

    egm.answer(f.legacy_bonus(1, 250), 0)
    egm.answer(f.legacy_bonus(1, 40, tax_status=1), 0)
    assert bonus_meters() == f.LegacyBonusMeters(0, 250, 40, 0)
    assert egm.answer(f.legacy_bonus(1, 5, tax_status=3), 0) is None  # no such tax status: ignored
    egm.answer(f.legacy_bonus(1, 2000), 0)  # above the limit: a handpay, not paid yet
    assert bonus_meters().total == 290
    egm.reset_handpay()
    assert bonus_meters() == f.LegacyBonusMeters(0, 2250, 40, 0)
    assert egm.answer(f.legacy_bonus_meters_request(1, game=3), 0) is None  # one game: game 0 only


def test_power_off_is_silent_then_reports_18_and_17():
    egm = machine()
    egm.answer(f.enable_rte(1, True), 0)
    egm.power_off()
    assert gp(egm) is None
    egm.power_on(now=3.0)
    assert not egm.rte
    assert drain(egm) == [0x18, 0x17]


def test_unknown_long_poll_is_ignored_and_other_addresses_are_not_answered():
    egm = machine()
    assert egm.answer(bytes([1, 0x11]), 0) is None
    assert egm.answer(f.general_poll(2), 0) is None
    assert egm.answer(selected_meters_request(1, [0], game=3), 0) is None


def test_reader_finds_frames_from_structure_and_timing():
    reader = HostFrameReader(gap=0.1)
    stream = f.multi_broadcast(1, {1: 5}) + f.general_poll(1) + selected_meters_request(1, [0, 1])
    frames = reader.feed(stream[:7], 0.0) + reader.feed(stream[7:], 0.01)
    assert frames == [f.multi_broadcast(1, {1: 5}), f.general_poll(1), selected_meters_request(1, [0, 1])]
    assert reader.feed(f.single_broadcast(1, 1, 5)[:4], 1.0) == []
    # the rest of that frame never came: after a pause the next frame is read from its start
    assert reader.feed(f.general_poll(1), 1.5) == [f.general_poll(1)]
    # an unknown command: bytes are dropped until the line is quiet, then framing resumes
    assert reader.feed(bytes([1, 0x72, 0x85, 0x81]), 2.0) == []
    assert reader.feed(f.general_poll(1), 2.5) == [f.general_poll(1)]


def test_extended_meters_answer_every_code_asked_and_size_0_for_unknown_ones():
    egm = machine()
    egm.meters[COIN_IN] = 1234
    egm.meters[GAMES_PLAYED] = 7
    request = extended_meters_request(1, [0x0000, 0x0005, 0x0042], command=f.LP_EXTENDED_METERS_ALT)
    answer = egm.answer(request, 0.0)
    assert answer == extended_meters(
        1, {0x0000: 1234, 0x0005: 7, 0x0042: None}, command=f.LP_EXTENDED_METERS_ALT
    )
    assert answer[-5:-2] == bytes.fromhex("420000")  # code 0042 LSB first, size 0, no value
    for_game_3 = extended_meters_request(1, [0x0000], game=3)
    assert egm.answer(for_game_3, 0.0) is None  # a single-game machine ignores other games
