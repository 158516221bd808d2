/* irscope.diff._native_tokens: PTX and SASS listings cleaned and split at their names, in C.
 *
 * Each function computes exactly what its Python original computes (irscope/ir/normalize.py:
 * clean_sass, clean_ptx; irscope/diff/canonical.py: tokenize for PTX and SASS), for ASCII text
 * without NUL. For any other input it returns None and the caller runs the Python original.
 *
 * The Python originals use regular expressions; here each one is a hand-written scanner with the
 * same matching semantics (leftmost match, alternatives in order, greedy runs, scanning resumes
 * after a match). In ASCII text Python's \b, \w and \d mean [A-Za-z0-9_] and [0-9];
 * str.splitlines() breaks at \n, \r, \r\n, \x0b, \x0c, \x1c, \x1d, \x1e; str.strip() and
 * str.split() take space, \t, \n, \x0b, \x0c, \r and \x1c to \x1f as whitespace.
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdio.h>
#include <string.h>

/* ------------------------------------------------------------------ ASCII character classes */

static int is_digit(char c) { return c >= '0' && c <= '9'; }

static int is_lower_hex(char c) { return is_digit(c) || (c >= 'a' && c <= 'f'); }

static int is_lower(char c) { return c >= 'a' && c <= 'z'; }

/* regex \w (and so \b) in ASCII text */
static int is_word(char c)
{
    return is_digit(c) || is_lower(c) || (c >= 'A' && c <= 'Z') || c == '_';
}

/* str.strip() / str.split() whitespace: \t \n \x0b \x0c \r, \x1c to \x1f, space */
static int is_space(char c) { return c == ' ' || (c >= '\t' && c <= '\r') || (c >= '\x1c' && c <= '\x1f'); }

/* str.splitlines() boundaries (\r\n counts as one, see next_line) */
static int is_line_break(char c)
{
    return c == '\n' || c == '\r' || c == '\x0b' || c == '\x0c' || (c >= '\x1c' && c <= '\x1e');
}

static int starts_with(const char *s, Py_ssize_t n, const char *prefix)
{
    Py_ssize_t k = (Py_ssize_t)strlen(prefix);
    return n >= k && memcmp(s, prefix, (size_t)k) == 0;
}

/* ``s`` is the directive ``name`` (its first word is exactly that: `.loc` but not `.local`) */
static int is_directive(const char *s, Py_ssize_t n, const char *name)
{
    Py_ssize_t k = (Py_ssize_t)strlen(name);
    return starts_with(s, n, name) && (n == k || is_space(s[k]));
}

static Py_ssize_t skip_digits(const char *s, Py_ssize_t i, Py_ssize_t n)
{
    while (i < n && is_digit(s[i]))
        i++;
    return i;
}

/* ------------------------------------------------------------------ strings and buffers */

/* The characters of a str that is ASCII without NUL: 1 and its bytes, 0 for any other object
 * (the caller then returns None), -1 on error. */
static int ascii_view(PyObject *o, const char **s, Py_ssize_t *n)
{
    if (!PyUnicode_Check(o))
        return 0;
#if PY_VERSION_HEX < 0x030C0000
    if (PyUnicode_READY(o) < 0)
        return -1;
#endif
    if (!PyUnicode_IS_ASCII(o))
        return 0;
    *s = (const char *)PyUnicode_DATA(o);
    *n = PyUnicode_GET_LENGTH(o);
    return memchr(*s, '\0', (size_t)*n) == NULL;
}

/* A new str of n ASCII characters (PyUnicode_New and a copy: no decoding). */
static PyObject *new_ascii(const char *s, Py_ssize_t n)
{
    PyObject *o = PyUnicode_New(n, 127);
    if (o != NULL && n > 0)
        memcpy(PyUnicode_DATA(o), s, (size_t)n);
    return o;
}

/* A growable byte buffer for building a line. */
typedef struct {
    char *data;
    Py_ssize_t len, cap;
} Buf;

