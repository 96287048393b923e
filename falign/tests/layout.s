# Functions of exact sizes at exact offsets, for test-falign.sh: every figure
# the tool reports for this object is worked out by hand there.
#
# .text (aligned to 64)            .text.unlikely (aligned to 16)
#   f_line     0..63    64 bytes     f_cold  0..19  20 bytes
#   f_small   80..103   24 bytes
#   f_cross  112..151   40 bytes, alias f_cross_alias
#   f_zero   152        size 0
#   f_big    192..291  100 bytes
#   f_over   316..387   72 bytes
#   asm_stub 388..399   code without .type or .size
# .rodata holds a FUNC-typed symbol, which is not in an executable section.

	.section .text,"ax",@progbits
	.p2align 6
	.globl f_line
	.type f_line, @function
f_line:
	.skip 64
	.size f_line, 64

	.org 80
	.type f_small, @function
f_small:
	.skip 24
	.size f_small, 24

	.org 112
	.type f_cross, @function
	.type f_cross_alias, @function
f_cross:
f_cross_alias:
	.skip 40
	.size f_cross, 40
	.size f_cross_alias, 40

	.type f_zero, @function
f_zero:
	.size f_zero, 0

	.org 192
	.type f_big, @function
f_big:
	.skip 100
	.size f_big, 100

	.org 316
	.type f_over, @function
f_over:
	.skip 72
	.size f_over, 72

asm_stub:
	.skip 12

	.section .text.unlikely,"ax",@progbits
	.p2align 4
	.type f_cold, @function
f_cold:
	.skip 20
	.size f_cold, 20

	.section .rodata,"a",@progbits
	.type f_data, @function
f_data:
	.skip 8
	.size f_data, 8
