"""Near-duplicates (``identity/content.py``), pure; the real runs are in
tests/pipeline/test_content_identity.py."""

from __future__ import annotations

from ragbeam.transforms.identity.content import near_duplicate_groups, text_fingerprint


def test_near_duplicates_are_the_same_long_text_from_other_bytes():
    text = "The boathouse opens at six. " * 10
    rows = [(text_fingerprint(text), "/a.txt", "h1"),
            (text_fingerprint(text.upper().replace(" ", "\n")), "/b.txt", "h2"),
            (text_fingerprint(text), "/c.txt", "h1"),  # the same bytes as a: a duplicate
            (text_fingerprint(text + "One more."), "/d.txt", "h3")]
    assert near_duplicate_groups(rows) == [[("/a.txt", "h1"), ("/b.txt", "h2"),
                                            ("/c.txt", "h1")]]
    assert text_fingerprint("Short title page") is None
