/* Cleaning's per-line passes in C: each is the only implementation of its step, and
 * the Python function that calls it documents the rule (and holds its constants, which
 * come in with each call).
 *
 * ``block_lines`` (``document._block_lines``): a block's text split into lines, each
 * trimmed, placed (raw offsets) and styled; the lines that are not plain ASCII go to
 * Python's own cleaning (``document._irregular_line``), so Unicode is Python's.
 *
 * ``wraps_by_position`` (``linejoin.wraps_by_position``): whether each PDF line's break
 * is a wrap, read from where the layout pass placed the lines: a per-line pass over
 * the lines' boxes that cost Python a tenth of a document's cleaning. Its arithmetic
 * is the Python model's,
 * operation for operation in doubles (Python's floats), and where Python compares
 * (``min``, ``max``, ``sorted``, ``bisect``) it compares the same way, NaN included:
 * a list to take the median of that holds a NaN is sorted by Python's own sort.
 *
 *   text_columns   runs of consecutive placed lines set under one another from one
 *                  left edge (``Run``), each a text column when enough of its lines,
 *                  and of its page's, end at its right edge (``column_of``,
 *                  ``ends_near``); a run too short to tell takes its page's column
 *                  that starts where it starts;
 *   page_measures  each page's pitch (the median step from one line's top to the
 *                  next) and the document's character width (the median over its
 *                  lines of MIN_MEASURED_CHARS or more).
 *
 * ``word_counts`` (``hyphenation.hyphen_lexicon``): a document's words and how often
 * each occurs, and how often the asked pairs of words follow one another: the counts
 * de-hyphenation decides by, which cost Python half of line assembly on a long
 * document (a string and a regex match per word).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static PyObject *soft_hyphen_str, *style_kwnames, *spaces_str, *raw_end_str, *rotated_str,
    *detached_str, *style_str, *text_str, *wrapped_str, *box_field_str[5];

typedef struct {
    double max_column_step, max_wrap_step, column_indent, edge_slack, min_column_pitches,
        max_spread, full_line_share;
    Py_ssize_t min_edge_lines, min_margin_lines, min_measured_chars;
} Rules;

typedef struct {
    int placed;
    Py_ssize_t page; /* dense page id (0 ..): pages compared for equality only */
    double x0, top, x1, bottom;
} Box;

typedef struct {
    Py_ssize_t start, count; /* a range of ``placed`` (a run's lines are consecutive) */
    double x0, edge;
    Py_ssize_t last, reach;
} Run;

typedef struct {
    double x0, edge, char_width;
    Py_ssize_t full_chars;
    Py_ssize_t next_known; /* the next known column of its page (-1: none) */
} Column;

static int compare_doubles(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y ? 1 : 0;
}

/* ``sorted(values)[len(values) // 2]`` (``linejoin._median``); ``values`` is reordered.
 * Without NaN any sort gives the same value there; with one, Python's sort decides. */
static int median(double *values, Py_ssize_t n, double *out) {
    if (n == 0) {
        PyErr_SetString(PyExc_IndexError, "list index out of range");
        return -1;
    }
    int has_nan = 0;
    for (Py_ssize_t i = 0; i < n && !has_nan; i++)
        has_nan = isnan(values[i]);
    if (!has_nan) {
        qsort(values, (size_t)n, sizeof(double), compare_doubles);
        *out = values[n / 2];
        return 0;
    }
    PyObject *list = PyList_New(n);
    if (list == NULL)
        return -1;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *value = PyFloat_FromDouble(values[i]);
        if (value == NULL) {
            Py_DECREF(list);
            return -1;
        }
        PyList_SET_ITEM(list, i, value);
    }
    if (PyList_Sort(list) < 0) {
        Py_DECREF(list);
        return -1;
    }
    *out = PyFloat_AS_DOUBLE(PyList_GET_ITEM(list, n / 2));
    Py_DECREF(list);
    return 0;
}

/* ``typical_line_length``: the 80th percentile of the lengths (reordered). */
static int compare_sizes(const void *a, const void *b) {
    Py_ssize_t x = *(const Py_ssize_t *)a, y = *(const Py_ssize_t *)b;
    return x < y ? -1 : x > y;
}

static Py_ssize_t typical_line_length(Py_ssize_t *lengths, Py_ssize_t n) {
    if (n == 0)
        return 0;
    qsort(lengths, (size_t)n, sizeof(Py_ssize_t), compare_sizes);
    Py_ssize_t at = (Py_ssize_t)((double)n * 0.8);
    return lengths[at < n - 1 ? at : n - 1];
}

/* ``_ends_near``: how many of ``ends`` (sorted, no NaN) lie within ``slack`` of
 * ``edge``, found by bisection as ``bisect`` finds them, each then tested exactly. */
