from __future__ import annotations

from made_pdfs import Line, MadePdf, extract_and_clean, render

from ragbeam.transforms.clean.furniture import (
    PageLine,
    find_page_furniture,
    line_shape,
    page_number_value,
)

_WORDS = ("alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota",
          "kappa", "lambda", "omicron")


def body(page: int, n: int = 6) -> list[str]:
    """``n`` lines of body text that no other page repeats."""
    return [f"The {_WORDS[page]} section discusses {_WORDS[i]} at some length." for i in range(n)]


def _pages(*pages: list[str]) -> list[list[PageLine]]:
    return [[PageLine(text) for text in lines] for lines in pages]


def _removed(pages: list[list[PageLine]]) -> list[tuple[int, str]]:
    found = find_page_furniture(pages).lines
    return sorted((p, pages[p][i].text) for p, i in found)


def test_page_number_forms_parse():
    assert page_number_value("7") == ("arabic", 7)
    assert page_number_value("- 7 -") == ("arabic", 7)
    assert page_number_value("Page 3 of 10") == ("arabic", 3)
    assert page_number_value("第 12 页") == ("arabic", 12)
    assert page_number_value("xiv") == ("roman", 14)
    assert page_number_value("I-2") == page_number_value("A–2") == ("arabic", 2)  # part I
    assert page_number_value("3-14") == ("arabic", 14)
    assert page_number_value("3 | P a g e") == page_number_value("Page | 3") == ("arabic", 3)
    assert page_number_value("3 | Pages") is None
    assert page_number_value("7 apples") is None
    assert page_number_value("mix") is None  # a word, and no front-matter page number
    assert line_shape("Chapter 2 · 15") == line_shape("CHAPTER 3 · 16") == "chapter # · #"
    assert line_shape("Preface xii") == "preface #"


def test_page_numbers_following_the_page_sequence_go_with_any_offset():
    pages = _pages(
        ["Title of the paper", *body(0)],
        ["1050", *body(1)],
        [*body(2), "1051"],
        ["1052", *body(3)],
    )
    assert _removed(pages) == [(1, "1050"), (2, "1051"), (3, "1052")]


def test_numbers_that_do_not_follow_the_page_sequence_stay():
    pages = _pages(
        ["12", *body(0)],
        ["7", *body(1)],
        ["40", *body(2)],
    )
    assert _removed(pages) == []


def test_running_header_with_changing_numbers_and_page_of_forms():
    pages = _pages(*[
        [f"Chapter 2 · {15 + p}", *body(p, 8), f"Page {p + 1} of 4"] for p in range(4)
    ])
    removed = _removed(pages)
    assert len(removed) == 8
    assert all(text.startswith(("Chapter", "Page")) for _, text in removed)


def test_odd_even_alternating_headers():
    pages = _pages(*[
        [("A Journal Title" if p % 2 else "Author et al."), *body(p, 8)] for p in range(6)
    ])
    assert len(_removed(pages)) == 6


def test_line_that_also_occurs_mid_page_is_body_and_stays():
    pages = _pages(*[
        ["Layoff Permanent", *body(p, 5), "Layoff Permanent", *body(p, 12)[5:]]
        for p in range(4)
    ])
    assert _removed(pages) == []


def test_only_occurrence_of_a_heading_is_never_removed():
    pages = [[PageLine("Results", is_heading=p == 0), *(PageLine(t) for t in body(p, 8))]
             for p in range(3)]
    found = find_page_furniture(pages).lines
    assert (0, 0) not in found
    assert {(1, 0), (2, 0)} <= found


def test_single_page_keeps_everything_but_a_lone_page_number_and_its_running_head():
    """One page of a standard: its number at an edge, and its head set apart from the
    text in a smaller font on a page numbered other than 1."""
    text = [line._replace(size=10.0) for line in _body_at(0)]
    head = _at("Provincial Land Use Standard (2020)", 40.0, x1=300.0)._replace(size=8.0)
    page = [[head, *text, _at("173", 760.0, x0=300.0, x1=310.0)._replace(size=8.0)]]
    assert _removed_placed(page) == [(0, "173"), (0, head.text)]
    # Page 1 of a document: a title above it is not a running head.
    page[0][-1] = page[0][-1]._replace(text="1")
    assert _removed_placed(page) == [(0, "1")]
    # A column of numbers is a table, not a page number.
    table = _pages(["12", "13", *body(0)])
    assert _removed(table) == []
    # Too little text to tell.
    assert _removed(_pages(["3", "Short note."])) == []


def test_blank_pages_and_empty_documents():
    assert _removed([]) == []
    pages = _pages([], ["2", *body(1)], [], ["4", *body(3)])
    assert _removed(pages) == [(1, "2"), (3, "4")]


def test_tables_and_code_are_never_removed():
    pages = [[PageLine("x | y", removable=False), *(PageLine(t) for t in body(p, 8))]
             for p in range(3)]
    assert find_page_furniture(pages).lines == frozenset()


def test_running_heads_that_carry_the_page_number_go_but_numbered_headings_stay():
    pages = _pages(
        ["1", "1 Introduction", *body(0, 8)],
        [f"Chapter 1: Introduction {2}", *body(1, 8)],
        [f"Chapter 1: Introduction {3}", *body(2, 8)],
        ["4", "2 Parsing", *body(3, 8)],
        # Its shape occurs once, but it ends in the number the sequence predicts.
        [f"Chapter 2: Parsing {5}", *body(4, 8)],
        ["6 Theorems and proofs", *body(5, 8)],  # a heading, even though 6 is the page
        [f"Table 3 lists page {7}", *body(6, 8)],  # not at the predicted number: body
    )
    pages[6][0] = PageLine("Table 3 lists page 9")
    removed = _removed(pages)
    assert removed == [(0, "1"), (1, "Chapter 1: Introduction 2"),
                       (2, "Chapter 1: Introduction 3"), (3, "4"), (4, "Chapter 2: Parsing 5")]


def test_section_heads_on_consecutive_pages_go_but_a_body_line_twice_stays():
    pages = _pages(
        ["Installation", *body(0, 8)],
        ["Installation", *body(1, 8)],
        ["Installation", *body(2, 8)],
        ["Calibration", *body(3, 8)],
        ["Calibration", *body(4, 8)],
        ["Calibration", *body(5, 8)],
        ["Field notes follow.", *body(6, 8)],
        ["Field notes follow.", *body(7, 8)],  # twice only: not a run
        [*body(8, 8), "Calibration"],  # the last line of a page is an edge too
        [*body(9, 8)],
        ["Installation", *body(10, 3), "Installation", *body(11, 4)],  # also mid-page
    )
    removed = _removed(pages)
    assert removed == [(p, "Calibration") for p in (3, 4, 5, 8)]


def test_a_head_on_most_pages_goes_though_a_cover_repeats_it_mid_page():
    head = "NIST SP 800-223   High-Performance Computing Security"
    cover = _pages(["NIST Special Publication", *body(0, 3), head, "February 2024", *body(1, 4)])
    pages = cover + _pages(*[[head, "February 2024", *body(p, 8)] for p in range(2, 10)])
    removed = _removed(pages)
    assert len(removed) == 16 and all(p >= 1 for p, _ in removed)
    # …but a line the body repeats about as often as the edges do stays (1 in 4).
    pages = _pages(*[[head, *body(p, 8), *([head] if p % 4 == 0 else []), *body(p, 12)[8:]]
                     for p in range(8)])
    assert _removed(pages) == []


STACKED_STAMP = ["DO N", "OT S", "END THIS", "P", "AGE W", "ITH Y", "OUR C", "LA", "IM"]


def test_a_furniture_block_deeper_than_the_edge_band_goes_when_it_repeats():
    """A footer above a nine-piece rotated stamp: the band grows while all furniture."""
    pages = _pages(*[[f"{p + 1}  Form CMS-1490S (version 01/18)", *body(p, 8), *STACKED_STAMP]
                     for p in range(6)])
    removed = _removed(pages)
    assert len(removed) == 6 * 10
    # A body line that repeats right above a furniture block but not on most pages stays.
    pages = _pages(*[[*body(p, 8), *(["See the table below."] if p < 2 else []),
                      *STACKED_STAMP] for p in range(6)])
    assert ("See the table below." not in {text for _, text in _removed(pages)})


