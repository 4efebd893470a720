"""Fixtures for the evaluation tests: real runs over samples/, headless Chromium."""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import tempfile

import pytest

from conftest import TEST_EXTRACT_TIMEOUT, shared_output

REPO = pathlib.Path(__file__).resolve().parents[2]
ARTIFACTS = REPO / "test-artifacts"
CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu",
                  "--disable-background-networking", "--disable-component-update",
                  "--disable-sync", "--no-first-run", "--window-size=1400,900")


def _binary(*names: str) -> str | None:
    return next((p for p in map(shutil.which, names) if p), None)


@pytest.fixture(scope="session")
def chromium():
    """A Selenium-driven headless Chromium (Debian ``chromium`` + ``chromium-driver``)."""
    browser, driver_path = _binary("chromium", "chromium-browser"), _binary("chromedriver")
    if not (browser and driver_path):
        message = "chromium/chromedriver not installed (make browser installs them)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="ragbeam-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = browser
    for flag in (*CHROMIUM_FLAGS, f"--user-data-dir={profile}"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    # An explicit driver path: Selenium Manager would otherwise try to download one.
    driver = webdriver.Chrome(options=options, service=Service(driver_path))
    driver.set_page_load_timeout(60)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


@pytest.fixture(scope="session")
def artifacts() -> pathlib.Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS


def open_page(driver, path: pathlib.Path) -> list[dict]:
    """Load a local page; return its console messages (and clear the log)."""
    driver.get(path.resolve().as_uri())
    driver.execute_script("return document.readyState")
    return driver.get_log("browser")


def console_errors(entries: list[dict]) -> list[dict]:
    return [e for e in entries if e.get("level") == "SEVERE"]


SAMPLE_QUESTIONS = [
    {"question": "How many beds does the bunk house have?", "answer_doc": "faq.txt",
     "answer_text": "The bunk house has twelve beds"},
    {"question": "When may boats be taken out?", "answer_doc": "handbook.md",
     "answer_text": "between sunrise and one hour before sunset"},
    {"question": "Where do samples for nutrient analysis go?", "answer_doc": "handbook.md"},
    {"question": "What must be calibrated on the day of use?",
     "answer_text": "Water-quality sondes must be calibrated on the day of use"},
]
COMPARED_STRATEGIES = ("recursive", "fixed", "parent_child")


@pytest.fixture(scope="session")
def sample_questions(tmp_path_factory) -> pathlib.Path:
    """Questions about samples/ (answer_doc relative to samples/)."""
    path = tmp_path_factory.mktemp("questions") / "questions.jsonl"
    path.write_text("".join(json.dumps(q) + "\n" for q in SAMPLE_QUESTIONS), encoding="utf-8")
    return path


@pytest.fixture(scope="session")
def samples_compare(tmp_path_factory, sample_questions) -> pathlib.Path:
    """``ragbeam compare`` over samples/: three strategies, both retrievers (real runs),
    made once per test session (``shared_output``)."""
    from ragbeam.cli import main

    def compare(work: pathlib.Path) -> None:
        code = main(["compare", "--input", str(REPO / "samples"), "--work", str(work),
                     "--strategies", ",".join(COMPARED_STRATEGIES),
                     "--questions", str(sample_questions), "--retriever", "both",
                     "--exclude", "*.py", "--extract-timeout", TEST_EXTRACT_TIMEOUT])
        assert code == 0

    return shared_output(tmp_path_factory, "samples_compare", compare, done="compare.json")