static Py_ssize_t ends_near(const double *ends, Py_ssize_t n, double edge, double slack) {
    double margin = fabs(slack) + 1.0;
    double x = edge - margin;
    Py_ssize_t lo = 0, hi = n;
    while (lo < hi) { /* bisect_left */
        Py_ssize_t mid = (lo + hi) / 2;
        if (ends[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    Py_ssize_t low = lo;
    x = edge + margin;
    lo = 0;
    hi = n;
    while (lo < hi) { /* bisect_right */
        Py_ssize_t mid = (lo + hi) / 2;
        if (x < ends[mid])
            hi = mid;
        else
            lo = mid + 1;
    }
    Py_ssize_t count = 0;
    for (Py_ssize_t i = low; i < lo; i++)
        count += fabs(ends[i] - edge) <= slack;
    return count;
}

typedef struct {
    Py_ssize_t n, npages;
    Box *boxes;
    Py_ssize_t *lengths; /* the texts' lengths in code points */
    PyObject **texts;    /* borrowed */
    /* per page id */
    char *measured;
    double *pitch;
    double char_width;
    Py_ssize_t *ends_start, *ends_count;
    double *ends;
    Py_ssize_t *known_first, *known_last;
} Doc;

static double pitch_of(const Doc *d, const Box *box) {
    return d->measured[box->page] ? d->pitch[box->page] : INFINITY;
}

/* ``_Run.takes``: is ``box`` the run's next line (``after``: the line after it)? */
static int run_takes(const Rules *r, const Doc *d, const Run *run, const Box *box,
                     const Box *after, double pitch) {
    const Box *last = &d->boxes[run->last];
    double step = box->top - last->top;
    if (box->page != last->page || !(0 < step && step <= r->max_column_step * pitch)
        || fabs(box->x0 - run->x0) > r->column_indent * pitch)
        return 0;
    if (run->reach < r->min_edge_lines)
        return 1;
    double slack = r->edge_slack * pitch;
    if (box->x1 > run->edge + slack)
        return 0;
    return !(box->x1 < run->edge - 3 * slack && after != NULL && after->page == box->page
             && fabs(after->x1 - box->x1) <= slack && fabs(after->x0 - box->x0) <= slack);
}

/* ``_Run.add``. */
static void run_add(const Rules *r, const Doc *d, Run *run, const Py_ssize_t *placed,
                    Py_ssize_t index, double pitch) {
    const Box *box = &d->boxes[index];
    run->count++;
    run->last = index;
    double slack = r->edge_slack * pitch;
    if (box->x1 > run->edge) {
        run->edge = box->x1;
        Py_ssize_t reach = 0;
        for (Py_ssize_t k = run->start; k < run->start + run->count; k++)
            reach += d->boxes[placed[k]].x1 >= run->edge - slack;
        run->reach = reach;
    }
    else if (box->x1 >= run->edge - slack)
        run->reach++;
}

/* ``_column_of``: 1 and ``column`` filled where the run is a text column, 0 where it
 * is not, -1 on error. */
static int column_of(const Rules *r, const Doc *d, const Run *run, const Py_ssize_t *placed,
                     double pitch, Column *column, double *scratch, Py_ssize_t *sizes) {
    if (run->count < r->min_edge_lines || pitch == INFINITY)
        return 0;
    const Box *first = &d->boxes[placed[run->start]];
    double x0 = first->x0, edge = first->x1;
    for (Py_ssize_t k = run->start + 1; k < run->start + run->count; k++) {
        const Box *box = &d->boxes[placed[k]];
        if (box->x0 < x0)
            x0 = box->x0;
        if (box->x1 > edge)
            edge = box->x1;
    }
    if (edge - x0 < r->min_column_pitches * pitch)
        return 0;
    Py_ssize_t at_edge = 0;
    for (Py_ssize_t k = run->start; k < run->start + run->count; k++)
        at_edge += d->boxes[placed[k]].x1 >= edge - r->edge_slack * pitch;
    if (at_edge < r->min_edge_lines)
        return 0;
    Py_ssize_t widths = 0;
    for (Py_ssize_t k = 0; k < run->count; k++) {
        Py_ssize_t i = placed[run->start + k];
        const Box *box = &d->boxes[i];
        if (d->lengths[i])
            scratch[widths++] = (box->x1 - box->x0) / (double)d->lengths[i];
        sizes[k] = d->lengths[i];
    }
    column->x0 = x0;
    column->edge = edge;
    column->full_chars = typical_line_length(sizes, run->count);
    column->next_known = -1;
    if (median(scratch, widths, &column->char_width) < 0)
        return -1;
    return 1;
}

static int not_continuation(PyObject *text) {
    Py_UCS4 c = PyUnicode_READ_CHAR(text, 0);
    if (c < 128 && c && strchr("\\{}<>=|_~^", (int)c))
        return 1;
    return c == '/' && PyUnicode_GET_LENGTH(text) > 1 && PyUnicode_READ_CHAR(text, 1) == '/';
}

static int sparse(const Rules *r, const Doc *d, const Box *box, Py_ssize_t length) {
    return d->measured[box->page] && length > 1
           && (box->x1 - box->x0) / (double)length > r->max_spread * d->char_width;
}

static int set_apart(const Rules *r, const Doc *d, const Box *box, const Box *after) {
    return d->measured[box->page] && after->page == box->page && after->top > box->top
           && after->top - box->top > r->max_wrap_step * d->pitch[box->page];
}

static int compare_pages(const void *a, const void *b) {
    long x = *(const long *)a, y = *(const long *)b;
    return x < y ? -1 : x > y;
}

/* A LineBox (a tuple: page, x0, top, x1, bottom) or, ``from_style``, a LineStyle
 * (its fields by name; a rotated line is not placed); None: not placed. */
static int read_box(PyObject *item, Box *box, long *page, int from_style) {
    box->placed = 0;
    if (item == Py_None)
        return 0;
    PyObject *values[5] = {NULL, NULL, NULL, NULL, NULL};
    if (from_style) {
        PyObject *rotated = PyObject_GetAttr(item, rotated_str);
        int turned = rotated ? PyObject_IsTrue(rotated) : -1;
        Py_XDECREF(rotated);
        if (turned)
            return turned < 0 ? -1 : 0;
        for (int f = 0; f < 5; f++)
            if ((values[f] = PyObject_GetAttr(item, box_field_str[f])) == NULL)
                goto error;
    }
    else {
        if (!PyTuple_Check(item) || PyTuple_GET_SIZE(item) < 5) {
            PyErr_SetString(PyExc_TypeError, "a box is a LineBox or None");
            return -1;
        }
        for (int f = 0; f < 5; f++) {
            values[f] = PyTuple_GET_ITEM(item, f);
            Py_INCREF(values[f]);
        }
    }
    *page = PyLong_AsLong(values[0]);
    if (*page == -1 && PyErr_Occurred())
        goto error;
    double *fields[4] = {&box->x0, &box->top, &box->x1, &box->bottom};
    for (int f = 0; f < 4; f++) {
        *fields[f] = PyFloat_AsDouble(values[f + 1]);
        if (*fields[f] == -1.0 && PyErr_Occurred())
            goto error;
    }
    for (int f = 0; f < 5; f++)
        Py_DECREF(values[f]);
    box->placed = 1;
    return 0;
error:
    for (int f = 0; f < 5; f++)
        Py_XDECREF(values[f]);
    return -1;
}

static PyObject *wraps_core(Rules r, PyObject *is_cjk, PyObject *boxes_seq,
                            PyObject *texts_seq, int from_styles);

#define RULES_FORMAT "(dddnnddndd)"
#define RULES_FIELDS(r) &(r).max_column_step, &(r).max_wrap_step, &(r).column_indent, \
    &(r).min_edge_lines, &(r).min_margin_lines, &(r).edge_slack, &(r).min_column_pitches, \
    &(r).min_measured_chars, &(r).max_spread, &(r).full_line_share

/* wraps_by_position(boxes, texts, is_cjk, rules) -> [True | False | None] */
static PyObject *wraps_by_position(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *boxes_arg, *texts_arg, *is_cjk;
    Rules r;
    if (!PyArg_ParseTuple(args, "OOO" RULES_FORMAT, &boxes_arg, &texts_arg, &is_cjk,
                          RULES_FIELDS(r)))
        return NULL;
    PyObject *boxes_seq = PySequence_Fast(boxes_arg, "boxes must be a sequence");
    if (boxes_seq == NULL)
        return NULL;
    PyObject *texts_seq = PySequence_Fast(texts_arg, "texts must be a sequence");
    PyObject *result = texts_seq ? wraps_core(r, is_cjk, boxes_seq, texts_seq, 0) : NULL;
    Py_DECREF(boxes_seq);
    Py_XDECREF(texts_seq);
    return result;
}

/* mark_wraps_by_position(lines, is_cjk, rules): each line outside ``detached`` gets
 * ``wrapped``, its box being its style's unless it has none or is rotated
 * (``document._mark_wraps_by_position``). */
static PyObject *mark_wraps_by_position(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *lines_arg, *is_cjk;
    Rules r;
    if (!PyArg_ParseTuple(args, "OO" RULES_FORMAT, &lines_arg, &is_cjk, RULES_FIELDS(r)))
        return NULL;
    PyObject *lines = PySequence_Fast(lines_arg, "lines must be a sequence");
    if (lines == NULL)
        return NULL;
    PyObject *flow = PyList_New(0), *styles = PyList_New(0), *texts = PyList_New(0);
    PyObject *wraps = NULL;
    if (flow == NULL || styles == NULL || texts == NULL)
        goto done;
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(lines); i++) {
        PyObject *line = PySequence_Fast_GET_ITEM(lines, i);
        PyObject *detached = PyObject_GetAttr(line, detached_str);
        int outside = detached ? PyObject_IsTrue(detached) : -1;
        Py_XDECREF(detached);
        if (outside < 0)
            goto done;
        if (outside)
            continue;
        PyObject *style = PyObject_GetAttr(line, style_str);
        PyObject *text = style ? PyObject_GetAttr(line, text_str) : NULL;
        int failed = text == NULL || PyList_Append(flow, line) < 0
                     || PyList_Append(styles, style) < 0 || PyList_Append(texts, text) < 0;
        Py_XDECREF(style);
        Py_XDECREF(text);
        if (failed)
            goto done;
    }
    wraps = wraps_core(r, is_cjk, styles, texts, 1);
    if (wraps == NULL)
        goto done;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(flow); i++)
        if (PyObject_SetAttr(PyList_GET_ITEM(flow, i), wrapped_str, PyList_GET_ITEM(wraps, i)) < 0) {
            Py_CLEAR(wraps);
            goto done;
        }
done:
    Py_DECREF(lines);
    Py_XDECREF(flow);
    Py_XDECREF(styles);
    Py_XDECREF(texts);
    if (wraps == NULL)
        return NULL;
    Py_DECREF(wraps);
    Py_RETURN_NONE;
}

static PyObject *wraps_core(Rules r, PyObject *is_cjk, PyObject *boxes_seq,
                            PyObject *texts_seq, int from_styles) {
    PyObject *result = NULL;
    Doc d;
    memset(&d, 0, sizeof d);
    long *pages = NULL, *page_of = NULL;
    Py_ssize_t *placed = NULL, *sizes = NULL, *page_order = NULL, *counts = NULL,
               *fill = NULL, *column_at = NULL;
    double *values = NULL, *scratch = NULL, *pitches = NULL;
    Run *runs = NULL;
    Column *columns = NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(boxes_seq);
    if (PySequence_Fast_GET_SIZE(texts_seq) != n) {
        PyErr_SetString(PyExc_ValueError, "boxes and texts differ in length");
        goto done;
    }
    d.n = n;
    size_t cells = (size_t)(n ? n : 1);
    d.boxes = PyMem_Calloc(cells, sizeof(Box));
    d.lengths = PyMem_Calloc(cells, sizeof(Py_ssize_t));
    pages = PyMem_Calloc(cells, sizeof(long));
    page_of = PyMem_Calloc(cells, sizeof(long));
    placed = PyMem_Calloc(cells, sizeof(Py_ssize_t));
    sizes = PyMem_Calloc(cells, sizeof(Py_ssize_t));
    values = PyMem_Calloc(cells, sizeof(double));
    scratch = PyMem_Calloc(cells, sizeof(double));
    pitches = PyMem_Calloc(cells, sizeof(double));
    runs = PyMem_Calloc(cells, sizeof(Run));
    columns = PyMem_Calloc(cells, sizeof(Column));
    column_at = PyMem_Calloc(cells, sizeof(Py_ssize_t));
    if (!d.boxes || !d.lengths || !pages || !page_of || !placed || !sizes || !values
        || !scratch || !pitches || !runs || !columns || !column_at) {
        PyErr_NoMemory();
        goto done;
    }
    d.texts = PySequence_Fast_ITEMS(texts_seq);
    Py_ssize_t nplaced = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *text = d.texts[i];
        if (!PyUnicode_Check(text)) {
            PyErr_SetString(PyExc_TypeError, "texts must be str");
            goto done;
        }
        d.lengths[i] = PyUnicode_GET_LENGTH(text);
        if (read_box(PySequence_Fast_GET_ITEM(boxes_seq, i), &d.boxes[i], &page_of[i],
                     from_styles) < 0)
            goto done;
        if (d.boxes[i].placed) {
            pages[nplaced] = page_of[i];
            placed[nplaced++] = i;
        }
    }
    /* Dense page ids: the distinct pages in order. */
    qsort(pages, (size_t)nplaced, sizeof(long), compare_pages);
    Py_ssize_t npages = 0;
    for (Py_ssize_t k = 0; k < nplaced; k++)
        if (npages == 0 || pages[k] != pages[npages - 1])
            pages[npages++] = pages[k];
    for (Py_ssize_t k = 0; k < nplaced; k++) {
        Box *box = &d.boxes[placed[k]];
        long *found = bsearch(&page_of[placed[k]], pages, (size_t)npages, sizeof(long),
                              compare_pages);
        box->page = found - pages;
    }
    d.npages = npages;
    size_t page_cells = (size_t)(npages ? npages : 1);
    d.measured = PyMem_Calloc(page_cells, 1);
    d.pitch = PyMem_Calloc(page_cells, sizeof(double));
    d.ends_start = PyMem_Calloc(page_cells, sizeof(Py_ssize_t));
    d.ends_count = PyMem_Calloc(page_cells, sizeof(Py_ssize_t));
    d.ends = PyMem_Calloc(cells, sizeof(double));
    d.known_first = PyMem_Calloc(page_cells, sizeof(Py_ssize_t));
    d.known_last = PyMem_Calloc(page_cells, sizeof(Py_ssize_t));
    page_order = PyMem_Calloc(page_cells, sizeof(Py_ssize_t));
    counts = PyMem_Calloc(page_cells, sizeof(Py_ssize_t));
    fill = PyMem_Calloc(page_cells, sizeof(Py_ssize_t));
    if (!d.measured || !d.pitch || !d.ends_start || !d.ends_count || !d.ends
        || !d.known_first || !d.known_last || !page_order || !counts || !fill) {
        PyErr_NoMemory();
        goto done;
    }

    /* page_measures: each measured line's width per character, grouped by page in the
     * order pages were first measured (a dict's order: what Python's sort sees). */
    {
        Py_ssize_t nwidths = 0, norder = 0, previous = -1;
        for (Py_ssize_t i = 0; i < n; i++) {
            const Box *box = &d.boxes[i];
            if (!box->placed || d.lengths[i] < r.min_measured_chars)
                continue;
            if (!d.measured[box->page]) {
                d.measured[box->page] = 1;
                page_order[norder++] = box->page;
            }
            counts[box->page]++;
            nwidths++;
            if (previous >= 0) {
                const Box *before = &d.boxes[previous];
                if (before->page == box->page && fabs(box->x0 - before->x0) < box->bottom - box->top
                    && box->top > before->top)
                    fill[box->page]++; /* pitches counted first, gathered below */
            }
            previous = i;
        }
        if (nwidths) {
            /* offsets of each page's widths and pitches in the page order */
            Py_ssize_t offset = 0;
            for (Py_ssize_t k = 0; k < norder; k++) {
                Py_ssize_t page = page_order[k];
                d.ends_start[page] = offset; /* (reused as the widths' cursor) */
                offset += counts[page];
            }
            Py_ssize_t pitch_offset = 0;
            for (Py_ssize_t page = 0; page < npages; page++) {
                d.ends_count[page] = pitch_offset; /* (reused as the pitches' cursor) */
                pitch_offset += fill[page];
            }
            previous = -1;
            for (Py_ssize_t i = 0; i < n; i++) {
                const Box *box = &d.boxes[i];
                if (!box->placed || d.lengths[i] < r.min_measured_chars)
                    continue;
                values[d.ends_start[box->page]++] = (box->x1 - box->x0) / (double)d.lengths[i];
                if (previous >= 0) {
                    const Box *before = &d.boxes[previous];
                    if (before->page == box->page
                        && fabs(box->x0 - before->x0) < box->bottom - box->top
                        && box->top > before->top)
                        pitches[d.ends_count[box->page]++] = box->top - before->top;
                }
                previous = i;
            }
            if (median(values, nwidths, &d.char_width) < 0)
                goto done;
            pitch_offset = 0;
            for (Py_ssize_t page = 0; page < npages; page++) {
                if (fill[page]) {
                    if (median(pitches + pitch_offset, fill[page], &d.pitch[page]) < 0)
                        goto done;
                }
                else
                    d.pitch[page] = INFINITY;
                pitch_offset += fill[page];
            }
        }
        else
            memset(d.measured, 0, page_cells);
    }

    /* Each page's line ends, sorted (NaN: near no edge). */
    {
        memset(counts, 0, page_cells * sizeof(Py_ssize_t));
        for (Py_ssize_t k = 0; k < nplaced; k++) {
            const Box *box = &d.boxes[placed[k]];
            if (box->x1 == box->x1)
                counts[box->page]++;
        }
        Py_ssize_t offset = 0;
        for (Py_ssize_t page = 0; page < npages; page++) {
            d.ends_start[page] = offset;
            d.ends_count[page] = 0;
            offset += counts[page];
        }
        for (Py_ssize_t k = 0; k < nplaced; k++) {
            const Box *box = &d.boxes[placed[k]];
            if (box->x1 == box->x1)
                d.ends[d.ends_start[box->page] + d.ends_count[box->page]++] = box->x1;
        }
        for (Py_ssize_t page = 0; page < npages; page++)
            qsort(d.ends + d.ends_start[page], (size_t)d.ends_count[page], sizeof(double),
                  compare_doubles);
    }

    /* text_columns: the runs. */
    Py_ssize_t nruns = 0;
    for (Py_ssize_t k = 0; k < nplaced; k++) {
        const Box *box = &d.boxes[placed[k]];
        double pitch = pitch_of(&d, box);
        if (nruns == 0
            || !run_takes(&r, &d, &runs[nruns - 1], box,
                          k + 1 < nplaced ? &d.boxes[placed[k + 1]] : NULL, pitch)) {
            Run *run = &runs[nruns++];
            run->start = k;
            run->count = 0;
            run->x0 = box->x0;
            run->last = placed[k];
            run->edge = -INFINITY;
            run->reach = 0;
        }
        run_add(&r, &d, &runs[nruns - 1], placed, placed[k], pitch);
    }
    for (Py_ssize_t i = 0; i < n; i++)
        column_at[i] = -1;
    for (Py_ssize_t page = 0; page < npages; page++)
        d.known_first[page] = d.known_last[page] = -1;
    Py_ssize_t ncolumns = 0;
    for (Py_ssize_t q = 0; q < nruns; q++) {
        const Run *run = &runs[q];
        const Box *first = &d.boxes[placed[run->start]];
        double pitch = pitch_of(&d, first);
        int found = column_of(&r, &d, run, placed, pitch, &columns[ncolumns], scratch, sizes);
        if (found < 0)
            goto done;
        if (!found
            || ends_near(d.ends + d.ends_start[first->page], d.ends_count[first->page],
                         columns[ncolumns].edge, r.edge_slack * pitch) < r.min_margin_lines)
            continue;
        if (d.known_last[first->page] < 0)
            d.known_first[first->page] = ncolumns;
        else
            columns[d.known_last[first->page]].next_known = ncolumns;
        d.known_last[first->page] = ncolumns;
        for (Py_ssize_t k = run->start; k < run->start + run->count; k++)
            column_at[placed[k]] = ncolumns;
        ncolumns++;
    }
    for (Py_ssize_t q = 0; q < nruns; q++) {
        const Run *run = &runs[q];
        const Box *first = &d.boxes[placed[run->start]];
        if (column_at[placed[run->start]] >= 0 || d.known_first[first->page] < 0)
            continue;
        double pitch = pitch_of(&d, first), reach = first->x1;
        for (Py_ssize_t k = run->start + 1; k < run->start + run->count; k++)
            if (d.boxes[placed[k]].x1 > reach)
                reach = d.boxes[placed[k]].x1;
        for (Py_ssize_t c = d.known_first[first->page]; c >= 0; c = columns[c].next_known) {
            if (fabs(first->x0 - columns[c].x0) <= pitch / 2 && columns[c].edge + pitch >= reach) {
                for (Py_ssize_t k = run->start; k < run->start + run->count; k++)
                    column_at[placed[k]] = c;
                break;
            }
        }
    }

    /* The wraps. */
    result = PyList_New(n);
    if (result == NULL)
        goto done;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *wrap = Py_None;
        const Box *box = &d.boxes[i];
        if (i + 1 < n && box->placed && column_at[i] >= 0 && d.lengths[i] && d.lengths[i + 1]) {
            const Column *column = &columns[column_at[i]];
            const Box *after = &d.boxes[i + 1];
            PyObject *following = d.texts[i + 1];
            if (not_continuation(following) || sparse(&r, &d, box, d.lengths[i])
                || (after->placed && (sparse(&r, &d, after, d.lengths[i + 1])
                                      || set_apart(&r, &d, box, after))))
                wrap = Py_False;
            else {
                double room = column->edge - box->x1;
                Py_ssize_t word;
                int cjk = 0;
                if (PyUnicode_READ_CHAR(following, 0) >= 128) { /* CJK is never ASCII */
                    PyObject *ch = PyUnicode_Substring(following, 0, 1);
                    PyObject *answer = ch ? PyObject_CallOneArg(is_cjk, ch) : NULL;
                    Py_XDECREF(ch);
                    cjk = answer ? PyObject_IsTrue(answer) : -1;
                    Py_XDECREF(answer);
                    if (cjk < 0) {
                        Py_CLEAR(result);
                        goto done;
                    }
                }
                if (cjk)
                    word = 1;
                else {
                    word = PyUnicode_FindChar(following, ' ', 0, d.lengths[i + 1], 1);
                    if (word == -2) {
                        Py_CLEAR(result);
                        goto done;
                    }
                    if (word < 0)
                        word = d.lengths[i + 1];
                }
                int wraps = room <= column->char_width / 2
                            || (room < (double)(word + 2) * column->char_width
                                && (double)d.lengths[i] >= r.full_line_share * (double)column->full_chars);
                wrap = wraps ? Py_True : Py_False;
            }
        }
        Py_INCREF(wrap);
        PyList_SET_ITEM(result, i, wrap);
    }

