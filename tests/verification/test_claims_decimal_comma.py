"""Numbers written with a decimal comma ("2,5 mg"), as French, German,
Italian and Spanish sources print them: the same value as "2.5 mg", in a
claim or in its evidence. A comma before three digits still parts
thousands ("1,500"), and a list of numbers ("1,2,3") is no decimal."""

from __future__ import annotations

import pytest

from verification.claims import ClaimFinding, Evidence, check_claim


def findings(sentence: str, source: str) -> tuple[ClaimFinding, ...]:
    return check_claim(sentence, [(0, len(sentence))], [Evidence("S1", source, 0, len(source))])


@pytest.mark.parametrize(("sentence", "source"), [
    # Before: "2,5" read as 2 (its "5" never read), so "2.5 mg" had no counterpart.
    ("The recommended dose is 2.5 mg twice daily.",
     "La dose recommandée est de 2,5 mg deux fois par jour."),
    ("Die Dosis beträgt 0,25 mg pro Tag.", "Die empfohlene Dosis beträgt 0.25 mg pro Tag."),
    ("La dose est de 2,5 mg deux fois par jour.",
     "La dose recommandée est de 2,5 mg deux fois par jour."),
    ("The rate was 12.3456 percent.", "Le taux était de 12,3456 % sur l'année."),
    # a comma before three digits: thousands, as before
    ("The grant is 1500 euros a year.", "The grant is 1,500 euros a year for each student."),
])
def test_a_decimal_comma_says_the_same_number_as_a_decimal_point(sentence: str,
                                                                  source: str) -> None:
    assert findings(sentence, source) == ()


@pytest.mark.parametrize(("sentence", "source", "said"), [
    ("The recommended dose is 3.5 mg twice daily.",
     "La dose recommandée est de 2,5 mg deux fois par jour.", "3.5 mg"),
    ("The recommended dose is 5.2 mg twice daily.",
     "La dose recommandée est de 2,5 mg deux fois par jour.", "5.2 mg"),
    ("The recommended dose is 25 mg twice daily.",
     "La dose recommandée est de 2,5 mg deux fois par jour.", "25 mg"),
])
def test_a_changed_decimal_is_caught(sentence: str, source: str, said: str) -> None:
    (finding,) = findings(sentence, source)
    assert said in finding.message and "2,5 mg" in finding.message
