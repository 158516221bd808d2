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
  %18 = phi i32 [ %308, %.lr.ph ], [ 0, %7 ]
  %19 = or disjoint i32 %18, %16, !dbg !14
  %20 = or disjoint i32 %19, 128, !dbg !14
  %21 = or disjoint i32 %19, 256, !dbg !14
  %22 = or disjoint i32 %19, 384, !dbg !14
  %23 = or disjoint i32 %19, 512, !dbg !14
  %24 = or disjoint i32 %19, 640, !dbg !14
  %25 = or disjoint i32 %19, 768, !dbg !14
  %26 = or disjoint i32 %15, %18, !dbg !14
  %27 = or i32 %26, 896, !dbg !14
  %28 = or disjoint i32 %19, 1024, !dbg !14
  %29 = or disjoint i32 %19, 1152, !dbg !14
  %30 = or disjoint i32 %19, 1280, !dbg !14
  %31 = or disjoint i32 %19, 1408, !dbg !14
  %32 = or disjoint i32 %19, 1536, !dbg !14
  %33 = or disjoint i32 %19, 1664, !dbg !14
  %34 = or disjoint i32 %19, 1792, !dbg !14
  %35 = or i32 %26, 1920, !dbg !14
  %36 = or disjoint i32 %19, 2048, !dbg !14
  %37 = or disjoint i32 %19, 2176, !dbg !14
  %38 = or disjoint i32 %19, 2304, !dbg !14
  %39 = or disjoint i32 %19, 2432, !dbg !14
  %40 = or disjoint i32 %19, 2560, !dbg !14
  %41 = or disjoint i32 %19, 2688, !dbg !14
  %42 = or disjoint i32 %19, 2816, !dbg !14
  %43 = or i32 %26, 2944, !dbg !14
  %44 = or disjoint i32 %19, 3072, !dbg !14
  %45 = or disjoint i32 %19, 3200, !dbg !14
  %46 = or disjoint i32 %19, 3328, !dbg !14
  %47 = or disjoint i32 %19, 3456, !dbg !14
  %48 = or disjoint i32 %19, 3584, !dbg !14
  %49 = or disjoint i32 %19, 3712, !dbg !14
  %50 = or disjoint i32 %19, 3840, !dbg !14
  %51 = or i32 %26, 3968, !dbg !14
  %52 = sext i32 %19 to i64, !dbg !15
  %53 = getelementptr float, ptr addrspace(1) %11, i64 %52, !dbg !15
  %54 = sext i32 %20 to i64, !dbg !15
  %55 = getelementptr float, ptr addrspace(1) %11, i64 %54, !dbg !15
  %56 = sext i32 %21 to i64, !dbg !15
  %57 = getelementptr float, ptr addrspace(1) %11, i64 %56, !dbg !15
  %58 = sext i32 %22 to i64, !dbg !15
  %59 = getelementptr float, ptr addrspace(1) %11, i64 %58, !dbg !15
  %60 = sext i32 %23 to i64, !dbg !15
  %61 = getelementptr float, ptr addrspace(1) %11, i64 %60, !dbg !15
  %62 = sext i32 %24 to i64, !dbg !15
  %63 = getelementptr float, ptr addrspace(1) %11, i64 %62, !dbg !15
  %64 = sext i32 %25 to i64, !dbg !15
  %65 = getelementptr float, ptr addrspace(1) %11, i64 %64, !dbg !15
  %66 = sext i32 %27 to i64, !dbg !15
  %67 = getelementptr float, ptr addrspace(1) %11, i64 %66, !dbg !15
  %68 = sext i32 %28 to i64, !dbg !15
  %69 = getelementptr float, ptr addrspace(1) %11, i64 %68, !dbg !15
  %70 = sext i32 %29 to i64, !dbg !15
  %71 = getelementptr float, ptr addrspace(1) %11, i64 %70, !dbg !15
  %72 = sext i32 %30 to i64, !dbg !15
  %73 = getelementptr float, ptr addrspace(1) %11, i64 %72, !dbg !15
  %74 = sext i32 %31 to i64, !dbg !15
  %75 = getelementptr float, ptr addrspace(1) %11, i64 %74, !dbg !15
  %76 = sext i32 %32 to i64, !dbg !15
  %77 = getelementptr float, ptr addrspace(1) %11, i64 %76, !dbg !15
  %78 = sext i32 %33 to i64, !dbg !15
  %79 = getelementptr float, ptr addrspace(1) %11, i64 %78, !dbg !15
  %80 = sext i32 %34 to i64, !dbg !15
  %81 = getelementptr float, ptr addrspace(1) %11, i64 %80, !dbg !15
  %82 = sext i32 %35 to i64, !dbg !15
  %83 = getelementptr float, ptr addrspace(1) %11, i64 %82, !dbg !15
  %84 = sext i32 %36 to i64, !dbg !15
  %85 = getelementptr float, ptr addrspace(1) %11, i64 %84, !dbg !15
  %86 = sext i32 %37 to i64, !dbg !15
  %87 = getelementptr float, ptr addrspace(1) %11, i64 %86, !dbg !15
  %88 = sext i32 %38 to i64, !dbg !15
  %89 = getelementptr float, ptr addrspace(1) %11, i64 %88, !dbg !15
  %90 = sext i32 %39 to i64, !dbg !15
  %91 = getelementptr float, ptr addrspace(1) %11, i64 %90, !dbg !15
  %92 = sext i32 %40 to i64, !dbg !15
  %93 = getelementptr float, ptr addrspace(1) %11, i64 %92, !dbg !15
  %94 = sext i32 %41 to i64, !dbg !15
  %95 = getelementptr float, ptr addrspace(1) %11, i64 %94, !dbg !15
  %96 = sext i32 %42 to i64, !dbg !15
  %97 = getelementptr float, ptr addrspace(1) %11, i64 %96, !dbg !15
  %98 = sext i32 %43 to i64, !dbg !15
  %99 = getelementptr float, ptr addrspace(1) %11, i64 %98, !dbg !15
  %100 = sext i32 %44 to i64, !dbg !15
  %101 = getelementptr float, ptr addrspace(1) %11, i64 %100, !dbg !15
  %102 = sext i32 %45 to i64, !dbg !15
  %103 = getelementptr float, ptr addrspace(1) %11, i64 %102, !dbg !15
  %104 = sext i32 %46 to i64, !dbg !15
  %105 = getelementptr float, ptr addrspace(1) %11, i64 %104, !dbg !15
  %106 = sext i32 %47 to i64, !dbg !15
  %107 = getelementptr float, ptr addrspace(1) %11, i64 %106, !dbg !15
  %108 = sext i32 %48 to i64, !dbg !15
  %109 = getelementptr float, ptr addrspace(1) %11, i64 %108, !dbg !15
  %110 = sext i32 %49 to i64, !dbg !15
  %111 = getelementptr float, ptr addrspace(1) %11, i64 %110, !dbg !15
  %112 = sext i32 %50 to i64, !dbg !15
  %113 = getelementptr float, ptr addrspace(1) %11, i64 %112, !dbg !15
  %114 = sext i32 %51 to i64, !dbg !15
  %115 = getelementptr float, ptr addrspace(1) %11, i64 %114, !dbg !15
  %116 = icmp slt i32 %19, %4, !dbg !16
  %117 = icmp slt i32 %20, %4, !dbg !16
  %118 = icmp slt i32 %21, %4, !dbg !16
  %119 = icmp slt i32 %22, %4, !dbg !16
  %120 = icmp slt i32 %23, %4, !dbg !16
  %121 = icmp slt i32 %24, %4, !dbg !16
  %122 = icmp slt i32 %25, %4, !dbg !16
  %123 = icmp slt i32 %27, %4, !dbg !16
  %124 = icmp slt i32 %28, %4, !dbg !16
  %125 = icmp slt i32 %29, %4, !dbg !16
  %126 = icmp slt i32 %30, %4, !dbg !16
  %127 = icmp slt i32 %31, %4, !dbg !16
  %128 = icmp slt i32 %32, %4, !dbg !16
  %129 = icmp slt i32 %33, %4, !dbg !16
  %130 = icmp slt i32 %34, %4, !dbg !16
  %131 = icmp slt i32 %35, %4, !dbg !16
  %132 = icmp slt i32 %36, %4, !dbg !16
  %133 = icmp slt i32 %37, %4, !dbg !16
  %134 = icmp slt i32 %38, %4, !dbg !16
  %135 = icmp slt i32 %39, %4, !dbg !16
  %136 = icmp slt i32 %40, %4, !dbg !16
  %137 = icmp slt i32 %41, %4, !dbg !16
  %138 = icmp slt i32 %42, %4, !dbg !16
  %139 = icmp slt i32 %43, %4, !dbg !16
  %140 = icmp slt i32 %44, %4, !dbg !16
  %141 = icmp slt i32 %45, %4, !dbg !16
  %142 = icmp slt i32 %46, %4, !dbg !16
  %143 = icmp slt i32 %47, %4, !dbg !16
  %144 = icmp slt i32 %48, %4, !dbg !16
  %145 = icmp slt i32 %49, %4, !dbg !16
  %146 = icmp slt i32 %50, %4, !dbg !16
  %147 = icmp slt i32 %51, %4, !dbg !16
  %148 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %53, i1 %116) #2, !dbg !17
  %149 = bitcast i32 %148 to float, !dbg !17
  %150 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %55, i1 %117) #2, !dbg !17
  %151 = bitcast i32 %150 to float, !dbg !17
  %152 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %57, i1 %118) #2, !dbg !17
  %153 = bitcast i32 %152 to float, !dbg !17
  %154 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %59, i1 %119) #2, !dbg !17
  %155 = bitcast i32 %154 to float, !dbg !17
  %156 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %61, i1 %120) #2, !dbg !17
  %157 = bitcast i32 %156 to float, !dbg !17
  %158 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %63, i1 %121) #2, !dbg !17
  %159 = bitcast i32 %158 to float, !dbg !17
  %160 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %65, i1 %122) #2, !dbg !17
  %161 = bitcast i32 %160 to float, !dbg !17
  %162 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %67, i1 %123) #2, !dbg !17
  %163 = bitcast i32 %162 to float, !dbg !17
  %164 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %69, i1 %124) #2, !dbg !17
  %165 = bitcast i32 %164 to float, !dbg !17
  %166 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %71, i1 %125) #2, !dbg !17
  %167 = bitcast i32 %166 to float, !dbg !17
  %168 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %73, i1 %126) #2, !dbg !17
  %169 = bitcast i32 %168 to float, !dbg !17
  %170 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %75, i1 %127) #2, !dbg !17
  %171 = bitcast i32 %170 to float, !dbg !17
  %172 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %77, i1 %128) #2, !dbg !17
  %173 = bitcast i32 %172 to float, !dbg !17
  %174 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %79, i1 %129) #2, !dbg !17
  %175 = bitcast i32 %174 to float, !dbg !17
  %176 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %81, i1 %130) #2, !dbg !17
  %177 = bitcast i32 %176 to float, !dbg !17
  %178 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %83, i1 %131) #2, !dbg !17
  %179 = bitcast i32 %178 to float, !dbg !17
  %180 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %85, i1 %132) #2, !dbg !17
  %181 = bitcast i32 %180 to float, !dbg !17
  %182 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %87, i1 %133) #2, !dbg !17
  %183 = bitcast i32 %182 to float, !dbg !17
  %184 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %89, i1 %134) #2, !dbg !17
  %185 = bitcast i32 %184 to float, !dbg !17
  %186 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %91, i1 %135) #2, !dbg !17
  %187 = bitcast i32 %186 to float, !dbg !17
  %188 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %93, i1 %136) #2, !dbg !17
  %189 = bitcast i32 %188 to float, !dbg !17
  %190 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %95, i1 %137) #2, !dbg !17
  %191 = bitcast i32 %190 to float, !dbg !17
  %192 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %97, i1 %138) #2, !dbg !17
  %193 = bitcast i32 %192 to float, !dbg !17
  %194 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %99, i1 %139) #2, !dbg !17
  %195 = bitcast i32 %194 to float, !dbg !17
  %196 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %101, i1 %140) #2, !dbg !17
  %197 = bitcast i32 %196 to float, !dbg !17
  %198 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %103, i1 %141) #2, !dbg !17
  %199 = bitcast i32 %198 to float, !dbg !17
  %200 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %105, i1 %142) #2, !dbg !17
  %201 = bitcast i32 %200 to float, !dbg !17
  %202 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %107, i1 %143) #2, !dbg !17
  %203 = bitcast i32 %202 to float, !dbg !17
  %204 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %109, i1 %144) #2, !dbg !17
  %205 = bitcast i32 %204 to float, !dbg !17
  %206 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %111, i1 %145) #2, !dbg !17
  %207 = bitcast i32 %206 to float, !dbg !17
  %208 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %113, i1 %146) #2, !dbg !17
  %209 = bitcast i32 %208 to float, !dbg !17
  %210 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %115, i1 %147) #2, !dbg !17
  %211 = bitcast i32 %210 to float, !dbg !17
  %212 = fmul float %149, %149, !dbg !18
  %213 = fmul float %151, %151, !dbg !18
  %214 = fmul float %153, %153, !dbg !18
  %215 = fmul float %155, %155, !dbg !18
  %216 = fmul float %157, %157, !dbg !18
  %217 = fmul float %159, %159, !dbg !18
  %218 = fmul float %161, %161, !dbg !18
  %219 = fmul float %163, %163, !dbg !18
  %220 = fmul float %165, %165, !dbg !18
  %221 = fmul float %167, %167, !dbg !18
  %222 = fmul float %169, %169, !dbg !18
  %223 = fmul float %171, %171, !dbg !18
  %224 = fmul float %173, %173, !dbg !18
  %225 = fmul float %175, %175, !dbg !18
  %226 = fmul float %177, %177, !dbg !18
  %227 = fmul float %179, %179, !dbg !18
  %228 = fmul float %181, %181, !dbg !18
  %229 = fmul float %183, %183, !dbg !18
  %230 = fmul float %185, %185, !dbg !18
  %231 = fmul float %187, %187, !dbg !18
  %232 = fmul float %189, %189, !dbg !18
  %233 = fmul float %191, %191, !dbg !18
  %234 = fmul float %193, %193, !dbg !18
  %235 = fmul float %195, %195, !dbg !18
  %236 = fmul float %197, %197, !dbg !18
  %237 = fmul float %199, %199, !dbg !18
  %238 = fmul float %201, %201, !dbg !18
  %239 = fmul float %203, %203, !dbg !18
  %240 = fmul float %205, %205, !dbg !18
  %241 = fmul float %207, %207, !dbg !18
  %242 = fmul float %209, %209, !dbg !18
  %243 = fmul float %211, %211, !dbg !18
  %244 = getelementptr float, ptr addrspace(1) %14, i64 %52, !dbg !19
  %245 = getelementptr float, ptr addrspace(1) %14, i64 %54, !dbg !19
  %246 = getelementptr float, ptr addrspace(1) %14, i64 %56, !dbg !19
  %247 = getelementptr float, ptr addrspace(1) %14, i64 %58, !dbg !19
  %248 = getelementptr float, ptr addrspace(1) %14, i64 %60, !dbg !19
  %249 = getelementptr float, ptr addrspace(1) %14, i64 %62, !dbg !19
  %250 = getelementptr float, ptr addrspace(1) %14, i64 %64, !dbg !19
  %251 = getelementptr float, ptr addrspace(1) %14, i64 %66, !dbg !19
  %252 = getelementptr float, ptr addrspace(1) %14, i64 %68, !dbg !19
  %253 = getelementptr float, ptr addrspace(1) %14, i64 %70, !dbg !19
  %254 = getelementptr float, ptr addrspace(1) %14, i64 %72, !dbg !19
  %255 = getelementptr float, ptr addrspace(1) %14, i64 %74, !dbg !19
  %256 = getelementptr float, ptr addrspace(1) %14, i64 %76, !dbg !19
  %257 = getelementptr float, ptr addrspace(1) %14, i64 %78, !dbg !19
  %258 = getelementptr float, ptr addrspace(1) %14, i64 %80, !dbg !19
  %259 = getelementptr float, ptr addrspace(1) %14, i64 %82, !dbg !19
  %260 = getelementptr float, ptr addrspace(1) %14, i64 %84, !dbg !19
  %261 = getelementptr float, ptr addrspace(1) %14, i64 %86, !dbg !19
  %262 = getelementptr float, ptr addrspace(1) %14, i64 %88, !dbg !19
  %263 = getelementptr float, ptr addrspace(1) %14, i64 %90, !dbg !19
  %264 = getelementptr float, ptr addrspace(1) %14, i64 %92, !dbg !19
  %265 = getelementptr float, ptr addrspace(1) %14, i64 %94, !dbg !19
  %266 = getelementptr float, ptr addrspace(1) %14, i64 %96, !dbg !19
  %267 = getelementptr float, ptr addrspace(1) %14, i64 %98, !dbg !19
  %268 = getelementptr float, ptr addrspace(1) %14, i64 %100, !dbg !19
  %269 = getelementptr float, ptr addrspace(1) %14, i64 %102, !dbg !19
  %270 = getelementptr float, ptr addrspace(1) %14, i64 %104, !dbg !19
  %271 = getelementptr float, ptr addrspace(1) %14, i64 %106, !dbg !19
  %272 = getelementptr float, ptr addrspace(1) %14, i64 %108, !dbg !19
  %273 = getelementptr float, ptr addrspace(1) %14, i64 %110, !dbg !19
  %274 = getelementptr float, ptr addrspace(1) %14, i64 %112, !dbg !19
  %275 = getelementptr float, ptr addrspace(1) %14, i64 %114, !dbg !19
  %276 = bitcast float %212 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %276, ptr addrspace(1) %244, i1 %116) #2, !dbg !20
  %277 = bitcast float %213 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %277, ptr addrspace(1) %245, i1 %117) #2, !dbg !20
  %278 = bitcast float %214 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %278, ptr addrspace(1) %246, i1 %118) #2, !dbg !20
  %279 = bitcast float %215 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %279, ptr addrspace(1) %247, i1 %119) #2, !dbg !20
  %280 = bitcast float %216 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %280, ptr addrspace(1) %248, i1 %120) #2, !dbg !20
  %281 = bitcast float %217 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %281, ptr addrspace(1) %249, i1 %121) #2, !dbg !20
  %282 = bitcast float %218 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %282, ptr addrspace(1) %250, i1 %122) #2, !dbg !20
  %283 = bitcast float %219 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %283, ptr addrspace(1) %251, i1 %123) #2, !dbg !20
  %284 = bitcast float %220 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %284, ptr addrspace(1) %252, i1 %124) #2, !dbg !20
  %285 = bitcast float %221 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %285, ptr addrspace(1) %253, i1 %125) #2, !dbg !20
  %286 = bitcast float %222 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %286, ptr addrspace(1) %254, i1 %126) #2, !dbg !20
  %287 = bitcast float %223 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %287, ptr addrspace(1) %255, i1 %127) #2, !dbg !20
  %288 = bitcast float %224 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %288, ptr addrspace(1) %256, i1 %128) #2, !dbg !20
  %289 = bitcast float %225 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %289, ptr addrspace(1) %257, i1 %129) #2, !dbg !20
  %290 = bitcast float %226 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %290, ptr addrspace(1) %258, i1 %130) #2, !dbg !20
  %291 = bitcast float %227 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %291, ptr addrspace(1) %259, i1 %131) #2, !dbg !20
  %292 = bitcast float %228 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %292, ptr addrspace(1) %260, i1 %132) #2, !dbg !20
  %293 = bitcast float %229 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %293, ptr addrspace(1) %261, i1 %133) #2, !dbg !20
  %294 = bitcast float %230 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %294, ptr addrspace(1) %262, i1 %134) #2, !dbg !20
  %295 = bitcast float %231 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %295, ptr addrspace(1) %263, i1 %135) #2, !dbg !20
  %296 = bitcast float %232 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %296, ptr addrspace(1) %264, i1 %136) #2, !dbg !20
  %297 = bitcast float %233 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %297, ptr addrspace(1) %265, i1 %137) #2, !dbg !20
  %298 = bitcast float %234 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %298, ptr addrspace(1) %266, i1 %138) #2, !dbg !20
  %299 = bitcast float %235 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %299, ptr addrspace(1) %267, i1 %139) #2, !dbg !20
  %300 = bitcast float %236 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %300, ptr addrspace(1) %268, i1 %140) #2, !dbg !20
  %301 = bitcast float %237 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %301, ptr addrspace(1) %269, i1 %141) #2, !dbg !20
  %302 = bitcast float %238 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %302, ptr addrspace(1) %270, i1 %142) #2, !dbg !20
  %303 = bitcast float %239 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %303, ptr addrspace(1) %271, i1 %143) #2, !dbg !20
  %304 = bitcast float %240 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %304, ptr addrspace(1) %272, i1 %144) #2, !dbg !20
  %305 = bitcast float %241 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %305, ptr addrspace(1) %273, i1 %145) #2, !dbg !20
  %306 = bitcast float %242 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %306, ptr addrspace(1) %274, i1 %146) #2, !dbg !20
  %307 = bitcast float %243 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %307, ptr addrspace(1) %275, i1 %147) #2, !dbg !20
  %308 = add i32 %18, 4096, !dbg !13
  %309 = icmp slt i32 %308, %4, !dbg !13
  br i1 %309, label %.lr.ph, label %._crit_edge, !dbg !13

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
!1 = !DIFile(filename: "square.py", directory: "kernels")
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
