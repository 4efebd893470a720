# Two commands do everything on a fresh machine (Python 3.11, no GPU):
#   make demo   set up .venv, run the pipeline on samples/, print a summary
#   make test   set up .venv (with test tools), lint, run the whole test suite (CI), on
#               every CPU (TEST_WORKERS=0: in one process; docs/testing.md)
#   make quick  lint and the tests not marked slow: a developer's check in minutes
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.ragbeam-installed
DEMO_OUT ?= out/demo
# pytest-xdist workers for make test: logical is one per CPU the OS counts (auto would
# count physical cores where psutil is installed).
TEST_WORKERS ?= logical

.PHONY: demo test quick lint install clean browser ocr

# pip compiles the PDF layout pass's C extension (optional: without a C compiler the pure-
# Python pass runs) and cleaning's (required: its only implementation); a changed C source
# reinstalls so that the built module follows it.
$(STAMP): pyproject.toml Makefile transforms/extract/_pdfium_lines.c transforms/clean/_line_passes.c
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	# CPU torch first: anything that depends on torch would otherwise pull a multi-GB CUDA build.
	$(BIN)/pip install --quiet torch==2.13.0
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP) ocr
	HF_HUB_OFFLINE=1 $(BIN)/ragbeam run --input samples --exclude '*.py' --output $(DEMO_OUT) --overwrite
	$(BIN)/ragbeam peek $(DEMO_OUT)

lint: $(STAMP)
	$(BIN)/ruff check .

# Headless Chromium for the report/viz page tests (CI: root on a fresh Debian machine).
browser:
	command -v chromium >/dev/null && command -v chromedriver >/dev/null || \
	  (apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y chromium chromium-driver)

# Tesseract for OCR (--ocr, on by default): English, German, French, Simplified and
# Traditional Chinese, Japanese, Korean, and OSD (which script a page is in: --ocr-languages
# auto); poppler-utils' pdftoppm renders the PDF pages it reads (and makes the tests'
# scans); fonts-wqy-microhei (1.6 MB: Latin, Cyrillic, CJK) draws the tests' pictures of
# text. The packages beyond eng/deu/fra/chi_sim add ~9 MB of downloads (22 MB installed).
# Without them ragbeam warns once and extracts text layers only.
OCR_PACKAGES := tesseract-ocr tesseract-ocr-eng tesseract-ocr-deu tesseract-ocr-fra tesseract-ocr-chi-sim tesseract-ocr-chi-tra tesseract-ocr-jpn tesseract-ocr-kor tesseract-ocr-osd poppler-utils
TEST_FONTS := fonts-wqy-microhei
ocr:
	command -v tesseract >/dev/null && command -v pdftoppm >/dev/null && \
	  test -f /usr/share/fonts/truetype/wqy/wqy-microhei.ttc && \
	  tesseract --list-langs 2>/dev/null | grep -cxE 'chi_sim|chi_tra|jpn|kor|osd' | grep -qx 5 || \
	  (apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $(OCR_PACKAGES) $(TEST_FONTS))

# Each module (or class) goes whole to one worker: its module fixtures are made once;
# modules go out in the order tests/conftest.py gives them (slow ones first), not by size.
test: $(STAMP) browser ocr
	$(BIN)/ruff check .
	HF_HUB_OFFLINE=1 $(BIN)/pytest -n $(TEST_WORKERS) --dist loadscope --no-loadscope-reorder --durations=40

# Everything but the `slow` tests (whole-corpus runs, other runners, the browser;
# tests/conftest.py marks them): what a developer runs before pushing. CI runs `make test`.
quick: $(STAMP)
	$(BIN)/ruff check .
	HF_HUB_OFFLINE=1 $(BIN)/pytest -m "not slow" -q

clean:
	rm -rf $(VENV) out build dist *.egg-info
