"""Tables, their keys, pay tables (with their change log), recorded rounds and who paid a hit at a table.
Once the jackpots app's: each keeps its ``jackpots_*`` table (``db_table``), so the move moved no row.
Money: bets and prizes in integer cents of the currency named next to them; pool amounts in millicents of
the progressive's currency; rates exact Decimals."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from common.credentials import Credential
from jackpots.changelog import ChangeRecord
from jackpots.winner import WinnerIdentity
from tables.rules import Game, Hand


class PayTable(models.Model):
    """The pay table of one table progressive; its lines are data, edited with staging and audit."""

    progressive = models.OneToOneField(
        "jackpots.Progressive", models.PROTECT, related_name="pay_table", verbose_name=_("progressive")
    )
    level = models.ForeignKey(
        "jackpots.Level", on_delete=models.PROTECT, related_name="+", verbose_name=_("jackpot level")
    )
    game = models.CharField(_("game"), max_length=16, choices=Game.choices)
    share_window_seconds = models.PositiveIntegerField(
        _("simultaneous wins window (s)"),
        default=60,
        help_text=_(
            "Percentage prizes of the same hand in rounds this close to the first winning round are one "
            "prize, divided between the winners (the linked tables stop while a big hand is declared)."
        ),
    )

    class Meta:
        db_table = "jackpots_paytable"
        permissions = [("stage_paytable", _("Can change pay table lines (staged, with a reason)"))]
        verbose_name = _("pay table")
        verbose_name_plural = _("pay tables")

    def __str__(self) -> str:
        return f"{self.progressive} ({self.get_game_display()})"


class PayLine(models.Model):
    """One line: a hand paid either a percentage of the progressive or a fixed amount (cents of the
    progressive's currency, paid by the house, converted to the venue's currency when paid)."""

    class Kind(models.TextChoices):
        PERCENT = "percent", _("Percentage of the progressive")
        FIXED = "fixed", _("Fixed amount")

    pay_table = models.ForeignKey(
        PayTable, on_delete=models.CASCADE, related_name="lines", verbose_name=_("pay table"), db_index=False
    )
    hand = models.CharField(_("hand"), max_length=20, choices=Hand.choices)
    kind = models.CharField(_("kind"), max_length=8, choices=Kind.choices)
    percent = models.DecimalField(_("percent"), max_digits=7, decimal_places=4, null=True, blank=True)
    fixed_cents = models.PositiveBigIntegerField(_("fixed amount (cents)"), null=True, blank=True)

    class Meta:
        db_table = "jackpots_payline"
        ordering = ["pay_table", "id"]
        constraints = [
            models.UniqueConstraint(fields=["pay_table", "hand"], name="pay_line_unique_hand"),
            models.CheckConstraint(
                condition=(
                    models.Q(kind="percent", percent__gt=0, percent__lte=100, fixed_cents__isnull=True)
                    | models.Q(kind="fixed", percent__isnull=True, fixed_cents__gt=0)
                ),
                name="pay_line_percent_or_fixed",
            ),
        ]
        verbose_name = _("pay table line")
        verbose_name_plural = _("pay table lines")

    def __str__(self) -> str:
        value = f"{self.percent}%" if self.kind == self.Kind.PERCENT else f"{self.fixed_cents} cents"
        return f"{self.get_hand_display()}: {value}"


class PayTableChange(ChangeRecord):
    """The pay table's change log, kept like the levels' (NJ 13:69E-1.39C).

    A change to a live progressive is staged and takes effect with the first round after the level's
    next reset (NY 5321.18); while the level is suspended it takes effect at once."""

    pay_table = models.ForeignKey(
        PayTable, on_delete=models.PROTECT, related_name="changes", verbose_name=_("pay table")
    )
    old = models.JSONField(_("old lines"))
    new = models.JSONField(_("new lines"))
    requested_cycle = models.PositiveIntegerField(_("level cycle when requested"))

    class Meta:
        db_table = "jackpots_paytablechange"
        ordering = ["id"]
        verbose_name = _("pay table change")
        verbose_name_plural = _("pay table changes")

    def __str__(self) -> str:
        return f"{self.pay_table_id} {self.state} #{self.pk}"


class Table(models.Model):
    venue = models.ForeignKey(
        "floor.Venue", on_delete=models.PROTECT, related_name="tables", verbose_name=_("venue")
    )
    room = models.ForeignKey(
        "floor.Room",
        on_delete=models.PROTECT,
        related_name="tables",
        null=True,
        blank=True,
        verbose_name=_("room"),
    )
    code = models.CharField(_("code"), max_length=24, unique=True, help_text="NOG-CSP-1")
    game = models.CharField(_("game"), max_length=16, choices=Game.choices)
    progressive = models.ForeignKey(
        "jackpots.Progressive", on_delete=models.PROTECT, related_name="tables", verbose_name=_("progressive")
    )
    jackpot_bet_cents = models.PositiveIntegerField(
        _("jackpot bet (cents)"),
        null=True,
        blank=True,
        help_text=_("Caribbean Stud: the fixed price of the jackpot chip, in the venue's currency."),
    )
    min_jackpot_bet_cents = models.PositiveIntegerField(_("minimum jackpot bet (cents)"), default=1)
    max_jackpot_bet_cents = models.PositiveIntegerField(_("maximum jackpot bet (cents)"), default=100_000)
    seats = models.PositiveSmallIntegerField(_("seats"), default=7)
    active = models.BooleanField(_("active"), default=True)

    class Meta:
        db_table = "jackpots_table"
        ordering = ["code"]
        verbose_name = _("table")
        verbose_name_plural = _("tables")

    def __str__(self) -> str:
        return f"{self.code} ({self.get_game_display()})"


class TableKey(Credential):
    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="keys", verbose_name=_("table"))

    class Meta:
        db_table = "jackpots_tablekey"
        verbose_name = _("table key")
        verbose_name_plural = _("table keys")

    def __str__(self) -> str:
        return f"{self.prefix}… ({self.table.code})"

    def significant_label(self) -> tuple[int, str, int | None]:
        """(venue id, subject, machine id) for the significant-events register."""
        return self.table.venue_id, self.table.code, None


class PrizeShare(models.Model):
    """One percentage prize taken from the level (one engine Hit), divided between the seats that won it
    in the same round or in rounds within the pay table's window, on the amount standing before the first
    was paid."""

    level = models.ForeignKey(
        "jackpots.Level", on_delete=models.PROTECT, related_name="+", verbose_name=_("level")
    )
    hand = models.CharField(_("hand"), max_length=20, choices=Hand.choices)
    hit = models.OneToOneField(
        "jackpots.Hit", on_delete=models.PROTECT, related_name="prize_share", verbose_name=_("hit")
    )
    opened_at = models.DateTimeField(_("first winning round at"))
    closes_at = models.DateTimeField(_("later rounds join until"))
    percent = models.DecimalField(max_digits=7, decimal_places=4, verbose_name=_("percent"))
    base_mc = models.BigIntegerField(_("amount standing before the first was paid (millicents)"))
    prize_cents = models.BigIntegerField(_("prize (cents of the progressive's currency)"))
    voided = models.BooleanField(default=False, verbose_name=_("voided"))

    class Meta:
        db_table = "jackpots_prizeshare"
        ordering = ["-opened_at", "-id"]
        verbose_name = _("shared prize")
        verbose_name_plural = _("shared prizes")

    def __str__(self) -> str:
        return f"{self.get_hand_display()} {self.prize_cents} cents"


class TableRound(models.Model):
    class State(models.TextChoices):
        RECORDED = "recorded", _("Recorded")
        VOIDED = "voided", _("Voided")

    table = models.ForeignKey(
        Table, on_delete=models.PROTECT, related_name="rounds", verbose_name=_("table"), db_index=False
    )
    round_id = models.CharField(_("round"), max_length=64)
    at = models.DateTimeField(_("played at"))
    received_at = models.DateTimeField(_("received at"))
    digest = models.CharField(
        max_length=64, help_text=_("SHA-256 of the request: a retry must match it."), verbose_name=_("digest")
    )
    state = models.CharField(
        max_length=8, choices=State.choices, default=State.RECORDED, verbose_name=_("state")
    )
    level = models.ForeignKey(
        "jackpots.Level", on_delete=models.PROTECT, related_name="+", verbose_name=_("level")
    )
    cycle = models.PositiveIntegerField(_("level cycle"))
    # The level's last hit number once the round was recorded: a later hit was computed with this
    # round's bets in the pool, so it must be voided before this round can be.
    hit_number = models.PositiveIntegerField(_("last hit on the level"), default=0)
    community = models.JSONField(default=list, blank=True, verbose_name=_("community cards"))
    dealer = models.JSONField(default=list, blank=True, verbose_name=_("dealer's cards"))
    currency = models.CharField(_("venue currency"), max_length=3)
    pool_currency = models.CharField(_("progressive currency"), max_length=3)
    exchange_rate = models.ForeignKey(
        "jackpots.ExchangeRate",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        verbose_name=_("exchange rate"),
    )
    rate = models.DecimalField(
        _("rate used (venue currency per progressive unit)"), max_digits=18, decimal_places=8, default=1
    )
    bets_cents = models.BigIntegerField(_("jackpot bets (venue cents)"), default=0)
    wagered_pool_cents = models.BigIntegerField(_("jackpot bets (progressive cents)"), default=0)
    added_mc = models.BigIntegerField(_("added to the amount and overflow (millicents)"), default=0)
    reserved_mc = models.BigIntegerField(_("added to the reserve (millicents)"), default=0)
    response = models.JSONField(_("first answer"), default=dict)
    voided_at = models.DateTimeField(null=True, blank=True, verbose_name=_("voided at"))
    voided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("voided by"),
    )
    void_reason = models.TextField(blank=True, verbose_name=_("void reason"))

    class Meta:
        db_table = "jackpots_tableround"
        ordering = ["-at", "-id"]
        constraints = [models.UniqueConstraint(fields=["table", "round_id"], name="table_round_unique")]
        verbose_name = _("table round")
        verbose_name_plural = _("table rounds")

    def __str__(self) -> str:
        return self.round_id


class TableSeat(models.Model):
    round = models.ForeignKey(
        TableRound, models.CASCADE, related_name="seat_rows", verbose_name=_("round"), db_index=False
    )
    seat = models.PositiveSmallIntegerField(_("seat"))
    cards = models.JSONField(verbose_name=_("cards"))
    changed_card = models.BooleanField(default=False, verbose_name=_("changed card"))
    hand = models.CharField(_("hand"), max_length=20, choices=Hand.choices)
    jackpot_bet_cents = models.PositiveBigIntegerField(_("jackpot bet (venue cents)"), default=0)
    bet_pool_cents = models.PositiveBigIntegerField(_("jackpot bet (progressive cents)"), default=0)
    contribution_mc = models.BigIntegerField(_("contribution (millicents)"), default=0)
    share = models.ForeignKey(
        PrizeShare,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="seats",
        verbose_name=_("shared prize"),
    )
    share_weight = models.PositiveBigIntegerField(default=0, verbose_name=_("share weight"))
    share_cents = models.BigIntegerField(_("share of the progressive (progressive cents)"), default=0)
    fixed_cents = models.BigIntegerField(_("fixed prize (progressive cents)"), default=0)
    # A fixed prize at or above the venue's two-person threshold is a hit of its own in the hits queue
    # (it moves nothing on the level); below it the table pays it and there is no hit.
    fixed_hit = models.OneToOneField(
        "jackpots.Hit",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="table_seat",
        verbose_name=_("fixed prize's hit"),
    )
    award_cents = models.BigIntegerField(_("award (venue cents)"), default=0)

    class Meta:
        db_table = "jackpots_tableseat"
        ordering = ["round", "seat"]
        constraints = [models.UniqueConstraint(fields=["round", "seat"], name="table_seat_unique")]
        verbose_name = _("seat")
        verbose_name_plural = _("seats")

    def __str__(self) -> str:
        return f"{self.round} seat {self.seat}"


class PrizePart(WinnerIdentity, models.Model):
    """One seat's part of a shared percentage prize (``PrizeShare``, one engine Hit): the record the money
    leaves by. Each part is verified, paid and voided on its own, at the venue of its table and in that
    venue's currency; the one-to-one with the seat means a part exists, and is paid, once. Under the
    venue's two-person threshold the table pays it (``paid_by_table`` and ``paid_by_key``); at or above it
    the floor does (``paid_by``, after two people verified it). Decided again whenever the prize is divided
    again (a winner joins, a round is voided); a part already paid is never moved or paid again."""

    class State(models.TextChoices):
        OPEN = "open", _("To verify")
        VERIFIED = "verified", _("Verified")
        PAID = "paid", _("Paid")
        VOIDED = "voided", _("Voided")

    share = models.ForeignKey(
        PrizeShare, on_delete=models.PROTECT, related_name="prize_parts", verbose_name=_("shared prize")
    )
    seat = models.OneToOneField(
        TableSeat, on_delete=models.PROTECT, related_name="part", verbose_name=_("seat")
    )
    amount_cents = models.BigIntegerField(_("part (cents of the venue's currency)"), default=0)
    currency = models.CharField(_("venue currency"), max_length=3)
    state = models.CharField(_("state"), max_length=12, choices=State.choices, default=State.OPEN)
    # The key that posted the seat's round: the payer with its table when the table pays the part.
    key = models.ForeignKey(
        TableKey, on_delete=models.PROTECT, null=True, blank=True, related_name="+", verbose_name=_("key")
    )
    verified_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("verified by"),
    )
    verified_at = models.DateTimeField(null=True, blank=True, verbose_name=_("verified at"))
    second_verified_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("second verifier"),
    )
    second_verified_at = models.DateTimeField(null=True, blank=True, verbose_name=_("second verification at"))
    paid_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("paid by"),
    )
    paid_by_table = models.ForeignKey(
        Table,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("paid at the table"),
    )
    paid_by_key = models.ForeignKey(
        TableKey,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("paid with the table key"),
    )
    paid_at = models.DateTimeField(null=True, blank=True, verbose_name=_("paid at"))
    # A part the floor pays is voided by two different people (its round's void follows the second).
    void_requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("void asked by"),
    )
    void_requested_at = models.DateTimeField(null=True, blank=True, verbose_name=_("void asked at"))
    void_reason = models.TextField(blank=True, verbose_name=_("void reason"))

    class Meta:
        db_table = "jackpots_prizepart"
        ordering = ["share", "id"]
        constraints = [
            # Money leaves once: a paid part names exactly one payer, a person or a table with its key.
            models.CheckConstraint(
                condition=~models.Q(state="paid")
                | models.Q(paid_by__isnull=False, paid_by_table__isnull=True)
                | models.Q(paid_by__isnull=True, paid_by_table__isnull=False),
                name="prize_part_one_payer",
            )
        ]
        verbose_name = _("prize part")
        verbose_name_plural = _("prize parts")

    def __str__(self) -> str:
        return f"{self.seat} part of {self.share}"


class TableDeclaration(models.Model):
    """A Royal or Straight Flush declared at a linked Caribbean Stud table (the Casinò's rule: "a player
    with a Royal or Straight Flush must always declare it; all the games being played at the various tables
    are momentarily suspended"). While it is pending every table of the progressive shows it and a round
    played after it is refused (``level_pending``); rounds played before it and posted meanwhile share the
    prize as simultaneous wins. It ends when a supervisor releases it, when its prize is paid, or by
    itself at ``expires_at`` (the pay table's sharing window, the upper bound: it lapses)."""

    class State(models.TextChoices):
        PENDING = "pending", _("Pending")
        RELEASED = "released", _("Released")
        PAID = "paid", _("Released: prize paid")
        LAPSED = "lapsed", _("Lapsed (window over)")

    progressive = models.ForeignKey(
        "jackpots.Progressive", on_delete=models.PROTECT, related_name="+", verbose_name=_("progressive")
    )
    level = models.ForeignKey(
        "jackpots.Level", on_delete=models.PROTECT, related_name="+", verbose_name=_("level")
    )
    round = models.OneToOneField(
        TableRound, on_delete=models.PROTECT, related_name="declaration", verbose_name=_("declaring round")
    )
    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="+", verbose_name=_("table"))
    seat = models.PositiveSmallIntegerField(_("seat"))
    hand = models.CharField(_("hand"), max_length=20, choices=Hand.choices)
    share = models.ForeignKey(
        PrizeShare,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="declarations",
        verbose_name=_("shared prize"),
    )
    opened_at = models.DateTimeField(_("declared at (the round's played-at time)"))
    expires_at = models.DateTimeField(_("lapses at"))
    state = models.CharField(_("state"), max_length=10, choices=State.choices, default=State.PENDING)
    released_at = models.DateTimeField(_("released at"), null=True, blank=True)
    released_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("released by"),
    )
    release_reason = models.TextField(_("release reason"), blank=True)

    class Meta:
        db_table = "jackpots_tabledeclaration"
        ordering = ["-opened_at", "-id"]
        permissions = [("release_tabledeclaration", _("Can release a table declaration"))]
        constraints = [
            # One declaration at a time suspends a progressive's tables.
            models.UniqueConstraint(
                fields=["level"], condition=models.Q(state="pending"), name="table_declaration_one_pending"
            ),
            models.CheckConstraint(
                condition=models.Q(state="pending", released_at__isnull=True)
                | (~models.Q(state="pending") & models.Q(released_at__isnull=False)),
                name="table_declaration_released_at",
            ),
        ]
        verbose_name = _("table declaration")
        verbose_name_plural = _("table declarations")

    def __str__(self) -> str:
        return f"{self.table.code} seat {self.seat} {self.get_hand_display()}"


class HitTablePayment(models.Model):
    """The table (and the key that posted the round) that paid a hit under the venue's two-person threshold
    (``services.parts``): the engine's hit names only a person or a machine as its payer."""

    hit = models.OneToOneField(
        "jackpots.Hit",
        on_delete=models.PROTECT,
        primary_key=True,
        related_name="table_payment",
        verbose_name=_("hit"),
    )
    table = models.ForeignKey(
        Table, on_delete=models.PROTECT, related_name="+", verbose_name=_("paid at the table")
    )
    key = models.ForeignKey(
        TableKey,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("paid with the table key"),
    )

    class Meta:
        verbose_name = _("payment at a table")
        verbose_name_plural = _("payments at tables")

    def __str__(self) -> str:
        return f"{self.hit_id} paid at {self.table_id}"