def test_two_consecutive_outermost_numbers_form_a_sequence():
    pages = _pages(["Cython Reference Guide", *body(0, 4)], [*body(1, 6), "i"], ["ii"],
                   *[body(p, 6) for p in range(3, 7)])
    assert _removed(pages) == [(1, "i"), (2, "ii")]
    # Two numbers inside the band but not on an outermost line are not enough.
    pages = _pages(["Title", *body(0, 4)], [*body(1, 6), "i", "Next line."], ["Intro", "ii"],
                   *[body(p, 6) for p in range(3, 7)])
    assert _removed(pages) == []


def test_a_footer_seen_once_may_open_with_its_page_number_on_the_last_line():
    pages = _pages(*[[*body(p, 6), f"{p + 1}"] for p in range(5)],
                   [*body(5, 6), "6 Contents"],
                   ["7 Results", *body(6, 6)])  # a numbered heading opening a page stays
    assert _removed(pages) == [*((p, str(p + 1)) for p in range(5)), (5, "6 Contents")]


def test_a_bullet_or_a_sentence_fused_with_the_page_number_stays():
    pages = _pages(*[[f"About {_WORDS[p]}", *body(p, 5), f"{p + 1}"] for p in range(4)],
                   [*body(4, 5), "• 25G Ethernet has a new connector called SFP28 5"],
                   [*body(5, 5), "differently and may offer up surprises. 6"],
                   [*body(6, 5), "Chapter 2: Results 7"])
    assert _removed(pages) == [*((p, str(p + 1)) for p in range(4)),
                               (6, "Chapter 2: Results 7")]


def test_a_slide_title_that_tika_puts_above_the_slide_number_stays():
    pages = _pages(*[[f"Slide about {_WORDS[p]}", f"{p + 1}", *body(p, 5)] for p in range(6)],
                   ["Closing remarks", "7"])
    assert _removed(pages) == [(p, str(p + 1)) for p in range(7)]
    # A head above the number whose words recur at the edge of another page goes with it.
    pages = _pages(["Title page", *body(0, 6)],
                   *[["Journal of Things", f"{p + 1}", *body(p, 6)] for p in range(1, 5)])
    assert len(_removed(pages)) == 8


def test_a_head_on_every_other_page_needs_furniture_on_the_facing_pages():
    quoted = "to the specification for the function 'FillString': Lines: 53, 54"
    pages = _pages(*[[*body(p, 6), *([quoted] if p in (1, 3) else [])] for p in range(6)])
    assert _removed(pages) == []
    # A verso head facing page numbers goes.
    pages = _pages(*[[*body(p, 6), "Author et al." if p % 2 else f"{p + 1}"] for p in range(6)])
    assert len(_removed(pages)) == 6


def test_table_rows_whose_numbers_change_are_not_running_text():
    pages = _pages(*[[f"Revenue {100 + p},5{p}7 {300 + p},6{p}4 {500 + 7 * p}", *body(p, 8)]
                     for p in range(6)])
    assert _removed(pages) == []
    pages = _pages(*[[f"Curr. Oncol. 2023, 30 {3080 + p}", *body(p, 8)] for p in range(6)])
    assert len(_removed(pages)) == 6


def test_a_head_with_the_page_number_goes_wherever_tika_puts_it_on_the_page():
    head = "H. Ashuri, A. Hassani / Journal of Alloys and Compounds 617 (2014) 444–454"
    pages = _pages(["A title page", *body(0, 8)],
                   *[[*body(p, 5), f"{head} {445 + p - 1}" if p % 2 else f"{444 + p} {head}",
                      *body(p, 12)[5:]] for p in range(1, 8)])
    pages[4][5] = PageLine(f"{head}{448}")  # the number fused to the last word
    removed = _removed(pages)
    assert [p for p, _ in removed] == list(range(1, 8))
    # Figure labels in page order and a repeated line whose number does not follow
    # the pages stay.
    pages = _pages(*[[*body(p, 5), f"Figure {p + 1}", f"Table of results {p * 3}",
                      *body(p, 12)[5:]] for p in range(6)])
    assert _removed(pages) == []


# --- position (PDF pages whose lines carry their box: x0, top, x1, bottom) -----------

PAGE = (612.0, 792.0)


def _at(text: str, top: float, x0: float = 72.0, x1: float = 540.0, rotated: bool = False
        ) -> PageLine:
    return PageLine(text, box=(x0, top, x1, top + 10.0), rotated=rotated)


def _body_at(page: int, n: int = 12, top: float = 100.0) -> list[PageLine]:
    return [_at(text, top + 14 * i) for i, text in enumerate(body(page, n))]


def _removed_placed(pages: list[list[PageLine]]) -> list[tuple[int, str]]:
    found = find_page_furniture(pages, [PAGE] * len(pages)).lines
    return sorted((p, pages[p][i].text) for p, i in found)


def test_a_head_tika_puts_after_the_floats_goes_by_its_place_and_a_mid_page_label_stays():
    head = "Journal of Harbour Engineering"
    pages = [[*_body_at(p)[:6], _at(head, 40.0), *_body_at(p)[6:]] for p in range(6)]
    assert _removed_placed(pages) == [(p, head) for p in range(6)]
    # Text alone cannot see it: in Tika's order it is the middle of the page.
    assert _removed([[line._replace(box=None) for line in lines] for lines in pages]) == []
    # A sidebar label that Tika emits first on every page but that sits mid-page stays
    # (by text alone it would go as a running head).
    label = "Key figures at a glance"
    pages = [[_at(label, 400.0), *_body_at(p, 6), *_body_at(p, 6, top=500.0)] for p in range(6)]
    assert _removed_placed(pages) == []
    assert len(_removed([[line._replace(box=None) for line in lines] for lines in pages])) == 6


def test_rotated_text_in_the_margin_is_a_stamp_and_rotated_text_beside_other_text_stays():
    stamp = _at("arXiv:2004.04906v3 [cs.CL] 30 Sep 2020", 200.0, x0=20.0, x1=32.0, rotated=True)
    stamp = stamp._replace(box=(20.0, 200.0, 32.0, 600.0))
    label = PageLine("Throughput (GB/s)", box=(100.0, 300.0, 110.0, 380.0), rotated=True)
    pages = [[stamp, *_body_at(0)], [*_body_at(1)[:3], label, *_body_at(1)[3:]]]
    assert _removed_placed(pages) == [(0, stamp.text)]
    # The first column of a table set sideways: the next column is nearer than the edge.
    column = [PageLine(f"Site {n}", box=(42.0, 100.0 + 60 * n, 48.0, 150.0 + 60 * n),
                       rotated=True) for n in range(6)]
    cells = [PageLine(f"{n * 17}", box=(52.0, 100.0 + 60 * n, 58.0, 120.0 + 60 * n),
                      rotated=True) for n in range(6)]
    pages = [[*_body_at(0)[:4], *column, *cells], _body_at(1)]
    assert _removed_placed(pages) == []


def test_a_stamp_across_the_page_that_recurs_at_one_place_goes_with_its_unplaced_pieces():
    pieces = [PageLine("DO N", box=(102.0, 543.0, 157.0, 598.0), rotated=True),
              PageLine("P"),  # PDFium did not place this one
              PageLine("AGE W", box=(290.0, 338.0, 363.0, 411.0), rotated=True)]
    pages = [[*_body_at(p), *pieces] for p in range(5)]
    assert _removed_placed(pages) == sorted((p, t) for p in range(5) for t in ("DO N", "P",
                                                                               "AGE W"))
    # Rotated labels of figures amid the text, each at its own place, stay.
    pages = [[*_body_at(p), PageLine("Time (s)", box=(90.0 + 40 * p, 150.0, 100.0 + 40 * p,
                                                      200.0), rotated=True)] for p in range(5)]
    assert _removed_placed(pages) == []


def test_a_line_beyond_the_page_edge_is_a_printers_slug_and_the_last_footnote_stays():
    def slug(p: int) -> PageLine:
        return _at(f"JFM_15(11)_Cover_ROW.indd {p + 1} 09/10/2013 5:49:4{p} PM", 806.0, x0=-594.0)

    note = _at("1 The data are available from the harbour authority.", 770.0)
    pages = [[*_body_at(0), note, slug(0)], [*_body_at(1), slug(1)]]
    assert _removed_placed(pages) == [(0, slug(0).text), (1, slug(1).text)]
    # A margin note that ran off the foot of one page is text, though no one sees it.
    overflow = _at("questions to get it, even though ten should have done", 810.0, x0=407.0)
    pages = [[*_body_at(0), overflow], _body_at(1)]
    assert _removed_placed(pages) == []


