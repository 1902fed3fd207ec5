"""A link award's Hit is paid part by part at the sites: the link's desk refuses to verify or pay it as one
sum (it would leave the house twice), and names who pays it and where it was won."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from jackpots.models import Hit
from jackpots.selectors import hit_place
from jackpots.services.errors import EngineError
from jackpots.services.hit_payment import hit_pay, hit_payer, hit_verify
from linkcentral.models import LinkAward
from linkcentral.services.apply import pool_entries_apply
from tests.linkcentral.factories import at, entry, linked_pool, through

pytestmark = pytest.mark.django_db


def test_the_links_desk_never_pays_an_award_as_one_sum() -> None:
    linked = linked_pool()
    nog = linked.members["NOG"]
    entry(nog, 1, 1, wagered=2500)
    entry(nog, 2, 2, seats=((1, 100), (3, 300)))
    through(nog, 10)
    through(linked.members["CHX"], 10)
    pool_entries_apply(linked.pool.id, now=at(20))
    award = LinkAward.objects.get()
    hit = Hit.objects.get(pk=award.hit_id)
    user = get_user_model().objects.create_user("attendant")

    for act in (lambda: hit_verify(hit, user), lambda: hit_pay(hit, user)):
        with pytest.raises(EngineError) as refused:
            act()
        assert refused.value.code == "pay_the_parts"
    hit.refresh_from_db()
    assert (hit.state, hit.paid_at) == (Hit.State.HIT, None)
    assert hit_payer(hit) == f"the sites of pool JUMBO7, part by part (award {award.id})"
    assert hit_place(hit) == "JUMBO7"
