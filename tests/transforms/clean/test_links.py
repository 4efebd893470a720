"""Link targets a web page's print writes after each link (``clean/links.py``), on
constructed lines: each form the print takes, and what stays text."""

from __future__ import annotations

from ragbeam.transforms.clean.links import strip_link_targets


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