done:
    PyMem_Free(d.boxes);
    PyMem_Free(d.lengths);
    PyMem_Free(d.measured);
    PyMem_Free(d.pitch);
    PyMem_Free(d.ends_start);
    PyMem_Free(d.ends_count);
    PyMem_Free(d.ends);
    PyMem_Free(d.known_first);
    PyMem_Free(d.known_last);
    PyMem_Free(pages);
    PyMem_Free(page_of);
    PyMem_Free(placed);
    PyMem_Free(sizes);
    PyMem_Free(page_order);
    PyMem_Free(counts);
    PyMem_Free(fill);
    PyMem_Free(column_at);
    PyMem_Free(values);
    PyMem_Free(scratch);
    PyMem_Free(pitches);
    PyMem_Free(runs);
    PyMem_Free(columns);
    return result;
}

/* ``ends_near(ends, edge, slack)`` for the tests: ``ends`` a sorted list of floats. */
static PyObject *py_ends_near(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *ends_arg;
    double edge, slack;
    if (!PyArg_ParseTuple(args, "Odd", &ends_arg, &edge, &slack))
        return NULL;
    PyObject *seq = PySequence_Fast(ends_arg, "ends must be a sequence");
    if (seq == NULL)
        return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    double *ends = PyMem_Calloc((size_t)(n ? n : 1), sizeof(double));
    if (ends == NULL) {
        Py_DECREF(seq);
        return PyErr_NoMemory();
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        ends[i] = PyFloat_AsDouble(PySequence_Fast_GET_ITEM(seq, i));
        if (ends[i] == -1.0 && PyErr_Occurred()) {
            PyMem_Free(ends);
            Py_DECREF(seq);
            return NULL;
        }
    }
    Py_ssize_t count = ends_near(ends, n, edge, slack);
    PyMem_Free(ends);
    Py_DECREF(seq);
    return PyLong_FromSsize_t(count);
}

