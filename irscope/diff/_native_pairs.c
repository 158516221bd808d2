/* The canonical diff's per-line steps of pairing names, in C (see canonical.py, which has each one
 * in Python too, with the same results: native.py chooses).
 *
 * Each step is a loop over the 10k-20k lines of a listing, done three or four times per diff; in
 * Python each line costs a few interpreter steps on top of the dict and set work, which is all
 * that is left here.
 *
 *   number(frames, reads, names, table, which=None) -> list[int]
 *       a line's signature: (frame, *(names.get(r) for r in reads)), numbered through ``table``
 *   touching(reads, changed) -> list[int]
 *       the lines that read a name in ``changed``
 *   written(lines, names, keep) -> list[str]
 *       each line's text with its keys shown as ``names`` says (its own text if ``keep`` has them all)
 *   votes(a, b, aligned, width, weight, counts, sign) -> None
 *       the votes of aligned lines added to (sign 1) or taken from (sign -1) ``counts``
 *   greedy(counts) -> dict
 *       names paired one to one, most votes first
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>

/* canonical.Line's fields, by position (a NamedTuple) */
enum { LINE_TEXT = 1, LINE_FRAME = 2, LINE_KEYS = 6, LINE_DEST = 7 };

/* The signature of one line: (frame, *(names.get(r) or None for r in reads)), numbered by ``table``
 * (a new key gets the table's size). A new reference to its number, or NULL. */
static PyObject *number_one(PyObject *frame, PyObject *reads, PyObject *names, PyObject *table)
{
    if (!PyList_Check(reads)) {
        PyErr_SetString(PyExc_TypeError, "reads must be lists");
        return NULL;
    }
    Py_ssize_t n = PyList_GET_SIZE(reads);
    PyObject *key = PyTuple_New(n + 1);
    if (key == NULL)
        return NULL;
    Py_INCREF(frame);
    PyTuple_SET_ITEM(key, 0, frame);
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *name = PyDict_GetItemWithError(names, PyList_GET_ITEM(reads, k));
        if (name == NULL) {
            if (PyErr_Occurred()) {
                Py_DECREF(key);
                return NULL;
            }
            name = Py_None;
        }
        Py_INCREF(name);
        PyTuple_SET_ITEM(key, k + 1, name);
    }
    PyObject *found = PyDict_GetItemWithError(table, key);
    if (found != NULL) {
        Py_INCREF(found);
        Py_DECREF(key);
        return found;
    }
    if (PyErr_Occurred()) {
        Py_DECREF(key);
        return NULL;
    }
    PyObject *size = PyLong_FromSsize_t(PyDict_GET_SIZE(table));
    if (size == NULL || PyDict_SetItem(table, key, size) < 0) {
        Py_XDECREF(size);
        Py_DECREF(key);
        return NULL;
    }
    Py_DECREF(key);
    return size;
}

static PyObject *number(PyObject *self, PyObject *args)
{
    PyObject *frames, *reads, *names, *table, *which = Py_None;
    if (!PyArg_ParseTuple(args, "O!O!O!O!|O", &PyList_Type, &frames, &PyList_Type, &reads, &PyDict_Type, &names,
                          &PyDict_Type, &table, &which))
        return NULL;
    if (PyList_GET_SIZE(frames) != PyList_GET_SIZE(reads)) {
        PyErr_SetString(PyExc_ValueError, "frames and reads differ in length");
        return NULL;
    }
    if (which != Py_None && !PyList_Check(which)) {
        PyErr_SetString(PyExc_TypeError, "which must be a list or None");
        return NULL;
    }
    Py_ssize_t lines = PyList_GET_SIZE(frames);
    Py_ssize_t count = which == Py_None ? lines : PyList_GET_SIZE(which);
    PyObject *out = PyList_New(count);
    if (out == NULL)
        return NULL;
    for (Py_ssize_t n = 0; n < count; n++) {
        Py_ssize_t i = n;
        if (which != Py_None) {
            i = PyLong_AsSsize_t(PyList_GET_ITEM(which, n));
            if (i == -1 && PyErr_Occurred())
                goto fail;
            if (i < 0 || i >= lines) {
                PyErr_SetString(PyExc_IndexError, "line index out of range");
                goto fail;
            }
        }
        PyObject *signature = number_one(PyList_GET_ITEM(frames, i), PyList_GET_ITEM(reads, i), names, table);
        if (signature == NULL)
            goto fail;
        PyList_SET_ITEM(out, n, signature);
    }
    return out;
fail:
    Py_DECREF(out);
    return NULL;
}

