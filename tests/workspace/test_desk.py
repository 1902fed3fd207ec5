"""The hits desk: the start page for staff, the steps through the engine's services after a confirmation,
refusals as sentences, and the slips stored with the paid hit."""

from __future__ import annotations

import io

import pytest
from django.contrib.admin.models import LogEntry
from pypdf import PdfReader

from jackpots.models import Hit
from tests.workspace.helpers import WINNER_FORM
from workspace.models import HitSlip
from workspace.slips.words import amount_in_words

pytestmark = pytest.mark.django_db


def pdf_text(data: bytes) -> str:
    return "\n".join(page.extract_text() for page in PdfReader(io.BytesIO(data)).pages).replace("\u00a0", " ")


def test_the_root_leads_to_the_hits_desk(client, manager):
    client.force_login(manager)
    response = client.get("/")
    assert (response.status_code, response["Location"]) == (302, "/hits/")


def test_anonymous_visitors_are_sent_to_log_in_and_non_staff_are_refused(client, django_user_model):
    response = client.get("/hits/")
    assert (response.status_code, response["Location"]) == (302, "/admin/login/?next=/hits/")
    client.force_login(django_user_model.objects.create_user("player", password="x"))
    assert client.get("/hits/").status_code == 403


def test_the_desk_lists_what_each_hit_needs(client, manager, manager2, big_hit, small_hit):
    client.force_login(manager)
    client.post(f"/hits/{big_hit.pk}/verify/")
    page = client.get("/hits/").content.decode()
    assert "waiting for a second person: verified by manager" in page
    assert "5,000.60" in page and "500.00" in page
    assert 'data-needs="second_verify"' in page and 'data-needs="verify"' in page


def test_the_confirmation_shows_amount_and_machine_and_changes_nothing(client, manager, big_hit):
    client.force_login(manager)
    page = client.get(f"/hits/{big_hit.pk}/pay/").content.decode()
    assert "€\u00a05,000.60" in page and "NOG-0005" in page
    big_hit.refresh_from_db()
    assert big_hit.state == Hit.State.HIT


def test_a_refusal_reads_as_a_sentence_without_its_code(client, manager, big_hit):
    client.force_login(manager)
    response = client.post(f"/hits/{big_hit.pk}/pay/", follow=True)
    page = response.content.decode()
    assert f"Hit {big_hit.ref} is hit; it must be verified before paying." in page
    assert "hit_not_verified" not in page
    big_hit.refresh_from_db()
    assert (big_hit.state, big_hit.paid_by) == (Hit.State.HIT, None)


def test_the_same_person_cannot_verify_twice(client, manager, big_hit):
    client.force_login(manager)
    client.post(f"/hits/{big_hit.pk}/verify/")
    page = client.post(f"/hits/{big_hit.pk}/verify/", follow=True).content.decode()
    assert "a different person must verify it too" in page
    big_hit.refresh_from_db()
    assert (big_hit.state, big_hit.second_verified_by) == (Hit.State.HIT, None)


def test_two_people_verify_one_pays_and_the_slip_is_stored(client, manager, manager2, big_hit):
    client.force_login(manager)
    client.post(f"/hits/{big_hit.pk}/verify/")
    client.force_login(manager2)
    client.post(f"/hits/{big_hit.pk}/verify/")
    client.post(f"/hits/{big_hit.pk}/pay/", WINNER_FORM)
    big_hit.refresh_from_db()
    assert (big_hit.state, big_hit.verified_by, big_hit.second_verified_by, big_hit.paid_by) == (
        Hit.State.PAID,
        manager,
        manager2,
        manager2,
    )
    assert sorted(HitSlip.objects.filter(hit=big_hit).values_list("variant", flat=True)) == ["80mm", "a5"]
    assert LogEntry.objects.filter(object_id=str(big_hit.pk)).count() == 3
    for variant in ("a5", "80mm"):
        response = client.get(f"/hits/{big_hit.pk}/slip/{variant}.pdf")
        assert response["Content-Type"] == "application/pdf"
        text = pdf_text(response.content)
        # The slip's first language is Italian (issue 21, finding 8: it printed "€ 5,000.04").
        assert "€ 5.000,60" in text and "5,000.60" not in text
        assert "cinquemila euro e sessanta centesimi" in text
        assert "five thousand euros and sixty cents" in text
        assert "manager2" in text and "Verified by (1): manager" in text
        assert "NOG-0005" in text and "Grease Grand - Grand" in text


def test_a_reprint_is_the_stored_slip(client, manager, small_hit):
    client.force_login(manager)
    client.post(f"/hits/{small_hit.pk}/verify/")
    client.post(f"/hits/{small_hit.pk}/pay/")
    stored = bytes(HitSlip.objects.get(hit=small_hit, variant="a5").pdf)
    manager.first_name = "Renamed"
    manager.save()
    assert client.get(f"/hits/{small_hit.pk}/slip/a5.pdf").content == stored


def test_an_unpaid_hit_has_no_slip(client, manager, small_hit):
    client.force_login(manager)
    page = client.get(f"/hits/{small_hit.pk}/slip/a5.pdf", follow=True).content.decode()
    assert "is not paid yet" in page
    assert not HitSlip.objects.exists()


def test_void_needs_a_reason_and_records_it(client, manager, small_hit):
    client.force_login(manager)
    page = client.post(f"/hits/{small_hit.pk}/void/", {"reason": ""}).content.decode()
    assert "This field is required." in page
    small_hit.refresh_from_db()
    assert small_hit.state == Hit.State.HIT
    client.post(f"/hits/{small_hit.pk}/void/", {"reason": "Reel malfunction"})
    small_hit.refresh_from_db()
    assert (small_hit.state, small_hit.void_reason, small_hit.voided_by) == (
        Hit.State.VOIDED,
        "Reel malfunction",
        manager,
    )


def test_an_attendant_verifies_but_may_not_pay(client, attendant, small_hit):
    client.force_login(attendant)
    client.post(f"/hits/{small_hit.pk}/verify/")
    page = client.post(f"/hits/{small_hit.pk}/pay/", follow=True).content.decode()
    assert "You may not do this: ask a floor manager." in page
    small_hit.refresh_from_db()
    assert (small_hit.state, small_hit.verified_by, small_hit.paid_by) == (
        Hit.State.VERIFIED,
        attendant,
        None,
    )


@pytest.mark.parametrize(
    ("cents", "italian", "english"),
    [
        (500060, "cinquemila euro e sessanta centesimi", "five thousand euros and sixty cents"),
        (100, "un euro", "one euro"),
        (123456701,
         "un milione e duecentotrentaquattromilacinquecentosessantasette euro e un centesimo",
         "one million, two hundred and thirty-four thousand, five hundred and sixty-seven euros"
         " and one cent"),
    ],
)  # fmt: skip
def test_amounts_in_words(cents, italian, english):
    assert amount_in_words(cents, "it") == italian
    assert amount_in_words(cents, "en") == english


def test_the_desk_speaks_italian(client, manager, big_hit):
    client.force_login(manager)
    client.post(f"/hits/{big_hit.pk}/verify/")
    client.post("/i18n/setlang/", {"language": "it", "next": "/hits/"})
    page = client.get("/hits/").content.decode()
    assert "<h1>Banco vincite</h1>" in page
    assert "in attesa di una seconda persona: verificata da manager" in page
    assert ">Progressivi</a>" in page and ">Chiusura giornata</a>" in page
