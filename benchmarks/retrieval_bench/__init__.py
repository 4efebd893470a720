"""The retrieval benchmark (issue 38): public question sets over real PDFs, ragbeam and
its peers chunked from the same files, every chunk attributed to the PDF pages its text
lies on by one method, and every pipeline scored by ragbeam's own retrievers and budget
fill (``ragbeam.evaluate``). The command line is ``benchmarks/retrieval.py``."""
