/* The patience alignment of algorithm.py in C, with the same results: see that module for what it
 * does and why. Here only the how.
 *
 *   align(a, b, repeats, previous, changed_a, changed_b) -> list of (tag, i1, i2, j1, j2)
 *
 * ``a`` and ``b`` are lists of small non-negative ints (algorithm.py numbers lines before it calls):
 * a line's count, its first occurrence and so on are kept in arrays indexed by its number, set up
 * once per call and put back to zero after each region, so that a region costs its own length.
 * With ``previous`` None it is algorithm.opcodes; with a list of opcodes it is algorithm.realign
 * (``changed_a``/``changed_b``: the sets of changed lines, or None).
 *
 * The opcodes are made as the Python makes them (the same list before _merge, then the same merge),
 * difflib's SequenceMatcher included for small regions without anchors.
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdlib.h>
#include <string.h>

#define SMALL_REGION 20000  /* algorithm.SMALL_REGION */
#define MAX_DEPTH 20000     /* deeper than Python's own recursion limit lets algorithm._diff go */

enum { EQUAL, REPLACE, DELETE, INSERT };
static PyObject *tag_names[4];

typedef struct {
    int tag;
    Py_ssize_t i1, i2, j1, j2;
} Op;

typedef struct {
    Op *ops;
    Py_ssize_t n, cap;
} Ops;

typedef struct {
    const int *a, *b;
    Py_ssize_t na, nb;
    int repeats;
    /* indexed by a line's number, zero between regions */
    int *count_a, *count_b, *wanted, *cursor;
    /* indexed by position in b: the next position with the same number (in the current region) */
    Py_ssize_t *next_b;
    /* scratch for anchors and difflib, grown as needed */
    Py_ssize_t *pairs_i, *pairs_j, *tails, *tail_index, *previous;
    Py_ssize_t pairs_cap;
    Py_ssize_t *row, *row_before;
    Py_ssize_t row_cap;
} Aligner;

