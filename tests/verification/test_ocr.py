"""Sources whose text OCR read from a scan: a quote of the printed words
verifies across the letters OCR misread, and says so; nothing else does.

The OCR readings are Tesseract's, from the image-only pages of
``bench/generalise.py``: "Meaicine", "Supp!", "CLer", "ABSSSJ"."""

from __future__ import annotations

import pytest

from verification import Source, verify_answer
from verification.ocr import misread_pairs

# As OCR read a printed reference list and a dosing note.
SCANNED = (
    "Systemic absorption of food dye in patients with\nsepsis. Maloney, J.P., "
    "Halbower, A.C., Fouty, B.F. et al.\nNew England Journal of Meaicine, 343(14):1047-1048 "
    "(2000).\n\n4. Metheny, N.A. Risk factors for aspiration. Journal of\nParenteral and "
    "Enteral Nutrition, 26(Supp!): S26-33\n(2002).\n\nThe recommended dosage regimen of "
    "DALVANCE in pediatric patients with CLer\n30 mL/min/1.73m² and above is a single dose "
    "regimen. Do not use in skin and skin structure infections (ABSSSJ) caused by "
    "resistant strains.\n\n62 Lundin KE, Scott H, Fausa O, et a/. T cells from the small "
    "intestinal mucosa.\n\nNaftifine hydrochloride revealed no evidence of mutagenic "
    "potential based on the results of two /n vitro genotoxicity tests.\n\nproviding specific "
    "\u201c[d]irections for\nlilmprovement\u201d to make Samsung\u2019s graphical user interface."
)


def cite(quote: str, *, text: str = SCANNED, ocr: tuple[tuple[int, int], ...] | None = None):
    """The citation of ``quote`` against ``text`` alone, whose ranges ``ocr``
    OCR read (the whole of it unless given)."""
    read = ((0, len(text)),) if ocr is None else ocr
    (citation,) = verify_answer(f'"{quote}" [S1].',
                                [Source(marker="S1", text=text, ocr=read)]).citations
    return citation


@pytest.mark.parametrize(("quote", "misread"), [
    ("New England Journal of Medicine, 343(14):1047-1048 (2000).", "“Meaicine” read for "
     "“Medicine” (“a” for “d”)"),
    ("Parenteral and Enteral Nutrition, 26(Suppl.): S26-33", "“Supp!” read for “Suppl.”"),
    ("dosage regimen of DALVANCE in pediatric patients with CLcr 30 mL/min/1.73m² and above",
     "“CLer” read for “CLcr” (“e” for “c”)"),
    ("skin structure infections (ABSSSI) caused by resistant strains", "“ABSSSJ” read for "
     "“ABSSSI” (“j” for “i”)"),
    ("Lundin KE, Scott H, Fausa O, et al. T cells from the small intestinal mucosa",
     "“a/” read for “al” (“/” for “l”)"),
    # an italic "in" on a drug label (batch 21): quote-altered, “in” for “/” (unit)
    ("no evidence of mutagenic potential based on the results of two in vitro genotoxicity",
     "“/n” read for “in” (“/” for “i”)"),
    # a brief's bracketed letter (batch 17): quote-altered, a word changed
    ("providing specific \u201c[d]irections for [i]mprovement\u201d to make Samsung\u2019s",
     "“lilmprovement” read for “[i]mprovement” (“l” for “[”, “l” for “]”)"),
])
def test_the_printed_words_verify_against_ocr_text_naming_the_misread(
        quote: str, misread: str) -> None:
    citation = cite(quote)
    assert citation.outcome == "verified-fuzzy", citation.message
    assert "OCR" in citation.message and misread in citation.message
    assert "ocr-misread" in citation.normalizations
    assert any(d.repair == "ocr-misread" and not d.reasons for d in citation.differences)
    # The match is where OCR read the words.
    assert citation.chunk_start is not None and citation.chunk_end is not None
    assert quote.split()[-1][:3].lower() in SCANNED[citation.chunk_start:citation.chunk_end].lower()


