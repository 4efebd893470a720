/* The per-line work of the PDF layout pass (layout.py) in C: one call per page.
 *
 * layout.py's pure-Python path (``_page_layout`` with Tika's lines, ``_align``,
 * ``_styles`` and ``_StyleReader``) is the definition; this is the same algorithm,
 * step for step, so that its output is byte-identical (tests/transforms/extract/
 * test_layout.py runs both on the same PDFs). Where the two could differ in a last
 * bit they share code: rounding goes through CPython's own float formatting (as
 * ``round(x, 1)`` does), a text object's scale through ``math.hypot``, and keys of
 * text that is not ASCII through layout.squeeze (Unicode normalisation).
 *
 * PDFium is called through the function addresses of pypdfium2's own library
 * (``configure``), so nothing here links against PDFium or needs its headers.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

typedef void *Handle;
typedef struct { float a, b, c, d, e, f; } Matrix; /* FS_MATRIX */

static int (*CountChars)(Handle);
static int (*GetText)(Handle, int, int, unsigned short *);
static int (*CharIndexFromTextIndex)(Handle, int);
static int (*GetCharBox)(Handle, int, double *, double *, double *, double *);
static Handle (*GetTextObject)(Handle, int);
static float (*GetCharAngle)(Handle, int);
static int (*GetFontSize)(Handle, float *);
static int (*GetMatrix)(Handle, Matrix *);
static Handle (*GetFont)(Handle);
typedef struct { float left, top, right, bottom; } RectF; /* FS_RECTF */
static int (*GetLooseCharBox)(Handle, int, RectF *);

static PyObject *squeeze_fn, *font_fn, *cells_fn, *hypot_fn;
static PyTypeObject *line_style_type;
static PyObject *empty_str, *empty_tuple, *zero_float;

/* The constants of layout.py. */
#define MIN_SEARCH_KEY 4
#define EDGE_LINES 6
#define BODY_SAMPLE 8
#define MIN_SHARED_EDGE 3
#define WIDE_LINE 1.0
#define CELL_GAP 1.0
#define SET_LINE 0.5
#define MIN_NEIGHBOUR_CELLS 3
#define BOLD_WEIGHT 600
#define ROTATED_ANGLE 0.3
#define TWO_PI 6.283185307179586

/* --- small helpers -------------------------------------------------------------- */

static double round1(double x)
{   /* round(x, 1): CPython rounds through the shortest correctly rounded digits. */
    char *text = PyOS_double_to_string(x, 'f', 1, 0, NULL);
    if (text == NULL)
        return x;
    double value = PyOS_string_to_double(text, NULL, NULL);
    PyMem_Free(text);
    return value;
}

static double py_min(double a, double b) { return b < a ? b : a; }  /* min(a, b) */
static double py_max(double a, double b) { return b > a ? b : a; }  /* max(a, b) */

static double py_fmod(double x, double y)
{   /* x % y for floats, as Python computes it. */
    double mod = fmod(x, y);
    if (mod) {
        if ((y < 0) != (mod < 0))
            mod += y;
    }
    else
        mod = copysign(0.0, y);
    return mod;
}