def test_a_head_on_the_page_number_row_goes_whatever_its_text():
    sections = ["3.1 Harbour cranes", "3.2 Tide tables", "4 Pilotage", "4.1 Outer mark",
                "5 Dredging", "5.1 Spoil grounds"]
    pages = [[*_body_at(p), _at(sections[p], 760.0, x1=200.0),
              _at(f"{p + 1}", 760.0, x0=530.0, x1=540.0)] for p in range(6)]
    removed = _removed_placed(pages)
    assert [(p, str(p + 1)) for p in range(6)] == [r for r in removed if r[1].isdigit()]
    assert {text for _, text in removed if not text.isdigit()} == set(sections)
    # A sentence on the number's row stays, and page 1 keeps what stands beside its
    # number when no other page has furniture at that place (its own notes).
    pages[2][-2] = _at("Published under licence by the Harbour Board.", 760.0, x1=400.0)
    assert (2, "Published under licence by the Harbour Board.") not in _removed_placed(pages)
    pages = [[*_body_at(p), *([_at(sections[p], 760.0, x0=300.0, x1=400.0)] if p == 0 else []),
              _at(f"{p + 1}", 760.0, x0=530.0, x1=540.0)] for p in range(6)]
    assert (0, sections[0]) not in _removed_placed(pages)
    # A chart's axis on the slide number's row is the chart's.
    axis = "0 50 100 150 200 250 300"
    pages = [[*_body_at(p), _at(axis, 760.0, x1=400.0), _at(f"{p + 1}", 760.0, x0=530.0,
                                                            x1=540.0)] for p in range(6)]
    assert _removed_placed(pages) == [(p, str(p + 1)) for p in range(6)]


def test_a_box_taller_than_lines_are_leaves_the_line_where_tika_put_it():
    head = "www.harbour-journal.org"
    pages = [[*_body_at(p), PageLine(head, box=(72.0, 18.0, 540.0, 700.0))] for p in range(6)]
    # Tika puts it last: read as the page's last line, it repeats at the bottom edge.
    assert _removed_placed(pages) == [(p, head) for p in range(6)]


def test_a_single_pages_head_goes_by_its_smaller_font_when_the_page_is_numbered():
    def page(head: str, head_size: float, number: str | None) -> list[PageLine]:
        lines = [_at(head, 40.0, x0=220.0, x1=370.0)._replace(size=head_size),
                 *(line._replace(size=12.0) for line in _body_at(0) + _body_at(1, top=270.0))]
        return [*lines, _at(number, 780.0, x0=292.0, x1=304.0)._replace(size=9.0)] if number \
            else lines

    head = "Land Use Standard of the Province (2020 edition)"
    assert _removed_placed([page(head, 9.0, "173")]) == [(0, "173"), (0, head)]
    assert _removed_placed([page("Frumin and Zhao 53", 9.0, None)]) == [(0, "Frumin and Zhao 53")]
    # A title set larger stays; so does a small top line of a page without a page number.
    assert _removed_placed([page(head, 16.0, "173")]) == [(0, "173")]
    assert _removed_placed([page(head, 9.0, None)]) == []


def test_a_head_with_its_number_at_either_end_on_two_consecutive_pages_edges_goes():
    pages = _pages(*[body(p, 6) for p in range(5)],
                   [*body(5, 6), "JFMS CLINICAL PRACTICE 1031"],
                   [*body(6, 6), "1032 JFMS CLINICAL PRACTICE"])
    assert _removed(pages) == [(5, "JFMS CLINICAL PRACTICE 1031"),
                               (6, "1032 JFMS CLINICAL PRACTICE")]
    # A one-word label with a number opening two pages is a heading ("Chapter 6").
    pages = _pages(*[body(p, 6) for p in range(5)],
                   ["Chapter 6", *body(5, 6)], ["Chapter 7", *body(6, 6)])
    assert _removed(pages) == []


def test_a_line_in_the_slot_of_other_pages_heads_goes_whatever_its_text():
    """A section head on two pages only stands where other sections' heads stand."""
    heads = ["Approach"] * 4 + ["Drifts and turns"] * 2
    pages = [[_at(head, 26.0, x0=480.0, x1=480.0 + 6 * len(head)), *_body_at(p)]
             for p, head in enumerate(heads)]
    assert _removed_placed(pages) == sorted(enumerate(heads))
    # A line at the head's place on another page that is a sentence, or set in
    # another font size, or at another left/right/centre, stays.
    pages[4][0] = _at("Skaters should first learn the outside edge.", 26.0, x0=480.0, x1=560.0)
    pages[5][0] = _at("Drifts and turns", 26.0, x0=480.0, x1=576.0)._replace(size=14.0)
    for lines in pages[:4]:
        lines[0] = lines[0]._replace(size=9.0)
    assert _removed_placed(pages) == sorted(enumerate(heads[:4]))
    pages[5][0] = _at("Drifts and turns", 26.0, x0=300.0, x1=396.0)
    assert _removed_placed(pages) == sorted(enumerate(heads[:4]))


def test_a_line_at_the_same_place_at_the_edge_of_two_pages_is_running_text():
    """A series title heading two pages of six, no page numbers anywhere: by text
    alone an every-other-page head without facing furniture, by place a head (set
    off in size from the text it stands over)."""
    def pages_with(head: PageLine) -> list[list[PageLine]]:
        return [[*([head] if p in (1, 3) else []),
                 *(line._replace(size=10.0) for line in _body_at(p))] for p in range(6)]

    head = _at("Issues and Perspectives", 45.0, x1=108.0)._replace(size=8.0)
    assert _removed_placed(pages_with(head)) == [(1, head.text), (3, head.text)]
    assert _removed([[line._replace(box=None) for line in lines]
                     for lines in pages_with(head)]) == []
    # A title page printed twice (its title set larger than the text) keeps its title.
    assert _removed_placed(pages_with(head._replace(size=20.0))) == []
    # Text set like the text under it, repeated with it (placeholder pages), stays.
    assert _removed_placed(pages_with(head._replace(size=10.0))) == []


def test_a_head_set_apart_with_its_own_page_number_goes_where_nothing_repeats():
    """Page 2 of 2 opens with a small head ending in "I-2": no other page shows it."""
    def document(head: PageLine) -> list[list[PageLine]]:
        return [[line._replace(size=11.0) for line in _body_at(0)],
                [head, *(line._replace(size=11.0) for line in _body_at(1))]]

    head = _at("The Declaration of the Rights of Man (1789) I-2", 40.0)._replace(size=9.0)
    assert _removed_placed(document(head)) == [(1, head.text)]
    # A heading that ends in a number (set larger), a small line whose number is not
    # its page's, or one that runs on into the text (no gap) stays.
    assert _removed_placed(document(head._replace(size=14.0))) == []
    assert _removed_placed(document(head._replace(text="Declaration of 1789, article 7"))) == []
    assert _removed_placed(document(head._replace(box=(72.0, 88.0, 540.0, 98.0)))) == []


def test_the_first_pages_footer_without_the_page_number_the_others_carry_goes():
    footer = "Please read the disclosures at the end of this report"
    pages = _pages([*body(0, 6), footer], *[[*body(p, 6), f"{p + 1} / 4 {footer}"]
                                            for p in range(1, 4)])
    assert _removed(pages) == [(0, footer), *((p, f"{p + 1} / 4 {footer}") for p in range(1, 4))]
    # Inside the page (beyond its edge bands, where the template is read) the same
    # words are the text's own.
    pages[0] = _pages([*body(0, 5), footer, *body(0, 9)[5:]])[0]
    assert (0, footer) not in _removed(pages)
    # A contents line with numbers at both ends is no head that carries its page number.
    pages = _pages(*[[f"{p + 1} Harbour works", *body(p, 6)] for p in range(4)])
    pages[1][0] = PageLine("7 Harbour works 50")
    assert (1, "7 Harbour works 50") not in _removed(pages)


def test_a_repeated_line_that_moves_with_the_text_is_no_furniture():
    """A table note under each part of a table continued over pages repeats at the
    bottom of the text, not at one place: it stays; the head at one place goes."""
    note = "See notes at end of table."
    pages = [[_at("HIGHLIGHTS FROM THE SURVEY", 33.0), *_body_at(p, 6 + p),
              _at(note, 100.0 + 14 * (6 + p))] for p in range(6)]
    assert _removed_placed(pages) == [(p, "HIGHLIGHTS FROM THE SURVEY") for p in range(6)]
    assert len(_removed([[line._replace(box=None) for line in lines] for lines in pages])) == 12


