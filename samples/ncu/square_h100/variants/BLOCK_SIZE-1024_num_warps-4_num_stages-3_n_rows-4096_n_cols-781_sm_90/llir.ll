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
  br i1 %17, label %.lr.ph.preheader, label %._crit_edge, !dbg !13

.lr.ph.preheader:                                 ; preds = %7
  %invariant.op = or i32 %15, 896, !dbg !13
  br label %.lr.ph, !dbg !13

.lr.ph:                                           ; preds = %.lr.ph.preheader, %.lr.ph
  %18 = phi i32 [ %90, %.lr.ph ], [ 0, %.lr.ph.preheader ]
  %19 = or disjoint i32 %18, %16, !dbg !14
  %20 = or disjoint i32 %19, 128, !dbg !14
  %21 = or disjoint i32 %19, 256, !dbg !14
  %22 = or disjoint i32 %19, 384, !dbg !14
  %23 = or disjoint i32 %19, 512, !dbg !14
  %24 = or disjoint i32 %19, 640, !dbg !14
  %25 = or disjoint i32 %19, 768, !dbg !14
  %.reass = or disjoint i32 %18, %invariant.op
  %26 = sext i32 %19 to i64, !dbg !15
  %27 = getelementptr float, ptr addrspace(1) %11, i64 %26, !dbg !15
  %28 = sext i32 %20 to i64, !dbg !15
  %29 = getelementptr float, ptr addrspace(1) %11, i64 %28, !dbg !15
  %30 = sext i32 %21 to i64, !dbg !15
  %31 = getelementptr float, ptr addrspace(1) %11, i64 %30, !dbg !15
  %32 = sext i32 %22 to i64, !dbg !15
  %33 = getelementptr float, ptr addrspace(1) %11, i64 %32, !dbg !15
  %34 = sext i32 %23 to i64, !dbg !15
  %35 = getelementptr float, ptr addrspace(1) %11, i64 %34, !dbg !15
  %36 = sext i32 %24 to i64, !dbg !15
  %37 = getelementptr float, ptr addrspace(1) %11, i64 %36, !dbg !15
  %38 = sext i32 %25 to i64, !dbg !15
  %39 = getelementptr float, ptr addrspace(1) %11, i64 %38, !dbg !15
  %40 = sext i32 %.reass to i64, !dbg !15
  %41 = getelementptr float, ptr addrspace(1) %11, i64 %40, !dbg !15
  %42 = icmp slt i32 %19, %4, !dbg !16
  %43 = icmp slt i32 %20, %4, !dbg !16
  %44 = icmp slt i32 %21, %4, !dbg !16
  %45 = icmp slt i32 %22, %4, !dbg !16
  %46 = icmp slt i32 %23, %4, !dbg !16
  %47 = icmp slt i32 %24, %4, !dbg !16
  %48 = icmp slt i32 %25, %4, !dbg !16
  %49 = icmp slt i32 %.reass, %4, !dbg !16
  %50 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %27, i1 %42) #2, !dbg !17
  %51 = bitcast i32 %50 to float, !dbg !17
  %52 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %29, i1 %43) #2, !dbg !17
  %53 = bitcast i32 %52 to float, !dbg !17
  %54 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %31, i1 %44) #2, !dbg !17
  %55 = bitcast i32 %54 to float, !dbg !17
  %56 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %33, i1 %45) #2, !dbg !17
  %57 = bitcast i32 %56 to float, !dbg !17
  %58 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %35, i1 %46) #2, !dbg !17
  %59 = bitcast i32 %58 to float, !dbg !17
  %60 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %37, i1 %47) #2, !dbg !17
  %61 = bitcast i32 %60 to float, !dbg !17
  %62 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %39, i1 %48) #2, !dbg !17
  %63 = bitcast i32 %62 to float, !dbg !17
  %64 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %41, i1 %49) #2, !dbg !17
  %65 = bitcast i32 %64 to float, !dbg !17
  %66 = fmul float %51, %51, !dbg !18
  %67 = fmul float %53, %53, !dbg !18
  %68 = fmul float %55, %55, !dbg !18
  %69 = fmul float %57, %57, !dbg !18
  %70 = fmul float %59, %59, !dbg !18
  %71 = fmul float %61, %61, !dbg !18
  %72 = fmul float %63, %63, !dbg !18
  %73 = fmul float %65, %65, !dbg !18
  %74 = getelementptr float, ptr addrspace(1) %14, i64 %26, !dbg !19
  %75 = getelementptr float, ptr addrspace(1) %14, i64 %28, !dbg !19
  %76 = getelementptr float, ptr addrspace(1) %14, i64 %30, !dbg !19
  %77 = getelementptr float, ptr addrspace(1) %14, i64 %32, !dbg !19
  %78 = getelementptr float, ptr addrspace(1) %14, i64 %34, !dbg !19
  %79 = getelementptr float, ptr addrspace(1) %14, i64 %36, !dbg !19
  %80 = getelementptr float, ptr addrspace(1) %14, i64 %38, !dbg !19
  %81 = getelementptr float, ptr addrspace(1) %14, i64 %40, !dbg !19
  %82 = bitcast float %66 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %82, ptr addrspace(1) %74, i1 %42) #2, !dbg !20
  %83 = bitcast float %67 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %83, ptr addrspace(1) %75, i1 %43) #2, !dbg !20
  %84 = bitcast float %68 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %84, ptr addrspace(1) %76, i1 %44) #2, !dbg !20
  %85 = bitcast float %69 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %85, ptr addrspace(1) %77, i1 %45) #2, !dbg !20
  %86 = bitcast float %70 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %86, ptr addrspace(1) %78, i1 %46) #2, !dbg !20
  %87 = bitcast float %71 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %87, ptr addrspace(1) %79, i1 %47) #2, !dbg !20
  %88 = bitcast float %72 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %88, ptr addrspace(1) %80, i1 %48) #2, !dbg !20
  %89 = bitcast float %73 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %89, ptr addrspace(1) %81, i1 %49) #2, !dbg !20
  %90 = add i32 %18, 1024, !dbg !13
  %91 = icmp slt i32 %90, %4, !dbg !13
  br i1 %91, label %.lr.ph, label %._crit_edge, !dbg !13

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
