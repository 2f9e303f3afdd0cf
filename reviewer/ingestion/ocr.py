"""OCR of pages that have no text layer, with a box for every character.

A page from which :mod:`~reviewer.ingestion.extract` reads no character, but
on which something is drawn (a scanned fax, a signed letter, a stamped order),
is rendered and read by Tesseract. Its text goes into the document like a
born-digital page's: blocks separated by a blank line, lines by ``"\\n"``,
words by a space, every character with its box in points on the page as
displayed (origin top-left), so chunking, matching, :func:`locate` and the
viewer's highlights need no other change. A page with a text layer is never
OCR'd; a blank page (nothing drawn) is not either.

One exception: a scan under a stamp. A gazette stamps every scanned page
with "recueil n°070 du 07/05/2025" and the page number, a court filing with a
Bates number: such a page has a text layer, but it is not the page's content.
A page is OCR'd as a stamped scan when all three hold
(:func:`is_stamped_scan`): its text layer has at most
:data:`STAMP_MAX_CHARS` characters, its glyphs cover at most
:data:`STAMP_MAX_TEXT_SHARE` of the page, and one picture covers at least
:data:`SCAN_IMAGE_SHARE` of it. The thresholds come from every page of the
corpus and of 20 PDFs from outside it (``bench/stamp_rule.py`` lists them):
the stamped gazette pages have 29 characters covering 0.2% of the page under
a picture covering 93%; the nearest pages that must not fire are an earlier
OCR layer on a full-page scan (375 characters covering 6.2%), slides with a
background photo (25 characters covering 5.4%, the photo 83% of the slide)
and a manual's form pages (about 80 characters covering 1.1%, a picture
covering 60%).
The pictures' boxes (MuPDF's drawing log, no rendering or decoding) are only
read for a page whose text passes the first two tests, so a text page pays
one length test.
The text layer's lines are kept exactly (text and boxes); the OCR words
lying on its glyphs are dropped (the stamp is not read twice); its blocks go
among Tesseract's blocks by position, top to bottom.

Why the ``tesseract`` program and not PyMuPDF's ``get_textpage_ocr``: both run
the same engine and both give per-character boxes, but MuPDF's OCR text page
carries no confidence, and the review page must say how sure the OCR was.
One run of the program with ``hocr_char_boxes`` gives both in one pass: the
words' confidences (``x_wconf``) and the characters' boxes (``x_bboxes``),
in Tesseract's own paragraphs and lines. Those lines run straight across a
table's columns or a callout's margin, so they are cut at gaps wider than a
line height (as MuPDF cuts a text layer's, measured at a text layer's scale);
lines of two paragraphs on one baseline nearer than that are one line again
(Tesseract reads an unruled list as columns), a paragraph is cut where
another's line stands between two of its lines, and small raised glyphs
after a word are read again enlarged (a footnote marker, written in
superscript digits, found by its ink where Tesseract boxed it the line's
full height; a gene's variant, "KRAS" and a raised "G12C", also
inside a compound before its hyphen), and so are lowered glyphs closing a word (a
subscript: "T" and "half", "C" and "max"), and in a word read unsure a
sign with no ink of its own, a glyph read twice, is dropped. The page is
then ordered and
written by the text layer's own steps (:func:`~reviewer.ingestion.extract.order_page`,
:func:`~reviewer.ingestion.extract.write_blocks`): a scanned table reads by
rows and cells, with the ruling lines found in the scan's pixels.
A scan fed in turned (a fax sent sideways, a letter upside down) is read
turned upright. Read as it lies, such a page says so: upside down or turned
a quarter one way it reads as nonsense (mean word confidence about 35 where
an upright page has 80 to 95), turned a quarter the other way Tesseract reads
it as vertical text whose characters have no boxes. Only then
(:func:`_may_be_turned`) is Tesseract's orientation detection run
(``--psm 0`` with the ``osd`` data, about a second: too dear for every
page); when it answers that the page is turned, the page is rendered
turned upright and read again, and that reading is kept when it reads
better (:func:`_reads_better`: clearly more confident, or with boxes where
the first had none). The layout
steps run on the upright page; every box is then turned back onto the page
as displayed, so highlights land where the words are printed. A detection
that fails (too few characters, no ``osd`` data) leaves the page as it lies.
A separate process can also be killed at a deadline (the subprocess timeout
is the time left), where an OCR call inside MuPDF could only be stopped by
killing the whole sandbox child.

Limits. The program runs inside the ingestion sandbox's child
(:mod:`~reviewer.ingestion.sandbox`): it inherits the child's address-space
limit (``RLIMIT_AS``), dies with the child (``PR_SET_PDEATHSIG``), runs one
thread (``OMP_THREAD_LIMIT=1``), and each page it reads adds
:attr:`OcrOptions.seconds_per_page` to the document's time limit (OCR takes
seconds a page where reading a text layer takes milliseconds); a run past the
limit fails with a sentence naming the page and the limit. At most
:attr:`OcrOptions.max_pages` pages of a document are OCR'd. Pages are
rendered at :attr:`OcrOptions.dpi` (300), or lower for a page so large that
its picture would pass :data:`MAX_PIXELS`.

No Django here.
"""

from __future__ import annotations

import ctypes
import functools
import os
import re
import signal
import subprocess
import tempfile
import time
import unicodedata
import xml.etree.ElementTree as ElementTree
from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import combinations, pairwise
from typing import Any

import pymupdf

from reviewer.ingestion.geometry import PageInfo, TextLines
from reviewer.ingestion.layout import (
    JOIN_GAP_LINES,
    MARKED_BY,
    SUBSCRIPT_DIGITS,
    SUPERSCRIPT_DIGITS,
    Line,
)
from reviewer.ingestion.tables import RULE_THICKNESS, Rule, Rules

__all__ = [
    "DEFAULT_TESSDATA",
    "MAX_PIXELS",
    "SCAN_IMAGE_SHARE",
    "STAMP_MAX_CHARS",
    "STAMP_MAX_TEXT_SHARE",
    "OcrOptions",
    "OcrPage",
    "OcrReport",
    "installed_languages",
    "is_stamped_scan",
    "language_problem",
    "ocr_page",
]

#: Where Debian's ``tesseract-ocr-*`` packages put the language data.
DEFAULT_TESSDATA = "/usr/share/tesseract-ocr/5/tessdata"
#: A page's picture is never larger than this many pixels (a letter page at
#: 300 dpi is 8.4 million): a poster-sized page is rendered at a lower dpi.
MAX_PIXELS = 40_000_000
#: A page with a text layer is still OCR'd when it is a scan under a stamp:
#: its text is at most this many characters (the gazette's stamp is 29, an
#: earlier OCR layer on the sparsest scanned page measured holds 375) ...
STAMP_MAX_CHARS = 100
#: ... its glyphs' boxes cover at most this share of the page (the stamp
#: 0.2%, a Bates number about as much; that OCR layer 6.2%, a slide's title
#: over a photo 5.4%, a "Questions?" set at 36 pt across a slide about 1.5%) ...
STAMP_MAX_TEXT_SHARE = 0.01
#: ... and one picture covers at least this share of the page (the gazette's
#: scans 93%; the slides' background photos at most 83%, the manual's 60%).
SCAN_IMAGE_SHARE = 0.9
# What MuPDF's drawing log calls a picture (a stencil mask is how some
# bilevel scans are drawn).
_PICTURE = frozenset({"fill-image", "fill-imgmask"})
# An OCR word is the text layer's (a stamp read again) when at least this
# share of its box lies on the text layer's glyphs.
_ON_TEXT_LAYER = 0.5
# A page is checked for anything drawn on a picture this coarse first.
_BLANK_CHECK_DPI = 24
_LANGUAGE = re.compile(r"^[A-Za-z_]+(\+[A-Za-z_]+)*$")
_PR_SET_PDEATHSIG = 1
# What the program (or the loader starting it) says when an allocation failed.
_OUT_OF_MEMORY = re.compile(r"bad_alloc|cannot allocate|out of memory|failed to map", re.I)
_HOCR = "{http://www.w3.org/1999/xhtml}"
_BBOX = re.compile(r"bbox (-?\d+) (-?\d+) (-?\d+) (-?\d+)")
_CHAR_BOX = re.compile(r"x_bboxes (-?\d+) (-?\d+) (-?\d+) (-?\d+)")
_LINE_SIZE = re.compile(r"x_size (\d+(?:\.\d+)?)")
# Inked pixels (darker than this grey) in the scan's picture; a ruling line
# on a scan is at least this long (points, across and down: longer than a
# glyph's stroke) and at most as thick as a drawn rule; past this many runs
# of ink the area is a picture and no rules are looked for.
_INK = bytes(1 if value < 160 else 0 for value in range(256))
_PICTURE_RULE_MIN = (24.0, 12.0)
# A heavier border (a word processor's 2 1/4 to 4 1/2 pt lines, a filled
# rectangle a text layer takes by its edges) is a rule too where it is long
# for its thickness, as a glyph's stem (a bold headline's "I") is not.
_PICTURE_HEAVY_RULE = 4.5
_PICTURE_HEAVY_LENGTH = 10.0
_MAX_INK_RUNS = 20_000
# What Tesseract makes of a vertical rule it takes for a letter.
_RULE_READ = re.compile(r"^[|\[\]!Il1]$")
# A rule read glued to a word's end or start ("systemically]", "anti-}"):
# only marks no word ends or starts with in a cell's text by a rule.
_RULE_GLUED = frozenset("|[]{}")
# Points between such a glyph's box and the rule's middle (Tesseract's box
# may stop short of a heavy rule's ink).
_RULE_GLUED_REACH = 4.0
# A rule read as a bracket runs on past its line's box by more than this
# many points (a cell's padding, or the next row); a bracket printed as one
# does not (see _on_rule).
_BRACKETS = frozenset("[]{}")
_RULE_PAST_LINE = 1.5
# A gap between two words this many line heights wide may hold a rule: a
# word space is narrower even on a justified line of a table's cell.
_RULE_GAP_LINES = 0.5
_WORD_CONFIDENCE = re.compile(r"x_wconf (\d+(?:\.\d+)?)")
_BASELINE = re.compile(r"baseline (-?\d+(?:\.\d+)?) (-?\d+(?:\.\d+)?)")
# A footnote marker: its glyphs' bottoms at least this share of the line's
# size (Tesseract's x_size) above the baseline, each at most this share of it
# tall; after a letter, or punctuation after one (layout's MARKED_BY). Read again enlarged this
# many times, it is kept when it reads as digits, a list or a range of them.
_MARKER_RISE = 0.25
_MARKER_SIZE = 0.7
# ... and together at least this share of it tall: a digit set small is
# about half the line's size, a closing quote mark or an apostrophe a quarter
# (read again enlarged, "harmless.”" would read "harmless.²⁹").
_MARKER_MIN_SIZE = 0.4
# Where Tesseract gives the line's descenders, the share is of the line's
# size above them, the height a digit at the line's size stands: the size
# counts a descender's depth too, a quarter of it on AFP's Minion (42 pixels
# and 11 of descender at 300 dpi), where a marker "8" set at 0.58 of the
# text stands 15 pixels, 0.36 of the size, and was read as a quote mark. A
# quote mark measured 0.27 of the size, 0.36 of the height above the
# descenders.
_MARKER_MIN_BODY = 0.45
# A marker read as a word of its own is this many characters at most ("!3",
# "*12)").
_APART_MARKER_CHARACTERS = 4
# The word before such a marker closes on a letter, or on punctuation a
# marker follows (layout's MARKED_BY).
_MARKS_AFTER = re.compile(r"(?:[^\W\d_]|[^\W\d_][.,;:)\]\"'\u2019\u201d])\Z")
_DESCENDERS = re.compile(r"x_descenders (\d+(?:\.\d+)?)")
_MARKER_ZOOM = 3
# Tesseract reads no picture wider or taller than 32,767 pixels ("Image too
# large"): the enlarged markers go into as many pictures as it takes.
_MAX_PICTURE_SIDE = 32_000
_MARKER_READ = re.compile(r"[0-9]{1,3}(?:[,\u2013-][0-9]{1,3}){0,5}")
# Small raised glyphs inside a word, between a letter and the hyphen of its
# compound's rest, are no footnote marker but part of the word: a gene's
# variant set raised ("KRAS" and a raised "G12C" before "-mutated"), which
# Tesseract reads as quote marks and degree signs at its size
# ("KRAS\u201c'*\u00b0-mutated"). Read again enlarged, letters and digits are
# written into the word as a text layer has them ("KRASG12C-mutated"); digits
# alone as superscript digits, as a marker's. Closing a word, a run read as
# such a variant (a capital, digits, a capital: "G12C", "V600E", "T790M") is
# one too; a footnote marker is digits, and reads as none.
# Such a run is at least _RAISED_INSIDE_MIN_SIZE of the line's size tall
# (a quote mark measured 0.27 of it; Tesseract's size for a line with a
# descender can be a third too large, and "G12C" then measures 0.38 of it):
# what the run reads enlarged decides, and a quote mark reads as none.
_RAISED_WORD_READ = re.compile(r"[0-9A-Za-z]{1,8}")
# A footnote marker after a closing quote mark ("marriage,\u201d\u00b9\u2074\u2074"):
# the quote mark is raised as the marker is, so the run Tesseract read as
# the quote mark and more holds both, and read again enlarged the quote
# mark reads as digits ("99148", the shape a closing quote is named for).
# Where Tesseract read the run's first glyph as a closing quote mark, the
# run is also read again without its strokes (one ink group each, this
# many): what follows, read as a marker, is one. Where the quotation
# before a run Tesseract read as a closing double quote mark is open, the
# run is that quote mark and what follows its strokes: enlarged, the quote
# mark reads as digits too (a brief's "[i]mprovement”" had become
# "lilmprovement⁹³"), as a two-digit marker Tesseract read as a quote mark
# does ("¹¹" read "”").
_CLOSING_QUOTE_STROKES = {"\u201d": 2, '"': 2, "\u2019": 1, "'": 1}
_RAISED_INSIDE_MIN_SIZE = 0.3
# A marker "1" alone, read again enlarged, reads as a stroke with nothing
# beside it to tell it by ("effect.¹" reads "|", "I" or "l" at one zoom or
# another, "]" in grey, "J" with its flag): where the run's ink is one
# group of columns at most this share of its height wide, one column of it
# inked over most of that height (the stem), it is the digit. The run is
# as tall as a digit set small already (an apostrophe is not).
_ONE_STROKE_READS = frozenset("|IlJ[]")
_ONE_STROKE_WIDTH = 0.6
_ONE_STROKE_STEM = 0.8
# A marker's first digits Tesseract boxed with the stop before them
# (:func:`_raised_past_stop`) stand as high as the run's glyphs, within
# this share of the line's size; its digits stand at most this share of
# it apart (a word space is a quarter of it and more).
_RAISED_PAST_STOP_REACH = 0.15
_RAISED_PAST_STOP_GAP = 0.15
_STOPS = ".,;:"
_VARIANT_READ = re.compile(r"[A-Z][0-9]{1,4}[A-Z]")
_HYPHENS = "-\u2010\u2011"
# A subscript closing a word ("T" and a lowered "half", "C" and "max",
# "AUC" and "0-24"), which Tesseract reads as punctuation at its size
# ("T),,1¢", "C,,,,"). Only a word read with a confidence below this is
# looked at (those misreadings read 0 to 71), and the ink decides
# (_lowered_run): a closing run of columns none of whose ink crosses the
# height _LOWERED_TOP of the line's size above the baseline (every letter at
# the line's size does, from the x-height, about half the size, down),
# some of it at least _LOWERED_DROP of the size below the baseline, after a
# glyph that crosses; together at least _LOWERED_MIN_SIZE of the size tall,
# or a quarter of it tall and three tenths wide ("max": a comma is
# narrower and shorter). It is read again enlarged, as markers are; read as
# letters and digits, it replaces Tesseract's characters over it, glued to
# the symbol as a text layer writes it (one or two digits as subscript
# digits, as layout writes a text layer's lowered ones).
_SUBSCRIPT_CONFIDENCE = 80.0
_LOWERED_DROP = 0.12
_LOWERED_TOP = 0.42
_LOWERED_MIN_SIZE = 0.4
_SUBSCRIPT_READ = re.compile(r"[0-9A-Za-z]{1,8}(?:[-\u2013/.,][0-9A-Za-z]{1,8}){0,2}")
# Ink (1) as black on white paper, for the enlarged picture of markers.
_PAPER = bytes([255, 0] + [255] * 254)
# Two OCR'd words (or lines) farther apart than layout's join gap (line
# heights) stand across a gutter; nearer, they are words of one line. After
# a code or a number (no letter: "810001  Virginia Beach", "3.  Department"),
# up to this many: a text layer measures the gap on a taller line (a font's
# ascent to descent, about 1.2 times Tesseract's line size for the same
# print) and between glyphs' advances (an OCR box holds ink only), and
# MuPDF keeps such a label's tab on its line. After words the join gap
# holds: two columns of prose a narrow gutter apart are not one line, nor
# are the words of a justified line spaced wide.
_LABEL_GAP_LINES = 1.2 * JOIN_GAP_LINES
# A page read as it lies is asked whether it is turned (Tesseract's
# orientation detection, a second of a run) only when its words' mean
# confidence is below this (an upright page of print reads 80 to 95, one
# upside down about 35), or at least this share of its characters have a
# box with no width or no height (see _reading).
_TURNED_CONFIDENCE = 60.0
_TURNED_FLAT_SHARE = 0.5
# The detection's answer is taken from this confidence up (a map printed
# sideways in the corpus, rightly, at 3.7; upright pages never answered
# other than 0): the turned reading must then prove itself, by a mean
# confidence at least this much above the reading as it lies (nonsense to
# words: +25 to +60), or, where that reading had no boxes, by having them.
_OSD_MIN_CONFIDENCE = 2.0
_TURNED_BETTER_BY = 10.0
_OSD_ROTATE = re.compile(rb"^Rotate: (\d+)", re.M)
_OSD_CONFIDENCE = re.compile(rb"^Orientation confidence: (\d+(?:\.\d+)?)", re.M)
# A word Tesseract is this unsure of (x_wconf) may hold a glyph read twice:
# its LSTM sometimes reads one glyph as two characters, the second's box
# over the first's and past it onto blank paper ("§§$" for "§§", the "$" a
# second reading of the second "§"). Such a character, one holding no ink
# of its own right of the character before it, is dropped when it is a
# sign (currency, mathematical or other symbol: Unicode's S categories).
# Letters, digits and punctuation are kept (punctuation but for slivers,
# below): in unsure words (a dotted
# leader's line, a table cell) Tesseract's boxes often overreach onto the
# next glyph, and on the corpus and four outside batches such a box would
# have dropped the "i" of "Milk", the "5" of "S52" and the full stops of
# leaders, where every sign it dropped was one read over another glyph.
_SECOND_READING_CONFIDENCE = 50.0
_SIGN_CATEGORIES = frozenset({"Sc", "Sm", "Sk", "So"})
# Punctuation is dropped only when Tesseract boxed it a sliver (pixels wide,
# at 300 dpi) inside the glyph before it: a guideline scan's "CML-BC.”*””",
# four marks boxed one pixel wide on the full stop's right edge, are the
# marker beside it (read in a paragraph of its own) read again. A printed
# mark, a leader's dot included, is wider than this.
_SLIVER = 2
# Marks Tesseract reads off blank paper: in a gutter between two columns
# ("130/80 __ includes", "correspond- _ pressure": a word of underscores
# bridging the gutter, so the line is not cut there) or over a glyph's edge
# ("_farction,", the "_" inside the "f"'s columns). A word of such marks
# with no ink in its box, or one opening or closing a word with no ink
# in its own columns (outside its neighbour's), is not printed. Only
# connectors, dashes and signs: a full stop's box may lie within an italic
# letter's.
_PHANTOM_CATEGORIES = frozenset({"Pc", "Pd"}) | _SIGN_CATEGORIES
# A box with no ink whose ring of pixels around it is inked over this share
# is no blank paper: a light glyph on a dark ground (white letters on a
# shaded table head, "well-" where the hyphen is the paper's colour).
_DARK_GROUND = 0.5
# Tesseract's angle (counter-clockwise) of a line it read sideways on an
# upright page: "Author Manuscript" printed down a journal manuscript's
# margin.
_TEXT_ANGLE = re.compile(r"textangle (\d+)")
_SIDEWAYS = frozenset({90, 270})
# A comparison sign printed with a bar under it ("age ≥ 80") that Tesseract
# read without it (">"): the bar is a run of ink rows under the chevron, a
# blank row or more between, each row inked across at least this share of
# the sign's width (a chevron's foot is a stroke's width), at most this
# share of its height tall, looked for down to this share of its height
# under its box (Tesseract's box may leave the bar out).
_BAR_WIDTH = 0.6
_BAR_HEIGHT = 0.3
_BAR_REACH = 0.5
_WITH_BAR = {">": "\u2265", "<": "\u2264"}
# A multiplication sign Tesseract read as a comparison sign (a paper's
# magnification "(×400)" read "(<400)", which says less than 400): the ink
# in the sign's box, taken to its inked extent, reaches both corners on both
# sides (each corner this share of the width wide and of the height tall)
# and leaves both sides' middles blank (this share of the height, centred),
# where a chevron's point stands on one side.
_CROSS = "\u00d7"
_CROSS_SIDE = 0.25
_CROSS_CORNER = 1 / 3
_CROSS_MIDDLE = 0.2
# Lines of one row: heights within this share of each other, bottoms within
# this share of a line height.
_SAME_SIZE = 0.2
_SAME_BASELINE = 0.25
# A word at a line's start more than this many times as tall as the line's
# other words (and Tesseract's size for the line), a line height or more
# before them and reaching a line height or more above them, is a line of
# its own: a step's numeral in a circle two lines tall beside its text,
# which Tesseract put in the second line ("amount⏎1 of each opioid"). The
# line's box, as tall as the numeral, overlaps the line above, and the
# numeral is read inside its step's text; a text layer has it as a line of
# its own. Where the numeral went into the first line it is read first, as
# printed, and stays. A drop cap stands a word space or less before its
# word's rest: it stays.
_TALL_START = 2.0
# A justified line of a narrow column spreads its words wide, wider than
# the join gap (a reference list: "Product   information   for   Embeda.
# King"), and Tesseract's line is then cut at each such space, or files the
# line's last word as a paragraph apart; a column's or a table's gutter
# looks the same on one line. The pieces of one baseline, each at most
# _JUSTIFIED_GAP_LINES line heights after the last, are one line again when
# the spaces are a justified line's: at least _JUSTIFIED_MIN_SPACES of
# them, the widest at most _JUSTIFIED_SPREAD times the narrowest (a
# stretched space, doubled after a full stop; a table's row has its cells'
# word spaces beside its gutters, three to ten times as wide), the line
# ending where another line of its column within _JUSTIFIED_REACH line
# heights ends (the column's right edge, within _JUSTIFIED_EDGE line
# heights), and the line above or below it showing no gutter under the
# wide spaces: a gutter runs blank down the lines, with ink on both sides;
# that line has ink over each wide space or none right of it (a
# paragraph's short last line).
_JUSTIFIED_GAP_LINES = 4.0
_JUSTIFIED_MIN_SPACES = 3
_JUSTIFIED_SPREAD = 2.2
_JUSTIFIED_EDGE = 0.3
_JUSTIFIED_REACH = 4.0
# A ruled grid's cell that holds ink but no word Tesseract read, in a column
# where Tesseract read a number in another cell, is read again enlarged (as
# markers are): Tesseract loses short numbers alone in a narrow cell ("1",
# "1.1" and "2" of a fee table's 16 pt "Nr." column, where it read "1.2"
# and "1.3"). Only a number so read is kept. _CELL_INSET: points kept off
# the cell's rules.
_CELL_NUMBER = re.compile(r"[0-9]{1,3}(?:[.,][0-9]{1,3}){0,3}\.?")
_CELL_INSET = 2.0
_CELL_TOLERANCE = 2.0
# A list's hanging number Tesseract reads as its full stop alone (". Product
# information", the "11" unread): a piece of a line that opens with a lone
# full stop, unread ink a glyph's gap or less left of it, is read again
# from that ink's left edge, enlarged; a number and its stop so read
# replace the stop. _LOST_NUMBER_GAP: the widest blank (line sizes) between
# the number's glyphs and before the stop; _LOST_NUMBER_WIDTH: how far left
# (line sizes) the number may reach.
_LOST_NUMBER_READ = re.compile(r"[0-9]{1,3}\.")
# A numbered paragraph's number Tesseract did not read at all, hung left of
# the paragraph's first line ("2." of "2. Share of agriculture ...", "b)"
# of a regulation's "b) Limit the collection ..."): ink within this many
# line heights left of the line, a gap of at least this share of one before
# the line, read again as a list's number or letter, closed by a stop or a
# bracket.
_HUNG_NUMBER_REACH = 3.0
_HUNG_NUMBER_GAP = 0.3
_HUNG_NUMBER_READ = re.compile(r"[(\[]?(?:[0-9]{1,3}|[a-zA-Z])[.)\]]")
_LOST_NUMBER_GAP = 0.5
_LOST_NUMBER_WIDTH = 2.0
# A list's label alone on its line ("(a)", "b)", "2.", "(iv)"), which
# Tesseract reads as a paragraph of its own when the labels hang left of
# their items (a regulation's "(a) Retain each collection ..."), read
# column first: it goes back to the start of the line it stands level
# with, at most this many line heights to its right.
_LIST_LABEL = re.compile(r"[(\[]?(?:[0-9]{1,3}|[a-zA-Z]|[ivxlc]{2,6}|[IVXLC]{2,6})[.)\]]")
_LIST_LABEL_REACH = 2.5