/* 1 if the list ``reads`` has an element in the set ``changed``, 0 if not, -1 on error */
static int reads_any(PyObject *reads, PyObject *changed)
{
    if (!PyList_Check(reads)) {
        PyErr_SetString(PyExc_TypeError, "reads must be lists");
        return -1;
    }
    for (Py_ssize_t k = 0; k < PyList_GET_SIZE(reads); k++) {
        int found = PySet_Contains(changed, PyList_GET_ITEM(reads, k));
        if (found != 0)
            return found;
    }
    return 0;
}

static PyObject *touching(PyObject *self, PyObject *args)
{
    PyObject *reads, *changed;
    if (!PyArg_ParseTuple(args, "O!O", &PyList_Type, &reads, &changed))
        return NULL;
    if (!PyAnySet_Check(changed)) {
        PyErr_SetString(PyExc_TypeError, "changed must be a set");
        return NULL;
    }
    PyObject *out = PyList_New(0);
    if (out == NULL)
        return NULL;
    if (PySet_GET_SIZE(changed) == 0)
        return out;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(reads); i++) {
        int found = reads_any(PyList_GET_ITEM(reads, i), changed);
        if (found < 0)
            goto fail;
        if (found) {
            PyObject *index = PyLong_FromSsize_t(i);
            if (index == NULL || PyList_Append(out, index) < 0) {
                Py_XDECREF(index);
                goto fail;
            }
            Py_DECREF(index);
        }
    }
    return out;
fail:
    Py_DECREF(out);
    return NULL;
}

/* ``frame`` with its k-th NUL replaced by ``shown[k]`` (what Line.written's str.format gives). */
static PyObject *fill_frame(PyObject *frame, PyObject **shown, Py_ssize_t count)
{
    Py_ssize_t frame_length = PyUnicode_GET_LENGTH(frame);
    Py_ssize_t length = frame_length - count;
    Py_UCS4 widest = PyUnicode_MAX_CHAR_VALUE(frame);
    for (Py_ssize_t k = 0; k < count; k++) {
        length += PyUnicode_GET_LENGTH(shown[k]);
        if (PyUnicode_MAX_CHAR_VALUE(shown[k]) > widest)
            widest = PyUnicode_MAX_CHAR_VALUE(shown[k]);
    }
    PyObject *out = PyUnicode_New(length, widest);
    if (out == NULL)
        return NULL;
    Py_ssize_t from = 0, to = 0;
    for (Py_ssize_t k = 0; k <= count; k++) {
        Py_ssize_t nul = frame_length;
        if (k < count) {
            nul = PyUnicode_FindChar(frame, 0, from, frame_length, 1);
            if (nul < 0) {  /* -2: an error; -1: fewer separators than names */
                if (nul == -1)
                    PyErr_SetString(PyExc_ValueError, "a frame has fewer separators than its line has names");
                Py_DECREF(out);
                return NULL;
            }
        }
        if (nul > from && PyUnicode_CopyCharacters(out, to, frame, from, nul - from) < 0) {
            Py_DECREF(out);
            return NULL;
        }
        to += nul - from;
        from = nul + 1;
        if (k < count) {
            Py_ssize_t n = PyUnicode_GET_LENGTH(shown[k]);
            if (n && PyUnicode_CopyCharacters(out, to, shown[k], 0, n) < 0) {
                Py_DECREF(out);
                return NULL;
            }
            to += n;
        }
    }
    return out;
}

/* One line's text in the shared vocabulary: its own if ``keep`` has all its keys. A new reference. */
static PyObject *written_one(PyObject *line, PyObject *names, PyObject *keep)
{
    if (!PyTuple_Check(line) || PyTuple_GET_SIZE(line) <= LINE_KEYS) {
        PyErr_SetString(PyExc_TypeError, "lines must be canonical.Line tuples");
        return NULL;
    }
    PyObject *text = PyTuple_GET_ITEM(line, LINE_TEXT), *frame = PyTuple_GET_ITEM(line, LINE_FRAME);
    PyObject *keys = PyTuple_GET_ITEM(line, LINE_KEYS);
    if (!PyList_Check(keys) || !PyUnicode_Check(frame)) {
        PyErr_SetString(PyExc_TypeError, "a Line's keys must be a list and its frame a str");
        return NULL;
    }
    Py_ssize_t count = PyList_GET_SIZE(keys);
    int all_kept = 1;
    for (Py_ssize_t k = 0; k < count && all_kept; k++) {
        int found = PySet_Contains(keep, PyList_GET_ITEM(keys, k));
        if (found < 0)
            return NULL;
        all_kept = found;
    }
    if (all_kept) {
        Py_INCREF(text);
        return text;
    }
    PyObject *small[16];
    PyObject **shown = count <= 16 ? small : PyMem_Malloc(count * sizeof(PyObject *));
    if (shown == NULL)
        return PyErr_NoMemory();
    PyObject *out = NULL;
    for (Py_ssize_t k = 0; k < count; k++) {
        shown[k] = PyDict_GetItemWithError(names, PyList_GET_ITEM(keys, k));  /* borrowed */
        if (shown[k] == NULL) {
            if (!PyErr_Occurred())
                PyErr_SetObject(PyExc_KeyError, PyList_GET_ITEM(keys, k));
            goto done;
        }
        if (!PyUnicode_Check(shown[k])) {
            PyErr_SetString(PyExc_TypeError, "names must be str");
            goto done;
        }
    }
    out = fill_frame(frame, shown, count);
done:
    if (shown != small)
        PyMem_Free(shown);
    return out;
}

