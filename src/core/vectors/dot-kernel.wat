;; The dot products of packed float32 vectors with one query, for VectorArena (vector-arena.ts).
;; Compiled into dot-kernel-wasm.ts by `npm run build:dot-kernel` (scripts/build-dot-kernel.ts);
;; dot-kernel.test.ts checks that the two agree.
;;
;; Each sum is made exactly as `dotProduct` (dot-product.ts) makes it in JavaScript: the products
;; in float64 of the float32 values, four accumulators by axis modulo 4 (here two float64x2
;; lanes: a b in $low, c d in $high), the axes past the last multiple of 4 added to a, and the
;; result ((a + b) + c) + d. So distances are bit-identical to the JavaScript scan's.
(module
  (import "env" "memory" (memory 1))
  ;; dots(vectors, count, dimensions, query, out): for i < count, the float64 at out + 8i is the
  ;; dot product of the float32 vector at vectors + 4 * dimensions * i with the float64 query.
  ;; All arguments but count and dimensions are byte offsets into the memory.
  (func (export "dots")
    (param $vectors i32) (param $count i32) (param $dimensions i32) (param $query i32) (param $out i32)
    (local $row i32) (local $axis i32) (local $fours i32) (local $at i32) (local $q i32)
    (local $x v128) (local $low v128) (local $high v128) (local $a f64)
    (local.set $fours (i32.and (local.get $dimensions) (i32.const -4)))
    (local.set $at (local.get $vectors))
    (block $rows_done
      (loop $rows
        (br_if $rows_done (i32.ge_u (local.get $row) (local.get $count)))
        (local.set $low (v128.const f64x2 0 0))
        (local.set $high (v128.const f64x2 0 0))
        (local.set $axis (i32.const 0))
        (block $fours_done
          (loop $by_four
            (br_if $fours_done (i32.ge_u (local.get $axis) (local.get $fours)))
            (local.set $x (v128.load (i32.add (local.get $at) (i32.shl (local.get $axis) (i32.const 2)))))
            (local.set $q (i32.add (local.get $query) (i32.shl (local.get $axis) (i32.const 3))))
            (local.set $low
              (f64x2.add (local.get $low)
                (f64x2.mul (f64x2.promote_low_f32x4 (local.get $x)) (v128.load (local.get $q)))))
            (local.set $high
              (f64x2.add (local.get $high)
                (f64x2.mul
                  (f64x2.promote_low_f32x4
                    (i8x16.shuffle 8 9 10 11 12 13 14 15 0 1 2 3 4 5 6 7 (local.get $x) (local.get $x)))
                  (v128.load offset=16 (local.get $q)))))
            (local.set $axis (i32.add (local.get $axis) (i32.const 4)))
            (br $by_four)))
        (local.set $a (f64x2.extract_lane 0 (local.get $low)))
        (block $rest_done
          (loop $rest
            (br_if $rest_done (i32.ge_u (local.get $axis) (local.get $dimensions)))
            (local.set $a
              (f64.add (local.get $a)
                (f64.mul
                  (f64.promote_f32 (f32.load (i32.add (local.get $at) (i32.shl (local.get $axis) (i32.const 2)))))
                  (f64.load (i32.add (local.get $query) (i32.shl (local.get $axis) (i32.const 3)))))))
            (local.set $axis (i32.add (local.get $axis) (i32.const 1)))
            (br $rest)))
        (f64.store (i32.add (local.get $out) (i32.shl (local.get $row) (i32.const 3)))
          (f64.add
            (f64.add
              (f64.add (local.get $a) (f64x2.extract_lane 1 (local.get $low)))
              (f64x2.extract_lane 0 (local.get $high)))
            (f64x2.extract_lane 1 (local.get $high))))
        (local.set $at (i32.add (local.get $at) (i32.shl (local.get $dimensions) (i32.const 2))))
        (local.set $row (i32.add (local.get $row) (i32.const 1)))
        (br $rows))))
;; codeDots(codes, count, width, query, out): for i < count, the int32 at out + 4i is the dot
  ;; product of the int8 codes at codes + width * i with the int8 query codes at `query` (`width`
  ;; bytes each, a multiple of 16, zero past the dimensions). Exact integer sums (|code| <= 127:
  ;; each product fits an int16, and 16,000 dimensions stay far inside an int32), for scans that
  ;; screen quantized vectors before computing exact distances (exact-vector-collection.ts).
  (func (export "codeDots")
    (param $codes i32) (param $count i32) (param $width i32) (param $query i32) (param $out i32)
    (local $row i32) (local $at i32) (local $end i32) (local $q i32) (local $v v128) (local $p v128)
    (local $sum v128)
    (local.set $at (local.get $codes))
    (block $rows_done
      (loop $rows
        (br_if $rows_done (i32.ge_u (local.get $row) (local.get $count)))
        (local.set $sum (v128.const i32x4 0 0 0 0))
        (local.set $end (i32.add (local.get $at) (local.get $width)))
        (local.set $q (local.get $query))
        (block $bytes_done
          (loop $by_sixteen
            (br_if $bytes_done (i32.ge_u (local.get $at) (local.get $end)))
            (local.set $v (v128.load (local.get $at)))
            (local.set $p (v128.load (local.get $q)))
            (local.set $sum
              (i32x4.add (local.get $sum)
                (i32x4.add
                  (i32x4.extadd_pairwise_i16x8_s (i16x8.extmul_low_i8x16_s (local.get $v) (local.get $p)))
                  (i32x4.extadd_pairwise_i16x8_s (i16x8.extmul_high_i8x16_s (local.get $v) (local.get $p))))))
            (local.set $at (i32.add (local.get $at) (i32.const 16)))
            (local.set $q (i32.add (local.get $q) (i32.const 16)))
            (br $by_sixteen)))
        (i32.store (i32.add (local.get $out) (i32.shl (local.get $row) (i32.const 2)))
          (i32.add
            (i32.add (i32x4.extract_lane 0 (local.get $sum)) (i32x4.extract_lane 1 (local.get $sum)))
            (i32.add (i32x4.extract_lane 2 (local.get $sum)) (i32x4.extract_lane 3 (local.get $sum)))))
        (local.set $row (i32.add (local.get $row) (i32.const 1)))
        (br $rows))))
)
