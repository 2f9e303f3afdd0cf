"""The sentence's own facts against its passage (verification/claims.py)."""

from __future__ import annotations

import pytest

from verification.claims import ClaimFinding, Evidence, check_claim


def findings(sentence: str, source: str, *, absent: bool = True,
             passage: tuple[int, int] | None = None) -> tuple[ClaimFinding, ...]:
    start, end = passage or (0, len(source))
    return check_claim(sentence, [(0, len(sentence))], [Evidence("S1", source, start, end)],
                       absent=absent)


# (sentence, source, check or None, words the message must hold)
CASES = [
    # numbers: a counterpart of the same unit that differs names both sides
    ("Matching contributions vest after 3 years.",
     "Employer matching contributions vest after two years of service.",
     "number", ("3 years", "two years")),
    ("Give 15 mg twice daily.", "Give 1.5 mg twice daily with food.", "number",
     ("15 mg", "1.5 mg")),
    ("The notice period is 60 days.", "Either party may terminate on 90 days' notice.",
     "number", ("60 days", "90 days")),
    # numbers the passage says in another form
    ("Loans are capped at half of the vested balance.",
     "Participants may borrow up to 50% of their vested balance.", None, ()),
    ("Hindus fell to 41% of the population.", "Hindu (41.3%), Muslim (24.6%).", None, ()),
    ("The library holds over 260,000 volumes.", "Its collection numbers 263,112 volumes.",
     None, ()),
    ("The fund raised $1.5 million.", "The fund raised $1,500,000 last year.", None, ()),
    ("Matching contributions vest after two years.",
     "Employer matching contributions vest after 2 years.", None, ()),
    ("The fight took place on April 9, 2011.", "The bout is on April 9th in Albuquerque, 2011.",
     None, ()),
    # a number nothing says
    ("The library holds 260,000 volumes.", "The library opened in 1898.", "number",
     ("260,000",)),
    # a label is not a quantity; counting in words is not checked for absence
    ("Vesting takes 3 years.", "Section 3. Vesting takes two years.", "number",
     ("3 years", "two years")),
    ("Granite has four main minerals.", "Granite holds quartz, feldspar and mica.", None, ()),
    ("It treats type 2 diabetes.", "It lowers blood glucose in diabetes.", None, ()),
    ("The 2018–19 season was his last.", "He retired after the 2018 season.", None, ()),
    # a minus sign is part of the number, unless the sentence says which way it went
    ("Store the vials at 20 °C until use.",
     "Store the vials at \u221220 °C until they are used.", "number", ("20",)),
    ("Store the vials at \u221220 °C until use.",
     "Store the vials at 20 °C until they are used.", "number", ("\u221220",)),
    ("Store the vials at \u221220 °C until use.",
     "Store the vials at -20 °C until they are used.", None, ()),
    ("The mean score fell by 0.5 points in the first year.",
     "The mean change was (-0.5) points over the first year.", None, ()),
    ("Children with a z-score \u22642 at birth were given the supplement.",
     "Children with a z-score \u2264\u22122 at birth were given the supplement.", "number",
     ("2",)),
    ("Cases of COVID-19 rose to 120 in 10-20 days.",
     "Cases of COVID-19 rose to 120 in 10-20 days of spring.", None, ()),
    # a bound from the other side of the same number: another population
    ("Children under 18 years with a prior stroke were enrolled.",
     "Adults aged \u226518 years with a prior stroke were enrolled in the trial arm.", "number",
     ("under 18 years", "\u226518 years")),
    ("Adults aged <18 years with a prior stroke were enrolled.",
     "Adults aged 18 years or older with a prior stroke were enrolled in the arm.", "number",
     ("<18 years", "18 years or older")),
    ("The fine is at most $500 for each violation.",
     "The fine shall be $500 or more for each violation of the section.", "number",
     ("at most $500", "$500 or more")),
    # the same side written otherwise; or turned round by an exclusion
    ("Adults aged 18 or older with a prior stroke were enrolled.",
     "Adults aged \u226518 years with a prior stroke were enrolled in the trial arm.", None, ()),
    ("Adults over 18 years with a prior stroke were enrolled.",
     "Adults aged \u226518 years with a prior stroke were enrolled in the trial arm.", None, ()),
    ("Children under 18 years were excluded from the trial.",
     "Adults aged \u226518 years with a prior stroke were enrolled in the trial arm.", None, ()),
    ("The dose is 10 mg.", "The dose is 10+5 mg in the first week.", None, ()),
    # how often, which side, which party
    ("Take the tablet twice daily with food.",
     "Take the tablet once daily with food, in the morning, for fourteen days.", "number",
     ("twice", "once")),
    ("Inject the dose weekly into the thigh.",
     "Inject the dose daily into the thigh or the abdomen.", "number", ("weekly", "daily")),
    ("Instil one drop in the left eye nightly.",
     "Instil one drop in the right eye nightly for four weeks.", "comparative",
     ("left", "right")),
    ("The tenant must pay the rent on the first day of the month.",
     "The landlord must pay the rent on the first day of each calendar month.", "entity",
     ("tenant", "landlord")),
    ("The lower starting dose applies to women over 65.",
     "The lower starting dose applies to men over 65 with renal impairment.", "entity",
     ("women", "men")),
    # "right" and "left" that name no side; both parties named
    ("The patient has the right to refuse treatment.",
     "The patient left the clinic after refusing the treatment offered.", None, ()),
    ("Employees must enrol within 30 days.",
     "The employer must enrol employees within 30 days of hire.", None, ()),
    # a word negated by its prefix on one side only
    ("The drug is indicated in pregnancy.",
     "The drug is contraindicated in pregnancy and in women planning to become pregnant.",
     "negation", ("indicated", "contraindicated")),
    ("Screen every asymptomatic contact within seven days.",
     "Screen every symptomatic contact within seven days of exposure.", "negation",
     ("asymptomatic", "symptomatic")),
    ("Workers who are ineligible for the plan get no match.",
     "Workers who are not eligible for the plan get no match from the employer.", None, ()),
    ("W is the unit of weight of the sample.",
     "W is the weight of the sample; it is the unit of weight used.", None, ()),
    ("The solvent is inflammable and must be kept cool.",
     "The solvent is flammable and must be kept cool at all times.", None, ()),
    # negation: the same statement negated on one side only
    ("The HbA1c test does not require fasting before the blood draw.",
     "The HbA1c test requires fasting before the blood draw.", "negation", ("not",)),
    ("Exceed 4 g of paracetamol a day in adults.",
     "Never exceed 4 g of paracetamol a day in adults.", "negation", ("Never exceed",)),
    ("Dental cover is included in the basic plan.",
     "Dental cover is not included in the basic plan.", "negation", ("not included",)),
    # a negation the passage does not repeat, about something else, is no finding
    ("He declined as he did not want to leave the band.",
     "Oliva turned the offer down to stay with Savatage.", None, ()),
    # quantifiers, modals, order
    ("All participants must repay loans within five years.",
     "Some participants must repay loans within five years.", "quantifier", ("All", "Some")),
    ("Employees must enrol within 30 days of hire.",
     "Employees may enrol within 30 days of hire.", "modal", ("must", "may")),
    ("Take the tablet before meals each morning.", "Take the tablet after meals each morning.",
     "comparative", ("before", "after")),
    ("Recurrence decreased with apixaban in the trial.",
     "Recurrence increased with apixaban in the trial.", "comparative",
     ("decreased", "increased")),
    # an opposite in another statement is about something else
    ("Take the tablet before meals.",
     "Take the tablet before meals. Measure glucose after exercise.", None, ()),
    # names
    ("Patients on Warfarin Sodium need weekly checks.", "Patients on apixaban need weekly checks.",
     "entity", ("Warfarin Sodium",)),
    ("It was approved by the Food and Drug Administration in 2019.",
     "The FDA approved it in 2019.", None, ()),
    ("Lewis should save for college.", "Parents should save for college early.", None, ()),
]