static int is_alnum(Py_UCS4 c) { return Py_UNICODE_ISALNUM(c); }
static int is_space(Py_UCS4 c) { return Py_UNICODE_ISSPACE(c); }
static int ascii_alnum(Py_UCS4 c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* squeeze(text[start:end]) of a str given as kind/data. */
static PyObject *squeeze_range(PyObject *str, int kind, const void *data,
                               Py_ssize_t start, Py_ssize_t end)
{
    Py_ssize_t i, n = 0;
    int ascii = 1;
    for (i = start; i < end; i++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        if (c >= 128) { ascii = 0; break; }
        n += ascii_alnum(c);
    }
    if (!ascii) {
        PyObject *piece = PyUnicode_Substring(str, start, end);
        if (piece == NULL)
            return NULL;
        PyObject *key = PyObject_CallOneArg(squeeze_fn, piece);
        Py_DECREF(piece);
        return key;
    }
    PyObject *key = PyUnicode_New(n, 127);
    if (key == NULL)
        return NULL;
    Py_UCS1 *out = PyUnicode_1BYTE_DATA(key);
    for (i = start; i < end; i++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        if (ascii_alnum(c))
            *out++ = (Py_UCS1)((c >= 'A' && c <= 'Z') ? c + 32 : c);
    }
    return key;
}

/* A growing array of Py_ssize_t. */
typedef struct { Py_ssize_t *v; Py_ssize_t n, cap; } IntVec;

static int vec_push(IntVec *vec, Py_ssize_t x)
{
    if (vec->n == vec->cap) {
        Py_ssize_t cap = vec->cap ? vec->cap * 2 : 64;
        Py_ssize_t *v = PyMem_Realloc(vec->v, cap * sizeof(Py_ssize_t));
        if (v == NULL) { PyErr_NoMemory(); return -1; }
        vec->v = v;
        vec->cap = cap;
    }
    vec->v[vec->n++] = x;
    return 0;
}

/* --- a page ----------------------------------------------------------------------- */

typedef struct { uintptr_t key; PyObject *name; long weight; double size; int used; } Face;
typedef struct { Face *slots; Py_ssize_t cap, n; } FaceMap;

typedef struct {
    Handle textpage;
    Py_UCS2 *u;          /* the page's text, one unit per str character */
    Py_ssize_t n;
    PyObject *text;      /* the same, as a str (for slices handed to Python) */
    int same_indexes;
    double edges[4];     /* the one buffer GetCharBox writes to, as layout.py's */
    double left, bottom, right, top;
    int rotation;
    FaceMap objects, fonts;
} Page;

static void facemap_clear(FaceMap *map)
{
    for (Py_ssize_t i = 0; i < map->cap; i++)
        if (map->slots[i].used)
            Py_XDECREF(map->slots[i].name);
    PyMem_Free(map->slots);
    map->slots = NULL;
    map->cap = map->n = 0;
}

static Face *facemap_find(FaceMap *map, uintptr_t key, int *fresh)
{   /* The slot of ``key``, made (``*fresh`` = 1) when absent; NULL: out of memory. */
    if (map->cap == 0 || (map->n + 1) * 2 > map->cap) {
        Py_ssize_t cap = map->cap ? map->cap * 2 : 64;
        Face *slots = PyMem_Calloc(cap, sizeof(Face));
        if (slots == NULL) { PyErr_NoMemory(); return NULL; }
        for (Py_ssize_t i = 0; i < map->cap; i++) {
            if (!map->slots[i].used)
                continue;
            Py_ssize_t j = (Py_ssize_t)((map->slots[i].key >> 4) * 2654435761u % (uint64_t)cap);
            while (slots[j].used)
                j = (j + 1) % cap;
            slots[j] = map->slots[i];
        }
        PyMem_Free(map->slots);
        map->slots = slots;
        map->cap = cap;
    }
    Py_ssize_t j = (Py_ssize_t)((key >> 4) * 2654435761u % (uint64_t)map->cap);
    while (map->slots[j].used) {
        if (map->slots[j].key == key) {
            *fresh = 0;
            return &map->slots[j];
        }
        j = (j + 1) % map->cap;
    }
    map->slots[j].used = 1;
    map->slots[j].key = key;
    map->slots[j].name = NULL;
    map->n++;
    *fresh = 1;
    return &map->slots[j];
}

static int char_index(Page *p, Py_ssize_t offset)
{
    if (p->same_indexes)
        return (int)offset;
    return CharIndexFromTextIndex(p->textpage, (int)offset);
}

typedef struct { double x0, top, x1, bottom; } Box;

static void frame_box(Page *p, double x0, double y0, double x1, double y1, Box *out)
{
    double lo = p->left, b = p->bottom, r = p->right, t = p->top;
    switch (p->rotation) {
    case 0: out->x0 = x0 - lo; out->top = t - y1; out->x1 = x1 - lo; out->bottom = t - y0; break;
    case 1: out->x0 = y0 - b; out->top = x0 - lo; out->x1 = y1 - b; out->bottom = x1 - lo; break;
    case 2: out->x0 = r - x1; out->top = y0 - b; out->x1 = r - x0; out->bottom = y1 - b; break;
    default: out->x0 = t - y1; out->top = r - x1; out->x1 = t - y0; out->bottom = r - x0; break;
    }
}

static int page_box(Page *p, Py_ssize_t first, Py_ssize_t last, Box *out)
{   /* _StyleReader.box: 0 when PDFium has no character there. */
    int at_first = char_index(p, first), at_last = char_index(p, last);
    if ((at_first < at_last ? at_first : at_last) < 0)
        return 0;
    double *e = p->edges;
    GetCharBox(p->textpage, at_first, &e[0], &e[1], &e[2], &e[3]);
    double x0 = e[0], x1 = e[1], y0 = e[2], y1 = e[3];
    GetCharBox(p->textpage, at_last, &e[0], &e[1], &e[2], &e[3]);
    double left = e[0], right = e[1], bottom = e[2], top = e[3];
    frame_box(p, py_min(x0, left), py_min(y0, bottom), py_max(x1, right), py_max(y1, top), out);
    return 1;
}

static int page_span(Page *p, Py_ssize_t first, Py_ssize_t last, double *a, double *b)
{   /* _StyleReader.span or _span_turned: left and right edge of a word. */
    if (p->rotation != 0) {
        Box box;
        if (!page_box(p, first, last, &box))
            return 0;
        *a = box.x0;
        *b = box.x1;
        return 1;
    }
    int at_first, at_last;
    if (p->same_indexes) {
        at_first = (int)first;
        at_last = (int)last;
    }
    else {
        at_first = char_index(p, first);
        at_last = char_index(p, last);
        if ((at_first < at_last ? at_first : at_last) < 0)
            return 0;
    }
    double *e = p->edges;
    GetCharBox(p->textpage, at_first, &e[0], &e[1], &e[2], &e[3]);
    double left = e[0];
    GetCharBox(p->textpage, at_last, &e[0], &e[1], &e[2], &e[3]);
    *a = left - p->left;
    *b = e[1] - p->left;
    return 1;
}

/* _StyleReader.face: the text object's (font, weight, size) of a character; 0 when none,
 * -1 on a Python error. */
static int page_face(Page *p, Py_ssize_t offset, PyObject **name, long *weight, double *size)
{
    int index = char_index(p, offset);
    if (index < 0)
        return 0;
    Handle obj = GetTextObject(p->textpage, index);
    if (obj == NULL)
        return 0;
    int fresh;
    Face *face = facemap_find(&p->objects, (uintptr_t)obj, &fresh);
    if (face == NULL)
        return -1;
    if (fresh) {
        float font_size = 0.0f;
        double value = GetFontSize(obj, &font_size) ? (double)font_size : 0.0;
        Matrix matrix;
        double scale = 1.0;
        if (GetMatrix(obj, &matrix)) {
            /* Python's math.hypot (the Python pass's), asked again only when the matrix's
               c and d change: a page's text objects mostly share one scale. */
            static double last_c, last_d, last_scale;
            static int have_last;
            double c = (double)matrix.c, d = (double)matrix.d;
            if (have_last && c == last_c && d == last_d
                    && signbit(c) == signbit(last_c) && signbit(d) == signbit(last_d)) {
                scale = last_scale;
            } else {
                PyObject *result = PyObject_CallFunction(hypot_fn, "dd", c, d);
                if (result == NULL)
                    goto failed;
                scale = PyFloat_AsDouble(result);
                Py_DECREF(result);
                last_c = c, last_d = d, last_scale = scale, have_last = 1;
            }
        }
        Handle font = GetFont(obj);
        int fresh_font;
        Face *named = facemap_find(&p->fonts, (uintptr_t)font, &fresh_font);
        if (named == NULL)
            goto failed;
        if (fresh_font) {
            PyObject *result = PyObject_CallFunction(font_fn, "n", (Py_ssize_t)(uintptr_t)font);
            PyObject *font_name;
            if (result == NULL || !PyTuple_Check(result) || PyTuple_GET_SIZE(result) != 2) {
                Py_XDECREF(result);
                if (!PyErr_Occurred())
                    PyErr_SetString(PyExc_TypeError, "font_face must return (name, weight)");
                named->used = 0;  /* not filled: keep the map consistent */
                p->fonts.n--;
                goto failed;
            }
            font_name = PyTuple_GET_ITEM(result, 0);
            named->weight = PyLong_AsLong(PyTuple_GET_ITEM(result, 1));
            Py_INCREF(font_name);
            named->name = font_name;
            Py_DECREF(result);
        }
        Py_INCREF(named->name);
        face->name = named->name;
        face->weight = named->weight;
        face->size = value * scale;
        goto done;
    failed:
        face->used = 0;
        p->objects.n--;
        return -1;
    }
done:
    *name = face->name;
    *weight = face->weight;
    *size = face->size;
    return 1;
}

/* What layout.py's PdfLine holds for a line (the text is the page's [first, last]). */
typedef struct {
    int present;
    Box box;
    double size;
    int bold, rotated;
    PyObject *font;     /* borrowed from a face map, or empty_str */
    PyObject *cells;    /* new reference or NULL (no cells) */
    Py_ssize_t first, last;
} Line;

static int styled(Page *p, Py_ssize_t first, Py_ssize_t last, const Box *box, Line *line)
{
    const Py_UCS2 *text = p->u;
    Py_ssize_t middle = (first + last) / 2;
    while (middle < last && !is_alnum(text[middle]))
        middle++;
    Py_ssize_t lead = first;
    while (lead < middle && !is_alnum(text[lead]))
        lead++;
    Py_ssize_t tail = last;
    while (tail > middle && !is_alnum(text[tail]))
        tail--;
    line->box = *box;
    line->size = 0.0;
    line->bold = line->rotated = 0;
    line->font = empty_str;
    PyObject *font;
    long weight;
    double size;
    int found = page_face(p, middle, &font, &weight, &size);
    if (found < 0)
        return -1;
    if (found == 0)
        return 0;
    Py_ssize_t others[2];
    int count = 0;
    if (lead != middle)
        others[count++] = lead;
    if (tail != middle && tail != lead)
        others[count++] = tail;
    for (int k = 0; k < count; k++) {
        PyObject *other_font;
        long other_weight;
        double other_size;
        int got = page_face(p, others[k], &other_font, &other_weight, &other_size);
        if (got < 0)
            return -1;
        if (got == 0)
            continue;
        if (other_weight < weight)
            weight = other_weight;
        if (other_font != font) {  /* other_face[0] != font */
            int same = PyUnicode_Compare(other_font, font);
            if (same == -1 && PyErr_Occurred())
                return -1;
            if (same != 0)
                font = empty_str;
        }
        if (others[k] == lead)
            size = py_max(size, other_size);
    }
    int rotated = 0;
    if (box->x1 - box->x0 < 4 * (box->bottom - box->top) || last - first < 3) {
        double angle = (double)GetCharAngle(p->textpage, char_index(p, middle));
        if (angle >= 0) {
            angle = py_fmod(angle + p->rotation * TWO_PI / 4, TWO_PI);
            rotated = py_min(angle, TWO_PI - angle) > ROTATED_ANGLE;
        }
    }
    line->size = round1(size);
    line->bold = weight >= BOLD_WEIGHT;
    line->rotated = rotated;
    line->font = font;
    return 0;
}

static int value_token(const Py_UCS2 *t, Py_ssize_t start, Py_ssize_t end)
{   /* layout._VALUE_TOKEN.fullmatch(text, start, end) */
    Py_ssize_t n = end - start, i;
    if (n <= 0)
        return 0;
    int digit = 0, nonspace = 1;
    for (i = start; i < end; i++) {
        if (is_space(t[i])) { nonspace = 0; break; }
        if (Py_UNICODE_ISDECIMAL(t[i]))
            digit = 1;
    }
    if (nonspace && digit)
        return 1;
    int dashes = 1;
    for (i = start; i < end; i++)
        if (!(t[i] == '-' || t[i] == 0x2013 || t[i] == 0x2014)) { dashes = 0; break; }
    if (dashes)
        return 1;
#define LETTER(c) (((c) >= 'a' && (c) <= 'z') || ((c) >= 'A' && (c) <= 'Z'))
#define UNIT(c) (((c) >= 'A' && (c) <= 'Z') || (c) == 0xb5 || (c) == 0xb0 || (c) == '%' \
                 || (c) == '/' || (c) == 0x3a9)
    if (n == 1 && UNIT(t[start]))
        return 1;
    if (n == 2 && ((LETTER(t[start]) && UNIT(t[start + 1]))
                   || (UNIT(t[start]) && LETTER(t[start + 1]))))
        return 1;
    if (n == 3 && LETTER(t[start]) && UNIT(t[start + 1]) && LETTER(t[start + 2]))
        return 1;
#undef LETTER
#undef UNIT
    if (n == 2) {
        static const char *units[] = {"ns", "ms", "us", "mm", "cm", "kg", "mg"};
        for (i = 0; i < 7; i++)
            if (t[start] == (Py_UCS2)units[i][0] && t[start + 1] == (Py_UCS2)units[i][1])
                return 1;
    }
    return 0;
}

