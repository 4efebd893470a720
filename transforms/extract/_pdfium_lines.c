/* The per-line work of the PDF layout pass (layout.py) in C: one call per page.
 *
 * layout.py's pure-Python path (``_page_layout`` with Tika's lines, ``_align``,
 * ``_styles`` and ``_StyleReader``) is the definition; this is the same algorithm,
 * step for step, so that its output is byte-identical (tests/transforms/extract/
 * test_layout.py runs both on the same PDFs). Where the two could differ in a last
 * bit they share code: rounding goes through CPython's own float formatting (as
 * ``round(x, 1)`` does), a text object's scale through ``math.hypot``, and keys of
 * text that is not ASCII through unicodedata's own ``normalize`` and str.lower (as
 * layout.squeeze). Moving table cells onto Tika's lines (``_tika_cells``), whether a page
 * sets its space glyphs (``sets_spaces``) and the scans of ``run_together_lines``
 * (``letter_counts``, ``camel_leads``) are here too.
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
static int (*IsGenerated)(Handle, int);
static size_t (*GetBaseFontName)(Handle, char *, size_t);
static int (*GetWeight)(Handle);
static int (*GetFlags)(Handle);
static Handle (*LoadPage)(Handle, int);
static void (*ClosePage)(Handle);
static Handle (*TextLoadPage)(Handle);
static void (*TextClosePage)(Handle);
static int (*GetCropBox)(Handle, float *, float *, float *, float *);
static int (*GetMediaBox)(Handle, float *, float *, float *, float *);
static int (*GetRotation)(Handle);

static PyObject *hypot_fn;
static PyObject *normalize_fn, *nfkd_str, *lower_str;  /* unicodedata.normalize, "NFKD", "lower" */
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
#define MAX_HEADER_REACH 4  /* and SENTENCE_ENDS: ".:;" */
#define SPACE_SAMPLE 3
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

/* layout.squeeze of a str that is not ASCII: NFKD (unicodedata's own normalize), its
 * letters and digits kept (what ``[\W_]+`` leaves: Py_UNICODE_ISALNUM, as the regex
 * engine tests it), then str.lower (full case mapping, final sigma included). */
static PyObject *squeeze_wide(PyObject *text)
{
    PyObject *folded = PyObject_CallFunctionObjArgs(normalize_fn, nfkd_str, text, NULL);
    if (folded == NULL)
        return NULL;
    int kind = PyUnicode_KIND(folded);
    const void *data = PyUnicode_DATA(folded);
    Py_ssize_t n = PyUnicode_GET_LENGTH(folded), kept = 0;
    Py_UCS4 widest = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        if (Py_UNICODE_ISALNUM(c)) {
            kept++;
            if (c > widest)
                widest = c;
        }
    }
    PyObject *letters = PyUnicode_New(kept, widest);
    if (letters == NULL) {
        Py_DECREF(folded);
        return NULL;
    }
    int out_kind = PyUnicode_KIND(letters);
    void *out = PyUnicode_DATA(letters);
    Py_ssize_t k = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        if (Py_UNICODE_ISALNUM(c))
            PyUnicode_WRITE(out_kind, out, k++, c);
    }
    Py_DECREF(folded);
    PyObject *key = PyObject_CallMethodNoArgs(letters, lower_str);
    Py_DECREF(letters);
    return key;
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
        PyObject *key = squeeze_wide(piece);
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

/* layout._font_face: a font's name without a subset's "ABCDEF+" prefix (interned) and
 * its weight (the descriptor's; else 700 for ForceBold or a bold name, 400, or 0 for a
 * font without a name); NULL on a Python error. The name is read into one buffer of
 * FONT_NAME bytes kept for the process, as the Python pass's: PDFium leaves a buffer too
 * short for a name as it was. */
#define FONT_NAME 128
#define FORCE_BOLD (1 << 18)
static char font_name_buffer[FONT_NAME];

static int contains(const char *text, size_t n, const char *word)
{
    size_t k = strlen(word);
    for (size_t i = 0; i + k <= n; i++)
        if (memcmp(text + i, word, k) == 0)
            return 1;
    return 0;
}

