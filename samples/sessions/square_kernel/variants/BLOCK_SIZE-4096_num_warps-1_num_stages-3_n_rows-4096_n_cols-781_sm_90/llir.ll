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
  %16 = and i32 %15, 31, !dbg !12
  %17 = icmp sgt i32 %4, 0, !dbg !13
  br i1 %17, label %.lr.ph, label %._crit_edge, !dbg !13

.lr.ph:                                           ; preds = %7, %.lr.ph
  %18 = phi i32 [ %1172, %.lr.ph ], [ 0, %7 ]
  %19 = or disjoint i32 %18, %16, !dbg !14
  %20 = or disjoint i32 %19, 32, !dbg !14
  %21 = or disjoint i32 %19, 64, !dbg !14
  %22 = or disjoint i32 %19, 96, !dbg !14
  %23 = or disjoint i32 %19, 128, !dbg !14
  %24 = or disjoint i32 %19, 160, !dbg !14
  %25 = or disjoint i32 %19, 192, !dbg !14
  %26 = or disjoint i32 %19, 224, !dbg !14
  %27 = or disjoint i32 %19, 256, !dbg !14
  %28 = or disjoint i32 %19, 288, !dbg !14
  %29 = or disjoint i32 %19, 320, !dbg !14
  %30 = or disjoint i32 %19, 352, !dbg !14
  %31 = or disjoint i32 %19, 384, !dbg !14
  %32 = or disjoint i32 %19, 416, !dbg !14
  %33 = or disjoint i32 %19, 448, !dbg !14
  %34 = or disjoint i32 %19, 480, !dbg !14
  %35 = or disjoint i32 %19, 512, !dbg !14
  %36 = or disjoint i32 %19, 544, !dbg !14
  %37 = or disjoint i32 %19, 576, !dbg !14
  %38 = or disjoint i32 %19, 608, !dbg !14
  %39 = or disjoint i32 %19, 640, !dbg !14
  %40 = or disjoint i32 %19, 672, !dbg !14
  %41 = or disjoint i32 %19, 704, !dbg !14
  %42 = or disjoint i32 %19, 736, !dbg !14
  %43 = or disjoint i32 %19, 768, !dbg !14
  %44 = or disjoint i32 %19, 800, !dbg !14
  %45 = or disjoint i32 %19, 832, !dbg !14
  %46 = or disjoint i32 %19, 864, !dbg !14
  %47 = or disjoint i32 %19, 896, !dbg !14
  %48 = or disjoint i32 %19, 928, !dbg !14
  %49 = or disjoint i32 %19, 960, !dbg !14
  %50 = or disjoint i32 %15, %18, !dbg !14
  %51 = or i32 %50, 992, !dbg !14
  %52 = or disjoint i32 %19, 1024, !dbg !14
  %53 = or disjoint i32 %19, 1056, !dbg !14
  %54 = or disjoint i32 %19, 1088, !dbg !14
  %55 = or disjoint i32 %19, 1120, !dbg !14
  %56 = or disjoint i32 %19, 1152, !dbg !14
  %57 = or disjoint i32 %19, 1184, !dbg !14
  %58 = or disjoint i32 %19, 1216, !dbg !14
  %59 = or disjoint i32 %19, 1248, !dbg !14
  %60 = or disjoint i32 %19, 1280, !dbg !14
  %61 = or disjoint i32 %19, 1312, !dbg !14
  %62 = or disjoint i32 %19, 1344, !dbg !14
  %63 = or disjoint i32 %19, 1376, !dbg !14
  %64 = or disjoint i32 %19, 1408, !dbg !14
  %65 = or disjoint i32 %19, 1440, !dbg !14
  %66 = or disjoint i32 %19, 1472, !dbg !14
  %67 = or disjoint i32 %19, 1504, !dbg !14
  %68 = or disjoint i32 %19, 1536, !dbg !14
  %69 = or disjoint i32 %19, 1568, !dbg !14
  %70 = or disjoint i32 %19, 1600, !dbg !14
  %71 = or disjoint i32 %19, 1632, !dbg !14
  %72 = or disjoint i32 %19, 1664, !dbg !14
  %73 = or disjoint i32 %19, 1696, !dbg !14
  %74 = or disjoint i32 %19, 1728, !dbg !14
  %75 = or disjoint i32 %19, 1760, !dbg !14
  %76 = or disjoint i32 %19, 1792, !dbg !14
  %77 = or disjoint i32 %19, 1824, !dbg !14
  %78 = or disjoint i32 %19, 1856, !dbg !14
  %79 = or disjoint i32 %19, 1888, !dbg !14
  %80 = or disjoint i32 %19, 1920, !dbg !14
  %81 = or disjoint i32 %19, 1952, !dbg !14
  %82 = or disjoint i32 %19, 1984, !dbg !14
  %83 = or i32 %50, 2016, !dbg !14
  %84 = or disjoint i32 %19, 2048, !dbg !14
  %85 = or disjoint i32 %19, 2080, !dbg !14
  %86 = or disjoint i32 %19, 2112, !dbg !14
  %87 = or disjoint i32 %19, 2144, !dbg !14
  %88 = or disjoint i32 %19, 2176, !dbg !14
  %89 = or disjoint i32 %19, 2208, !dbg !14
  %90 = or disjoint i32 %19, 2240, !dbg !14
  %91 = or disjoint i32 %19, 2272, !dbg !14
  %92 = or disjoint i32 %19, 2304, !dbg !14
  %93 = or disjoint i32 %19, 2336, !dbg !14
  %94 = or disjoint i32 %19, 2368, !dbg !14
  %95 = or disjoint i32 %19, 2400, !dbg !14
  %96 = or disjoint i32 %19, 2432, !dbg !14
  %97 = or disjoint i32 %19, 2464, !dbg !14
  %98 = or disjoint i32 %19, 2496, !dbg !14
  %99 = or disjoint i32 %19, 2528, !dbg !14
  %100 = or disjoint i32 %19, 2560, !dbg !14
  %101 = or disjoint i32 %19, 2592, !dbg !14
  %102 = or disjoint i32 %19, 2624, !dbg !14
  %103 = or disjoint i32 %19, 2656, !dbg !14
  %104 = or disjoint i32 %19, 2688, !dbg !14
  %105 = or disjoint i32 %19, 2720, !dbg !14
  %106 = or disjoint i32 %19, 2752, !dbg !14
  %107 = or disjoint i32 %19, 2784, !dbg !14
  %108 = or disjoint i32 %19, 2816, !dbg !14
  %109 = or disjoint i32 %19, 2848, !dbg !14
  %110 = or disjoint i32 %19, 2880, !dbg !14
  %111 = or disjoint i32 %19, 2912, !dbg !14
  %112 = or disjoint i32 %19, 2944, !dbg !14
  %113 = or disjoint i32 %19, 2976, !dbg !14
  %114 = or disjoint i32 %19, 3008, !dbg !14
  %115 = or i32 %50, 3040, !dbg !14
  %116 = or disjoint i32 %19, 3072, !dbg !14
  %117 = or disjoint i32 %19, 3104, !dbg !14
  %118 = or disjoint i32 %19, 3136, !dbg !14
  %119 = or disjoint i32 %19, 3168, !dbg !14
  %120 = or disjoint i32 %19, 3200, !dbg !14
  %121 = or disjoint i32 %19, 3232, !dbg !14
  %122 = or disjoint i32 %19, 3264, !dbg !14
  %123 = or disjoint i32 %19, 3296, !dbg !14
  %124 = or disjoint i32 %19, 3328, !dbg !14
  %125 = or disjoint i32 %19, 3360, !dbg !14
  %126 = or disjoint i32 %19, 3392, !dbg !14
  %127 = or disjoint i32 %19, 3424, !dbg !14
  %128 = or disjoint i32 %19, 3456, !dbg !14
  %129 = or disjoint i32 %19, 3488, !dbg !14
  %130 = or disjoint i32 %19, 3520, !dbg !14
  %131 = or disjoint i32 %19, 3552, !dbg !14
  %132 = or disjoint i32 %19, 3584, !dbg !14
  %133 = or disjoint i32 %19, 3616, !dbg !14
  %134 = or disjoint i32 %19, 3648, !dbg !14
  %135 = or disjoint i32 %19, 3680, !dbg !14
  %136 = or disjoint i32 %19, 3712, !dbg !14
  %137 = or disjoint i32 %19, 3744, !dbg !14
  %138 = or disjoint i32 %19, 3776, !dbg !14
  %139 = or disjoint i32 %19, 3808, !dbg !14
  %140 = or disjoint i32 %19, 3840, !dbg !14
  %141 = or disjoint i32 %19, 3872, !dbg !14
  %142 = or disjoint i32 %19, 3904, !dbg !14
  %143 = or disjoint i32 %19, 3936, !dbg !14
  %144 = or disjoint i32 %19, 3968, !dbg !14
  %145 = or disjoint i32 %19, 4000, !dbg !14
  %146 = or disjoint i32 %19, 4032, !dbg !14
  %147 = or i32 %50, 4064, !dbg !14
  %148 = sext i32 %19 to i64, !dbg !15
  %149 = getelementptr float, ptr addrspace(1) %11, i64 %148, !dbg !15
  %150 = sext i32 %20 to i64, !dbg !15
  %151 = getelementptr float, ptr addrspace(1) %11, i64 %150, !dbg !15
  %152 = sext i32 %21 to i64, !dbg !15
  %153 = getelementptr float, ptr addrspace(1) %11, i64 %152, !dbg !15
  %154 = sext i32 %22 to i64, !dbg !15
  %155 = getelementptr float, ptr addrspace(1) %11, i64 %154, !dbg !15
  %156 = sext i32 %23 to i64, !dbg !15
  %157 = getelementptr float, ptr addrspace(1) %11, i64 %156, !dbg !15
  %158 = sext i32 %24 to i64, !dbg !15
  %159 = getelementptr float, ptr addrspace(1) %11, i64 %158, !dbg !15
  %160 = sext i32 %25 to i64, !dbg !15
  %161 = getelementptr float, ptr addrspace(1) %11, i64 %160, !dbg !15
  %162 = sext i32 %26 to i64, !dbg !15
  %163 = getelementptr float, ptr addrspace(1) %11, i64 %162, !dbg !15
  %164 = sext i32 %27 to i64, !dbg !15
  %165 = getelementptr float, ptr addrspace(1) %11, i64 %164, !dbg !15
  %166 = sext i32 %28 to i64, !dbg !15
  %167 = getelementptr float, ptr addrspace(1) %11, i64 %166, !dbg !15
  %168 = sext i32 %29 to i64, !dbg !15
  %169 = getelementptr float, ptr addrspace(1) %11, i64 %168, !dbg !15
  %170 = sext i32 %30 to i64, !dbg !15
  %171 = getelementptr float, ptr addrspace(1) %11, i64 %170, !dbg !15
  %172 = sext i32 %31 to i64, !dbg !15
  %173 = getelementptr float, ptr addrspace(1) %11, i64 %172, !dbg !15
  %174 = sext i32 %32 to i64, !dbg !15
  %175 = getelementptr float, ptr addrspace(1) %11, i64 %174, !dbg !15
  %176 = sext i32 %33 to i64, !dbg !15
  %177 = getelementptr float, ptr addrspace(1) %11, i64 %176, !dbg !15
  %178 = sext i32 %34 to i64, !dbg !15
  %179 = getelementptr float, ptr addrspace(1) %11, i64 %178, !dbg !15
  %180 = sext i32 %35 to i64, !dbg !15
  %181 = getelementptr float, ptr addrspace(1) %11, i64 %180, !dbg !15
  %182 = sext i32 %36 to i64, !dbg !15
  %183 = getelementptr float, ptr addrspace(1) %11, i64 %182, !dbg !15
  %184 = sext i32 %37 to i64, !dbg !15
  %185 = getelementptr float, ptr addrspace(1) %11, i64 %184, !dbg !15
  %186 = sext i32 %38 to i64, !dbg !15
  %187 = getelementptr float, ptr addrspace(1) %11, i64 %186, !dbg !15
  %188 = sext i32 %39 to i64, !dbg !15
  %189 = getelementptr float, ptr addrspace(1) %11, i64 %188, !dbg !15
  %190 = sext i32 %40 to i64, !dbg !15
  %191 = getelementptr float, ptr addrspace(1) %11, i64 %190, !dbg !15
  %192 = sext i32 %41 to i64, !dbg !15
  %193 = getelementptr float, ptr addrspace(1) %11, i64 %192, !dbg !15
  %194 = sext i32 %42 to i64, !dbg !15
  %195 = getelementptr float, ptr addrspace(1) %11, i64 %194, !dbg !15
  %196 = sext i32 %43 to i64, !dbg !15
  %197 = getelementptr float, ptr addrspace(1) %11, i64 %196, !dbg !15
  %198 = sext i32 %44 to i64, !dbg !15
  %199 = getelementptr float, ptr addrspace(1) %11, i64 %198, !dbg !15
  %200 = sext i32 %45 to i64, !dbg !15
  %201 = getelementptr float, ptr addrspace(1) %11, i64 %200, !dbg !15
  %202 = sext i32 %46 to i64, !dbg !15
  %203 = getelementptr float, ptr addrspace(1) %11, i64 %202, !dbg !15
  %204 = sext i32 %47 to i64, !dbg !15
  %205 = getelementptr float, ptr addrspace(1) %11, i64 %204, !dbg !15
  %206 = sext i32 %48 to i64, !dbg !15
  %207 = getelementptr float, ptr addrspace(1) %11, i64 %206, !dbg !15
  %208 = sext i32 %49 to i64, !dbg !15
  %209 = getelementptr float, ptr addrspace(1) %11, i64 %208, !dbg !15
  %210 = sext i32 %51 to i64, !dbg !15
  %211 = getelementptr float, ptr addrspace(1) %11, i64 %210, !dbg !15
  %212 = sext i32 %52 to i64, !dbg !15
  %213 = getelementptr float, ptr addrspace(1) %11, i64 %212, !dbg !15
  %214 = sext i32 %53 to i64, !dbg !15
  %215 = getelementptr float, ptr addrspace(1) %11, i64 %214, !dbg !15
  %216 = sext i32 %54 to i64, !dbg !15
  %217 = getelementptr float, ptr addrspace(1) %11, i64 %216, !dbg !15
  %218 = sext i32 %55 to i64, !dbg !15
  %219 = getelementptr float, ptr addrspace(1) %11, i64 %218, !dbg !15
  %220 = sext i32 %56 to i64, !dbg !15
  %221 = getelementptr float, ptr addrspace(1) %11, i64 %220, !dbg !15
  %222 = sext i32 %57 to i64, !dbg !15
  %223 = getelementptr float, ptr addrspace(1) %11, i64 %222, !dbg !15
  %224 = sext i32 %58 to i64, !dbg !15
  %225 = getelementptr float, ptr addrspace(1) %11, i64 %224, !dbg !15
  %226 = sext i32 %59 to i64, !dbg !15
  %227 = getelementptr float, ptr addrspace(1) %11, i64 %226, !dbg !15
  %228 = sext i32 %60 to i64, !dbg !15
  %229 = getelementptr float, ptr addrspace(1) %11, i64 %228, !dbg !15
  %230 = sext i32 %61 to i64, !dbg !15
  %231 = getelementptr float, ptr addrspace(1) %11, i64 %230, !dbg !15
  %232 = sext i32 %62 to i64, !dbg !15
  %233 = getelementptr float, ptr addrspace(1) %11, i64 %232, !dbg !15
  %234 = sext i32 %63 to i64, !dbg !15
  %235 = getelementptr float, ptr addrspace(1) %11, i64 %234, !dbg !15
  %236 = sext i32 %64 to i64, !dbg !15
  %237 = getelementptr float, ptr addrspace(1) %11, i64 %236, !dbg !15
  %238 = sext i32 %65 to i64, !dbg !15
  %239 = getelementptr float, ptr addrspace(1) %11, i64 %238, !dbg !15
  %240 = sext i32 %66 to i64, !dbg !15
  %241 = getelementptr float, ptr addrspace(1) %11, i64 %240, !dbg !15
  %242 = sext i32 %67 to i64, !dbg !15
  %243 = getelementptr float, ptr addrspace(1) %11, i64 %242, !dbg !15
  %244 = sext i32 %68 to i64, !dbg !15
  %245 = getelementptr float, ptr addrspace(1) %11, i64 %244, !dbg !15
  %246 = sext i32 %69 to i64, !dbg !15
  %247 = getelementptr float, ptr addrspace(1) %11, i64 %246, !dbg !15
  %248 = sext i32 %70 to i64, !dbg !15
  %249 = getelementptr float, ptr addrspace(1) %11, i64 %248, !dbg !15
  %250 = sext i32 %71 to i64, !dbg !15
  %251 = getelementptr float, ptr addrspace(1) %11, i64 %250, !dbg !15
  %252 = sext i32 %72 to i64, !dbg !15
  %253 = getelementptr float, ptr addrspace(1) %11, i64 %252, !dbg !15
  %254 = sext i32 %73 to i64, !dbg !15
  %255 = getelementptr float, ptr addrspace(1) %11, i64 %254, !dbg !15
  %256 = sext i32 %74 to i64, !dbg !15
  %257 = getelementptr float, ptr addrspace(1) %11, i64 %256, !dbg !15
  %258 = sext i32 %75 to i64, !dbg !15
  %259 = getelementptr float, ptr addrspace(1) %11, i64 %258, !dbg !15
  %260 = sext i32 %76 to i64, !dbg !15
  %261 = getelementptr float, ptr addrspace(1) %11, i64 %260, !dbg !15
  %262 = sext i32 %77 to i64, !dbg !15
  %263 = getelementptr float, ptr addrspace(1) %11, i64 %262, !dbg !15
  %264 = sext i32 %78 to i64, !dbg !15
  %265 = getelementptr float, ptr addrspace(1) %11, i64 %264, !dbg !15
  %266 = sext i32 %79 to i64, !dbg !15
  %267 = getelementptr float, ptr addrspace(1) %11, i64 %266, !dbg !15
  %268 = sext i32 %80 to i64, !dbg !15
  %269 = getelementptr float, ptr addrspace(1) %11, i64 %268, !dbg !15
  %270 = sext i32 %81 to i64, !dbg !15
  %271 = getelementptr float, ptr addrspace(1) %11, i64 %270, !dbg !15
  %272 = sext i32 %82 to i64, !dbg !15
  %273 = getelementptr float, ptr addrspace(1) %11, i64 %272, !dbg !15
  %274 = sext i32 %83 to i64, !dbg !15
  %275 = getelementptr float, ptr addrspace(1) %11, i64 %274, !dbg !15
  %276 = sext i32 %84 to i64, !dbg !15
  %277 = getelementptr float, ptr addrspace(1) %11, i64 %276, !dbg !15
  %278 = sext i32 %85 to i64, !dbg !15
  %279 = getelementptr float, ptr addrspace(1) %11, i64 %278, !dbg !15
  %280 = sext i32 %86 to i64, !dbg !15
  %281 = getelementptr float, ptr addrspace(1) %11, i64 %280, !dbg !15
  %282 = sext i32 %87 to i64, !dbg !15
  %283 = getelementptr float, ptr addrspace(1) %11, i64 %282, !dbg !15
  %284 = sext i32 %88 to i64, !dbg !15
  %285 = getelementptr float, ptr addrspace(1) %11, i64 %284, !dbg !15
  %286 = sext i32 %89 to i64, !dbg !15
  %287 = getelementptr float, ptr addrspace(1) %11, i64 %286, !dbg !15
  %288 = sext i32 %90 to i64, !dbg !15
  %289 = getelementptr float, ptr addrspace(1) %11, i64 %288, !dbg !15
  %290 = sext i32 %91 to i64, !dbg !15
  %291 = getelementptr float, ptr addrspace(1) %11, i64 %290, !dbg !15
  %292 = sext i32 %92 to i64, !dbg !15
  %293 = getelementptr float, ptr addrspace(1) %11, i64 %292, !dbg !15
  %294 = sext i32 %93 to i64, !dbg !15
  %295 = getelementptr float, ptr addrspace(1) %11, i64 %294, !dbg !15
  %296 = sext i32 %94 to i64, !dbg !15
  %297 = getelementptr float, ptr addrspace(1) %11, i64 %296, !dbg !15
  %298 = sext i32 %95 to i64, !dbg !15
  %299 = getelementptr float, ptr addrspace(1) %11, i64 %298, !dbg !15
  %300 = sext i32 %96 to i64, !dbg !15
  %301 = getelementptr float, ptr addrspace(1) %11, i64 %300, !dbg !15
  %302 = sext i32 %97 to i64, !dbg !15
  %303 = getelementptr float, ptr addrspace(1) %11, i64 %302, !dbg !15
  %304 = sext i32 %98 to i64, !dbg !15
  %305 = getelementptr float, ptr addrspace(1) %11, i64 %304, !dbg !15
  %306 = sext i32 %99 to i64, !dbg !15
  %307 = getelementptr float, ptr addrspace(1) %11, i64 %306, !dbg !15
  %308 = sext i32 %100 to i64, !dbg !15
  %309 = getelementptr float, ptr addrspace(1) %11, i64 %308, !dbg !15
  %310 = sext i32 %101 to i64, !dbg !15
  %311 = getelementptr float, ptr addrspace(1) %11, i64 %310, !dbg !15
  %312 = sext i32 %102 to i64, !dbg !15
  %313 = getelementptr float, ptr addrspace(1) %11, i64 %312, !dbg !15
  %314 = sext i32 %103 to i64, !dbg !15
  %315 = getelementptr float, ptr addrspace(1) %11, i64 %314, !dbg !15
  %316 = sext i32 %104 to i64, !dbg !15
  %317 = getelementptr float, ptr addrspace(1) %11, i64 %316, !dbg !15
  %318 = sext i32 %105 to i64, !dbg !15
  %319 = getelementptr float, ptr addrspace(1) %11, i64 %318, !dbg !15
  %320 = sext i32 %106 to i64, !dbg !15
  %321 = getelementptr float, ptr addrspace(1) %11, i64 %320, !dbg !15
  %322 = sext i32 %107 to i64, !dbg !15
  %323 = getelementptr float, ptr addrspace(1) %11, i64 %322, !dbg !15
  %324 = sext i32 %108 to i64, !dbg !15
  %325 = getelementptr float, ptr addrspace(1) %11, i64 %324, !dbg !15
  %326 = sext i32 %109 to i64, !dbg !15
  %327 = getelementptr float, ptr addrspace(1) %11, i64 %326, !dbg !15
  %328 = sext i32 %110 to i64, !dbg !15
  %329 = getelementptr float, ptr addrspace(1) %11, i64 %328, !dbg !15
  %330 = sext i32 %111 to i64, !dbg !15
  %331 = getelementptr float, ptr addrspace(1) %11, i64 %330, !dbg !15
  %332 = sext i32 %112 to i64, !dbg !15
  %333 = getelementptr float, ptr addrspace(1) %11, i64 %332, !dbg !15
  %334 = sext i32 %113 to i64, !dbg !15
  %335 = getelementptr float, ptr addrspace(1) %11, i64 %334, !dbg !15
  %336 = sext i32 %114 to i64, !dbg !15
  %337 = getelementptr float, ptr addrspace(1) %11, i64 %336, !dbg !15
  %338 = sext i32 %115 to i64, !dbg !15
  %339 = getelementptr float, ptr addrspace(1) %11, i64 %338, !dbg !15
  %340 = sext i32 %116 to i64, !dbg !15
  %341 = getelementptr float, ptr addrspace(1) %11, i64 %340, !dbg !15
  %342 = sext i32 %117 to i64, !dbg !15
  %343 = getelementptr float, ptr addrspace(1) %11, i64 %342, !dbg !15
  %344 = sext i32 %118 to i64, !dbg !15
  %345 = getelementptr float, ptr addrspace(1) %11, i64 %344, !dbg !15
  %346 = sext i32 %119 to i64, !dbg !15
  %347 = getelementptr float, ptr addrspace(1) %11, i64 %346, !dbg !15
  %348 = sext i32 %120 to i64, !dbg !15
  %349 = getelementptr float, ptr addrspace(1) %11, i64 %348, !dbg !15
  %350 = sext i32 %121 to i64, !dbg !15
  %351 = getelementptr float, ptr addrspace(1) %11, i64 %350, !dbg !15
  %352 = sext i32 %122 to i64, !dbg !15
  %353 = getelementptr float, ptr addrspace(1) %11, i64 %352, !dbg !15
  %354 = sext i32 %123 to i64, !dbg !15
  %355 = getelementptr float, ptr addrspace(1) %11, i64 %354, !dbg !15
  %356 = sext i32 %124 to i64, !dbg !15
  %357 = getelementptr float, ptr addrspace(1) %11, i64 %356, !dbg !15
  %358 = sext i32 %125 to i64, !dbg !15
  %359 = getelementptr float, ptr addrspace(1) %11, i64 %358, !dbg !15
  %360 = sext i32 %126 to i64, !dbg !15
  %361 = getelementptr float, ptr addrspace(1) %11, i64 %360, !dbg !15
  %362 = sext i32 %127 to i64, !dbg !15
  %363 = getelementptr float, ptr addrspace(1) %11, i64 %362, !dbg !15
  %364 = sext i32 %128 to i64, !dbg !15
  %365 = getelementptr float, ptr addrspace(1) %11, i64 %364, !dbg !15
  %366 = sext i32 %129 to i64, !dbg !15
  %367 = getelementptr float, ptr addrspace(1) %11, i64 %366, !dbg !15
  %368 = sext i32 %130 to i64, !dbg !15
  %369 = getelementptr float, ptr addrspace(1) %11, i64 %368, !dbg !15
  %370 = sext i32 %131 to i64, !dbg !15
  %371 = getelementptr float, ptr addrspace(1) %11, i64 %370, !dbg !15
  %372 = sext i32 %132 to i64, !dbg !15
  %373 = getelementptr float, ptr addrspace(1) %11, i64 %372, !dbg !15
  %374 = sext i32 %133 to i64, !dbg !15
  %375 = getelementptr float, ptr addrspace(1) %11, i64 %374, !dbg !15
  %376 = sext i32 %134 to i64, !dbg !15
  %377 = getelementptr float, ptr addrspace(1) %11, i64 %376, !dbg !15
  %378 = sext i32 %135 to i64, !dbg !15
  %379 = getelementptr float, ptr addrspace(1) %11, i64 %378, !dbg !15
  %380 = sext i32 %136 to i64, !dbg !15
  %381 = getelementptr float, ptr addrspace(1) %11, i64 %380, !dbg !15
  %382 = sext i32 %137 to i64, !dbg !15
  %383 = getelementptr float, ptr addrspace(1) %11, i64 %382, !dbg !15
  %384 = sext i32 %138 to i64, !dbg !15
  %385 = getelementptr float, ptr addrspace(1) %11, i64 %384, !dbg !15
  %386 = sext i32 %139 to i64, !dbg !15
  %387 = getelementptr float, ptr addrspace(1) %11, i64 %386, !dbg !15
  %388 = sext i32 %140 to i64, !dbg !15
  %389 = getelementptr float, ptr addrspace(1) %11, i64 %388, !dbg !15
  %390 = sext i32 %141 to i64, !dbg !15
  %391 = getelementptr float, ptr addrspace(1) %11, i64 %390, !dbg !15
  %392 = sext i32 %142 to i64, !dbg !15
  %393 = getelementptr float, ptr addrspace(1) %11, i64 %392, !dbg !15
  %394 = sext i32 %143 to i64, !dbg !15
  %395 = getelementptr float, ptr addrspace(1) %11, i64 %394, !dbg !15
  %396 = sext i32 %144 to i64, !dbg !15
  %397 = getelementptr float, ptr addrspace(1) %11, i64 %396, !dbg !15
  %398 = sext i32 %145 to i64, !dbg !15
  %399 = getelementptr float, ptr addrspace(1) %11, i64 %398, !dbg !15
  %400 = sext i32 %146 to i64, !dbg !15
  %401 = getelementptr float, ptr addrspace(1) %11, i64 %400, !dbg !15
  %402 = sext i32 %147 to i64, !dbg !15
  %403 = getelementptr float, ptr addrspace(1) %11, i64 %402, !dbg !15
  %404 = icmp slt i32 %19, %4, !dbg !16
  %405 = icmp slt i32 %20, %4, !dbg !16
  %406 = icmp slt i32 %21, %4, !dbg !16
  %407 = icmp slt i32 %22, %4, !dbg !16
  %408 = icmp slt i32 %23, %4, !dbg !16
  %409 = icmp slt i32 %24, %4, !dbg !16
  %410 = icmp slt i32 %25, %4, !dbg !16
  %411 = icmp slt i32 %26, %4, !dbg !16
  %412 = icmp slt i32 %27, %4, !dbg !16
  %413 = icmp slt i32 %28, %4, !dbg !16
  %414 = icmp slt i32 %29, %4, !dbg !16
  %415 = icmp slt i32 %30, %4, !dbg !16
  %416 = icmp slt i32 %31, %4, !dbg !16
  %417 = icmp slt i32 %32, %4, !dbg !16
  %418 = icmp slt i32 %33, %4, !dbg !16
  %419 = icmp slt i32 %34, %4, !dbg !16
  %420 = icmp slt i32 %35, %4, !dbg !16
  %421 = icmp slt i32 %36, %4, !dbg !16
  %422 = icmp slt i32 %37, %4, !dbg !16
  %423 = icmp slt i32 %38, %4, !dbg !16
  %424 = icmp slt i32 %39, %4, !dbg !16
  %425 = icmp slt i32 %40, %4, !dbg !16
  %426 = icmp slt i32 %41, %4, !dbg !16
  %427 = icmp slt i32 %42, %4, !dbg !16
  %428 = icmp slt i32 %43, %4, !dbg !16
  %429 = icmp slt i32 %44, %4, !dbg !16
  %430 = icmp slt i32 %45, %4, !dbg !16
  %431 = icmp slt i32 %46, %4, !dbg !16
  %432 = icmp slt i32 %47, %4, !dbg !16
  %433 = icmp slt i32 %48, %4, !dbg !16
  %434 = icmp slt i32 %49, %4, !dbg !16
  %435 = icmp slt i32 %51, %4, !dbg !16
  %436 = icmp slt i32 %52, %4, !dbg !16
  %437 = icmp slt i32 %53, %4, !dbg !16
  %438 = icmp slt i32 %54, %4, !dbg !16
  %439 = icmp slt i32 %55, %4, !dbg !16
  %440 = icmp slt i32 %56, %4, !dbg !16
  %441 = icmp slt i32 %57, %4, !dbg !16
  %442 = icmp slt i32 %58, %4, !dbg !16
  %443 = icmp slt i32 %59, %4, !dbg !16
  %444 = icmp slt i32 %60, %4, !dbg !16
  %445 = icmp slt i32 %61, %4, !dbg !16
  %446 = icmp slt i32 %62, %4, !dbg !16
  %447 = icmp slt i32 %63, %4, !dbg !16
  %448 = icmp slt i32 %64, %4, !dbg !16
  %449 = icmp slt i32 %65, %4, !dbg !16
  %450 = icmp slt i32 %66, %4, !dbg !16
  %451 = icmp slt i32 %67, %4, !dbg !16
  %452 = icmp slt i32 %68, %4, !dbg !16
  %453 = icmp slt i32 %69, %4, !dbg !16
  %454 = icmp slt i32 %70, %4, !dbg !16
  %455 = icmp slt i32 %71, %4, !dbg !16
  %456 = icmp slt i32 %72, %4, !dbg !16
  %457 = icmp slt i32 %73, %4, !dbg !16
  %458 = icmp slt i32 %74, %4, !dbg !16
  %459 = icmp slt i32 %75, %4, !dbg !16
  %460 = icmp slt i32 %76, %4, !dbg !16
  %461 = icmp slt i32 %77, %4, !dbg !16
  %462 = icmp slt i32 %78, %4, !dbg !16
  %463 = icmp slt i32 %79, %4, !dbg !16
  %464 = icmp slt i32 %80, %4, !dbg !16
  %465 = icmp slt i32 %81, %4, !dbg !16
  %466 = icmp slt i32 %82, %4, !dbg !16
  %467 = icmp slt i32 %83, %4, !dbg !16
  %468 = icmp slt i32 %84, %4, !dbg !16
  %469 = icmp slt i32 %85, %4, !dbg !16
  %470 = icmp slt i32 %86, %4, !dbg !16
  %471 = icmp slt i32 %87, %4, !dbg !16
  %472 = icmp slt i32 %88, %4, !dbg !16
  %473 = icmp slt i32 %89, %4, !dbg !16
  %474 = icmp slt i32 %90, %4, !dbg !16
  %475 = icmp slt i32 %91, %4, !dbg !16
  %476 = icmp slt i32 %92, %4, !dbg !16
  %477 = icmp slt i32 %93, %4, !dbg !16
  %478 = icmp slt i32 %94, %4, !dbg !16
  %479 = icmp slt i32 %95, %4, !dbg !16
  %480 = icmp slt i32 %96, %4, !dbg !16
  %481 = icmp slt i32 %97, %4, !dbg !16
  %482 = icmp slt i32 %98, %4, !dbg !16
  %483 = icmp slt i32 %99, %4, !dbg !16
  %484 = icmp slt i32 %100, %4, !dbg !16
  %485 = icmp slt i32 %101, %4, !dbg !16
  %486 = icmp slt i32 %102, %4, !dbg !16
  %487 = icmp slt i32 %103, %4, !dbg !16
  %488 = icmp slt i32 %104, %4, !dbg !16
  %489 = icmp slt i32 %105, %4, !dbg !16
  %490 = icmp slt i32 %106, %4, !dbg !16
  %491 = icmp slt i32 %107, %4, !dbg !16
  %492 = icmp slt i32 %108, %4, !dbg !16
  %493 = icmp slt i32 %109, %4, !dbg !16
  %494 = icmp slt i32 %110, %4, !dbg !16
  %495 = icmp slt i32 %111, %4, !dbg !16
  %496 = icmp slt i32 %112, %4, !dbg !16
  %497 = icmp slt i32 %113, %4, !dbg !16
  %498 = icmp slt i32 %114, %4, !dbg !16
  %499 = icmp slt i32 %115, %4, !dbg !16
  %500 = icmp slt i32 %116, %4, !dbg !16
  %501 = icmp slt i32 %117, %4, !dbg !16
  %502 = icmp slt i32 %118, %4, !dbg !16
  %503 = icmp slt i32 %119, %4, !dbg !16
  %504 = icmp slt i32 %120, %4, !dbg !16
  %505 = icmp slt i32 %121, %4, !dbg !16
  %506 = icmp slt i32 %122, %4, !dbg !16
  %507 = icmp slt i32 %123, %4, !dbg !16
  %508 = icmp slt i32 %124, %4, !dbg !16
  %509 = icmp slt i32 %125, %4, !dbg !16
  %510 = icmp slt i32 %126, %4, !dbg !16
  %511 = icmp slt i32 %127, %4, !dbg !16
  %512 = icmp slt i32 %128, %4, !dbg !16
  %513 = icmp slt i32 %129, %4, !dbg !16
  %514 = icmp slt i32 %130, %4, !dbg !16
  %515 = icmp slt i32 %131, %4, !dbg !16
  %516 = icmp slt i32 %132, %4, !dbg !16
  %517 = icmp slt i32 %133, %4, !dbg !16
  %518 = icmp slt i32 %134, %4, !dbg !16
  %519 = icmp slt i32 %135, %4, !dbg !16
  %520 = icmp slt i32 %136, %4, !dbg !16
  %521 = icmp slt i32 %137, %4, !dbg !16
  %522 = icmp slt i32 %138, %4, !dbg !16
  %523 = icmp slt i32 %139, %4, !dbg !16
  %524 = icmp slt i32 %140, %4, !dbg !16
  %525 = icmp slt i32 %141, %4, !dbg !16
  %526 = icmp slt i32 %142, %4, !dbg !16
  %527 = icmp slt i32 %143, %4, !dbg !16
  %528 = icmp slt i32 %144, %4, !dbg !16
  %529 = icmp slt i32 %145, %4, !dbg !16
  %530 = icmp slt i32 %146, %4, !dbg !16
  %531 = icmp slt i32 %147, %4, !dbg !16
  %532 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %149, i1 %404) #2, !dbg !17
  %533 = bitcast i32 %532 to float, !dbg !17
  %534 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %151, i1 %405) #2, !dbg !17
  %535 = bitcast i32 %534 to float, !dbg !17
  %536 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %153, i1 %406) #2, !dbg !17
  %537 = bitcast i32 %536 to float, !dbg !17
  %538 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %155, i1 %407) #2, !dbg !17
  %539 = bitcast i32 %538 to float, !dbg !17
  %540 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %157, i1 %408) #2, !dbg !17
  %541 = bitcast i32 %540 to float, !dbg !17
  %542 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %159, i1 %409) #2, !dbg !17
  %543 = bitcast i32 %542 to float, !dbg !17
  %544 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %161, i1 %410) #2, !dbg !17
  %545 = bitcast i32 %544 to float, !dbg !17
  %546 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %163, i1 %411) #2, !dbg !17
  %547 = bitcast i32 %546 to float, !dbg !17
  %548 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %165, i1 %412) #2, !dbg !17
  %549 = bitcast i32 %548 to float, !dbg !17
  %550 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %167, i1 %413) #2, !dbg !17
  %551 = bitcast i32 %550 to float, !dbg !17
  %552 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %169, i1 %414) #2, !dbg !17
  %553 = bitcast i32 %552 to float, !dbg !17
  %554 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %171, i1 %415) #2, !dbg !17
  %555 = bitcast i32 %554 to float, !dbg !17
  %556 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %173, i1 %416) #2, !dbg !17
  %557 = bitcast i32 %556 to float, !dbg !17
  %558 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %175, i1 %417) #2, !dbg !17
  %559 = bitcast i32 %558 to float, !dbg !17
  %560 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %177, i1 %418) #2, !dbg !17
  %561 = bitcast i32 %560 to float, !dbg !17
  %562 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %179, i1 %419) #2, !dbg !17
  %563 = bitcast i32 %562 to float, !dbg !17
  %564 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %181, i1 %420) #2, !dbg !17
  %565 = bitcast i32 %564 to float, !dbg !17
  %566 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %183, i1 %421) #2, !dbg !17
  %567 = bitcast i32 %566 to float, !dbg !17
  %568 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %185, i1 %422) #2, !dbg !17
  %569 = bitcast i32 %568 to float, !dbg !17
  %570 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %187, i1 %423) #2, !dbg !17
  %571 = bitcast i32 %570 to float, !dbg !17
  %572 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %189, i1 %424) #2, !dbg !17
  %573 = bitcast i32 %572 to float, !dbg !17
  %574 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %191, i1 %425) #2, !dbg !17
  %575 = bitcast i32 %574 to float, !dbg !17
  %576 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %193, i1 %426) #2, !dbg !17
  %577 = bitcast i32 %576 to float, !dbg !17
  %578 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %195, i1 %427) #2, !dbg !17
  %579 = bitcast i32 %578 to float, !dbg !17
  %580 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %197, i1 %428) #2, !dbg !17
  %581 = bitcast i32 %580 to float, !dbg !17
  %582 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %199, i1 %429) #2, !dbg !17
  %583 = bitcast i32 %582 to float, !dbg !17
  %584 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %201, i1 %430) #2, !dbg !17
  %585 = bitcast i32 %584 to float, !dbg !17
  %586 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %203, i1 %431) #2, !dbg !17
  %587 = bitcast i32 %586 to float, !dbg !17
  %588 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %205, i1 %432) #2, !dbg !17
  %589 = bitcast i32 %588 to float, !dbg !17
  %590 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %207, i1 %433) #2, !dbg !17
  %591 = bitcast i32 %590 to float, !dbg !17
  %592 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %209, i1 %434) #2, !dbg !17
  %593 = bitcast i32 %592 to float, !dbg !17
  %594 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %211, i1 %435) #2, !dbg !17
  %595 = bitcast i32 %594 to float, !dbg !17
  %596 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %213, i1 %436) #2, !dbg !17
  %597 = bitcast i32 %596 to float, !dbg !17
  %598 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %215, i1 %437) #2, !dbg !17
  %599 = bitcast i32 %598 to float, !dbg !17
  %600 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %217, i1 %438) #2, !dbg !17
  %601 = bitcast i32 %600 to float, !dbg !17
  %602 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %219, i1 %439) #2, !dbg !17
  %603 = bitcast i32 %602 to float, !dbg !17
  %604 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %221, i1 %440) #2, !dbg !17
  %605 = bitcast i32 %604 to float, !dbg !17
  %606 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %223, i1 %441) #2, !dbg !17
  %607 = bitcast i32 %606 to float, !dbg !17
  %608 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %225, i1 %442) #2, !dbg !17
  %609 = bitcast i32 %608 to float, !dbg !17
  %610 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %227, i1 %443) #2, !dbg !17
  %611 = bitcast i32 %610 to float, !dbg !17
  %612 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %229, i1 %444) #2, !dbg !17
  %613 = bitcast i32 %612 to float, !dbg !17
  %614 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %231, i1 %445) #2, !dbg !17
  %615 = bitcast i32 %614 to float, !dbg !17
  %616 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %233, i1 %446) #2, !dbg !17
  %617 = bitcast i32 %616 to float, !dbg !17
  %618 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %235, i1 %447) #2, !dbg !17
  %619 = bitcast i32 %618 to float, !dbg !17
  %620 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %237, i1 %448) #2, !dbg !17
  %621 = bitcast i32 %620 to float, !dbg !17
  %622 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %239, i1 %449) #2, !dbg !17
  %623 = bitcast i32 %622 to float, !dbg !17
  %624 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %241, i1 %450) #2, !dbg !17
  %625 = bitcast i32 %624 to float, !dbg !17
  %626 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %243, i1 %451) #2, !dbg !17
  %627 = bitcast i32 %626 to float, !dbg !17
  %628 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %245, i1 %452) #2, !dbg !17
  %629 = bitcast i32 %628 to float, !dbg !17
  %630 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %247, i1 %453) #2, !dbg !17
  %631 = bitcast i32 %630 to float, !dbg !17
  %632 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %249, i1 %454) #2, !dbg !17
  %633 = bitcast i32 %632 to float, !dbg !17
  %634 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %251, i1 %455) #2, !dbg !17
  %635 = bitcast i32 %634 to float, !dbg !17
  %636 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %253, i1 %456) #2, !dbg !17
  %637 = bitcast i32 %636 to float, !dbg !17
  %638 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %255, i1 %457) #2, !dbg !17
  %639 = bitcast i32 %638 to float, !dbg !17
  %640 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %257, i1 %458) #2, !dbg !17
  %641 = bitcast i32 %640 to float, !dbg !17
  %642 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %259, i1 %459) #2, !dbg !17
  %643 = bitcast i32 %642 to float, !dbg !17
  %644 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %261, i1 %460) #2, !dbg !17
  %645 = bitcast i32 %644 to float, !dbg !17
  %646 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %263, i1 %461) #2, !dbg !17
  %647 = bitcast i32 %646 to float, !dbg !17
  %648 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %265, i1 %462) #2, !dbg !17
  %649 = bitcast i32 %648 to float, !dbg !17
  %650 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %267, i1 %463) #2, !dbg !17
  %651 = bitcast i32 %650 to float, !dbg !17
  %652 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %269, i1 %464) #2, !dbg !17
  %653 = bitcast i32 %652 to float, !dbg !17
  %654 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %271, i1 %465) #2, !dbg !17
  %655 = bitcast i32 %654 to float, !dbg !17
  %656 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %273, i1 %466) #2, !dbg !17
  %657 = bitcast i32 %656 to float, !dbg !17
  %658 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %275, i1 %467) #2, !dbg !17
  %659 = bitcast i32 %658 to float, !dbg !17
  %660 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %277, i1 %468) #2, !dbg !17
  %661 = bitcast i32 %660 to float, !dbg !17
  %662 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %279, i1 %469) #2, !dbg !17
  %663 = bitcast i32 %662 to float, !dbg !17
  %664 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %281, i1 %470) #2, !dbg !17
  %665 = bitcast i32 %664 to float, !dbg !17
  %666 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %283, i1 %471) #2, !dbg !17
  %667 = bitcast i32 %666 to float, !dbg !17
  %668 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %285, i1 %472) #2, !dbg !17
  %669 = bitcast i32 %668 to float, !dbg !17
  %670 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %287, i1 %473) #2, !dbg !17
  %671 = bitcast i32 %670 to float, !dbg !17
  %672 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %289, i1 %474) #2, !dbg !17
  %673 = bitcast i32 %672 to float, !dbg !17
  %674 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %291, i1 %475) #2, !dbg !17
  %675 = bitcast i32 %674 to float, !dbg !17
  %676 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %293, i1 %476) #2, !dbg !17
  %677 = bitcast i32 %676 to float, !dbg !17
  %678 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %295, i1 %477) #2, !dbg !17
  %679 = bitcast i32 %678 to float, !dbg !17
  %680 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %297, i1 %478) #2, !dbg !17
  %681 = bitcast i32 %680 to float, !dbg !17
  %682 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %299, i1 %479) #2, !dbg !17
  %683 = bitcast i32 %682 to float, !dbg !17
  %684 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %301, i1 %480) #2, !dbg !17
  %685 = bitcast i32 %684 to float, !dbg !17
  %686 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %303, i1 %481) #2, !dbg !17
  %687 = bitcast i32 %686 to float, !dbg !17
  %688 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %305, i1 %482) #2, !dbg !17
  %689 = bitcast i32 %688 to float, !dbg !17
  %690 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %307, i1 %483) #2, !dbg !17
  %691 = bitcast i32 %690 to float, !dbg !17
  %692 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %309, i1 %484) #2, !dbg !17
  %693 = bitcast i32 %692 to float, !dbg !17
  %694 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %311, i1 %485) #2, !dbg !17
  %695 = bitcast i32 %694 to float, !dbg !17
  %696 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %313, i1 %486) #2, !dbg !17
  %697 = bitcast i32 %696 to float, !dbg !17
  %698 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %315, i1 %487) #2, !dbg !17
  %699 = bitcast i32 %698 to float, !dbg !17
  %700 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %317, i1 %488) #2, !dbg !17
  %701 = bitcast i32 %700 to float, !dbg !17
  %702 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %319, i1 %489) #2, !dbg !17
  %703 = bitcast i32 %702 to float, !dbg !17
  %704 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %321, i1 %490) #2, !dbg !17
  %705 = bitcast i32 %704 to float, !dbg !17
  %706 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %323, i1 %491) #2, !dbg !17
  %707 = bitcast i32 %706 to float, !dbg !17
  %708 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %325, i1 %492) #2, !dbg !17
  %709 = bitcast i32 %708 to float, !dbg !17
  %710 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %327, i1 %493) #2, !dbg !17
  %711 = bitcast i32 %710 to float, !dbg !17
  %712 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %329, i1 %494) #2, !dbg !17
  %713 = bitcast i32 %712 to float, !dbg !17
  %714 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %331, i1 %495) #2, !dbg !17
  %715 = bitcast i32 %714 to float, !dbg !17
  %716 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %333, i1 %496) #2, !dbg !17
  %717 = bitcast i32 %716 to float, !dbg !17
  %718 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %335, i1 %497) #2, !dbg !17
  %719 = bitcast i32 %718 to float, !dbg !17
  %720 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %337, i1 %498) #2, !dbg !17
  %721 = bitcast i32 %720 to float, !dbg !17
  %722 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %339, i1 %499) #2, !dbg !17
  %723 = bitcast i32 %722 to float, !dbg !17
  %724 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %341, i1 %500) #2, !dbg !17
  %725 = bitcast i32 %724 to float, !dbg !17
  %726 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %343, i1 %501) #2, !dbg !17
  %727 = bitcast i32 %726 to float, !dbg !17
  %728 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %345, i1 %502) #2, !dbg !17
  %729 = bitcast i32 %728 to float, !dbg !17
  %730 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %347, i1 %503) #2, !dbg !17
  %731 = bitcast i32 %730 to float, !dbg !17
  %732 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %349, i1 %504) #2, !dbg !17
  %733 = bitcast i32 %732 to float, !dbg !17
  %734 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %351, i1 %505) #2, !dbg !17
  %735 = bitcast i32 %734 to float, !dbg !17
  %736 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %353, i1 %506) #2, !dbg !17
  %737 = bitcast i32 %736 to float, !dbg !17
  %738 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %355, i1 %507) #2, !dbg !17
  %739 = bitcast i32 %738 to float, !dbg !17
  %740 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %357, i1 %508) #2, !dbg !17
  %741 = bitcast i32 %740 to float, !dbg !17
  %742 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %359, i1 %509) #2, !dbg !17
  %743 = bitcast i32 %742 to float, !dbg !17
  %744 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %361, i1 %510) #2, !dbg !17
  %745 = bitcast i32 %744 to float, !dbg !17
  %746 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %363, i1 %511) #2, !dbg !17
  %747 = bitcast i32 %746 to float, !dbg !17
  %748 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %365, i1 %512) #2, !dbg !17
  %749 = bitcast i32 %748 to float, !dbg !17
  %750 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %367, i1 %513) #2, !dbg !17
  %751 = bitcast i32 %750 to float, !dbg !17
  %752 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %369, i1 %514) #2, !dbg !17
  %753 = bitcast i32 %752 to float, !dbg !17
  %754 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %371, i1 %515) #2, !dbg !17
  %755 = bitcast i32 %754 to float, !dbg !17
  %756 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %373, i1 %516) #2, !dbg !17
  %757 = bitcast i32 %756 to float, !dbg !17
  %758 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %375, i1 %517) #2, !dbg !17
  %759 = bitcast i32 %758 to float, !dbg !17
  %760 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %377, i1 %518) #2, !dbg !17
  %761 = bitcast i32 %760 to float, !dbg !17
  %762 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %379, i1 %519) #2, !dbg !17
  %763 = bitcast i32 %762 to float, !dbg !17
  %764 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %381, i1 %520) #2, !dbg !17
  %765 = bitcast i32 %764 to float, !dbg !17
  %766 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %383, i1 %521) #2, !dbg !17
  %767 = bitcast i32 %766 to float, !dbg !17
  %768 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %385, i1 %522) #2, !dbg !17
  %769 = bitcast i32 %768 to float, !dbg !17
  %770 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %387, i1 %523) #2, !dbg !17
  %771 = bitcast i32 %770 to float, !dbg !17
  %772 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %389, i1 %524) #2, !dbg !17
  %773 = bitcast i32 %772 to float, !dbg !17
  %774 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %391, i1 %525) #2, !dbg !17
  %775 = bitcast i32 %774 to float, !dbg !17
  %776 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %393, i1 %526) #2, !dbg !17
  %777 = bitcast i32 %776 to float, !dbg !17
  %778 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %395, i1 %527) #2, !dbg !17
  %779 = bitcast i32 %778 to float, !dbg !17
  %780 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %397, i1 %528) #2, !dbg !17
  %781 = bitcast i32 %780 to float, !dbg !17
  %782 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %399, i1 %529) #2, !dbg !17
  %783 = bitcast i32 %782 to float, !dbg !17
  %784 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %401, i1 %530) #2, !dbg !17
  %785 = bitcast i32 %784 to float, !dbg !17
  %786 = tail call i32 asm sideeffect "mov.u32 $0, $1;\0A\09@$3 ld.global.b32 { $0 }, [ $2 + 0 ];", "=r,r,l,b"(i32 -8388608, ptr addrspace(1) %403, i1 %531) #2, !dbg !17
  %787 = bitcast i32 %786 to float, !dbg !17
  %788 = fmul float %533, %533, !dbg !18
  %789 = fmul float %535, %535, !dbg !18
  %790 = fmul float %537, %537, !dbg !18
  %791 = fmul float %539, %539, !dbg !18
  %792 = fmul float %541, %541, !dbg !18
  %793 = fmul float %543, %543, !dbg !18
  %794 = fmul float %545, %545, !dbg !18
  %795 = fmul float %547, %547, !dbg !18
  %796 = fmul float %549, %549, !dbg !18
  %797 = fmul float %551, %551, !dbg !18
  %798 = fmul float %553, %553, !dbg !18
  %799 = fmul float %555, %555, !dbg !18
  %800 = fmul float %557, %557, !dbg !18
  %801 = fmul float %559, %559, !dbg !18
  %802 = fmul float %561, %561, !dbg !18
  %803 = fmul float %563, %563, !dbg !18
  %804 = fmul float %565, %565, !dbg !18
  %805 = fmul float %567, %567, !dbg !18
  %806 = fmul float %569, %569, !dbg !18
  %807 = fmul float %571, %571, !dbg !18
  %808 = fmul float %573, %573, !dbg !18
  %809 = fmul float %575, %575, !dbg !18
  %810 = fmul float %577, %577, !dbg !18
  %811 = fmul float %579, %579, !dbg !18
  %812 = fmul float %581, %581, !dbg !18
  %813 = fmul float %583, %583, !dbg !18
  %814 = fmul float %585, %585, !dbg !18
  %815 = fmul float %587, %587, !dbg !18
  %816 = fmul float %589, %589, !dbg !18
  %817 = fmul float %591, %591, !dbg !18
  %818 = fmul float %593, %593, !dbg !18
  %819 = fmul float %595, %595, !dbg !18
  %820 = fmul float %597, %597, !dbg !18
  %821 = fmul float %599, %599, !dbg !18
  %822 = fmul float %601, %601, !dbg !18
  %823 = fmul float %603, %603, !dbg !18
  %824 = fmul float %605, %605, !dbg !18
  %825 = fmul float %607, %607, !dbg !18
  %826 = fmul float %609, %609, !dbg !18
  %827 = fmul float %611, %611, !dbg !18
  %828 = fmul float %613, %613, !dbg !18
  %829 = fmul float %615, %615, !dbg !18
  %830 = fmul float %617, %617, !dbg !18
  %831 = fmul float %619, %619, !dbg !18
  %832 = fmul float %621, %621, !dbg !18
  %833 = fmul float %623, %623, !dbg !18
  %834 = fmul float %625, %625, !dbg !18
  %835 = fmul float %627, %627, !dbg !18
  %836 = fmul float %629, %629, !dbg !18
  %837 = fmul float %631, %631, !dbg !18
  %838 = fmul float %633, %633, !dbg !18
  %839 = fmul float %635, %635, !dbg !18
  %840 = fmul float %637, %637, !dbg !18
  %841 = fmul float %639, %639, !dbg !18
  %842 = fmul float %641, %641, !dbg !18
  %843 = fmul float %643, %643, !dbg !18
  %844 = fmul float %645, %645, !dbg !18
  %845 = fmul float %647, %647, !dbg !18
  %846 = fmul float %649, %649, !dbg !18
  %847 = fmul float %651, %651, !dbg !18
  %848 = fmul float %653, %653, !dbg !18
  %849 = fmul float %655, %655, !dbg !18
  %850 = fmul float %657, %657, !dbg !18
  %851 = fmul float %659, %659, !dbg !18
  %852 = fmul float %661, %661, !dbg !18
  %853 = fmul float %663, %663, !dbg !18
  %854 = fmul float %665, %665, !dbg !18
  %855 = fmul float %667, %667, !dbg !18
  %856 = fmul float %669, %669, !dbg !18
  %857 = fmul float %671, %671, !dbg !18
  %858 = fmul float %673, %673, !dbg !18
  %859 = fmul float %675, %675, !dbg !18
  %860 = fmul float %677, %677, !dbg !18
  %861 = fmul float %679, %679, !dbg !18
  %862 = fmul float %681, %681, !dbg !18
  %863 = fmul float %683, %683, !dbg !18
  %864 = fmul float %685, %685, !dbg !18
  %865 = fmul float %687, %687, !dbg !18
  %866 = fmul float %689, %689, !dbg !18
  %867 = fmul float %691, %691, !dbg !18
  %868 = fmul float %693, %693, !dbg !18
  %869 = fmul float %695, %695, !dbg !18
  %870 = fmul float %697, %697, !dbg !18
  %871 = fmul float %699, %699, !dbg !18
  %872 = fmul float %701, %701, !dbg !18
  %873 = fmul float %703, %703, !dbg !18
  %874 = fmul float %705, %705, !dbg !18
  %875 = fmul float %707, %707, !dbg !18
  %876 = fmul float %709, %709, !dbg !18
  %877 = fmul float %711, %711, !dbg !18
  %878 = fmul float %713, %713, !dbg !18
  %879 = fmul float %715, %715, !dbg !18
  %880 = fmul float %717, %717, !dbg !18
  %881 = fmul float %719, %719, !dbg !18
  %882 = fmul float %721, %721, !dbg !18
  %883 = fmul float %723, %723, !dbg !18
  %884 = fmul float %725, %725, !dbg !18
  %885 = fmul float %727, %727, !dbg !18
  %886 = fmul float %729, %729, !dbg !18
  %887 = fmul float %731, %731, !dbg !18
  %888 = fmul float %733, %733, !dbg !18
  %889 = fmul float %735, %735, !dbg !18
  %890 = fmul float %737, %737, !dbg !18
  %891 = fmul float %739, %739, !dbg !18
  %892 = fmul float %741, %741, !dbg !18
  %893 = fmul float %743, %743, !dbg !18
  %894 = fmul float %745, %745, !dbg !18
  %895 = fmul float %747, %747, !dbg !18
  %896 = fmul float %749, %749, !dbg !18
  %897 = fmul float %751, %751, !dbg !18
  %898 = fmul float %753, %753, !dbg !18
  %899 = fmul float %755, %755, !dbg !18
  %900 = fmul float %757, %757, !dbg !18
  %901 = fmul float %759, %759, !dbg !18
  %902 = fmul float %761, %761, !dbg !18
  %903 = fmul float %763, %763, !dbg !18
  %904 = fmul float %765, %765, !dbg !18
  %905 = fmul float %767, %767, !dbg !18
  %906 = fmul float %769, %769, !dbg !18
  %907 = fmul float %771, %771, !dbg !18
  %908 = fmul float %773, %773, !dbg !18
  %909 = fmul float %775, %775, !dbg !18
  %910 = fmul float %777, %777, !dbg !18
  %911 = fmul float %779, %779, !dbg !18
  %912 = fmul float %781, %781, !dbg !18
  %913 = fmul float %783, %783, !dbg !18
  %914 = fmul float %785, %785, !dbg !18
  %915 = fmul float %787, %787, !dbg !18
  %916 = getelementptr float, ptr addrspace(1) %14, i64 %148, !dbg !19
  %917 = getelementptr float, ptr addrspace(1) %14, i64 %150, !dbg !19
  %918 = getelementptr float, ptr addrspace(1) %14, i64 %152, !dbg !19
  %919 = getelementptr float, ptr addrspace(1) %14, i64 %154, !dbg !19
  %920 = getelementptr float, ptr addrspace(1) %14, i64 %156, !dbg !19
  %921 = getelementptr float, ptr addrspace(1) %14, i64 %158, !dbg !19
  %922 = getelementptr float, ptr addrspace(1) %14, i64 %160, !dbg !19
  %923 = getelementptr float, ptr addrspace(1) %14, i64 %162, !dbg !19
  %924 = getelementptr float, ptr addrspace(1) %14, i64 %164, !dbg !19
  %925 = getelementptr float, ptr addrspace(1) %14, i64 %166, !dbg !19
  %926 = getelementptr float, ptr addrspace(1) %14, i64 %168, !dbg !19
  %927 = getelementptr float, ptr addrspace(1) %14, i64 %170, !dbg !19
  %928 = getelementptr float, ptr addrspace(1) %14, i64 %172, !dbg !19
  %929 = getelementptr float, ptr addrspace(1) %14, i64 %174, !dbg !19
  %930 = getelementptr float, ptr addrspace(1) %14, i64 %176, !dbg !19
  %931 = getelementptr float, ptr addrspace(1) %14, i64 %178, !dbg !19
  %932 = getelementptr float, ptr addrspace(1) %14, i64 %180, !dbg !19
  %933 = getelementptr float, ptr addrspace(1) %14, i64 %182, !dbg !19
  %934 = getelementptr float, ptr addrspace(1) %14, i64 %184, !dbg !19
  %935 = getelementptr float, ptr addrspace(1) %14, i64 %186, !dbg !19
  %936 = getelementptr float, ptr addrspace(1) %14, i64 %188, !dbg !19
  %937 = getelementptr float, ptr addrspace(1) %14, i64 %190, !dbg !19
  %938 = getelementptr float, ptr addrspace(1) %14, i64 %192, !dbg !19
  %939 = getelementptr float, ptr addrspace(1) %14, i64 %194, !dbg !19
  %940 = getelementptr float, ptr addrspace(1) %14, i64 %196, !dbg !19
  %941 = getelementptr float, ptr addrspace(1) %14, i64 %198, !dbg !19
  %942 = getelementptr float, ptr addrspace(1) %14, i64 %200, !dbg !19
  %943 = getelementptr float, ptr addrspace(1) %14, i64 %202, !dbg !19
  %944 = getelementptr float, ptr addrspace(1) %14, i64 %204, !dbg !19
  %945 = getelementptr float, ptr addrspace(1) %14, i64 %206, !dbg !19
  %946 = getelementptr float, ptr addrspace(1) %14, i64 %208, !dbg !19
  %947 = getelementptr float, ptr addrspace(1) %14, i64 %210, !dbg !19
  %948 = getelementptr float, ptr addrspace(1) %14, i64 %212, !dbg !19
  %949 = getelementptr float, ptr addrspace(1) %14, i64 %214, !dbg !19
  %950 = getelementptr float, ptr addrspace(1) %14, i64 %216, !dbg !19
  %951 = getelementptr float, ptr addrspace(1) %14, i64 %218, !dbg !19
  %952 = getelementptr float, ptr addrspace(1) %14, i64 %220, !dbg !19
  %953 = getelementptr float, ptr addrspace(1) %14, i64 %222, !dbg !19
  %954 = getelementptr float, ptr addrspace(1) %14, i64 %224, !dbg !19
  %955 = getelementptr float, ptr addrspace(1) %14, i64 %226, !dbg !19
  %956 = getelementptr float, ptr addrspace(1) %14, i64 %228, !dbg !19
  %957 = getelementptr float, ptr addrspace(1) %14, i64 %230, !dbg !19
  %958 = getelementptr float, ptr addrspace(1) %14, i64 %232, !dbg !19
  %959 = getelementptr float, ptr addrspace(1) %14, i64 %234, !dbg !19
  %960 = getelementptr float, ptr addrspace(1) %14, i64 %236, !dbg !19
  %961 = getelementptr float, ptr addrspace(1) %14, i64 %238, !dbg !19
  %962 = getelementptr float, ptr addrspace(1) %14, i64 %240, !dbg !19
  %963 = getelementptr float, ptr addrspace(1) %14, i64 %242, !dbg !19
  %964 = getelementptr float, ptr addrspace(1) %14, i64 %244, !dbg !19
  %965 = getelementptr float, ptr addrspace(1) %14, i64 %246, !dbg !19
  %966 = getelementptr float, ptr addrspace(1) %14, i64 %248, !dbg !19
  %967 = getelementptr float, ptr addrspace(1) %14, i64 %250, !dbg !19
  %968 = getelementptr float, ptr addrspace(1) %14, i64 %252, !dbg !19
  %969 = getelementptr float, ptr addrspace(1) %14, i64 %254, !dbg !19
  %970 = getelementptr float, ptr addrspace(1) %14, i64 %256, !dbg !19
  %971 = getelementptr float, ptr addrspace(1) %14, i64 %258, !dbg !19
  %972 = getelementptr float, ptr addrspace(1) %14, i64 %260, !dbg !19
  %973 = getelementptr float, ptr addrspace(1) %14, i64 %262, !dbg !19
  %974 = getelementptr float, ptr addrspace(1) %14, i64 %264, !dbg !19
  %975 = getelementptr float, ptr addrspace(1) %14, i64 %266, !dbg !19
  %976 = getelementptr float, ptr addrspace(1) %14, i64 %268, !dbg !19
  %977 = getelementptr float, ptr addrspace(1) %14, i64 %270, !dbg !19
  %978 = getelementptr float, ptr addrspace(1) %14, i64 %272, !dbg !19
  %979 = getelementptr float, ptr addrspace(1) %14, i64 %274, !dbg !19
  %980 = getelementptr float, ptr addrspace(1) %14, i64 %276, !dbg !19
  %981 = getelementptr float, ptr addrspace(1) %14, i64 %278, !dbg !19
  %982 = getelementptr float, ptr addrspace(1) %14, i64 %280, !dbg !19
  %983 = getelementptr float, ptr addrspace(1) %14, i64 %282, !dbg !19
  %984 = getelementptr float, ptr addrspace(1) %14, i64 %284, !dbg !19
  %985 = getelementptr float, ptr addrspace(1) %14, i64 %286, !dbg !19
  %986 = getelementptr float, ptr addrspace(1) %14, i64 %288, !dbg !19
  %987 = getelementptr float, ptr addrspace(1) %14, i64 %290, !dbg !19
  %988 = getelementptr float, ptr addrspace(1) %14, i64 %292, !dbg !19
  %989 = getelementptr float, ptr addrspace(1) %14, i64 %294, !dbg !19
  %990 = getelementptr float, ptr addrspace(1) %14, i64 %296, !dbg !19
  %991 = getelementptr float, ptr addrspace(1) %14, i64 %298, !dbg !19
  %992 = getelementptr float, ptr addrspace(1) %14, i64 %300, !dbg !19
  %993 = getelementptr float, ptr addrspace(1) %14, i64 %302, !dbg !19
  %994 = getelementptr float, ptr addrspace(1) %14, i64 %304, !dbg !19
  %995 = getelementptr float, ptr addrspace(1) %14, i64 %306, !dbg !19
  %996 = getelementptr float, ptr addrspace(1) %14, i64 %308, !dbg !19
  %997 = getelementptr float, ptr addrspace(1) %14, i64 %310, !dbg !19
  %998 = getelementptr float, ptr addrspace(1) %14, i64 %312, !dbg !19
  %999 = getelementptr float, ptr addrspace(1) %14, i64 %314, !dbg !19
  %1000 = getelementptr float, ptr addrspace(1) %14, i64 %316, !dbg !19
  %1001 = getelementptr float, ptr addrspace(1) %14, i64 %318, !dbg !19
  %1002 = getelementptr float, ptr addrspace(1) %14, i64 %320, !dbg !19
  %1003 = getelementptr float, ptr addrspace(1) %14, i64 %322, !dbg !19
  %1004 = getelementptr float, ptr addrspace(1) %14, i64 %324, !dbg !19
  %1005 = getelementptr float, ptr addrspace(1) %14, i64 %326, !dbg !19
  %1006 = getelementptr float, ptr addrspace(1) %14, i64 %328, !dbg !19
  %1007 = getelementptr float, ptr addrspace(1) %14, i64 %330, !dbg !19
  %1008 = getelementptr float, ptr addrspace(1) %14, i64 %332, !dbg !19
  %1009 = getelementptr float, ptr addrspace(1) %14, i64 %334, !dbg !19
  %1010 = getelementptr float, ptr addrspace(1) %14, i64 %336, !dbg !19
  %1011 = getelementptr float, ptr addrspace(1) %14, i64 %338, !dbg !19
  %1012 = getelementptr float, ptr addrspace(1) %14, i64 %340, !dbg !19
  %1013 = getelementptr float, ptr addrspace(1) %14, i64 %342, !dbg !19
  %1014 = getelementptr float, ptr addrspace(1) %14, i64 %344, !dbg !19
  %1015 = getelementptr float, ptr addrspace(1) %14, i64 %346, !dbg !19
  %1016 = getelementptr float, ptr addrspace(1) %14, i64 %348, !dbg !19
  %1017 = getelementptr float, ptr addrspace(1) %14, i64 %350, !dbg !19
  %1018 = getelementptr float, ptr addrspace(1) %14, i64 %352, !dbg !19
  %1019 = getelementptr float, ptr addrspace(1) %14, i64 %354, !dbg !19
  %1020 = getelementptr float, ptr addrspace(1) %14, i64 %356, !dbg !19
  %1021 = getelementptr float, ptr addrspace(1) %14, i64 %358, !dbg !19
  %1022 = getelementptr float, ptr addrspace(1) %14, i64 %360, !dbg !19
  %1023 = getelementptr float, ptr addrspace(1) %14, i64 %362, !dbg !19
  %1024 = getelementptr float, ptr addrspace(1) %14, i64 %364, !dbg !19
  %1025 = getelementptr float, ptr addrspace(1) %14, i64 %366, !dbg !19
  %1026 = getelementptr float, ptr addrspace(1) %14, i64 %368, !dbg !19
  %1027 = getelementptr float, ptr addrspace(1) %14, i64 %370, !dbg !19
  %1028 = getelementptr float, ptr addrspace(1) %14, i64 %372, !dbg !19
  %1029 = getelementptr float, ptr addrspace(1) %14, i64 %374, !dbg !19
  %1030 = getelementptr float, ptr addrspace(1) %14, i64 %376, !dbg !19
  %1031 = getelementptr float, ptr addrspace(1) %14, i64 %378, !dbg !19
  %1032 = getelementptr float, ptr addrspace(1) %14, i64 %380, !dbg !19
  %1033 = getelementptr float, ptr addrspace(1) %14, i64 %382, !dbg !19
  %1034 = getelementptr float, ptr addrspace(1) %14, i64 %384, !dbg !19
  %1035 = getelementptr float, ptr addrspace(1) %14, i64 %386, !dbg !19
  %1036 = getelementptr float, ptr addrspace(1) %14, i64 %388, !dbg !19
  %1037 = getelementptr float, ptr addrspace(1) %14, i64 %390, !dbg !19
  %1038 = getelementptr float, ptr addrspace(1) %14, i64 %392, !dbg !19
  %1039 = getelementptr float, ptr addrspace(1) %14, i64 %394, !dbg !19
  %1040 = getelementptr float, ptr addrspace(1) %14, i64 %396, !dbg !19
  %1041 = getelementptr float, ptr addrspace(1) %14, i64 %398, !dbg !19
  %1042 = getelementptr float, ptr addrspace(1) %14, i64 %400, !dbg !19
  %1043 = getelementptr float, ptr addrspace(1) %14, i64 %402, !dbg !19
  %1044 = bitcast float %788 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1044, ptr addrspace(1) %916, i1 %404) #2, !dbg !20
  %1045 = bitcast float %789 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1045, ptr addrspace(1) %917, i1 %405) #2, !dbg !20
  %1046 = bitcast float %790 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1046, ptr addrspace(1) %918, i1 %406) #2, !dbg !20
  %1047 = bitcast float %791 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1047, ptr addrspace(1) %919, i1 %407) #2, !dbg !20
  %1048 = bitcast float %792 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1048, ptr addrspace(1) %920, i1 %408) #2, !dbg !20
  %1049 = bitcast float %793 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1049, ptr addrspace(1) %921, i1 %409) #2, !dbg !20
  %1050 = bitcast float %794 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1050, ptr addrspace(1) %922, i1 %410) #2, !dbg !20
  %1051 = bitcast float %795 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1051, ptr addrspace(1) %923, i1 %411) #2, !dbg !20
  %1052 = bitcast float %796 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1052, ptr addrspace(1) %924, i1 %412) #2, !dbg !20
  %1053 = bitcast float %797 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1053, ptr addrspace(1) %925, i1 %413) #2, !dbg !20
  %1054 = bitcast float %798 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1054, ptr addrspace(1) %926, i1 %414) #2, !dbg !20
  %1055 = bitcast float %799 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1055, ptr addrspace(1) %927, i1 %415) #2, !dbg !20
  %1056 = bitcast float %800 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1056, ptr addrspace(1) %928, i1 %416) #2, !dbg !20
  %1057 = bitcast float %801 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1057, ptr addrspace(1) %929, i1 %417) #2, !dbg !20
  %1058 = bitcast float %802 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1058, ptr addrspace(1) %930, i1 %418) #2, !dbg !20
  %1059 = bitcast float %803 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1059, ptr addrspace(1) %931, i1 %419) #2, !dbg !20
  %1060 = bitcast float %804 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1060, ptr addrspace(1) %932, i1 %420) #2, !dbg !20
  %1061 = bitcast float %805 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1061, ptr addrspace(1) %933, i1 %421) #2, !dbg !20
  %1062 = bitcast float %806 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1062, ptr addrspace(1) %934, i1 %422) #2, !dbg !20
  %1063 = bitcast float %807 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1063, ptr addrspace(1) %935, i1 %423) #2, !dbg !20
  %1064 = bitcast float %808 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1064, ptr addrspace(1) %936, i1 %424) #2, !dbg !20
  %1065 = bitcast float %809 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1065, ptr addrspace(1) %937, i1 %425) #2, !dbg !20
  %1066 = bitcast float %810 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1066, ptr addrspace(1) %938, i1 %426) #2, !dbg !20
  %1067 = bitcast float %811 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1067, ptr addrspace(1) %939, i1 %427) #2, !dbg !20
  %1068 = bitcast float %812 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1068, ptr addrspace(1) %940, i1 %428) #2, !dbg !20
  %1069 = bitcast float %813 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1069, ptr addrspace(1) %941, i1 %429) #2, !dbg !20
  %1070 = bitcast float %814 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1070, ptr addrspace(1) %942, i1 %430) #2, !dbg !20
  %1071 = bitcast float %815 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1071, ptr addrspace(1) %943, i1 %431) #2, !dbg !20
  %1072 = bitcast float %816 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1072, ptr addrspace(1) %944, i1 %432) #2, !dbg !20
  %1073 = bitcast float %817 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1073, ptr addrspace(1) %945, i1 %433) #2, !dbg !20
  %1074 = bitcast float %818 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1074, ptr addrspace(1) %946, i1 %434) #2, !dbg !20
  %1075 = bitcast float %819 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1075, ptr addrspace(1) %947, i1 %435) #2, !dbg !20
  %1076 = bitcast float %820 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1076, ptr addrspace(1) %948, i1 %436) #2, !dbg !20
  %1077 = bitcast float %821 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1077, ptr addrspace(1) %949, i1 %437) #2, !dbg !20
  %1078 = bitcast float %822 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1078, ptr addrspace(1) %950, i1 %438) #2, !dbg !20
  %1079 = bitcast float %823 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1079, ptr addrspace(1) %951, i1 %439) #2, !dbg !20
  %1080 = bitcast float %824 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1080, ptr addrspace(1) %952, i1 %440) #2, !dbg !20
  %1081 = bitcast float %825 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1081, ptr addrspace(1) %953, i1 %441) #2, !dbg !20
  %1082 = bitcast float %826 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1082, ptr addrspace(1) %954, i1 %442) #2, !dbg !20
  %1083 = bitcast float %827 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1083, ptr addrspace(1) %955, i1 %443) #2, !dbg !20
  %1084 = bitcast float %828 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1084, ptr addrspace(1) %956, i1 %444) #2, !dbg !20
  %1085 = bitcast float %829 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1085, ptr addrspace(1) %957, i1 %445) #2, !dbg !20
  %1086 = bitcast float %830 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1086, ptr addrspace(1) %958, i1 %446) #2, !dbg !20
  %1087 = bitcast float %831 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1087, ptr addrspace(1) %959, i1 %447) #2, !dbg !20
  %1088 = bitcast float %832 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1088, ptr addrspace(1) %960, i1 %448) #2, !dbg !20
  %1089 = bitcast float %833 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1089, ptr addrspace(1) %961, i1 %449) #2, !dbg !20
  %1090 = bitcast float %834 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1090, ptr addrspace(1) %962, i1 %450) #2, !dbg !20
  %1091 = bitcast float %835 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1091, ptr addrspace(1) %963, i1 %451) #2, !dbg !20
  %1092 = bitcast float %836 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1092, ptr addrspace(1) %964, i1 %452) #2, !dbg !20
  %1093 = bitcast float %837 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1093, ptr addrspace(1) %965, i1 %453) #2, !dbg !20
  %1094 = bitcast float %838 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1094, ptr addrspace(1) %966, i1 %454) #2, !dbg !20
  %1095 = bitcast float %839 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1095, ptr addrspace(1) %967, i1 %455) #2, !dbg !20
  %1096 = bitcast float %840 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1096, ptr addrspace(1) %968, i1 %456) #2, !dbg !20
  %1097 = bitcast float %841 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1097, ptr addrspace(1) %969, i1 %457) #2, !dbg !20
  %1098 = bitcast float %842 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1098, ptr addrspace(1) %970, i1 %458) #2, !dbg !20
  %1099 = bitcast float %843 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1099, ptr addrspace(1) %971, i1 %459) #2, !dbg !20
  %1100 = bitcast float %844 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1100, ptr addrspace(1) %972, i1 %460) #2, !dbg !20
  %1101 = bitcast float %845 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1101, ptr addrspace(1) %973, i1 %461) #2, !dbg !20
  %1102 = bitcast float %846 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1102, ptr addrspace(1) %974, i1 %462) #2, !dbg !20
  %1103 = bitcast float %847 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1103, ptr addrspace(1) %975, i1 %463) #2, !dbg !20
  %1104 = bitcast float %848 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1104, ptr addrspace(1) %976, i1 %464) #2, !dbg !20
  %1105 = bitcast float %849 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1105, ptr addrspace(1) %977, i1 %465) #2, !dbg !20
  %1106 = bitcast float %850 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1106, ptr addrspace(1) %978, i1 %466) #2, !dbg !20
  %1107 = bitcast float %851 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1107, ptr addrspace(1) %979, i1 %467) #2, !dbg !20
  %1108 = bitcast float %852 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1108, ptr addrspace(1) %980, i1 %468) #2, !dbg !20
  %1109 = bitcast float %853 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1109, ptr addrspace(1) %981, i1 %469) #2, !dbg !20
  %1110 = bitcast float %854 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1110, ptr addrspace(1) %982, i1 %470) #2, !dbg !20
  %1111 = bitcast float %855 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1111, ptr addrspace(1) %983, i1 %471) #2, !dbg !20
  %1112 = bitcast float %856 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1112, ptr addrspace(1) %984, i1 %472) #2, !dbg !20
  %1113 = bitcast float %857 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1113, ptr addrspace(1) %985, i1 %473) #2, !dbg !20
  %1114 = bitcast float %858 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1114, ptr addrspace(1) %986, i1 %474) #2, !dbg !20
  %1115 = bitcast float %859 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1115, ptr addrspace(1) %987, i1 %475) #2, !dbg !20
  %1116 = bitcast float %860 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1116, ptr addrspace(1) %988, i1 %476) #2, !dbg !20
  %1117 = bitcast float %861 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1117, ptr addrspace(1) %989, i1 %477) #2, !dbg !20
  %1118 = bitcast float %862 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1118, ptr addrspace(1) %990, i1 %478) #2, !dbg !20
  %1119 = bitcast float %863 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1119, ptr addrspace(1) %991, i1 %479) #2, !dbg !20
  %1120 = bitcast float %864 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1120, ptr addrspace(1) %992, i1 %480) #2, !dbg !20
  %1121 = bitcast float %865 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1121, ptr addrspace(1) %993, i1 %481) #2, !dbg !20
  %1122 = bitcast float %866 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1122, ptr addrspace(1) %994, i1 %482) #2, !dbg !20
  %1123 = bitcast float %867 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1123, ptr addrspace(1) %995, i1 %483) #2, !dbg !20
  %1124 = bitcast float %868 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1124, ptr addrspace(1) %996, i1 %484) #2, !dbg !20
  %1125 = bitcast float %869 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1125, ptr addrspace(1) %997, i1 %485) #2, !dbg !20
  %1126 = bitcast float %870 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1126, ptr addrspace(1) %998, i1 %486) #2, !dbg !20
  %1127 = bitcast float %871 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1127, ptr addrspace(1) %999, i1 %487) #2, !dbg !20
  %1128 = bitcast float %872 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1128, ptr addrspace(1) %1000, i1 %488) #2, !dbg !20
  %1129 = bitcast float %873 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1129, ptr addrspace(1) %1001, i1 %489) #2, !dbg !20
  %1130 = bitcast float %874 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1130, ptr addrspace(1) %1002, i1 %490) #2, !dbg !20
  %1131 = bitcast float %875 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1131, ptr addrspace(1) %1003, i1 %491) #2, !dbg !20
  %1132 = bitcast float %876 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1132, ptr addrspace(1) %1004, i1 %492) #2, !dbg !20
  %1133 = bitcast float %877 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1133, ptr addrspace(1) %1005, i1 %493) #2, !dbg !20
  %1134 = bitcast float %878 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1134, ptr addrspace(1) %1006, i1 %494) #2, !dbg !20
  %1135 = bitcast float %879 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1135, ptr addrspace(1) %1007, i1 %495) #2, !dbg !20
  %1136 = bitcast float %880 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1136, ptr addrspace(1) %1008, i1 %496) #2, !dbg !20
  %1137 = bitcast float %881 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1137, ptr addrspace(1) %1009, i1 %497) #2, !dbg !20
  %1138 = bitcast float %882 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1138, ptr addrspace(1) %1010, i1 %498) #2, !dbg !20
  %1139 = bitcast float %883 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1139, ptr addrspace(1) %1011, i1 %499) #2, !dbg !20
  %1140 = bitcast float %884 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1140, ptr addrspace(1) %1012, i1 %500) #2, !dbg !20
  %1141 = bitcast float %885 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1141, ptr addrspace(1) %1013, i1 %501) #2, !dbg !20
  %1142 = bitcast float %886 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1142, ptr addrspace(1) %1014, i1 %502) #2, !dbg !20
  %1143 = bitcast float %887 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1143, ptr addrspace(1) %1015, i1 %503) #2, !dbg !20
  %1144 = bitcast float %888 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1144, ptr addrspace(1) %1016, i1 %504) #2, !dbg !20
  %1145 = bitcast float %889 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1145, ptr addrspace(1) %1017, i1 %505) #2, !dbg !20
  %1146 = bitcast float %890 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1146, ptr addrspace(1) %1018, i1 %506) #2, !dbg !20
  %1147 = bitcast float %891 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1147, ptr addrspace(1) %1019, i1 %507) #2, !dbg !20
  %1148 = bitcast float %892 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1148, ptr addrspace(1) %1020, i1 %508) #2, !dbg !20
  %1149 = bitcast float %893 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1149, ptr addrspace(1) %1021, i1 %509) #2, !dbg !20
  %1150 = bitcast float %894 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1150, ptr addrspace(1) %1022, i1 %510) #2, !dbg !20
  %1151 = bitcast float %895 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1151, ptr addrspace(1) %1023, i1 %511) #2, !dbg !20
  %1152 = bitcast float %896 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1152, ptr addrspace(1) %1024, i1 %512) #2, !dbg !20
  %1153 = bitcast float %897 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1153, ptr addrspace(1) %1025, i1 %513) #2, !dbg !20
  %1154 = bitcast float %898 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1154, ptr addrspace(1) %1026, i1 %514) #2, !dbg !20
  %1155 = bitcast float %899 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1155, ptr addrspace(1) %1027, i1 %515) #2, !dbg !20
  %1156 = bitcast float %900 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1156, ptr addrspace(1) %1028, i1 %516) #2, !dbg !20
  %1157 = bitcast float %901 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1157, ptr addrspace(1) %1029, i1 %517) #2, !dbg !20
  %1158 = bitcast float %902 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1158, ptr addrspace(1) %1030, i1 %518) #2, !dbg !20
  %1159 = bitcast float %903 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1159, ptr addrspace(1) %1031, i1 %519) #2, !dbg !20
  %1160 = bitcast float %904 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1160, ptr addrspace(1) %1032, i1 %520) #2, !dbg !20
  %1161 = bitcast float %905 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1161, ptr addrspace(1) %1033, i1 %521) #2, !dbg !20
  %1162 = bitcast float %906 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1162, ptr addrspace(1) %1034, i1 %522) #2, !dbg !20
  %1163 = bitcast float %907 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1163, ptr addrspace(1) %1035, i1 %523) #2, !dbg !20
  %1164 = bitcast float %908 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1164, ptr addrspace(1) %1036, i1 %524) #2, !dbg !20
  %1165 = bitcast float %909 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1165, ptr addrspace(1) %1037, i1 %525) #2, !dbg !20
  %1166 = bitcast float %910 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1166, ptr addrspace(1) %1038, i1 %526) #2, !dbg !20
  %1167 = bitcast float %911 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1167, ptr addrspace(1) %1039, i1 %527) #2, !dbg !20
  %1168 = bitcast float %912 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1168, ptr addrspace(1) %1040, i1 %528) #2, !dbg !20
  %1169 = bitcast float %913 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1169, ptr addrspace(1) %1041, i1 %529) #2, !dbg !20
  %1170 = bitcast float %914 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1170, ptr addrspace(1) %1042, i1 %530) #2, !dbg !20
  %1171 = bitcast float %915 to i32, !dbg !20
  tail call void asm sideeffect "@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b"(i32 %1171, ptr addrspace(1) %1043, i1 %531) #2, !dbg !20
  %1172 = add i32 %18, 4096, !dbg !13
  %1173 = icmp slt i32 %1172, %4, !dbg !13
  br i1 %1173, label %.lr.ph, label %._crit_edge, !dbg !13

._crit_edge:                                      ; preds = %.lr.ph, %7
  ret void, !dbg !21
}

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 2147483647) i32 @llvm.nvvm.read.ptx.sreg.ctaid.x() #1

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.x() #1

attributes #0 = { nounwind "nvvm.reqntid"="32" }
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