def test_a_quote_over_the_threshold_as_read_still_names_the_misread() -> None:
    # One misread common word in a sentence scores above the threshold
    # against the OCR's text as it reads (and changes no name or figure);
    # the reason must still say the difference is the OCR's: "“modern” for
    # “modem”" alone reads as a word the quote changed.
    read = "The modem ward of the hospital opens for patients in spring."
    citation = cite("The modern ward of the hospital opens for patients in spring.", text=read)
    assert citation.outcome == "verified-fuzzy", citation.message
    assert citation.message.startswith("the cited text came from OCR"), citation.message
    assert "“modem” read for “modern” (“m” for “rn”)" in citation.message
    assert "ocr-misread" in citation.normalizations


@pytest.mark.parametrize("quote", [
    "New England Journal of Medicine, 343(14):1047-1048 (2000).",
    "dosage regimen of DALVANCE in pediatric patients with CLcr 30 mL/min/1.73m² and above",
    "skin structure infections (ABSSSI) caused by resistant strains",
])
def test_the_same_text_born_digital_is_matched_as_it_stands(quote: str) -> None:
    # "Meaicine" printed in a born-digital PDF is what the document says.
    citation = cite(quote, ocr=())
    assert citation.outcome not in ("verified", "verified-fuzzy")
    assert "OCR" not in citation.message


def test_only_the_ranges_ocr_read_are_read_leniently() -> None:
    # The page holding "Meaicine" has a text layer; the OCR'd page is another.
    elsewhere = ((SCANNED.index("4. Metheny"), len(SCANNED)),)
    citation = cite("New England Journal of Medicine, 343(14):1047-1048 (2000).", ocr=elsewhere)
    assert citation.outcome == "quote-altered"


@pytest.mark.parametrize(("quote", "reason"), [
    # A figure changed beside a misread word: the misread is set aside, the figure is not.
    ("New England Journal of Medicine, 343(14):1047-1049 (2000).", "number"),
    ("dosage regimen of DALVANCE in pediatric patients with CLcr 20 mL/min/1.73m² and above",
     "number"),
    # A negation dropped before the quoted words.
    ("use in skin and skin structure infections (ABSSSI) caused by resistant strains",
     "negation"),
    # Another name, not an OCR look-alike of the one read.
    ("New England Journal of Nutrition, 343(14):1047-1048 (2000).", "name"),
])
def test_a_change_of_meaning_on_ocr_text_is_still_caught(quote: str, reason: str) -> None:
    citation = cite(quote)
    assert citation.outcome == "quote-altered", citation.message
    assert any(reason in d.reasons for d in citation.differences), citation.differences


# A scanned CML guideline as Tesseract read it: the gene's "1" read "I".
GUIDELINE = ("A qualitative reverse transcriptase PCR on peripheral blood cells is mandatory "
             "to identify the type of BCR-ABLI transcripts that can be appropriately followed "
             "when assessing response to TKI therapy. Grade II events were rare.")


@pytest.mark.parametrize(("quote", "outcome"), [
    ("to identify the type of BCR-ABL1 transcripts that can be appropriately followed",
     "verified-fuzzy"),
    # Another gene, or the grade as a figure: a change, not a misread.
    ("to identify the type of BCR-ABL2 transcripts that can be appropriately followed",
     "quote-altered"),
    ("when assessing response to TKI therapy. Grade 11 events were rare.", "quote-altered"),
])
def test_an_identifiers_digit_read_as_a_letter_is_a_misread(quote: str, outcome: str) -> None:
    citation = cite(quote, text=GUIDELINE)
    assert citation.outcome == outcome, citation.message
    if outcome == "verified-fuzzy":
        assert "“BCR-ABLI” read for “BCR-ABL1” (“i” for “1”)" in citation.message