static int buf_reserve(Buf *b, Py_ssize_t need)
{
    if (need <= b->cap)
        return 0;
    Py_ssize_t cap = b->cap ? b->cap : 256;
    while (cap < need) {
        if (cap > PY_SSIZE_T_MAX / 2) {
            PyErr_NoMemory();
            return -1;
        }
        cap *= 2;
    }
    char *data = PyMem_Realloc(b->data, (size_t)cap);
    if (data == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    b->data = data;
    b->cap = cap;
    return 0;
}

/* Appends without checking room: callers reserve a line's worst case first. */
static void buf_put(Buf *b, const char *s, Py_ssize_t n)
{
    memcpy(b->data + b->len, s, (size_t)n);
    b->len += n;
}

static void buf_free(Buf *b)
{
    PyMem_Free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

/* ------------------------------------------------------------------ lines */

/* The end of the line that starts at pos, as str.splitlines() cuts it; *next is where the next
 * line starts. */
static Py_ssize_t line_end(const char *s, Py_ssize_t pos, Py_ssize_t n, Py_ssize_t *next)
{
    Py_ssize_t end = pos;
    while (end < n && !is_line_break(s[end]))
        end++;
    if (end == n)
        *next = n;
    else if (s[end] == '\r' && end + 1 < n && s[end + 1] == '\n')
        *next = end + 2;
    else
        *next = end + 1;
    return end;
}

/* str.strip() of s[*a:*b], in place. */
static void strip(const char *s, Py_ssize_t *a, Py_ssize_t *b)
{
    while (*a < *b && is_space(s[*a]))
        (*a)++;
    while (*b > *a && is_space(s[*b - 1]))
        (*b)--;
}

/* The kept lines of a cleaned listing: their indices in the listing and their texts. */
typedef struct {
    PyObject *indices, *texts;
} Kept;

static int kept_init(Kept *k)
{
    k->indices = PyList_New(0);
    k->texts = PyList_New(0);
    if (k->indices == NULL || k->texts == NULL) {
        Py_CLEAR(k->indices);
        Py_CLEAR(k->texts);
        return -1;
    }
    return 0;
}

static int kept_append(Kept *k, Py_ssize_t index, const char *s, Py_ssize_t n)
{
    PyObject *i = PyLong_FromSsize_t(index);
    if (i == NULL)
        return -1;
    int failed = PyList_Append(k->indices, i);
    Py_DECREF(i);
    if (failed)
        return -1;
    PyObject *text = new_ascii(s, n);
    if (text == NULL)
        return -1;
    failed = PyList_Append(k->texts, text);
    Py_DECREF(text);
    return failed ? -1 : 0;
}

/* (indices, texts), the references given to the tuple; NULL (and both released) on error. */
static PyObject *kept_result(Kept *k)
{
    PyObject *out = PyTuple_Pack(2, k->indices, k->texts);
    Py_CLEAR(k->indices);
    Py_CLEAR(k->texts);
    return out;
}

/* What a line cleaner says of one stripped line: leave it out, keep it (its text in *out, *out_len),
 * or stop (the rest of the listing is not code). */
enum { LINE_SKIP, LINE_KEEP, LINE_STOP };

/* ``code``/``len``: a line stripped as str.strip strips it; ``a`` and ``b``: scratch for its text, each
 * room for ``len`` characters. */
typedef int (*LineCleaner)(const char *code, Py_ssize_t len, char *a, char *b, const char **out, Py_ssize_t *out_len);

/* ``text``'s lines (str.splitlines), each stripped and given to ``clean``: (indices, texts) of those
 * it keeps, None where the text is not ASCII without NUL. */
static PyObject *clean_lines(PyObject *text, LineCleaner clean)
{
    const char *s;
    Py_ssize_t n;
    int ok = ascii_view(text, &s, &n);
    if (ok < 0)
        return NULL;
    if (!ok)
        Py_RETURN_NONE;
    Kept kept;
    if (kept_init(&kept) < 0)
        return NULL;
    char *scratch = PyMem_Malloc((size_t)(2 * n + 2));
    if (scratch == NULL) {
        Py_CLEAR(kept.indices);
        Py_CLEAR(kept.texts);
        return PyErr_NoMemory();
    }
    Py_ssize_t pos = 0, next, index = 0;
    for (; pos < n; pos = next, index++) {
        Py_ssize_t start = pos, end = line_end(s, pos, n, &next);
        strip(s, &start, &end);
        const char *out;
        Py_ssize_t out_len;
        int verdict = clean(s + start, end - start, scratch, scratch + n + 1, &out, &out_len);
        if (verdict == LINE_STOP)
            break;
        if (verdict == LINE_KEEP && kept_append(&kept, index, out, out_len) < 0) {
            PyMem_Free(scratch);
            Py_CLEAR(kept.indices);
            Py_CLEAR(kept.texts);
            return NULL;
        }
    }
    PyMem_Free(scratch);
    return kept_result(&kept);
}

/* ------------------------------------------------------------------ clean_sass */

/* One kept SASS line cleaned as clean_sass cleans it over the joined body, in its order:
 * SASS_ADDRESS (/\*[0-9a-f]+\*\/) removed, then ".reuse" removed (str.replace: leftmost,
 * non-overlapping, on what the first step left, so ".re/\*00*\/use" loses both), then each run of
 * spaces and tabs made one space (WHITESPACE_RUN, `[ \t][ \t]+|\t` -> " "), then str.strip().
 * None of these matches spans a newline, so line by line is the same as over the body.
 * `a` and `b` have room for n characters; the result is in b[*start:*end]. */
static void clean_sass_line(const char *s, Py_ssize_t n, char *a, char *b, Py_ssize_t *start, Py_ssize_t *end)
{
    Py_ssize_t i = 0, len = 0;
    while (i < n) {  /* addresses */
        if (s[i] == '/' && i + 1 < n && s[i + 1] == '*') {
            Py_ssize_t j = i + 2;
            while (j < n && is_lower_hex(s[j]))
                j++;
            if (j > i + 2 && j + 1 < n && s[j] == '*' && s[j + 1] == '/') {
                i = j + 2;
                continue;
            }
        }
        a[len++] = s[i++];
    }
    Py_ssize_t m = len;
    i = len = 0;
    while (i < m) {  /* .reuse */
        if (i + 6 <= m && memcmp(a + i, ".reuse", 6) == 0) {
            i += 6;
            continue;
        }
        b[len++] = a[i++];
    }
    m = len;
    i = len = 0;
    while (i < m) {  /* whitespace runs; the output never passes the input, so in place */
        if (b[i] == ' ' || b[i] == '\t') {
            while (i < m && (b[i] == ' ' || b[i] == '\t'))
                i++;
            b[len++] = ' ';
            continue;
        }
        b[len++] = b[i++];
    }
    *start = 0;
    *end = len;
    strip(b, start, end);
}

static int clean_sass_code(const char *code, Py_ssize_t len, char *a, char *b, const char **out, Py_ssize_t *out_len)
{
    /* headers, line comments and labels other than branch targets */
    if (len == 0 || starts_with(code, len, "//") || (code[len - 1] == ':' && !starts_with(code, len, ".L_x_")))
        return LINE_SKIP;
    Py_ssize_t from, to;
    clean_sass_line(code, len, a, b, &from, &to);
    *out = b + from;
    *out_len = to - from;
    return LINE_KEEP;
}

static PyObject *clean_sass(PyObject *module, PyObject *text)
{
    return clean_lines(text, clean_sass_code);
}

/* ------------------------------------------------------------------ clean_ptx */

/* PTX_DEBUG_LABEL: ^\$L__(?:tmp|func_begin|func_end|info_string)\d+: (no alternative is a prefix of
 * another, so at most one can match). */
static int is_debug_label(const char *s, Py_ssize_t n)
{
    static const char *const kinds[] = {"tmp", "func_begin", "func_end", "info_string"};
    if (!starts_with(s, n, "$L__"))
        return 0;
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        if (starts_with(s + 4, n - 4, kinds[k])) {
            Py_ssize_t i = 4 + (Py_ssize_t)strlen(kinds[k]);
            Py_ssize_t j = skip_digits(s, i, n);
            return j > i && j < n && s[j] == ':';
        }
    }
    return 0;
}

/* PTX_REG_COUNT.sub("<N>", ...): each <\d+> becomes <N>. Writes into out (room for n: never longer). */
static Py_ssize_t count_to_n(const char *s, Py_ssize_t n, char *out)
{
    Py_ssize_t i = 0, len = 0;
    while (i < n) {
        if (s[i] == '<') {
            Py_ssize_t j = skip_digits(s, i + 1, n);
            if (j > i + 1 && j < n && s[j] == '>') {
                memcpy(out + len, "<N>", 3);
                len += 3;
                i = j + 1;
                continue;
            }
        }
        out[len++] = s[i++];
    }
    return len;
}

/* " ".join(s.split()) into out (room for n: never longer). */
static Py_ssize_t join_words(const char *s, Py_ssize_t n, char *out)
{
    Py_ssize_t i = 0, len = 0;
    while (i < n) {
        while (i < n && is_space(s[i]))
            i++;
        if (i == n)
            break;
        if (len > 0)
            out[len++] = ' ';
        while (i < n && !is_space(s[i]))
            out[len++] = s[i++];
    }
    return len;
}

static int clean_ptx_code(const char *code, Py_ssize_t len, char *counted, char *joined, const char **out,
                          Py_ssize_t *out_len)
{
    if (len == 0)
        return LINE_SKIP;
    char first = code[0];
    if (first == '/')
        return LINE_SKIP;  /* a comment line */
    for (Py_ssize_t i = 0; i + 1 < len; i++) {  /* cut at the first // */
        if (code[i] == '/' && code[i + 1] == '/') {
            len = i;
            while (len > 0 && is_space(code[len - 1]))
                len--;
            break;
        }
    }
    if (first == '.') {
        if (starts_with(code, len, ".section"))
            return LINE_STOP;  /* DWARF tables follow the function */
        if (is_directive(code, len, ".loc") || is_directive(code, len, ".file"))
            return LINE_SKIP;
    }
    else if (first == '$' && is_debug_label(code, len))
        return LINE_SKIP;
    if (starts_with(code, len, ".reg ")) {
        len = count_to_n(code, len, counted);
        code = counted;
    }
    *out = joined;
    *out_len = join_words(code, len, joined);
    return LINE_KEEP;
}

static PyObject *clean_ptx(PyObject *module, PyObject *text)
{
    return clean_lines(text, clean_ptx_code);
}

/* ------------------------------------------------------------------ names */

/* The end of the PTX name that starts at s[i], -1 for none:
 * %[a-z]+\d+\b | \$L\d+\b | \$L__BB\d+_\d+ (canonical.NAMES[Stage.PTX]). Letters and digits are
 * disjoint, so no greedy run can give back a character that would let the rest match. */
static Py_ssize_t ptx_name_at(const char *s, Py_ssize_t i, Py_ssize_t n)
{
    if (s[i] == '%') {
        Py_ssize_t j = i + 1;
        while (j < n && is_lower(s[j]))
            j++;
        if (j == i + 1)
            return -1;
        Py_ssize_t k = skip_digits(s, j, n);
        if (k == j || (k < n && is_word(s[k])))
            return -1;
        return k;
    }
    if (s[i] != '$' || i + 1 >= n || s[i + 1] != 'L')
        return -1;
    Py_ssize_t j = i + 2;
    Py_ssize_t k = skip_digits(s, j, n);
    if (k > j)  /* $L\d+\b; then $L__BB cannot match here */
        return k < n && is_word(s[k]) ? -1 : k;
    if (!starts_with(s + j, n - j, "__BB"))
        return -1;
    j += 4;
    k = skip_digits(s, j, n);
    if (k == j || k >= n || s[k] != '_')
        return -1;
    Py_ssize_t m = skip_digits(s, k + 1, n);
    return m > k + 1 ? m : -1;
}

/* The end of the SASS name that starts at s[i], -1 for none: \b(?:UR|UP|R|P|B)\d+\b | \.L_x_\d+. */
static Py_ssize_t sass_name_at(const char *s, Py_ssize_t i, Py_ssize_t n)
{
    char c = s[i];
    if (c == '.') {
        if (!starts_with(s + i, n - i, ".L_x_"))
            return -1;
        Py_ssize_t k = skip_digits(s, i + 5, n);
        return k > i + 5 ? k : -1;
    }
    Py_ssize_t j;
    if (c == 'U' && i + 1 < n && (s[i + 1] == 'R' || s[i + 1] == 'P'))
        j = i + 2;
    else if (c == 'R' || c == 'P' || c == 'B')
        j = i + 1;
    else
        return -1;
    if (i > 0 && is_word(s[i - 1]))  /* \b before a letter */
        return -1;
    Py_ssize_t k = skip_digits(s, j, n);
    if (k == j || (k < n && is_word(s[k])))
        return -1;
    return k;
}

/* ------------------------------------------------------------------ tokenize */

typedef struct {
    Py_ssize_t start, end;
} Span;

/* A listing's distinct strings (names, heads), found by their characters without making a str:
 * each is made once and hashed once, and the dicts that a name is looked up in see one object. */
typedef struct {
    PyObject *str;  /* owned; NULL marks an empty slot */
    size_t hash;
    int value;      /* heads: whether the instruction writes its first operand, -1 not yet asked */
} Entry;

typedef struct {
    Entry *entries;
    size_t cap, used;  /* cap: 0 or a power of two, kept at least twice used */
} Table;

static size_t hash_chars(const char *s, Py_ssize_t n)  /* FNV-1a */
{
    size_t h = 2166136261u;
    for (Py_ssize_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 16777619u;
    return h;
}

static Entry *table_slot(Entry *entries, size_t cap, size_t hash, const char *s, Py_ssize_t n)
{
    for (size_t i = hash & (cap - 1);; i = (i + 1) & (cap - 1)) {
        Entry *e = &entries[i];
        if (e->str == NULL || (e->hash == hash && PyUnicode_GET_LENGTH(e->str) == n &&
                               memcmp(PyUnicode_DATA(e->str), s, (size_t)n) == 0))
            return e;
    }
}

static int table_grow(Table *t)
{
    size_t cap = t->cap ? 2 * t->cap : 256;
    Entry *entries = PyMem_Calloc(cap, sizeof(Entry));
    if (entries == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    for (size_t i = 0; i < t->cap; i++) {
        Entry *old = &t->entries[i];
        if (old->str != NULL)
            *table_slot(entries, cap, old->hash, PyUnicode_DATA(old->str), PyUnicode_GET_LENGTH(old->str)) = *old;
    }
    PyMem_Free(t->entries);
    t->entries = entries;
    t->cap = cap;
    return 0;
}

/* The entry of s[:n], its str made if it is new; NULL on error. */
static Entry *table_entry(Table *t, const char *s, Py_ssize_t n)
{
    if (2 * (t->used + 1) > t->cap && table_grow(t) < 0)
        return NULL;
    size_t hash = hash_chars(s, n);
    Entry *e = table_slot(t->entries, t->cap, hash, s, n);
    if (e->str == NULL) {
        if ((e->str = new_ascii(s, n)) == NULL)
            return NULL;
        e->hash = hash;
        e->value = -1;
        t->used++;
    }
    return e;
}

static void table_free(Table *t)
{
    for (size_t i = 0; i < t->cap; i++)
        Py_XDECREF(t->entries[i].str);
    PyMem_Free(t->entries);
    t->entries = NULL;
    t->cap = t->used = 0;
}

typedef struct {
    int sass;
    PyTypeObject *line_type;
    PyObject *head_writes;   /* the caller's callable (borrowed) */
    Table heads;             /* the text before a first operand -> whether it is written */
    Table names;
    PyObject *current;       /* SASS: a name -> its key now (R4.3) */
    PyObject *version;       /* SASS: a name -> its writes so far */
    Span *spans;
    Py_ssize_t spans_cap;
    Buf frame, template, shape;
} Tokenizer;

/* Where the line's names are (t->spans): their count, -1 on error. Leftmost first, scanning on
 * after each; a line never holds a \n, so \b at its ends is what it is in the joined listing. */
static Py_ssize_t find_names(Tokenizer *t, const char *s, Py_ssize_t n)
{
    Py_ssize_t count = 0, i = 0;
    while (i < n) {
        Py_ssize_t end = t->sass ? sass_name_at(s, i, n) : ptx_name_at(s, i, n);
        if (end < 0) {
            i++;
            continue;
        }
        if (count == t->spans_cap) {
            Py_ssize_t cap = t->spans_cap ? 2 * t->spans_cap : 16;
            Span *spans = PyMem_Realloc(t->spans, (size_t)cap * sizeof(Span));
            if (spans == NULL) {
                PyErr_NoMemory();
                return -1;
            }
            t->spans = spans;
            t->spans_cap = cap;
        }
        t->spans[count].start = i;
        t->spans[count].end = end;
        count++;
        i = end;
    }
    return count;
}

/* Whether an instruction writes its first operand, by the text before it (head_writes, once per
 * distinct head): 1 or 0, -1 on error. */
static int writes_after(Tokenizer *t, const char *s, Py_ssize_t n)
{
    Entry *head = table_entry(&t->heads, s, n);
    if (head == NULL)
        return -1;
    if (head->value < 0) {
        PyObject *answer = PyObject_CallOneArg(t->head_writes, head->str);
        if (answer == NULL)
            return -1;
        int writes = PyObject_IsTrue(answer);
        Py_DECREF(answer);
        if (writes < 0)
            return -1;
        /* head still points into the table: the call ran Python code, but only this tokenizer adds
         * to its tables */
        head->value = writes;
    }
    return head->value;
}

/* "name.N" */
static PyObject *versioned_key(PyObject *name, long version)
{
    char suffix[32];
    int k = snprintf(suffix, sizeof suffix, ".%ld", version);
    Py_ssize_t n = PyUnicode_GET_LENGTH(name);
    PyObject *key = PyUnicode_New(n + k, 127);
    if (key == NULL)
        return NULL;
    memcpy(PyUnicode_DATA(key), PyUnicode_DATA(name), (size_t)n);
    memcpy((char *)PyUnicode_DATA(key) + n, suffix, (size_t)k);
    return key;
}

/* A SASS name's key now (a new reference): as canonical._Current, version 0 before any write, and a
 * label is its own key. */
static PyObject *key_of(Tokenizer *t, PyObject *name)
{
    PyObject *key = PyDict_GetItemWithError(t->current, name);
    if (key != NULL) {
        Py_INCREF(key);
        return key;
    }
    if (PyErr_Occurred())
        return NULL;
    if (((const char *)PyUnicode_DATA(name))[0] == '.') {
        key = name;
        Py_INCREF(key);
    }
    else if ((key = versioned_key(name, 0)) == NULL)
        return NULL;
    if (PyDict_SetItem(t->current, name, key) < 0) {
        Py_DECREF(key);
        return NULL;
    }
    return key;
}

/* A write to a SASS name starts its next version. 0, -1 on error. */
static int write_name(Tokenizer *t, PyObject *name)
{
    long version = 1;
    PyObject *before = PyDict_GetItemWithError(t->version, name);  /* borrowed */
    if (before != NULL) {
        version = PyLong_AsLong(before);
        if (version == -1 && PyErr_Occurred())
            return -1;
        version++;
    }
    else if (PyErr_Occurred())
        return -1;
    PyObject *count = PyLong_FromLong(version);
    if (count == NULL)
        return -1;
    int failed = PyDict_SetItem(t->version, name, count);
    Py_DECREF(count);
    if (failed)
        return -1;
    PyObject *key = versioned_key(name, version);
    if (key == NULL)
        return -1;
    failed = PyDict_SetItem(t->current, name, key);
    Py_DECREF(key);
    return failed ? -1 : 0;
}

/* The guard test of both _dest and _versioned: the text before the first name is "@" or "@!". */
static int is_guard(const char *s, Py_ssize_t n)
{
    return (n == 1 && s[0] == '@') || (n == 2 && s[0] == '@' && s[1] == '!');
}

/* PTX, as canonical._dest: a guarded line defines nothing; else its first name, if its head passes.
 * The line's destination, -2 on error. */
static Py_ssize_t ptx_dest(Tokenizer *t, const char *s)
{
    Py_ssize_t head = t->spans[0].start;
    if (is_guard(s, head))
        return -1;
    int writes = writes_after(t, s, head);
    return writes < 0 ? -2 : writes ? 0 : -1;
}

/* SASS, as canonical._versioned: the line's destination (-2 on error), its write recorded. A guarded
 * line's head is the text between its guard and its next name; its write starts a new version but
 * is not a definition (-1). */
static Py_ssize_t sass_dest(Tokenizer *t, const char *s, Py_ssize_t n, PyObject *names, Py_ssize_t count)
{
    Py_ssize_t head = 0, head_end = t->spans[0].start;
    int guarded = is_guard(s, head_end);
    if (guarded) {
        head = t->spans[0].end;
        head_end = count > 1 ? t->spans[1].start : n;
    }
    int writes = writes_after(t, s + head, head_end - head);
    if (writes < 0)
        return -2;
    Py_ssize_t dest = guarded ? 1 : 0;
    if (!writes || dest >= count || s[t->spans[dest].start] == '.')
        return -1;
    if (write_name(t, PyList_GET_ITEM(names, dest)) < 0)
        return -2;
    return guarded ? -1 : dest;
}

/* The line's frame, template and shape into t's buffers, from its text and t->spans. */
static int build_texts(Tokenizer *t, const char *s, Py_ssize_t n, Py_ssize_t count)
{
    if (buf_reserve(&t->frame, n) < 0 || buf_reserve(&t->shape, n) < 0 || buf_reserve(&t->template, 2 * n) < 0)
        return -1;
    t->frame.len = t->shape.len = t->template.len = 0;
    Py_ssize_t pos = 0;
    for (Py_ssize_t k = 0; k <= count; k++) {
        Py_ssize_t gap_end = k < count ? t->spans[k].start : n;
        buf_put(&t->frame, s + pos, gap_end - pos);
        buf_put(&t->shape, s + pos, gap_end - pos);
        for (Py_ssize_t i = pos; i < gap_end; i++) {  /* braces doubled for str.format */
            t->template.data[t->template.len++] = s[i];
            if (s[i] == '{' || s[i] == '}')
                t->template.data[t->template.len++] = s[i];
        }
        if (k == count)
            break;
        Py_ssize_t end = t->spans[k].end, stem = end;
        while (stem > gap_end && is_digit(s[stem - 1]))  /* name.rstrip("0123456789") */
            stem--;
        buf_put(&t->frame, "\0", 1);  /* SEPARATOR */
        buf_put(&t->shape, s + gap_end, stem - gap_end);
        buf_put(&t->template, "{}", 2);
        pos = end;
    }
    return 0;
}

/* keys without the one at dest (a new list). */
static PyObject *without(PyObject *keys, Py_ssize_t dest)
{
    Py_ssize_t n = PyList_GET_SIZE(keys);
    PyObject *out = PyList_New(n - 1);
    if (out == NULL)
        return NULL;
    for (Py_ssize_t i = 0, j = 0; i < n; i++) {
        if (i == dest)
            continue;
        PyObject *key = PyList_GET_ITEM(keys, i);
        Py_INCREF(key);
        PyList_SET_ITEM(out, j++, key);
    }
    return out;
}

enum { F_INDEX, F_TEXT, F_FRAME, F_TEMPLATE, F_NAMES, F_SHAPE, F_KEYS, F_DEST, F_READS, FIELDS };

/* A Line made as tuple's own subtype __new__ makes it; steals the references in fields (all
 * released on error). */
static PyObject *new_line(PyTypeObject *line_type, PyObject *fields[FIELDS])
{
    PyObject *line = NULL;
    for (int f = 0; f < FIELDS; f++)
        if (fields[f] == NULL)
            goto done;
    line = line_type->tp_alloc(line_type, FIELDS);
    if (line != NULL) {
        for (int f = 0; f < FIELDS; f++) {
            PyTuple_SET_ITEM(line, f, fields[f]);
            fields[f] = NULL;
        }
    }
done:
    for (int f = 0; f < FIELDS; f++)
        Py_XDECREF(fields[f]);
    return line;
}

/* A line without names: its frame and shape are its text; like Python, one empty list is its
 * names, keys and reads. */
static PyObject *line_without_names(Tokenizer *t, PyObject *index, PyObject *text, const char *s, Py_ssize_t n)
{
    PyObject *fields[FIELDS] = {NULL};
    int braces = memchr(s, '{', (size_t)n) != NULL || memchr(s, '}', (size_t)n) != NULL;
    if (braces) {
        if (build_texts(t, s, n, 0) < 0)
            return NULL;
        fields[F_TEMPLATE] = new_ascii(t->template.data, t->template.len);
    }
    else {
        Py_INCREF(text);
        fields[F_TEMPLATE] = text;
    }
    PyObject *empty = PyList_New(0);
    Py_INCREF(index);
    fields[F_INDEX] = index;
    Py_INCREF(text);
    fields[F_TEXT] = text;
    Py_INCREF(text);
    fields[F_FRAME] = text;
    Py_INCREF(text);
    fields[F_SHAPE] = text;
    fields[F_DEST] = PyLong_FromLong(-1);
    fields[F_NAMES] = empty;
    Py_XINCREF(empty);
    fields[F_KEYS] = empty;
    Py_XINCREF(empty);
    fields[F_READS] = empty;
    return new_line(t->line_type, fields);
}

static PyObject *tokenize_line(Tokenizer *t, PyObject *index, PyObject *text)
{
    const char *s = (const char *)PyUnicode_DATA(text);
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    Py_ssize_t count = find_names(t, s, n);
    if (count < 0)
        return NULL;
    if (count == 0)
        return line_without_names(t, index, text, s, n);
    PyObject *fields[FIELDS] = {NULL};
    PyObject *names = fields[F_NAMES] = PyList_New(count);
    if (names == NULL)
        goto error;
    for (Py_ssize_t k = 0; k < count; k++) {
        Entry *name = table_entry(&t->names, s + t->spans[k].start, t->spans[k].end - t->spans[k].start);
        if (name == NULL)
            goto error;
        Py_INCREF(name->str);
        PyList_SET_ITEM(names, k, name->str);
    }
    if (build_texts(t, s, n, count) < 0)
        goto error;
    if ((fields[F_FRAME] = new_ascii(t->frame.data, t->frame.len)) == NULL ||
        (fields[F_TEMPLATE] = new_ascii(t->template.data, t->template.len)) == NULL ||
        (fields[F_SHAPE] = new_ascii(t->shape.data, t->shape.len)) == NULL)
        goto error;
    Py_ssize_t dest;
    PyObject *keys;
    if (t->sass) {
        /* the write first: a name the line writes has its new key wherever the line names it */
        if ((dest = sass_dest(t, s, n, names, count)) == -2)
            goto error;
        if ((keys = fields[F_KEYS] = PyList_New(count)) == NULL)
            goto error;
        for (Py_ssize_t k = 0; k < count; k++) {
            PyObject *key = key_of(t, PyList_GET_ITEM(names, k));
            if (key == NULL)
                goto error;
            PyList_SET_ITEM(keys, k, key);
        }
    }
    else {
        if ((dest = ptx_dest(t, s)) == -2)
            goto error;
        keys = fields[F_KEYS] = names;  /* PTX names are their own keys: Python's is one list too */
        Py_INCREF(keys);
    }
    if (dest < 0) {
        fields[F_READS] = keys;
        Py_INCREF(keys);
    }
    else if ((fields[F_READS] = without(keys, dest)) == NULL)
        goto error;
    if ((fields[F_DEST] = PyLong_FromSsize_t(dest)) == NULL)
        goto error;
    Py_INCREF(index);
    fields[F_INDEX] = index;
    Py_INCREF(text);
    fields[F_TEXT] = text;
    return new_line(t->line_type, fields);
error:
    for (int f = 0; f < FIELDS; f++)
        Py_XDECREF(fields[f]);
    return NULL;
}

/* Whether every text is a line this module handles: ASCII, without NUL or \n (a text with a \n is
 * not one line, and canonical.tokenize takes its other branch for it). 1, 0, -1 on error. */
static int all_lines_handled(PyObject *texts)
{
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(texts); i++) {
        const char *s;
        Py_ssize_t n;
        int ok = ascii_view(PyTuple_GET_ITEM(texts, i), &s, &n);
        if (ok <= 0)
            return ok;
        if (memchr(s, '\n', (size_t)n) != NULL)
            return 0;
    }
    return 1;
}

static void tokenizer_free(Tokenizer *t)
{
    table_free(&t->heads);
    table_free(&t->names);
    Py_CLEAR(t->current);
    Py_CLEAR(t->version);
    PyMem_Free(t->spans);
    t->spans = NULL;
    buf_free(&t->frame);
    buf_free(&t->template);
    buf_free(&t->shape);
}

static PyObject *tokenize(PyObject *module, PyObject *args)
{
    const char *kind;
    PyObject *index_list, *text_list, *line_type, *head_writes;
    if (!PyArg_ParseTuple(args, "sO!O!O!O:tokenize", &kind, &PyList_Type, &index_list, &PyList_Type, &text_list,
                          &PyType_Type, &line_type, &head_writes))
        return NULL;
    int sass = strcmp(kind, "sass") == 0;
    if (!sass && strcmp(kind, "ptx") != 0) {
        PyErr_Format(PyExc_ValueError, "kind must be 'ptx' or 'sass', not %R", PyTuple_GET_ITEM(args, 0));
        return NULL;
    }
    if (!PyType_IsSubtype((PyTypeObject *)line_type, &PyTuple_Type)) {
        PyErr_SetString(PyExc_TypeError, "line_type must be a tuple subclass");
        return NULL;
    }
    if (!PyCallable_Check(head_writes)) {
        PyErr_SetString(PyExc_TypeError, "head_writes must be callable");
        return NULL;
    }
    if (PyList_GET_SIZE(index_list) != PyList_GET_SIZE(text_list)) {
        PyErr_SetString(PyExc_ValueError, "indices and texts differ in length");
        return NULL;
    }
    /* tuples: head_writes runs Python code, which must not be able to change what is read here */
    PyObject *indices = PyList_AsTuple(index_list);
    PyObject *texts = PyList_AsTuple(text_list);
    PyObject *out = NULL;
    Tokenizer t = {0};
    t.sass = sass;
    t.line_type = (PyTypeObject *)line_type;
    t.head_writes = head_writes;
    if (indices == NULL || texts == NULL)
        goto done;
    int handled = all_lines_handled(texts);
    if (handled <= 0) {
        if (handled == 0) {
            out = Py_None;
            Py_INCREF(out);
        }
        goto done;
    }
    if ((t.current = PyDict_New()) == NULL || (t.version = PyDict_New()) == NULL)
        goto done;
    Py_ssize_t n = PyTuple_GET_SIZE(texts);
    if ((out = PyList_New(n)) == NULL)
        goto done;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *line = tokenize_line(&t, PyTuple_GET_ITEM(indices, i), PyTuple_GET_ITEM(texts, i));
        if (line == NULL) {
            Py_CLEAR(out);
            goto done;
        }
        PyList_SET_ITEM(out, i, line);
    }
done:
    tokenizer_free(&t);
    Py_XDECREF(indices);
    Py_XDECREF(texts);
    return out;
}

/* ------------------------------------------------------------------ module */

static PyMethodDef methods[] = {
    {"clean_sass", clean_sass, METH_O,
     "clean_sass(text) -> (indices, texts) | None\n\nirscope.ir.normalize.clean_sass's lines unzipped; None "
     "unless text is ASCII without NUL."},
    {"clean_ptx", clean_ptx, METH_O,
     "clean_ptx(text) -> (indices, texts) | None\n\nirscope.ir.normalize.clean_ptx's lines unzipped; None "
     "unless text is ASCII without NUL."},
    {"tokenize", tokenize, METH_VARARGS,
     "tokenize(kind, indices, texts, line_type, head_writes) -> list | None\n\nirscope.diff.canonical.tokenize "
     "for kind 'ptx' or 'sass' (ignoring nothing); None unless every text is ASCII without NUL or newline."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    .m_name = "_native_tokens",
    .m_doc = "PTX and SASS listings cleaned and split at their names, as irscope's Python does it, in C.",
    .m_size = -1,
    .m_methods = methods,
};

PyMODINIT_FUNC PyInit__native_tokens(void) { return PyModule_Create(&module_def); }
