/* tests/kernel/regloop.S - one loop through every integer and FP register: the exactness probe. */
/*
 * void regloop(long iters, uint64_t state[64], uint64_t scratch[12])
 *
 * Loads r0-r15, r18-r27, r29 from state[0..29] and f0-f30 from state[32..62], then runs `iters`
 * iterations in which every one of those registers, the temporary r28, the stack pointer (moved
 * and moved back around a store and a load) and memory (quadword, longword and byte stores and
 * loads, ldq_u/extbl) are updated from each other: integer mixing with rotations, and for each FP
 * register itoft/cvtqt/addt with its neighbour, cpysn, fcmovlt and ftoit folded back into an
 * integer register. The values stay finite (each FP register is rebuilt from an integer every
 * iteration). Each iteration also installs one of two FPCRs that differ in the dynamic rounding
 * mode (scratch[9] and [10], swapped every iteration) and rounds an inexact sum with /d, so the
 * FPCR matters. At the end all of them and the FPCR go back to state[] (state[63] = FPCR).
 *
 * Any register the kernel module fails to carry exactly across an interpretation (a wrong
 * s0-s6 in the switch_stack, an FP register or the FPCR not written back, the usp, the pc)
 * changes the final state that regcheck.c prints. Needs BWX and FIX (EV67; QEMU's default CPU).
 */
	.arch ev67
	.set noreorder
	.set noat
	.text
	.align 4
	.globl regloop
	.ent regloop
regloop:
	.frame $30, 160, $26, 0
	lda $30, -160($30)
	stq $26, 0($30)
	stq $9, 8($30)
	stq $10, 16($30)
	stq $11, 24($30)
	stq $12, 32($30)
	stq $13, 40($30)
	stq $14, 48($30)
	stq $15, 56($30)
	stq $29, 64($30)
	stq $17, 72($30)
	stt $f2, 80($30)
	stt $f3, 88($30)
	stt $f4, 96($30)
	stt $f5, 104($30)
	stt $f6, 112($30)
	stt $f7, 120($30)
	stt $f8, 128($30)
	stt $f9, 136($30)
	.prologue 0
	mov $17, $28
	mov $18, $17
	ldq $0, 0($28)
	ldq $1, 8($28)
	ldq $2, 16($28)
	ldq $3, 24($28)
	ldq $4, 32($28)
	ldq $5, 40($28)
	ldq $6, 48($28)
	ldq $7, 56($28)
	ldq $8, 64($28)
	ldq $9, 72($28)
	ldq $10, 80($28)
	ldq $11, 88($28)
	ldq $12, 96($28)
	ldq $13, 104($28)
	ldq $14, 112($28)
	ldq $15, 120($28)
	ldq $18, 144($28)
	ldq $19, 152($28)
	ldq $20, 160($28)
	ldq $21, 168($28)
	ldq $22, 176($28)
	ldq $23, 184($28)
	ldq $24, 192($28)
	ldq $25, 200($28)
	ldq $26, 208($28)
	ldq $27, 216($28)
	ldq $29, 232($28)
	ldt $f0, 256($28)
	ldt $f1, 264($28)
	ldt $f2, 272($28)
	ldt $f3, 280($28)
	ldt $f4, 288($28)
	ldt $f5, 296($28)
	ldt $f6, 304($28)
	ldt $f7, 312($28)
	ldt $f8, 320($28)
	ldt $f9, 328($28)
	ldt $f10, 336($28)
	ldt $f11, 344($28)
	ldt $f12, 352($28)
	ldt $f13, 360($28)
	ldt $f14, 368($28)
	ldt $f15, 376($28)
	ldt $f16, 384($28)
	ldt $f17, 392($28)
	ldt $f18, 400($28)
	ldt $f19, 408($28)
	ldt $f20, 416($28)
	ldt $f21, 424($28)
	ldt $f22, 432($28)
	ldt $f23, 440($28)
	ldt $f24, 448($28)
	ldt $f25, 456($28)
	ldt $f26, 464($28)
	ldt $f27, 472($28)
	ldt $f28, 480($28)
	ldt $f29, 488($28)
	ldt $f30, 496($28)
	ble $16, 2f
