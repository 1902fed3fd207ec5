"""The progressive engine's write side. Others code against these names; see each module's docstring.

- ``core``: pure functions over a level's parameters and state (contribute, award, reset, triggers).
- ``contributions``: pending machine events → levels, in batches, exactly once (``contribution_claim``:
  which events a batch takes, in the order of play).
- ``hit_recording``: recording a hit (a machine's report, a mystery trigger, a table's award);
  ``hit_payment``: verification (two people at or above the threshold) and payment; ``hit_voids``: void.
- ``parameters``: staged and immediate parameter changes, the change log.
- ``proposals``: maker-checker for a level's money and parameters (propose, approve, reject, retire).
- ``states``: suspending and resuming a level, on the change log and the significant-events register.
"""

from jackpots.services.contributions import contributions_apply, contributions_batch_apply
from jackpots.services.core import AwardMode
from jackpots.services.errors import EngineError
from jackpots.services.hit_payment import hit_pay, hit_verify
from jackpots.services.hit_recording import level_award, level_hit
from jackpots.services.hit_voids import hit_void
from jackpots.services.parameters import level_parameters_change
from jackpots.services.proposals import change_approve, change_propose, change_reject, progressive_retire
from jackpots.services.states import level_resume, level_suspend
from jackpots.services.wagers import level_wager_add

__all__ = [
    "AwardMode",
    "EngineError",
    "change_approve",
    "change_propose",
    "change_reject",
    "contributions_apply",
    "contributions_batch_apply",
    "hit_pay",
    "hit_verify",
    "hit_void",
    "level_award",
    "level_hit",
    "level_parameters_change",
    "level_resume",
    "level_suspend",
    "level_wager_add",
    "progressive_retire",
]
