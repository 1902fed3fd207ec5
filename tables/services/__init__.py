"""Writes of the table games: rounds (``rounds``), their voids (``voids``), pay table changes
(``paytables``) and table keys."""

from tables.services.paytables import pay_table_change, pay_table_staged_apply
from tables.services.rounds import round_answer, round_record, table_bet_rule, table_key_issue
from tables.services.voids import round_void, table_hit_void

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