/* --- block_lines --------------------------------------------------------------- */

/* Is text[start:end) printable ASCII (" " its only whitespace)? Of such a line
 * ``clean_line_text`` leaves its words with one space between them (``collapse_spaces``:
 * ``" ".join(line.split())``); *runs: whether two spaces stand together. */
static int plain_ascii(int kind, const void *data, Py_ssize_t start, Py_ssize_t end, int *runs) {
    Py_UCS4 before = 0;
    *runs = 0;
    for (Py_ssize_t i = start; i < end; i++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        if (c < 0x20 || c > 0x7e)
            return 0;
        if (c == ' ' && before == ' ')
            *runs = 1;
        before = c;
    }
    return 1;
}

/* text[a:z) (printable ASCII, no space at either end) with each run of spaces as one. */
static PyObject *collapsed(int kind, const void *data, Py_ssize_t a, Py_ssize_t z) {
    PyObject *out = PyUnicode_New(z - a, 0x7f);
    if (out == NULL)
        return NULL;
    Py_UCS1 *to = PyUnicode_1BYTE_DATA(out);
    Py_ssize_t n = 0;
    for (Py_ssize_t i = a; i < z; i++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        if (c == ' ' && to[n - 1] == ' ')
            continue;
        to[n++] = (Py_UCS1)c;
    }
    if (n == z - a)
        return out;
    PyObject *shorter = PyUnicode_Substring(out, 0, n);
    Py_DECREF(out);
    return shorter;
}