static Py_ssize_t rfind_space(const Py_UCS2 *t, Py_ssize_t start, Py_ssize_t end)
{   /* text.rfind(" ", start, end) */
    for (Py_ssize_t i = end - 1; i >= start; i--)
        if (t[i] == ' ')
            return i;
    return -1;
}

/* _StyleReader.cells: a tuple of (first, last, x0, x1), or empty_tuple (a new reference),
 * NULL on a Python error. */
static PyObject *cells(Page *p, Py_ssize_t first, Py_ssize_t last, const Box *box, int force)
{
    double height = box->bottom - box->top;
    const Py_UCS2 *text = p->u;
    if (height <= 0 || last - first < 2)
        goto none;
    double count = (double)(last - first + 1);
    if (!force && box->x1 - box->x0 < WIDE_LINE * height * count) {
        if (box->x1 - box->x0 < SET_LINE * height * count)
            goto none;
        Py_ssize_t gap = rfind_space(text, first, last), end = last + 1;
        if (gap > first && end - (gap + 1) == 1 && (text[gap + 1] == ')' || text[gap + 1] == '%')) {
            end = gap;
            gap = rfind_space(text, first, gap);
        }
        if (gap <= first || !value_token(text, gap + 1, end))
            goto none;
        Py_ssize_t lead = gap, after = gap;
        while (lead > first && is_space(text[lead]))
            lead--;
        while (after < last && is_space(text[after]))
            after++;
        double b0, b1, a0, a1;
        int before_ok = page_span(p, lead, lead, &b0, &b1);
        int after_ok = page_span(p, after, after, &a0, &a1);
        if (!before_ok || !after_ok || a0 - b1 < CELL_GAP * height)
            goto none;
    }
    /* The words: runs of non-space characters in [first, last]. */
    Py_ssize_t nwords = 0, i = first;
    IntVec words = {0};
    while (i <= last) {
        if (is_space(text[i])) { i++; continue; }
        Py_ssize_t start = i;
        while (i <= last && !is_space(text[i]))
            i++;
        if (vec_push(&words, start) < 0 || vec_push(&words, i - 1) < 0) {
            PyMem_Free(words.v);
            return NULL;
        }
        nwords++;
    }
    if (nwords < 2) {
        PyMem_Free(words.v);
        goto none;
    }
    double *runs = PyMem_Malloc(nwords * 4 * sizeof(double));
    if (runs == NULL) {
        PyMem_Free(words.v);
        return PyErr_NoMemory();
    }
    Py_ssize_t nruns = 0;
    double previous = -INFINITY;
    for (Py_ssize_t w = 0; w < nwords; w++) {
        Py_ssize_t start = words.v[2 * w], end = words.v[2 * w + 1];
        double w0, w1;
        if (!page_span(p, start, end, &w0, &w1) || w0 < previous - 1) {
            nruns = 0;  /* not left to right: no columns to read */
            break;
        }
        if (nruns && w0 - previous < CELL_GAP * height) {
            runs[4 * (nruns - 1) + 1] = (double)end;
            runs[4 * (nruns - 1) + 3] = w1;
        }
        else {
            runs[4 * nruns] = (double)start;
            runs[4 * nruns + 1] = (double)end;
            runs[4 * nruns + 2] = w0;
            runs[4 * nruns + 3] = w1;
            nruns++;
        }
        previous = w1;
    }
    PyMem_Free(words.v);
    if (nruns < 2) {
        PyMem_Free(runs);
        goto none;
    }
    PyObject *result = PyTuple_New(nruns);
    if (result == NULL) {
        PyMem_Free(runs);
        return NULL;
    }
    for (Py_ssize_t r = 0; r < nruns; r++) {
        PyObject *cell = Py_BuildValue("(nndd)", (Py_ssize_t)runs[4 * r] - first,
                                       (Py_ssize_t)runs[4 * r + 1] - first,
                                       round1(runs[4 * r + 2]), round1(runs[4 * r + 3]));
        if (cell == NULL) {
            Py_DECREF(result);
            PyMem_Free(runs);
            return NULL;
        }
        PyTuple_SET_ITEM(result, r, cell);
    }
    PyMem_Free(runs);
    return result;
none:
    Py_INCREF(empty_tuple);
    return empty_tuple;
}