/* Room for one more item in a growing array (*items, *cap) holding n: 0, or -1 with MemoryError. */
static int make_room(void **items, Py_ssize_t *cap, Py_ssize_t n, size_t size)
{
    if (n < *cap)
        return 0;
    Py_ssize_t grown_cap = *cap ? *cap * 2 : 64;
    void *grown = PyMem_Realloc(*items, (size_t)grown_cap * size);
    if (grown == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    *items = grown;
    *cap = grown_cap;
    return 0;
}

static int push(Ops *out, int tag, Py_ssize_t i1, Py_ssize_t i2, Py_ssize_t j1, Py_ssize_t j2)
{
    if (make_room((void **)&out->ops, &out->cap, out->n, sizeof(Op)) < 0)
        return -1;
    out->ops[out->n++] = (Op){tag, i1, i2, j1, j2};
    return 0;
}

/* ------------------------------------------------------------------ difflib.SequenceMatcher */

typedef struct {
    Py_ssize_t i, j, k;
} Block;

typedef struct {
    Block *blocks;
    Py_ssize_t n, cap;
} Blocks;

static int push_block(Blocks *out, Py_ssize_t i, Py_ssize_t j, Py_ssize_t k)
{
    if (make_room((void **)&out->blocks, &out->cap, out->n, sizeof(Block)) < 0)
        return -1;
    out->blocks[out->n++] = (Block){i, j, k};
    return 0;
}

static int grow_rows(Aligner *al, Py_ssize_t n)
{
    if (n <= al->row_cap)
        return 0;
    Py_ssize_t *row = PyMem_Realloc(al->row, (size_t)n * sizeof(Py_ssize_t));
    if (row == NULL)
        return PyErr_NoMemory(), -1;
    al->row = row;
    Py_ssize_t *before = PyMem_Realloc(al->row_before, (size_t)n * sizeof(Py_ssize_t));
    if (before == NULL)
        return PyErr_NoMemory(), -1;
    al->row_before = before;
    al->row_cap = n;
    return 0;
}

/* find_longest_match without junk: the longest common run, the one ending first in a (then in b);
 * ``row_before[j - blo]`` is the length of the run ending at (i - 1, j). */
static Block longest_match(Aligner *al, const int *a, const int *b, Py_ssize_t alo, Py_ssize_t ahi,
                           Py_ssize_t blo, Py_ssize_t bhi)
{
    Block best = {alo, blo, 0};
    Py_ssize_t width = bhi - blo;
    Py_ssize_t *before = al->row_before, *row = al->row;
    memset(before, 0, (size_t)width * sizeof(Py_ssize_t));
    for (Py_ssize_t i = alo; i < ahi; i++) {
        for (Py_ssize_t j = blo; j < bhi; j++) {
            if (a[i] != b[j]) {
                row[j - blo] = 0;
                continue;
            }
            Py_ssize_t k = (j > blo ? before[j - blo - 1] : 0) + 1;
            row[j - blo] = k;
            if (k > best.k)
                best = (Block){i - k + 1, j - k + 1, k};
        }
        Py_ssize_t *swap = before;
        before = row;
        row = swap;
    }
    return best;
}

static int compare_blocks(const void *x, const void *y)
{
    const Block *p = x, *q = y;
    if (p->i != q->i)
        return p->i < q->i ? -1 : 1;
    if (p->j != q->j)
        return p->j < q->j ? -1 : 1;
    return p->k < q->k ? -1 : p->k > q->k;
}

/* SequenceMatcher(None, a[a0:a1], b[b0:b1], autojunk=False).get_opcodes(), offset to the listings */
static int difflib_opcodes(Aligner *al, Py_ssize_t a0, Py_ssize_t a1, Py_ssize_t b0, Py_ssize_t b1, Ops *out)
{
    const int *a = al->a + a0, *b = al->b + b0;
    Py_ssize_t la = a1 - a0, lb = b1 - b0;
    if (grow_rows(al, lb + 1) < 0)
        return -1;
    Blocks found = {NULL, 0, 0}, queue = {NULL, 0, 0};
    int status = -1;
    if (push_block(&queue, 0, 0, 0) < 0)  /* a range: (alo, ahi) in i, j; (blo, bhi) in k and the next */
        goto done;
    /* the queue holds (alo, ahi, blo, bhi) as two blocks */
    if (push_block(&queue, la, 0, lb) < 0)
        goto done;
    while (queue.n) {
        Block hi = queue.blocks[--queue.n], lo = queue.blocks[--queue.n];
        Py_ssize_t alo = lo.i, blo = lo.k, ahi = hi.i, bhi = hi.k;
        Block m = longest_match(al, a, b, alo, ahi, blo, bhi);
        if (!m.k)
            continue;
        if (push_block(&found, m.i, m.j, m.k) < 0)
            goto done;
        if (alo < m.i && blo < m.j)
            if (push_block(&queue, alo, 0, blo) < 0 || push_block(&queue, m.i, 0, m.j) < 0)
                goto done;
        if (m.i + m.k < ahi && m.j + m.k < bhi)
            if (push_block(&queue, m.i + m.k, 0, m.j + m.k) < 0 || push_block(&queue, ahi, 0, bhi) < 0)
                goto done;
    }
    qsort(found.blocks, (size_t)found.n, sizeof(Block), compare_blocks);
    /* adjacent blocks joined, then the opcodes between them (get_matching_blocks, get_opcodes) */
    Blocks joined = {NULL, 0, 0};
    Py_ssize_t i1 = 0, j1 = 0, k1 = 0;
    for (Py_ssize_t n = 0; n < found.n; n++) {
        Block x = found.blocks[n];
        if (i1 + k1 == x.i && j1 + k1 == x.j) {
            k1 += x.k;
            continue;
        }
        if (k1 && push_block(&joined, i1, j1, k1) < 0)
            goto joined_done;
        i1 = x.i, j1 = x.j, k1 = x.k;
    }
    if (k1 && push_block(&joined, i1, j1, k1) < 0)
        goto joined_done;
    if (push_block(&joined, la, lb, 0) < 0)
        goto joined_done;
    Py_ssize_t i = 0, j = 0;
    for (Py_ssize_t n = 0; n < joined.n; n++) {
        Block x = joined.blocks[n];
        int tag = -1;
        if (i < x.i && j < x.j)
            tag = REPLACE;
        else if (i < x.i)
            tag = DELETE;
        else if (j < x.j)
            tag = INSERT;
        if (tag >= 0 && push(out, tag, a0 + i, a0 + x.i, b0 + j, b0 + x.j) < 0)
            goto joined_done;
        i = x.i + x.k, j = x.j + x.k;
        if (x.k && push(out, EQUAL, a0 + x.i, a0 + i, b0 + x.j, b0 + j) < 0)
            goto joined_done;
    }
    status = 0;
joined_done:
    PyMem_Free(joined.blocks);
done:
    PyMem_Free(found.blocks);
    PyMem_Free(queue.blocks);
    return status;
}

/* ------------------------------------------------------------------ patience anchors */

/* bisect.bisect_left: where x goes in the sorted xs[0:n], before any equal to it */
static Py_ssize_t bisect_left(const Py_ssize_t *xs, Py_ssize_t n, Py_ssize_t x)
{
    Py_ssize_t lo = 0, hi = n;
    while (lo < hi) {
        Py_ssize_t mid = (lo + hi) / 2;
        if (xs[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static int grow_pairs(Aligner *al, Py_ssize_t n)
{
    if (n <= al->pairs_cap)
        return 0;
    Py_ssize_t **arrays[] = {&al->pairs_i, &al->pairs_j, &al->tails, &al->tail_index, &al->previous};
    for (size_t k = 0; k < sizeof(arrays) / sizeof(arrays[0]); k++) {
        Py_ssize_t *grown = PyMem_Realloc(*arrays[k], (size_t)n * sizeof(Py_ssize_t));
        if (grown == NULL)
            return PyErr_NoMemory(), -1;
        *arrays[k] = grown;
    }
    al->pairs_cap = n;
    return 0;
}

/* algorithm._anchors: the anchors' count (their i in pairs_i, j in pairs_j, in order), or -1. Lines
 * unique on both sides; where none are and repeats > 1, lines as frequent on both sides (at most
 * ``repeats`` times), k-th occurrences paired; the longest run increasing in both. */
static Py_ssize_t anchors(Aligner *al, Py_ssize_t a0, Py_ssize_t a1, Py_ssize_t b0, Py_ssize_t b1)
{
    const int *a = al->a, *b = al->b;
    int *count_a = al->count_a, *count_b = al->count_b, *wanted = al->wanted, *cursor = al->cursor;
    Py_ssize_t found = 0;
    for (Py_ssize_t i = a0; i < a1; i++)
        count_a[a[i]]++;
    for (Py_ssize_t j = b0; j < b1; j++)
        count_b[b[j]]++;
    int unique = 0;
    for (Py_ssize_t i = a0; i < a1 && !unique; i++)
        unique = count_a[a[i]] == 1 && count_b[a[i]] == 1;
    for (Py_ssize_t i = a0; i < a1; i++) {
        int x = a[i], ca = count_a[x], cb = count_b[x];
        wanted[x] = unique ? (ca == 1 && cb == 1) : (al->repeats > 1 && cb >= 1 && ca <= al->repeats && cb == ca);
    }
    /* the k-th occurrence in b of each wanted line: its first, then each one's next */
    for (Py_ssize_t j = b1 - 1; j >= b0; j--) {
        int x = b[j];
        if (!wanted[x])
            continue;
        al->next_b[j] = cursor[x] ? cursor[x] - 1 : -1;
        cursor[x] = (int)(j + 1);  /* 0: none yet */
    }
    if (grow_pairs(al, a1 - a0 + 1) < 0) {
        found = -1;
        goto reset;
    }
    for (Py_ssize_t i = a0; i < a1; i++) {
        int x = a[i];
        if (!wanted[x])
            continue;
        Py_ssize_t j = cursor[x] - 1;  /* counts are equal on both sides: an occurrence is left */
        cursor[x] = al->next_b[j] >= 0 ? (int)(al->next_b[j] + 1) : 0;
        al->pairs_i[found] = i;
        al->pairs_j[found] = j;
        found++;
    }
    if (found) {
        /* longest increasing run of the b positions (bisect_left on the tails, as the Python) */
        Py_ssize_t length = 0;
        for (Py_ssize_t n = 0; n < found; n++) {
            Py_ssize_t j = al->pairs_j[n], lo = bisect_left(al->tails, length, j);
            al->tails[lo] = j;
            al->tail_index[lo] = n;
            if (lo == length)
                length++;
            al->previous[n] = lo ? al->tail_index[lo - 1] : -1;
        }
        /* the chain, from its last pair back, written over the front of pairs_* in order */
        Py_ssize_t *chain_i = al->tails;  /* the tails are not needed any more */
        Py_ssize_t n = al->tail_index[length - 1];
        for (Py_ssize_t k = length - 1; k >= 0; k--) {
            chain_i[k] = n;
            n = al->previous[n];
        }
        for (Py_ssize_t k = 0; k < length; k++) {  /* chain_i[k] >= k: nothing is overwritten before read */
            Py_ssize_t m = chain_i[k];
            al->pairs_i[k] = al->pairs_i[m];
            al->pairs_j[k] = al->pairs_j[m];
        }
        found = length;
    }
reset:
    for (Py_ssize_t i = a0; i < a1; i++) {
        count_a[a[i]] = 0;
        wanted[a[i]] = 0;
        cursor[a[i]] = 0;
    }
    for (Py_ssize_t j = b0; j < b1; j++) {
        count_b[b[j]] = 0;
        cursor[b[j]] = 0;
    }
    return found;
}

/* ------------------------------------------------------------------ the recursion */

static int one_line(Aligner *al, Py_ssize_t a0, Py_ssize_t a1, Py_ssize_t b0, Py_ssize_t b1, Ops *out)
{
    const int *a = al->a, *b = al->b;
    if (a1 - a0 == 1) {
        for (Py_ssize_t j = b0; j < b1; j++)
            if (b[j] == a[a0])
                return push(out, INSERT, a0, a0, b0, j) < 0 || push(out, EQUAL, a0, a1, j, j + 1) < 0
                       || push(out, INSERT, a1, a1, j + 1, b1) < 0 ? -1 : 0;
        return push(out, REPLACE, a0, a1, b0, b1);
    }
    for (Py_ssize_t i = a0; i < a1; i++)
        if (a[i] == b[b0])
            return push(out, DELETE, a0, i, b0, b0) < 0 || push(out, EQUAL, i, i + 1, b0, b1) < 0
                   || push(out, DELETE, i + 1, a1, b1, b1) < 0 ? -1 : 0;
    return push(out, REPLACE, a0, a1, b0, b1);
}

static int diff(Aligner *al, Py_ssize_t a0, Py_ssize_t a1, Py_ssize_t b0, Py_ssize_t b1, Ops *out, int depth)
{
    const int *a = al->a, *b = al->b;
    if (depth > MAX_DEPTH) {
        PyErr_SetString(PyExc_RecursionError, "alignment nested too deep");
        return -1;
    }
    Py_ssize_t start_a = a0, start_b = b0;
    while (a0 < a1 && b0 < b1 && a[a0] == b[b0])
        a0++, b0++;
    if (a0 > start_a && push(out, EQUAL, start_a, a0, start_b, b0) < 0)
        return -1;
    Py_ssize_t end_a = a1, end_b = b1;
    while (a1 > a0 && b1 > b0 && a[a1 - 1] == b[b1 - 1])
        a1--, b1--;
    if (a0 == a1 || b0 == b1) {
        if (a0 < a1 && push(out, DELETE, a0, a1, b0, b0) < 0)
            return -1;
        if (a0 == a1 && b0 < b1 && push(out, INSERT, a0, a0, b0, b1) < 0)
            return -1;
    } else if (a1 - a0 == 1 || b1 - b0 == 1) {
        if (one_line(al, a0, a1, b0, b1, out) < 0)
            return -1;
    } else {
        Py_ssize_t count = anchors(al, a0, a1, b0, b1);
        if (count < 0)
            return -1;
        if (count) {
            /* the anchors are copied out: the recursion below reuses the scratch arrays */
            Py_ssize_t *anchor = PyMem_Malloc((size_t)count * 2 * sizeof(Py_ssize_t));
            if (anchor == NULL)
                return PyErr_NoMemory(), -1;
            memcpy(anchor, al->pairs_i, (size_t)count * sizeof(Py_ssize_t));
            memcpy(anchor + count, al->pairs_j, (size_t)count * sizeof(Py_ssize_t));
            Py_ssize_t i = a0, j = b0;
            int status = 0;
            for (Py_ssize_t n = 0; n < count && status == 0; n++) {
                Py_ssize_t ai = anchor[n], bj = anchor[count + n];
                if ((ai > i || bj > j) && diff(al, i, ai, j, bj, out, depth + 1) < 0) {
                    status = -1;
                    break;
                }
                Op *last = out->n ? &out->ops[out->n - 1] : NULL;
                if (last != NULL && last->tag == EQUAL && last->i2 == ai && last->j2 == bj) {
                    last->i2 = ai + 1;  /* a run of anchors is one opcode */
                    last->j2 = bj + 1;
                } else if (push(out, EQUAL, ai, ai + 1, bj, bj + 1) < 0) {
                    status = -1;
                }
                i = ai + 1, j = bj + 1;
            }
            PyMem_Free(anchor);
            if (status < 0 || diff(al, i, a1, j, b1, out, depth + 1) < 0)
                return -1;
        } else if ((a1 - a0) * (b1 - b0) <= SMALL_REGION) {
            if (difflib_opcodes(al, a0, a1, b0, b1, out) < 0)
                return -1;
        } else if (push(out, REPLACE, a0, a1, b0, b1) < 0) {
            return -1;
        }
    }
    if (a1 < end_a && push(out, EQUAL, a1, end_a, b1, end_b) < 0)
        return -1;
    return 0;
}

/* ------------------------------------------------------------------ realign */

typedef struct {
    Py_ssize_t *lines;  /* sorted */
    Py_ssize_t n;
    int known;          /* 0: None was given (every stretch is aligned again) */
} Changed;

static int compare_ssize(const void *x, const void *y)
{
    Py_ssize_t p = *(const Py_ssize_t *)x, q = *(const Py_ssize_t *)y;
    return p < q ? -1 : p > q;
}

static int read_changed(PyObject *set, Changed *out)
{
    out->lines = NULL;
    out->n = 0;
    out->known = set != Py_None;
    if (!out->known)
        return 0;
    if (!PyAnySet_Check(set)) {
        PyErr_SetString(PyExc_TypeError, "changed lines must be a set or None");
        return -1;
    }
    Py_ssize_t size = PySet_GET_SIZE(set);
    out->lines = PyMem_Malloc((size_t)(size ? size : 1) * sizeof(Py_ssize_t));
    if (out->lines == NULL)
        return PyErr_NoMemory(), -1;
    PyObject *iterator = PyObject_GetIter(set), *item;
    if (iterator == NULL)
        return -1;
    while ((item = PyIter_Next(iterator)) != NULL) {
        Py_ssize_t line = PyLong_AsSsize_t(item);
        Py_DECREF(item);
        if (line == -1 && PyErr_Occurred()) {
            Py_DECREF(iterator);
            return -1;
        }
        if (out->n < size)
            out->lines[out->n++] = line;
    }
    Py_DECREF(iterator);
    if (PyErr_Occurred())
        return -1;
    qsort(out->lines, (size_t)out->n, sizeof(Py_ssize_t), compare_ssize);
    return 0;
}

/* algorithm._untouched: no changed line in [start, end) */
static int untouched(const Changed *changed, Py_ssize_t start, Py_ssize_t end)
{
    Py_ssize_t first = bisect_left(changed->lines, changed->n, start);
    return first == changed->n || changed->lines[first] >= end;
}

typedef struct {
    Aligner *al;
    Ops *out, pending;
    Changed changed_a, changed_b;
    Py_ssize_t gap_a, gap_b;
} Realign;

static int close_stretch(Realign *r, Py_ssize_t i, Py_ssize_t j)
{
    int status = 0;
    if (i > r->gap_a || j > r->gap_b) {
        if (r->changed_a.known && r->pending.n && untouched(&r->changed_a, r->gap_a, i)
                && untouched(&r->changed_b, r->gap_b, j)) {
            for (Py_ssize_t n = 0; n < r->pending.n && status == 0; n++) {
                Op op = r->pending.ops[n];
                status = push(r->out, op.tag, op.i1, op.i2, op.j1, op.j2);
            }
        } else {
            status = diff(r->al, r->gap_a, i, r->gap_b, j, r->out, 0);
        }
    }
    r->pending.n = 0;
    return status;
}

/* previous: a list of (tag, i1, i2, j1, j2) */
static int realign(Aligner *al, PyObject *previous, Realign *r)
{
    const int *a = al->a, *b = al->b;
    for (Py_ssize_t n = 0; n < PyList_GET_SIZE(previous); n++) {
        PyObject *item = PyList_GET_ITEM(previous, n);
        if (!PyTuple_Check(item) || PyTuple_GET_SIZE(item) != 5) {
            PyErr_SetString(PyExc_TypeError, "previous opcodes must be 5-tuples");
            return -1;
        }
        Op op;
        op.tag = -1;
        for (int t = 0; t < 4; t++) {
            int same = PyObject_RichCompareBool(PyTuple_GET_ITEM(item, 0), tag_names[t], Py_EQ);
            if (same < 0)
                return -1;
            if (same) {
                op.tag = t;
                break;
            }
        }
        Py_ssize_t *fields[] = {&op.i1, &op.i2, &op.j1, &op.j2};
        for (int f = 0; f < 4; f++) {
            *fields[f] = PyLong_AsSsize_t(PyTuple_GET_ITEM(item, f + 1));
            if (*fields[f] == -1 && PyErr_Occurred())
                return -1;
        }
        if (op.tag < 0 || op.i1 < 0 || op.i2 < op.i1 || op.i2 > al->na || op.j1 < 0 || op.j2 < op.j1
                || op.j2 > al->nb) {
            PyErr_SetString(PyExc_ValueError, "previous opcodes out of range");
            return -1;
        }
        if (op.tag != EQUAL) {
            if (push(&r->pending, op.tag, op.i1, op.i2, op.j1, op.j2) < 0)
                return -1;
            continue;
        }
        Py_ssize_t k = 0, length = op.i2 - op.i1;
        if (op.j2 - op.j1 < length)
            length = op.j2 - op.j1;  /* an equal opcode has both sides of one length */
        while (k < length) {
            if (a[op.i1 + k] != b[op.j1 + k]) {
                k++;
                if (push(&r->pending, op.tag, op.i1, op.i2, op.j1, op.j2) < 0)
                    return -1;
                continue;
            }
            Py_ssize_t start = k;
            while (k < length && a[op.i1 + k] == b[op.j1 + k])
                k++;
            if (close_stretch(r, op.i1 + start, op.j1 + start) < 0)
                return -1;
            if (push(r->out, EQUAL, op.i1 + start, op.i1 + k, op.j1 + start, op.j1 + k) < 0)
                return -1;
            r->gap_a = op.i1 + k, r->gap_b = op.j1 + k;
        }
    }
    return close_stretch(r, al->na, al->nb);
}

/* ------------------------------------------------------------------ merge, and the module */

/* algorithm._merge: neighbours of one kind joined (delete + insert: replace), empty opcodes dropped */
static PyObject *merged(const Ops *ops)
{
    Op *m = PyMem_Malloc((size_t)(ops->n ? ops->n : 1) * sizeof(Op));
    if (m == NULL)
        return PyErr_NoMemory();
    Py_ssize_t count = 0;
    for (Py_ssize_t n = 0; n < ops->n; n++) {
        Op op = ops->ops[n];
        if (op.i1 == op.i2 && op.j1 == op.j2)
            continue;
        if (count) {
            Op *last = &m[count - 1];
            int same = last->tag == op.tag || (last->tag != EQUAL && op.tag != EQUAL);
            if (same && last->i2 == op.i1 && last->j2 == op.j1) {
                last->i2 = op.i2;
                last->j2 = op.j2;
                if (last->tag != op.tag)
                    last->tag = REPLACE;
                continue;
            }
        }
        m[count++] = op;
    }
    PyObject *out = PyList_New(count);
    if (out == NULL) {
        PyMem_Free(m);
        return NULL;
    }
    for (Py_ssize_t n = 0; n < count; n++) {
        Op op = m[n];
        if (op.tag != EQUAL)
            op.tag = op.i1 < op.i2 && op.j1 < op.j2 ? REPLACE : (op.i1 < op.i2 ? DELETE : INSERT);
        PyObject *item = Py_BuildValue("(Onnnn)", tag_names[op.tag], op.i1, op.i2, op.j1, op.j2);
        if (item == NULL) {
            Py_DECREF(out);
            PyMem_Free(m);
            return NULL;
        }
        PyList_SET_ITEM(out, n, item);
    }
    PyMem_Free(m);
    return out;
}

/* a list of ints 0 <= v < 2**31 as a C array (its largest value in *top) */
static int *read_numbers(PyObject *list, int *top)
{
    Py_ssize_t n = PyList_GET_SIZE(list);
    int *out = PyMem_Malloc((size_t)(n ? n : 1) * sizeof(int));
    if (out == NULL)
        return (int *)PyErr_NoMemory();
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *item = PyList_GET_ITEM(list, k);
        if (!PyLong_CheckExact(item)) {
            PyErr_SetString(PyExc_TypeError, "lines must be numbered by ints");
            PyMem_Free(out);
            return NULL;
        }
        long v = PyLong_AsLong(item);
        if ((v == -1 && PyErr_Occurred()) || v < 0 || v > 0x7fffffffL) {
            PyErr_Clear();
            PyErr_SetString(PyExc_ValueError, "line numbers must be in [0, 2**31)");
            PyMem_Free(out);
            return NULL;
        }
        out[k] = (int)v;
        if (out[k] > *top)
            *top = out[k];
    }
    return out;
}

static PyObject *align(PyObject *self, PyObject *args)
{
    PyObject *list_a, *list_b, *previous, *changed_a = Py_None, *changed_b = Py_None;
    int repeats;
    if (!PyArg_ParseTuple(args, "O!O!iO|OO", &PyList_Type, &list_a, &PyList_Type, &list_b, &repeats, &previous,
                          &changed_a, &changed_b))
        return NULL;
    if (previous != Py_None && !PyList_Check(previous)) {
        PyErr_SetString(PyExc_TypeError, "previous must be a list of opcodes or None");
        return NULL;
    }
    Aligner al;
    memset(&al, 0, sizeof(al));
    Ops out = {NULL, 0, 0};
    Realign r;
    memset(&r, 0, sizeof(r));
    PyObject *result = NULL;
    int top = 0;
    int *a = read_numbers(list_a, &top), *b = a ? read_numbers(list_b, &top) : NULL;
    if (a == NULL || b == NULL)
        goto done;
    al.a = a, al.b = b, al.na = PyList_GET_SIZE(list_a), al.nb = PyList_GET_SIZE(list_b);
    if ((Py_ssize_t)top > 4 * (al.na + al.nb) + 1024) {
        /* arrays indexed by number: numbers far apart would cost memory for nothing (renumber them) */
        PyErr_SetString(PyExc_ValueError, "line numbers must be dense");
        goto done;
    }
    al.repeats = repeats;
    size_t values = (size_t)top + 1;
    al.count_a = PyMem_Calloc(values, sizeof(int));
    al.count_b = PyMem_Calloc(values, sizeof(int));
    al.wanted = PyMem_Calloc(values, sizeof(int));
    al.cursor = PyMem_Calloc(values, sizeof(int));
    al.next_b = PyMem_Malloc((size_t)(al.nb ? al.nb : 1) * sizeof(Py_ssize_t));
    if (!al.count_a || !al.count_b || !al.wanted || !al.cursor || !al.next_b) {
        PyErr_NoMemory();
        goto done;
    }
    if (previous == Py_None) {
        if (diff(&al, 0, al.na, 0, al.nb, &out, 0) < 0)
            goto done;
    } else {
        r.al = &al;
        r.out = &out;
        if (read_changed(changed_a, &r.changed_a) < 0 || read_changed(changed_b, &r.changed_b) < 0)
            goto done;
        if (r.changed_a.known != r.changed_b.known) {
            PyErr_SetString(PyExc_TypeError, "changed lines: both sets or neither");
            goto done;
        }
        if (realign(&al, previous, &r) < 0)
            goto done;
    }
    result = merged(&out);
done:
    PyMem_Free(a);
    PyMem_Free(b);
    PyMem_Free(al.count_a);
    PyMem_Free(al.count_b);
    PyMem_Free(al.wanted);
    PyMem_Free(al.cursor);
    PyMem_Free(al.next_b);
    PyMem_Free(al.pairs_i);
    PyMem_Free(al.pairs_j);
    PyMem_Free(al.tails);
    PyMem_Free(al.tail_index);
    PyMem_Free(al.previous);
    PyMem_Free(al.row);
    PyMem_Free(al.row_before);
    PyMem_Free(out.ops);
    PyMem_Free(r.pending.ops);
    PyMem_Free(r.changed_a.lines);
    PyMem_Free(r.changed_b.lines);
    return result;
}

static PyMethodDef methods[] = {
    {"align", align, METH_VARARGS,
     "align(a, b, repeats, previous, changed_a=None, changed_b=None) -> opcodes: algorithm.opcodes (previous None) "
     "or algorithm.realign of two lists of line numbers."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_native_align",
                                    "algorithm.py's patience alignment in C (see that module).", -1, methods,
                                    NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__native_align(void)
{
    const char *names[4] = {"equal", "replace", "delete", "insert"};
    for (int t = 0; t < 4; t++) {
        tag_names[t] = PyUnicode_InternFromString(names[t]);
        if (tag_names[t] == NULL)
            return NULL;
    }
    return PyModule_Create(&module);
}