# An area of the page's picture to read again enlarged (pixels): x0, y0, x1,
# y1, and for a raised run the columns its ink may lie in (from, to): the
# margin around the area keeps the glyphs' beside it off the picture (read
# with it, the edge of the letter before is a "1" more, the top of the
# hyphen after a ".").
_Area = tuple[int, ...]
# A word as read from hOCR: its text, (x0, x1) pixels a character, its
# confidence, (y0, y1) pixels a character.
_Word = tuple[str, list[tuple[int, int]], float, list[tuple[int, int]]]
# A run of a line's characters to read again: start, end (in its text), the
# area, what it is ("marker", "inside", "number", "subscript", "stop": a
# marker Tesseract boxed with the stop before it and left unread) and the
# columns its ink may lie in (pixels) or None.
_Run = tuple[int, int, tuple[int, int, int, int], str, tuple[int, int] | None]


@dataclass(frozen=True, slots=True)
class OcrOptions:
    """How text-less pages are OCR'd (see the module's docstring)."""

    language: str = "eng"  # Tesseract's names, several joined by "+": "eng+fra"
    seconds_per_page: float = 30.0  # added to the document's time limit per OCR'd page
    max_pages: int = 200
    dpi: int = 300
    command: str = "tesseract"
    tessdata: str | None = None  # None: TESSDATA_PREFIX, else DEFAULT_TESSDATA


@dataclass(frozen=True, slots=True)
class OcrPage:
    """What OCR found on one page: words read and their mean confidence (0-100)."""

    number: int
    words: int
    confidence: float


@dataclass(frozen=True, slots=True)
class OcrReport:
    """The pages of a document that were OCR'd, and in which language."""

    language: str
    pages: tuple[OcrPage, ...]

    @property
    def words(self) -> int:
        return sum(page.words for page in self.pages)

    @property
    def confidence(self) -> float:
        """Mean word confidence over every OCR'd word (0-100; 0 with none)."""
        words = self.words
        if not words:
            return 0.0
        return sum(page.confidence * page.words for page in self.pages) / words


@dataclass(slots=True)
class _OcrText:
    """One OCR'd page's share of the document, as the geometry writer takes it."""

    info: PageInfo
    text: str
    boxes: array[float]
    inserted: list[int]
    margin_lines: list[tuple[int, int, float, float]]


@dataclass(slots=True)
class _Piece:
    """A block of a page's text before it is placed: its text, a box per
    character that is not inserted, which positions (from 0) are inserted
    separators, its margin lines (positions from 0), and its top."""

    top: float
    text: str
    boxes: list[float]
    inserted: list[int]
    margin_lines: list[tuple[int, int, float, float]]


def _tessdata(options: OcrOptions) -> str:
    return options.tessdata or os.environ.get("TESSDATA_PREFIX") or DEFAULT_TESSDATA