@pytest.mark.parametrize(("sentence", "source", "check", "words"), CASES,
                         ids=[c[0][:40] for c in CASES])
def test_case(sentence: str, source: str, check: str | None, words: tuple[str, ...]) -> None:
    found = findings(sentence, source)
    if check is None:
        assert found == (), [f.message for f in found]
        return
    assert [f.check for f in found] == [check], [f.message for f in found]
    for word in words:
        assert word in found[0].message
    assert sentence[found[0].claim_start:found[0].claim_end] == found[0].claim


def test_a_counterpart_points_into_the_source() -> None:
    source = "Employer matching contributions vest after two years of service."
    (finding,) = findings("Matching contributions vest after 3 years.", source)
    assert finding.source_marker == "S1" and finding.passage == "two years"
    assert finding.passage_start is not None and finding.passage_end is not None
    assert source[finding.passage_start:finding.passage_end] == "two years"


def test_beside_a_quote_only_a_contradiction_counts() -> None:
    # "Smith v Jones [2019] held that ...": framing words name no fact to check.
    assert findings("In 2019 the court held this.", "The plan vests after two years.",
                    absent=False) == ()
    (finding,) = findings("After 3 years the plan vests.", "The plan vests after two years.",
                          absent=False)
    assert finding.check == "number"


def test_a_number_elsewhere_in_the_source_holds_but_only_in_its_unit() -> None:
    source = "Vesting takes two years.\nThe plan has 3 tiers."
    assert findings("Vesting takes 3 tiers.", source, passage=(0, 24)) == ()
    (finding,) = findings("Vesting takes 3 years.", source, passage=(0, 24))
    assert "two years" in finding.message


def test_no_evidence_no_findings() -> None:
    assert check_claim("It takes 3 years.", [(0, 17)], []) == ()


def test_the_configuration_knows_every_check_and_leaves_out_those_not_asked_for() -> None:
    from verification import VerificationConfig
    from verification.claims import CHECKS

    assert set(VerificationConfig().claim_checks) == set(CHECKS)
    source = "Employer matching contributions vest after two years of service."
    sentence = "Matching contributions vest after 3 years."
    assert findings(sentence, source)
    assert check_claim(sentence, [(0, len(sentence))], [Evidence("S1", source, 0, len(source))],
                       checks=("negation", "entity")) == ()
    with pytest.raises(ValueError, match="unknown claim checks"):
        VerificationConfig(claim_checks=("numbers",))