/* ``PdfLayout.style_of``: the style of the line of ``styles`` (sorted by their
 * ``starts``) that holds [raw_start, raw_end), or None (a new reference). */
static PyObject *style_of(PyObject *starts, PyObject *styles, Py_ssize_t raw_start,
                          Py_ssize_t raw_end) {
    Py_ssize_t lo = 0, hi = PyList_GET_SIZE(starts);
    while (lo < hi) { /* bisect_right */
        Py_ssize_t mid = (lo + hi) / 2;
        Py_ssize_t start = PyLong_AsSsize_t(PyList_GET_ITEM(starts, mid));
        if (start == -1 && PyErr_Occurred())
            return NULL;
        if (raw_start < start)
            hi = mid;
        else
            lo = mid + 1;
    }
    if (lo == 0)
        Py_RETURN_NONE;
    Py_ssize_t line_start = PyLong_AsSsize_t(PyList_GET_ITEM(starts, lo - 1));
    PyObject *line = PySequence_GetItem(styles, lo - 1);
    if (line == NULL)
        return NULL;
    PyObject *end = PyObject_GetAttr(line, raw_end_str);
    Py_ssize_t line_end = end ? PyLong_AsSsize_t(end) : -1;
    Py_XDECREF(end);
    if (line_end == -1 && PyErr_Occurred()) {
        Py_DECREF(line);
        return NULL;
    }
    if (raw_start < line_end && raw_end > line_start)
        return line;
    Py_DECREF(line);
    Py_RETURN_NONE;
}


