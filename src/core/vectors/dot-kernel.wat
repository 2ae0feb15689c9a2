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
;; codeBounds(codes, count, width, query, scales, norms, params, slots, lows, highs, first): the
  ;; integer dot product d of each of `count` rows of codes (as codeDots) becomes an interval of
  ;; the cosine distance, with the row's float64 scale s and L1 norm n (slot first + i of the arrays
  ;; at scales and norms)
  ;; and the float64 params t, F, half, slack, threshold: approximate = s * t * d,
  ;; error = s * F + half * n + slack, low = (1 - approximate) - error, high = (1 - approximate) +
  ;; error, in that order (vector-codes.ts). Rows whose low is at most `threshold` are written out:
  ;; their slot (first + i) as an int32 at slots, low and high as float64 at lows and highs. Returns
  ;; how many were written, so a scan in JavaScript visits only the rows that may enter its result.
  (func (export "codeBounds")
    (param $codes i32) (param $count i32) (param $width i32) (param $query i32) (param $scales i32)
    (param $norms i32) (param $params i32) (param $slots i32) (param $lows i32) (param $highs i32)
    (param $first i32) (result i32)
    (local $row i32) (local $at i32) (local $end i32) (local $q i32) (local $v v128) (local $p v128)
    (local $sum v128) (local $found i32) (local $t f64) (local $f f64) (local $half f64)
    (local $slack f64) (local $threshold f64) (local $s f64) (local $approximate f64)
    (local $error f64) (local $low f64)
    (local.set $t (f64.load (local.get $params)))
    (local.set $f (f64.load offset=8 (local.get $params)))
    (local.set $half (f64.load offset=16 (local.get $params)))
    (local.set $slack (f64.load offset=24 (local.get $params)))
    (local.set $threshold (f64.load offset=32 (local.get $params)))
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
        (local.set $s
          (f64.load (i32.add (local.get $scales)
            (i32.shl (i32.add (local.get $first) (local.get $row)) (i32.const 3)))))
        (local.set $approximate
          (f64.mul (f64.mul (local.get $s) (local.get $t))
            (f64.convert_i32_s
              (i32.add
                (i32.add (i32x4.extract_lane 0 (local.get $sum)) (i32x4.extract_lane 1 (local.get $sum)))
                (i32.add (i32x4.extract_lane 2 (local.get $sum)) (i32x4.extract_lane 3 (local.get $sum)))))))
        (local.set $error
          (f64.add
            (f64.add (f64.mul (local.get $s) (local.get $f))
              (f64.mul (local.get $half)
                (f64.load (i32.add (local.get $norms)
                  (i32.shl (i32.add (local.get $first) (local.get $row)) (i32.const 3))))))
            (local.get $slack)))
        (local.set $low (f64.sub (f64.sub (f64.const 1) (local.get $approximate)) (local.get $error)))
        (if (f64.le (local.get $low) (local.get $threshold))
          (then
            (i32.store (i32.add (local.get $slots) (i32.shl (local.get $found) (i32.const 2)))
              (i32.add (local.get $first) (local.get $row)))
            (f64.store (i32.add (local.get $lows) (i32.shl (local.get $found) (i32.const 3))) (local.get $low))
            (f64.store (i32.add (local.get $highs) (i32.shl (local.get $found) (i32.const 3)))
              (f64.add (f64.sub (f64.const 1) (local.get $approximate)) (local.get $error)))
            (local.set $found (i32.add (local.get $found) (i32.const 1)))))
        (local.set $row (i32.add (local.get $row) (i32.const 1)))
        (br $rows)))
    (local.get $found))
)