def test_fragments_closing_a_page_inside_the_text_frame_are_a_figures_labels():
    """Tika puts a figure's tick values and rotated axis title last on the page: by
    text alone a stamp; placed across the text's width they are the figure's."""
    ticks = [PageLine(t, box=(370.0, 378.0 + 60 * k, 380.0, 386.0 + 60 * k))
             for k, t in enumerate(["30", "20", "10", "0"])]
    title = [PageLine(t, rotated=True) for t in ("N", "um", "be", "ro", "fu", "lc", "er", "s")]
    pages = [[*_body_at(0), *ticks, *title], _body_at(1)]
    assert _removed_placed(pages) == []


def test_text_beyond_the_page_side_is_no_evidence_of_repetition():
    """Two pages of a spread each carry the whole spread, the other half unseen beyond
    the page's side: its lines repeat, but not on the page a reader sees."""
    def half(lines: list[PageLine], shift: float) -> list[PageLine]:
        return [PageLine(line.text, box=(line.box[0] + shift, line.box[1], line.box[2] + shift,
                                         line.box[3])) for line in lines]

    left = [_at("Table of Contents", 28.0), *_body_at(0, 6)]
    right = [*_body_at(2, 6), _at("Note: all figures as of March 31", 780.0)]
    pages = [_body_at(1), [*half(left, 0.0), *half(right, 650.0)],
             [*half(left, -650.0), *half(right, 0.0)]]
    assert _removed_placed(pages) == []


def test_a_slug_whose_numbers_change_goes_where_it_keeps_its_place():
    """Job, sheet and time numbers of a printer's slug change from page to page like
    a table row's: at one place on every page it is a slug; moving, a row."""
    def slug(p: int) -> str:
        return (f"VerDate Mar<15>2010 14:{20 + p} May 19, 2011 Jkt 223070 PO 000{3 * p} "
                f"Frm 000{11 + p} Sfmt 8010")

    pages = [[_at(slug(p), 20.0, x0=40.0, x1=400.0), *_body_at(p)] for p in range(6)]
    assert _removed_placed(pages) == [(p, slug(p)) for p in range(6)]
    assert _removed([[line._replace(box=None) for line in lines] for lines in pages]) == []
    rows = [[_at(f"Revenue {100 + p},5{p}7 {300 + p},6{p}4 {500 + 7 * p}", 60.0 + 14 * p),
             *_body_at(p)] for p in range(6)]
    assert _removed_placed(rows) == []


def test_a_page_number_read_twice_is_a_page_number():
    """Text drawn twice over itself comes out of Tika doubled ("143143")."""
    assert page_number_value("143143") == ("arabic", 143)
    assert page_number_value("1009910099") is None  # not a page number's length
    assert page_number_value("012012") is None
    pages = _pages(*([*body(p), str(142 + p) * (2 if p else 1)] for p in range(6)))
    assert _removed(pages) == [(p, str(142 + p) * (2 if p else 1)) for p in range(6)]


def test_a_slide_title_carried_over_to_the_next_slide_stays():
    """Two slides under one large title, each with little else on it: the title sits
    at one place at the top of both and is the largest type there, but larger than the
    deck's text, so no running head."""
    def slide(p: int, title: str) -> list[PageLine]:
        lines = [PageLine(title, box=(94.0, 24.0, 626.0, 49.0), size=36.0)]
        return lines + [PageLine(text, box=(60.0, 120.0 + 30 * i, 660.0, 140.0 + 30 * i),
                                 size=24.0) for i, text in enumerate(body(p, 4))]

    pages = [slide(0, "Harbour traffic"), slide(1, "Results"), slide(2, "Results"),
             slide(3, "Outlook"), slide(4, "Questions")]
    pages[1] = pages[1][:1]  # a slide that is a title over a picture
    pages[2] = pages[2][:1]
    assert find_page_furniture(pages, [(720.0, 540.0)] * 5).lines == frozenset()
    # The same title over three slides of a five-slide deck, each with its text.
    pages = [slide(0, "Harbour traffic"), *(slide(p, "Cichelli's Method") for p in (1, 2, 3)),
             slide(4, "Questions")]
    assert find_page_furniture(pages, [(720.0, 540.0)] * 5).lines == frozenset()
    # A head set at the text's size over the same slides goes.
    head = [PageLine("Perfect Hash Fns", box=(558.0, 58.0, 695.0, 71.0), size=24.0)]
    pages = [head + lines for lines in pages]
    assert find_page_furniture(pages, [(720.0, 540.0)] * 5).lines == {(p, 0) for p in range(5)}


def test_a_landscape_statements_head_set_larger_than_its_text_goes_alone_in_its_place():
    """A statement on landscape pages sets its head larger than its small print: one
    text alone in its place on every page is the template's, not a slide's title (no
    other page sets another title there)."""
    def page(p: int) -> list[PageLine]:
        return [PageLine("INVESTMENT REPORT", box=(629.0, 48.0, 726.0, 55.0), size=9.0),
                *(PageLine(text, box=(32.0, 144.0 + 12 * i, 724.0, 150.0 + 12 * i), size=7.5)
                  for i, text in enumerate(body(p, 6)))]

    pages = [page(p) for p in range(6)]
    assert find_page_furniture(pages, [(756.0, 612.0)] * 6).lines == {(p, 0) for p in range(6)}


def test_a_title_the_next_pages_carry_as_their_running_head_stays_on_its_own_page():
    """An EGC paper's title, set large on page 1, is the running head of the even pages
    in small type: the head goes, the title stays."""
    title = "Résumés et interrogations de logs de requêtes OLAP"

    def page(p: int, first: str | None, size: float) -> list[PageLine]:
        lines = [line._replace(size=10.0) for line in _body_at(p)]
        return [_at(first, 40.0)._replace(size=size), *lines] if first else lines

    pages = [page(0, title, 14.3)] + [
        page(p, title if p % 2 else "J. Aligon et al.", 9.0) for p in range(1, 8)]
    removed = _removed_placed(pages)
    assert (0, title) not in removed
    assert [(p, title) for p in (1, 3, 5, 7)] == [r for r in removed if r[1] == title]


def test_a_running_head_cut_into_pieces_on_a_turned_page_goes_with_its_page_number():
    """On a landscape table's page Tika cuts the turned footer into glyph clusters (which
    PDFium may not place): the run of lines whose letters are the head's goes, with the
    page number after it; the same letters on two lines set larger than the body (a title
    page) stay."""
    head = "Webb et al. (2017), PeerJ Comput. Sci., DOI 10.7717/peerj-cs.118"
    pieces = ["W", "ebb", "etal.(2017),PeerJ", "C", "om", "put.Sci.,D", "O",
              "I10.7717/peerj-cs.118"]
    pages = [[*(line._replace(size=10.0) for line in _body_at(p)),
              _at(f"{head} {p + 1}/8", 770.0)._replace(size=8.0)] for p in range(8)]
    pages[4] = [*(line._replace(size=10.0) for line in _body_at(4)),
                *(PageLine(piece) for piece in pieces), PageLine("5/8")]
    removed = _removed_placed(pages)
    assert [text for p, text in removed if p == 4] == sorted([*pieces, "5/8"])
    pages[4] = [_at("Webb et al. (2017), PeerJ", 100.0)._replace(size=20.0),
                _at("Comput. Sci., DOI 10.7717/peerj-cs.118", 130.0)._replace(size=20.0),
                *(line._replace(size=10.0) for line in _body_at(4))]
    assert [text for p, text in _removed_placed(pages) if p == 4] == []


def test_a_number_between_pieces_of_a_head_stays_unless_the_head_prints_it():
    """Pieces whose letters join to a head's go; a piece without letters between them
    adds no letter, so it goes only where the head prints its digits ("(2017)"): a
    table's value between shading glyph runs ("ÎÎÎÎ", "2.0", "ÎÎÎÎ") is body."""
    head = "Webb et al. (2017), PeerJ Computer Science"
    pages = [[*(line._replace(size=10.0) for line in _body_at(p)),
              _at(f"{head} {p + 1}/8", 770.0)._replace(size=8.0)] for p in range(8)]
    pieces = ["Webb et al.", "(2017),", "PeerJ Comput", "er Science"]
    pages[4] = [*(line._replace(size=10.0) for line in _body_at(4)),
                *(PageLine(piece) for piece in pieces), PageLine("5/8")]
    assert [text for p, text in _removed_placed(pages) if p == 4] == sorted([*pieces, "5/8"])
    pieces = ["Webb et al.", "2.0", "PeerJ Comput", "er Science"]
    pages[4] = [*(line._replace(size=10.0) for line in _body_at(4)),
                *(PageLine(piece) for piece in pieces), PageLine("5/8")]
    assert "2.0" not in [text for p, text in _removed_placed(pages) if p == 4]


