"""The demo: four PDFs the project generates (one a scanned letter, read by
OCR), and answers that exercise every outcome (paraphrased citations and their
likely passages too), so a newcomer sees the whole product in a minute.

The PDFs are typeset here with PyMuPDF: running headers and page numbers,
words hyphenated at line ends, a two-column contract with footnotes, and a
sentence that runs across a page break.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pymupdf

FONT = 10.5
DEMO_DATE = "D:20260101000000Z"
LEADING = 14.5


def _wrap(text: str, width: float, *, size: float = FONT) -> list[str]:
    lines: list[str] = []
    current = ""
    for word in text.split():
        candidate = f"{current} {word}".strip()
        if current and pymupdf.get_text_length(candidate, fontsize=size) > width:
            lines.append(current)
            current = word
        else:
            current = candidate
    if current:
        lines.append(current)
    return lines


def _hyphenate(lines: list[str], line: int, word: str, split: int) -> list[str]:
    """Break ``word`` across lines ``line`` and ``line + 1`` as a typesetter
    would: "ser-" at the end of one line, "vice" at the start of the next."""
    lines = list(lines)
    if word in lines[line + 1].split()[:1]:
        rest = lines[line + 1][len(word):].lstrip()
        lines[line] = f"{lines[line]} {word[:split]}-"
        lines[line + 1] = f"{word[split:]} {rest}".strip()
    return lines


@dataclass
class _Page:
    page: pymupdf.Page
    y: float


class _Typesetter:
    """Lays paragraphs on pages with a running header, footer and page number."""

    def __init__(self, header: str, footer: str, *, columns: int = 1) -> None:
        self.doc = pymupdf.open()
        self.header, self.footer, self.columns = header, footer, columns
        self.width = 595.0
        self.height = 842.0
        self.margin = 60.0
        self.gutter = 24.0
        self.column = 0
        self.current: _Page | None = None

    @property
    def column_width(self) -> float:
        usable = self.width - 2 * self.margin
        return (usable - self.gutter * (self.columns - 1)) / self.columns

    def _new_page(self) -> _Page:
        page = self.doc.new_page(width=self.width, height=self.height)
        page.insert_text((self.margin, 40), self.header, fontsize=8.5, color=(0.35, 0.35, 0.35))
        self.current = _Page(page, 90.0)
        self.column = 0
        return self.current

    def _x(self) -> float:
        return self.margin + self.column * (self.column_width + self.gutter)

    def _advance(self) -> _Page:
        current = self.current or self._new_page()
        if current.y > self.height - 110:
            if self.column + 1 < self.columns:
                self.column += 1
                current.y = self._column_top
            else:
                current = self._new_page()
        return current

    _column_top = 90.0

    def title(self, text: str, size: float = 17) -> None:
        current = self.current or self._new_page()
        current.page.insert_text((self.margin, current.y), text, fontsize=size)
        current.y += size * 1.8
        self._column_top = current.y

    def paragraph(self, text: str, *, hyphenate: tuple[int, str, int] | None = None,
                  bold: bool = False) -> None:
        lines = _wrap(text, self.column_width)
        if hyphenate is not None and hyphenate[0] + 1 < len(lines):
            lines = _hyphenate(lines, *hyphenate)
        for line in lines:
            current = self._advance()
            current.page.insert_text((self._x(), current.y), line, fontsize=FONT,
                                     fontname="hebo" if bold else "helv")
            current.y += LEADING
        current = self._advance()
        current.y += LEADING * 0.6

    def footnote(self, number: int, text: str) -> None:
        current = self.current or self._new_page()
        y = self.height - 95 + 11 * (number - 1)
        current.page.insert_text((self.margin, y), f"{number} {text}", fontsize=7.5)

    def finish(self) -> bytes:
        total = self.doc.page_count
        for index, page in enumerate(self.doc, start=1):
            page.insert_text((self.margin, self.height - 40), self.footer, fontsize=8.5,
                             color=(0.35, 0.35, 0.35))
            page.insert_text((self.width - self.margin - 50, self.height - 40),
                             f"Page {index} of {total}", fontsize=8.5)
        # Fixed dates and no fresh file id: the same demo is the same bytes on
        # every run, so loading it again finds the documents it stored before.
        self.doc.set_metadata({"creator": "citeguard demo", "producer": "citeguard demo",
                               "creationDate": DEMO_DATE, "modDate": DEMO_DATE})
        data = self.doc.tobytes(garbage=3, deflate=True, no_new_id=True)
        self.doc.close()
        return bytes(data)


BENEFITS = [
    ("Section 1. Eligibility", "Employees become eligible for the retirement plan on the first "
     "day of the month after 30 days of service. Part-time employees who work at least 20 "
     "hours a week are eligible on the same terms as full-time employees."),
    ("Section 2. Retirement savings", "The employer matches 100% of the first 4% of salary "
     "that you contribute, and 50% of the next 2%. Employer match vests after two years of "
     "service. Your own contributions are always fully vested and cannot be forfeited."),
    ("Section 3. Health cover", "The plan covers hospital stays of up to 30 days a year at no "
     "cost to you. Dental cover is not included for dependants over 18. The annual deductible "
     "is $500 per person and $1,000 per family."),
    ("Section 4. Leave", "Full-time employees accrue 25 days of paid leave a year. Up to five "
     "unused days may be carried over into the next calendar year; any further unused days "
     "are forfeited on 31 December."),
    ("Section 5. Changes to the plan", "The company may amend this plan with 60 days' written "
     "notice. Amendments never reduce benefits that have already vested. Questions about this "
     "summary should be sent to the benefits office, which replies within ten working days."),
]

GUIDELINE = [
    ("1. Diagnosis", "Offer ambulatory blood pressure monitoring to confirm a diagnosis of "
     "hypertension when clinic blood pressure is 140/90 mmHg or higher. Do not start "
     "treatment on the basis of a single clinic reading."),
    ("2. Treatment thresholds", "Offer antihypertensive drug treatment to adults under 80 with "
     "stage 1 hypertension who have target organ damage or a 10-year cardiovascular risk of "
     "10% or more. Offer drug treatment to all adults with stage 2 hypertension."),
    ("3. Monitoring", "Review patients with stage 1 hypertension every 12 months. Measure "
     "standing as well as seated blood pressure in people with type 2 diabetes or symptoms "
     "of postural hypotension."),
    ("4. Lifestyle", "Advise people to keep their sodium intake below 6 g of salt a day. Do "
     "not offer calcium, magnesium or potassium supplements as a method for reducing blood "
     "pressure."),
]

CONTRACT = [
    ("1. Term", "This agreement begins on 1 March 2026 and continues for an initial term of "
     "three years. It renews automatically for successive one-year terms unless either party "
     "gives notice of non-renewal at least 90 days before the end of the current term.1"),
    ("2. Fees", "The customer shall pay the annual fee of EUR 48,000 within 30 days of each "
     "invoice. Late payments bear interest at 1.5% per month. Fees are exclusive of value "
     "added tax, which the customer shall pay in addition."),
    ("3. Confidentiality", "Each party shall keep the other party's confidential information "
     "secret and shall not disclose it to any third party without prior written consent. "
     "These obligations survive termination for five years."),
    ("4. Liability", "Neither party's total liability under this agreement shall exceed the "
     "fees paid in the twelve months before the claim. Nothing in this agreement limits "
     "liability for death or personal injury caused by negligence.2"),
    ("5. Termination", "Either party may terminate this agreement with immediate effect if "
     "the other party commits a material breach and does not remedy it within 30 days of "
     "written notice. On termination the supplier shall return all customer data within "
     "60 days."),
    ("6. Governing law", "This agreement is governed by the laws of Ireland, and the courts of "
     "Dublin have exclusive jurisdiction over any dispute arising from it."),
]


def benefits_pdf() -> bytes:
    doc = _Typesetter("Acme Corporation · Benefits Plan Summary 2026",
                      "Summary of plan description — not a contract")
    doc.title("Benefits Plan Summary 2026")
    for index, (heading, body) in enumerate(BENEFITS):
        doc.paragraph(heading, bold=True)
        # "ser-\nvice" broken at a line end in the vesting paragraph.
        doc.paragraph(body, hyphenate=(1, "service.", 3) if index == 1 else None)
        if index == 2:  # push the rest to page 2: the leave section starts there
            assert doc.current is not None
            doc.current.y = doc.height - 140
    return doc.finish()


def guideline_pdf() -> bytes:
    doc = _Typesetter("Clinical guideline CG-204 · Adult hypertension · Version 3",
                      "For use by clinicians; review date March 2027")
    doc.title("Hypertension in adults: diagnosis and management")
    for heading, body in GUIDELINE:
        doc.paragraph(heading, bold=True)
        doc.paragraph(body, hyphenate=(0, "treatment", 5) if heading.startswith("2") else None)
    return doc.finish()


def contract_pdf() -> bytes:
    doc = _Typesetter("Master Services Agreement · Acme Corporation and Northwind Ltd",
                      "Confidential", columns=2)
    doc.title("Master Services Agreement", size=15)
    for heading, body in CONTRACT:
        doc.paragraph(heading, bold=True)
        doc.paragraph(body, hyphenate=(2, "written", 3) if heading.startswith("5") else None)
    doc.footnote(1, "Notice must be given in writing to the address in Schedule 1.")
    doc.footnote(2, "As required by the Civil Liability Act 1961.")
    return doc.finish()


#: A short letter from Northwind, printed, signed and scanned: the demo's one
#: page without a text layer, read by OCR on upload (plain sans-serif at 12 pt,
#: which Tesseract reads without a slip at the scan's 200 dpi).
NOTICE_LETTER = (
    "Northwind Ltd",
    "14 Harbour Road, Dublin 2",
    "",
    "To the Legal Department, Acme Corporation",
    "Re: Master Services Agreement",
    "",
    "We write to confirm two changes under the agreement.",
    "From 1 April 2026 all notices should be sent to our office in Cork.",
    "Invoices will be paid by bank transfer within 30 days of receipt.",
    "Please update your records accordingly.",
    "",
    "Yours faithfully,",
)
SCAN_DPI = 200


def notice_letter_original() -> pymupdf.Document:
    """The letter as it was typed: text, signed with a pen stroke. Its words'
    boxes say where the scan's words are (the browser tests check the
    viewer's tags against them)."""
    original = pymupdf.open()
    page = original.new_page(width=595, height=842)
    y = 110.0
    for line in NOTICE_LETTER:
        if line:
            page.insert_text((72, y), line, fontname="helv", fontsize=12)
        y += 26.0
    # The signature: a pen stroke under "Yours faithfully", then the name.
    shape = page.new_shape()
    shape.draw_bezier((76, y + 18), (100, y - 20), (120, y + 40), (150, y + 4))
    shape.draw_bezier((150, y + 4), (170, y - 14), (190, y + 28), (220, y + 10))
    shape.finish(color=(0.1, 0.1, 0.35), width=1.6)
    shape.commit()
    page.insert_text((72, y + 50), "Mary Byrne, Director", fontname="helv", fontsize=12)
    return original