static PyObject *font_face(Handle font, long *weight)
{
    size_t length = GetBaseFontName(font, font_name_buffer, FONT_NAME);
    size_t n = (length < FONT_NAME ? length : FONT_NAME);
    n = n > 0 ? n - 1 : 0;
    const char *start = font_name_buffer;
    if (n >= 7 && font_name_buffer[6] == '+') {
        int subset = 1;
        for (int k = 0; k < 6; k++)
            if (font_name_buffer[k] < 'A' || font_name_buffer[k] > 'Z')
                subset = 0;
        if (subset) {
            start += 7;
            n -= 7;
        }
    }
    PyObject *name = PyUnicode_DecodeLatin1(start, (Py_ssize_t)n, NULL);
    if (name == NULL)
        return NULL;
    PyUnicode_InternInPlace(&name);
    long value = GetWeight(font);
    if (value <= 0) {
        int flags = GetFlags(font);
        /* _BOLD_NAME on the lower-cased name: a Latin-1 letter lower-cases to an ASCII
           one only where it is one. */
        char lower[FONT_NAME];
        for (size_t i = 0; i < n; i++) {
            char c = start[i];
            lower[i] = (c >= 'A' && c <= 'Z') ? (char)(c + 32) : c;
        }
        int bold = (flags > 0 && (flags & FORCE_BOLD)) || contains(lower, n, "bold")
                   || contains(lower, n, "black") || contains(lower, n, "heavy")
                   || contains(lower, n, "demi");
        value = bold ? 700 : n ? 400 : 0;
    }
    *weight = value;
    return name;
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
            named->name = font_face(font, &named->weight);
            if (named->name == NULL) {
                named->used = 0;  /* not filled: keep the map consistent */
                p->fonts.n--;
                goto failed;
            }
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
    PyObject *lead_font;  /* the first letter's font where not the middle's: borrowed */
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
    line->lead_font = empty_str;
    PyObject *font;
    long weight;
    double size;
    int found = page_face(p, middle, &font, &weight, &size);
    if (found < 0)
        return -1;
    if (found == 0)
        return 0;
    PyObject *middle_font = font;
    PyObject *lead_font = empty_str;
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
        if (others[k] == lead) {
            size = py_max(size, other_size);
            if (other_font != middle_font) {  /* lead_font: the run-in label's face */
                int same = PyUnicode_Compare(other_font, middle_font);
                if (same == -1 && PyErr_Occurred())
                    return -1;
                if (same != 0)
                    lead_font = other_font;
            }
        }
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
    line->lead_font = lead_font;
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
            line->lead_font = empty_str;
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
        if (!line->present || with_cells[t])
            continue;
        int near = (t && with_cells[t - 1]) || (t < last && with_cells[t + 1]);
        int above = 0;
        for (Py_ssize_t k = 2; !near && !above && k <= MAX_HEADER_REACH && t + k <= last; k++)
            above = with_cells[t + k];
        if (above) {  /* a header line over the rows, not a sentence leading into them */
            Py_ssize_t end = line->last;
            while (end > line->first && is_space(p->u[end]))
                end--;
            Py_UCS4 c = p->u[end];
            near = !(c == '.' || c == ':' || c == ';');
        }
        if (near) {
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
    PyObject *items[14];
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
    Py_INCREF(line->lead_font);
    items[13] = line->lead_font;
    for (int k = 0; k < 14; k++)
        if (items[k] == NULL) {
            for (int j = 0; j < 14; j++)
                Py_XDECREF(items[j]);
            return NULL;
        }
    PyObject *style = line_style_type->tp_alloc(line_style_type, 14);
    if (style == NULL) {
        for (int j = 0; j < 14; j++)
            Py_DECREF(items[j]);
        return NULL;
    }
    for (int k = 0; k < 14; k++)
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

/* layout._cell_starts's measure of str[a:b]: its characters that are not spaces where
 * the two lines differ only in spaces (``same``), else len(squeeze(str[a:b])); -1 on a
 * Python error. */
static Py_ssize_t cell_measure(PyObject *str, int kind, const void *data, Py_ssize_t a,
                               Py_ssize_t b, int same)
{
    Py_ssize_t count = 0, i;
    if (same) {
        for (i = a; i < b; i++)
            count += !is_space(PyUnicode_READ(kind, data, i));
        return count;
    }
    for (i = a; i < b; i++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        if (c >= 128)
            break;
        count += ascii_alnum(c);
    }
    if (i == b)
        return count;
    PyObject *key = squeeze_range(str, kind, data, a, b);
    if (key == NULL)
        return -1;
    count = PyUnicode_GET_LENGTH(key);
    Py_DECREF(key);
    return count;
}

/* layout._tika_cells: the cells of the PDFium line ``pdf[first:last + 1]`` (``cells``, as
 * ``cells()`` made them) moved onto the Tika line ``raw[raw_start:raw_end]``: a tuple of
 * (raw offset, x0, x1), or empty_tuple (new references); NULL on a Python error. */
static PyObject *tika_cells(PyObject *raw, Py_ssize_t raw_start, Py_ssize_t raw_end,
                            PyObject *pdf, Py_ssize_t first, Py_ssize_t last, PyObject *cells)
{
    int tkind = PyUnicode_KIND(raw), pkind = PyUnicode_KIND(pdf);
    const void *tdata = PyUnicode_DATA(raw), *pdata = PyUnicode_DATA(pdf);
    Py_ssize_t i, j, end = last + 1;
    /* "".join(tika.split()) == "".join(pdf.split()) */
    int same = 1;
    for (i = raw_start, j = first;;) {
        while (i < raw_end && is_space(PyUnicode_READ(tkind, tdata, i)))
            i++;
        while (j < end && is_space(PyUnicode_READ(pkind, pdata, j)))
            j++;
        if (i == raw_end || j == end) {
            same = i == raw_end && j == end;
            break;
        }
        if (PyUnicode_READ(tkind, tdata, i) != PyUnicode_READ(pkind, pdata, j)) {
            same = 0;
            break;
        }
        i++;
        j++;
    }
    /* The starts of Tika's words (``_WORD``: runs of non-spaces) and the measure of the
     * line before each, piece by piece. */
    IntVec tokens = {0}, before = {0};
    PyObject *result = NULL;
    Py_ssize_t total = 0, previous = raw_start;
    for (i = raw_start; i < raw_end; i++) {
        if (is_space(PyUnicode_READ(tkind, tdata, i))
                || (i > raw_start && !is_space(PyUnicode_READ(tkind, tdata, i - 1))))
            continue;
        Py_ssize_t piece = cell_measure(raw, tkind, tdata, previous, i, same);
        if (piece < 0)
            goto done;
        total += piece;
        previous = i;
        if (vec_push(&tokens, i) < 0 || vec_push(&before, total) < 0)
            goto done;
    }
    Py_ssize_t ncells = PyTuple_GET_SIZE(cells), k = 0, last_start = -1;
    result = PyTuple_New(ncells);
    if (result == NULL)
        goto done;
    for (Py_ssize_t c = 0; c < ncells; c++) {
        PyObject *cell = PyTuple_GET_ITEM(cells, c);
        Py_ssize_t offset = PyLong_AsSsize_t(PyTuple_GET_ITEM(cell, 0));
        if (offset == -1 && PyErr_Occurred())
            goto failed;
        Py_ssize_t wanted = cell_measure(pdf, pkind, pdata, first, first + offset, same);
        if (wanted < 0)
            goto failed;
        while (k < tokens.n && (before.v[k] < wanted || (c && tokens.v[k] <= last_start)))
            k++;
        if (k == tokens.n || before.v[k] != wanted) {
            Py_DECREF(result);
            result = empty_tuple;
            Py_INCREF(result);
            goto done;
        }
        last_start = tokens.v[k];
        PyObject *moved = PyTuple_New(3);
        if (moved == NULL)
            goto failed;
        PyObject *at = PyLong_FromSsize_t(last_start);
        if (at == NULL) {
            Py_DECREF(moved);
            goto failed;
        }
        PyTuple_SET_ITEM(moved, 0, at);
        Py_INCREF(PyTuple_GET_ITEM(cell, 2));
        PyTuple_SET_ITEM(moved, 1, PyTuple_GET_ITEM(cell, 2));
        Py_INCREF(PyTuple_GET_ITEM(cell, 3));
        PyTuple_SET_ITEM(moved, 2, PyTuple_GET_ITEM(cell, 3));
        PyTuple_SET_ITEM(result, c, moved);
    }
    goto done;
failed:
    Py_CLEAR(result);
done:
    PyMem_Free(tokens.v);
    PyMem_Free(before.v);
    return result;
}

/* _StyleReader.sets_spaces: does the page set space glyphs (its first SPACE_SAMPLE
 * spaces are not all spaces PDFium generated from gaps)? */
static int sets_spaces(Page *p)
{
    Py_ssize_t seen = 0;
    for (Py_ssize_t at = 0; at < p->n && seen < SPACE_SAMPLE; at++) {
        if (p->u[at] != ' ')
            continue;
        int index = char_index(p, at);
        if (index >= 0 && IsGenerated(p->textpage, index) == 0)
            return 1;
        seen++;
    }
    return 0;
}

/* page_styles on a page whose text page and frame are given. */
static PyObject *styles_of_page(Handle textpage, double left, double bottom, double right,
                                double top, int rotation, Py_ssize_t page_number,
                                PyObject *raw_text, PyObject *blocks, PyObject *out)
{
    Page p;
    memset(&p, 0, sizeof(p));
    p.textpage = textpage;
    p.left = left;
    p.bottom = bottom;
    p.right = right;
    p.top = top;
    p.rotation = rotation;
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
            moved = tika_cells(raw_text, tika[t].raw_start, tika[t].raw_end, p.text,
                               line->first, line->last, line->cells);
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
        /* Does PDFium's text of the line hold more spaces than Tika's (missing_spaces's
           first test: a line with no more is measured only where it looks run together)? */
        Py_ssize_t pdf_spaces = 0, tika_spaces = 0;
        for (Py_ssize_t i = line->first; i <= line->last; i++)
            pdf_spaces += p.u[i] == ' ';
        int raw_kind = PyUnicode_KIND(raw_text);
        const void *raw_data = PyUnicode_DATA(raw_text);
        for (Py_ssize_t i = tika[t].raw_start; i < tika[t].raw_end; i++)
            tika_spaces += PyUnicode_READ(raw_kind, raw_data, i) == ' ';
        PyObject *span = Py_BuildValue("(nnO)", line->first, line->last,
                                       pdf_spaces > tika_spaces ? Py_True : Py_False);
        if (span == NULL)
            goto done;
        appended = PyList_Append(spans, span);
        Py_DECREF(span);
        if (appended < 0)
            goto done;
    }
    /* _fill_spaces measures a page's lines only where it sets no space glyphs. */
    if (PyList_GET_SIZE(spans) == 0 || sets_spaces(&p)) {
        result = Py_None;
        Py_INCREF(result);
    }
    else
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

static PyObject *page_styles(PyObject *self, PyObject *args)
{
    Py_ssize_t textpage, page_number;
    double left, bottom, right, top;
    int rotation;
    PyObject *raw_text, *blocks, *out;
    if (!PyArg_ParseTuple(args, "nddddinUOO!", &textpage, &left, &bottom, &right, &top,
                          &rotation, &page_number, &raw_text, &blocks, &PyList_Type, &out))
        return NULL;
    if (line_style_type == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "configure() first");
        return NULL;
    }
    return styles_of_page((Handle)textpage, left, bottom, right, top, rotation, page_number,
                          raw_text, blocks, out);
}

static PyObject *size_value(double value, int whole)
{   /* round(value, 1): an int where the frame's edges were (US Letter's default box) */
    if (whole)
        return PyLong_FromDouble(value);
    return PyFloat_FromDouble(round1(value));
}

static PyObject *document_styles(PyObject *self, PyObject *args)
{   /* layout._native_pdf_layout's loop over the document's pages. */
    Py_ssize_t document;
    int count;
    PyObject *raw_text, *by_page, *out, *fill, *load_error;
    if (!PyArg_ParseTuple(args, "niUO!O!OO", &document, &count, &raw_text, &PyDict_Type,
                          &by_page, &PyList_Type, &out, &fill, &load_error))
        return NULL;
    if (line_style_type == NULL || LoadPage == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "configure() first");
        return NULL;
    }
    PyObject *sizes = PyList_New(0);
    if (sizes == NULL)
        return NULL;
    for (int index = 0; index < count; index++) {
        Handle page = LoadPage((Handle)document, index);
        if (page == NULL) {
            PyErr_SetString(load_error, "Failed to load page.");
            goto failed;
        }
        /* The crop box, else the media box, else US Letter (pypdfium2's get_cropbox, which
           _page_layout frames a page by). */
        float edges[4];
        double left, bottom, right, top;
        int whole = 0;
        if (GetCropBox(page, &edges[0], &edges[1], &edges[2], &edges[3])
                || GetMediaBox(page, &edges[0], &edges[1], &edges[2], &edges[3])) {
            left = edges[0], bottom = edges[1], right = edges[2], top = edges[3];
        }
        else {
            left = 0, bottom = 0, right = 612, top = 792;
            whole = 1;
        }
        int rotation = ((GetRotation(page) % 4) + 4) % 4;
        double width = right - left, height = top - bottom;
        PyObject *size = rotation % 2
            ? Py_BuildValue("(NN)", size_value(height, whole), size_value(width, whole))
            : Py_BuildValue("(NN)", size_value(width, whole), size_value(height, whole));
        if (size == NULL || PyList_Append(sizes, size) < 0) {
            Py_XDECREF(size);
            ClosePage(page);
            goto failed;
        }
        Py_DECREF(size);
        PyObject *number = PyLong_FromLong(index + 1);
        if (number == NULL) {
            ClosePage(page);
            goto failed;
        }
        PyObject *blocks = PyDict_GetItemWithError(by_page, number);
        Py_DECREF(number);
        if (blocks == NULL || PyObject_Not(blocks) == 1) {
            ClosePage(page);
            if (PyErr_Occurred())
                goto failed;
            continue;
        }
        Handle textpage = TextLoadPage(page);
        PyObject *placed = styles_of_page(textpage, left, bottom, right, top, rotation,
                                          index + 1, raw_text, blocks, out);
        if (placed != NULL && placed != Py_None) {
            PyObject *done = PyObject_CallFunction(
                fill, "nddddiOO", (Py_ssize_t)(uintptr_t)textpage, left, bottom, right, top,
                rotation, PyTuple_GET_ITEM(placed, 0), PyTuple_GET_ITEM(placed, 1));
            Py_XDECREF(done);
            if (done == NULL)
                Py_CLEAR(placed);
        }
        TextClosePage(textpage);
        ClosePage(page);
        if (placed == NULL)
            goto failed;
        Py_DECREF(placed);
    }
    return sizes;
failed:
    Py_DECREF(sizes);
    return NULL;
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
    PyObject *addresses, *line_style, *hypot;
    if (!PyArg_ParseTuple(args, "O!O!O", &PyTuple_Type, &addresses, &PyType_Type, &line_style,
                          &hypot))
        return NULL;
    if (PyTuple_GET_SIZE(addresses) != 21) {
        PyErr_SetString(PyExc_ValueError, "21 PDFium function addresses expected");
        return NULL;
    }
    if (!PyType_IsSubtype((PyTypeObject *)line_style, &PyTuple_Type)) {
        PyErr_SetString(PyExc_TypeError, "LineStyle must be a tuple type");
        return NULL;
    }
    void *pointers[21];
    for (int k = 0; k < 21; k++) {
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
    *(void **)&IsGenerated = pointers[10];
    *(void **)&GetBaseFontName = pointers[11];
    *(void **)&GetWeight = pointers[12];
    *(void **)&GetFlags = pointers[13];
    *(void **)&LoadPage = pointers[14];
    *(void **)&ClosePage = pointers[15];
    *(void **)&TextLoadPage = pointers[16];
    *(void **)&TextClosePage = pointers[17];
    *(void **)&GetCropBox = pointers[18];
    *(void **)&GetMediaBox = pointers[19];
    *(void **)&GetRotation = pointers[20];
    Py_INCREF(hypot);
    Py_XSETREF(hypot_fn, hypot);
    Py_INCREF(line_style);
    Py_XSETREF(line_style_type, (PyTypeObject *)line_style);
    Py_RETURN_NONE;
}

static PyObject *squeeze_call(PyObject *self, PyObject *arg)
{   /* layout.squeeze */
    if (!PyUnicode_Check(arg)) {
        PyErr_SetString(PyExc_TypeError, "squeeze takes a str");
        return NULL;
    }
    return squeeze_range(arg, PyUnicode_KIND(arg), PyUnicode_DATA(arg), 0,
                         PyUnicode_GET_LENGTH(arg));
}

/* A letter of layout._LETTER_RUN ``[^\W\d_]``: a word character (alphanumeric, as the
 * regex engine tests it) that is not a decimal digit nor "_". */
static int run_letter(Py_UCS4 c)
{
    return Py_UNICODE_ISALNUM(c) && !Py_UNICODE_ISDECIMAL(c);
}

/* letter_counts's table: each distinct run once, in the order first met. */
typedef struct { Py_ssize_t start, length; Py_hash_t hash; PyObject *run; Py_ssize_t count; }
    RunEntry;

static PyObject *letter_counts(PyObject *self, PyObject *arg)
{   /* (runs, counts): _LETTER_RUN.findall(text), each distinct run one str object, and
       Counter(runs) as a dict in the same order (each run first met first). */
    if (!PyUnicode_Check(arg)) {
        PyErr_SetString(PyExc_TypeError, "letter_counts takes a str");
        return NULL;
    }
    int kind = PyUnicode_KIND(arg);
    const void *data = PyUnicode_DATA(arg);
    Py_ssize_t n = PyUnicode_GET_LENGTH(arg), i = 0, nentries = 0, capacity = 1024;
    RunEntry *entries = PyMem_Malloc(capacity * sizeof(RunEntry));
    Py_ssize_t slots = 4096;
    Py_ssize_t *table = PyMem_Malloc(slots * sizeof(Py_ssize_t));
    PyObject *runs = PyList_New(0), *counts = NULL, *result = NULL;
    if (entries == NULL || table == NULL || runs == NULL) {
        if (runs != NULL)
            PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t k = 0; k < slots; k++)
        table[k] = -1;
    while (i < n) {
        if (!run_letter(PyUnicode_READ(kind, data, i))) {
            i++;
            continue;
        }
        Py_ssize_t start = i;
        uint64_t hash = 1469598103934665603u;
        while (i < n) {
            Py_UCS4 c = PyUnicode_READ(kind, data, i);
            if (!run_letter(c))
                break;
            hash = (hash ^ c) * 1099511628211u;
            i++;
        }
        Py_ssize_t length = i - start, slot = (Py_ssize_t)(hash % (uint64_t)slots), found = -1;
        while (table[slot] >= 0) {
            RunEntry *e = &entries[table[slot]];
            if (e->hash == (Py_hash_t)hash && e->length == length) {
                Py_ssize_t k = 0;
                while (k < length && PyUnicode_READ(kind, data, e->start + k)
                                     == PyUnicode_READ(kind, data, start + k))
                    k++;
                if (k == length) {
                    found = table[slot];
                    break;
                }
            }
            slot = (slot + 1) % slots;
        }
        if (found < 0) {
            if (nentries == capacity) {
                capacity *= 2;
                RunEntry *grown = PyMem_Realloc(entries, capacity * sizeof(RunEntry));
                if (grown == NULL) { PyErr_NoMemory(); goto done; }
                entries = grown;
            }
            PyObject *run = PyUnicode_Substring(arg, start, i);
            if (run == NULL)
                goto done;
            entries[nentries] = (RunEntry){start, length, (Py_hash_t)hash, run, 0};
            table[slot] = found = nentries++;
            if (nentries * 2 > slots) {  /* grow the table and place every entry again */
                Py_ssize_t grown_slots = slots * 4;
                Py_ssize_t *grown = PyMem_Malloc(grown_slots * sizeof(Py_ssize_t));
                if (grown == NULL) { PyErr_NoMemory(); goto done; }
                for (Py_ssize_t k = 0; k < grown_slots; k++)
                    grown[k] = -1;
                for (Py_ssize_t e = 0; e < nentries; e++) {
                    Py_ssize_t at = (Py_ssize_t)((uint64_t)entries[e].hash % (uint64_t)grown_slots);
                    while (grown[at] >= 0)
                        at = (at + 1) % grown_slots;
                    grown[at] = e;
                }
                PyMem_Free(table);
                table = grown;
                slots = grown_slots;
            }
        }
        entries[found].count++;
        if (PyList_Append(runs, entries[found].run) < 0)
            goto done;
    }
    counts = PyDict_New();
    if (counts == NULL)
        goto done;
    for (Py_ssize_t e = 0; e < nentries; e++) {
        PyObject *count = PyLong_FromSsize_t(entries[e].count);
        if (count == NULL || PyDict_SetItem(counts, entries[e].run, count) < 0) {
            Py_XDECREF(count);
            goto done;
        }
        Py_DECREF(count);
    }
    result = PyTuple_Pack(2, runs, counts);
done:
    if (entries != NULL)
        for (Py_ssize_t e = 0; e < nentries; e++)
            Py_DECREF(entries[e].run);
    PyMem_Free(entries);
    PyMem_Free(table);
    Py_XDECREF(runs);
    Py_XDECREF(counts);
    return result;
}

static PyObject *camel_leads(PyObject *self, PyObject *arg)
{   /* layout._camel_leads: each offset of a letter of ``[^\W\d_A-Z]`` before an A-Z. */
    if (!PyUnicode_Check(arg)) {
        PyErr_SetString(PyExc_TypeError, "camel_leads takes a str");
        return NULL;
    }
    int kind = PyUnicode_KIND(arg);
    const void *data = PyUnicode_DATA(arg);
    Py_ssize_t n = PyUnicode_GET_LENGTH(arg);
    PyObject *found = PyList_New(0);
    if (found == NULL)
        return NULL;
    for (Py_ssize_t i = 1; i < n; i++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        if (c < 'A' || c > 'Z')
            continue;
        Py_UCS4 lead = PyUnicode_READ(kind, data, i - 1);
        if ((lead >= 'A' && lead <= 'Z') || !run_letter(lead))
            continue;
        PyObject *at = PyLong_FromSsize_t(i - 1);
        if (at == NULL || PyList_Append(found, at) < 0) {
            Py_XDECREF(at);
            Py_DECREF(found);
            return NULL;
        }
        Py_DECREF(at);
    }
    return found;
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
     "configure(addresses, LineStyle, hypot): PDFium's 21 functions (layout.py's "
     "_PDFIUM_CALLS, in that order), the LineStyle type and math.hypot."},
    {"document_styles", document_styles, METH_VARARGS,
     "document_styles(document, pages, raw_text, by_page, out, fill, load_error): "
     "page_styles on each page of the document (``by_page``: page number -> its blocks), "
     "``fill(textpage, left, bottom, right, top, rotation, text, spans)`` called for "
     "what page_styles returns while the page is open; returns each page's displayed "
     "size, rounded to 0.1 pt."},
    {"loose_boxes", loose_boxes, METH_VARARGS,
     "loose_boxes(textpage, left, bottom, right, top, rotation, same_indexes, offsets): "
     "_StyleReader._loose of each offset of the page's text, as a list."},
    {"page_styles", page_styles, METH_VARARGS,
     "page_styles(textpage, left, bottom, right, top, rotation, page, raw_text, blocks, out): "
     "append to ``out`` the LineStyle of each of the page's Tika lines PDFium places "
     "(``blocks``: the page's blocks as (raw_start, raw_end)), ``spaces`` left empty; "
     "return the page's text and each appended line's (first, last, wider) where the page "
     "sets no space glyphs (``_fill_spaces`` measures those lines; ``wider``: PDFium's "
     "text of the line holds more spaces than Tika's), else None."},
    {"round1", round_one, METH_O, "round(x, 1), as the pass computes it."},
    {"squeeze", squeeze_call, METH_O, "layout.squeeze(text), in C."},
    {"letter_counts", letter_counts, METH_O,
     "(runs, counts): layout._LETTER_RUN.findall(text), a distinct run one object, and "
     "Counter(runs) as a dict in the same order."},
    {"camel_leads", camel_leads, METH_O, "layout._camel_leads(text), in C."},
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
    PyObject *unicodedata = PyImport_ImportModule("unicodedata");
    if (unicodedata == NULL)
        return NULL;
    normalize_fn = PyObject_GetAttrString(unicodedata, "normalize");
    Py_DECREF(unicodedata);
    nfkd_str = PyUnicode_InternFromString("NFKD");
    lower_str = PyUnicode_InternFromString("lower");
    if (normalize_fn == NULL || nfkd_str == NULL || lower_str == NULL)
        return NULL;
    return PyModule_Create(&module);
}