/* --- alignment with Tika's lines --------------------------------------------------- */

typedef struct {
    Py_ssize_t raw_start, raw_end;  /* in the raw text: [raw_start, raw_end) */
    PyObject *key;                  /* squeeze(text) */
    Py_ssize_t found_first, found_last;  /* PDFium's [first, last], or -1 */
} TikaLine;

/* _Words: the page's runs of letters and digits, squeezed and joined. */
typedef struct {
    IntVec begin, stop, starts, lengths;  /* per run */
    Py_UCS4 *joined;
    Py_ssize_t joined_n, joined_cap;
    PyObject *joined_str;
} Words;

static void words_free(Words *w)
{
    PyMem_Free(w->begin.v);
    PyMem_Free(w->stop.v);
    PyMem_Free(w->starts.v);
    PyMem_Free(w->lengths.v);
    PyMem_Free(w->joined);
    Py_XDECREF(w->joined_str);
}

static int words_append(Words *w, Py_UCS4 c)
{
    if (w->joined_n == w->joined_cap) {
        Py_ssize_t cap = w->joined_cap ? w->joined_cap * 2 : 1024;
        Py_UCS4 *joined = PyMem_Realloc(w->joined, cap * sizeof(Py_UCS4));
        if (joined == NULL) { PyErr_NoMemory(); return -1; }
        w->joined = joined;
        w->joined_cap = cap;
    }
    w->joined[w->joined_n++] = c;
    return 0;
}

static int words_build(Page *p, Words *w)
{
    const Py_UCS2 *t = p->u;
    Py_ssize_t i = 0, n = p->n;
    while (i < n) {
        if (!is_alnum(t[i])) { i++; continue; }
        Py_ssize_t start = i;
        int ascii = 1;
        while (i < n && is_alnum(t[i])) {
            if (t[i] >= 128)
                ascii = 0;
            i++;
        }
        Py_ssize_t position = w->joined_n;
        if (ascii) {
            for (Py_ssize_t k = start; k < i; k++) {
                Py_UCS4 c = t[k];
                if (words_append(w, (c >= 'A' && c <= 'Z') ? c + 32 : c) < 0)
                    return -1;
            }
        }
        else {
            PyObject *key = squeeze_range(p->text, PyUnicode_KIND(p->text),
                                          PyUnicode_DATA(p->text), start, i);
            if (key == NULL)
                return -1;
            int kind = PyUnicode_KIND(key);
            const void *data = PyUnicode_DATA(key);
            for (Py_ssize_t k = 0; k < PyUnicode_GET_LENGTH(key); k++)
                if (words_append(w, PyUnicode_READ(kind, data, k)) < 0) {
                    Py_DECREF(key);
                    return -1;
                }
            Py_DECREF(key);
        }
        Py_ssize_t length = w->joined_n - position;
        if (length == 0)
            continue;
        if (vec_push(&w->starts, position) < 0 || vec_push(&w->begin, start) < 0
            || vec_push(&w->stop, i) < 0 || vec_push(&w->lengths, length) < 0)
            return -1;
    }
    w->joined_str = PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, w->joined, w->joined_n);
    return w->joined_str == NULL ? -1 : 0;
}