def test_a_letterhead_foot_set_a_line_higher_on_one_page_goes_as_a_block_a_moved_note_stays():
    """A two-page press notice repeats its four-line foot, 11 points higher on page 2;
    a one-line note under a table moves with the table and stays."""
    foot = ["Deutsche Bundesbank, Kommunikation", "Wilhelm-Epstein-Straße 14, Frankfurt",
            "presse@bundesbank.de, www.bundesbank.de", "Bei Verwertung bitte Quelle angeben."]

    def page(p: int, foot_top: float, lines: list[str]) -> list[PageLine]:
        return [*(_at(text, foot_top + 11 * k)._replace(size=7.6) for k, text in enumerate(lines)),
                *(line._replace(size=11.0) for line in _body_at(p))]

    pages = [page(0, 779.0, foot), page(1, 768.0, foot)]
    assert _removed_placed(pages) == sorted((p, text) for p in range(2) for text in foot)
    note = ["See notes at end of table."]
    pages = [page(0, 779.0, note), page(1, 600.0, note)]
    assert _removed_placed(pages) == []


def test_a_head_in_the_slot_of_page_numbers_placed_off_the_page_goes():
    """PDFium places a Wikipedia export's text ~45 pt above where it is drawn: the odd
    pages' bare numbers sit "above the page" and go as a slug; the even pages' heads
    in their slot ("2 2 GENETICS", whose section changes every time) go with them."""
    heads = {1: "2 2 GENETICS", 3: "4 4 DIAGNOSIS", 5: "6 5 TREATMENT", 7: "8 8 REFERENCES"}
    pages = []
    for p in range(8):
        first = (_at(heads[p], -10.0, x0=72.0, x1=524.0) if p in heads
                 else _at(str(p + 1), -10.0, x0=519.0, x1=523.0))
        pages.append([first._replace(size=10.0),
                      *(line._replace(size=10.0) for line in _body_at(p))])
    removed = _removed_placed(pages)
    assert [(p, heads[p]) for p in sorted(heads)] == [r for r in removed if r[0] in heads]


def test_pieces_of_margin_text_left_anywhere_in_tikas_order_go_with_it():
    """A standards body's number down the margin of every page, cut by Tika into pieces:
    PDFium places most (turned, in the margin), but on some pages a piece is left
    unplaced among the body lines. Assembled, the margin text of the other pages holds
    its letters: it goes. A citation of the number inside the text stays."""
    number = ["This", "publication", "is", "available", "free", "of", "charge", "from:",
              "https://doi.org/10.6028/N", "IST.SP.800-218"]

    def page(p: int, loose: bool) -> list[PageLine]:
        pieces = [PageLine(t, box=(580.0, 100.0 + 40 * k, 590.0, 130.0 + 40 * k), rotated=True)
                  for k, t in enumerate(number)]
        lines = _body_at(p)
        if loose:  # the last piece unplaced, in the middle of Tika's order
            return [*lines[:5], PageLine(number[-1]), *lines[5:], *pieces[:-1]]
        return [*lines, *pieces]

    pages = [page(p, loose=p in (2, 4)) for p in range(6)]
    pages[3].insert(3, _at("See NIST.SP.800-218 for the practices.", 142.0))
    removed = _removed_placed(pages)
    assert (2, number[-1]) in removed and (4, number[-1]) in removed
    assert (3, "See NIST.SP.800-218 for the practices.") not in removed


def test_a_journals_head_up_the_margin_is_assembled_before_it_is_judged():
    """``JCAP10(2008)003`` up the margin of every page: Tika cuts it into "JC", "A", "P",
    "10(2008)003"; on most pages PDFium places every piece turned in the margin, on
    some it places none but the last, or puts "A" on a formula's letter. Joined with
    the piece next to them, the pieces are the margin text the other pages carry."""
    pieces = ["JC", "A", "P", "10(2008)003"]

    def page(p: int) -> list[PageLine]:
        turned = [PageLine(t, box=(534.0, 300.0 + 20 * k, 554.0, 318.0 + 20 * k), rotated=True)
                  for k, t in enumerate(pieces)]
        if p == 1:  # only the last piece placed
            turned[:3] = [PageLine(t) for t in pieces[:3]]
        if p == 3:  # "A" placed on a formula's letter inside the text
            turned[1] = PageLine("A", box=(139.0, 483.0, 145.0, 491.0))
        return [*_body_at(p), *turned]

    pages = [page(p) for p in range(6)]
    removed = _removed_placed(pages)
    assert all((p, t) in removed for p in range(6) for t in pieces)
    # A one-letter line next to a turned piece that joins to no page's margin text stays.
    pages[2][-4:] = [PageLine("x"), PageLine("10(2008)003", box=(534.0, 360.0, 554.0, 378.0),
                                                rotated=True)]
    assert (2, "x") not in _removed_placed(pages)


def test_chapter_openings_set_in_display_type_stay_whatever_stands_beside_them():
    """Short chapters, each opening a page under "Chapter N" in display type (2.4 times
    the text) over a line the template repeats: the headings stay, the repeated line
    set in the text's size goes."""
    def page(p: int) -> list[PageLine]:
        return [_at(f"Chapter {p + 1}", 48.0)._replace(size=24.0),
                _at("The Harbour Handbook", 80.0)._replace(size=10.0),
                *(line._replace(size=10.0) for line in _body_at(p, top=120.0))]

    removed = _removed_placed([page(p) for p in range(6)])
    assert [text for _, text in removed] == ["The Harbour Handbook"] * 6


def test_page_rows_group_as_same_row_does():
    """``page_rows`` tests a line against its row's first line inline; the rows are the
    ones ``same_row`` makes, skipped and unplaced lines left out."""
    import random

    from ragbeam.transforms.clean.furniture.lines import outer_rows, page_rows, same_row

    rng = random.Random(11)
    for _ in range(200):
        lines = []
        for _ in range(rng.randrange(0, 25)):
            top = rng.choice([rng.uniform(0, 800), 100.0, 100.3, 101.7])
            box = (rng.uniform(0, 300), top, rng.uniform(300, 600), top + rng.choice(
                [0.0, 0.5, 10.0, rng.uniform(0, 14)]))
            lines.append(PageLine("x", box=None if rng.random() < 0.1 else box,
                                  rotated=rng.random() < 0.05))
        skip = {i for i in range(len(lines)) if rng.random() < 0.2}
        expected: list[list[int]] = []
        for i, line in enumerate(lines):
            if line.box is not None and not line.rotated and i not in skip:
                if expected and same_row(lines[expected[-1][0]].box, line.box):
                    expected[-1].append(i)
                else:
                    expected.append([i])
        assert page_rows(lines, skip) == expected
        left = [i for i in range(len(lines)) if i not in skip]
        ends = ((expected[0], left[0]), (expected[-1], left[-1])) if expected and left else ()
        assert outer_rows(lines, skip) == [row for row, outer in ends
                                           if lines[outer].box is not None]


def test_a_statements_head_block_under_the_running_head_goes_on_the_pages_it_heads():
    """A filing's notes repeat their head block under the running head on a run of pages
    (fewer than half): "Harbour Holdings and Subsidiaries" / "Notes to the Financial
    Statements" / "(Continued)". Only its first line is at the page's very edge; the
    edge is read again past the template found, so the block goes line by line. The
    body under it stays."""
    block = ["Harbour Holdings and Subsidiaries", "Notes to the Financial Statements",
             "(Continued)"]

    def page(p: int) -> list[PageLine]:
        heads = [_at(text, 42.0 + 11 * k, 200.0, 400.0) for k, text in enumerate(block)]
        return [_at("Annual Report 2024", 30.0, 72.0, 160.0), *(heads if 6 <= p <= 10 else ()),
                *_body_at(p), _at(str(p + 1), 760.0, 300.0, 310.0)]

    pages = [page(p) for p in range(12)]
    removed = _removed_placed(pages)
    assert all((p, text) in removed for p in range(6, 11) for text in block)
    assert not any(text in body(p) for p, text in removed)


