; ModuleID = 'LLVMDialectModule'
source_filename = "LLVMDialectModule"
target datalayout = "e-p3:32:32-p4:32:32-p5:32:32-p6:32:32-p7:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"

; Function Attrs: nounwind
define ptx_kernel void @square_kernel(ptr addrspace(1) %0, ptr addrspace(1) %1, i32 %2, i32 %3, i32 %4, ptr addrspace(1) readnone captures(none) %5, ptr addrspace(1) readnone captures(none) %6) local_unnamed_addr #0 !dbg !4 {
  %8 = tail call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x(), !dbg !7
  %9 = mul i32 %2, %8, !dbg !8
  %10 = sext i32 %9 to i64, !dbg !9
  %11 = getelementptr float, ptr addrspace(1) %1, i64 %10, !dbg !9
  %12 = mul i32 %3, %8, !dbg !10
  %13 = sext i32 %12 to i64, !dbg !11
  %14 = getelementptr float, ptr addrspace(1) %0, i64 %13, !dbg !11
  %15 = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x(), !dbg !12
  %16 = and i32 %15, 127, !dbg !12
  %17 = icmp sgt i32 %4, 0, !dbg !13
  br i1 %17, label %.lr.ph, label %._crit_edge, !dbg !13

.lr.ph:                                           ; preds = %7, %.lr.ph
  %18 = phi i32 [ %28, %.lr.ph ], [ 0, %7 ]
  %19 = or disjoint i32 %18, %16, !dbg !14
  %20 = sext i32 %19 to i64, !dbg !15
  %21 = getelementptr float, ptr addrspace(1) %11, i64 %20, !dbg !15
  %22 = icmp slt i32 %19, %4, !dbg !16
  %23 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %21, i1 %22) #2, !dbg !17
  %24 = bitcast i32 %23 to float, !dbg !17
  %25 = fmul float %24, %24, !dbg !18
  %26 = getelementptr float, ptr addrspace(1) %14, i64 %20, !dbg !19
  %27 = bitcast float %25 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %27, ptr addrspace(1) %26, i1 %22) #2, !dbg !20
  %28 = add i32 %18, 128, !dbg !13
  %29 = icmp slt i32 %28, %4, !dbg !13
  br i1 %29, label %.lr.ph, label %._crit_edge, !dbg !13

._crit_edge:                                      ; preds = %.lr.ph, %7
  ret void, !dbg !21
}

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 2147483647) i32 @llvm.nvvm.read.ptx.sreg.ctaid.x() #1

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.x() #1

attributes #0 = { nounwind "nvvm.reqntid"="128" }
attributes #1 = { mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #2 = { nounwind }

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!2, !3}

!0 = distinct !DICompileUnit(language: DW_LANG_C, file: !1, producer: "triton", isOptimized: true, runtimeVersion: 0, emissionKind: LineTablesOnly)
!1 = !DIFile(filename: "square.py", directory: "/work/main/kernels")
!2 = !{i32 2, !"Debug Info Version", i32 3}
!3 = !{i32 4, !"nvvm-reflect-ftz", i32 1}
!4 = distinct !DISubprogram(name: "square_kernel", linkageName: "square_kernel", scope: !1, file: !1, line: 16, type: !5, scopeLine: 16, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0)
!5 = !DISubroutineType(cc: DW_CC_normal, types: !6)
!6 = !{}
!7 = !DILocation(line: 17, column: 28, scope: !4)
!8 = !DILocation(line: 18, column: 42, scope: !4)
!9 = !DILocation(line: 18, column: 32, scope: !4)
!10 = !DILocation(line: 19, column: 50, scope: !4)
!11 = !DILocation(line: 19, column: 40, scope: !4)
!12 = !DILocation(line: 21, column: 47, scope: !4)
!13 = !DILocation(line: 20, column: 38, scope: !4)
!14 = !DILocation(line: 21, column: 34, scope: !4)
!15 = !DILocation(line: 22, column: 37, scope: !4)
!16 = !DILocation(line: 23, column: 53, scope: !4)
!17 = !DILocation(line: 23, column: 22, scope: !4)
!18 = !DILocation(line: 24, column: 30, scope: !4)
!19 = !DILocation(line: 25, column: 45, scope: !4)
!20 = !DILocation(line: 26, column: 30, scope: !4)
!21 = !DILocation(line: 20, column: 4, scope: !4)
