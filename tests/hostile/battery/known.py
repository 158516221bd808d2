"""Cases that fail on this branch because their fix is on another branch of issue 27, and which branch.

Listed by id, as the battery ran on this branch; each was seen to pass with its branch merged. Each is
marked xfail (not strict): once the branches are merged they pass, and the marks can go. Cases that
fail here and no branch fixes are left failing, on purpose: they are holes still open.
"""

from __future__ import annotations

EXEC = "issue 27: fixed on branch h27-exec (nvcc values through a header, specs opt-in, load_inline, sessions)"
PROCS = "issue 27: fixed on branch h27-procs (workers isolated from the cwd, time limits, gzip bounded)"
WRITERS = "issue 27: fixed on branch h27-writers (writers never follow links, -o only over a regular file)"

FIXED_ELSEWHERE = {
    **dict.fromkeys([
        '.cu file@dump: a macro default of shell',
        '.cu file@dump: a spec file that runs at import',
        '.cu file@sweep: a spec file that runs at import',
        'cli -c@dump: cuda string macro OP=backticks',
        'cli -c@dump: cuda string macro OP=shell $(...)',
        'cli -c@dump: cuda string macro OP=shell in a string literal',
        'cli -s@sweep: cuda string macro OP=backticks',
        'cli -s@sweep: cuda string macro OP=shell $(...)',
        'cli -s@sweep: cuda string macro OP=shell in a string literal',
        'load_inline file@dump: cuda_sources as a call as the value',
        'load_inline file@dump: cuda_sources as a comprehension',
        'load_inline file@dump: cuda_sources as a lambda called',
        'load_inline file@dump: cuda_sources as a name bound to a call',
        'load_inline file@dump: cuda_sources as a walrus',
        'load_inline file@sweep: cuda_sources as a call as the value',
        'load_inline file@sweep: cuda_sources as a comprehension',
        'load_inline file@sweep: cuda_sources as a lambda called',
        'load_inline file@sweep: cuda_sources as a name bound to a call',
        'load_inline file@sweep: cuda_sources as a walrus',
        'session frontend@sweep: kernel.frontend = numba naming an evil file (numba session)',
    ], EXEC),
    **dict.fromkeys([
        'cli --compile-timeout@dump: 1e309',
        'cli --compile-timeout@dump: inf',
        'tritonparse trace gzip bomb@dump: 1.5 GB of one small event repeated',
        'tritonparse trace gzip bomb@dump: 1.5 GB of zeros on one line',
        'working directory@dump: a irscope module in the working directory',
        'working directory@dump: a json module in the working directory',
        'working directory@dump: a pickle module in the working directory',
        'working directory@dump: a selectors module in the working directory',
        'working directory@dump: a triton module in the working directory',
        'working directory@sweep: a pickle module in the working directory',
        'working directory@sweep: a triton module in the working directory',
    ], PROCS),
    **dict.fromkeys([
        'cli -o@dump: the output folder is a FIFO',
        'cli -o@export: the output path is a FIFO',
        "cli -o@export: the output path is a character device (/dev/null's numbers)",
        'cli -o@export: the output path is a socket',
        'cli -o@report: the output path is a FIFO',
        "cli -o@report: the output path is a character device (/dev/null's numbers)",
        'cli -o@report: the output path is a socket',
        'run raw/ records@collect: a record folder linking outside',
        'session writer@sweep -o: .lock links to a secret (builtin session)',
        'session writer@sweep -o: a leftover-shaped folder linking to dot files (builtin session)',
        'session writer@sweep -o: a leftover-shaped link to a folder outside (builtin session)',
        'session writer@sweep -o: variants/ links to a folder outside (builtin session)',
        'session writer@sweep resume: .lock is a FIFO (builtin session)',
        'session writer@sweep resume: .lock links to a file that does not exist yet (builtin session)',
        'session writer@sweep resume: .lock links to a secret (triton session)',
        'session writer@sweep resume: a leftover-shaped folder linking to dot files (triton session)',
        'session writer@sweep resume: a leftover-shaped link to a folder outside (triton session)',
        'session writer@sweep resume: a leftover-shaped temporary file linking outside (builtin session)',
        'session writer@sweep resume: source/ links to a folder of dot files outside (builtin session)',
        "session writer@sweep resume: the session's own dot files beside its variants (builtin session)",
        'session writer@sweep resume: variants/ links to a folder outside (triton session)',
    ], WRITERS),
}


def fixed_elsewhere(case_id: str) -> str | None:
    """The branch that fixes ``case_id``, said as an xfail reason; None for a case that holds here."""
    return FIXED_ELSEWHERE.get(case_id)