static Py_ssize_t bisect_right(const IntVec *v, Py_ssize_t x)
{
    Py_ssize_t lo = 0, hi = v->n;
    while (lo < hi) {
        Py_ssize_t mid = (lo + hi) / 2;
        if (x < v->v[mid])
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

static void words_span(Words *w, Py_ssize_t start, Py_ssize_t end, Py_ssize_t *first_char,
                       Py_ssize_t *last_char)
{
    Py_ssize_t first = bisect_right(&w->starts, start) - 1;
    Py_ssize_t last = bisect_right(&w->starts, end - 1) - 1;
    /* Python indexes [-1] as the last run; a squeezed offset is never before the first. */
    if (first < 0) first += w->starts.n;
    if (last < 0) last += w->starts.n;
    Py_ssize_t begin = w->begin.v[first], stop = w->stop.v[first];
    *first_char = (w->lengths.v[first] == stop - begin) ? begin + start - w->starts.v[first] : begin;
    begin = w->begin.v[last];
    stop = w->stop.v[last];
    *last_char = (w->lengths.v[last] == stop - begin) ? begin + end - 1 - w->starts.v[last]
                                                        : stop - 1;
}

/* Where ``key`` is in the squeezed page if there exactly once: -1 none, -2 error. */
static Py_ssize_t words_locate(Words *w, PyObject *key)
{
    Py_ssize_t length = PyUnicode_GET_LENGTH(w->joined_str);
    Py_ssize_t found = PyUnicode_Find(w->joined_str, key, 0, length, 1);
    if (found == -2)
        return -2;
    if (found < 0)
        return -1;
    Py_ssize_t again = PyUnicode_Find(w->joined_str, key, found + 1, length, 1);
    if (again == -2)
        return -2;
    return again >= 0 ? -1 : found;
}

/* Words.find: 1 found, 0 not, -1 error. */
static int words_find(Words *w, PyObject *key, Py_ssize_t *first, Py_ssize_t *last)
{
    Py_ssize_t n = PyUnicode_GET_LENGTH(key);
    if (n < MIN_SEARCH_KEY) {
        int kind = PyUnicode_KIND(key);
        const void *data = PyUnicode_DATA(key);
        Py_ssize_t count = 0, index = -1;
        for (Py_ssize_t r = 0; r < w->starts.n; r++) {
            if (w->lengths.v[r] != n)
                continue;
            const Py_UCS4 *run = w->joined + w->starts.v[r];
            Py_ssize_t k = 0;
            while (k < n && run[k] == PyUnicode_READ(kind, data, k))
                k++;
            if (k == n) {
                if (count++ == 0)
                    index = r;
            }
        }
        if (count != 1)
            return 0;
        *first = w->begin.v[index];
        *last = w->stop.v[index] - 1;
        return 1;
    }
    Py_ssize_t found = words_locate(w, key);
    if (found == -2)
        return -1;
    if (found < 0)
        return 0;
    words_span(w, found, found + n, first, last);
    return 1;
}

typedef struct { Py_ssize_t first, last, t; } Finder;

static int finder_order(const void *a, const void *b)
{
    const Finder *x = a, *y = b;
    if (x->first != y->first) return x->first < y->first ? -1 : 1;
    if (x->last != y->last) return x->last < y->last ? -1 : 1;
    return x->t < y->t ? -1 : (x->t > y->t);
}

static int place_run(Words *w, TikaLine *tika, const Py_ssize_t *run, Py_ssize_t n)
{
    if (n < 2)
        return 0;
    PyObject *keys = PyList_New(n);
    if (keys == NULL)
        return -1;
    for (Py_ssize_t k = 0; k < n; k++) {
        Py_INCREF(tika[run[k]].key);
        PyList_SET_ITEM(keys, k, tika[run[k]].key);
    }
    PyObject *joined = PyUnicode_Join(empty_str, keys);
    Py_DECREF(keys);
    if (joined == NULL)
        return -1;
    Py_ssize_t position = words_locate(w, joined);
    Py_DECREF(joined);
    if (position == -2)
        return -1;
    if (position < 0)
        return 0;
    for (Py_ssize_t k = 0; k < n; k++) {
        TikaLine *line = &tika[run[k]];
        Py_ssize_t length = PyUnicode_GET_LENGTH(line->key);
        words_span(w, position, position + length, &line->found_first, &line->found_last);
        position += length;
    }
    return 0;
}

/* _align: each Tika line's [found_first, found_last] in PDFium's text (or -1). */
static int align(Page *p, const Py_ssize_t *ranges, Py_ssize_t nranges, TikaLine *tika,
                 Py_ssize_t ntika)
{
    int status = -1;
    PyObject *by_key = PyDict_New();
    Py_ssize_t *next = PyMem_Malloc((nranges + 1) * sizeof(Py_ssize_t));
    IntVec heads = {0}, tails = {0}, left = {0};
    char *taken = PyMem_Calloc(nranges + 1, 1);
    Words words = {0};
    Finder *finders = NULL;
    if (by_key == NULL || next == NULL || taken == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    int kind = PyUnicode_KIND(p->text);
    const void *data = PyUnicode_DATA(p->text);
    for (Py_ssize_t i = 0; i < nranges; i++) {
        next[i] = -1;
        PyObject *key = squeeze_range(p->text, kind, data, ranges[2 * i], ranges[2 * i + 1] + 1);
        if (key == NULL)
            goto done;
        if (PyUnicode_GET_LENGTH(key) == 0) {
            Py_DECREF(key);
            continue;
        }
        PyObject *bucket = PyDict_GetItemWithError(by_key, key);
        if (bucket == NULL) {
            if (PyErr_Occurred()) { Py_DECREF(key); goto done; }
            PyObject *number = PyLong_FromSsize_t(heads.n);
            if (number == NULL || PyDict_SetItem(by_key, key, number) < 0) {
                Py_XDECREF(number);
                Py_DECREF(key);
                goto done;
            }
            Py_DECREF(number);
            if (vec_push(&heads, i) < 0 || vec_push(&tails, i) < 0) { Py_DECREF(key); goto done; }
        }
        else {
            Py_ssize_t b = PyLong_AsSsize_t(bucket);
            next[tails.v[b]] = i;
            tails.v[b] = i;
        }
        Py_DECREF(key);
    }
    Py_ssize_t cursor = 0;
    for (Py_ssize_t t = 0; t < ntika; t++) {
        PyObject *key = tika[t].key;
        if (PyUnicode_GET_LENGTH(key) == 0)
            continue;
        PyObject *bucket = PyDict_GetItemWithError(by_key, key);
        Py_ssize_t chosen = -1, first_free = -1;
        if (bucket != NULL) {
            for (Py_ssize_t i = heads.v[PyLong_AsSsize_t(bucket)]; i >= 0; i = next[i]) {
                if (taken[i])
                    continue;
                if (first_free < 0)
                    first_free = i;
                if (i >= cursor) {
                    chosen = i;
                    break;
                }
            }
            if (chosen < 0)
                chosen = first_free;
        }
        else if (PyErr_Occurred())
            goto done;
        if (chosen >= 0) {
            taken[chosen] = 1;
            cursor = chosen + 1;
            tika[t].found_first = ranges[2 * chosen];
            tika[t].found_last = ranges[2 * chosen + 1];
        }
        else if (vec_push(&left, t) < 0)
            goto done;
    }
    if (left.n == 0) {
        status = 0;
        goto done;
    }
    if (words_build(p, &words) < 0)
        goto done;
    /* Characters found are one Tika line's (layout._align). */
    IntVec whole_first = {0}, whole_last = {0};
    for (Py_ssize_t i = 0; i < nranges; i++)
        if (taken[i] && (vec_push(&whole_first, ranges[2 * i]) < 0
                         || vec_push(&whole_last, ranges[2 * i + 1]) < 0)) {
            PyMem_Free(whole_first.v);
            PyMem_Free(whole_last.v);
            goto done;
        }
    finders = PyMem_Malloc((left.n + 1) * sizeof(Finder));
    Py_ssize_t nfinders = 0;
    if (finders == NULL) {
        PyMem_Free(whole_first.v);
        PyMem_Free(whole_last.v);
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t k = 0; k < left.n; k++) {
        Py_ssize_t t = left.v[k], first, last;
        int got = words_find(&words, tika[t].key, &first, &last);
        if (got < 0) {
            PyMem_Free(whole_first.v);
            PyMem_Free(whole_last.v);
            goto done;
        }
        if (!got)
            continue;
        Py_ssize_t j = bisect_right(&whole_first, first) - 1;
        if (j < 0 || whole_last.v[j] < first) {
            finders[nfinders].first = first;
            finders[nfinders].last = last;
            finders[nfinders].t = t;
            nfinders++;
        }
    }
    PyMem_Free(whole_first.v);
    PyMem_Free(whole_last.v);
    qsort(finders, nfinders, sizeof(Finder), finder_order);
    for (Py_ssize_t k = 0; k < nfinders;) {
        Py_ssize_t end = k + 1;
        while (end < nfinders && finders[end].first == finders[k].first
               && finders[end].last == finders[k].last)
            end++;
        if (end - k == 1) {
            tika[finders[k].t].found_first = finders[k].first;
            tika[finders[k].t].found_last = finders[k].last;
        }
        k = end;
    }
    /* Runs of consecutive lines still unplaced, their keys looked for together. */
    IntVec run = {0};
    for (Py_ssize_t k = 0; k < left.n; k++) {
        Py_ssize_t t = left.v[k];
        if (tika[t].found_first >= 0)
            continue;
        if (run.n && t != run.v[run.n - 1] + 1) {
            if (place_run(&words, tika, run.v, run.n) < 0) {
                PyMem_Free(run.v);
                goto done;
            }
            run.n = 0;
        }
        if (vec_push(&run, t) < 0) {
            PyMem_Free(run.v);
            goto done;
        }
    }
    if (place_run(&words, tika, run.v, run.n) < 0) {
        PyMem_Free(run.v);
        goto done;
    }
    PyMem_Free(run.v);
    status = 0;
done:
    Py_XDECREF(by_key);
    PyMem_Free(next);
    PyMem_Free(taken);
    PyMem_Free(heads.v);
    PyMem_Free(tails.v);
    PyMem_Free(left.v);
    PyMem_Free(finders);
    words_free(&words);
    return status;
}

/* --- the page's styles -------------------------------------------------------------- */

static int double_order(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : (x > y);
}

static int in_sorted(const double *v, Py_ssize_t n, double x)
{
    Py_ssize_t lo = 0, hi = n;
    while (lo < hi) {
        Py_ssize_t mid = (lo + hi) / 2;
        if (v[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && v[lo] == x;
}

/* _styles: fills ``lines`` (one per Tika line). */
static int styles(Page *p, TikaLine *tika, Py_ssize_t n, Line *lines)
{
    int status = -1;
    double *rights = PyMem_Malloc((n + 1) * sizeof(double));
    double *sorted = PyMem_Malloc((n + 1) * sizeof(double));
    double *shared = PyMem_Malloc((n + 1) * sizeof(double));
    char *reaches = PyMem_Malloc(n + 1), *with_cells = PyMem_Malloc(n + 1);
    if (!rights || !sorted || !shared || !reaches || !with_cells) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t t = 0; t < n; t++) {
        lines[t].present = 0;
        lines[t].cells = NULL;
        if (tika[t].found_first >= 0
            && page_box(p, tika[t].found_first, tika[t].found_last, &lines[t].box)) {
            lines[t].present = 1;
            double right = lines[t].box.x1;
            if (isnan(right)) {
                PyErr_SetString(PyExc_ValueError, "cannot convert float NaN to integer");
                goto done;
            }
            if (isinf(right)) {
                PyErr_SetString(PyExc_OverflowError, "cannot convert float infinity to integer");
                goto done;
            }
            rights[t] = trunc(right);
        }
        else
            rights[t] = -9.0;
        sorted[t] = rights[t];
    }
    /* Right edges shared by MIN_SHARED_EDGE lines, each widened by one point. */
    qsort(sorted, n, sizeof(double), double_order);
    Py_ssize_t nshared = 0;
    for (Py_ssize_t k = 0; k < n;) {
        Py_ssize_t end = k + 1;
        while (end < n && sorted[end] == sorted[k])
            end++;
        if (end - k >= MIN_SHARED_EDGE)
            shared[nshared++] = sorted[k];
        k = end;
    }
    for (Py_ssize_t t = 0; t < n; t++) {
        double right = rights[t];
        int in_shared = in_sorted(shared, nshared, right) || in_sorted(shared, nshared, right - 1)
                        || in_sorted(shared, nshared, right + 1);
        const Box *box = &lines[t].box;
        reaches[t] = in_shared && lines[t].present
                     && box->x1 - box->x0 >= 4 * (box->bottom - box->top);
    }
    Py_ssize_t last = n - 1;
    for (Py_ssize_t t = 0; t < n; t++) {
        Line *line = &lines[t];
        if (!line->present)
            continue;
        Py_ssize_t first = tika[t].found_first, end = tika[t].found_last;
        line->first = first;
        line->last = end;
        if (t < EDGE_LINES || t > last - EDGE_LINES || t % BODY_SAMPLE == 0 || !reaches[t]
            || (t && !reaches[t - 1])) {
            if (styled(p, first, end, &line->box, line) < 0)
                goto done;
        }
        else {
            line->size = 0.0;
            line->bold = line->rotated = 0;
            line->font = empty_str;
        }
        PyObject *found = cells(p, first, end, &line->box, 0);
        if (found == NULL)
            goto done;
        line->cells = found;
    }
    for (Py_ssize_t t = 0; t < n; t++)
        with_cells[t] = lines[t].present && PyTuple_GET_SIZE(lines[t].cells) >= MIN_NEIGHBOUR_CELLS;
    for (Py_ssize_t t = 0; t < n; t++) {
        Line *line = &lines[t];
        if (line->present && !with_cells[t]
            && ((t && with_cells[t - 1]) || (t < last && with_cells[t + 1]))) {
            PyObject *found = cells(p, line->first, line->last, &line->box, 1);
            if (found == NULL)
                goto done;
            if (PyTuple_GET_SIZE(found)) {
                Py_DECREF(line->cells);
                line->cells = found;
            }
            else
                Py_DECREF(found);
        }
    }
    status = 0;
done:
    PyMem_Free(rights);
    PyMem_Free(sorted);
    PyMem_Free(shared);
    PyMem_Free(reaches);
    PyMem_Free(with_cells);
    return status;
}

/* --- the module's calls -------------------------------------------------------------- */

static int read_text(Page *p)
{   /* layout._page_text */
    int count = CountChars(p->textpage);
    p->n = 0;
    p->u = NULL;
    if (count <= 0) {
        p->text = PyUnicode_New(0, 0);
        return p->text == NULL ? -1 : 0;
    }
    unsigned short *buffer = PyMem_Malloc(((size_t)count + 1) * 2);
    if (buffer == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    memset(buffer, 0, ((size_t)count + 1) * 2);
    int written = GetText(p->textpage, 0, count, buffer);
    Py_ssize_t n = written - 1 > 0 ? written - 1 : 0;
    if (n > count + 1)
        n = count + 1;
    /* UTF-16 decoded with "replace" keeps one character per unit; where it does not (a
     * surrogate pair), every unit becomes its own character. */
    int pair = 0;
    for (Py_ssize_t i = 0; i + 1 < n; i++)
        if (buffer[i] >= 0xD800 && buffer[i] <= 0xDBFF && buffer[i + 1] >= 0xDC00
            && buffer[i + 1] <= 0xDFFF) {
            pair = 1;
            break;
        }
    if (!pair)
        for (Py_ssize_t i = 0; i < n; i++)
            if (buffer[i] >= 0xD800 && buffer[i] <= 0xDFFF)
                buffer[i] = 0xFFFD;
    p->u = (Py_UCS2 *)buffer;
    p->n = n;
    p->text = PyUnicode_FromKindAndData(PyUnicode_2BYTE_KIND, buffer, n);
    return p->text == NULL ? -1 : 0;
}

static PyObject *new_line_style(Py_ssize_t start, Py_ssize_t end, long page, const Line *line,
                                PyObject *cells_value)
{
    PyObject *items[13];
    items[0] = PyLong_FromSsize_t(start);
    items[1] = PyLong_FromSsize_t(end);
    items[2] = PyLong_FromLong(page);
    items[3] = PyFloat_FromDouble(line->box.x0);
    items[4] = PyFloat_FromDouble(line->box.top);
    items[5] = PyFloat_FromDouble(line->box.x1);
    items[6] = PyFloat_FromDouble(line->box.bottom);
    if (line->size == 0.0 && !signbit(line->size)) {
        Py_INCREF(zero_float);
        items[7] = zero_float;
    }
    else
        items[7] = PyFloat_FromDouble(line->size);
    items[8] = PyBool_FromLong(line->bold);
    items[9] = PyBool_FromLong(line->rotated);
    Py_INCREF(line->font);
    items[10] = line->font;
    Py_INCREF(empty_tuple);  /* spaces: layout._fill_spaces measures them, in Python */
    items[11] = empty_tuple;
    Py_INCREF(cells_value);
    items[12] = cells_value;
    for (int k = 0; k < 13; k++)
        if (items[k] == NULL) {
            for (int j = 0; j < 13; j++)
                Py_XDECREF(items[j]);
            return NULL;
        }
    PyObject *style = line_style_type->tp_alloc(line_style_type, 13);
    if (style == NULL) {
        for (int j = 0; j < 13; j++)
            Py_DECREF(items[j]);
        return NULL;
    }
    for (int k = 0; k < 13; k++)
        PyTuple_SET_ITEM(style, k, items[k]);
    return style;
}

/* tika_page_lines for one page: its blocks' lines, stripped, with their keys. */
static int tika_lines(PyObject *raw_text, PyObject *blocks, TikaLine **out, Py_ssize_t *count)
{
    int kind = PyUnicode_KIND(raw_text);
    const void *data = PyUnicode_DATA(raw_text);
    Py_ssize_t length = PyUnicode_GET_LENGTH(raw_text), cap = 64, n = 0;
    TikaLine *lines = PyMem_Malloc(cap * sizeof(TikaLine));
    if (lines == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    PyObject *fast = PySequence_Fast(blocks, "blocks must be a sequence");
    if (fast == NULL)
        goto failed;
    for (Py_ssize_t b = 0; b < PySequence_Fast_GET_SIZE(fast); b++) {
        Py_ssize_t raw_start, raw_end;
        if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(fast, b), "nn", &raw_start, &raw_end))
            goto failed;
        /* raw_text[raw_start:raw_end] (raw_start >= 0) */
        Py_ssize_t s = raw_start < length ? raw_start : length;
        Py_ssize_t e = raw_end < 0 ? (length + raw_end > 0 ? length + raw_end : 0)
                                   : (raw_end < length ? raw_end : length);
        if (e < s)
            e = s;
        Py_ssize_t start = raw_start, piece = s;
        for (Py_ssize_t i = s; i <= e; i++) {
            if (i < e && PyUnicode_READ(kind, data, i) != '\n')
                continue;
            /* the piece [piece, i) */
            Py_ssize_t a = piece, z = i;
            while (a < z && is_space(PyUnicode_READ(kind, data, a)))
                a++;
            while (z > a && is_space(PyUnicode_READ(kind, data, z - 1)))
                z--;
            if (z > a) {
                if (n == cap) {
                    cap *= 2;
                    TikaLine *grown = PyMem_Realloc(lines, cap * sizeof(TikaLine));
                    if (grown == NULL) {
                        PyErr_NoMemory();
                        goto failed;
                    }
                    lines = grown;
                }
                Py_ssize_t lead = start + (a - piece);
                lines[n].raw_start = lead;
                lines[n].raw_end = lead + (z - a);
                lines[n].found_first = lines[n].found_last = -1;
                lines[n].key = squeeze_range(raw_text, kind, data, a, z);
                if (lines[n].key == NULL)
                    goto failed;
                n++;
            }
            start += (i - piece) + 1;
            piece = i + 1;
        }
    }
    Py_DECREF(fast);
    *out = lines;
    *count = n;
    return 0;
failed:
    Py_XDECREF(fast);
    for (Py_ssize_t k = 0; k < n; k++)
        Py_DECREF(lines[k].key);
    PyMem_Free(lines);
    return -1;
}

static PyObject *page_styles(PyObject *self, PyObject *args)
{
    Py_ssize_t textpage, page_number;
    Page p;
    PyObject *raw_text, *blocks, *out;
    memset(&p, 0, sizeof(p));
    if (!PyArg_ParseTuple(args, "nddddinUOO!", &textpage, &p.left, &p.bottom, &p.right, &p.top,
                          &p.rotation, &page_number, &raw_text, &blocks, &PyList_Type, &out))
        return NULL;
    if (line_style_type == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "configure() first");
        return NULL;
    }
    p.textpage = (Handle)textpage;
    TikaLine *tika = NULL;
    Py_ssize_t ntika = 0, nranges = 0;
    IntVec ranges = {0};
    Line *lines = NULL;
    PyObject *result = NULL, *spans = NULL;
    if (tika_lines(raw_text, blocks, &tika, &ntika) < 0) {
        tika = NULL;
        goto done;
    }
    if (ntika == 0) {
        result = Py_None;
        Py_INCREF(result);
        goto done;
    }
    if (read_text(&p) < 0)
        goto done;
    p.same_indexes = p.n - 1 < 0 || CharIndexFromTextIndex(p.textpage, (int)(p.n - 1)) == p.n - 1;
    /* (first, last) of each of PDFium's lines, split at its "\r\n". */
    {
        const Py_UCS2 *t = p.u;
        Py_ssize_t piece = 0;
        for (Py_ssize_t i = 0; i <= p.n; i++) {
            if (i < p.n && !(t[i] == '\r' && i + 1 < p.n && t[i + 1] == '\n'))
                continue;
            Py_ssize_t a = piece, z = i;
            while (a < z && is_space(t[a]))
                a++;
            while (z > a && is_space(t[z - 1]))
                z--;
            if (z > a && (vec_push(&ranges, a) < 0 || vec_push(&ranges, z - 1) < 0))
                goto done;
            piece = i + 2;
            i++;
        }
        nranges = ranges.n / 2;
    }
    if (align(&p, ranges.v, nranges, tika, ntika) < 0)
        goto done;
    lines = PyMem_Calloc(ntika, sizeof(Line));
    if (lines == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    if (styles(&p, tika, ntika, lines) < 0)
        goto done;
    spans = PyList_New(0);
    if (spans == NULL)
        goto done;
    for (Py_ssize_t t = 0; t < ntika; t++) {
        Line *line = &lines[t];
        if (!line->present)
            continue;
        PyObject *cell_value = empty_tuple;
        PyObject *moved = NULL;
        if (PyTuple_GET_SIZE(line->cells)) {
            PyObject *tika_text = PyUnicode_Substring(raw_text, tika[t].raw_start, tika[t].raw_end);
            PyObject *pdf_text = tika_text ? PyUnicode_Substring(p.text, line->first,
                                                                 line->last + 1) : NULL;
            if (pdf_text != NULL)
                moved = PyObject_CallFunction(cells_fn, "OnOO", tika_text, tika[t].raw_start,
                                              pdf_text, line->cells);
            Py_XDECREF(tika_text);
            Py_XDECREF(pdf_text);
            if (moved == NULL)
                goto done;
            cell_value = moved;
        }
        PyObject *style = new_line_style(tika[t].raw_start, tika[t].raw_end, (long)page_number,
                                         line, cell_value);
        Py_XDECREF(moved);
        if (style == NULL)
            goto done;
        int appended = PyList_Append(out, style);
        Py_DECREF(style);
        if (appended < 0)
            goto done;
        PyObject *span = Py_BuildValue("(nn)", line->first, line->last);
        if (span == NULL)
            goto done;
        appended = PyList_Append(spans, span);
        Py_DECREF(span);
        if (appended < 0)
            goto done;
    }
    result = PyTuple_Pack(2, p.text, spans);
done:
    Py_XDECREF(spans);
    if (lines != NULL)
        for (Py_ssize_t t = 0; t < ntika; t++)
            Py_XDECREF(lines[t].cells);
    PyMem_Free(lines);
    if (tika != NULL) {
        for (Py_ssize_t t = 0; t < ntika; t++)
            Py_XDECREF(tika[t].key);
        PyMem_Free(tika);
    }
    PyMem_Free(ranges.v);
    facemap_clear(&p.objects);
    facemap_clear(&p.fonts);
    PyMem_Free(p.u);
    Py_XDECREF(p.text);
    return result;
}

static PyObject *loose_boxes(PyObject *self, PyObject *args)
{   /* [_StyleReader._loose(offset) for offset in offsets]: each glyph's loose box on the
       displayed page, or None where PDFium has none. */
    Py_ssize_t textpage;
    int same;
    Page p;
    PyObject *offsets;
    memset(&p, 0, sizeof(p));
    if (!PyArg_ParseTuple(args, "nddddipO!", &textpage, &p.left, &p.bottom, &p.right, &p.top,
                          &p.rotation, &same, &PyList_Type, &offsets))
        return NULL;
    if (GetLooseCharBox == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "configure() first");
        return NULL;
    }
    p.textpage = (Handle)textpage;
    p.same_indexes = same;
    Py_ssize_t n = PyList_GET_SIZE(offsets);
    PyObject *out = PyList_New(n);
    if (out == NULL)
        return NULL;
    for (Py_ssize_t k = 0; k < n; k++) {
        Py_ssize_t offset = PyLong_AsSsize_t(PyList_GET_ITEM(offsets, k));
        if (offset == -1 && PyErr_Occurred()) {
            Py_DECREF(out);
            return NULL;
        }
        int index = char_index(&p, offset);
        RectF rect;
        PyObject *item;
        if (index < 0 || !GetLooseCharBox(p.textpage, index, &rect)) {
            item = Py_None;
            Py_INCREF(item);
        } else {
            Box box;
            frame_box(&p, (double)rect.left, (double)rect.bottom, (double)rect.right,
                      (double)rect.top, &box);
            item = Py_BuildValue("(dddd)", box.x0, box.top, box.x1, box.bottom);
            if (item == NULL) {
                Py_DECREF(out);
                return NULL;
            }
        }
        PyList_SET_ITEM(out, k, item);
    }
    return out;
}

static PyObject *configure(PyObject *self, PyObject *args)
{
    PyObject *addresses, *squeeze, *font, *tika_cells, *line_style, *hypot;
    if (!PyArg_ParseTuple(args, "O!OOOO!O", &PyTuple_Type, &addresses, &squeeze, &font,
                          &tika_cells, &PyType_Type, &line_style, &hypot))
        return NULL;
    if (PyTuple_GET_SIZE(addresses) != 10) {
        PyErr_SetString(PyExc_ValueError, "ten PDFium function addresses expected");
        return NULL;
    }
    if (!PyType_IsSubtype((PyTypeObject *)line_style, &PyTuple_Type)) {
        PyErr_SetString(PyExc_TypeError, "LineStyle must be a tuple type");
        return NULL;
    }
    void *pointers[10];
    for (int k = 0; k < 10; k++) {
        pointers[k] = PyLong_AsVoidPtr(PyTuple_GET_ITEM(addresses, k));
        if (pointers[k] == NULL) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_ValueError, "a PDFium function address is NULL");
            return NULL;
        }
    }
    *(void **)&CountChars = pointers[0];
    *(void **)&GetText = pointers[1];
    *(void **)&CharIndexFromTextIndex = pointers[2];
    *(void **)&GetCharBox = pointers[3];
    *(void **)&GetTextObject = pointers[4];
    *(void **)&GetCharAngle = pointers[5];
    *(void **)&GetFontSize = pointers[6];
    *(void **)&GetMatrix = pointers[7];
    *(void **)&GetFont = pointers[8];
    *(void **)&GetLooseCharBox = pointers[9];
    Py_INCREF(squeeze);
    Py_XSETREF(squeeze_fn, squeeze);
    Py_INCREF(font);
    Py_XSETREF(font_fn, font);
    Py_INCREF(tika_cells);
    Py_XSETREF(cells_fn, tika_cells);
    Py_INCREF(hypot);
    Py_XSETREF(hypot_fn, hypot);
    Py_INCREF(line_style);
    Py_XSETREF(line_style_type, (PyTypeObject *)line_style);
    Py_RETURN_NONE;
}

static PyObject *round_one(PyObject *self, PyObject *arg)
{   /* round1, exposed for the tests */
    double x = PyFloat_AsDouble(arg);
    if (x == -1.0 && PyErr_Occurred())
        return NULL;
    return PyFloat_FromDouble(round1(x));
}

static PyMethodDef methods[] = {
    {"configure", configure, METH_VARARGS,
     "configure(addresses, squeeze, font_face, tika_cells, LineStyle, hypot): PDFium's ten "
     "functions (CountChars, GetText, GetCharIndexFromTextIndex, GetCharBox, GetTextObject, "
     "GetCharAngle, TextObj_GetFontSize, PageObj_GetMatrix, TextObj_GetFont, "
     "GetLooseCharBox) and the Python helpers the pass shares with layout.py."},
    {"loose_boxes", loose_boxes, METH_VARARGS,
     "loose_boxes(textpage, left, bottom, right, top, rotation, same_indexes, offsets): "
     "_StyleReader._loose of each offset of the page's text, as a list."},
    {"page_styles", page_styles, METH_VARARGS,
     "page_styles(textpage, left, bottom, right, top, rotation, page, raw_text, blocks, out): "
     "append to ``out`` the LineStyle of each of the page's Tika lines PDFium places "
     "(``blocks``: the page's blocks as (raw_start, raw_end)), ``spaces`` left empty; "
     "return the page's text and each appended line's (first, last) in it, or None "
     "where the page has no Tika line."},
    {"round1", round_one, METH_O, "round(x, 1), as the pass computes it."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_pdfium_lines",
    "The PDF layout pass's per-line work in C (see layout.py).", -1, methods,
};

PyMODINIT_FUNC PyInit__pdfium_lines(void)
{
    empty_str = PyUnicode_New(0, 0);
    empty_tuple = PyTuple_New(0);
    zero_float = PyFloat_FromDouble(0.0);
    if (empty_str == NULL || empty_tuple == NULL || zero_float == NULL)
        return NULL;
    return PyModule_Create(&module);
}
