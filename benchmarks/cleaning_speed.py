"""Cleaning throughput next to extraction throughput, measured in the same run.

    python benchmarks/cleaning_speed.py [--corpus ../shared/corpus] [--repeat 5]

For every PDF of the corpus that has a text layer: extract it with the
embedded Tika (the pipeline's ``EmbeddedTika`` + ``build_extracted_document``,
one warm extractor, so start-up is not counted), then clean the result with
the default ``CleanOptions``. Each is timed ``--repeat`` times and the median
kept. Prints per file and in total: extraction seconds, cleaning seconds,
cleaning throughput in MB/s of extracted text, and cleaning time as a share of
extraction time (the target is under 10 %).
"""

from __future__ import annotations

import argparse
import hashlib
import pathlib
import statistics
import sys
import time

REPO = pathlib.Path(__file__).resolve().parents[1]
DEFAULT_CORPUS = REPO.parent / "shared" / "corpus"


def _median_seconds(fn, repeat: int) -> tuple[float, object]:
    times = []
    result = None
    for _ in range(repeat):
        started = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - started)
    return statistics.median(times), result


def main(argv: list[str] | None = None) -> int:
    from ragbeam.transforms.clean.document import CleanOptions, clean_document
    from ragbeam.transforms.extract.backends import EmbeddedTika
    from ragbeam.transforms.extract.document import EmptyDocumentError, build_extracted_document
    from ragbeam.transforms.types import FetchedFile, SourceFile

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", type=pathlib.Path, default=DEFAULT_CORPUS)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)

    tika = EmbeddedTika()
    options = CleanOptions()
    total_extract = total_clean = 0.0
    total_chars = total_bytes = 0
    print(f"{'file':40} {'text MB':>8} {'extract s':>9} {'clean s':>8} {'clean MB/s':>10} "
          f"{'clean/extract':>13}")
    for path in sorted((args.corpus / "pdf").glob("*.pdf")):
        data = path.read_bytes()
        fetched = FetchedFile(SourceFile(str(path), "d", len(data)), data,
                              hashlib.sha256(data).hexdigest())

        def extract(data=data, fetched=fetched, name=path.name):
            xhtml, metadata = tika.extract(data, name)
            return build_extracted_document(fetched, xhtml, metadata)

        try:
            extract_s, extracted = _median_seconds(extract, args.repeat)
        except EmptyDocumentError:
            continue  # no text layer: nothing to clean
        clean_s, _ = _median_seconds(lambda e=extracted: clean_document(e, options), args.repeat)
        text_bytes = len(extracted.raw_text.encode("utf-8"))
        total_extract += extract_s
        total_clean += clean_s
        total_chars += len(extracted.raw_text)
        total_bytes += text_bytes
        print(f"{path.name:40} {text_bytes / 1e6:8.3f} {extract_s:9.4f} {clean_s:8.4f} "
              f"{text_bytes / 1e6 / clean_s:10.2f} {clean_s / extract_s:13.1%}")
    print(f"{'TOTAL':40} {total_bytes / 1e6:8.3f} {total_extract:9.4f} {total_clean:8.4f} "
          f"{total_bytes / 1e6 / total_clean:10.2f} {total_clean / total_extract:13.1%}")
    print(f"extraction throughput: {total_bytes / 1e6 / total_extract:.2f} MB/s of text; "
          f"cleaning: {total_bytes / 1e6 / total_clean:.2f} MB/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