/* block_lines(text, kind, index, page, level, raw_start, raw_end, detached, options,
 *             layout_starts, layout_styles, irregular_line, spaced_line, line_type)
 *   -> [line_type] (layout_starts: a list of the styles' raw starts, or None)
 * (``document._block_lines`` for a block that is not kept whole). */
static PyObject *block_lines(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 14) {
        PyErr_SetString(PyExc_TypeError, "block_lines takes 14 arguments");
        return NULL;
    }
    PyObject *text = args[0], *starts = args[9], *styles = args[10], *irregular = args[11],
             *spaced = args[12], *line_type = args[13];
    if (starts != Py_None && !PyList_Check(starts)) {
        PyErr_SetString(PyExc_TypeError, "layout_starts must be a list or None");
        return NULL;
    }
    if (!PyUnicode_Check(text)) {
        PyErr_SetString(PyExc_TypeError, "the block's text must be str");
        return NULL;
    }
    Py_ssize_t block_start = PyLong_AsSsize_t(args[5]);
    if (block_start == -1 && PyErr_Occurred())
        return NULL;
    Py_ssize_t block_end = PyLong_AsSsize_t(args[6]);
    if (block_end == -1 && PyErr_Occurred())
        return NULL;
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    int traced = block_start >= 0 && block_end - block_start == n;
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    PyObject *lines = PyList_New(0);
    if (lines == NULL)
        return NULL;
    int after_blank = 0;
    Py_ssize_t line_start = 0;
    for (Py_ssize_t i = 0; i <= n; i++) {
        /* CR LF, CR and LF each end a line (``_split_lines``). */
        Py_UCS4 c = i < n ? PyUnicode_READ(kind, data, i) : 0;
        if (i < n && c != '\n' && c != '\r')
            continue;
        Py_ssize_t line_end = i;
        if (c == '\r' && i + 1 < n && PyUnicode_READ(kind, data, i + 1) == '\n')
            i++;
        Py_ssize_t start = line_start;
        line_start = i + 1;
        PyObject *line_text = NULL, *raw_line = NULL, *style = NULL, *line = NULL;
        Py_ssize_t lead, trimmed_end;
        int soft_hyphen = 0, runs;
        if (plain_ascii(kind, data, start, line_end, &runs)) {
            Py_ssize_t a = start, z = line_end;
            while (a < z && PyUnicode_READ(kind, data, a) == ' ')
                a++;
            while (z > a && PyUnicode_READ(kind, data, z - 1) == ' ')
                z--;
            if (a == z) {
                after_blank = PyList_GET_SIZE(lines) > 0;
                continue;
            }
            lead = a - start;
            trimmed_end = z - start;
            line_text = runs ? collapsed(kind, data, a, z) : PyUnicode_Substring(text, a, z);
            if (line_text == NULL)
                goto error;
        }
        else {
            raw_line = PyUnicode_Substring(text, start, line_end);
            if (raw_line == NULL)
                goto error;
            PyObject *found = PyObject_CallFunctionObjArgs(irregular, raw_line, args[8], NULL);
            if (found == NULL)
                goto error;
            if (found == Py_None) {
                Py_DECREF(found);
                Py_DECREF(raw_line);
                after_blank = PyList_GET_SIZE(lines) > 0;
                continue;
            }
            int is_soft = -1;
            if (PyTuple_Check(found) && PyTuple_GET_SIZE(found) == 4) {
                line_text = PyTuple_GET_ITEM(found, 0);
                Py_INCREF(line_text);
                lead = PyLong_AsSsize_t(PyTuple_GET_ITEM(found, 1));
                trimmed_end = PyLong_AsSsize_t(PyTuple_GET_ITEM(found, 2));
                is_soft = PyObject_IsTrue(PyTuple_GET_ITEM(found, 3));
            }
            else
                PyErr_SetString(PyExc_TypeError, "irregular_line returns None or a 4-tuple");
            Py_DECREF(found);
            if (is_soft < 0 || PyErr_Occurred())
                goto error;
            soft_hyphen = is_soft;
            if (soft_hyphen) { /* kept as a break marker for de-hyphenation */
                PyObject *marked = PyUnicode_Concat(line_text, soft_hyphen_str);
                Py_SETREF(line_text, marked);
                if (line_text == NULL)
                    goto error;
            }
        }
        Py_ssize_t raw_start = traced ? block_start + start + lead : block_start;
        Py_ssize_t raw_end = traced ? block_start + start + trimmed_end : block_end;
        PyObject *start_obj = PyLong_FromSsize_t(raw_start);
        PyObject *end_obj = PyLong_FromSsize_t(raw_end);
        if (start_obj == NULL || end_obj == NULL) {
            Py_XDECREF(start_obj);
            Py_XDECREF(end_obj);
            goto error;
        }
        if (starts != Py_None && traced) {
            style = style_of(starts, styles, raw_start, raw_end);
            if (style == NULL)
                goto error_offsets;
            if (style != Py_None) {
                PyObject *spaces = PyObject_GetAttr(style, spaces_str);
                int has_spaces = spaces ? PyObject_IsTrue(spaces) : -1;
                Py_XDECREF(spaces);
                if (has_spaces < 0)
                    goto error_offsets;
                if (has_spaces) {
                    /* Words the PDF set apart by position only (``_spaced_line``). */
                    if (raw_line == NULL && (raw_line = PyUnicode_Substring(text, start, line_end)) == NULL)
                        goto error_offsets;
                    PyObject *lead_obj = PyLong_FromSsize_t(lead);
                    PyObject *respaced = lead_obj == NULL ? NULL : PyObject_CallFunctionObjArgs(
                        spaced, raw_line, lead_obj, style, start_obj, args[8],
                        soft_hyphen ? Py_True : Py_False, NULL);
                    Py_XDECREF(lead_obj);
                    if (respaced == NULL)
                        goto error_offsets;
                    if (respaced == Py_None)
                        Py_DECREF(respaced);
                    else
                        Py_SETREF(line_text, respaced);
                }
            }
        }
        else {
            style = Py_None;
            Py_INCREF(style);
        }
        {
            PyObject *fields[12] = {line_text, args[1], args[2], args[3], args[4], start_obj,
                                    end_obj, after_blank ? Py_True : Py_False, args[7],
                                    NULL, style};
            PyObject *lead_obj = PyLong_FromSsize_t(lead);
            if (lead_obj == NULL)
                goto error_offsets;
            fields[9] = lead_obj;
            fields[10] = style;
            line = PyObject_Vectorcall(line_type, fields, 10, style_kwnames);
            Py_DECREF(lead_obj);
        }
        Py_DECREF(start_obj);
        Py_DECREF(end_obj);
        Py_CLEAR(style);
        Py_CLEAR(line_text);
        Py_CLEAR(raw_line);
        if (line == NULL || PyList_Append(lines, line) < 0) {
            Py_XDECREF(line);
            goto error;
        }
        Py_DECREF(line);
        after_blank = 0;
        continue;
    error_offsets:
        Py_DECREF(start_obj);
        Py_DECREF(end_obj);
    error:
        Py_XDECREF(style);
        Py_XDECREF(line_text);
        Py_XDECREF(raw_line);
        Py_DECREF(lines);
        return NULL;
    }
    return lines;
}