def test_a_foot_under_figure_labels_tika_gives_last_goes_on_every_page():
    """A data sheet's three-line foot, and on half the pages a figure's labels that
    PDFium did not place and Tika gives after it: the edge band is counted past such
    lines, so the foot stands at the edge there too (not in the middle, as body)."""
    foot = ["Rev. 1.2, 23-Nov-16 {n} Document Number: 84304",
            "For technical questions, contact: support@harbour.example",
            "THIS DOCUMENT IS SUBJECT TO CHANGE WITHOUT NOTICE"]

    def page(p: int) -> list[PageLine]:
        lines = [*_body_at(p), *(_at(text.format(n=p + 1), 740.0 + 11 * k)
                                 for k, text in enumerate(foot))]
        if p % 2:
            lines += [PageLine(f"{_WORDS[p]} pin"), PageLine(f"{_WORDS[p]} bus")]
        return lines

    pages = [page(p) for p in range(6)]
    removed = _removed_placed(pages)
    assert all((p, text.format(n=p + 1)) in removed for p in range(6) for text in foot)
    assert not any(text.endswith(("pin", "bus")) for _, text in removed)


def test_margin_text_goes_with_its_unplaced_last_piece_though_tika_gives_the_folio_first():
    """A standards body's statement down the margin: Tika gives the folio, the two
    pieces PDFium places turned in the margin, and the last piece it does not place
    ("IST.SP.800-207", longer than a glyph cluster). Assembled without the folio (a page
    number level in the text frame is the page's), the pieces recur on every page: the
    last piece goes too. The number cited in the text stays."""
    def page(p: int) -> list[PageLine]:
        return [_at("NIST SP 800-207 ZERO TRUST ARCHITECTURE", 38.0),
                _at(str(p + 1), 733.0, 303.0, 309.0),
                _at("This publication is available free of charge from", 120.0, 20.0, 26.0,
                    rotated=True),
                _at(": https://doi.org/10.6028/N", 160.0, 20.0, 26.0, rotated=True),
                PageLine("IST.SP.800-207"), *_body_at(p)]

    pages = [page(p) for p in range(6)]
    pages[3].insert(8, _at("See NIST.SP.800-207 for the architecture.", 300.0))
    removed = _removed_placed(pages)
    assert all((p, "IST.SP.800-207") in removed for p in range(6))
    assert (3, "See NIST.SP.800-207 for the architecture.") not in removed


def _sized(lines: list[PageLine], size: float) -> list[PageLine]:
    return [line._replace(size=size) for line in lines]


def test_a_thesis_head_that_says_the_current_chapters_title_goes_its_heading_stays():
    """A thesis's running head is the current chapter's title (most chapters a page
    long, so no text recurs on 3 pages); a chapter's opening page sets its heading of
    the same words (spaced otherwise) under the head: the heads go, the headings stay."""
    chapters = ["摘 要", "Abstract", "第 1 章 引言", "第 1 章 引言", "第 2 章 方法",
                "结 论", "参考文献", "致 谢"]
    pages = []
    for p, title in enumerate(chapters):
        opening = p == 0 or chapters[p - 1] != title
        heading = [_at(title.replace(" 章", "章"), 60.0)._replace(size=16.0)] if opening else []
        pages.append([_at(title, 20.0, x0=250.0, x1=360.0)._replace(size=9.0), *heading,
                      *_sized(_body_at(p, top=100.0), 12.0),
                      _at(str(p + 1), 760.0, x0=300.0, x1=306.0)._replace(size=9.0)])
    removed = _removed_placed(pages)
    assert [(p, text) for p, text in removed if not text.isdigit()] == list(enumerate(chapters))
    assert len(removed) == 2 * len(chapters)  # and every page number


def test_a_books_verso_head_says_the_chapter_and_its_recto_head_the_section():
    """Two-sided, chapters two pages long: each verso carries its chapter's title in
    capitals (once), each recto the section opened on it: no text recurs, and no page
    number anchors a slot; each says a heading found at or before its page."""
    pages = []
    for p in range(8):
        chapter, section = p // 2 + 1, p + 1
        head = (f"CHAPTER {chapter}. {_WORDS[chapter].upper()} PLANNING" if p % 2
                else f"{chapter}.{section} {_WORDS[section + 2].title()} cranes")
        opening = ([_at(f"Chapter {chapter}", 60.0)._replace(size=20.0),
                    _at(f"{_WORDS[chapter].title()} planning", 84.0)._replace(size=20.0)]
                   if p % 2 == 0 else [])
        section_heading = _at(f"{chapter}.{section} {_WORDS[section + 2].title()} cranes",
                              110.0)._replace(size=12.0)
        pages.append([_at(head, 20.0)._replace(size=9.0), *opening, section_heading,
                      *_sized(_body_at(p, top=130.0), 10.0)])
    assert _removed_placed(pages) == [(p, pages[p][0].text) for p in range(8)]


def test_a_line_that_opens_one_page_with_a_headings_words_stays():
    """Once is no template: a body line atop one page saying the heading above it."""
    pages = [[_at("Methods", 60.0)._replace(size=16.0), *_sized(_body_at(0), 10.0)],
             [_at("Methods", 20.0)._replace(size=10.0), *_sized(_body_at(1), 10.0)],
             *([*_sized(_body_at(p), 10.0)] for p in range(2, 6))]
    assert _removed_placed(pages) == []


