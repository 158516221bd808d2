"""Parse a stage's text: what each line is and which source line it came from.

``locations.py`` (every stage's source locations), ``ptx.py`` and ``sass.py`` (instructions, their
operands and accesses), ``sass_control.py`` (SASS control codes), ``elf.py`` (a cubin's ELF and DWARF
line table), ``mlir.py`` (TTIR/TTGIR ops and layouts), ``passes.py`` (a pass log), ``normalize.py``
(what a diff ignores), ``stats.py`` (counts per stage), ``sourcemap.py`` and ``interleave.py``
(source lines to IR lines and back), ``highlight.py`` (each stage's lexer: style runs per line).
Needs only text: no frontend, torch or Triton.
"""