@pytest.mark.parametrize(("printed", "read", "pairs"), [
    ("medicine", "meaicine", (("d", "a"),)),
    ("clcr", "cler", (("c", "e"),)),
    ("modern", "modem", (("rn", "m"),)),
    ("suppl.", "supp!", (("l.", "!"),)),
    ("infection", "1nfection", (("i", "1"),)),
    ("s.h.", "$.h.", (("s", "$"),)),  # an initial in a reference list
    ("§", "$", (("§", "$"),)),  # a statute's section sign
    ("§§", "$$", (("§", "$"), ("§", "$"))),
    ("bcrabl1", "bcrabli", (("1", "i"),)),  # a gene's name on a scanned guideline
])
def test_look_alike_letters_are_named(printed: str, read: str,
                                      pairs: tuple[tuple[str, str], ...]) -> None:
    assert misread_pairs(printed, read) == pairs


@pytest.mark.parametrize(("printed", "read"), [
    ("15", "16"),  # a digit is never a misread
    ("s149", "5149"),  # nor a figure that holds a letter
    ("11a", "iia"),  # nor one that holds one letter ("Class 11a" for "Class IIa")
    ("abl2", "abli"),  # an identifier's other digit is no look-alike
    ("cat", "dog"),  # nor another word
    ("medicine", "rneaicinc"),  # three look-alikes in eight letters: too many for one word
    (",", "."),  # punctuation alone is no word misread
    ("i", "1"),  # a figure OCR read is a figure, but for a letter inside a word
    ("§", "8"),  # "8 44." for "§ 44.": alone a figure (before its number, see below)
    ("§", "€"),  # a section sign is no currency
    ("[a]mprovement", "lilmprovement"),  # brackets read as l, but a letter changed inside
])
def test_no_other_difference_is_a_misread(printed: str, read: str) -> None:
    assert misread_pairs(printed, read) is None


# A Danish act's page as Tesseract read it: every section sign read "$".
DANISH = ("Stk. 4. Kommunalbestyrelsen kan på baggrund af en undersøgelse efter $ 26 med "
          "samtykke fra de kommende forældre træffe en afgørelse efter stk. 1. I sager om "
          "anbringelse uden for hjemmet, jf. $$ 46 og 47, skal ungeplanen tillige angive.")


@pytest.mark.parametrize("quote", [
    "Kommunalbestyrelsen kan på baggrund af en undersøgelse efter § 26 med samtykke",
    "I sager om anbringelse uden for hjemmet, jf. §§ 46 og 47, skal ungeplanen",
])
def test_a_section_sign_ocr_read_as_a_dollar_is_a_misread(quote: str) -> None:
    citation = cite(quote, text=DANISH)
    assert citation.outcome == "verified-fuzzy", citation.message
    assert "“$” for “§”" in citation.message


# A German statute's page as Tesseract read it: the section sign read "8".
GERMAN = ("(3) Abweichend von Absatz 2 Satz 1 ist bei Personen, die das 25. Lebensjahr noch "
          "nicht vollendet haben und ohne Zusicherung des Trägers nach 8 22 Absatz 5 "
          "umziehen, der Regelbedarf nach 88 20 und 21 anzuerkennen. Es gelten 8 Wochen.")


@pytest.mark.parametrize(("quote", "outcome"), [
    ("ohne Zusicherung des Trägers nach § 22 Absatz 5 umziehen", "verified-fuzzy"),
    ("umziehen, der Regelbedarf nach §§ 20 und 21 anzuerkennen", "verified-fuzzy"),
    # Another section's number, or a sign for a figure that counts: changes.
    ("ohne Zusicherung des Trägers nach § 23 Absatz 5 umziehen", "quote-altered"),
    ("anzuerkennen. Es gelten § Wochen.", "quote-altered"),
])
def test_a_section_sign_ocr_read_as_an_eight_before_its_number_is_a_misread(
        quote: str, outcome: str) -> None:
    citation = cite(quote, text=GERMAN)
    assert citation.outcome == outcome, citation.message
    if outcome == "verified-fuzzy":
        assert "“8” for “§”" in citation.message


