"""Writes of the table games: rounds (``rounds``), their voids (``voids``), pay table changes
(``paytables``) and table keys."""

from jackpots.tables.services.paytables import pay_table_change, pay_table_staged_apply
from jackpots.tables.services.rounds import round_answer, round_record, table_bet_rule, table_key_issue
from jackpots.tables.services.voids import round_void, table_hit_void

__all__ = [
    "pay_table_change",
    "pay_table_staged_apply",
    "round_answer",
    "round_record",
    "round_void",
    "table_bet_rule",
    "table_hit_void",
    "table_key_issue",
]