static PyObject *written(PyObject *self, PyObject *args)
{
    PyObject *lines, *names, *keep;
    if (!PyArg_ParseTuple(args, "O!O!O", &PyList_Type, &lines, &PyDict_Type, &names, &keep))
        return NULL;
    if (!PyAnySet_Check(keep)) {
        PyErr_SetString(PyExc_TypeError, "keep must be a set");
        return NULL;
    }
    Py_ssize_t count = PyList_GET_SIZE(lines);
    PyObject *out = PyList_New(count);
    if (out == NULL)
        return NULL;
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *text = written_one(PyList_GET_ITEM(lines, i), names, keep);
        if (text == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyList_SET_ITEM(out, i, text);
    }
    return out;
}

/* counts[(x, y)] += amount (a new key starts from 0). 0, or -1 on error. */
static int add_vote(PyObject *counts, PyObject *x, PyObject *y, long amount)
{
    PyObject *key = PyTuple_Pack(2, x, y);
    if (key == NULL)
        return -1;
    long now = 0;
    PyObject *old = PyDict_GetItemWithError(counts, key);
    if (old != NULL) {
        now = PyLong_AsLong(old);
        if (now == -1 && PyErr_Occurred()) {
            Py_DECREF(key);
            return -1;
        }
    } else if (PyErr_Occurred()) {
        Py_DECREF(key);
        return -1;
    }
    PyObject *value = PyLong_FromLong(now + amount);
    int status = value == NULL ? -1 : PyDict_SetItem(counts, key, value);
    Py_XDECREF(value);
    Py_DECREF(key);
    return status;
}

/* The votes of one aligned pair of lines: each name of x with the name of y at the same place, and
 * their definitions weight - 1 more where both define at the same place. */
static int line_votes(PyObject *x, PyObject *y, long weight, PyObject *counts, long sign)
{
    if (!PyTuple_Check(x) || !PyTuple_Check(y) || PyTuple_GET_SIZE(x) <= LINE_DEST
            || PyTuple_GET_SIZE(y) <= LINE_DEST) {
        PyErr_SetString(PyExc_TypeError, "lines must be canonical.Line tuples");
        return -1;
    }
    PyObject *keys_x = PyTuple_GET_ITEM(x, LINE_KEYS), *keys_y = PyTuple_GET_ITEM(y, LINE_KEYS);
    if (!PyList_Check(keys_x) || !PyList_Check(keys_y)) {
        PyErr_SetString(PyExc_TypeError, "a Line's keys must be a list");
        return -1;
    }
    Py_ssize_t n = PyList_GET_SIZE(keys_x) < PyList_GET_SIZE(keys_y) ? PyList_GET_SIZE(keys_x) : PyList_GET_SIZE(keys_y);
    for (Py_ssize_t k = 0; k < n; k++)
        if (add_vote(counts, PyList_GET_ITEM(keys_x, k), PyList_GET_ITEM(keys_y, k), sign) < 0)
            return -1;
    Py_ssize_t dest_x = PyLong_AsSsize_t(PyTuple_GET_ITEM(x, LINE_DEST));
    Py_ssize_t dest_y = PyLong_AsSsize_t(PyTuple_GET_ITEM(y, LINE_DEST));
    if ((dest_x == -1 || dest_y == -1) && PyErr_Occurred())
        return -1;
    /* the pair of definitions is among the pairs above (a destination is one of the line's names), so
     * its key is counted there first: the counts keep the order Python's two passes give them */
    if (dest_x >= 0 && dest_x == dest_y && dest_x < n && weight > 1)
        return add_vote(counts, PyList_GET_ITEM(keys_x, dest_x), PyList_GET_ITEM(keys_y, dest_y),
                        sign * (weight - 1));
    return 0;
}