def notice_letter_pdf() -> bytes:
    """:func:`notice_letter_original` rasterised in grey at :data:`SCAN_DPI`
    and the picture alone put on a page of a new PDF, as a scanner would make
    it. Rendering is deterministic, so the bytes are the same on every build."""
    original = notice_letter_original()
    picture = original[0].get_pixmap(dpi=SCAN_DPI, colorspace=pymupdf.csGRAY, alpha=False)
    original.close()
    scan = pymupdf.open()
    target = scan.new_page(width=595, height=842)
    target.insert_image(target.rect, pixmap=picture, keep_proportion=False)
    scan.set_metadata({"creator": "citeguard demo", "producer": "citeguard demo",
                       "creationDate": DEMO_DATE, "modDate": DEMO_DATE})
    data = scan.tobytes(garbage=3, deflate=True, no_new_id=True)
    scan.close()
    return bytes(data)


# document_key: title, builder. The key is the demo's stable name for each
# document; a changed builder uploads the next version under it.
DOCUMENTS = {
    "demo/benefits-plan-summary": ("Benefits Plan Summary 2026", benefits_pdf),
    "demo/cg-204-adult-hypertension": ("Clinical guideline CG-204: adult hypertension",
                                       guideline_pdf),
    "demo/msa-acme-northwind": ("Master Services Agreement (Acme–Northwind)", contract_pdf),
    "demo/northwind-notice-letter": ("Northwind letter: notices and invoices (scanned)",
                                     notice_letter_pdf),
}
#: The documents with no text layer, and the Tesseract language they are read
#: in: without it installed they cannot be ingested, so the demo leaves them
#: out, and the answers citing them.
SCANNED = {"demo/northwind-notice-letter": "eng"}