/* ``word_counts`` (``hyphenation.hyphen_lexicon``): how often each word of a document's
 * case-folded text occurs, a word being a match of ``\w+(?:[-\u2010]\w+)*`` (Python's
 * ``re``: ``\w`` is ``Py_UNICODE_ISALNUM`` or "_", what ``sre`` tests), and how often
 * each asked pair of words follows one another (the next match, whatever lies between).
 * The words are counted by their spans in the text (a hash table of spans): a string is
 * made for each distinct word only, not for each of a long document's words. */

typedef struct {
    Py_ssize_t start, length, count;
    Py_hash_t hash; /* -1: an empty slot */
} WordSlot;

typedef struct {
    int kind;
    const void *data;
    WordSlot *slots;
    size_t mask, used;
} WordTable;

static char latin1_word_chars[256]; /* word_char of U+0000..U+00FF, filled at import */

static int word_char(Py_UCS4 c) {
    return c < 256 ? latin1_word_chars[c] : Py_UNICODE_ISALNUM(c);
}

static Py_hash_t span_hash(int kind, const void *data, Py_ssize_t start, Py_ssize_t length) {
    size_t h = 1469598103934665603u;
    for (Py_ssize_t i = 0; i < length; i++) {
        h ^= (size_t)PyUnicode_READ(kind, data, start + i);
        h *= 1099511628211u;
    }
    return (Py_hash_t)(h & ((size_t)PY_SSIZE_T_MAX >> 1)); /* never -1 */
}

/* Equal spans: the same code points (``other`` may be another string's, of its kind). */
static int spans_equal(int kind, const void *data, Py_ssize_t start, int other_kind,
                       const void *other, Py_ssize_t other_start, Py_ssize_t length) {
    if (kind == other_kind)
        return memcmp((const char *)data + start * kind,
                      (const char *)other + other_start * other_kind,
                      (size_t)(length * kind)) == 0;
    for (Py_ssize_t i = 0; i < length; i++)
        if (PyUnicode_READ(kind, data, start + i)
            != PyUnicode_READ(other_kind, other, other_start + i))
            return 0;
    return 1;
}

/* The slot of a span of ``kind``/``data`` (the table's own text or another string):
 * its word's, or the empty slot where it would go. */
static WordSlot *word_slot(const WordTable *t, int kind, const void *data, Py_ssize_t start,
                           Py_ssize_t length, Py_hash_t hash) {
    size_t i = (size_t)hash & t->mask;
    for (;;) {
        WordSlot *slot = &t->slots[i];
        if (slot->hash == -1
            || (slot->hash == hash && slot->length == length
                && spans_equal(t->kind, t->data, slot->start, kind, data, start, length)))
            return slot;
        i = (i + 1) & t->mask;
    }
}

static int word_table_grow(WordTable *t) {
    size_t capacity = (t->mask + 1) * 2;
    WordSlot *old = t->slots;
    size_t old_capacity = t->mask + 1;
    t->slots = PyMem_Malloc(capacity * sizeof(WordSlot));
    if (t->slots == NULL) {
        t->slots = old;
        PyErr_NoMemory();
        return -1;
    }
    for (size_t i = 0; i < capacity; i++)
        t->slots[i].hash = -1;
    t->mask = capacity - 1;
    for (size_t i = 0; i < old_capacity; i++)
        if (old[i].hash != -1)
            *word_slot(t, t->kind, t->data, old[i].start, old[i].length, old[i].hash) = old[i];
    PyMem_Free(old);
    return 0;
}