static PyObject *votes(PyObject *self, PyObject *args)
{
    PyObject *a, *b, *aligned, *counts;
    Py_ssize_t width;
    long weight, sign;
    if (!PyArg_ParseTuple(args, "O!O!O!nlO!l", &PyList_Type, &a, &PyList_Type, &b, &PyList_Type, &aligned, &width,
                          &weight, &PyDict_Type, &counts, &sign))
        return NULL;
    if (width <= 0) {
        PyErr_SetString(PyExc_ValueError, "width must be positive");
        return NULL;
    }
    for (Py_ssize_t n = 0; n < PyList_GET_SIZE(aligned); n++) {
        Py_ssize_t pair = PyLong_AsSsize_t(PyList_GET_ITEM(aligned, n));
        if (pair == -1 && PyErr_Occurred())
            return NULL;
        Py_ssize_t i = pair / width, j = pair % width;
        if (pair < 0 || i >= PyList_GET_SIZE(a) || j >= PyList_GET_SIZE(b)) {
            PyErr_SetString(PyExc_IndexError, "an aligned pair out of range");
            return NULL;
        }
        if (line_votes(PyList_GET_ITEM(a, i), PyList_GET_ITEM(b, j), weight, counts, sign) < 0)
            return NULL;
    }
    Py_RETURN_NONE;
}

/* A pair with positive votes, and its place in the counts (most_common breaks ties by it) */
typedef struct {
    PyObject *pair;  /* borrowed from the counts */
    long votes;
    Py_ssize_t place;
} Voted;

static int most_votes_first(const void *p, const void *q)
{
    const Voted *x = p, *y = q;
    if (x->votes != y->votes)
        return x->votes > y->votes ? -1 : 1;
    return x->place < y->place ? -1 : x->place > y->place;
}

/* ``counts``: (x, y) -> votes. Most votes first (ties in the counts' order, as Counter.most_common
 * gives them), each x pairs with y where neither is paired yet, while votes are positive. Only the
 * positive pairs are sorted: a diff's counts keep every pair ever voted for, most at zero. */
static PyObject *greedy(PyObject *self, PyObject *args)
{
    PyObject *counts;
    if (!PyArg_ParseTuple(args, "O!", &PyDict_Type, &counts))
        return NULL;
    Py_ssize_t size = PyDict_GET_SIZE(counts), found = 0, position = 0;
    Voted *voted = PyMem_Malloc((size_t)(size ? size : 1) * sizeof(Voted));
    PyObject *mapping = PyDict_New(), *taken = PySet_New(NULL), *pair, *value;
    if (voted == NULL || mapping == NULL || taken == NULL) {
        if (voted == NULL)
            PyErr_NoMemory();
        goto fail;
    }
    for (Py_ssize_t place = 0; PyDict_Next(counts, &position, &pair, &value); place++) {
        long votes = PyLong_AsLong(value);
        if (votes == -1 && PyErr_Occurred())
            goto fail;
        if (!PyTuple_Check(pair) || PyTuple_GET_SIZE(pair) != 2) {
            PyErr_SetString(PyExc_TypeError, "counts must be keyed by (x, y) pairs");
            goto fail;
        }
        if (votes > 0 && found < size)
            voted[found++] = (Voted){pair, votes, place};
    }
    qsort(voted, (size_t)found, sizeof(Voted), most_votes_first);
    for (Py_ssize_t n = 0; n < found; n++) {
        PyObject *x = PyTuple_GET_ITEM(voted[n].pair, 0), *y = PyTuple_GET_ITEM(voted[n].pair, 1);
        int mapped = PyDict_Contains(mapping, x);
        if (mapped < 0)
            goto fail;
        if (mapped)
            continue;
        int is_taken = PySet_Contains(taken, y);
        if (is_taken < 0)
            goto fail;
        if (is_taken)
            continue;
        if (PyDict_SetItem(mapping, x, y) < 0 || PySet_Add(taken, y) < 0)
            goto fail;
    }
    PyMem_Free(voted);
    Py_DECREF(taken);
    return mapping;
fail:
    PyMem_Free(voted);
    Py_XDECREF(mapping);
    Py_XDECREF(taken);
    return NULL;
}

static PyMethodDef methods[] = {
    {"number", number, METH_VARARGS,
     "number(frames, reads, names, table, which=None) -> list[int]: each line's (frame, *names.get(read)), "
     "numbered by table."},
    {"touching", touching, METH_VARARGS, "touching(reads, changed) -> list[int]: lines reading a name in changed."},
    {"written", written, METH_VARARGS,
     "written(lines, names, keep) -> list[str]: each Line's text with its keys shown by names."},
    {"votes", votes, METH_VARARGS,
     "votes(a, b, aligned, width, weight, counts, sign): the votes of the aligned pairs i * width + j added to counts "
     "times sign."},
    {"greedy", greedy, METH_VARARGS, "greedy(counts) -> dict: names paired one to one, most votes first."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_native_pairs",
                                    "The canonical diff's per-line pairing steps (see canonical.py).", -1, methods,
                                    NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__native_pairs(void)
{
    return PyModule_Create(&module);
}