@pytest.mark.parametrize(("quote", "ocr"), [
    # The section's number changed beside the misread sign.
    ("Kommunalbestyrelsen kan på baggrund af en undersøgelse efter § 27 med samtykke",
     ((0, len(DANISH)),)),
    # Born digital, "$ 26" is what the page says: "§ 26" changes it.
    ("Kommunalbestyrelsen kan på baggrund af en undersøgelse efter § 26 med samtykke", ()),
])
def test_a_section_sign_for_a_dollar_otherwise_is_still_a_change(
        quote: str, ocr: tuple[tuple[int, int], ...]) -> None:
    citation = cite(quote, text=DANISH, ocr=ocr)
    assert citation.outcome == "quote-altered", citation.message


# A Spanish statute's page as Tesseract read it: each ordinal "1.ª" read "1.2".
SPANISH = ("cuando concurra alguna de las siguientes circunstancias:\n\n1.2 La atención de las "
           "responsabilidades familiares enunciadas en el artículo 37.6.\n2.2 Necesidades "
           "formativas, siempre que se acredite la incompatibilidad horaria. Se abonará el 1.2 "
           "por ciento.")


@pytest.mark.parametrize(("quote", "outcome"), [
    ("1.ª La atención de las responsabilidades familiares enunciadas en el artículo 37.6. "
     "2.ª Necesidades formativas", "verified-fuzzy"),
    ("2.º Necesidades formativas, siempre que se acredite", "verified-fuzzy"),
    # Another number before the indicator, a decimal for a decimal, or an
    # indicator where the page prints a figure: changes.
    ("1.ª La atención de las responsabilidades familiares enunciadas en el artículo 37.6. "
     "3.ª Necesidades formativas", "quote-altered"),
    ("la incompatibilidad horaria. Se abonará el 1.3 por ciento.", "quote-altered"),
    ("la incompatibilidad horaria. Se abonará el 1.a por ciento.", "quote-altered"),
])
def test_an_ordinal_indicator_ocr_read_as_a_digit_after_its_number_is_a_misread(
        quote: str, outcome: str) -> None:
    citation = cite(quote, text=SPANISH)
    assert citation.outcome == outcome, citation.message
    if outcome == "verified-fuzzy":
        assert "“2” for “ª”" in citation.message or "“2” for “º”" in citation.message


# A scanned dosing card's reference as Tesseract read it: the drug's code
# set wide, "TAS-102" read "TAS-1 02".
REFERENCE = ("4. Mayer RJ, Van Cutsem E, Falcone A, et al. Randomized trial of TAS-1 02 for "
             "refractory metastatic colorectal cancer. Tablets of 15\n20 mg each.")


@pytest.mark.parametrize(("quote", "outcome"), [
    ("Randomized trial of TAS-102 for refractory metastatic colorectal cancer",
     "verified-fuzzy"),
    # A digit changed, left out or added beside the split: a changed figure.
    ("Randomized trial of TAS-103 for refractory metastatic colorectal cancer",
     "quote-altered"),
    ("Randomized trial of TAS-12 for refractory metastatic colorectal cancer", "quote-altered"),
    ("Randomized trial of TAS-1020 for refractory metastatic colorectal cancer",
     "quote-altered"),
    # Two figures on two lines are no split figure.
    ("metastatic colorectal cancer. Tablets of 1520 mg each.", "quote-altered"),
])
def test_a_figure_ocr_split_with_a_space_is_a_misread(quote: str, outcome: str) -> None:
    citation = cite(quote, text=REFERENCE)
    assert citation.outcome == outcome, citation.message
    if outcome == "verified-fuzzy":
        assert "“1 02” read for “102” (a space read inside it)" in citation.message


def test_a_split_figure_in_a_text_layer_is_two_figures() -> None:
    citation = cite("Randomized trial of TAS-102 for refractory metastatic colorectal cancer",
                    text=REFERENCE, ocr=())
    assert citation.outcome == "quote-altered", citation.message
