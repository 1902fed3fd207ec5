"""Progressives, their levels, the contribution ledger and hits; exchange rates; proposed changes.

Money: wagers and awards are integer cents; pool amounts are integer millicents (1/1000 cent, as G2S
carries them); rates are exact Decimals. No float touches money.
"""

from jackpots.models.hits import Hit, HitKind, HitNumberCounter, HitRefusal
from jackpots.models.ledger import ContributionBatch, LedgerEntry, LevelChange, MachineContribution
from jackpots.models.progressives import Level, Progressive, ProgressiveMachine
from jackpots.models.proposals import ChangeProposal, RetiredLiability
from jackpots.models.rates import ExchangeRate

__all__ = [
    "ChangeProposal",
    "ContributionBatch",
    "ExchangeRate",
    "Hit",
    "HitKind",
    "HitNumberCounter",
    "HitRefusal",
    "LedgerEntry",
    "Level",
    "LevelChange",
    "MachineContribution",
    "Progressive",
    "ProgressiveMachine",
    "RetiredLiability",
]
