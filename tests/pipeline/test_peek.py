"""``ragbeam peek``: names that tell files apart, and chunk lines without noise."""

from __future__ import annotations

from ragbeam.pipeline.peek import chunk_line, display_names, peek

from helpers import run_cli


def test_names_are_paths_below_the_shared_folder():
    uris = ["/data/a/manuals/LICENSE", "/data/a/tools/LICENSE", "/data/a/tools/x/guide.md"]
    assert list(display_names(uris).values()) == ["manuals/LICENSE", "tools/LICENSE",
                                                  "tools/x/guide.md"]
    assert display_names(["gs://b/docs/one.txt"]) == {"gs://b/docs/one.txt": "one.txt"}


def _chunk(text: str, headings: list[str]) -> dict:
    return {"chunk_index": 0, "token_count": 9, "page_start": None, "text": text,
            "heading_path": headings}


def test_a_chunk_line_names_its_heading_only_when_it_has_one_the_text_does_not_open_with():
    assert "under" not in chunk_line(_chunk("Plain text without headings.", []))
    assert "under" not in chunk_line(_chunk("# Guide\n\nBoats leave at nine.", ["# Guide"]))
    line = chunk_line(_chunk("Wear a life jacket.", ["# Guide", "## Safety"]))
    assert ", under # Guide > ## Safety: Wear a life jacket." in line


def test_peek_tells_two_files_of_one_name_apart(tmp_path, capsys):
    for folder in ("manuals", "tools"):
        (tmp_path / "in" / folder).mkdir(parents=True)
        (tmp_path / "in" / folder / "LICENSE").write_text(f"The {folder} licence text.\n")
    out = tmp_path / "out"
    run_cli(["--input", str(tmp_path / "in"), "--output", str(out), "--ocr", "off"])
    capsys.readouterr()
    peek(str(out))
    printed = capsys.readouterr().out
    assert "✓ manuals/LICENSE: 1 chunks" in printed and "✓ tools/LICENSE: 1 chunks" in printed
    assert "under -" not in printed

