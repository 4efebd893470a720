"""``--help`` reads as plain text: no RST marks, no "(default: True)" on a flag that
turns something off."""

from __future__ import annotations

import pytest

from ragbeam.cli import main


def _help(capsys, argv: list[str]) -> str:
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    assert exit_.value.code == 0
    return capsys.readouterr().out


def test_the_command_s_help_shows_no_rst_marks(capsys):
    text = _help(capsys, ["--help"])
    assert "ragbeam run [--config FILE]" in text and "``" not in text


def test_a_flag_that_turns_a_default_off_says_so(capsys):
    text = " ".join(_help(capsys, ["run", "--help"]).split())
    assert "(default: True)" not in text and "(--no-preflight skips)" not in text
    assert "--no-preflight check before starting" in text
    assert "the output is writable (on by default; this flag skips it)" in text