# Answers: each cites document sources by position in DOCUMENTS ("doc": 0..3).
ANSWERS = [
    {
        "id": "demo-benefits-vesting", "surface": "benefits-chat", "model": "demo-model-a",
        "question": "When does the employer match vest, and what does the employer match?",
        "sources": [("S1", 0), ("S2", 1)],
        "answer": (
            "Here is what your plan says about retirement savings.\n"
            'The employer "matches 100% of the first 4% of salary that you contribute, and 50% '
            'of the next 2%" [S1]. The plan says "Employer match vests after two years of '
            'service" [S1]. Your own contributions "are always fully vested" [S1]. For leave, '
            '"Up to five unused days may be carried over into the next calendar year" [S1].\n'
            "Let me know if you have other questions."
        ),
    },
    {
        "id": "demo-benefits-mixed", "surface": "benefits-chat", "model": "demo-model-b",
        "question": "What does the plan cover for health and leave?",
        "sources": [("S1", 0)],
        "answer": (
            'The plan "covers hospital stays of up to 30 days a year at no cost to you" [S1]. '
            'It states that "Dental cover is included for dependants over 18" [S1]. '
            'Unused leave: "Up to ten unused days may be carried over into the next calendar '
            'year" [S1]. Vision care is reimbursed in full [S4]. Gym membership is subsidised '
            "by 50%. The employer “matches 100% of the first 4% of salary that you "
            "contributes” [S1]."
        ),
    },
    {
        "id": "demo-clinical", "surface": "clinical-review", "model": "demo-model-a",
        "question": "When should drug treatment for hypertension start?",
        "sources": [("S1", 1), ("S2", 0)],
        "answer": (
            'The guideline says to "start treatment on the basis of a single clinic reading" '
            '[S1]. Drug treatment is offered "to all adults with stage 2 hypertension" [S1]. '
            'Ambulatory monitoring confirms a diagnosis "when clinic blood pressure is 140/90 '
            'mmHg or higher" [S2]. Patients with stage 1 hypertension are reviewed every 12 '
            "months [S1]. \"Advise people to keep their sodium intake below 6 g of salt a "
            'day" appears in the lifestyle section.'
        ),
    },
    {
        "id": "demo-contract", "surface": "legal-review", "model": "demo-model-b",
        "question": "What are the term, fees and liability cap of the Northwind agreement?",
        "sources": [("S1", 2)],
        "answer": (
            "## Summary of the agreement\n"
            'The agreement "begins on 1 March 2026 and continues for an initial term of three '
            'years" [S1]. It renews unless notice is given "at least 90 days before the end of '
            'the current term" [S1]. The customer pays "the annual fee of EUR 48,000 within 30 '
            'days of each invoice" [S1]. Liability is capped: "Neither party\'s total liability '
            'under this agreement shall exceed the fees paid in the twelve months before the '
            'claim" [S1]. The supplier must return data "within 60 days" of termination '
            "[S1]. Either party may terminate if a breach is not remedied \"within 30 days of "
            'written notice" [S1]. Either party may "assign this agreement to an affiliate '
            'without consent" [S1].'
        ),
    },
    {
        # Paraphrased, as most real answers are: no quotes, so each sentence
        # gets its likely passage; one changes a number (claim-mismatch) and
        # one cites a source that says nothing of it (claim-unsupported).
        "id": "demo-benefits-paraphrased", "surface": "benefits-chat", "model": "demo-model-a",
        "question": "Summarise my retirement and leave benefits and the deductible.",
        "sources": [("S1", 0)],
        "answer": (
            "In short:\n"
            "You can join the retirement plan on the first day of the month after 30 days of "
            "service [S1]. Up to five unused leave days can be carried into the next calendar "
            "year [S1]. The annual deductible is $800 per person [S1]. Members also get free "
            "parking and a gym pass [S1]."
        ),
    },
    {
        "id": "demo-hostile", "surface": "benefits-chat", "model": "demo-model-b",
        "question": "<b>Is</b> this <script>alert('x')</script> escaped?",
        "sources": [("S1", 0)],
        "answer": (
            "<script>alert('xss')</script> The plan <img src=x onerror=\"alert(1)\"> covers "
            'hospital stays: "The plan covers hospital stays of up to 30 days a year" [S1].'
        ),
    },
    {
        # Quotes the scanned letter: its text comes from OCR, and the review
        # page says so beside the highlight. Last, so the other answers keep
        # their ids with or without tesseract.
        "id": "demo-scanned-letter", "surface": "legal-review", "model": "demo-model-a",
        "question": "Where do notices to Northwind go now, and how are invoices paid?",
        "sources": [("S1", 3)],
        "answer": (
            'Northwind\'s letter says that "From 1 April 2026 all notices should be sent to '
            'our office in Cork" [S1]. Invoices "will be paid by bank transfer within 30 days '
            'of receipt" [S1].'
        ),
    },
]


def loadable(languages: tuple[str, ...]) -> tuple[list[int], list[dict[str, Any]]]:
    """What the demo can load where Tesseract reads ``languages``: the
    positions in DOCUMENTS of the documents it can ingest (a scanned one only
    when its language is installed), and the answers citing only those."""
    keys = list(DOCUMENTS)
    positions = [index for index, key in enumerate(keys)
                 if key not in SCANNED or SCANNED[key] in languages]
    answers = [spec for spec in ANSWERS
               if all(index in positions for _marker, index in spec["sources"])]
    return positions, answers


SURFACES = {
    "benefits-chat": {"policy": "strip", "min_coverage": 0.8,
                      "description": "Employee benefits assistant"},
    "clinical-review": {"policy": "escalate", "min_coverage": 1.0, "require_quotes": True,
                        "high_stakes": True,
                        "description": "Clinical decision support: failures go to a person"},
    "legal-review": {"policy": "flag", "min_coverage": 1.0,
                     "description": "Contract Q&A for the legal team"},
}