@functools.cache
def installed_languages(command: str = "tesseract", tessdata: str | None = None) -> tuple[str, ...]:
    """The languages Tesseract can read here, sorted (() when it is not
    installed). ``osd`` (script detection) is no language and is left out."""
    tessdata = tessdata or os.environ.get("TESSDATA_PREFIX") or DEFAULT_TESSDATA
    try:
        listed = subprocess.run(
            [command, "--list-langs"], capture_output=True, text=True, timeout=30,
            env={**os.environ, "TESSDATA_PREFIX": tessdata}, check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return ()
    if listed.returncode != 0:
        return ()
    names = [line.strip() for line in listed.stdout.splitlines()[1:]]
    return tuple(sorted(name for name in names if name and name != "osd"))


def language_problem(language: str, installed: tuple[str, ...]) -> str | None:
    """Why ``language`` cannot be used for OCR here, as a sentence; None when it can."""
    if not installed:
        return ("OCR is not available on this server (the tesseract program or its "
                "language data is not installed; bin/setup installs them).")
    choices = ", ".join(installed)
    if not _LANGUAGE.match(language):
        return (f"OCR language {language!r} is not a language name; choose from {choices} "
                "(several joined by +, e.g. eng+fra).")
    missing = [name for name in language.split("+") if name not in installed]
    if missing:
        names = ", ".join(repr(name) for name in missing)
        return (f"OCR language {names} is not installed here; choose from {choices} "
                "(several joined by +, e.g. eng+fra).")
    return None


# --------------------------------------------------------------------------


def has_drawing(page: pymupdf.Page) -> bool:
    """Something is drawn on the page (a picture, paths, an annotation):
    anything that darkens a pixel of a coarse rendering."""
    pixmap = page.get_pixmap(dpi=_BLANK_CHECK_DPI, colorspace=pymupdf.csGRAY, alpha=False)
    return not pixmap.is_unicolor or pixmap.pixel(0, 0)[0] < 255


def is_stamped_scan(page: pymupdf.Page, text: str, boxes: array[float]) -> bool:
    """The page is a scan under a stamp (see the module's docstring): a text
    layer of at most :data:`STAMP_MAX_CHARS` characters whose glyph boxes
    (``boxes``, 4 numbers a glyph) cover at most :data:`STAMP_MAX_TEXT_SHARE`
    of the page, over one picture covering :data:`SCAN_IMAGE_SHARE` of it.
    The pictures' boxes are read (no rendering) only when the text is that small."""
    if not text or len(text) > STAMP_MAX_CHARS:
        return False
    rect = page.rect
    area = rect.width * rect.height
    if area <= 0:
        return False
    glyphs = sum((boxes[k + 2] - boxes[k]) * (boxes[k + 3] - boxes[k + 1])
                 for k in range(0, len(boxes), 4))
    if glyphs > STAMP_MAX_TEXT_SHARE * area:
        return False
    # The drawing log's boxes, not get_image_info(): that one decodes the
    # pictures (180 ms on a prospectus page with 80 of them; the log 9 ms).
    # The log's boxes are on the unrotated page; rect is the page as displayed.
    displayed = page.rotation_matrix
    for kind, box in page.get_bboxlog():
        if kind in _PICTURE:
            covered = (pymupdf.Rect(box) * displayed) & rect
            if covered.width * covered.height >= SCAN_IMAGE_SHARE * area:
                return True
    return False


def ocr_page(
    page: pymupdf.Page, *, number: int, pages: int, offset: int, limits: Any,
    text_layer: Any = None,
) -> _OcrText | None:
    """OCR a page that yielded no text, or a scan under a stamp: its text
    and boxes starting at ``offset`` in the document, or None when it is not
    to be OCR'd (nothing drawn on it, or a text layer that is its content).

    ``text_layer`` is what the extractor read from the page (None or an
    empty text: none): when it is a stamp (:func:`is_stamped_scan`) its
    blocks are kept as they are, placed among the OCR'd blocks by position,
    and the OCR words lying on its glyphs are dropped.

    ``limits`` is the extractor's: its ``ocr`` options and ``ocr_pages``
    (this page's :class:`OcrPage` is appended), its deadline (extended by
    the options' ``seconds_per_page``), and its ``progress``, told
    ``(number, pages, True)`` before the program runs.
    """
    from reviewer.ingestion.extract import ExtractionError, order_page, write_blocks

    options: OcrOptions = limits.ocr
    stamp: list[_Piece] = []
    if text_layer is not None and text_layer.text:
        if not is_stamped_scan(page, text_layer.text, text_layer.boxes):
            return None
        stamp = _text_layer_pieces(text_layer, offset)
    elif not has_drawing(page):
        return None
    if len(limits.ocr_pages) >= options.max_pages:
        raise ExtractionError(
            "ocr-failed",
            f"This PDF has more than {options.max_pages} "
            f"page{'s' if options.max_pages != 1 else ''} without a text layer (the "
            f"limit for OCR; reached at page {number} of {pages}). Split it into smaller "
            "documents.")
    limits.deadline += options.seconds_per_page
    limits.max_seconds += options.seconds_per_page
    if limits.progress is not None:
        limits.progress(number, pages, True)
    rect = page.rect
    dpi = options.dpi
    pixels = (rect.width * dpi / 72) * (rect.height * dpi / 72)
    if pixels > MAX_PIXELS:
        dpi = int(dpi * (MAX_PIXELS / pixels) ** 0.5)
    need = "is a scan under a stamp" if stamp else "has no text layer"
    with tempfile.TemporaryDirectory(prefix="citeguard-ocr-") as folder:
        picture = os.path.join(folder, "page.png")
        # The scan's ruling lines, for tables read by rows: inked pixels
        # (one byte a pixel, 1 where dark), kept until the blocks are ordered.
        width, height, ink, grey, stride = _render(page, dpi, 0, picture)
        hocr = _run(options, picture, dpi, number=number, pages=pages, limits=limits, need=need)
        turn = 0
        if _may_be_turned(hocr):
            turn = _orientation(options, picture, dpi, number=number, pages=pages,
                                limits=limits)
        if turn:
            # Read again turned upright; kept when it reads better.
            turned = _render(page, dpi, turn, picture)
            turned_hocr = _run(options, picture, dpi, number=number, pages=pages,
                               limits=limits, need=need)
            if _reads_better(turned_hocr, hocr):
                width, height, ink, grey, stride = turned
                hocr = turned_hocr
            else:
                turn = 0
            del turned, turned_hocr
    # The picture is the page as displayed turned by ``turn`` degrees (the
    # page upright): everything below is in that upright frame, in points,
    # and the boxes are turned back to the page as displayed at the end.
    frame = _Frame(rect, turn)
    scale_x, scale_y = frame.width / width, frame.height / height
    stamp_boxes = [frame.upright(box) for piece in stamp for box in _quads(piece.boxes)]
    page_rules: list[Rules] = []

    def rules(area: tuple[float, float, float, float] = (0.0, 0.0, frame.width, frame.height)
              ) -> Rules:
        # The whole page's, read once: tables ask for them, and so does a
        # "|" that Tesseract read off a table's rule.
        if not page_rules:
            page_rules.append(_picture_rules(ink, stride, width, height, scale_x, scale_y,
                                             (0.0, 0.0, frame.width, frame.height)))
        return page_rules[0]

    def reread(areas: Sequence[_Area]) -> list[str]:
        return _reread_markers(ink, stride, areas, options, dpi, number=number, pages=pages,
                               limits=limits, shades=_PAPER)

    def reread_grey(areas: Sequence[_Area]) -> list[str]:
        return _reread_markers(grey, stride, areas, options, dpi, number=number, pages=pages,
                               limits=limits)

    def inked(x0: int, y0: int, x1: int, y1: int) -> bool:
        return any(1 in ink[y * stride + max(0, x0) : y * stride + min(x1, width)]
                   for y in range(max(0, y0), min(y1, height)))

    def columns(x0: int, x1: int, y0: int, y1: int) -> list[tuple[int, int] | None]:
        # Each column's inked rows (first, last) between y0 and y1; None if blank.
        x0, x1, y0, y1 = max(0, x0), min(x1, width), max(0, y0), min(y1, height)
        found: list[tuple[int, int] | None] = [None] * max(0, x1 - x0)
        for y in range(y0, y1):
            row = ink[y * stride + x0 : y * stride + x1]
            at = row.find(1)
            while at >= 0:
                first = found[at]
                found[at] = (y, y) if first is None else (first[0], y)
                at = row.find(1, at + 1)
        return found

    paragraphs, words, confidence = _read_hocr(hocr, scale_x, scale_y, stamp_boxes, rules,
                                               reread, inked, columns, reread_grey)
    paragraphs += _unread_numbers(paragraphs, rules(), ink, stride, scale_x, scale_y, reread)
    paragraphs = _apart_from_grids(paragraphs, rules())
    paragraphs = _labels_put_back(paragraphs)
    _unread_list_numbers(paragraphs, columns, scale_x, scale_y, reread)
    # The same reading order as a text layer's (columns, tables by rows,
    # callouts after their column), each block a piece for the stamp's merge.
    ocr_pieces = []
    for block in order_page(paragraphs, rules):
        block_text, block_boxes, block_inserted, block_margins = write_blocks(
            [block], 0, frame.height)
        ocr_pieces.append(_Piece(block.y0, block_text, frame.displayed(block_boxes.tolist()),
                                 block_inserted, block_margins))
    if turn:
        # A stamp goes among the blocks by where it stands on the upright page.
        for piece in stamp:
            piece.top = min((frame.upright(box)[1] for box in _quads(piece.boxes)),
                            default=0.0)
    text, boxes, inserted, margin_lines = _place(_by_position(ocr_pieces, stamp), offset)
    if turn:
        # The lines in the margin bands of the page as displayed, as
        # furniture finds them from the stored boxes.
        margin_lines = _margin_lines(text, boxes, inserted, offset, rect.height)
    limits.ocr_pages.append(OcrPage(number, words, confidence))
    media = page.mediabox
    crop = page.cropbox
    info = PageInfo(
        number=number, text_start=offset, text_end=offset + len(text),
        width=rect.width, height=rect.height, rotation=page.rotation,
        mediabox=(media.x0, media.y0, media.x1, media.y1),
        cropbox=(crop.x0, media.y1 - crop.y1, crop.x1, media.y1 - crop.y0),
    )
    packed: array[float] = array("f")
    packed.fromlist(boxes)
    return _OcrText(info, text, packed, inserted, margin_lines)


def _render(page: pymupdf.Page, dpi: int, turn: int, path: str
            ) -> tuple[int, int, bytes, bytes, int]:
    """The page as displayed, turned ``turn`` degrees clockwise, rendered in
    grey at ``dpi`` and saved to ``path``: its width and height in pixels,
    its ink (one byte a pixel, 1 where dark), its grey (one byte a pixel)
    and its stride."""
    if turn:
        matrix = pymupdf.Matrix(dpi / 72, dpi / 72).prerotate(turn)
        pixmap = page.get_pixmap(matrix=matrix, colorspace=pymupdf.csGRAY, alpha=False)
    else:
        pixmap = page.get_pixmap(dpi=dpi, colorspace=pymupdf.csGRAY, alpha=False)
    pixmap.save(path)
    samples = pixmap.samples
    return pixmap.width, pixmap.height, samples.translate(_INK), samples, pixmap.stride


def _reading(hocr: bytes) -> tuple[int, float, float]:
    """A reading's words, their mean confidence (0 with none) and the share
    of its characters whose box has no width or no height (0 with none)."""
    read = hocr.decode("utf-8", "replace")
    confidences = [float(value) for value in _WORD_CONFIDENCE.findall(read)]
    boxes = _CHAR_BOX.findall(read)
    flat = sum(1 for x0, y0, x1, y1 in boxes if x0 == x1 or y0 == y1)
    return (len(confidences), sum(confidences) / len(confidences) if confidences else 0.0,
            flat / len(boxes) if boxes else 0.0)


def _may_be_turned(hocr: bytes) -> bool:
    """Tesseract's reading of the page as it lies says it may be turned:
    its words' mean confidence is below :data:`_TURNED_CONFIDENCE` (a page
    upside down or turned a quarter one way reads as nonsense), or most of
    its characters have no width or no height (a page turned a quarter the
    other way is read as vertical text, in order of a sort, but without the
    characters' boxes). A page on which nothing was read is not asked about."""
    words, mean, flat = _reading(hocr)
    return words > 0 and (mean < _TURNED_CONFIDENCE or flat >= _TURNED_FLAT_SHARE)


def _orientation(options: OcrOptions, picture: str, dpi: int, *, number: int, pages: int,
                 limits: Any) -> int:
    """How many degrees clockwise (0, 90, 180, 270) the page in ``picture``
    must be turned to stand upright, by Tesseract's orientation detection
    (``--psm 0``, the ``osd`` data); 0 when it is not sure (confidence below
    :data:`_OSD_MIN_CONFIDENCE`) or cannot tell (too few characters, no
    ``osd`` data, out of memory: the page is read as it lies). Past the
    document's time limit it is the limit's error, as for any OCR run."""
    from reviewer.ingestion.extract import ExtractionError
    timeout = limits.deadline - time.monotonic()
    if timeout <= 0:
        raise ExtractionError("timeout",
                              _time_sentence(f"page {number} of {pages}", limits, options))
    command = [options.command, picture, "stdout", "--psm", "0", "-l", "osd", "--dpi", str(dpi)]
    env = {**os.environ, "OMP_THREAD_LIMIT": "1", "TESSDATA_PREFIX": _tessdata(options)}
    try:
        done = subprocess.run(command, capture_output=True, timeout=timeout, env=env,
                              preexec_fn=_die_with_parent, check=False)
    except subprocess.TimeoutExpired:  # run() has killed it
        raise ExtractionError("timeout", _time_sentence(f"page {number} of {pages}", limits,
                                                        options)) from None
    except OSError:
        return 0
    if done.returncode != 0:
        return 0
    rotate = _OSD_ROTATE.search(done.stdout)
    confidence = _OSD_CONFIDENCE.search(done.stdout)
    if rotate is None or confidence is None or float(confidence.group(1)) < _OSD_MIN_CONFIDENCE:
        return 0
    # Tesseract's "Rotate" turns the picture clockwise, as MuPDF's prerotate does.
    turn = int(rotate.group(1))
    return turn if turn in (90, 180, 270) else 0


def _reads_better(turned: bytes, first: bytes) -> bool:
    """The page read turned upright (``turned``'s hOCR) is worth more than
    the reading as it lies (``first``): when that one's characters had no
    boxes, the turned one has words with boxes; otherwise its words' mean
    confidence is at least :data:`_TURNED_BETTER_BY` higher. An orientation
    found wrongly reads no better, and the page is read as it lies."""
    words, mean, flat = _reading(turned)
    _, first_mean, first_flat = _reading(first)
    if not words or flat >= _TURNED_FLAT_SHARE:
        return False
    return first_flat >= _TURNED_FLAT_SHARE or mean >= first_mean + _TURNED_BETTER_BY


class _Frame:
    """The page as displayed (``rect``, points) turned ``turn`` degrees
    clockwise: the upright page the OCR'd picture shows, its origin top-left.
    :meth:`upright` takes a box on the page as displayed to this frame,
    :meth:`displayed` takes boxes back."""

    __slots__ = ("back", "forward", "height", "turn", "width")

    def __init__(self, rect: pymupdf.Rect, turn: int) -> None:
        turned = pymupdf.Matrix(1, 1).prerotate(turn)
        shown = rect * turned
        forward = turned * pymupdf.Matrix(1, 0, 0, 1, -shown.x0, -shown.y0)
        back = ~forward
        self.forward = (forward.a, forward.b, forward.c, forward.d, forward.e, forward.f)
        self.back = (back.a, back.b, back.c, back.d, back.e, back.f)
        self.width, self.height = shown.width, shown.height
        self.turn = turn

    @staticmethod
    def _map(matrix: tuple[float, float, float, float, float, float], boxes: list[float]
             ) -> list[float]:
        a, b, c, d, e, f = matrix
        mapped: list[float] = []
        for k in range(0, len(boxes), 4):
            x0, y0, x1, y1 = boxes[k : k + 4]
            u0, v0 = a * x0 + c * y0 + e, b * x0 + d * y0 + f
            u1, v1 = a * x1 + c * y1 + e, b * x1 + d * y1 + f
            mapped += (min(u0, u1), min(v0, v1), max(u0, u1), max(v0, v1))
        return mapped

    def upright(self, box: tuple[float, float, float, float]
                ) -> tuple[float, float, float, float]:
        if not self.turn:
            return box
        x0, y0, x1, y1 = self._map(self.forward, list(box))
        return x0, y0, x1, y1

    def displayed(self, boxes: list[float]) -> list[float]:
        """``boxes`` (4 numbers a box) in this frame, on the page as displayed."""
        return self._map(self.back, boxes) if self.turn else boxes


def _margin_lines(text: str, boxes: list[float], inserted: list[int], offset: int,
                  height: float) -> list[tuple[int, int, float, float]]:
    """The lines of a page's ``text`` (from ``offset`` in the document;
    ``boxes`` a box per character not ``inserted``, on the page as displayed)
    that lie in the top or bottom margin band of the displayed page
    (:class:`~reviewer.ingestion.geometry.TextLines`), as write_blocks
    records them for the upright page: (start, end, top, bottom)."""
    top_band = height * TextLines.band + 1.0
    bottom_band = height * (1.0 - TextLines.band) - 1.0
    skip = set(inserted)
    found: list[tuple[int, int, float, float]] = []
    glyph = 0
    position = offset
    for line in text.split("\n"):
        start, end = position, position + len(line)
        position = end + 1
        tops: list[float] = []
        bottoms: list[float] = []
        for at in range(start, end):
            if at not in skip:
                tops.append(boxes[4 * glyph + 1])
                bottoms.append(boxes[4 * glyph + 3])
                glyph += 1
        if line and tops:
            top, bottom = min(tops), max(bottoms)
            if bottom <= top_band or top >= bottom_band:
                found.append((start, end, top, bottom))
    return found


def _picture_rules(ink: bytes, stride: int, width: int, height: int, scale_x: float,
                   scale_y: float, area: tuple[float, float, float, float]) -> Rules:
    """The ruling lines printed on a scan in and around ``area`` (points):
    runs of inked pixels at least :data:`_PICTURE_RULE_MIN` long, in at most
    a rule's thickness of neighbouring pixel rows (or columns). A glyph's
    stroke is shorter; a picture or a shaded cell is thicker."""
    slack = 3.0
    x0 = max(0, int((area[0] - slack) / scale_x))
    x1 = min(width, int((area[2] + slack) / scale_x) + 1)
    y0 = max(0, int((area[1] - slack) / scale_y))
    y1 = min(height, int((area[3] + slack) / scale_y) + 1)
    if x1 <= x0 or y1 <= y0:
        return Rules([], [])
    across = re.compile(b"\x01{%d,}" % max(1, round(_PICTURE_RULE_MIN[0] / scale_x)))
    down = re.compile(b"\x01{%d,}" % max(1, round(_PICTURE_RULE_MIN[1] / scale_y)))
    # finditer with bounds reports positions in the whole picture.
    rows = [(y, m.start() - y * stride, m.end() - y * stride) for y in range(y0, y1)
            for m in across.finditer(ink, y * stride + x0, y * stride + x1)]
    # A column of the picture is every stride-th byte: a slice, read in C.
    columns = [(x, y0 + m.start(), y0 + m.end()) for x in range(x0, x1)
               for m in down.finditer(ink[y0 * stride + x : y1 * stride : stride])]
    horizontal = [(start * scale_x, end * scale_x, at * scale_y)
                  for start, end, at in _strokes(rows, RULE_THICKNESS / scale_y,
                                                 _PICTURE_HEAVY_RULE / scale_y, scale_x / scale_y)]
    vertical = [(start * scale_y, end * scale_y, at * scale_x)
                for start, end, at in _strokes(columns, RULE_THICKNESS / scale_x,
                                               _PICTURE_HEAVY_RULE / scale_x, scale_y / scale_x)]
    return Rules(horizontal, vertical)


def _strokes(runs: list[tuple[int, int, int]], thickness: float, heavy: float = 0.0,
             aspect: float = 1.0) -> list[tuple[int, int, float]]:
    """Runs of ink (row, start, end), in row order, joined across
    neighbouring rows where they overlap by half; the joined ones at most
    ``thickness`` rows thick, or at most ``heavy`` rows thick and
    :data:`_PICTURE_HEAVY_LENGTH` times longer than thick (``aspect``: a
    row's pixel length over a unit of thickness), as (start, end, middle
    row)."""
    if len(runs) > _MAX_INK_RUNS:
        return []  # a picture, not a table's rules: nothing worth the time
    done: list[list[int]] = []
    active: list[list[int]] = []  # first row, last row, start, end
    for row, start, end in runs:
        still: list[list[int]] = []
        for stroke in active:
            (still if stroke[1] >= row - 1 else done).append(stroke)
        active = still
        for stroke in active:
            if (stroke[1] == row - 1 and
                    min(end, stroke[3]) - max(start, stroke[2])
                    > 0.5 * min(end - start, stroke[3] - stroke[2])):
                stroke[1] = row
                stroke[2], stroke[3] = min(start, stroke[2]), max(end, stroke[3])
                break
        else:
            active.append([row, row, start, end])
    return [(start, end, (first + last + 1) / 2) for first, last, start, end in done + active
            if last - first + 1 <= thickness or (
                last - first + 1 <= heavy
                and (end - start) * aspect >= _PICTURE_HEAVY_LENGTH * (last - first + 1))]


def _quads(boxes: list[float]) -> list[tuple[float, float, float, float]]:
    return [(boxes[k], boxes[k + 1], boxes[k + 2], boxes[k + 3])
            for k in range(0, len(boxes), 4)]


def _text_layer_pieces(layer: Any, offset: int) -> list[_Piece]:
    """The extractor's page text cut into its blocks (at the blank lines it
    put between them), each with its own characters' boxes and separators,
    unchanged."""
    inserted = {position - offset for position in layer.inserted}
    boxes = layer.boxes
    pieces: list[_Piece] = []
    start = glyph = 0
    text = layer.text
    while start < len(text):
        end = text.find("\n\n", start)
        end = len(text) if end < 0 else end
        piece_boxes: list[float] = []
        piece_inserted: list[int] = []
        for k in range(start, end):
            if k in inserted:
                piece_inserted.append(k - start)
            else:
                piece_boxes += boxes[4 * glyph : 4 * glyph + 4]
                glyph += 1
        margins = [(a - offset - start, b - offset - start, top, bottom)
                   for a, b, top, bottom in layer.margin_lines
                   if start <= a - offset and b - offset <= end]
        pieces.append(_Piece(min(piece_boxes[1::4], default=0.0), text[start:end],
                             piece_boxes, piece_inserted, margins))
        start = end + 2  # the blank line between blocks is inserted: no glyph
    return pieces


def _by_position(ocr_pieces: list[_Piece], kept: list[_Piece]) -> list[_Piece]:
    """Tesseract's blocks in its own reading order (it knows columns) merged
    with the kept text-layer blocks in theirs: each kept block goes before
    the first OCR'd block that starts below it, so a stamp at the foot of
    the page comes last and one at its head first."""
    placed: list[_Piece] = []
    cursor = 0
    for piece in kept:
        while cursor < len(ocr_pieces) and ocr_pieces[cursor].top <= piece.top:
            placed.append(ocr_pieces[cursor])
            cursor += 1
        placed.append(piece)
    return placed + ocr_pieces[cursor:]


def _place(pieces: list[_Piece], offset: int
           ) -> tuple[str, list[float], list[int], list[tuple[int, int, float, float]]]:
    """The page's text from its blocks in order, a blank line between two,
    positions counted from ``offset`` in the document."""
    texts: list[str] = []
    boxes: list[float] = []
    inserted: list[int] = []
    margin_lines: list[tuple[int, int, float, float]] = []
    position = offset
    for index, piece in enumerate(pieces):
        if index:
            texts.append("\n\n")
            inserted += (position, position + 1)
            position += 2
        texts.append(piece.text)
        boxes += piece.boxes
        inserted += [position + k for k in piece.inserted]
        margin_lines += [(position + a, position + b, top, bottom)
                         for a, b, top, bottom in piece.margin_lines]
        position += len(piece.text)
    return "".join(texts), boxes, inserted, margin_lines


def _on_text_layer(box: tuple[float, float, float, float],
                   glyphs: list[tuple[float, float, float, float]]) -> bool:
    """At least half of ``box`` lies on the text layer's glyph boxes."""
    x0, y0, x1, y1 = box
    area = (x1 - x0) * (y1 - y0)
    if area <= 0 or not glyphs:
        return False
    covered = 0.0
    for g0, h0, g1, h1 in glyphs:
        width = min(x1, g1) - max(x0, g0)
        height = min(y1, h1) - max(y0, h0)
        if width > 0 and height > 0:
            covered += width * height
    return covered >= _ON_TEXT_LAYER * area


def _die_with_parent() -> None:  # pragma: no cover - runs in the forked program
    ctypes.CDLL(None).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


def _run(options: OcrOptions, picture: str, dpi: int, *, number: int, pages: int,
         limits: Any, need: str = "has no text layer", psm: str = "") -> bytes:
    """Tesseract's hOCR of ``picture``, or the error that says why not
    (``need``: why the page is OCR'd, as the sentence says it; ``psm``:
    Tesseract's page segmentation mode when not its default)."""
    from reviewer.ingestion.extract import ExtractionError as error
    where = f"page {number} of {pages}"
    timeout = limits.deadline - time.monotonic()
    if timeout <= 0:
        raise error("timeout", _time_sentence(where, limits, options))
    command = [options.command, picture, "stdout", "-l", options.language, "--dpi", str(dpi),
               *(["--psm", psm] if psm else []), "-c", "hocr_char_boxes=1", "hocr"]
    env = {**os.environ, "OMP_THREAD_LIMIT": "1", "TESSDATA_PREFIX": _tessdata(options)}
    try:
        done = subprocess.run(command, capture_output=True, timeout=timeout, env=env,
                              preexec_fn=_die_with_parent, check=False)
    except FileNotFoundError:
        raise error(
            "ocr-failed",
            f"Page {number} of {pages} {need} and needs OCR, but the OCR program "
            f"({options.command}) is not installed on this server; bin/setup installs it."
        ) from None
    except subprocess.TimeoutExpired:  # run() has killed it
        raise error("timeout", _time_sentence(where, limits, options)) from None
    except OSError as failure:
        if _OUT_OF_MEMORY.search(str(failure)) or failure.errno == 12:
            raise error("memory", f"OCR of {where} ran out of memory.") from None
        raise error("ocr-failed", f"OCR of {where} could not start ({failure}).") from None
    stderr = done.stderr.decode("utf-8", "replace")
    if done.returncode == 0:
        return done.stdout
    if "Failed loading language" in stderr or "Error opening data file" in stderr:
        installed = installed_languages(options.command, _tessdata(options))
        problem = language_problem(options.language, installed) or (
            f"the language data for {options.language!r} could not be read.")
        raise error("ocr-failed", f"Page {number} of {pages} {need} and needs OCR, "
                    f"which failed: {problem}")
    if _OUT_OF_MEMORY.search(stderr) or done.returncode == -signal.SIGABRT:
        raise error("memory", f"OCR of {where} ran out of memory.")
    last = stderr.strip().splitlines()[-1] if stderr.strip() else ""
    status = (f"signal {-done.returncode}" if done.returncode < 0
              else f"exit status {done.returncode}")
    raise error("ocr-failed", f"OCR of {where} failed ({options.command}: {status}"
                + (f", “{last[:200]}”" if last else "") + ").")


def _time_sentence(where: str, limits: Any, options: OcrOptions) -> str:
    ocred = len(limits.ocr_pages) + 1
    base = limits.max_seconds - ocred * options.seconds_per_page
    return (f"OCR of {where} stopped at the {limits.max_seconds:g}-second limit "
            f"({base:g} s for the document plus {options.seconds_per_page:g} s for each of "
            f"the {ocred} page{'s' if ocred != 1 else ''} OCR'd).")


def _title_box(title: str) -> tuple[int, int, int, int] | None:
    found = _BBOX.search(title)
    return None if found is None else tuple(int(v) for v in found.groups())  # type: ignore[return-value]


def _read_hocr(
    hocr: bytes, scale_x: float, scale_y: float,
    text_layer: list[tuple[float, float, float, float]], rules: Callable[[], Rules],
    reread: Callable[[Sequence[_Area]], list[str]] | None = None,
    inked: Callable[[int, int, int, int], bool] | None = None,
    columns: Callable[[int, int, int, int], list[tuple[int, int] | None]] | None = None,
    reread_grey: Callable[[Sequence[_Area]], list[str]] | None = None,
) -> tuple[list[list[Line]], int, float]:
    """One page's hOCR as lines in blocks (Tesseract's paragraphs, in its
    reading order) with boxes in points, the number of words and their mean
    confidence. Words lying on ``text_layer``'s glyph boxes are left out
    (that text is the page's already).

    A Tesseract line runs on across any gap, a table's gutters and a
    callout's margin included, where MuPDF starts a new line a few word
    spaces on: it is cut wherever two words stand farther apart than
    :func:`_gap_limit` line heights (layout's join gap: wider is a
    gutter), so that the layout rules see the same lines on a scan as on a
    born-digital page. A "|" that is a table's
    vertical rule (``rules()``, the scan's ruling lines) read as a letter is
    no text: the line is cut there.

    Small raised glyphs after a word (:func:`_raised_from`) are a footnote
    marker, which Tesseract misreads more often than not at its size
    ("regimens.””°" for "regimens.⁹,²⁰"): ``reread`` reads them again,
    enlarged, and a marker read (digits, commas, dashes) replaces them in
    superscript digits, as the text layer's markers are written. Such a
    run inside a word before its hyphen (:func:`_raised_inside`) is read
    again too, and letters and digits read go into the word
    (:data:`_RAISED_WORD_READ`). ``reread`` reads the page's ink on paper;
    ``reread_grey`` the page as rendered, for a marker run the ink read as
    none.

    ``inked(x0, y0, x1, y1)`` says whether the page's picture has ink in
    that box (pixels): in a word read with a confidence below
    :data:`_SECOND_READING_CONFIDENCE`, a character with no ink of its own
    is a second reading of the glyph before it and is dropped
    (:func:`_without_second_readings`). ``columns(x0, x1, y0, y1)`` gives
    each pixel column's inked rows: with it a word's closing subscript
    (:func:`_lowered_run`) is read again enlarged, as markers are."""
    root = ElementTree.fromstring(hocr)
    _markers_put_back(root)
    confidences: list[float] = []
    paragraphs: list[list[Line]] = []
    apart: list[list[Line]] = []  # lines read sideways, a paragraph each
    # Each line's runs to read again: (start, end) in its text, their box
    # in pixels, and what they are ("marker": small raised glyphs after a
    # word; "subscript": lowered ones closing it).
    markers: list[tuple[Line, list[_Run]]] = []

    for paragraph in root.iter(f"{_HOCR}p"):
        if "ocr_par" not in paragraph.get("class", ""):
            continue
        lines: list[Line] = []
        line_spans = [line for line in paragraph.iter(f"{_HOCR}span") if line.get("class", "")
                      in ("ocr_line", "ocr_caption", "ocr_header", "ocr_textfloat")]
        readings = _one_reading_each([
            [] if (angle := _TEXT_ANGLE.search(line.get("title", ""))) is not None
            and int(angle.group(1)) in _SIDEWAYS else _line_words(line)
            for line in line_spans])
        for line, line_read in zip(line_spans, readings, strict=True):
            title = line.get("title", "")
            line_box = _title_box(title)
            if line_box is None:
                continue
            angle = _TEXT_ANGLE.search(title)
            if angle is not None and int(angle.group(1)) in _SIDEWAYS:
                # Printed down or up the margin: a line of its own, kept
                # apart from the column it stands beside.
                turned = _sideways_line(line, int(angle.group(1)), scale_x, scale_y,
                                        text_layer)
                if turned is not None:
                    apart.append([turned[0]])
                    confidences += turned[1]
                continue
            top, bottom = line_box[1] * scale_y, line_box[3] * scale_y
            # A line of small letters only ("an era") has a box one x-height
            # tall; Tesseract's estimate of the text's size gives the line
            # its full height, as a font's ascent and descent do in a PDF.
            size = _LINE_SIZE.search(title)
            if size is not None:
                top = min(top, bottom - float(size.group(1)) * scale_y)
            words = [word for word in line_read if not text_layer or not _on_text_layer(
                (word[1][0][0] * scale_x, top, word[1][-1][1] * scale_x, bottom), text_layer)]
            if not words:
                continue
            baseline = _baseline(title, line_box)
            x_size = float(size.group(1)) if size is not None else line_box[3] - line_box[1]
            marker_min = _marker_min_height(title, x_size)
            tall = _tall_start(words, x_size)
            if tall is not None:
                # The numeral a paragraph of its own, before this one; the
                # line's height the rest's.
                word_text, word_boxes, confidence, heights = words[0]
                y0, y1 = min(h[0] for h in heights), max(h[1] for h in heights)
                paragraphs.append([_line([word_text], [
                    value for c0, c1 in word_boxes
                    for value in (c0 * scale_x, y0 * scale_y, c1 * scale_x, y1 * scale_y)])])
                confidences.append(confidence)
                words = words[1:]
                bottom = tall[1] * scale_y
                top = min(tall[0] * scale_y, bottom - x_size * scale_y)
            text: list[str] = []
            boxes: list[float] = []
            raised: list[_Run] = []
            previous_x1: float | None = None
            previous_mid: float | None = None  # the previous word's last glyph's middle
            for position, (word_text, word_boxes, confidence, heights) in enumerate(words):
                if inked is not None and confidence < _SECOND_READING_CONFIDENCE:
                    word_text, word_boxes, heights = _without_second_readings(
                        word_text, word_boxes, heights, inked)
                if inked is not None:
                    word_text, word_boxes, heights = _without_phantoms(
                        word_text, word_boxes, heights, inked)
                    if not word_text:
                        continue
                    if any(char in _WITH_BAR for char in word_text):
                        # "≥" read as ">", "×" as "<": written as printed.
                        word_text = "".join(
                            _CROSS if char in _WITH_BAR and _crossed(
                                word_boxes, heights, k, inked)
                            else _WITH_BAR[char] if char in _WITH_BAR and _barred(
                                word_boxes, heights, k, inked) else char
                            for k, char in enumerate(word_text))
                x0 = word_boxes[0][0] * scale_x
                if _RULE_READ.match(word_text) and _on_rule(
                        x0, word_boxes[-1][1] * scale_x, top, bottom, rules().vertical,
                        word_text):
                    if text:
                        lines.append(_line(text, boxes))
                        markers.append((lines[-1], raised))
                    text, boxes, raised, previous_x1 = [], [], [], None
                    continue
                ruled_after = False
                if len(word_text) > 1 and word_text[-1] in _RULE_GLUED and _on_rule(
                        word_boxes[-1][0] * scale_x, word_boxes[-1][1] * scale_x
                        + _RULE_GLUED_REACH, top, bottom, rules().vertical, word_text[-1]):
                    # The cell's rule read as the word's last glyph: no
                    # text, and the line ends at it.
                    word_text, word_boxes, heights = (
                        word_text[:-1], word_boxes[:-1], heights[:-1])
                    ruled_after = True
                if len(word_text) > 1 and word_text[0] in _RULE_GLUED and _on_rule(
                        x0 - _RULE_GLUED_REACH, word_boxes[0][1] * scale_x, top, bottom,
                        rules().vertical, word_text[0]):
                    word_text, word_boxes, heights = word_text[1:], word_boxes[1:], heights[1:]
                    x0 = word_boxes[0][0] * scale_x
                    if text:
                        lines.append(_line(text, boxes))
                        markers.append((lines[-1], raised))
                    text, boxes, raised, previous_x1 = [], [], [], None
                if (previous_x1 is not None and previous_mid is not None
                        and x0 - previous_x1 > _RULE_GAP_LINES * (bottom - top)
                        and any(previous_mid < at <= x0 + 1.0 and start <= (top + bottom) / 2 <= end
                                for start, end, at in rules().vertical)):
                    # A table's rule between the two words (Tesseract read
                    # on across the cells): a new cell, a new line.
                    lines.append(_line(text, boxes))
                    markers.append((lines[-1], raised))
                    text, boxes, raised, previous_x1 = [], [], [], None
                if previous_x1 is not None and x0 - previous_x1 > _gap_limit(
                        "".join(text)) * (bottom - top):
                    lines.append(_line(text, boxes))
                    markers.append((lines[-1], raised))
                    text, boxes, raised = [], [], []
                elif previous_x1 is not None:
                    # The space between two words: a box over the gap, so a
                    # highlight runs on across it as on a born-digital line.
                    text.append(" ")
                    boxes += (previous_x1, top, x0, bottom)
                at = len(boxes) // 4
                if not text and word_text == "." and columns is not None:
                    left = _lost_number(word_boxes[0][0], line_box, x_size, columns)
                    if left is not None:
                        # From the number's ink to the stop: written over the
                        # stop when read, as markers are.
                        raised.append((at, at + 1, (left, line_box[1], word_boxes[0][1],
                                                    line_box[3]), "number", None))
                found_before = len(raised)
                start = _raised_from(word_text, word_boxes, heights, baseline, x_size,
                                     marker_min)
                end, kind = len(word_text), "marker"
                if start == len(word_text):
                    inside = _raised_inside(word_text, word_boxes, heights, baseline, x_size)
                    if inside is not None:
                        (start, end), kind = inside, "inside"
                if start < end:
                    spans, rows = word_boxes[start:end], heights[start:end]
                    area = (spans[0][0], min(r[0] for r in rows),
                            spans[-1][1], max(r[1] for r in rows))
                    # The glyphs before and after the run are no part of
                    # it: their ink is kept off the enlarged picture.
                    ink_from = word_boxes[start - 1][1]
                    if kind == "marker" and columns is not None and not word_text[
                            start - 1].isalnum():
                        # The marker's first digits boxed with the stop
                        # before them ("injunction.²⁰" read "injunction.”",
                        # the "2" in the stop's box): the run starts at
                        # their ink.
                        more = _raised_past_stop(
                            word_boxes[start - 1][0], area[0],
                            round(area[1] - _RAISED_PAST_STOP_REACH * x_size), baseline,
                            x_size, marker_min, line_box[3], columns)
                        if more is not None:
                            area = (more[0], min(area[1], more[1]), area[2],
                                    max(area[3], more[3]))
                            ink_from = more[0]
                    raised.append((at + start, at + end, area, kind,
                                   (ink_from, word_boxes[end][0] if end < len(word_text)
                                    else spans[-1][1] + round(x_size))))
                elif columns is not None and confidence < _SUBSCRIPT_CONFIDENCE:
                    lowered = _lowered_run(word_boxes, baseline, x_size, line_box[3], columns)
                    if lowered is not None:
                        # Marks Tesseract read over the subscript's start ("C,"
                        # of "C,,,,") go with it: the glyph before is a letter
                        # or a digit.
                        kept = lowered[0]
                        while kept and not word_text[kept - 1].isalnum():
                            kept -= 1
                        if kept:
                            raised.append((at + kept, at + len(word_text), lowered[1],
                                           "subscript", None))
                    else:
                        inked_run = _raised_by_ink(word_text, word_boxes, baseline, x_size,
                                                   marker_min, line_box[3], columns)
                        glued = (None if inked_run is not None or len(text) < 2
                                 or text[-1] != " " or not _MARKS_AFTER.search(text[-2])
                                 else _raised_word_by_ink(word_text, word_boxes, baseline,
                                                          x_size, marker_min, line_box[3],
                                                          columns))
                        if glued is not None:
                            # A marker Tesseract read as a word of its own
                            # ("disorders. !3"): on a marker read, the space
                            # before it goes, as a text layer glues it.
                            raised.append((at - 1, at + len(word_text), glued, "apart",
                                           (glued[0], glued[2])))
                        if inked_run is not None:
                            run_start, run_end, area = inked_run
                            # Only the marker's own columns go on the
                            # enlarged picture.
                            raised.append((at + run_start, at + run_end, area, "marker",
                                           (area[0], area[2])))
                if (columns is not None and len(raised) == found_before
                        and len(word_text) > 1 and word_text[-1] in _STOPS
                        and word_text[-2].isalpha()):
                    # A marker after the stop that Tesseract boxed with
                    # the stop and left unread ("effect.¹" read
                    # "effect."): read again, it follows the stop.
                    reach = word_boxes[-1][1] + round(x_size / 2)
                    if position + 1 < len(words):
                        reach = min(reach, words[position + 1][1][0][0])
                    lost = _raised_past_stop(word_boxes[-1][0], reach, line_box[1] - 1, baseline,
                                             x_size, marker_min, line_box[3], columns)
                    if lost is not None:
                        raised.append((at + len(word_text) - 1, at + len(word_text), lost,
                                       "stop", (lost[0], lost[2])))
                text.append(word_text)
                for c0, c1 in word_boxes:
                    boxes += (c0 * scale_x, top, c1 * scale_x, bottom)
                previous_x1 = word_boxes[-1][1] * scale_x
                previous_mid = (word_boxes[-1][0] + word_boxes[-1][1]) / 2 * scale_x
                confidences.append(confidence)
                if ruled_after:
                    lines.append(_line(text, boxes))
                    markers.append((lines[-1], raised))
                    text, boxes, raised, previous_x1 = [], [], [], None
            if text:
                lines.append(_line(text, boxes))
                markers.append((lines[-1], raised))
        if lines:
            paragraphs.append(lines)
    runs = [(target, *run) for target, found in markers for run in found]
    if any(run[4] == "number" for run in runs):
        # The ink left of a stop is no lost number where a word read
        # stands on it (in another of Tesseract's lines).
        read_boxes = [(line, line.boxes[4 * k : 4 * k + 4]) for paragraph in paragraphs
                      for line in paragraph for k, char in enumerate(line.text) if char != " "]
        runs = [run for run in runs if run[4] != "number" or not any(
            line is not run[0] and box[0] < run[3][2] * scale_x and box[2] > run[3][0] * scale_x
            and run[3][1] * scale_y < (box[1] + box[3]) / 2 < run[3][3] * scale_y
            for line, box in read_boxes)]
    if runs and reread is not None:
        # A marker run opening with a closing quote mark, read again past
        # the quote mark's strokes too: (index in runs, the area).
        past_quote = [(k, (after, area[1], area[2], area[3], after,
                           area[2] if ink is None else ink[1]))
                      for k, (target, start, _, area, kind, ink) in enumerate(runs)
                      if kind == "marker" and columns is not None
                      and target.text[start] in _CLOSING_QUOTE_STROKES
                      and (after := _past_strokes(area, _CLOSING_QUOTE_STROKES[
                          target.text[start]], columns,
                          _glyph_end_from(target, start, area[0], scale_x))) is not None]
        areas = [area if ink is None else (*area, *ink) for _, _, _, area, _, ink in runs]
        read = reread(areas + [area for _, area in past_quote])
        read_past = dict(zip((k for k, _ in past_quote), read[len(runs):], strict=True))
        read = read[:len(runs)]
        # Runs Tesseract read as a closing quote mark where the quotation
        # before it on its paragraph is open: the quote mark is printed
        # there, and enlarged it reads as digits ("93"), as a two-digit
        # marker Tesseract read as one ("¹¹" read "”") reads too. Past its
        # strokes a marker may follow.
        before: dict[int, str] = {}
        for lines_read in paragraphs:
            so_far = ""
            for line in lines_read:
                before[id(line)] = so_far
                so_far += line.text + " "
        quoted = {k for k, (target, start, _, _, kind, _) in enumerate(runs)
                  if kind == "marker" and target.text[start] == "\u201d"
                  and _quotation_open(before.get(id(target), "") + target.text[:start])}
        if columns is not None:
            for k, (_, _, _, area, kind, ink) in enumerate(runs):
                if (kind in ("marker", "stop") and read[k] in _ONE_STROKE_READS
                        and _one_stroke(area, ink, columns)):
                    read[k] = "1"
        unread = [k for k, ((target, start, _, _, kind, _), again) in enumerate(
                      zip(runs, read, strict=True))
                  if (kind == "stop" or (kind == "marker"
                                         and target.text[start] not in _CLOSING_QUOTE_STROKES))
                  and not _MARKER_READ.fullmatch(again) and not _VARIANT_READ.fullmatch(again)]
        if unread and reread_grey is not None:
            # A small glyph's ink, thresholded and enlarged, loses the
            # shading of its strokes' edges (a report's raised Calibri "4"
            # read "A"): a marker run read as none is read again from the
            # page as rendered.
            for k, again in zip(unread, reread_grey([areas[k] for k in unread]), strict=True):
                if _MARKER_READ.fullmatch(again):
                    read[k] = again
        # Right to left within a line, so that the earlier runs' positions hold.
        for index, ((target, start, end, area, kind, _), again) in sorted(
                enumerate(zip(runs, read, strict=True)), key=lambda pair: -pair[1][0][1]):
            marker = read_past.get(index, "")
            if index in quoted and not _MARKER_READ.fullmatch(marker):
                continue  # the quotation's closing mark, and nothing after it
            if kind in ("marker", "inside") and _MARKER_READ.fullmatch(again) and (
                    index not in quoted):
                _write_run(target, start, end, again.translate(SUPERSCRIPT_DIGITS))
            elif kind == "apart" and _MARKER_READ.fullmatch(again):
                _write_run(target, start + 1, end, again.translate(SUPERSCRIPT_DIGITS))
                target.text = target.text[:start] + target.text[start + 1:]
                del target.boxes[4 * start : 4 * start + 4]
            elif _MARKER_READ.fullmatch(marker):
                # The quote mark as Tesseract read it, then the marker, the
                # ink past its strokes. Read whole, the quote mark's two
                # strokes may read as one glyph ("9144" for "”" and "144",
                # a law review's scan), as letters ("my" for "”¹", a
                # report's Calibri) or, in a quotation, as digits ("93").
                _write_run(target, start, end,
                           target.text[start] + marker.translate(SUPERSCRIPT_DIGITS))
            elif (kind == "marker" and _VARIANT_READ.fullmatch(again)) or (
                    kind == "inside" and _RAISED_WORD_READ.fullmatch(again)):
                _write_run(target, start, end, again)
            elif kind == "stop" and _MARKER_READ.fullmatch(again):
                _write_run(target, start, end,
                           target.text[start] + again.translate(SUPERSCRIPT_DIGITS))
            elif kind == "number" and _LOST_NUMBER_READ.fullmatch(again):
                _write_run(target, start, end, again)
                # Spread from the number's ink, where the line now starts.
                ink_x0 = area[0] * scale_x
                step = (target.boxes[4 * (start + len(again)) - 2] - ink_x0) / len(again)
                for k in range(len(again)):
                    target.boxes[4 * (start + k)] = ink_x0 + k * step
                    target.boxes[4 * (start + k) + 2] = ink_x0 + (k + 1) * step
                target.x0 = min(target.x0, ink_x0)
            elif kind == "subscript" and _SUBSCRIPT_READ.fullmatch(again):
                if again.isdigit() and len(again) <= 2:
                    again = again.translate(SUBSCRIPT_DIGITS)
                _write_run(target, start, end, again)
    def ruled_apart(left: Line, right: Line) -> bool:
        # A table's rule stands between the two (cells are never one line).
        middle = (max(left.y0, right.y0) + min(left.y1, right.y1)) / 2
        return any(left.x1 - 1.0 <= at <= right.x0 + 1.0 and start <= middle <= end
                   for start, end, at in rules().vertical)

    def ruled_edge(line: Line) -> bool:
        # A cell's rule right of the line's end, within a line height (its
        # padding): the edge a cell's justified lines are set to.
        middle, reach = (line.y0 + line.y1) / 2, line.y1 - line.y0
        return any(line.x1 <= at <= line.x1 + reach and start <= middle <= end
                   for start, end, at in rules().vertical)

    paragraphs = _justified_rejoined(_rows_rejoined(_cut_around_others(paragraphs),
                                                    ruled_apart), ruled_apart, ruled_edge)
    paragraphs += apart
    mean = sum(confidences) / len(confidences) if confidences else 0.0
    return paragraphs, len(confidences), mean


def _markers_put_back(root: ElementTree.Element) -> None:
    """Put a footnote marker Tesseract read as a paragraph of its own back
    into the line it is printed on, glued to the word before it.

    On a guideline's scan "CML-BC.⁹⁶,⁹⁷ De resultaten" came back as a line
    "CML-BC. De resultaten" and a paragraph "96,97" above its gap; the gap,
    wider than a line height, cut the line in two, and its halves were read
    apart. The marker goes back where it stands: one word of digits
    (:data:`_MARKER_READ`), small and raised on another paragraph's line
    (:func:`_small_raised` on its box), starting at most half the line's
    size after a word's end and before the next word. Its glyphs join that
    word, so the line reads on and the marker is read as any marker after a
    word is (:func:`_raised_from`)."""
    parents = {child: parent for parent in root.iter() for child in parent}
    paragraphs = [p for p in root.iter(f"{_HOCR}p") if "ocr_par" in p.get("class", "")]
    for paragraph in paragraphs:
        words = [w for w in paragraph.iter(f"{_HOCR}span")
                 if "ocrx_word" in w.get("class", "")]
        if len(words) != 1 or not _MARKER_READ.fullmatch("".join("".join(
                words[0].itertext()).split())):
            continue
        glyphs = [c for c in words[0].iter(f"{_HOCR}span") if "ocrx_cinfo" in c.get("class", "")]
        box = _title_box(words[0].get("title", ""))
        if box is None or not glyphs:
            continue
        host = _marker_host(box, [p for p in paragraphs if p is not paragraph])
        if host is None:
            continue
        host.extend(glyphs)
        parents[paragraph].remove(paragraph)


def _marker_host(box: tuple[int, int, int, int], paragraphs: list[ElementTree.Element]
                 ) -> ElementTree.Element | None:
    """The word of ``paragraphs``' lines a marker boxed ``box`` (pixels) is
    printed after (see :func:`_markers_put_back`), or None."""
    for paragraph in paragraphs:
        for line in paragraph.iter(f"{_HOCR}span"):
            title = line.get("title", "")
            line_box = _title_box(title)
            if ("ocr_line" not in line.get("class", "") or line_box is None
                    or _TEXT_ANGLE.search(title) is not None):
                continue
            size = _LINE_SIZE.search(title)
            x_size = float(size.group(1)) if size is not None else line_box[3] - line_box[1]
            if not (line_box[1] <= box[3] and box[0] < line_box[2] + x_size / 2
                    and _small_raised((box[0], box[2]), (box[1], box[3]),
                                      _baseline(title, line_box), x_size)):
                continue
            words = [(w, b) for w in line.iter(f"{_HOCR}span")
                     if "ocrx_word" in w.get("class", "")
                     and (b := _title_box(w.get("title", ""))) is not None]
            before = [(w, b) for w, b in words if b[2] <= box[0] + 1]
            if not before or any(b[0] < box[2] and box[0] < b[2] for _, b in words):
                continue
            word, word_box = max(before, key=lambda pair: pair[1][2])
            if box[0] - word_box[2] <= x_size / 2:
                return word
    return None


def _lost_number(stop: int, line_box: tuple[int, int, int, int], x_size: float,
                 columns: Callable[[int, int, int, int], list[tuple[int, int] | None]],
                 ) -> int | None:
    """The left edge (pixels) of the unread ink just left of a line's
    opening full stop at ``stop`` (see :data:`_LOST_NUMBER_READ`), or None."""
    reach = int(_LOST_NUMBER_WIDTH * x_size)
    start = max(0, stop - reach)
    found = columns(start, stop, line_box[1], line_box[3])
    gap = _LOST_NUMBER_GAP * x_size
    left: int | None = None
    blank = 0
    for index in range(len(found) - 1, -1, -1):
        if found[index] is None:
            blank += 1
            if blank > gap:
                break
        else:
            left, blank = start + index, 0
    if left is None or (stop - left) < 0.2 * x_size:
        return None
    return left


def _tall_start(words: list[tuple[str, list[tuple[int, int]], float, list[tuple[int, int]]]],
                x_size: float) -> tuple[int, int] | None:
    """When the line's first word is a line of its own (:data:`_TALL_START`):
    the top and bottom (pixels) of the other words' ink; else None."""
    if len(words) < 2:
        return None
    first, rest = words[0], words[1:]
    top = min(y0 for word in rest for y0, _ in word[3])
    bottom = max(y1 for word in rest for _, y1 in word[3])
    first_top = min(y0 for y0, _ in first[3])
    height = max(y1 for _, y1 in first[3]) - first_top
    if (height > _TALL_START * max(bottom - top, x_size) and top - first_top >= x_size
            and rest[0][1][0][0] - first[1][-1][1] >= x_size):
        return top, bottom
    return None


def _grid_cells(page_rules: Rules) -> list[tuple[float, float, float, float]]:
    """The cells (x0, y0, x1, y1, points) of ruled grids: between two
    horizontal rules next to each other, two vertical rules next to each
    other that run across that band, each side covered by its rule."""
    tolerance = _CELL_TOLERANCE
    levels: list[float] = []
    for at in sorted(at for _, _, at in page_rules.horizontal):
        if not levels or at - levels[-1] > tolerance:
            levels.append(at)
    cells = []
    for top, bottom in pairwise(levels):
        edges: list[float] = []
        for at in sorted(at for start, end, at in page_rules.vertical
                         if start <= top + tolerance and end >= bottom - tolerance):
            if not edges or at - edges[-1] > tolerance:
                edges.append(at)
        for left, right in pairwise(edges):
            if all(any(start <= left + tolerance and end >= right - tolerance
                       and abs(at - level) <= tolerance
                       for start, end, at in page_rules.horizontal) for level in (top, bottom)):
                cells.append((left, top, right, bottom))
    return cells


def _unread_numbers(paragraphs: list[list[Line]], page_rules: Rules, ink: bytes, stride: int,
                    scale_x: float, scale_y: float,
                    reread: Callable[[Sequence[_Area]], list[str]],
                    ) -> list[list[Line]]:
    """Numbers read again in a grid's cells Tesseract left empty (see
    :data:`_CELL_NUMBER`), each a paragraph of one line."""
    if not page_rules.vertical or not page_rules.horizontal:
        return []
    cells = _grid_cells(page_rules)
    if not cells:
        return []
    lines = [line for paragraph in paragraphs for line in paragraph]
    empty: list[tuple[float, float, float, float]] = []
    numbered: set[tuple[int, int]] = set()  # columns (rounded edges) with a number read
    for x0, y0, x1, y1 in cells:
        # The characters read in the cell (a line may run on across its rule).
        inside = "".join(
            char for line in lines if line.x0 < x1 and line.x1 > x0
            and line.y0 < y1 and line.y1 > y0 for k, char in enumerate(line.text)
            if x0 <= (line.boxes[4 * k] + line.boxes[4 * k + 2]) / 2 <= x1
            and y0 <= (line.boxes[4 * k + 1] + line.boxes[4 * k + 3]) / 2 <= y1)
        if not inside.strip():
            empty.append((x0, y0, x1, y1))
        elif _CELL_NUMBER.fullmatch(inside.strip()):
            numbered.add((round(x0), round(x1)))
    areas: list[tuple[int, int, int, int]] = []
    rows = len(ink) // stride
    for x0, y0, x1, y1 in empty:
        if not any(abs(left - x0) <= _CELL_TOLERANCE and abs(right - x1) <= _CELL_TOLERANCE
                   for left, right in numbered):
            continue
        px0, px1 = int((x0 + _CELL_INSET) / scale_x), int((x1 - _CELL_INSET) / scale_x)
        py0, py1 = int((y0 + _CELL_INSET) / scale_y), int((y1 - _CELL_INSET) / scale_y)
        found: list[int] = []  # the ink's box: left, top, right, bottom
        for y in range(max(0, py0), min(py1, rows)):
            row = ink[y * stride + max(0, px0) : y * stride + min(px1, stride)]
            first = row.find(1)
            if first < 0:
                continue
            last = row.rfind(1)
            if not found:
                found = [first, y, last, y]
            found = [min(found[0], first), found[1], max(found[2], last), y]
        if found:
            areas.append((found[0] + max(0, px0), found[1], found[2] + max(0, px0) + 1,
                          found[3] + 1))
    if not areas:
        return []
    added = []
    for (x0, y0, x1, y1), read in zip(areas, reread(areas), strict=True):
        if not _CELL_NUMBER.fullmatch(read):
            continue
        step = (x1 - x0) * scale_x / len(read)
        boxes = [value for k in range(len(read)) for value in (
            x0 * scale_x + k * step, y0 * scale_y, x0 * scale_x + (k + 1) * step, y1 * scale_y)]
        added.append([_line([read], boxes)])
    return added


def _unread_list_numbers(
    paragraphs: list[list[Line]],
    columns: Callable[[int, int, int, int], list[tuple[int, int] | None]],
    scale_x: float, scale_y: float, reread: Callable[[Sequence[_Area]], list[str]],
) -> None:
    """A numbered paragraph's number that Tesseract left unread ("2." and
    "3." of a report's numbered paragraphs, "1." read) read again and
    written at the start of the paragraph's first line.

    The ink left of a paragraph's first line, within
    :data:`_HUNG_NUMBER_REACH` line heights, in the line's band, on paper
    no read line covers: its glyphs (inked columns at most half a line
    height apart), the rightmost standing :data:`_HUNG_NUMBER_GAP` of a
    line height or more before the line. Kept when read again as a list's
    number (:data:`_HUNG_NUMBER_READ`: digits or a letter closed by a stop
    or a bracket); a bullet, a drop cap or a figure's edge reads otherwise."""
    every = [line for paragraph in paragraphs for line in paragraph]
    found: list[tuple[Line, tuple[int, int, int, int]]] = []
    for paragraph in paragraphs:
        # Its first line of words (marks read off the paper come first at times).
        first = next((line for line in paragraph if line.text[:1].isalnum()), paragraph[0])
        if not first.horizontal or not first.text[:1].isalnum():
            continue
        height = first.y1 - first.y0
        left = first.x0 - _HUNG_NUMBER_REACH * height
        if any(other is not first and left < other.x1 <= first.x0
               and first.y0 <= (other.y0 + other.y1) / 2 <= first.y1 for other in every):
            continue  # read text there: no number left unread
        x0, x1 = max(0, int(left / scale_x)), int(first.x0 / scale_x)
        y0, y1 = int(first.y0 / scale_y), int(first.y1 / scale_y)
        if x1 - x0 < 2 or y1 <= y0:
            continue
        inked = columns(x0, x1, y0, y1)
        gap = _HUNG_NUMBER_GAP * height / scale_x
        glyph_gap = 0.5 * height / scale_x
        right = next((k for k in range(len(inked) - 1, -1, -1) if inked[k] is not None), None)
        if right is None or (x1 - (x0 + right)) < gap:
            continue
        start, blank = right, 0
        for k in range(right, -1, -1):
            if inked[k] is None:
                blank += 1
                if blank > glyph_gap:
                    break
            else:
                start, blank = k, 0
        rows = [row for row in inked[start : right + 1] if row is not None]
        top, bottom = min(row[0] for row in rows), max(row[1] for row in rows) + 1
        if (bottom - top) * scale_y > 1.5 * height or (right + 1 - start) * scale_x > 2 * height:
            continue
        found.append((first, (x0 + start, top, x0 + right + 1, bottom)))
    if not found:
        return
    for (first, (ax0, _, ax1, _)), read in zip(
            found, reread([area for _, area in found]), strict=True):
        if not _HUNG_NUMBER_READ.fullmatch(read):
            continue
        # Written into the line, a space between, as a text layer's line
        # holds its number: a line beside it would make the paragraph no
        # paragraph (lines side by side), a table's row for the table reader.
        step = (ax1 - ax0) * scale_x / len(read)
        boxes = [value for k in range(len(read)) for value in (
            ax0 * scale_x + k * step, first.y0, ax0 * scale_x + (k + 1) * step, first.y1)]
        first.boxes[:0] = [*boxes, ax1 * scale_x, first.y0, first.x0, first.y1]
        first.text = f"{read} {first.text}"
        first.x0 = ax0 * scale_x


def _labels_put_back(paragraphs: list[list[Line]]) -> list[list[Line]]:
    """Each list label Tesseract read as a line of its own (see
    :data:`_LIST_LABEL`) written at the start of the line it stands level
    with (in its paragraph or another), the nearest to its right within
    :data:`_LIST_LABEL_REACH` of that line's height, no other line
    between; ``paragraphs`` without the labels so placed. A label with no
    such line stays where it is, as does one that Tesseract read right
    before its line."""
    every = [line for paragraph in paragraphs for line in paragraph if line.horizontal]
    # A label right before its line in Tesseract's order reads so already
    # (a worksheet's "1." and "Enter the total ..."): left as it is.
    after = {id(one): other for paragraph in paragraphs for one, other in pairwise(paragraph)}
    hosts: dict[int, tuple[Line, Line]] = {}  # id(label) -> (label, host)
    for label in every:
        if not _LIST_LABEL.fullmatch(label.text.strip()):
            continue
        middle = (label.y0 + label.y1) / 2
        level = [line for line in every if line.x0 > label.x1
                 and line.y0 <= middle <= line.y1
                 and abs((line.y0 + line.y1) / 2 - middle) <= (line.y1 - line.y0) / 3]
        if not level:
            continue
        host = min(level, key=lambda line: line.x0)
        if (host.x0 - label.x1 > _LIST_LABEL_REACH * (host.y1 - host.y0)
                or _LIST_LABEL.fullmatch(host.text.strip()) or after.get(id(label)) is host):
            continue
        hosts[id(label)] = (label, host)
    if not hosts:
        return paragraphs
    written: dict[int, Line] = {}  # id(host) -> the host with its label
    for label, host in hosts.values():
        top, bottom = min(label.y0, host.y0), max(label.y1, host.y1)
        written[id(host)] = _line([label.text.strip(), " ", host.text], [
            *label.boxes[: 4 * len(label.text.strip())], label.x1, top, host.x0, bottom,
            *host.boxes])
    kept = [[written.get(id(line), line) for line in paragraph if id(line) not in hosts]
            for paragraph in paragraphs]
    return [paragraph for paragraph in kept if paragraph]


def _apart_from_grids(paragraphs: list[list[Line]], page_rules: Rules) -> list[list[Line]]:
    """Tesseract's paragraphs cut in two where they hold lines inside a
    ruled grid's cells and lines outside every cell: the grid's lines, then
    the others, each in their order.

    A small table ruled all round, set beside a column of prose, is read in
    bands straight across both: a paragraph of the prose's lines and the
    rows beside them. Kept whole, it is no paragraph of prose (its lines
    stand side by side) and the table reader takes the prose's lines for
    the table's first column. A text layer has the column's paragraph and
    the table's cells in blocks apart, and so must the scan."""
    cells = _grid_cells(page_rules)
    if not cells:
        return paragraphs

    def in_a_cell(line: Line) -> bool:
        x, y = (line.x0 + line.x1) / 2, (line.y0 + line.y1) / 2
        return any(x0 <= x <= x1 and y0 <= y <= y1 for x0, y0, x1, y1 in cells)

    cut: list[list[Line]] = []
    for lines in paragraphs:
        inside = [line for line in lines if in_a_cell(line)]
        if not inside or len(inside) == len(lines):
            cut.append(lines)
            continue
        cut.append(inside)
        cut.append([line for line in lines if not in_a_cell(line)])
    return cut


def _cut_around_others(paragraphs: list[list[Line]]) -> list[list[Line]]:
    """Tesseract's paragraphs cut between two lines that have another
    paragraph's line between them (above one, below the other, across the
    same stretch of the page). Tesseract sometimes files a paragraph's first
    line apart (a note beside an icon: the icon's height moves its first line
    into a paragraph of its own, the rest into the paragraph above); kept
    whole, the paragraph would be read before that line."""
    if len(paragraphs) < 2:
        return paragraphs
    # Every line by the height of its middle, to find those between two lines.
    middles = sorted((((line.y0 + line.y1) / 2, index, line)
                      for index, paragraph in enumerate(paragraphs) for line in paragraph),
                     key=lambda entry: entry[0])
    heights = [middle for middle, _, _ in middles]
    cut: list[list[Line]] = []
    for index, lines in enumerate(paragraphs):
        piece = [lines[0]]
        for above, below in pairwise(lines):
            left, right = min(above.x0, below.x0), max(above.x1, below.x1)
            between = middles[bisect_left(heights, above.y1):bisect_right(heights, below.y0)]
            if any(k != index and min(right, line.x1) > max(left, line.x0)
                   for _, k, line in between):
                cut.append(piece)
                piece = []
            piece.append(below)
        cut.append(piece)
    return cut


def _rows_rejoined(paragraphs: list[list[Line]],
                   ruled_apart: Callable[[Line, Line], bool] | None = None
                   ) -> list[list[Line]]:
    """Lines of two paragraphs that stand on one baseline within the join
    gap (:func:`_joins`) made one line, in the left one's paragraph.

    Tesseract reads a table without rules as columns, each a paragraph (the
    codes of a list, then the names beside them); a text layer has each
    row's cells on one line ("169002 Scott County Foundation"), and so must
    the scan, or a row quoted as printed is not found."""
    lines = sorted(((line, index) for index, paragraph in enumerate(paragraphs)
                    for line in paragraph), key=lambda pair: pair[0].x0)
    starts = [line.x0 for line, _ in lines]  # lines' left edges, in order
    gone: set[int] = set()
    for left, left_paragraph in lines:
        if id(left) in gone:
            continue
        # Only lines starting within reach of its end; the end moves on as
        # lines are joined to it.
        at = bisect_left(starts, left.x1)
        while at < len(lines) and starts[at] <= left.x1 + _LABEL_GAP_LINES * (left.y1 - left.y0):
            right, right_paragraph = lines[at]
            at += 1
            if (right_paragraph != left_paragraph and id(right) not in gone
                    and _joins(left, right)
                    and (ruled_apart is None or not ruled_apart(left, right))):
                _append(left, right)
                gone.add(id(right))
    if not gone:
        return paragraphs
    kept = [[line for line in paragraph if id(line) not in gone] for paragraph in paragraphs]
    return [paragraph for paragraph in kept if paragraph]


def _justified_rejoined(paragraphs: list[list[Line]],
                        ruled_apart: Callable[[Line, Line], bool] | None = None,
                        ruled_edge: Callable[[Line], bool] | None = None,
                        ) -> list[list[Line]]:
    """The pieces of a justified line cut at its wide spaces made one line
    again, in the first piece's paragraph (see :data:`_JUSTIFIED_GAP_LINES`);
    never across a table's rule (``ruled_apart``). A line ending by a cell's
    rule (``ruled_edge``) ends at its column's edge."""
    lines = sorted(((line, index) for index, paragraph in enumerate(paragraphs)
                    for line in paragraph), key=lambda pair: pair[0].x0)
    if len(lines) < 3:
        return paragraphs
    starts = [line.x0 for line, _ in lines]  # lines' left edges, in order
    gone: set[int] = set()
    for left, _ in lines:
        if id(left) in gone:
            continue
        chain = [left]
        while True:
            last = chain[-1]
            reach = last.x1 + _JUSTIFIED_GAP_LINES * (last.y1 - last.y0)
            following = [line for line, _ in lines[bisect_left(starts, last.x1):
                                                   bisect_right(starts, reach)]
                         if id(line) not in gone and all(line is not piece for piece in chain)
                         and _same_row(left, line)
                         and (ruled_apart is None or not ruled_apart(last, line))]
            if not following:
                break
            chain.append(min(following, key=lambda line: line.x0))
        if len(chain) > 1 and _justified(chain, [line for line, _ in lines
                                                 if id(line) not in gone], ruled_edge):
            for right in chain[1:]:
                _append(left, right)
                gone.add(id(right))
    if not gone:
        return paragraphs
    kept = [[line for line in paragraph if id(line) not in gone] for paragraph in paragraphs]
    return [paragraph for paragraph in kept if paragraph]


def _same_row(left: Line, right: Line) -> bool:
    height = left.y1 - left.y0
    return (abs((right.y1 - right.y0) - height) <= _SAME_SIZE * height
            and abs(right.y1 - left.y1) <= _SAME_BASELINE * height)


def _justified(chain: list[Line], lines: list[Line],
               ruled_edge: Callable[[Line], bool] | None = None) -> bool:
    """``chain``'s pieces (left to right, on one baseline) are one justified
    line of a column whose other lines are among ``lines``, or of a ruled
    cell whose rule is right of its end (``ruled_edge``: a cell of two
    lines has no other line set to its edge)."""
    height = chain[0].y1 - chain[0].y0
    wide = [(before.x1, after.x0) for before, after in pairwise(chain)]
    spaces = [right - left for left, right in wide]
    for piece in chain:
        spaces += [piece.boxes[4 * k + 2] - piece.boxes[4 * k]
                   for k, char in enumerate(piece.text) if char == " "]
    if (len(spaces) < _JUSTIFIED_MIN_SPACES
            or max(spaces) > _JUSTIFIED_SPREAD * max(min(spaces), 1e-6)):
        return False
    x0, x1, top, bottom = chain[0].x0, chain[-1].x1, chain[0].y0, chain[0].y1
    column = [line for line in lines
              if all(line is not piece for piece in chain) and line.x1 > x0 and line.x0 < x1
              and abs((line.y1 - line.y0) - height) <= _SAME_SIZE * height
              and abs(line.y1 - bottom) <= _JUSTIFIED_REACH * height]
    # The column's right edge: another line of it ends there, or a cell's rule.
    if not any(abs(line.x1 - x1) <= _JUSTIFIED_EDGE * height for line in column) and (
            ruled_edge is None or not ruled_edge(chain[-1])):
        return False
    for below in (True, False):
        # The line next to it in its column: pieces a line height or less
        # below (above) it.
        row = [line for line in column
               if (0 <= line.y0 - bottom <= height if below else 0 <= top - line.y1 <= height)]
        inked = [(line.boxes[4 * k], line.boxes[4 * k + 2]) for line in row
                 for k, char in enumerate(line.text) if char != " "]
        # A gutter is blank there with ink on both sides; that line has
        # ink over each wide space, or none right of it (a paragraph's
        # short last line).
        if inked and all(any(c0 <= (left + right) / 2 <= c1 for c0, c1 in inked)
                         or all(c0 <= (left + right) / 2 for c0, _ in inked)
                         for left, right in wide):
            return True
    return False


def _joins(left: Line, right: Line) -> bool:
    """``right`` carries ``left`` on: the same size, the same baseline, a
    word space to :func:`_gap_limit` line heights to its right."""
    height = left.y1 - left.y0
    return (abs((right.y1 - right.y0) - height) <= _SAME_SIZE * height
            and abs(right.y1 - left.y1) <= _SAME_BASELINE * height
            and 0 <= right.x0 - left.x1 <= _gap_limit(left.text) * height)


def _gap_limit(before: str) -> float:
    """How many line heights a gap after ``before`` may be within a line."""
    return JOIN_GAP_LINES if any(char.isalpha() for char in before) else _LABEL_GAP_LINES


def _append(left: Line, right: Line) -> None:
    # The space between them gets a box over the gap, as within a line.
    left.text += " " + right.text
    left.boxes += [left.x1, left.y0, right.x0, left.y1, *right.boxes]
    left.y0, left.y1 = min(left.y0, right.y0), max(left.y1, right.y1)
    left.x1 = right.x1


def _on_rule(x0: float, x1: float, top: float, bottom: float, vertical: list[Rule],
             glyph: str = "") -> bool:
    """A vertical rule runs through the box (x0, top, x1, bottom). Where
    Tesseract read it as a bracket (``glyph``), the rule reaches past the
    line too: a bracket's own stroke spans its line's height, 12 points
    and more at 12-point type, long enough to be found as a rule (a model
    act's placeholders, "[6] months", lost their brackets and broke the
    line at each)."""
    bracket = glyph in _BRACKETS
    return any(x0 - 1.0 <= at <= x1 + 1.0 and start <= (top + bottom) / 2 <= end
               and (not bracket or start < top - _RULE_PAST_LINE
                    or end > bottom + _RULE_PAST_LINE)
               for start, end, at in vertical)


def _line(text: list[str], boxes: list[float]) -> Line:
    return Line("".join(text), boxes, min(boxes[0::4]), min(boxes[1::4]),
                max(boxes[2::4]), max(boxes[3::4]), True)


def _line_words(line: ElementTree.Element) -> list[_Word]:
    """A line's words: text (control characters and blanks dropped), one
    (x0, x1) in pixels per character, the word's confidence, and one
    (y0, y1) in pixels per character."""
    words = []
    for word in line.iter(f"{_HOCR}span"):
        if "ocrx_word" not in word.get("class", ""):
            continue
        title = word.get("title", "")
        found = _WORD_CONFIDENCE.search(title)
        confidence = float(found.group(1)) if found else 0.0
        text: list[str] = []
        spans: list[tuple[int, int]] = []
        heights: list[tuple[int, int]] = []
        for char in word.iter(f"{_HOCR}span"):
            if "ocrx_cinfo" not in char.get("class", ""):
                continue
            box = _CHAR_BOX.search(char.get("title", ""))
            glyphs = "".join(c for c in (char.text or "") if c.isprintable() and not c.isspace())
            if box is None or not glyphs:
                continue
            x0, y0, x1, y1 = (int(v) for v in box.groups())
            # One box read as several characters (a ligature): each its share.
            step = (x1 - x0) / len(glyphs)
            for k, glyph in enumerate(glyphs):
                text.append(glyph)
                spans.append((round(x0 + k * step), round(x0 + (k + 1) * step)))
                heights.append((y0, y1))
        if not text:
            # No character boxes: the word's box shared evenly between its letters.
            box_of_word = _title_box(title)
            letters = "".join(c for c in "".join(word.itertext())
                              if c.isprintable() and not c.isspace())
            if box_of_word is None or not letters:
                continue
            x0, y0, x1, y1 = box_of_word
            step = (x1 - x0) / len(letters)
            text = list(letters)
            spans = [(round(x0 + k * step), round(x0 + (k + 1) * step))
                     for k in range(len(letters))]
            heights = [(y0, y1)] * len(letters)
        words.append(("".join(text), spans, confidence, heights))
    return words


# Two readings of one glyph boxed apart stand closer than this many line
# heights (a word space is about a quarter of one).
_SAME_GLYPHS_GAP = 0.2


def _one_reading_each(lines: list[list[_Word]]) -> list[list[_Word]]:
    """The words of one paragraph's lines (as :func:`_line_words` gives
    them) with each printed word read once.

    Where a table's rows stand beside a column of prose on other baselines,
    Tesseract may read one printed line as two of its lines, each with a
    row of the table: "percent respectively in (Table 1)." and "ively in
    2022/23 (Table 1", the second a part of the first read again with the
    word the first left out. A word of an earlier line lying on a later
    line's words (half their height or more in common) and across one of
    them is a second reading and is dropped; once one is, the earlier
    line's other words on that printed line, between the later line's
    words there, are words the later line left out and go into it."""
    merged = [list(words) for words in lines]
    for i, j in combinations(range(len(lines)), 2):
        later = merged[j]
        if not later or not merged[i]:
            continue
        kept: list[_Word] = []
        moved: list[_Word] = []
        dropped = 0
        for word in merged[i]:
            on_line = [other for other in later if _same_printed_line(word, other)]
            if not on_line:
                kept.append(word)
            elif any(_x_overlap(word, other) for other in on_line):
                dropped += 1
            elif on_line[0][1][0][0] < word[1][0][0] and word[1][-1][1] < on_line[-1][1][-1][1]:
                # Closer to the next word than a word space and the start
                # of it ("1" before "1)."): the same glyphs, boxed apart.
                after = min((other for other in on_line if other[1][0][0] >= word[1][-1][1]),
                            key=lambda other: other[1][0][0], default=None)
                if after is None or not (
                        after[0].startswith(word[0]) and after[1][0][0] - word[1][-1][1]
                        < _SAME_GLYPHS_GAP * (max(y1 for _, y1 in after[3])
                                              - min(y0 for y0, _ in after[3]))):
                    moved.append(word)
            else:
                kept.append(word)
        if dropped:
            # What is left of the second reading across the later line's
            # words, in their band, is more of it (a word boxed too small).
            merged[i] = [word for word in kept if not any(
                _x_overlap(word, other) and _in_band(word, other) for other in later)]
            merged[j] = sorted(later + moved, key=lambda word: word[1][0][0])
    return merged


def _x_overlap(word: _Word, other: _Word) -> bool:
    return word[1][0][0] < other[1][-1][1] and other[1][0][0] < word[1][-1][1]


def _in_band(word: _Word, other: _Word) -> bool:
    middle = (min(y0 for y0, _ in word[3]) + max(y1 for _, y1 in word[3])) / 2
    top, bottom = min(y0 for y0, _ in other[3]), max(y1 for _, y1 in other[3])
    return top - 0.25 * (bottom - top) <= middle <= bottom


def _same_printed_line(word: _Word, other: _Word) -> bool:
    top, bottom = min(y0 for y0, _ in word[3]), max(y1 for _, y1 in word[3])
    other_top, other_bottom = min(y0 for y0, _ in other[3]), max(y1 for _, y1 in other[3])
    common = min(bottom, other_bottom) - max(top, other_top)
    return common >= 0.5 * max(bottom - top, other_bottom - other_top)


def _without_second_readings(
    text: str, spans: list[tuple[int, int]], heights: list[tuple[int, int]],
    inked: Callable[[int, int, int, int], bool],
) -> tuple[str, list[tuple[int, int]], list[tuple[int, int]]]:
    """The word without the signs that hold no ink of their own: a sign
    (:data:`_SIGN_CATEGORIES`) whose box, right of the character kept before
    it, is blank paper is that glyph read a second time. A character with a
    box of no width or height (a page read sideways) is kept: its box says
    nothing."""
    kept = [0]
    for k in range(1, len(text)):
        (x0, x1), (y0, y1) = spans[k], heights[k]
        if x1 > x0 and y1 > y0:
            own = max(x0, spans[kept[-1]][1])  # left of this, the glyph before it
            category = unicodedata.category(text[k])
            if category in _SIGN_CATEGORIES and (x1 <= own or not inked(own, y0, x1, y1)):
                continue
            if category[0] == "P" and x1 - x0 <= _SLIVER and x1 <= own:
                continue  # a sliver on the glyph before's edge ("CML-BC.”*””")
        kept.append(k)
    if len(kept) == len(text):
        return text, spans, heights
    return ("".join(text[k] for k in kept), [spans[k] for k in kept],
            [heights[k] for k in kept])


def _sideways_line(line: ElementTree.Element, angle: int, scale_x: float, scale_y: float,
                   text_layer: list[tuple[float, float, float, float]],
                   ) -> tuple[Line, list[float]] | None:
    """A line Tesseract read sideways (``textangle`` ``angle``: 90 reads up
    the page, 270 down it) as one vertical line, and its words'
    confidences; None when no word is left. Tesseract gives such a line's
    characters flat boxes at made-up places (across the column beside
    it), so each word's box (which is where it is printed) is shared along
    the reading direction between its letters. Words on ``text_layer``'s
    glyphs are left out, as on upright lines."""
    text: list[str] = []
    boxes: list[float] = []
    confidences: list[float] = []
    previous: tuple[float, float, float, float] | None = None
    for word in line.iter(f"{_HOCR}span"):
        if "ocrx_word" not in word.get("class", ""):
            continue
        title = word.get("title", "")
        found = _title_box(title)
        letters = "".join(c for c in "".join(word.itertext())
                          if c.isprintable() and not c.isspace())
        if found is None or not letters:
            continue
        x0, y0, x1, y1 = (found[0] * scale_x, found[1] * scale_y, found[2] * scale_x,
                          found[3] * scale_y)
        if text_layer and _on_text_layer((x0, y0, x1, y1), text_layer):
            continue
        if previous is not None:
            # The space between two words: a box over the gap along the line.
            gap = (previous[1], y1) if angle == 90 else (previous[3], y0)
            text.append(" ")
            boxes += (min(x0, previous[0]), min(gap), max(x1, previous[2]), max(gap))
        step = (y1 - y0) / len(letters)
        for k in range(len(letters)):
            if angle == 90:
                boxes += (x0, y1 - (k + 1) * step, x1, y1 - k * step)
            else:
                boxes += (x0, y0 + k * step, x1, y0 + (k + 1) * step)
        text.append(letters)
        found_confidence = _WORD_CONFIDENCE.search(title)
        confidences.append(float(found_confidence.group(1)) if found_confidence else 0.0)
        previous = (x0, y0, x1, y1)
    if not text:
        return None
    return Line("".join(text), boxes, min(boxes[0::4]), min(boxes[1::4]), max(boxes[2::4]),
                max(boxes[3::4]), False), confidences


def _barred(spans: list[tuple[int, int]], heights: list[tuple[int, int]], k: int,
            inked: Callable[[int, int, int, int], bool]) -> bool:
    """Whether character ``k`` (a ">" or "<") has a bar under it
    (:data:`_BAR_WIDTH`): it is printed "≥" or "≤"."""
    (x0, x1), (y0, y1) = spans[k], heights[k]
    width, height = x1 - x0, y1 - y0
    if width <= 0 or height <= 0:
        return False

    def across(y: int) -> bool:  # the row inked over the bar's share of the width
        return sum(1 for x in range(x0, x1) if inked(x, y, x + 1, y + 1)) >= _BAR_WIDTH * width

    # The lowest inked row, from the reach under the box up.
    bottom = next((y for y in range(y1 + int(_BAR_REACH * height), y0 - 1, -1)
                   if inked(x0, y, x1, y + 1)), None)
    if bottom is None or not across(bottom):
        return False
    top = bottom
    while top > y0 and across(top - 1):
        top -= 1
    # Not too tall; a blank row over it, the chevron's ink over that.
    gap = top - 1
    return (bottom - top + 1 <= _BAR_HEIGHT * height and gap > y0
            and not inked(x0, gap, x1, gap + 1) and inked(x0, y0, x1, gap))


def _crossed(spans: list[tuple[int, int]], heights: list[tuple[int, int]], k: int,
             inked: Callable[[int, int, int, int], bool]) -> bool:
    """Whether character ``k`` (a "<" or ">") is inked as a cross: it is
    printed "×" (see :data:`_CROSS_SIDE`)."""
    (x0, x1), (y0, y1) = spans[k], heights[k]
    columns = [x for x in range(x0, x1) if inked(x, y0, x + 1, y1)]
    if len(columns) < 3:
        return False
    # Tesseract's box may hold half the sign (a "<" boxed from its middle
    # on, its point left out): the ink is followed out of the box, as far
    # as the box is tall, to a blank column.
    left, right = columns[0], columns[-1] + 1
    while left > x0 - (y1 - y0) and inked(left - 1, y0, left, y1):
        left -= 1
    while right < x1 + (y1 - y0) and inked(right, y0, right + 1, y1):
        right += 1
    rows = [y for y in range(y0, y1) if inked(left, y, right, y + 1)]
    if len(rows) < 3:
        return False
    top, bottom = rows[0], rows[-1] + 1
    side = max(1, round(_CROSS_SIDE * (right - left)))
    corner = max(1, round(_CROSS_CORNER * (bottom - top)))
    middle = max(1, round(_CROSS_MIDDLE * (bottom - top)))
    middle_top = (top + bottom - middle) // 2
    for a, b in ((left, left + side), (right - side, right)):
        if (not inked(a, top, b, top + corner) or not inked(a, bottom - corner, b, bottom)
                or inked(a, middle_top, b, middle_top + middle)):
            return False
    return True


def _blank_paper(x0: int, y0: int, x1: int, y1: int,
                 inked: Callable[[int, int, int, int], bool]) -> bool:
    """Whether the box (pixels) is blank paper: no ink in it, and not a
    light glyph printed on a dark ground (the ring of pixels around it
    inked over :data:`_DARK_GROUND` of its length)."""
    if x1 <= x0 or y1 <= y0 or inked(x0, y0, x1, y1):
        return False
    ring = [(x, y) for x in range(x0 - 1, x1 + 1) for y in (y0 - 1, y1)]
    ring += [(x, y) for x in (x0 - 1, x1) for y in range(y0, y1)]
    dark = sum(1 for x, y in ring if inked(x, y, x + 1, y + 1))
    return dark <= _DARK_GROUND * len(ring)


def _without_phantoms(
    text: str, spans: list[tuple[int, int]], heights: list[tuple[int, int]],
    inked: Callable[[int, int, int, int], bool],
) -> tuple[str, list[tuple[int, int]], list[tuple[int, int]]]:
    """The word without the marks read off blank paper
    (:data:`_PHANTOM_CATEGORIES`): "" when it has no letter or digit and no
    ink in its box (a pixel around), else without an opening or closing mark
    whose own columns (those right of the glyph before it, or left of the
    glyph after it) are blank paper (:func:`_blank_paper`: a light mark on
    a dark ground is printed). A box of no width or height (a page read
    sideways) says nothing: the word is kept."""
    if any(x1 <= x0 for x0, x1 in spans) or any(y1 <= y0 for y0, y1 in heights):
        return text, spans, heights
    if not any(char.isalnum() for char in text):
        if not inked(spans[0][0] - 1, min(y0 for y0, _ in heights) - 1, spans[-1][1] + 1,
                     max(y1 for _, y1 in heights) + 1):
            return "", [], []
        return text, spans, heights
    first, last = 0, len(text)
    while last - first > 1 and unicodedata.category(text[first]) in _PHANTOM_CATEGORIES:
        x0, x1 = spans[first][0], min(spans[first][1], spans[first + 1][0])
        if x1 > x0 and not _blank_paper(x0, heights[first][0], x1, heights[first][1], inked):
            break
        first += 1
    while last - first > 1 and unicodedata.category(text[last - 1]) in _PHANTOM_CATEGORIES:
        x0, x1 = max(spans[last - 1][0], spans[last - 2][1]), spans[last - 1][1]
        if x1 > x0 and not _blank_paper(x0, heights[last - 1][0], x1, heights[last - 1][1],
                                        inked):
            break
        last -= 1
    if (first, last) == (0, len(text)):
        return text, spans, heights
    return text[first:last], spans[first:last], heights[first:last]


def _baseline(title: str, box: tuple[int, int, int, int]) -> Callable[[float], float]:
    """The line's baseline (pixels) as a function of x, from hOCR's
    ``baseline slope offset`` (from the box's bottom left); the box's bottom
    when it is not given."""
    found = _BASELINE.search(title)
    if found is None:
        return lambda x: float(box[3])
    slope, offset = float(found.group(1)), float(found.group(2))
    return lambda x: box[3] + offset + slope * (x - box[0])


def _marker_min_height(title: str, x_size: float) -> float:
    """The least height (pixels) of a footnote marker's glyphs on the line
    whose hOCR title is ``title``: :data:`_MARKER_MIN_BODY` of the size
    above its descenders where Tesseract gives them, never more than
    :data:`_MARKER_MIN_SIZE` of its size, which holds where it does not."""
    descenders = _DESCENDERS.search(title)
    if descenders is None or not 0 < float(descenders.group(1)) < x_size / 2:
        return _MARKER_MIN_SIZE * x_size
    return min(_MARKER_MIN_SIZE * x_size,
               _MARKER_MIN_BODY * (x_size - float(descenders.group(1))))


def _raised_from(text: str, spans: list[tuple[int, int]], heights: list[tuple[int, int]],
                 baseline: Callable[[float], float], x_size: float, marker_min: float) -> int:
    """Where the word's closing run of small raised glyphs starts (a
    footnote marker printed after it: "regimens.⁹,²⁰"), or ``len(text)``.
    Raised: the glyph's bottom at least :data:`_MARKER_RISE` of the line's
    size above the baseline; a glyph at the line's size (a capital, a
    digit) sits on it. A run shorter than :data:`_MARKER_MIN_SIZE` of the
    size (``marker_min`` pixels, :func:`_marker_min_height`) is a quote
    mark, not a marker. The run must follow a letter or punctuation after
    one (after a digit it is an exponent, or a degree sign), or a percent sign: nothing
    is raised to a power after a share ("was 10%³ which", a statistic and its source),
    and Tesseract reads that marker as "?", "°" or a quote mark at its size."""
    start = len(text)
    while start > 0 and _small_raised(spans[start - 1], heights[start - 1], baseline, x_size):
        start -= 1
    if start == len(text) or start == 0:
        return len(text)
    after_percent = text[start - 1] == "%"
    if not MARKED_BY.fullmatch(text[start - 1]) and not after_percent:
        return len(text)
    if (max(bottom for _, bottom in heights[start:]) - min(top for top, _ in heights[start:])
            < marker_min):
        return len(text)  # a closing quote mark or an apostrophe: too short for a digit
    if (start >= 2 and not after_percent and not text[start - 1].isalpha()
            and not text[start - 2].isalpha()):
        return len(text)
    return start


def _small_raised(span: tuple[int, int], height: tuple[int, int],
                  baseline: Callable[[float], float], x_size: float) -> bool:
    """The glyph stands raised, its bottom at least :data:`_MARKER_RISE`
    of the line's size above the baseline, and small, at most
    :data:`_MARKER_SIZE` of it tall."""
    top, bottom = height
    return (bottom <= baseline((span[0] + span[1]) / 2) - _MARKER_RISE * x_size
            and bottom - top <= _MARKER_SIZE * x_size)


def _raised_inside(text: str, spans: list[tuple[int, int]], heights: list[tuple[int, int]],
                   baseline: Callable[[float], float], x_size: float
                   ) -> tuple[int, int] | None:
    """Where a run of small raised glyphs inside the word starts and ends
    (see :data:`_RAISED_WORD_READ`), or None: glyphs raised and small as a
    marker's (:func:`_small_raised`), together at least
    :data:`_RAISED_INSIDE_MIN_SIZE` of the line's size tall, after a letter and
    right before the word's last hyphen, letters after it ("KRAS" and a
    raised "G12C" before "-mutated")."""
    hyphen = max(text.rfind(mark) for mark in _HYPHENS)
    rest = text[hyphen + 1 :].rstrip(".,;:)")
    if hyphen < 2 or not rest.isalpha():
        return None
    start = hyphen
    while start > 0 and _small_raised(spans[start - 1], heights[start - 1], baseline, x_size):
        start -= 1
    if start == hyphen or start == 0 or not text[start - 1].isalpha():
        return None
    if (max(bottom for _, bottom in heights[start:hyphen])
            - min(top for top, _ in heights[start:hyphen])
            < _RAISED_INSIDE_MIN_SIZE * x_size):
        return None  # an apostrophe
    return start, hyphen


def _lowered_run(
    spans: list[tuple[int, int]], baseline: Callable[[float], float], x_size: float,
    floor: int, columns: Callable[[int, int, int, int], list[tuple[int, int] | None]],
) -> tuple[int, tuple[int, int, int, int]] | None:
    """Where a word closes on a subscript (see :data:`_SUBSCRIPT_CONFIDENCE`):
    how many of its characters come before it and the subscript's box
    (pixels), or None. The ink decides, column by column: a column of the
    subscript has ink below the baseline (at least :data:`_LOWERED_DROP` of
    the line's size) somewhere, and no column of it has ink crossing the
    height :data:`_LOWERED_TOP` of the size above the baseline (every letter
    at the line's size does, from its x-height down; a capital's arm over
    the subscript stands clear above it). The subscript is the word's
    closing run of columns with no ink crossing there, after a glyph that
    does; Tesseract's characters left of it stay. Only ink down to
    ``floor`` (the line box's bottom, pixels) counts: below it, the next
    line's ascenders stand under a full stop."""
    left, right = spans[0][0], spans[-1][1]
    base = baseline((left + right) / 2)
    cross = round(base - _LOWERED_TOP * x_size)
    low = columns(left, right, cross + 1, min(round(base + 0.5 * x_size), floor + 1))
    crossing = columns(left, right, cross - 1, cross + 1)
    clear = len(low)  # where the closing columns with no ink crossing start
    while clear > 0 and crossing[clear - 1] is None:
        clear -= 1
    if clear == 0:
        return None  # nothing before the run: no glyph it is lowered from
    # The run starts at its first column reaching below the baseline (a
    # capital's foot or a "C"'s open side before it stands on it).
    lowest = base + _LOWERED_DROP * x_size
    first = next((k for k in range(clear, len(low))
                  if low[k] is not None and low[k][1] >= lowest), None)  # type: ignore[index]
    if first is None:
        return None  # on the baseline: a full stop, a hyphen
    inked = [rows for rows in low[first:] if rows is not None]
    top, bottom = min(r[0] for r in inked), max(r[1] for r in inked)
    # And it must sit lower than the glyph before it, by the ink alone: a
    # line whose baseline Tesseract put too high (a heading beside small
    # print, a skewed scan) has small letters standing on their own.
    k = clear - 1
    while k > 0 and crossing[k - 1] is not None:
        k -= 1
    feet = [rows[1] for rows in low[k:clear] if rows is not None]
    if not feet or bottom < max(feet) + _LOWERED_DROP * x_size:
        return None
    last = max(k for k in range(first, len(low)) if low[k] is not None)
    tall, wide = (bottom - top) / x_size, (last - first + 1) / x_size
    if tall < _LOWERED_MIN_SIZE and (tall < 0.25 or wide < 0.3):
        return None  # a comma, not a subscript
    x0 = left + first
    before = sum(1 for c0, c1 in spans if (c0 + c1) / 2 < x0)
    if before == 0 or before == len(spans):
        return None
    return before, (x0, top, left + last + 1, bottom + 1)


def _raised_by_ink(
    text: str, spans: list[tuple[int, int]], baseline: Callable[[float], float],
    x_size: float, marker_min: float, floor: int,
    columns: Callable[[int, int, int, int], list[tuple[int, int] | None]],
) -> tuple[int, int, tuple[int, int, int, int]] | None:
    """Where a word read unsure closes on a footnote marker that Tesseract
    misread as a sign and boxed the line's full height ("tools*," for
    "tools\u00b3,", the "*" boxed from the line's top to below its
    baseline): the sign run's start and end in ``text`` and the marker's ink
    (pixels), or None. :func:`_raised_from` trusts the characters' boxes;
    here the ink decides, column by column, as for a subscript
    (:func:`_lowered_run`). The run is the signs (no letter or digit)
    between the word's last letter and any closing punctuation (".,;:)"),
    punctuation on the line before it left out ("regimens.*", "(CER)*."). Its ink is the word's
    closing group of columns whose ink all stands at least
    :data:`_MARKER_RISE` of the line's size above the baseline, after a
    column reaching lower (the letter) and before any such columns closing
    the word (a comma): together between ``marker_min`` pixels
    (:func:`_marker_min_height`) and :data:`_MARKER_SIZE` of the size tall,
    as a marker's glyphs are, and not
    touching the top of the band looked at (the line above's descenders). An
    asterisk printed raised is found too: read again enlarged it reads as no
    marker, and Tesseract's reading stays."""
    last_letter = max((k for k, char in enumerate(text) if char.isalnum()), default=-1)
    if last_letter < 0 or not text[last_letter].isalpha():
        return None
    start, end = last_letter + 1, len(text)
    while start < end and text[start] in ".,;:)]":
        start += 1
    while end > start and text[end - 1] in ".,;:)":
        end -= 1
    if start == end or any(char.isalnum() or char.isspace() for char in text[start:end]):
        return None
    left, right = spans[last_letter][0], spans[-1][1]
    base = baseline((left + right) / 2)
    band_top = round(base - 1.25 * x_size)
    rise = base - _MARKER_RISE * x_size
    found = columns(left, right, band_top, min(round(base + 0.5 * x_size), floor + 1))

    def low(k: int) -> bool:
        rows = found[k]
        return rows is not None and rows[1] > rise

    k = len(found) - 1
    while k >= 0 and (found[k] is None or low(k)):
        k -= 1  # the closing punctuation, on the baseline
    group_end = k + 1
    while k >= 0 and not low(k):
        k -= 1
    if k < 0:
        return None  # no letter before it
    inked = [(k + 1 + n, rows) for n, rows in enumerate(found[k + 1 : group_end])
             if rows is not None]
    if not inked:
        return None
    top, bottom = min(r[0] for _, r in inked), max(r[1] for _, r in inked)
    if top <= band_top or not marker_min <= bottom - top + 1 <= _MARKER_SIZE * x_size:
        return None
    first, last = inked[0][0], inked[-1][0]
    return start, end, (left + first, top, left + last + 1, bottom + 1)


def _raised_word_by_ink(
    text: str, spans: list[tuple[int, int]], baseline: Callable[[float], float],
    x_size: float, marker_min: float, floor: int,
    columns: Callable[[int, int, int, int], list[tuple[int, int] | None]],
) -> tuple[int, int, int, int] | None:
    """The ink (pixels) of a footnote marker that Tesseract, unsure, read
    as a word of its own after the word it belongs to, signs and digits
    boxed past the line's baseline ("disorders. !3" for "disorders.¹³" at a
    two-column paper's line end), or None. The word has no letter and at
    most :data:`_APART_MARKER_CHARACTERS` characters; the ink in its own
    columns, after any that reach the baseline (the stop before it), stands
    all at least :data:`_MARKER_RISE` of the line's size above the
    baseline, as tall as a marker's glyphs (see :func:`_raised_by_ink`)."""
    if (not text or len(text) > _APART_MARKER_CHARACTERS
            or any(char.isalpha() or char.isspace() for char in text)):
        return None
    # Tesseract's box may cut the marker's first glyph: its ink is looked
    # for from half the line's size before the box, where it runs on.
    reach = round(x_size / 2)
    left, right = spans[0][0] - reach, spans[-1][1]
    base = baseline((left + right) / 2)
    band_top = round(base - 1.25 * x_size)
    rise = base - _MARKER_RISE * x_size
    found = columns(left, right, band_top, min(round(base + 0.5 * x_size), floor + 1))

    def raised(rows: tuple[int, int] | None) -> bool:
        return rows is not None and rows[1] <= rise

    k = reach
    while k < len(found) and not raised(found[k]):
        k += 1  # the stop before the marker, or nothing
    while k > 0 and raised(found[k - 1]):
        k -= 1
    inked = [(k + n, rows) for n, rows in enumerate(found[k:]) if rows is not None]
    if not inked or not all(raised(rows) for _, rows in inked):
        return None
    top, bottom = min(r[0] for _, r in inked), max(r[1] for _, r in inked)
    if top <= band_top or not marker_min <= bottom - top + 1 <= _MARKER_SIZE * x_size:
        return None
    return (left + inked[0][0], top, left + inked[-1][0] + 1, bottom + 1)


def _one_stroke(area: tuple[int, int, int, int], ink: tuple[int, int] | None,
                columns: Callable[[int, int, int, int], list[tuple[int, int] | None]]) -> bool:
    """Whether the ink in ``area`` (pixels; within the columns ``ink``
    where given) is one group of columns at most :data:`_ONE_STROKE_WIDTH`
    of its height wide with a stem, a column inked over
    :data:`_ONE_STROKE_STEM` of that height: a "1"."""
    x0, y0, x1, y1 = area
    if ink is not None:
        x0, x1 = max(x0, ink[0]), min(x1, ink[1])
    found = columns(x0, x1, y0, y1)
    inked = [rows for rows in found if rows is not None]
    first = next((k for k, rows in enumerate(found) if rows is not None), None)
    if first is None or any(rows is None for rows in found[first : first + len(inked)]):
        return False  # no ink, or more than one group
    height = max(r[1] for r in inked) - min(r[0] for r in inked) + 1
    return (len(inked) <= _ONE_STROKE_WIDTH * height
            and max(r[1] - r[0] + 1 for r in inked) >= _ONE_STROKE_STEM * height)


def _raised_past_stop(
    left: int, right: int, band_top: int, baseline: Callable[[float], float], x_size: float,
    marker_min: float, floor: int,
    columns: Callable[[int, int, int, int], list[tuple[int, int] | None]],
) -> tuple[int, int, int, int] | None:
    """The raised ink (pixels) after a stop whose glyph box starts at
    ``left``, up to ``right``, or None: first the stop's own ink, columns
    reaching lower than :data:`_MARKER_RISE` of the line's size above the
    baseline; then paper; then columns whose ink all stands higher, gaps
    of at most :data:`_RAISED_PAST_STOP_GAP` of the size between them (a
    marker's digits), up to any column reaching lower (the next word's
    glyphs). The ink stands below ``band_top`` (where it reaches it, it
    is the line above's) and is as tall as a marker's digits: from
    ``marker_min`` pixels (:func:`_marker_min_height`; an apostrophe is
    shorter) to :data:`_MARKER_SIZE` of the size."""
    base = baseline((left + right) / 2)
    rise = base - _MARKER_RISE * x_size
    found = columns(left, right, band_top, min(round(base + 0.5 * x_size), floor + 1))

    def low(rows: tuple[int, int] | None) -> bool:
        return rows is not None and rows[1] > rise

    k = 0
    while k < len(found) and found[k] is None:
        k += 1
    if k == len(found) or not low(found[k]):
        return None  # no stop first
    while k < len(found) and found[k] is not None:
        if not low(found[k]):
            return None  # raised ink run on from the glyph's: no stop (a letter's arm)
        k += 1
    inked: list[tuple[int, tuple[int, int]]] = []
    gap, widest = 0, _RAISED_PAST_STOP_GAP * x_size
    for n in range(k, len(found)):
        rows = found[n]
        if rows is None:
            gap += 1
            if inked and gap > widest:
                break
            continue
        if low(rows):
            break
        inked.append((n, rows))
        gap = 0
    if not inked:
        return None
    top, bottom = min(r[0] for _, r in inked), max(r[1] for _, r in inked)
    if top <= band_top or not marker_min <= bottom - top + 1 <= _MARKER_SIZE * x_size:
        return None
    return left + inked[0][0], top, left + inked[-1][0] + 1, bottom + 1


def _quotation_open(text: str) -> bool:
    """Whether ``text`` leaves a quotation open: more opening curly double
    quote marks than closing ones."""
    return text.count("\u201c") > text.count("\u201d")


def _past_strokes(area: tuple[int, int, int, int], strokes: int,
                  columns: Callable[[int, int, int, int], list[tuple[int, int] | None]],
                  mark_end: int | None = None) -> int | None:
    """Where (pixels) the ink in ``area`` starts again after its first
    ``strokes`` groups of inked columns (a closing quote mark's strokes),
    or None when nothing follows them. Where the strokes' ink runs together
    (a bold quote mark, thresholded: one group), ``mark_end``, the quote
    mark's right edge as Tesseract boxed the glyph, says where it stops: the
    first group of ink starting past it."""
    x0, y0, x1, y1 = area
    found = columns(x0, x1, y0, y1)
    groups = [k for k in range(len(found))
              if found[k] is not None and (k == 0 or found[k - 1] is None)]
    if len(groups) > strokes:
        return x0 + groups[strokes]
    if mark_end is not None:
        return next((x0 + k for k in groups[1:] if x0 + k >= mark_end), None)
    return None


def _glyph_end_from(line: Line, index: int, x0: int, scale_x: float) -> int | None:
    """The right edge (pixels) of ``line``'s glyph ``index`` as Tesseract
    boxed it, when an area starting at ``x0`` starts with it (None when
    the area starts past it: its ink was found apart, the glyph not in it)."""
    start, end = line.boxes[4 * index] / scale_x, line.boxes[4 * index + 2] / scale_x
    return round(end) if x0 <= round(start) + 1 else None


def _write_run(line: Line, start: int, end: int, written_text: str) -> None:
    """``line``'s characters ``start``-``end`` replaced by ``written_text``,
    spread over the same width."""
    boxes = line.boxes
    x0, x1 = boxes[4 * start], boxes[4 * (end - 1) + 2]
    top, bottom = boxes[4 * start + 1], boxes[4 * start + 3]
    step = (x1 - x0) / len(written_text)
    written: list[float] = []
    for k in range(len(written_text)):
        written += (x0 + k * step, top, x0 + (k + 1) * step, bottom)
    line.text = line.text[:start] + written_text + line.text[end:]
    line.boxes = boxes[: 4 * start] + written + boxes[4 * end :]


def _reread_markers(pixels: bytes, stride: int, areas: Sequence[_Area],
                    options: OcrOptions, dpi: int, *, number: int, pages: int, limits: Any,
                    shades: bytes | None = None) -> list[str]:
    """What Tesseract reads in each of ``areas`` (pixels of the page's
    picture ``pixels``, see :data:`_Area`; ``shades`` translates them to
    grey, as :data:`_PAPER` the ink) enlarged :data:`_MARKER_ZOOM` times,
    with a margin around each: pictures with the areas
    one under another, each read as a line of its own ("" where none is),
    as many pictures as keep each under :data:`_MAX_PICTURE_SIDE` (a page of
    footnotes, or a sideways scan's letters taken for raised glyphs, has
    more than one picture holds); an area wider than that alone is not read
    again (""). Where an area gives the columns its ink lies in, the margin
    holds no ink outside them (the glyphs beside a raised run)."""
    zoom = _MARKER_ZOOM
    pieces: list[tuple[int, int, bytes]] = []  # width, height, pixels (enlarged)
    for area in areas:
        x0, y0, x1, y1 = area[:4]
        margin = max(2, (y1 - y0) // 3)
        inner = x0, x1
        x0, y0, x1, y1 = max(0, x0 - margin), max(0, y0 - margin), x1 + margin, y1 + margin
        x1 = min(x1, stride)
        # Columns of the picture at its left and right that are paper
        # whatever the page has there: the glyphs beside the area.
        left = max(0, min(area[4], inner[0]) - x0) if len(area) > 4 else 0
        right = max(0, x1 - max(area[5], inner[1])) if len(area) > 4 else 0
        rows = []
        for y in range(y0, min(y1, len(pixels) // stride)):
            row = pixels[y * stride + x0 : y * stride + x1]
            if shades is not None:
                row = row.translate(shades)
            if left or right:
                row = b"\xff" * left + row[left : len(row) - right] + b"\xff" * right
            wide = bytes(value for value in row for _ in range(zoom))
            rows += [wide] * zoom
        if rows:
            pieces.append((len(rows[0]), len(rows), b"".join(rows)))
        else:
            pieces.append((1, 1, b"\xff"))
    found = [""] * len(areas)
    batch: list[int] = []  # the areas of the next picture
    for index, (piece_width, height, _) in enumerate(pieces):
        gap = 2 * max([height] + [pieces[k][1] for k in batch])
        if piece_width + 2 * gap > _MAX_PICTURE_SIDE or 3 * gap + height > _MAX_PICTURE_SIDE:
            continue  # too large even alone: left as Tesseract read it
        tall = gap + sum(pieces[k][1] + gap for k in batch) + height + gap
        if batch and tall > _MAX_PICTURE_SIDE:
            _reread_picture([pieces[k] for k in batch], batch, found, options, dpi * zoom,
                            number=number, pages=pages, limits=limits)
            batch = []
        batch.append(index)
    if batch:
        _reread_picture([pieces[k] for k in batch], batch, found, options, dpi * zoom,
                        number=number, pages=pages, limits=limits)
    return found


def _reread_picture(pieces: list[tuple[int, int, bytes]], indexes: list[int], found: list[str],
                    options: OcrOptions, dpi: int, *, number: int, pages: int, limits: Any,
                    ) -> None:
    """One picture of ``pieces`` (width, height, pixels) one under another,
    read by Tesseract; what it reads on each piece's rows goes to
    ``found[indexes[k]]``."""
    gap = 2 * max(height for _, height, _ in pieces)
    width = max(w for w, _, _ in pieces) + 2 * gap
    picture = bytearray()
    slots: list[tuple[int, int]] = []  # each area's rows in the picture
    blank = b"\xff" * width
    picture += blank * gap
    for piece_width, height, pixels in pieces:
        slots.append((len(picture) // width, len(picture) // width + height))
        for y in range(height):
            picture += (b"\xff" * gap + pixels[y * piece_width : (y + 1) * piece_width]
                        + b"\xff" * (width - gap - piece_width))
        picture += blank * gap
    with tempfile.TemporaryDirectory(prefix="citeguard-ocr-") as folder:
        path = os.path.join(folder, "markers.pgm")
        with open(path, "wb") as handle:
            handle.write(b"P5 %d %d 255\n" % (width, len(picture) // width) + picture)
        hocr = _run(options, path, dpi, number=number, pages=pages, limits=limits, psm="6")
    for line in ElementTree.fromstring(hocr).iter(f"{_HOCR}span"):
        box = _title_box(line.get("title", ""))
        if line.get("class", "") != "ocr_line" or box is None:
            continue
        middle = (box[1] + box[3]) / 2
        for slot, (first, last) in enumerate(slots):
            if first <= middle <= last:
                found[indexes[slot]] += "".join(word for word, _, _, _ in _line_words(line))