static PyObject *word_counts(PyObject *self, PyObject *args) {
    PyObject *text, *asked, *counts;
    if (!PyArg_ParseTuple(args, "UOO", &text, &asked, &counts))
        return NULL;
    if (!PyDict_Check(counts)) { /* a Counter */
        PyErr_SetString(PyExc_TypeError, "counts: a dict");
        return NULL;
    }
    WordTable t = {PyUnicode_KIND(text), PyUnicode_DATA(text), NULL, 63, 0};
    Py_ssize_t n = PyUnicode_GET_LENGTH(text), words = 0;
    Py_ssize_t *ids = PyMem_Malloc(sizeof(Py_ssize_t) * (size_t)(n / 2 + 1));
    t.slots = PyMem_Malloc(sizeof(WordSlot) * (t.mask + 1));
    PyObject *result = NULL;
    if (ids == NULL || t.slots == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (size_t i = 0; i <= t.mask; i++)
        t.slots[i].hash = -1;
    /* The matches of ``\w+(?:[-\u2010]\w+)*``, left to right (``findall``); a word's
     * slots are numbered by where they sit in the table, its id. */
    for (Py_ssize_t i = 0; i < n;) {
        if (!word_char(PyUnicode_READ(t.kind, t.data, i))) {
            i++;
            continue;
        }
        Py_ssize_t start = i;
        while (i < n && word_char(PyUnicode_READ(t.kind, t.data, i)))
            i++;
        while (i + 1 < n) {
            Py_UCS4 c = PyUnicode_READ(t.kind, t.data, i);
            if ((c != '-' && c != 0x2010) || !word_char(PyUnicode_READ(t.kind, t.data, i + 1)))
                break;
            i++;
            while (i < n && word_char(PyUnicode_READ(t.kind, t.data, i)))
                i++;
        }
        Py_hash_t hash = span_hash(t.kind, t.data, start, i - start);
        WordSlot *slot = word_slot(&t, t.kind, t.data, start, i - start, hash);
        if (slot->hash == -1) {
            if ((t.used + 1) * 2 > t.mask + 1) {
                if (word_table_grow(&t) < 0)
                    goto done;
                slot = word_slot(&t, t.kind, t.data, start, i - start, hash);
            }
            slot->hash = hash;
            slot->start = start;
            slot->length = i - start;
            slot->count = 0;
            t.used++;
        }
        slot->count++;
        ids[words++] = slot->start; /* a word's first place: the same for each of it */
    }
    for (size_t i = 0; i <= t.mask; i++) {
        WordSlot *slot = &t.slots[i];
        if (slot->hash == -1)
            continue;
        PyObject *word = PyUnicode_Substring(text, slot->start, slot->start + slot->length);
        PyObject *count = word ? PyLong_FromSsize_t(slot->count) : NULL;
        int failed = count == NULL || PyDict_SetItem(counts, word, count) < 0;
        Py_XDECREF(word);
        Py_XDECREF(count);
        if (failed)
            goto done;
    }
    /* The asked pairs whose two words each occur more than once: how often the second
     * follows the first. */
    result = PyDict_New();
    PyObject *pairs = result ? PySequence_List(asked) : NULL;
    if (pairs == NULL) {
        Py_CLEAR(result);
        goto done;
    }
    Py_ssize_t n_pairs = PyList_GET_SIZE(pairs);
    for (Py_ssize_t p = 0; p < n_pairs; p++) {
        PyObject *pair = PyList_GET_ITEM(pairs, p);
        if (!PyTuple_Check(pair) || PyTuple_GET_SIZE(pair) != 2
            || !PyUnicode_Check(PyTuple_GET_ITEM(pair, 0))
            || !PyUnicode_Check(PyTuple_GET_ITEM(pair, 1))) {
            PyErr_SetString(PyExc_TypeError, "asked: pairs of str");
            goto fail_pairs;
        }
        Py_ssize_t at[2];
        for (int side = 0; side < 2; side++) {
            PyObject *word = PyTuple_GET_ITEM(pair, side);
            int kind = PyUnicode_KIND(word);
            const void *data = PyUnicode_DATA(word);
            Py_ssize_t length = PyUnicode_GET_LENGTH(word);
            WordSlot *slot = word_slot(&t, kind, data, 0, length,
                                       span_hash(kind, data, 0, length));
            at[side] = slot->hash != -1 && slot->count > 1 ? slot->start : -1;
        }
        if (at[0] < 0 || at[1] < 0)
            continue;
        Py_ssize_t together = 0;
        for (Py_ssize_t w = 0; w + 1 < words; w++)
            together += ids[w] == at[0] && ids[w + 1] == at[1];
        PyObject *count = PyLong_FromSsize_t(together);
        int failed = count == NULL || PyDict_SetItem(result, pair, count) < 0;
        Py_XDECREF(count);
        if (failed)
            goto fail_pairs;
    }
    Py_DECREF(pairs);
    goto done;
fail_pairs:
    Py_DECREF(pairs);
    Py_CLEAR(result);
done:
    PyMem_Free(ids);
    PyMem_Free(t.slots);
    return result;
}

static PyMethodDef methods[] = {
    {"block_lines", (PyCFunction)(void (*)(void))block_lines, METH_FASTCALL,
     "block_lines(text, kind, index, page, level, raw_start, raw_end, detached, options, "
     "layout_starts, layout_styles, irregular_line, spaced_line, line_type) -> [line] "
     "(document's)"},
    {"wraps_by_position", wraps_by_position, METH_VARARGS,
     "wraps_by_position(boxes, texts, is_cjk, rules) -> [bool | None] (linejoin's)"},
    {"mark_wraps_by_position", mark_wraps_by_position, METH_VARARGS,
     "mark_wraps_by_position(lines, is_cjk, rules): sets each flow line's wrapped"},
    {"word_counts", word_counts, METH_VARARGS,
     "word_counts(text, asked, counts) -> {pair: how often its second word follows its "
     "first}; counts[word] set for each word of text (hyphenation's)"},
    {"ends_near", py_ends_near, METH_VARARGS,
     "ends_near(sorted_ends, edge, slack) -> how many ends lie within slack of edge"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_line_passes", "Cleaning's per-line passes in C.", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__line_passes(void) {
    for (Py_UCS4 c = 0; c < 256; c++)
        latin1_word_chars[c] = (char)(c == '_' || Py_UNICODE_ISALNUM(c));
    soft_hyphen_str = PyUnicode_FromOrdinal(0xad);
    spaces_str = PyUnicode_InternFromString("spaces");
    raw_end_str = PyUnicode_InternFromString("raw_end");
    rotated_str = PyUnicode_InternFromString("rotated");
    detached_str = PyUnicode_InternFromString("detached");
    style_str = PyUnicode_InternFromString("style");
    text_str = PyUnicode_InternFromString("text");
    wrapped_str = PyUnicode_InternFromString("wrapped");
    const char *box_fields[5] = {"page", "x0", "top", "x1", "bottom"};
    for (int f = 0; f < 5; f++)
        if ((box_field_str[f] = PyUnicode_InternFromString(box_fields[f])) == NULL)
            return NULL;
    if (!rotated_str || !detached_str || !style_str || !text_str || !wrapped_str)
        return NULL;
    style_kwnames = Py_BuildValue("(s)", "style");
    if (soft_hyphen_str == NULL || spaces_str == NULL || raw_end_str == NULL
        || style_kwnames == NULL)
        return NULL;
    return PyModule_Create(&module);
}
