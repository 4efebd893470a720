"""Lexical terms (``transforms/embed/lexical.py``): a fiscal year named in short."""

from ragbeam.transforms.embed.lexical import full_years, tokenize


def test_a_fiscal_year_in_short_also_gives_the_year_in_full():
    assert full_years("fy23 上期 fy 24 fy'99") == ["2023", "2024", "1999"]
    assert "2023" in tokenize("FY23 上期 売上")  # a deck's "FY23" meets "2023年度"
    assert "2023" in tokenize("Revenue grew in FY23.")
    # Not a fiscal year: a longer number, a word that ends in "fy", a year in full.
    assert full_years("fy234 mfy23 simplify 23") == []
    assert tokenize("FY2023").count("2023") == 1
