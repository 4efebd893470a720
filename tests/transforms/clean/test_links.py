"""Link targets a web page's print writes after each link (``clean/links.py``), on
constructed lines: each form the print takes, and what stays text."""

from __future__ import annotations

from ragbeam.transforms.clean.links import (
    markdown_link_words,
    printed_targets_in_text,
    strip_link_targets,
    strip_print_footer,
)


def test_a_target_in_parentheses_after_the_link_words_goes():
    lines = ['12. "Harbour tides" (https://example.org/tides/2009.html). The Quay Post.',
             "Official website (https://www.example.org/)"]
    assert strip_link_targets(lines) == (['12. "Harbour tides". The Quay Post.',
                                          "Official website"], 2)


def test_a_target_wrapped_over_lines_goes_with_its_rest():
    """The print wraps a long target anywhere, in its scheme too ("(ht" / "tps://…")."""
    lines = ['1. "The Harbour as an Institution" (ht',
             "tps://www.example.org/about/institution.aspx).",
             "www.example.org. Retrieved February 1, 2017.",
             '13. Rosen, Jeffrey (2009). "Black Tides" (https://www.exa',
             "mple.com/wp-dyn/content/article/2009/07/02/AR200907020203",
             "3.html) (book review). The Quay Post."]
    out, removed = strip_link_targets(lines)
    assert removed == 2
    assert out == ['1. "The Harbour as an Institution".', "",
                   "www.example.org. Retrieved February 1, 2017.",
                   '13. Rosen, Jeffrey (2009). "Black Tides"', "", " (book review). The Quay Post."]


def test_what_is_no_printed_target_stays():
    lines = ['Retrieved from "https://example.org/w/index.php?title=Harbour"',  # a sentence
             "The fee (in dollars) is set yearly (see below).",
             "Tides are measured (hourly",  # an aside that runs on, not a link
             "at the pier) by the master.",
             "Ask the office (http is not a link here)"]
    assert strip_link_targets(lines) == (lines, 0)


def test_a_plain_text_print_loses_its_targets_where_the_print_wrapped_them():
    """A print saved as plain text: known by targets wrapped inside their URI."""
    lines = ['1. "Harbour tides" (https://www.exa',
             "mple.org/tides/2009.html). The Quay Post.",
             '2. "Pier lights" (ht',
             "tps://www.example.org/lights.html). Retrieved 2 May 2019.",
             '3. "Old ferry" (https://web.archive.org/web/2019/http://www.ex',
             "ample.org/ferry.html) from the original.",
             "Official website (https://www.example.org/)"]
    out, removed = printed_targets_in_text(lines)
    assert removed == 4
    assert out == ['1. "Harbour tides".', "The Quay Post.", '2. "Pier lights".',
                   "Retrieved 2 May 2019.", '3. "Old ferry"', " from the original.",
                   "Official website"]


def test_a_plain_text_that_writes_its_uris_keeps_them():
    """Fewer than three wrapped targets: a writer's own parenthesised URIs stay."""
    lines = ["For filings see the SEC's site (https://www.sec.gov/edgar) or",
             "visit www.sec.gov for the forms (https://www.sec.gov/forms).",
             'The notice (https://www.exa',
             "mple.org/notice.html) was sent."]
    assert printed_targets_in_text(lines) == (lines, 0)


def test_a_wikis_print_footer_goes_on_one_line_or_wrapped():
    lines = ["External links", "Harbour at the city's archive",
             'Retrieved from "https://wiki.example.org/w/index.php?title=Harbour&oldid=80488"',
             "Text after it.",
             "Retrieved from \u201chttps://wiki.example.org/w/index.php?title=Pier&old",
             "id=12345\u201d"]
    assert strip_print_footer(lines) == (
        ["External links", "Harbour at the city's archive", "", "Text after it.", "", ""], 2)


def test_what_is_no_print_footer_stays():
    lines = ["Retrieved from https://example.org/report.pdf on 2 May 2019.",  # a citation
             'Retrieved from "https://example.org/w/index.php?title=Harbour" on 2 May.',
             "Retrieved 12 March 2020.",
             'Retrieved from "https://wiki.example.org/w/index.php?title=Pier&old',
             "and then the text goes on"]
    assert strip_print_footer(lines) == (lines, 0)


def test_markdown_links_keep_their_words_and_images_their_alt_text():
    assert markdown_link_words(
        "It is most like [textract](https://github.com/example/textract), see "
        '[the guide](<https://example.org/a b> "Guide") and [Foo](https://en.example.org/'
        "wiki/Foo_(bar)).") == (
        "It is most like textract, see the guide and Foo.", 3)
    assert markdown_link_words(
        "[![PyPI](https://img.example.org/v.svg)](https://pypi.example.org/p/x/)") == ("PyPI", 2)
    assert markdown_link_words('- [Paging]("https://example.org/p/6384")') == ("- Paging", 1)
    assert markdown_link_words("[Contributing](#contributing) [notes](docs/notes.md)") == (
        "Contributing notes", 2)


def test_what_markdown_writes_as_its_text_stays():
    for line in ["Questions from <https://github.com/example/discussions>.",
                 "For details, visit https://cla.example.com.",
                 "Call `render('[x](y)')` to draw it.",
                 r"An escaped \[bracket\](not a link)",
                 "Tides [1] (hourly) are measured."]:
        assert markdown_link_words(line) == (line, 0)


def test_markdown_in_a_plain_text_only_its_links_to_absolute_uris():
    assert markdown_link_words("See [the site](https://example.org/) and [1](a).",
                               absolute_only=True) == ("See the site and [1](a).", 1)
