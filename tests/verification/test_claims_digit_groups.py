"""Numbers written in digit groups parted by spaces ("1 000 V", "12 500 €"),
as French, German and SI style print them and as ingestion reads a number
kerned in groups: one number, where only a number can be meant; one number
or two where the spaces may part two ("Table 3 200 patients")."""

from __future__ import annotations

import pytest

from verification import verify_answer
from verification.claims import ClaimFinding, Evidence, check_claim

#: A plain space (ingestion's), a no-break space, a thin space and a narrow
#: no-break space: the separators a source prints between thousands.
SPACES = [" ", "\u00a0", "\u2009", "\u202f"]
SPACE_IDS = ["space", "nbsp", "thin", "narrow-nbsp"]


def findings(sentence: str, source: str) -> tuple[ClaimFinding, ...]:
    return check_claim(sentence, [(0, len(sentence))], [Evidence("S1", source, 0, len(source))])


def messages(found: tuple[ClaimFinding, ...]) -> list[str]:
    return [f.message for f in found]


@pytest.mark.parametrize("space", SPACES, ids=SPACE_IDS)
def test_the_same_number_grouped_on_either_side_is_supported(space: str) -> None:
    grouped = f"1{space}000 V"
    assert findings("The cable is rated for 1000 V.",
                    f"The cable is rated for {grouped} in dry rooms.") == ()
    assert findings(f"The cable is rated for {grouped}.",
                    "The cable is rated for 1000 V in dry rooms.") == ()
    assert findings("The cable is rated for 1,000 V.",
                    f"The cable is rated for {grouped} in dry rooms.") == ()
    assert findings(f"The plant cost 1{space}000{space}000 euros.",
                    "The plant cost 1,000,000 euros to build.") == ()
    assert findings("The grant is €12,500 a year.",
                    f"The grant is 12{space}500 € a year for each student.") == ()


@pytest.mark.parametrize("space", SPACES, ids=SPACE_IDS)
def test_a_changed_number_is_caught(space: str) -> None:
    source = f"The cable is rated for 1{space}000 V in dry rooms."
    for claim, said in [("1500 V", "1500"), (f"1{space}500 V", f"1{space}500"),
                        ("10000 V", "10000"), (f"10{space}000 V", f"10{space}000"),
                        # a group added, and a group read alone
                        (f"1{space}000{space}000 V", f"1{space}000{space}000"), ("1 V", "1")]:
        found = findings(f"The cable is rated for {claim}.", source)
        assert [f.claim for f in found] == [said], messages(found)
    found = findings("The cable is rated for 1000 V.",
                     f"The cable is rated for 1{space}000{space}000 V in dry rooms.")
    assert [f.claim for f in found] == ["1000"], messages(found)


def test_a_change_in_a_comparable_unit_names_both_numbers() -> None:
    (finding,) = findings("Each vial holds 1 500 mg.", "Each vial holds 1\u00a0000 mg of powder.")
    assert finding.claim == "1 500 mg" and "1\u00a0000 mg" in finding.message


# Plain spaces between digits may part two numbers: the sentence holds if
# either reading does, and a group read alone is held only by that number
# written alone, or by the same groups written alike.
AMBIGUOUS = [
    # the same digits, either reading
    ("Table 3 200 patients were enrolled.", "Table 3 lists the 200 patients enrolled.", None),
    ("Table 3 200 patients were enrolled.", "Table 3 200 patients were enrolled.", None),
    ("At visit 2 150 mg was given.", "At visit 2, 150 mg was given by mouth.", None),
    ("Enrolment ran in 2019 2020 and 2021.", "Enrolment ran in 2019, 2020 and 2021.", None),
    ("In 2019 200 patients were enrolled.", "In 2019, 200 patients were enrolled.", None),
    # a number changed: the finding names the reading the sentence meant
    ("Table 3 200 patients were enrolled.", "Table 3 lists the 300 patients enrolled.",
     "200 patients"),
    ("At visit 2 250 mg was given.", "At visit 2, 150 mg was given by mouth.", "250 mg"),
    ("The cable is rated for 1 500 V.", "A cable is rated for 1 200 V and another for 500 V.",
     "1 500"),
    ("The cable is rated for 1 500 V.", "The cable is rated for 1 000 V and 500 V.", "1 500"),
    # the groups of a label ("Table 3 200") are no number of 3200
    ("The trial enrolled 3200 patients.", "Table 3 200 patients were enrolled.",
     "3200 patients"),
    # a typesetter's space between digit groups parts no two numbers
    ("Table 3\u00a0200 patients were enrolled.", "Table 3 lists the 200 patients enrolled.",
     "3\u00a0200 patients"),
    # a telephone number's groups are not thousands
    ("Call 22 929 for the desk.", "Call +41 22 929 2936 for the desk.", None),
]


@pytest.mark.parametrize(("sentence", "source", "claim"), AMBIGUOUS,
                         ids=[f"{c[0][:30]}|{c[1][:30]}" for c in AMBIGUOUS])
def test_plain_spaces_between_digits(sentence: str, source: str, claim: str | None) -> None:
    found = findings(sentence, source)
    assert [f.claim for f in found] == ([claim] if claim else []), messages(found)


@pytest.mark.parametrize("space", SPACES, ids=SPACE_IDS)
def test_a_quote_with_the_groups_joined_verifies_and_a_changed_one_does_not(space: str) -> None:
    # The quote path already compares the two without the spaces: kept so.
    source = f"The cable is rated for 1{space}000 V in dry rooms. It is grey."
    answer = 'The manual says it is "rated for {} in dry rooms" [S1].'
    outcome = {quote: verify_answer(answer.format(quote), {"S1": source}).to_dict()[
        "sentences"][0]["citations"][0]["outcome"] for quote in ("1000 V", "1500 V", "1 500 V")}
    assert outcome == {"1000 V": "verified-fuzzy", "1500 V": "quote-altered",
                       "1 500 V": "quote-altered"}