def test_a_handbooks_recto_head_says_its_name_beside_the_current_chapters_title():
    """``Handbuch Forum14 | <chapter>`` on rectos only, each chapter two pages long and
    no page number to anchor the head: each text once, grouped by what it says beside
    the title; the chapters' headings stay."""
    chapters = ["Vorbereitung", "Durchführung", "Nachbereitung", "Auswertung"]
    pages = []
    for p in range(8):
        title = chapters[p // 2]
        head = ([_at(f"Handbuch Forum14 | {title}", 20.0, x0=300.0)._replace(size=9.0)]
                if p % 2 == 0 else [])
        heading = [_at(title, 60.0)._replace(size=18.0)] if p % 2 == 0 else []
        pages.append([*head, *heading, *_sized(_body_at(p, top=100.0), 10.0)])
    assert _removed_placed(pages) == [(p, pages[p][0].text) for p in range(0, 8, 2)]


def _folio_at_foot(number: str) -> PageLine:
    return _at(number, 700.0, x0=303.0, x1=309.0)


def test_a_front_matter_folio_at_the_folios_place_goes_whatever_its_offset():
    # A book numbers its front matter apart (``ii`` on the contents, or ``2`` before a
    # count that restarts after them): one page on its own offset, at the place where
    # the sequence's folios stand on the other pages.
    for front, numbered_from in (("ii", 2), ("2", 4)):
        pages = [_body_at(0)]
        for p in range(1, 10):
            page = _body_at(p)
            if p == 1:
                page.append(_folio_at_foot(front))
            elif p >= numbered_from:
                page.append(_folio_at_foot(str(p - numbered_from + 3)))
            pages.append(page)
        removed = _removed_placed(pages)
        assert (1, front) in removed
        assert len(removed) == 10 - numbered_from + 1


def test_a_number_at_the_folios_place_out_of_their_order_stays():
    # A lone number there that does not fit the folios around it (larger than the next
    # page's folio) is some other number.
    pages = [_body_at(0), [*_body_at(1), _folio_at_foot("40")]]
    pages += [[*_body_at(p), _folio_at_foot(str(p - 1))] for p in range(2, 10)]
    removed = _removed_placed(pages)
    assert (1, "40") not in removed
    assert len(removed) == 8


def test_a_numbered_foot_set_without_its_number_on_a_page_the_template_skips_goes():
    # "© Org 2013  3" across the foot, the folio at the outer edge (in the text's size
    # on left-hand pages, where it leads the line); the copyright page and the back cover
    # carry "© Org 2013" alone, shorter, at that height: no slot of the numbered lines'.
    # The same text in the body stays.
    foot = "© Harbour Standards Org 2013"

    def numbered(p: int) -> PageLine:
        return (_at(f"{foot}  {p - 1}", 700.0, x0=70.0, x1=558.0)._replace(size=8.0) if p % 2
                else _at(f"{p - 1}  {foot}", 700.0, x0=37.0, x1=524.0)._replace(size=10.0))

    unnumbered = _at(foot, 701.0)._replace(size=8.0)
    pages = [_body_at(0), [*_body_at(1), unnumbered._replace(box=(430.0, 701.0, 524.0, 711.0))]]
    pages += [[*_body_at(p)[:3], _at(foot, 300.0), *_body_at(p)[3:], numbered(p)]
              if p == 4 else [*_body_at(p), numbered(p)] for p in range(2, 10)]
    pages.append([unnumbered._replace(box=(36.0, 701.0, 131.0, 711.0))])
    removed = _removed_placed(pages)
    assert (1, foot) in removed and (10, foot) in removed
    assert (4, foot) not in removed


def test_an_unplaced_head_that_tika_gives_after_a_mid_page_line_goes_with_its_copies():
    # A form's head that PDFium does not place ("– Page 3Form 77 (Rev. 6-2006) Name:"):
    # edge order puts it after the line Tika gave before it, at the top on most pages
    # but mid-page on a few. There it is no body text saying it too: it goes there also.
    def page(p: int) -> list[PageLine]:
        lines = _body_at(p)
        head = PageLine(f"– Page {p + 1}Form 77 (Rev. 6-2006) Name: Number:")
        after = 6 if p in (1, 2, 3) else 0
        return [*lines[:after + 1], head, *lines[after + 1:]]

    pages = [page(p) for p in range(10)]
    removed = _removed_placed(pages)
    assert [p for p, text in removed if text.startswith("– Page")] == list(range(10))
    assert all(text.startswith("– Page") for _, text in removed)


def test_a_head_an_ocr_layer_spaces_out_a_new_way_on_each_page_is_one_head():
    """A scanned standard's text layer spells its running head with spaces inside the
    words and numbers, a different way every page or two: no spelling alone is on enough
    pages, or on a run of them; without the spaces it is one head on every page."""
    spellings = ["ISO 7.1-2003", "I S O  7 .1 - 2 0 0 3", "ISO 7 .1 -2 0 0 3", "IS O 7 .1-2003"]
    pages = _pages(*[[spellings[(p // 2) % 4 if p % 2 else (p // 2 + 1) % 4], *body(p, 8)]
                     for p in range(10)])
    assert len({pages[p][0].text for p in range(10)}) == 4
    assert _removed(pages) == [(p, pages[p][0].text) for p in range(10)]


def _slide(p: int, top: list[PageLine], foot: str | None = None) -> list[PageLine]:
    """A landscape slide: ``top`` lines, four lines of text at 18 pt, ``foot``."""
    lines = [*top, *(PageLine(text, box=(60.0, 120.0 + 30 * i, 660.0, 138.0 + 30 * i),
                              size=18.0) for i, text in enumerate(body(p, 4)))]
    if foot is not None:
        lines.append(PageLine(foot, box=(100.0, 520.0, 700.0, 530.0), size=12.0))
    return lines


def test_a_slide_decks_section_label_over_a_run_of_slides_stays_its_small_print_goes():
    """A section label atop three slides in a row, each slide titled on its own: set no
    smaller than the deck's text it is the slides' content, as their titles are; a head
    that changes with the chapter of a book is small print, and goes."""
    def deck(size: float) -> list[list[PageLine]]:
        return [_slide(p, [
            *([PageLine("Performance study (main result 1)", box=(160.0, 2.0, 670.0, 18.0),
                        size=size)] if p in (3, 4, 5) else []),
            PageLine(f"{_WORDS[p].title()} slide", box=(100.0, 40.0 + 7 * p, 600.0, 60.0 + 7 * p),
                     size=28.0)]) for p in range(10)]

    assert find_page_furniture(deck(18.0), [(794.0, 595.0)] * 10).lines == frozenset()
    assert find_page_furniture(deck(9.0), [(794.0, 595.0)] * 10).lines == {
        (p, 0) for p in (3, 4, 5)}


def test_slide_titles_numbered_on_slides_whose_foot_prints_the_number_stay():
    """A table over four slides titled ``Consolidation list - I`` … ``- IV``: the roman
    number follows the slides, but the foot of every slide prints the slide's number;
    the titles number the list's parts, set in display type, and stay."""
    parts = ["I", "II", "III", "IV"]
    pages = [_slide(p, [PageLine(f"Consolidation list - {parts[p - 4]}",
                                 box=(190.0, 52.0, 655.0, 81.0), size=40.0)]
                    if 4 <= p < 8 else [], foot=f"13 February 2013 Alexander Sturm {p + 1}")
             for p in range(10)]
    assert _removed_from(pages) == [(p, f"13 February 2013 Alexander Sturm {p + 1}")
                                    for p in range(10)]


def _removed_from(pages: list[list[PageLine]], size: tuple[float, float] = (842.0, 595.0)
                  ) -> list[tuple[int, str]]:
    found = find_page_furniture(pages, [size] * len(pages)).lines
    return sorted((p, pages[p][i].text) for p, i in found)


def test_a_slides_last_line_on_the_slide_numbers_row_stays_a_foot_set_apart_goes():
    """A slide's text reaches the row of the slide number in its corner: its last line,
    set as the lines above it, is the slide's; a foot beside the number, set apart from
    the text in size, is the number's companion."""
    def slide(p: int, last: str, size: float) -> list[PageLine]:
        return [*(PageLine(text, box=(72.0, 400.0 + 25 * i, 700.0, 414.0 + 25 * i), size=14.5)
                  for i, text in enumerate(body(p, 5))),
                PageLine(last, box=(72.0, 545.0, 377.0, 552.0), size=size),
                PageLine(str(p + 1), box=(741.0, 546.0, 753.0, 555.0), size=14.0)]

    pages = [slide(p, f"- Implemented in Fortran and C, part {_WORDS[p]}", 14.5)
             for p in range(6)]
    assert _removed_from(pages, (794.0, 595.0)) == [(p, str(p + 1)) for p in range(6)]
    pages = [slide(p, "Internal use only", 9.0) for p in range(6)]
    pages[2][5] = PageLine(f"Draft {_WORDS[2]}", box=(72.0, 545.0, 377.0, 552.0), size=9.0)
    assert _removed_from(pages, (794.0, 595.0)) == sorted(
        [(p, str(p + 1)) for p in range(6)] + [(p, pages[p][5].text) for p in range(6)])


STATEMENT = (756.0, 612.0)  # a landscape statement's page


def _statement_page(p: int, title: str, *, label: str = "", owner: str = "",
                    text_top: float = 144.0) -> list[PageLine]:
    """A page of a landscape statement: its stamp and head (four lines, as deep as the
    edge band), a section's title at the top left (set larger than the small print), an
    account's label and owner at the top right, and small print."""
    head = [PageLine("*** SAMPLE STATEMENT ***", box=(266.0, 19.0, 478.0, 24.0), size=16.0),
            PageLine("For informational purposes only", box=(267.0, 38.0, 490.0, 45.0),
                     size=16.0),
            PageLine("INVESTMENT REPORT", box=(629.0, 48.0, 726.0, 55.0), size=9.0),
            PageLine("July 1 – July 31, 2015", box=(636.0, 61.0, 726.0, 67.0), size=9.0)]
    block = [PageLine(title, box=(33.0, 105.0, 33.0 + 6 * len(title), 116.0), size=13.0)]
    if label:
        block += [PageLine(label, box=(639.0, 108.0, 725.0, 114.0), size=9.0),
                  PageLine(owner, box=(600.0, 118.0, 726.0, 125.0), size=9.0)]
    text = [PageLine(line, box=(32.0, text_top + 12 * i, 724.0, text_top + 7 + 12 * i),
                     size=7.5) for i, line in enumerate(body(p % len(_WORDS), 8))]
    return [*head, *block, *text]


def test_a_heading_repeated_as_continued_goes_on_the_next_pages_and_stays_on_its_first():
    """A section continued from the page before repeats its heading with
    ``(continued)``: the repeats are the page template's, whatever the heading, also on
    landscape pages where the heading is set larger than the small print (no slide's
    title carried over); the heading on the section's first page stays."""
    titles = ["Holdings", *["Holdings (continued)"] * 3, "Activity",
              *["Activity (continued)"] * 3]
    pages = [_statement_page(p, title) for p, title in enumerate(titles)]
    pages[7][4] = pages[7][4]._replace(size=16.0)  # a repeat set larger is one too
    removed = find_page_furniture(pages, [STATEMENT] * len(pages)).lines
    repeats = {(p, 4) for p, title in enumerate(titles) if "(continued)" in title}
    assert repeats <= removed
    assert (0, 4) not in removed and (4, 4) not in removed
    assert all(i < 5 for _, i in removed)  # the small print stays
    # A data sheet: a section continued on the next page repeats its heading there, at
    # the top of the text, where the text of the pages between runs on from their top.
    # Tika gives a formula's pieces, which PDFium did not place, before one page's head:
    # uncounted, they end no template at the edge.
    sections = ["Overview", "Ratings", "Layout", "Care"]
    head = [_at("Harbour pump data sheet", 20.0, 72.0, 300.0), _at("HP-200 rev. B", 34.0)]
    pages = [[*head, _at("1 Overview", 75.0, 54.0, 250.0), *_body_at(0, 10)]]
    for k, name in enumerate(sections):
        pages.append([*head, _at(f"{name} (continued)", 75.0, 54.0, 250.0),
                      *_body_at(len(pages), 10)])
        if k + 1 < len(sections):
            text = _body_at(len(pages), 12, top=60.0)
            pages.append([*head, *text[:6], _at(f"{k + 2} {sections[k + 1]}", 150.0, 54.0,
                                                250.0), *text[6:]])
    pages[3].insert(0, PageLine("R Q ; FOM R Q= ́"))
    removed = _removed_placed(pages)
    assert [text for _, text in removed if text not in ("Harbour pump data sheet",
                                                         "HP-200 rev. B")] == [
        f"{name} (continued)" for name in sections]


def test_a_statements_account_label_and_owner_under_its_head_go_on_every_account_page():
    """Each page of an account's part carries its label (``Account 111-111111``) beside
    the section's title and its owner's line under it; another account's pages another
    owner. The label stands on the title's row: the edge is read past the template a row
    at a time, and a line on a row with template is read past as the template is. The
    label's and the owner's lines are no slide titles (set larger than the small print
    on landscape pages, another owner in the place on other pages): they stand with the
    template. Notes on wider pages whose text reaches that high are another template's
    pages, and the other owner's line is the template's in its slot, no text there; as
    the line past the template, it is a slot's."""
    pages = []
    for p in range(12):
        label, owner = (("Account 111-111111", "J. Doe - Individual") if p < 8
                        else ("Account 222-222222", "J. Doe - Traditional IRA"))
        pages.append(_statement_page(p, f"Section {_WORDS[p].title()}", label=label,
                                     owner=owner))
    pages += [_statement_page(12 + p, "Notes", text_top=102.0) for p in range(3)]
    sizes = [STATEMENT] * 12 + [(792.0, 612.0)] * 3
    removed = find_page_furniture(pages, sizes).lines
    assert {(p, 5) for p in range(12)} <= removed  # the labels
    assert {(p, 6) for p in range(8)} <= removed  # the first account's owner
    # The second account's owner stands where the first's does, the line past the
    # template at the top (no text group: it is on a run of landscape pages only).
    assert {(p, 6) for p in range(8, 12)} <= removed
    assert not any(i == 4 for _, i in removed)  # the sections' titles stay
    assert not any(i > 6 for _, i in removed)  # the small print stays


def test_a_head_spelt_with_another_dash_on_some_pages_is_one_head():
    """A report dates its head ``July 1 – July 31`` on its first pages and ``July 1 -
    July 31`` on its last: one head. Neither spelling alone is on half the pages or on
    three in a row."""
    pages = [[_at("Harbour report, July 1 – July 31" if p < 6 else
                  "Harbour report, July 1 - July 31", 40.0), *_body_at(p)]
             if p in (0, 1, 4, 5, 8, 9) else _body_at(p) for p in range(10)]
    assert _removed_placed(pages) == [(p, pages[p][0].text) for p in (0, 1, 4, 5, 8, 9)]


def test_a_head_in_display_type_goes_though_a_charts_legend_names_it_mid_page():
    """A data sheet heads every page with the product's name in display type; charts on
    three pages name it in their legends, in a size of their own: no text saying it. The
    same name in the text's size on those pages is the text's, and the head stays."""
    def page(p: int, middle_size: float) -> list[PageLine]:
        text = [PageLine(line, box=(54.0, 100.0 + 14 * i, 558.0, 107.0 + 14 * i), size=8.0)
                for i, line in enumerate(body(p, 12))]
        legend = ([PageLine("HX6075", box=(281.0, 164.0, 310.0, 169.0), size=middle_size)]
                  if p in (1, 3, 4) else [])
        return [PageLine("HX6075", box=(478.0, 35.0, 558.0, 47.0), size=16.0), *text[:5],
                *legend, *text[5:]]

    pages = [page(p, 6.0) for p in range(10)]
    assert {(p, 0) for p in range(10)} <= find_page_furniture(pages, [PAGE] * 10).lines
    pages = [page(p, 8.0) for p in range(10)]
    assert not any(i == 0 for _, i in find_page_furniture(pages, [PAGE] * 10).lines)


def test_a_folio_followed_by_unplaced_formula_glyphs_is_still_the_page_number():
    """Tika emits a thesis's folio first on a page of formulas set in a font without a
    Unicode map, then the formulas' private-use glyphs in short lines PDFium did not
    place: they follow the folio in edge order, but carry no word and stand at no edge."""
    formula = ["\ue06d\ue0c4\ue0fc", "\ue0c4\ue0ae\ue0fc (8)", "\ue048\ue06d\ue0c4\ue0fd"] * 4

    def page(p: int, glyphs: list[str]) -> list[PageLine]:
        return [_at(f"- {p + 1} -", 752.0, x0=280.0, x1=320.0),
                *(PageLine(text) for text in glyphs), *_body_at(p)]

    pages = [page(p, formula if p == 3 else []) for p in range(6)]
    assert _removed_placed(pages) == [(p, f"- {p + 1} -") for p in range(6)]
    # Unplaced lines with a letter are text Tika gave after the folio: still counted.
    words = [f"label {k}" for k in range(12)]
    pages = [page(p, words if p == 3 else []) for p in range(6)]
    assert (3, "- 4 -") not in _removed_placed(pages)


def test_a_tables_column_heads_repeated_atop_each_page_stay():
    """A table over several pages repeats its column heads atop each: a row of cells,
    most of them no template text. A running head beside the page number goes."""
    heads = ("Serial", "Contract Description", "Contractor/Suppliers", "Address",
             "Amount", "Currency", "Date signed", "Remarks")

    def header_row(p: int) -> list[PageLine]:  # the first three cells read as template
        return [_at(text if k < 3 else f"{text} {_WORDS[k]}{p}", 40.0, x0=40.0 + 70 * k,
                    x1=100.0 + 70 * k) for k, text in enumerate(heads)]

    pages = [[*header_row(p), *_body_at(p), _at(f"{p + 1}", 752.0, x0=300.0, x1=306.0)]
             for p in range(6)]
    assert _removed_placed(pages) == [(p, f"{p + 1}") for p in range(6)]
    head = [_at("Harbour Works Annual Report", 40.0, x0=72.0, x1=300.0)]
    pages = [[*head, *_body_at(p), _at(f"{p + 1}", 752.0, x0=300.0, x1=306.0)] for p in range(6)]
    assert ("Harbour Works Annual Report" in {text for _, text in _removed_placed(pages)})


def test_a_page_printed_twice_keeps_its_text():
    """A memo whose one page the PDF holds twice: every line repeats on every page, as a
    template's would, but a frame holds no lines of running text; the pages keep theirs
    (else the document is left with no text at all)."""
    memo = [Line("May 5, 2023"), Line("To Whom it May Concern:"),
            Line("There were 20,000 bottles of water, 10,000 blankets, and 200 laptops "
                 "delivered on January 23,"),
            Line("2023. A total of 3 trucks were used for 15 hours to bring all of them in."),
            Line("Best Regards,"), Line("Mallori")]
    doc = extract_and_clean(render(MadePdf([memo, memo])))
    assert doc.text.count("A total of 3 trucks were used for 15 hours") == 2
    assert doc.text.count("May 5, 2023") == 2
    # A frame around pages of their own text still goes.
    framed = [[Line("ACME Corp. Quarterly Memo"), *page, Line(f"Page {n}")]
              for n, page in enumerate(([Line("The first page's own words are here, "
                                               "and more of them follow on this line.")],
                                        [Line("The second page has other words that say "
                                              "something else entirely about trucks.")],
                                        [Line("A third page closes the memo with a last "
                                              "sentence of its own for the readers.")]), 1)]
    doc = extract_and_clean(render(MadePdf(framed)))
    assert "ACME Corp. Quarterly Memo" not in doc.text and "Page 2" not in doc.text
    assert "The second page has other words" in doc.text
