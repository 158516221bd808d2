"""Location parsers, on inline snippets of real IR (each shaped like Triton 3.6 output)."""

from __future__ import annotations

from irscope.ir.locations import llvm_locations, mlir_locations, ptx_locations, sass_locations

TTGIR = """#loc = loc("/k/softmax.py":14:0)
#loc1 = loc(unknown)
#loc10 = loc("/k/softmax.py":21:33)
#loc35 = loc("row_minus_max"(#loc10))
#loc43 = loc(callsite(#loc1 at #loc35))
#loc9 = loc("/t/standard.py":191:40)
#loc42 = loc(callsite(#loc9 at #loc35))
module {
  tt.func public @k(%x: !tt.ptr<f32> loc("x"(#loc))) {
    %cst = arith.constant dense<0xFF800000> : tensor<1024xf32> loc(#loc1)
    %0 = "tt.reduce"(%row) <{axis = 0 : i32}> ({
    ^bb0(%a: f32 loc(callsite(#loc1 at #loc35)), %b: f32 loc(callsite(#loc1 at #loc35))):
      tt.reduce.return %m : f32 loc(#loc43)
    }) : (tensor<1024xf32>) -> f32 loc(#loc42)
    %y = arith.mulf %a, %a : f32 loc(fused[#loc1, "/k/softmax.py":30:7])
    %z = arith.addf %a, %a : f32 loc("/k/softmax.py":31:2)
  } loc(#loc)
} loc(#loc)
"""


def test_mlir_resolves_aliases_names_callsites_and_fused_locations():
    locs = mlir_locations(TTGIR)
    lines = TTGIR.splitlines()
    by_text = {line.strip()[:24]: loc for line, loc in zip(lines, locs)}
    assert by_text["%cst = arith.constant de"] is None  # loc(unknown)
    ret = by_text["tt.reduce.return %m : f3"]  # callsite(unknown at named) -> the caller
    assert (ret.file, ret.line, ret.column) == ("/k/softmax.py", 21, 33)
    reduce_end = by_text["}) : (tensor<1024xf32>) "]
    assert (reduce_end.file, reduce_end.line) == ("/t/standard.py", 191)
    assert [(c.file, c.line) for c in reduce_end.callers] == [("/k/softmax.py", 21)]
    assert reduce_end.in_file("/k/softmax.py").line == 21
    assert by_text["%y = arith.mulf %a, %a :"].line == 30
    assert by_text["%z = arith.addf %a, %a :"].line == 31
    assert all(loc is None for line, loc in zip(lines, locs) if line.startswith("#loc"))


LLIR = """define ptx_kernel void @k(ptr addrspace(1) %0) local_unnamed_addr #0 !dbg !4 {
  %8 = tail call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x(), !dbg !7
  %63 = tail call float @llvm.maxnum.f32(float %48, float %50), !dbg !14
  ret void, !dbg !7
}
!1 = !DIFile(filename: "softmax.py", directory: "/k")
!4 = distinct !DISubprogram(name: "k", linkageName: "k", scope: !1, file: !1, line: 14, type: !5, scopeLine: 14, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0)
!7 = !DILocation(line: 15, column: 28, scope: !4)
!14 = !DILocation(line: 170, column: 27, scope: !15, inlinedAt: !17)
!15 = distinct !DILexicalBlockFile(scope: !4, file: !16, discriminator: 0)
!16 = !DIFile(filename: "standard.py", directory: "/t")
!17 = !DILocation(line: 191, column: 40, scope: !15, inlinedAt: !18)
!18 = !DILocation(line: 21, column: 33, scope: !19)
!19 = distinct !DILexicalBlockFile(scope: !4, file: !1, discriminator: 0)
"""


def test_llvm_follows_scopes_to_files_and_inlined_at_chains():
    locs = llvm_locations(LLIR)
    assert (locs[0].file, locs[0].line) == ("/k/softmax.py", 14)  # the define's DISubprogram
    assert (locs[1].file, locs[1].line, locs[1].column) == ("/k/softmax.py", 15, 28)
    maxnum = locs[2]
    assert (maxnum.file, maxnum.line) == ("/t/standard.py", 170)
    assert [(c.file, c.line) for c in maxnum.callers] == [("/t/standard.py", 191), ("/k/softmax.py", 21)]
    assert all(loc is None for loc in locs[5:])


PTX = """.visible .entry k(
)
.reqntid 128
{
	.loc	1 15 28                         // softmax.py:15:28
	mov.u32 	%r26, %ctaid.x;
	.loc	2 170 27                        // standard.py:170:27 @[ standard.py:191:40 @[ softmax.py:21:33 ] ]
	max.f32 	%r3, %r1, %r2;

	ret;
}
	.file	1 "/k/softmax.py"
	.file	2 "/t/standard.py"
	.section	.debug_abbrev
	{
.b8 1
	}
"""


def test_ptx_loc_applies_until_the_next_and_the_comment_gives_the_inlining_chain():
    locs = ptx_locations(PTX)
    assert locs[0] is None and locs[2] is None
    assert (locs[5].file, locs[5].line, locs[5].column) == ("/k/softmax.py", 15, 28)
    maxf = locs[7]
    assert (maxf.file, maxf.line) == ("/t/standard.py", 170)
    assert [(c.file, c.line) for c in maxf.callers] == [("/t/standard.py", 191), ("/k/softmax.py", 21)]
    assert locs[8] is None  # blank line
    assert all(loc is None for loc in locs[10:])  # after the function: .file table and debug sections


SASS = """//--------------------- .text.k --------------------------
k:
	//## File "/k/softmax.py", line 14
        /*0000*/                   LDC R1, c[0x0][0x28] ;
	//## File "/t/standard.py", line 170 inlined at "/t/standard.py", line 191 inlined at "/k/softmax.py", line 21
        /*0010*/                   FMNMX R5, R4, R5, !PT ;
"""


def test_sass_line_comments_set_the_location_of_the_instructions_below():
    locs = sass_locations(SASS)
    assert locs[0] is None and locs[1] is None
    assert locs[3].line == 14
    assert locs[5].line == 170 and locs[5].in_file("/k/softmax.py").line == 21


# Triton's (and tritonparse's) SASS dump: nvdisasm -g on a cubin that carries its PTX as debug text.
SASS_WITH_PTX_TEXT = """Function:add_kernel
	//## File "/tmp/addk.py", line 6
	//## File ".nv_debug_ptx_txt", line 20
        /*0000*/                   LDC R1, c[0x0][0x28] ;
	//## File "/tmp/addk.py", line 8
	//## File ".nv_debug_ptx_txt", line 39
        /*0010*/                   S2R R0, SR_TID.X ;
"""


def test_a_sass_line_naming_the_embedded_ptx_text_keeps_the_source_line_above_it():
    locs = sass_locations(SASS_WITH_PTX_TEXT)
    assert (locs[3].file, locs[3].line) == ("/tmp/addk.py", 6)
    assert (locs[6].file, locs[6].line) == ("/tmp/addk.py", 8)