1:
	addq $0, $1, $0
	sll $0, 1, $28
	srl $0, 63, $0
	bis $0, $28, $0
	xor $1, $2, $1
	sll $1, 8, $28
	srl $1, 56, $1
	bis $1, $28, $1
	s4addq $2, $3, $2
	sll $2, 15, $28
	srl $2, 49, $2
	bis $2, $28, $2
	subq $3, $4, $3
	sll $3, 22, $28
	srl $3, 42, $3
	bis $3, $28, $3
	s8subq $4, $5, $4
	sll $4, 29, $28
	srl $4, 35, $4
	bis $4, $28, $4
	eqv $5, $6, $5
	sll $5, 36, $28
	srl $5, 28, $5
	bis $5, $28, $5
	cmovlbs $7, $7, $6
	addq $6, 1, $6
	sll $6, 43, $28
	srl $6, 21, $6
	bis $6, $28, $6
	umulh $7, $8, $28
	addq $7, $28, $7
	sll $7, 50, $28
	srl $7, 14, $7
	bis $7, $28, $7
	addq $8, $9, $8
	sll $8, 57, $28
	srl $8, 7, $8
	bis $8, $28, $8
	xor $9, $10, $9
	sll $9, 1, $28
	srl $9, 63, $9
	bis $9, $28, $9
	s4addq $10, $11, $10
	sll $10, 8, $28
	srl $10, 56, $10
	bis $10, $28, $10
	subq $11, $12, $11
	sll $11, 15, $28
	srl $11, 49, $11
	bis $11, $28, $11
	s8subq $12, $13, $12
	sll $12, 22, $28
	srl $12, 42, $12
	bis $12, $28, $12
	eqv $13, $14, $13
	sll $13, 29, $28
	srl $13, 35, $13
	bis $13, $28, $13
	cmovlbs $15, $15, $14
	addq $14, 1, $14
	sll $14, 36, $28
	srl $14, 28, $14
	bis $14, $28, $14
	umulh $15, $18, $28
	addq $15, $28, $15
	sll $15, 43, $28
	srl $15, 21, $15
	bis $15, $28, $15
	addq $18, $19, $18
	sll $18, 50, $28
	srl $18, 14, $18
	bis $18, $28, $18
	xor $19, $20, $19
	sll $19, 57, $28
	srl $19, 7, $19
	bis $19, $28, $19
	s4addq $20, $21, $20
	sll $20, 1, $28
	srl $20, 63, $20
	bis $20, $28, $20
	subq $21, $22, $21
	sll $21, 8, $28
	srl $21, 56, $21
	bis $21, $28, $21
	s8subq $22, $23, $22
	sll $22, 15, $28
	srl $22, 49, $22
	bis $22, $28, $22
	eqv $23, $24, $23
	sll $23, 22, $28
	srl $23, 42, $23
	bis $23, $28, $23
	cmovlbs $25, $25, $24
	addq $24, 1, $24
	sll $24, 29, $28
	srl $24, 35, $24
	bis $24, $28, $24
	umulh $25, $26, $28
	addq $25, $28, $25
	sll $25, 36, $28
	srl $25, 28, $25
	bis $25, $28, $25
	addq $26, $27, $26
	sll $26, 43, $28
	srl $26, 21, $26
	bis $26, $28, $26
	xor $27, $29, $27
	sll $27, 50, $28
	srl $27, 14, $27
	bis $27, $28, $27
	s4addq $29, $0, $29
	sll $29, 57, $28
	srl $29, 7, $29
	bis $29, $28, $29
	stq $0, 0($17)
	stq $1, 8($17)
	stq $2, 16($17)
	stq $3, 24($17)
	stq $4, 32($17)
	stq $5, 40($17)
	stq $6, 48($17)
	stq $7, 56($17)
	ldq $28, 0($17)
	addq $8, $28, $8
	ldq $28, 8($17)
	addq $9, $28, $9
	ldq $28, 16($17)
	addq $10, $28, $10
	ldq $28, 24($17)
	addq $11, $28, $11
	ldq $28, 32($17)
	addq $12, $28, $12
	ldq $28, 40($17)
	addq $13, $28, $13
	ldq $28, 48($17)
	addq $14, $28, $14
	ldq $28, 56($17)
	addq $15, $28, $15
	ldbu $28, 3($17)
	xor $1, $28, $1
	stb $2, 5($17)
	ldq_u $28, 5($17)
	extbl $28, 5, $28
	addq $3, $28, $3
	stl $4, 16($17)
	ldl $28, 16($17)
	xor $5, $28, $5
	lda $30, -32($30)
	stq $6, 8($30)
	ldq $28, 8($30)
	lda $30, 32($30)
	addq $7, $28, $7
	itoft $0, $f0
	cvtqt $f0, $f0
	addt $f0, $f1, $f0
	cpysn $f0, $f0, $f0
	ftoit $f0, $28
	xor $3, $28, $3
	itoft $1, $f1
	cvtqt $f1, $f1
	addt $f1, $f2, $f1
	fcmovlt $f2, $f2, $f1
	ftoit $f1, $28
	xor $4, $28, $4
	itoft $2, $f2
	cvtqt $f2, $f2
	addt $f2, $f3, $f2
	ftoit $f2, $28
	xor $5, $28, $5
	itoft $3, $f3
	cvtqt $f3, $f3
	addt $f3, $f4, $f3
	cpysn $f3, $f3, $f3
	ftoit $f3, $28
	xor $6, $28, $6
	itoft $4, $f4
	cvtqt $f4, $f4
	addt $f4, $f5, $f4
	ftoit $f4, $28
	xor $7, $28, $7
	itoft $5, $f5
	cvtqt $f5, $f5
	addt $f5, $f6, $f5
	ftoit $f5, $28
	xor $8, $28, $8
	itoft $6, $f6
	cvtqt $f6, $f6
	addt $f6, $f7, $f6
	cpysn $f6, $f6, $f6
	fcmovlt $f7, $f7, $f6
	ftoit $f6, $28
	xor $9, $28, $9
	itoft $7, $f7
	cvtqt $f7, $f7
	addt $f7, $f8, $f7
	ftoit $f7, $28
	xor $10, $28, $10
	itoft $8, $f8
	cvtqt $f8, $f8
	addt $f8, $f9, $f8
	ftoit $f8, $28
	xor $11, $28, $11
	itoft $9, $f9
	cvtqt $f9, $f9
	addt $f9, $f10, $f9
	cpysn $f9, $f9, $f9
	ftoit $f9, $28
	xor $12, $28, $12
	itoft $10, $f10
	cvtqt $f10, $f10
	addt $f10, $f11, $f10
	ftoit $f10, $28
	xor $13, $28, $13
	itoft $11, $f11
	cvtqt $f11, $f11
	addt $f11, $f12, $f11
	fcmovlt $f12, $f12, $f11
	ftoit $f11, $28
	xor $14, $28, $14
	itoft $12, $f12
	cvtqt $f12, $f12
	addt $f12, $f13, $f12
	cpysn $f12, $f12, $f12
	ftoit $f12, $28
	xor $15, $28, $15
	itoft $13, $f13
	cvtqt $f13, $f13
	addt $f13, $f14, $f13
	ftoit $f13, $28
	xor $18, $28, $18
	itoft $14, $f14
	cvtqt $f14, $f14
	addt $f14, $f15, $f14
	ftoit $f14, $28
	xor $19, $28, $19
	itoft $15, $f15
	cvtqt $f15, $f15
	addt $f15, $f16, $f15
	cpysn $f15, $f15, $f15
	ftoit $f15, $28
	xor $20, $28, $20
	itoft $18, $f16
	cvtqt $f16, $f16
	addt $f16, $f17, $f16
	fcmovlt $f17, $f17, $f16
	ftoit $f16, $28
	xor $21, $28, $21
	itoft $19, $f17
	cvtqt $f17, $f17
	addt $f17, $f18, $f17
	ftoit $f17, $28
	xor $22, $28, $22
	itoft $20, $f18
	cvtqt $f18, $f18
	addt $f18, $f19, $f18
	cpysn $f18, $f18, $f18
	ftoit $f18, $28
	xor $23, $28, $23
	itoft $21, $f19
	cvtqt $f19, $f19
	addt $f19, $f20, $f19
	ftoit $f19, $28
	xor $24, $28, $24
	itoft $22, $f20
	cvtqt $f20, $f20
	addt $f20, $f21, $f20
	ftoit $f20, $28
	xor $25, $28, $25
	itoft $23, $f21
	cvtqt $f21, $f21
	addt $f21, $f22, $f21
	cpysn $f21, $f21, $f21
	fcmovlt $f22, $f22, $f21
	ftoit $f21, $28
	xor $26, $28, $26
	itoft $24, $f22
	cvtqt $f22, $f22
	addt $f22, $f23, $f22
	ftoit $f22, $28
	xor $27, $28, $27
	itoft $25, $f23
	cvtqt $f23, $f23
	addt $f23, $f24, $f23
	ftoit $f23, $28
	xor $29, $28, $29
	itoft $26, $f24
	cvtqt $f24, $f24
	addt $f24, $f25, $f24
	cpysn $f24, $f24, $f24
	ftoit $f24, $28
	xor $0, $28, $0
	itoft $27, $f25
	cvtqt $f25, $f25
	addt $f25, $f26, $f25
	ftoit $f25, $28
	xor $1, $28, $1
	itoft $29, $f26
	cvtqt $f26, $f26
	addt $f26, $f27, $f26
	fcmovlt $f27, $f27, $f26
	ftoit $f26, $28
	xor $2, $28, $2
	itoft $0, $f27
	cvtqt $f27, $f27
	addt $f27, $f28, $f27
	cpysn $f27, $f27, $f27
	ftoit $f27, $28
	xor $3, $28, $3
	itoft $1, $f28
	cvtqt $f28, $f28
	addt $f28, $f29, $f28
	ftoit $f28, $28
	xor $4, $28, $4
	itoft $2, $f29
	cvtqt $f29, $f29
	addt $f29, $f30, $f29
	ftoit $f29, $28
	xor $5, $28, $5
	itoft $3, $f30
	cvtqt $f30, $f30
	addt $f30, $f31, $f30
	cpysn $f30, $f30, $f30
	ftoit $f30, $28
	xor $6, $28, $6
	/* FPCR: install scratch[9] (two FPCRs differing only in the dynamic rounding mode take
	 * turns there: scratch[9], [10] rotate through [11]), round an inexact sum with /d. */
	ldt $f30, 72($17)
	excb
	mt_fpcr $f30
	excb
	addt/d $f29, $f28, $f30
	ftoit $f30, $28
	xor $7, $28, $7
	itoft $3, $f30		/* keep f30 bounded: it feeds f29 next time */
	cvtqt $f30, $f30
	ldq $28, 72($17)
	stq $28, 88($17)
	ldq $28, 80($17)
	stq $28, 72($17)
	ldq $28, 88($17)
	stq $28, 80($17)
	subq $16, 1, $16
	bgt $16, 1b
2:
	stq $28, 144($30)
	ldq $28, 72($30)
	stq $0, 0($28)
	stq $1, 8($28)
	stq $2, 16($28)
	stq $3, 24($28)
	stq $4, 32($28)
	stq $5, 40($28)
	stq $6, 48($28)
	stq $7, 56($28)
	stq $8, 64($28)
	stq $9, 72($28)
	stq $10, 80($28)
	stq $11, 88($28)
	stq $12, 96($28)
	stq $13, 104($28)
	stq $14, 112($28)
	stq $15, 120($28)
	stq $18, 144($28)
	stq $19, 152($28)
	stq $20, 160($28)
	stq $21, 168($28)
	stq $22, 176($28)
	stq $23, 184($28)
	stq $24, 192($28)
	stq $25, 200($28)
	stq $26, 208($28)
	stq $27, 216($28)
	stq $29, 232($28)
	stq $16, 128($28)
	stt $f0, 256($28)
	stt $f1, 264($28)
	stt $f2, 272($28)
	stt $f3, 280($28)
	stt $f4, 288($28)
	stt $f5, 296($28)
	stt $f6, 304($28)
	stt $f7, 312($28)
	stt $f8, 320($28)
	stt $f9, 328($28)
	stt $f10, 336($28)
	stt $f11, 344($28)
	stt $f12, 352($28)
	stt $f13, 360($28)
	stt $f14, 368($28)
	stt $f15, 376($28)
	stt $f16, 384($28)
	stt $f17, 392($28)
	stt $f18, 400($28)
	stt $f19, 408($28)
	stt $f20, 416($28)
	stt $f21, 424($28)
	stt $f22, 432($28)
	stt $f23, 440($28)
	stt $f24, 448($28)
	stt $f25, 456($28)
	stt $f26, 464($28)
	stt $f27, 472($28)
	stt $f28, 480($28)
	stt $f29, 488($28)
	stt $f30, 496($28)
	mf_fpcr $f0
	stt $f0, 504($28)
	ldq $16, 144($30)
	stq $16, 224($28)
	ldq $26, 0($30)
	ldq $9, 8($30)
	ldq $10, 16($30)
	ldq $11, 24($30)
	ldq $12, 32($30)
	ldq $13, 40($30)
	ldq $14, 48($30)
	ldq $15, 56($30)
	ldq $29, 64($30)
	ldt $f2, 80($30)
	ldt $f3, 88($30)
	ldt $f4, 96($30)
	ldt $f5, 104($30)
	ldt $f6, 112($30)
	ldt $f7, 120($30)
	ldt $f8, 128($30)
	ldt $f9, 136($30)
	lda $30, 160($30)
	ret $31, ($26), 1
	.end regloop
	.section .note.GNU-stack, "", @progbits
