/* tests/analysis/test_isa_dis.c - isa_dis_format() against alpha-linux-gnu-objdump -d (binutils 2.40). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "isa_dis.h"
#include "axp.h"

/*
 * Vectors: (word, address, the text objdump prints after the raw bytes). The words were laid
 * out in this order at 0x120001000 (gas .long, objdump -d --adjust-vma=0x120001000), so the
 * addresses are consecutive; tests/isa/dis-vs-objdump.sh re-checks every line of this
 * table against the installed objdump. They cover every operation of kmod/interp/ops.def
 * (register and literal forms), every pseudo-op and alias objdump prints, FP qualifier
 * combinations, the named PAL calls, PALcode-reserved opcodes and words objdump rejects.
 */
struct vec {
	uint32_t word;
	uint64_t addr;
	const char *text;
};

static const struct vec vecs[] = {
	{ 0x00000083, 0x120001000, "callsys" }, /* CALL_PAL: callsys */
	{ 0x00001234, 0x120001004, "call_pal\t0x1234" }, /* CALL_PAL: unnamed function */
	{ 0x20220010, 0x120001008, "lda\tt0,16(t1)" }, /* LDA */
	{ 0x207efff8, 0x12000100c, "lda\tt2,-8(sp)" }, /* LDA, negative displacement */
	{ 0x24220010, 0x120001010, "ldah\tt0,16(t1)" }, /* LDAH */
	{ 0x247efff8, 0x120001014, "ldah\tt2,-8(sp)" }, /* LDAH, negative displacement */
	{ 0x28220010, 0x120001018, "ldbu\tt0,16(t1)" }, /* LDBU */
	{ 0x287efff8, 0x12000101c, "ldbu\tt2,-8(sp)" }, /* LDBU, negative displacement */
	{ 0x2c220010, 0x120001020, "ldq_u\tt0,16(t1)" }, /* LDQ_U */
	{ 0x2c7efff8, 0x120001024, "ldq_u\tt2,-8(sp)" }, /* LDQ_U, negative displacement */
	{ 0x30220010, 0x120001028, "ldwu\tt0,16(t1)" }, /* LDWU */
	{ 0x307efff8, 0x12000102c, "ldwu\tt2,-8(sp)" }, /* LDWU, negative displacement */
	{ 0x34220010, 0x120001030, "stw\tt0,16(t1)" }, /* STW */
	{ 0x347efff8, 0x120001034, "stw\tt2,-8(sp)" }, /* STW, negative displacement */
	{ 0x38220010, 0x120001038, "stb\tt0,16(t1)" }, /* STB */
	{ 0x387efff8, 0x12000103c, "stb\tt2,-8(sp)" }, /* STB, negative displacement */
	{ 0x3c220010, 0x120001040, "stq_u\tt0,16(t1)" }, /* STQ_U */
	{ 0x3c7efff8, 0x120001044, "stq_u\tt2,-8(sp)" }, /* STQ_U, negative displacement */
	{ 0x40220003, 0x120001048, "addl\tt0,t1,t2" }, /* ADDL */
	{ 0x40255004, 0x12000104c, "addl\tt0,0x2a,t3" }, /* ADDL, literal */
	{ 0x40220043, 0x120001050, "s4addl\tt0,t1,t2" }, /* S4ADDL */
	{ 0x40255044, 0x120001054, "s4addl\tt0,0x2a,t3" }, /* S4ADDL, literal */
	{ 0x40220123, 0x120001058, "subl\tt0,t1,t2" }, /* SUBL */
	{ 0x40255124, 0x12000105c, "subl\tt0,0x2a,t3" }, /* SUBL, literal */
	{ 0x40220163, 0x120001060, "s4subl\tt0,t1,t2" }, /* S4SUBL */
	{ 0x40255164, 0x120001064, "s4subl\tt0,0x2a,t3" }, /* S4SUBL, literal */
	{ 0x402201e3, 0x120001068, "cmpbge\tt0,t1,t2" }, /* CMPBGE */
	{ 0x402551e4, 0x12000106c, "cmpbge\tt0,0x2a,t3" }, /* CMPBGE, literal */
	{ 0x40220243, 0x120001070, "s8addl\tt0,t1,t2" }, /* S8ADDL */
	{ 0x40255244, 0x120001074, "s8addl\tt0,0x2a,t3" }, /* S8ADDL, literal */
	{ 0x40220363, 0x120001078, "s8subl\tt0,t1,t2" }, /* S8SUBL */
	{ 0x40255364, 0x12000107c, "s8subl\tt0,0x2a,t3" }, /* S8SUBL, literal */
	{ 0x402203a3, 0x120001080, "cmpult\tt0,t1,t2" }, /* CMPULT */
	{ 0x402553a4, 0x120001084, "cmpult\tt0,0x2a,t3" }, /* CMPULT, literal */
	{ 0x40220403, 0x120001088, "addq\tt0,t1,t2" }, /* ADDQ */
	{ 0x40255404, 0x12000108c, "addq\tt0,0x2a,t3" }, /* ADDQ, literal */
	{ 0x40220443, 0x120001090, "s4addq\tt0,t1,t2" }, /* S4ADDQ */
	{ 0x40255444, 0x120001094, "s4addq\tt0,0x2a,t3" }, /* S4ADDQ, literal */
	{ 0x40220523, 0x120001098, "subq\tt0,t1,t2" }, /* SUBQ */
	{ 0x40255524, 0x12000109c, "subq\tt0,0x2a,t3" }, /* SUBQ, literal */
	{ 0x40220563, 0x1200010a0, "s4subq\tt0,t1,t2" }, /* S4SUBQ */
	{ 0x40255564, 0x1200010a4, "s4subq\tt0,0x2a,t3" }, /* S4SUBQ, literal */
	{ 0x402205a3, 0x1200010a8, "cmpeq\tt0,t1,t2" }, /* CMPEQ */
	{ 0x402555a4, 0x1200010ac, "cmpeq\tt0,0x2a,t3" }, /* CMPEQ, literal */
	{ 0x40220643, 0x1200010b0, "s8addq\tt0,t1,t2" }, /* S8ADDQ */
	{ 0x40255644, 0x1200010b4, "s8addq\tt0,0x2a,t3" }, /* S8ADDQ, literal */
	{ 0x40220763, 0x1200010b8, "s8subq\tt0,t1,t2" }, /* S8SUBQ */
	{ 0x40255764, 0x1200010bc, "s8subq\tt0,0x2a,t3" }, /* S8SUBQ, literal */
	{ 0x402207a3, 0x1200010c0, "cmpule\tt0,t1,t2" }, /* CMPULE */
	{ 0x402557a4, 0x1200010c4, "cmpule\tt0,0x2a,t3" }, /* CMPULE, literal */
	{ 0x40220803, 0x1200010c8, "addl/v\tt0,t1,t2" }, /* ADDLV */
	{ 0x40255804, 0x1200010cc, "addl/v\tt0,0x2a,t3" }, /* ADDLV, literal */
	{ 0x40220923, 0x1200010d0, "subl/v\tt0,t1,t2" }, /* SUBLV */
	{ 0x40255924, 0x1200010d4, "subl/v\tt0,0x2a,t3" }, /* SUBLV, literal */
	{ 0x402209a3, 0x1200010d8, "cmplt\tt0,t1,t2" }, /* CMPLT */
	{ 0x402559a4, 0x1200010dc, "cmplt\tt0,0x2a,t3" }, /* CMPLT, literal */
	{ 0x40220c03, 0x1200010e0, "addq/v\tt0,t1,t2" }, /* ADDQV */
	{ 0x40255c04, 0x1200010e4, "addq/v\tt0,0x2a,t3" }, /* ADDQV, literal */
	{ 0x40220d23, 0x1200010e8, "subq/v\tt0,t1,t2" }, /* SUBQV */
	{ 0x40255d24, 0x1200010ec, "subq/v\tt0,0x2a,t3" }, /* SUBQV, literal */
	{ 0x40220da3, 0x1200010f0, "cmple\tt0,t1,t2" }, /* CMPLE */
	{ 0x40255da4, 0x1200010f4, "cmple\tt0,0x2a,t3" }, /* CMPLE, literal */
	{ 0x44220003, 0x1200010f8, "and\tt0,t1,t2" }, /* AND */
	{ 0x44255004, 0x1200010fc, "and\tt0,0x2a,t3" }, /* AND, literal */
	{ 0x44220103, 0x120001100, "andnot\tt0,t1,t2" }, /* BIC */
	{ 0x44255104, 0x120001104, "andnot\tt0,0x2a,t3" }, /* BIC, literal */
	{ 0x44220283, 0x120001108, "cmovlbs\tt0,t1,t2" }, /* CMOVLBS */
	{ 0x44255284, 0x12000110c, "cmovlbs\tt0,0x2a,t3" }, /* CMOVLBS, literal */
	{ 0x442202c3, 0x120001110, "cmovlbc\tt0,t1,t2" }, /* CMOVLBC */
	{ 0x442552c4, 0x120001114, "cmovlbc\tt0,0x2a,t3" }, /* CMOVLBC, literal */
	{ 0x44220403, 0x120001118, "or\tt0,t1,t2" }, /* BIS */
	{ 0x44255404, 0x12000111c, "or\tt0,0x2a,t3" }, /* BIS, literal */
	{ 0x44220483, 0x120001120, "cmoveq\tt0,t1,t2" }, /* CMOVEQ */
	{ 0x44255484, 0x120001124, "cmoveq\tt0,0x2a,t3" }, /* CMOVEQ, literal */
	{ 0x442204c3, 0x120001128, "cmovne\tt0,t1,t2" }, /* CMOVNE */
	{ 0x442554c4, 0x12000112c, "cmovne\tt0,0x2a,t3" }, /* CMOVNE, literal */
	{ 0x44220503, 0x120001130, "ornot\tt0,t1,t2" }, /* ORNOT */
	{ 0x44255504, 0x120001134, "ornot\tt0,0x2a,t3" }, /* ORNOT, literal */
	{ 0x44220803, 0x120001138, "xor\tt0,t1,t2" }, /* XOR */
	{ 0x44255804, 0x12000113c, "xor\tt0,0x2a,t3" }, /* XOR, literal */
	{ 0x44220883, 0x120001140, "cmovlt\tt0,t1,t2" }, /* CMOVLT */
	{ 0x44255884, 0x120001144, "cmovlt\tt0,0x2a,t3" }, /* CMOVLT, literal */
	{ 0x442208c3, 0x120001148, "cmovge\tt0,t1,t2" }, /* CMOVGE */
	{ 0x442558c4, 0x12000114c, "cmovge\tt0,0x2a,t3" }, /* CMOVGE, literal */
	{ 0x44220903, 0x120001150, "eqv\tt0,t1,t2" }, /* EQV */
	{ 0x44255904, 0x120001154, "eqv\tt0,0x2a,t3" }, /* EQV, literal */
	{ 0x47e20c23, 0x120001158, "amask\tt1,t2" }, /* AMASK */
	{ 0x47e55c24, 0x12000115c, "amask\t0x2a,t3" }, /* AMASK, literal */
	{ 0x44220c83, 0x120001160, "cmovle\tt0,t1,t2" }, /* CMOVLE */
	{ 0x44255c84, 0x120001164, "cmovle\tt0,0x2a,t3" }, /* CMOVLE, literal */
	{ 0x44220cc3, 0x120001168, "cmovgt\tt0,t1,t2" }, /* CMOVGT */
	{ 0x44255cc4, 0x12000116c, "cmovgt\tt0,0x2a,t3" }, /* CMOVGT, literal */
	{ 0x47e03d82, 0x120001170, "implver\tt1" }, /* IMPLVER */
	{ 0x48220043, 0x120001174, "mskbl\tt0,t1,t2" }, /* MSKBL */
	{ 0x48255044, 0x120001178, "mskbl\tt0,0x2a,t3" }, /* MSKBL, literal */
	{ 0x482200c3, 0x12000117c, "extbl\tt0,t1,t2" }, /* EXTBL */
	{ 0x482550c4, 0x120001180, "extbl\tt0,0x2a,t3" }, /* EXTBL, literal */
	{ 0x48220163, 0x120001184, "insbl\tt0,t1,t2" }, /* INSBL */
	{ 0x48255164, 0x120001188, "insbl\tt0,0x2a,t3" }, /* INSBL, literal */
	{ 0x48220243, 0x12000118c, "mskwl\tt0,t1,t2" }, /* MSKWL */
	{ 0x48255244, 0x120001190, "mskwl\tt0,0x2a,t3" }, /* MSKWL, literal */
	{ 0x482202c3, 0x120001194, "extwl\tt0,t1,t2" }, /* EXTWL */
	{ 0x482552c4, 0x120001198, "extwl\tt0,0x2a,t3" }, /* EXTWL, literal */
	{ 0x48220363, 0x12000119c, "inswl\tt0,t1,t2" }, /* INSWL */
	{ 0x48255364, 0x1200011a0, "inswl\tt0,0x2a,t3" }, /* INSWL, literal */
	{ 0x48220443, 0x1200011a4, "mskll\tt0,t1,t2" }, /* MSKLL */
	{ 0x48255444, 0x1200011a8, "mskll\tt0,0x2a,t3" }, /* MSKLL, literal */
	{ 0x482204c3, 0x1200011ac, "extll\tt0,t1,t2" }, /* EXTLL */
	{ 0x482554c4, 0x1200011b0, "extll\tt0,0x2a,t3" }, /* EXTLL, literal */
	{ 0x48220563, 0x1200011b4, "insll\tt0,t1,t2" }, /* INSLL */
	{ 0x48255564, 0x1200011b8, "insll\tt0,0x2a,t3" }, /* INSLL, literal */
	{ 0x48220603, 0x1200011bc, "zap\tt0,t1,t2" }, /* ZAP */
	{ 0x48255604, 0x1200011c0, "zap\tt0,0x2a,t3" }, /* ZAP, literal */
	{ 0x48220623, 0x1200011c4, "zapnot\tt0,t1,t2" }, /* ZAPNOT */
	{ 0x48255624, 0x1200011c8, "zapnot\tt0,0x2a,t3" }, /* ZAPNOT, literal */
	{ 0x48220643, 0x1200011cc, "mskql\tt0,t1,t2" }, /* MSKQL */
	{ 0x48255644, 0x1200011d0, "mskql\tt0,0x2a,t3" }, /* MSKQL, literal */
	{ 0x48220683, 0x1200011d4, "srl\tt0,t1,t2" }, /* SRL */
	{ 0x48255684, 0x1200011d8, "srl\tt0,0x2a,t3" }, /* SRL, literal */
	{ 0x482206c3, 0x1200011dc, "extql\tt0,t1,t2" }, /* EXTQL */
	{ 0x482556c4, 0x1200011e0, "extql\tt0,0x2a,t3" }, /* EXTQL, literal */
	{ 0x48220723, 0x1200011e4, "sll\tt0,t1,t2" }, /* SLL */
	{ 0x48255724, 0x1200011e8, "sll\tt0,0x2a,t3" }, /* SLL, literal */
	{ 0x48220763, 0x1200011ec, "insql\tt0,t1,t2" }, /* INSQL */
	{ 0x48255764, 0x1200011f0, "insql\tt0,0x2a,t3" }, /* INSQL, literal */
	{ 0x48220783, 0x1200011f4, "sra\tt0,t1,t2" }, /* SRA */
	{ 0x48255784, 0x1200011f8, "sra\tt0,0x2a,t3" }, /* SRA, literal */
	{ 0x48220a43, 0x1200011fc, "mskwh\tt0,t1,t2" }, /* MSKWH */
	{ 0x48255a44, 0x120001200, "mskwh\tt0,0x2a,t3" }, /* MSKWH, literal */
	{ 0x48220ae3, 0x120001204, "inswh\tt0,t1,t2" }, /* INSWH */
	{ 0x48255ae4, 0x120001208, "inswh\tt0,0x2a,t3" }, /* INSWH, literal */
	{ 0x48220b43, 0x12000120c, "extwh\tt0,t1,t2" }, /* EXTWH */
	{ 0x48255b44, 0x120001210, "extwh\tt0,0x2a,t3" }, /* EXTWH, literal */
	{ 0x48220c43, 0x120001214, "msklh\tt0,t1,t2" }, /* MSKLH */
	{ 0x48255c44, 0x120001218, "msklh\tt0,0x2a,t3" }, /* MSKLH, literal */
	{ 0x48220ce3, 0x12000121c, "inslh\tt0,t1,t2" }, /* INSLH */
	{ 0x48255ce4, 0x120001220, "inslh\tt0,0x2a,t3" }, /* INSLH, literal */
	{ 0x48220d43, 0x120001224, "extlh\tt0,t1,t2" }, /* EXTLH */
	{ 0x48255d44, 0x120001228, "extlh\tt0,0x2a,t3" }, /* EXTLH, literal */
	{ 0x48220e43, 0x12000122c, "mskqh\tt0,t1,t2" }, /* MSKQH */
	{ 0x48255e44, 0x120001230, "mskqh\tt0,0x2a,t3" }, /* MSKQH, literal */
	{ 0x48220ee3, 0x120001234, "insqh\tt0,t1,t2" }, /* INSQH */
	{ 0x48255ee4, 0x120001238, "insqh\tt0,0x2a,t3" }, /* INSQH, literal */
	{ 0x48220f43, 0x12000123c, "extqh\tt0,t1,t2" }, /* EXTQH */
	{ 0x48255f44, 0x120001240, "extqh\tt0,0x2a,t3" }, /* EXTQH, literal */
	{ 0x4c220003, 0x120001244, "mull\tt0,t1,t2" }, /* MULL */
	{ 0x4c255004, 0x120001248, "mull\tt0,0x2a,t3" }, /* MULL, literal */
	{ 0x4c220403, 0x12000124c, "mulq\tt0,t1,t2" }, /* MULQ */
	{ 0x4c255404, 0x120001250, "mulq\tt0,0x2a,t3" }, /* MULQ, literal */
	{ 0x4c220603, 0x120001254, "umulh\tt0,t1,t2" }, /* UMULH */
	{ 0x4c255604, 0x120001258, "umulh\tt0,0x2a,t3" }, /* UMULH, literal */
	{ 0x4c220803, 0x12000125c, "mull/v\tt0,t1,t2" }, /* MULLV */
	{ 0x4c255804, 0x120001260, "mull/v\tt0,0x2a,t3" }, /* MULLV, literal */
	{ 0x4c220c03, 0x120001264, "mulq/v\tt0,t1,t2" }, /* MULQV */
	{ 0x4c255c04, 0x120001268, "mulq/v\tt0,0x2a,t3" }, /* MULQV, literal */
	{ 0x503f0083, 0x12000126c, "itofs\tt0,$f3" }, /* ITOFS */
	{ 0x53e21143, 0x120001270, "sqrtf\t$f2,$f3" }, /* SQRTF */
	{ 0x53e21163, 0x120001274, "sqrts\t$f2,$f3" }, /* SQRTS */
	{ 0x503f0283, 0x120001278, "itoff\tt0,$f3" }, /* ITOFF */
	{ 0x503f0483, 0x12000127c, "itoft\tt0,$f3" }, /* ITOFT */
	{ 0x53e21543, 0x120001280, "sqrtg\t$f2,$f3" }, /* SQRTG */
	{ 0x53e21563, 0x120001284, "sqrtt\t$f2,$f3" }, /* SQRTT */
	{ 0x54221003, 0x120001288, "addf\t$f1,$f2,$f3" }, /* ADDF */
	{ 0x54221023, 0x12000128c, "subf\t$f1,$f2,$f3" }, /* SUBF */
	{ 0x54221043, 0x120001290, "mulf\t$f1,$f2,$f3" }, /* MULF */
	{ 0x54221063, 0x120001294, "divf\t$f1,$f2,$f3" }, /* DIVF */
	{ 0x57e213c3, 0x120001298, "cvtdg\t$f2,$f3" }, /* CVTDG */
	{ 0x54221403, 0x12000129c, "addg\t$f1,$f2,$f3" }, /* ADDG */
	{ 0x54221423, 0x1200012a0, "subg\t$f1,$f2,$f3" }, /* SUBG */
	{ 0x54221443, 0x1200012a4, "mulg\t$f1,$f2,$f3" }, /* MULG */
	{ 0x54221463, 0x1200012a8, "divg\t$f1,$f2,$f3" }, /* DIVG */
	{ 0x542214a3, 0x1200012ac, "cmpgeq\t$f1,$f2,$f3" }, /* CMPGEQ */
	{ 0x542214c3, 0x1200012b0, "cmpglt\t$f1,$f2,$f3" }, /* CMPGLT */
	{ 0x542214e3, 0x1200012b4, "cmpgle\t$f1,$f2,$f3" }, /* CMPGLE */
	{ 0x57e21583, 0x1200012b8, "cvtgf\t$f2,$f3" }, /* CVTGF */
	{ 0x57e215a3, 0x1200012bc, "cvtgd\t$f2,$f3" }, /* CVTGD */
	{ 0x57e215e3, 0x1200012c0, "cvtgq\t$f2,$f3" }, /* CVTGQ */
	{ 0x57e21783, 0x1200012c4, "cvtqf\t$f2,$f3" }, /* CVTQF */
	{ 0x57e217c3, 0x1200012c8, "cvtqg\t$f2,$f3" }, /* CVTQG */
	{ 0x58221003, 0x1200012cc, "adds\t$f1,$f2,$f3" }, /* ADDS */
	{ 0x58221023, 0x1200012d0, "subs\t$f1,$f2,$f3" }, /* SUBS */
	{ 0x58221043, 0x1200012d4, "muls\t$f1,$f2,$f3" }, /* MULS */
	{ 0x58221063, 0x1200012d8, "divs\t$f1,$f2,$f3" }, /* DIVS */
	{ 0x58221403, 0x1200012dc, "addt\t$f1,$f2,$f3" }, /* ADDT */
	{ 0x58221423, 0x1200012e0, "subt\t$f1,$f2,$f3" }, /* SUBT */
	{ 0x58221443, 0x1200012e4, "mult\t$f1,$f2,$f3" }, /* MULT */
	{ 0x58221463, 0x1200012e8, "divt\t$f1,$f2,$f3" }, /* DIVT */
	{ 0x58221483, 0x1200012ec, "cmptun\t$f1,$f2,$f3" }, /* CMPTUN */
	{ 0x582214a3, 0x1200012f0, "cmpteq\t$f1,$f2,$f3" }, /* CMPTEQ */
	{ 0x582214c3, 0x1200012f4, "cmptlt\t$f1,$f2,$f3" }, /* CMPTLT */
	{ 0x582214e3, 0x1200012f8, "cmptle\t$f1,$f2,$f3" }, /* CMPTLE */
	{ 0x5be21583, 0x1200012fc, "cvtts\t$f2,$f3" }, /* CVTTS */
	{ 0x5be25583, 0x120001300, "cvtst\t$f2,$f3" }, /* CVTST */
	{ 0x5be215e3, 0x120001304, "cvttq\t$f2,$f3" }, /* CVTTQ */
	{ 0x5be21783, 0x120001308, "cvtqs\t$f2,$f3" }, /* CVTQS */
	{ 0x5be217c3, 0x12000130c, "cvtqt\t$f2,$f3" }, /* CVTQT */
	{ 0x5fe20203, 0x120001310, "cvtlq\t$f2,$f3" }, /* CVTLQ */
	{ 0x5c220403, 0x120001314, "cpys\t$f1,$f2,$f3" }, /* CPYS */
	{ 0x5c220423, 0x120001318, "cpysn\t$f1,$f2,$f3" }, /* CPYSN */
	{ 0x5c220443, 0x12000131c, "cpyse\t$f1,$f2,$f3" }, /* CPYSE */
	{ 0x5ca50485, 0x120001320, "mt_fpcr\t$f5" }, /* MT_FPCR */
	{ 0x5ca504a5, 0x120001324, "mf_fpcr\t$f5" }, /* MF_FPCR */
	{ 0x5c220543, 0x120001328, "fcmoveq\t$f1,$f2,$f3" }, /* FCMOVEQ */
	{ 0x5c220563, 0x12000132c, "fcmovne\t$f1,$f2,$f3" }, /* FCMOVNE */
	{ 0x5c220583, 0x120001330, "fcmovlt\t$f1,$f2,$f3" }, /* FCMOVLT */
	{ 0x5c2205a3, 0x120001334, "fcmovge\t$f1,$f2,$f3" }, /* FCMOVGE */
	{ 0x5c2205c3, 0x120001338, "fcmovle\t$f1,$f2,$f3" }, /* FCMOVLE */
	{ 0x5c2205e3, 0x12000133c, "fcmovgt\t$f1,$f2,$f3" }, /* FCMOVGT */
	{ 0x5fe20603, 0x120001340, "cvtql\t$f2,$f3" }, /* CVTQL */
	{ 0x5fe22603, 0x120001344, "cvtql/v\t$f2,$f3" }, /* CVTQLV */
	{ 0x5fe2a603, 0x120001348, "cvtql/sv\t$f2,$f3" }, /* CVTQLSV */
	{ 0x60220000, 0x12000134c, "trapb" }, /* TRAPB */
	{ 0x60220400, 0x120001350, "excb" }, /* EXCB */
	{ 0x60224000, 0x120001354, "mb" }, /* MB */
	{ 0x60224400, 0x120001358, "wmb" }, /* WMB */
	{ 0x63e28000, 0x12000135c, "fetch\t(t1)" }, /* FETCH */
	{ 0x63e2a000, 0x120001360, "fetch_m\t(t1)" }, /* FETCH_M */
	{ 0x6022c000, 0x120001364, "rpcc\tt0,t1" }, /* RPCC */
	{ 0x6022e000, 0x120001368, "rc\tt0" }, /* RC */
	{ 0x63e2e800, 0x12000136c, "ecb\t(t1)" }, /* ECB */
	{ 0x6022f000, 0x120001370, "rs\tt0" }, /* RS */
	{ 0x63e2f800, 0x120001374, "wh64\t(t1)" }, /* WH64 */
	{ 0x63e2fc00, 0x120001378, "wh64en\t(t1)" }, /* WH64EN */
	{ 0x68220010, 0x12000137c, "jmp\tt0,(t1),0x1200013c0" }, /* JMP */
	{ 0x68224010, 0x120001380, "jsr\tt0,(t1),0x1200013c4" }, /* JSR */
	{ 0x68228010, 0x120001384, "ret\tt0,(t1),0x10" }, /* RET */
	{ 0x6822c010, 0x120001388, "jcr\tt0,(t1),0x10" }, /* JSR_CO */
	{ 0x73e20003, 0x12000138c, "sextb\tt1,t2" }, /* SEXTB */
	{ 0x73e55004, 0x120001390, ".long 0x73e55004" }, /* SEXTB, literal */
	{ 0x73e20023, 0x120001394, "sextw\tt1,t2" }, /* SEXTW */
	{ 0x73e55024, 0x120001398, ".long 0x73e55024" }, /* SEXTW, literal */
	{ 0x73e20603, 0x12000139c, "ctpop\tt1,t2" }, /* CTPOP */
	{ 0x73e55604, 0x1200013a0, ".long 0x73e55604" }, /* CTPOP, literal */
	{ 0x70220623, 0x1200013a4, "perr\tt0,t1,t2" }, /* PERR */
	{ 0x70255624, 0x1200013a8, ".long 0x70255624" }, /* PERR, literal */
	{ 0x73e20643, 0x1200013ac, "ctlz\tt1,t2" }, /* CTLZ */
	{ 0x73e55644, 0x1200013b0, ".long 0x73e55644" }, /* CTLZ, literal */
	{ 0x73e20663, 0x1200013b4, "cttz\tt1,t2" }, /* CTTZ */
	{ 0x73e55664, 0x1200013b8, ".long 0x73e55664" }, /* CTTZ, literal */
	{ 0x73e20683, 0x1200013bc, "unpkbw\tt1,t2" }, /* UNPKBW */
	{ 0x73e55684, 0x1200013c0, ".long 0x73e55684" }, /* UNPKBW, literal */
	{ 0x73e206a3, 0x1200013c4, "unpkbl\tt1,t2" }, /* UNPKBL */
	{ 0x73e556a4, 0x1200013c8, ".long 0x73e556a4" }, /* UNPKBL, literal */
	{ 0x73e206c3, 0x1200013cc, "pkwb\tt1,t2" }, /* PKWB */
	{ 0x73e556c4, 0x1200013d0, ".long 0x73e556c4" }, /* PKWB, literal */
	{ 0x73e206e3, 0x1200013d4, "pklb\tt1,t2" }, /* PKLB */
	{ 0x73e556e4, 0x1200013d8, ".long 0x73e556e4" }, /* PKLB, literal */
	{ 0x70220703, 0x1200013dc, "minsb8\tt0,t1,t2" }, /* MINSB8 */
	{ 0x70255704, 0x1200013e0, "minsb8\tt0,0x2a,t3" }, /* MINSB8, literal */
	{ 0x70220723, 0x1200013e4, "minsw4\tt0,t1,t2" }, /* MINSW4 */
	{ 0x70255724, 0x1200013e8, "minsw4\tt0,0x2a,t3" }, /* MINSW4, literal */
	{ 0x70220743, 0x1200013ec, "minub8\tt0,t1,t2" }, /* MINUB8 */
	{ 0x70255744, 0x1200013f0, "minub8\tt0,0x2a,t3" }, /* MINUB8, literal */
	{ 0x70220763, 0x1200013f4, "minuw4\tt0,t1,t2" }, /* MINUW4 */
	{ 0x70255764, 0x1200013f8, "minuw4\tt0,0x2a,t3" }, /* MINUW4, literal */
	{ 0x70220783, 0x1200013fc, "maxub8\tt0,t1,t2" }, /* MAXUB8 */
	{ 0x70255784, 0x120001400, "maxub8\tt0,0x2a,t3" }, /* MAXUB8, literal */
	{ 0x702207a3, 0x120001404, "maxuw4\tt0,t1,t2" }, /* MAXUW4 */
	{ 0x702557a4, 0x120001408, "maxuw4\tt0,0x2a,t3" }, /* MAXUW4, literal */
	{ 0x702207c3, 0x12000140c, "maxsb8\tt0,t1,t2" }, /* MAXSB8 */
	{ 0x702557c4, 0x120001410, "maxsb8\tt0,0x2a,t3" }, /* MAXSB8, literal */
	{ 0x702207e3, 0x120001414, "maxsw4\tt0,t1,t2" }, /* MAXSW4 */
	{ 0x702557e4, 0x120001418, "maxsw4\tt0,0x2a,t3" }, /* MAXSW4, literal */
	{ 0x703f0e03, 0x12000141c, "ftoit\t$f1,t2" }, /* FTOIT */
	{ 0x703f0f03, 0x120001420, "ftois\t$f1,t2" }, /* FTOIS */
	{ 0x80220010, 0x120001424, "ldf\t$f1,16(t1)" }, /* LDF */
	{ 0x807efff8, 0x120001428, "ldf\t$f3,-8(sp)" }, /* LDF, negative displacement */
	{ 0x84220010, 0x12000142c, "ldg\t$f1,16(t1)" }, /* LDG */
	{ 0x847efff8, 0x120001430, "ldg\t$f3,-8(sp)" }, /* LDG, negative displacement */
	{ 0x88220010, 0x120001434, "lds\t$f1,16(t1)" }, /* LDS */
	{ 0x887efff8, 0x120001438, "lds\t$f3,-8(sp)" }, /* LDS, negative displacement */
	{ 0x8c220010, 0x12000143c, "ldt\t$f1,16(t1)" }, /* LDT */
	{ 0x8c7efff8, 0x120001440, "ldt\t$f3,-8(sp)" }, /* LDT, negative displacement */
	{ 0x90220010, 0x120001444, "stf\t$f1,16(t1)" }, /* STF */
	{ 0x907efff8, 0x120001448, "stf\t$f3,-8(sp)" }, /* STF, negative displacement */
	{ 0x94220010, 0x12000144c, "stg\t$f1,16(t1)" }, /* STG */
	{ 0x947efff8, 0x120001450, "stg\t$f3,-8(sp)" }, /* STG, negative displacement */
	{ 0x98220010, 0x120001454, "sts\t$f1,16(t1)" }, /* STS */
	{ 0x987efff8, 0x120001458, "sts\t$f3,-8(sp)" }, /* STS, negative displacement */
	{ 0x9c220010, 0x12000145c, "stt\t$f1,16(t1)" }, /* STT */
	{ 0x9c7efff8, 0x120001460, "stt\t$f3,-8(sp)" }, /* STT, negative displacement */
	{ 0xa0220010, 0x120001464, "ldl\tt0,16(t1)" }, /* LDL */
	{ 0xa07efff8, 0x120001468, "ldl\tt2,-8(sp)" }, /* LDL, negative displacement */
	{ 0xa4220010, 0x12000146c, "ldq\tt0,16(t1)" }, /* LDQ */
	{ 0xa47efff8, 0x120001470, "ldq\tt2,-8(sp)" }, /* LDQ, negative displacement */
	{ 0xa8220010, 0x120001474, "ldl_l\tt0,16(t1)" }, /* LDL_L */
	{ 0xa87efff8, 0x120001478, "ldl_l\tt2,-8(sp)" }, /* LDL_L, negative displacement */
	{ 0xac220010, 0x12000147c, "ldq_l\tt0,16(t1)" }, /* LDQ_L */
	{ 0xac7efff8, 0x120001480, "ldq_l\tt2,-8(sp)" }, /* LDQ_L, negative displacement */
	{ 0xb0220010, 0x120001484, "stl\tt0,16(t1)" }, /* STL */
	{ 0xb07efff8, 0x120001488, "stl\tt2,-8(sp)" }, /* STL, negative displacement */
	{ 0xb4220010, 0x12000148c, "stq\tt0,16(t1)" }, /* STQ */
	{ 0xb47efff8, 0x120001490, "stq\tt2,-8(sp)" }, /* STQ, negative displacement */
	{ 0xb8220010, 0x120001494, "stl_c\tt0,16(t1)" }, /* STL_C */
	{ 0xb87efff8, 0x120001498, "stl_c\tt2,-8(sp)" }, /* STL_C, negative displacement */
	{ 0xbc220010, 0x12000149c, "stq_c\tt0,16(t1)" }, /* STQ_C */
	{ 0xbc7efff8, 0x1200014a0, "stq_c\tt2,-8(sp)" }, /* STQ_C, negative displacement */
	{ 0xc0200040, 0x1200014a4, "br\tt0,0x1200015a8" }, /* BR */
	{ 0xc05ffffd, 0x1200014a8, "br\tt1,0x1200014a0" }, /* BR, backwards */
	{ 0xc4200040, 0x1200014ac, "fbeq\t$f1,0x1200015b0" }, /* FBEQ */
	{ 0xc45ffffd, 0x1200014b0, "fbeq\t$f2,0x1200014a8" }, /* FBEQ, backwards */
	{ 0xc8200040, 0x1200014b4, "fblt\t$f1,0x1200015b8" }, /* FBLT */
	{ 0xc85ffffd, 0x1200014b8, "fblt\t$f2,0x1200014b0" }, /* FBLT, backwards */
	{ 0xcc200040, 0x1200014bc, "fble\t$f1,0x1200015c0" }, /* FBLE */
	{ 0xcc5ffffd, 0x1200014c0, "fble\t$f2,0x1200014b8" }, /* FBLE, backwards */
	{ 0xd0200040, 0x1200014c4, "bsr\tt0,0x1200015c8" }, /* BSR */
	{ 0xd05ffffd, 0x1200014c8, "bsr\tt1,0x1200014c0" }, /* BSR, backwards */
	{ 0xd4200040, 0x1200014cc, "fbne\t$f1,0x1200015d0" }, /* FBNE */
	{ 0xd45ffffd, 0x1200014d0, "fbne\t$f2,0x1200014c8" }, /* FBNE, backwards */
	{ 0xd8200040, 0x1200014d4, "fbge\t$f1,0x1200015d8" }, /* FBGE */
	{ 0xd85ffffd, 0x1200014d8, "fbge\t$f2,0x1200014d0" }, /* FBGE, backwards */
	{ 0xdc200040, 0x1200014dc, "fbgt\t$f1,0x1200015e0" }, /* FBGT */
	{ 0xdc5ffffd, 0x1200014e0, "fbgt\t$f2,0x1200014d8" }, /* FBGT, backwards */
	{ 0xe0200040, 0x1200014e4, "blbc\tt0,0x1200015e8" }, /* BLBC */
	{ 0xe05ffffd, 0x1200014e8, "blbc\tt1,0x1200014e0" }, /* BLBC, backwards */
	{ 0xe4200040, 0x1200014ec, "beq\tt0,0x1200015f0" }, /* BEQ */
	{ 0xe45ffffd, 0x1200014f0, "beq\tt1,0x1200014e8" }, /* BEQ, backwards */
	{ 0xe8200040, 0x1200014f4, "blt\tt0,0x1200015f8" }, /* BLT */
	{ 0xe85ffffd, 0x1200014f8, "blt\tt1,0x1200014f0" }, /* BLT, backwards */
	{ 0xec200040, 0x1200014fc, "ble\tt0,0x120001600" }, /* BLE */
	{ 0xec5ffffd, 0x120001500, "ble\tt1,0x1200014f8" }, /* BLE, backwards */
	{ 0xf0200040, 0x120001504, "blbs\tt0,0x120001608" }, /* BLBS */
	{ 0xf05ffffd, 0x120001508, "blbs\tt1,0x120001500" }, /* BLBS, backwards */
	{ 0xf4200040, 0x12000150c, "bne\tt0,0x120001610" }, /* BNE */
	{ 0xf45ffffd, 0x120001510, "bne\tt1,0x120001508" }, /* BNE, backwards */
	{ 0xf8200040, 0x120001514, "bge\tt0,0x120001618" }, /* BGE */
	{ 0xf85ffffd, 0x120001518, "bge\tt1,0x120001510" }, /* BGE, backwards */
	{ 0xfc200040, 0x12000151c, "bgt\tt0,0x120001620" }, /* BGT */
	{ 0xfc5ffffd, 0x120001520, "bgt\tt1,0x120001518" }, /* BGT, backwards */
	{ 0x64123456, 0x120001524, "pal19\t0x123456" }, /* PAL19 */
	{ 0x6c123456, 0x120001528, "pal1b\t0x123456" }, /* PAL1B */
	{ 0x74123456, 0x12000152c, "pal1d\t0x123456" }, /* PAL1D */
	{ 0x78123456, 0x120001530, "pal1e\t0x123456" }, /* PAL1E */
	{ 0x7c123456, 0x120001534, "pal1f\t0x123456" }, /* PAL1F */
	{ 0x47ff041f, 0x120001538, "nop\t" }, /* nop */
	{ 0x2ffe0000, 0x12000153c, "unop\t" }, /* unop */
	{ 0x2fe50008, 0x120001540, "unop\t" }, /* unop: any base and displacement */
	{ 0x5fff041f, 0x120001544, "fnop\t" }, /* fnop */
	{ 0x47ff0405, 0x120001548, "clr\tt4" }, /* clr */
	{ 0x5fff0407, 0x12000154c, "fclr\t$f7" }, /* fclr */
	{ 0x47e9040a, 0x120001550, "mov\ts0,s1" }, /* mov rb,rc */
	{ 0x4529040a, 0x120001554, "mov\ts0,s1" }, /* mov: ra = rb */
	{ 0x47e0140a, 0x120001558, "mov\t0,s1" }, /* mov: literal 0 */
	{ 0x47fff40a, 0x12000155c, "mov\t0xff,s1" }, /* mov: literal */
	{ 0x44220403, 0x120001560, "or\tt0,t1,t2" }, /* BIS prints as or */
	{ 0x4420f403, 0x120001564, "or\tt0,0x7,t2" }, /* or: literal */
	{ 0x44220103, 0x120001568, "andnot\tt0,t1,t2" }, /* BIC prints as andnot */
	{ 0x43e20523, 0x12000156c, "negq\tt1,t2" }, /* negq */
	{ 0x43e20123, 0x120001570, "negl\tt1,t2" }, /* negl */
	{ 0x43e20923, 0x120001574, "negl/v\tt1,t2" }, /* negl/v */
	{ 0x43e13d23, 0x120001578, "negq/v\t0x9,t2" }, /* negq/v: literal */
	{ 0x47e20503, 0x12000157c, "not\tt1,t2" }, /* not */
	{ 0x47e03503, 0x120001580, "not\t0x1,t2" }, /* not: literal */
	{ 0x43e20003, 0x120001584, "sextl\tt1,t2" }, /* sextl */
	{ 0x43f01003, 0x120001588, "sextl\t0x80,t2" }, /* sextl: literal */
	{ 0x5c840406, 0x12000158c, "fmov\t$f4,$f6" }, /* fmov */
	{ 0x5c840426, 0x120001590, "fneg\t$f4,$f6" }, /* fneg */
	{ 0x5fe40406, 0x120001594, "fabs\t$f4,$f6" }, /* fabs */
	{ 0x5fe40426, 0x120001598, "cpysn\t$f31,$f4,$f6" }, /* cpysn with fa = f31 stays cpysn */
	{ 0x6bfa8001, 0x12000159c, "ret" }, /* ret: the canonical return */
	{ 0x6bfa8000, 0x1200015a0, "ret\tzero,(ra),0" }, /* ret: hint 0 */
	{ 0x6be98001, 0x1200015a4, "ret\tzero,(s0),0x1" }, /* ret: other base */
	{ 0x6bfb0000, 0x1200015a8, "jmp\t(t12)" }, /* jmp (rb) */
	{ 0x6bfb0001, 0x1200015ac, "jmp\tzero,(t12),0x1200015b4" }, /* jmp: with hint target */
	{ 0x6b5b4000, 0x1200015b0, "jsr\tra,(t12),0x1200015b4" }, /* jsr */
	{ 0x6b5bc000, 0x1200015b4, "jcr\tra,(t12),0" }, /* JSR_COROUTINE prints as jcr */
	{ 0xc3e00005, 0x1200015b8, "br\t0x1200015d0" }, /* br target */
	{ 0xc3400005, 0x1200015bc, "br\tra,0x1200015d4" }, /* br ra,target */
	{ 0xd35fffff, 0x1200015c0, "bsr\tra,0x1200015c0" }, /* bsr: backwards */
	{ 0x203f0005, 0x1200015c4, "lda\tt0,5" }, /* lda: no base */
	{ 0x243ffffb, 0x1200015c8, "ldah\tt0,-5" }, /* ldah: no base */
	{ 0x20228000, 0x1200015cc, "lda\tt0,-32768(t1)" }, /* lda: lowest displacement */
	{ 0x27bb7fff, 0x1200015d0, "ldah\tgp,32767(t12)" }, /* ldah: highest displacement */
	{ 0x5d0804a8, 0x1200015d4, "mf_fpcr\t$f8" }, /* mf_fpcr */
	{ 0x5c000480, 0x1200015d8, "mt_fpcr\t$f0" }, /* mt_fpcr */
	{ 0x5be21023, 0x1200015dc, "negs\t$f2,$f3" }, /* negs */
	{ 0x5be2b423, 0x1200015e0, "negt/su\t$f2,$f3" }, /* negt/su */
	{ 0x5be2f023, 0x1200015e4, "negs/sui\t$f2,$f3" }, /* negs/sui */
	{ 0x5be21423, 0x1200015e8, "negt\t$f2,$f3" }, /* negt */
	{ 0x5be20023, 0x1200015ec, "subs/c\t$f31,$f2,$f3" }, /* subs/c with fa = f31 is no neg */
	{ 0x57e21023, 0x1200015f0, "negf\t$f2,$f3" }, /* negf */
	{ 0x57e29423, 0x1200015f4, "negg/s\t$f2,$f3" }, /* negg/s */
	{ 0x603fc000, 0x1200015f8, "rpcc\tt0" }, /* rpcc ra */
	{ 0x6022c000, 0x1200015fc, "rpcc\tt0,t1" }, /* rpcc ra,rb */
	{ 0x6020e000, 0x120001600, "rc\tt0" }, /* rc */
	{ 0x6020f000, 0x120001604, "rs\tt0" }, /* rs */
	{ 0x00000000, 0x120001608, "halt" }, /* halt */
	{ 0x00000002, 0x12000160c, "draina" }, /* draina */
	{ 0x00000080, 0x120001610, "bpt" }, /* bpt */
	{ 0x00000081, 0x120001614, "bugchk" }, /* bugchk */
	{ 0x00000086, 0x120001618, "imb" }, /* imb */
	{ 0x0000009e, 0x12000161c, "rduniq" }, /* rduniq */
	{ 0x0000009f, 0x120001620, "wruniq" }, /* wruniq */
	{ 0x000000aa, 0x120001624, "gentrap" }, /* gentrap */
	{ 0x03ffffff, 0x120001628, "call_pal\t0x3ffffff" }, /* call_pal: highest function */
	{ 0x00000001, 0x12000162c, "call_pal\t0x1" }, /* call_pal 0x1 */
	{ 0x5822f003, 0x120001630, "adds/sui\t$f1,$f2,$f3" }, /* adds/sui */
	{ 0x5be2a5e3, 0x120001634, "cvttq/svc\t$f2,$f3" }, /* cvttq/svc */
	{ 0x5be2fde3, 0x120001638, "cvttq/svid\t$f2,$f3" }, /* cvttq/svid */
	{ 0x5be225e3, 0x12000163c, "cvttq/vc\t$f2,$f3" }, /* cvttq/vc */
	{ 0x5be2d583, 0x120001640, "cvtst/s\t$f2,$f3" }, /* cvtst/s */
	{ 0x5822b4a3, 0x120001644, "cmpteq/su\t$f1,$f2,$f3" }, /* cmpteq/su */
	{ 0x5be2ff83, 0x120001648, "cvtqs/suid\t$f2,$f3" }, /* cvtqs/suid */
	{ 0x5be207c3, 0x12000164c, "cvtqt/c\t$f2,$f3" }, /* cvtqt/c */
	{ 0x58221863, 0x120001650, "divs/d\t$f1,$f2,$f3" }, /* divs/d */
	{ 0x58220c43, 0x120001654, "mult/m\t$f1,$f2,$f3" }, /* mult/m */
	{ 0x58223c03, 0x120001658, "addt/ud\t$f1,$f2,$f3" }, /* addt/ud */
	{ 0x5822a803, 0x12000165c, "adds/sum\t$f1,$f2,$f3" }, /* adds/sum */
	{ 0x5be22d83, 0x120001660, "cvtts/um\t$f2,$f3" }, /* cvtts/um */
	{ 0x5422a003, 0x120001664, "addf/suc\t$f1,$f2,$f3" }, /* addf/suc */
	{ 0x57e2a5e3, 0x120001668, "cvtgq/svc\t$f2,$f3" }, /* cvtgq/svc */
	{ 0x57e235e3, 0x12000166c, "cvtgq/v\t$f2,$f3" }, /* cvtgq/v */
	{ 0x57e20783, 0x120001670, "cvtqf/c\t$f2,$f3" }, /* cvtqf/c */
	{ 0x542294e3, 0x120001674, "cmpgle/s\t$f1,$f2,$f3" }, /* cmpgle/s */
	{ 0x57e2b3c3, 0x120001678, "cvtdg/su\t$f2,$f3" }, /* cvtdg/su */
	{ 0x53e2fd63, 0x12000167c, "sqrtt/suid\t$f2,$f3" }, /* sqrtt/suid */
	{ 0x53e2b143, 0x120001680, "sqrtf/su\t$f2,$f3" }, /* sqrtf/su */
	{ 0x53e20163, 0x120001684, "sqrts/c\t$f2,$f3" }, /* sqrts/c */
	{ 0x53e28543, 0x120001688, "sqrtg/sc\t$f2,$f3" }, /* sqrtg/sc */
	{ 0x5fe22603, 0x12000168c, "cvtql/v\t$f2,$f3" }, /* cvtql/v */
	{ 0x5fe2a603, 0x120001690, "cvtql/sv\t$f2,$f3" }, /* cvtql/sv */
	{ 0x4c220803, 0x120001694, "mull/v\tt0,t1,t2" }, /* mull/v */
	{ 0x40203c03, 0x120001698, "addq/v\tt0,0x1,t2" }, /* addq/v: literal */
	{ 0x703ff703, 0x12000169c, "minsb8\tt0,0xff,t2" }, /* minsb8: literal */
	{ 0x04000000, 0x1200016a0, ".long 0x4000000" }, /* opcode 0x01 */
	{ 0x1c000fe0, 0x1200016a4, ".long 0x1c000fe0" }, /* opcode 0x07 */
	{ 0x1fffffff, 0x1200016a8, ".long 0x1fffffff" }, /* opcode 0x07, all ones */
	{ 0x40220023, 0x1200016ac, ".long 0x40220023" }, /* 0x10: unknown function */
	{ 0x44220023, 0x1200016b0, ".long 0x44220023" }, /* 0x11: unknown function */
	{ 0x48220003, 0x1200016b4, ".long 0x48220003" }, /* 0x12: unknown function */
	{ 0x4c220023, 0x1200016b8, ".long 0x4c220023" }, /* 0x13: unknown function */
	{ 0x58225003, 0x1200016bc, ".long 0x58225003" }, /* adds with /i alone */
	{ 0x5be2a783, 0x1200016c0, ".long 0x5be2a783" }, /* cvtqs/su: not a binutils form */
	{ 0x582204a3, 0x1200016c4, ".long 0x582204a3" }, /* cmpteq/c: not a binutils form */
	{ 0x58220583, 0x1200016c8, ".long 0x58220583" }, /* cvtts with fa != f31 */
	{ 0x54220803, 0x1200016cc, ".long 0x54220803" }, /* addf/m: VAX has no /m */
	{ 0x57e29783, 0x1200016d0, ".long 0x57e29783" }, /* cvtqf/s */
	{ 0x542204a3, 0x1200016d4, ".long 0x542204a3" }, /* cmpgeq/c */
	{ 0x73e0b003, 0x1200016d8, ".long 0x73e0b003" }, /* sextb: literal form */
	{ 0x70220603, 0x1200016dc, ".long 0x70220603" }, /* ctpop with ra != r31 */
	{ 0x70207623, 0x1200016e0, ".long 0x70207623" }, /* perr: literal form */
	{ 0x44220c23, 0x1200016e4, ".long 0x44220c23" }, /* amask with ra != r31 */
	{ 0x5c220483, 0x1200016e8, ".long 0x5c220483" }, /* mt_fpcr: fields differ */
	{ 0x47e07d80, 0x1200016ec, ".long 0x47e07d80" }, /* implver: literal 2 */
	{ 0x47e20d83, 0x1200016f0, ".long 0x47e20d83" }, /* implver: register form */
	{ 0x503f1083, 0x1200016f4, ".long 0x503f1083" }, /* itofs with rounding bits */
	{ 0x50220083, 0x1200016f8, ".long 0x50220083" }, /* itofs with rb != r31 */
	{ 0x703f1e03, 0x1200016fc, ".long 0x703f1e03" }, /* ftoit with the literal bit */
	{ 0x70220f03, 0x120001700, ".long 0x70220f03" }, /* ftois with rb != r31 */
	{ 0x60228000, 0x120001704, ".long 0x60228000" }, /* fetch with ra != r31 */
	{ 0x60001234, 0x120001708, ".long 0x60001234" }, /* 0x18: unknown function */
	{ 0x5c2204c3, 0x12000170c, ".long 0x5c2204c3" }, /* 0x17: unknown function */
	{ 0x50221543, 0x120001710, ".long 0x50221543" }, /* sqrtg with fa != f31 */
};

#define NVECS (sizeof(vecs) / sizeof(vecs[0]))

static void test_isa_dis_objdump_vectors(void **state)
{
	(void)state;
	for (size_t i = 0; i < NVECS; i++) {
		char buf[ISA_DIS_TEXT_MAX];
		int n = isa_dis_format(vecs[i].word, vecs[i].addr, NULL, buf, sizeof(buf));

		if (n < 0 || strcmp(buf, vecs[i].text) != 0)
			fail_msg("word %#010x at %#llx: got \"%s\" (%d), objdump prints \"%s\"",
				 vecs[i].word, (unsigned long long)vecs[i].addr, buf, n,
				 vecs[i].text);
		assert_int_equal(n, (int)strlen(vecs[i].text));
	}
}

/* The vectors name every operation the decoder knows, in a form objdump prints. */
static void test_isa_dis_vectors_cover_every_op(void **state)
{
	(void)state;
	for (unsigned int op = 0; op < AXP_OP_INVALID; op++) {
		bool seen = false;

		for (size_t i = 0; i < NVECS && !seen; i++) {
			struct axp_insn d;

			axp_decode(vecs[i].word, &d);
			seen = d.op == op && strncmp(vecs[i].text, ".long", 5) != 0;
		}
		if (!seen)
			fail_msg("no vector prints %s (op %u)", axp_op_info[op].name, op);
	}
}

static void test_isa_dis_vectors_are_consecutive(void **state)
{
	(void)state;
	for (size_t i = 1; i < NVECS; i++)
		assert_int_equal(vecs[i].addr, vecs[i - 1].addr + 4);
}

static void test_isa_dis_is_insn_matches_text(void **state)
{
	(void)state;
	for (size_t i = 0; i < NVECS; i++)
		assert_int_equal(isa_dis_is_insn(vecs[i].word),
				 strncmp(vecs[i].text, ".long", 5) != 0);
}

struct seen_addr {
	uint64_t addr;
	int calls;
};

static void name_addr(void *priv, uint64_t addr, char *buf, size_t size)
{
	struct seen_addr *s = priv;

	s->addr = addr;
	s->calls++;
	snprintf(buf, size, "%llx <f+0x4>", (unsigned long long)addr);
}

static void test_isa_dis_addr_printer_gets_branch_target(void **state)
{
	struct seen_addr seen = { 0 };
	struct isa_dis_opts opts = { .addr = name_addr, .priv = &seen };
	char buf[ISA_DIS_TEXT_MAX];

	(void)state;
	/* bsr ra,.-4 at 0x1000: target 0x1000 + 4 - 4 */
	assert_int_equal(isa_dis_format(0xd35fffff, 0x1000, &opts, buf, sizeof(buf)),
			 (int)strlen("bsr\tra,1000 <f+0x4>"));
	assert_string_equal(buf, "bsr\tra,1000 <f+0x4>");
	assert_int_equal(seen.calls, 1);
	assert_int_equal(seen.addr, 0x1000);
	/* jsr ra,(t12),hint: the hint target goes through the printer too */
	assert_true(isa_dis_format(0x6b5b4002, 0x2000, &opts, buf, sizeof(buf)) > 0);
	assert_int_equal(seen.addr, 0x200c);
	/* ret prints its hint as a number, not an address */
	seen.calls = 0;
	assert_true(isa_dis_format(0x6bfa8002, 0x2000, &opts, buf, sizeof(buf)) > 0);
	assert_string_equal(buf, "ret\tzero,(ra),0x2");
	assert_int_equal(seen.calls, 0);
}

static void test_isa_dis_branch_target_wraps_like_objdump(void **state)
{
	char buf[ISA_DIS_TEXT_MAX];

	(void)state;
	/* br .-8 at address 0: objdump prints the 64-bit wrapped address */
	isa_dis_format(0xc3fffffd, 0, NULL, buf, sizeof(buf));
	assert_string_equal(buf, "br\t0xfffffffffffffff8");
	/* the farthest forward branch */
	isa_dis_format(0xc3ffffff & ~0x100000u, 0x120000000, NULL, buf, sizeof(buf));
	assert_string_equal(buf, "br\t0x120400000");
}

static void test_isa_dis_small_buffer_is_enospc(void **state)
{
	char buf[6];

	(void)state;
	assert_int_equal(isa_dis_format(0x47e10402, 0, NULL, buf, sizeof(buf)), -ENOSPC);
	assert_string_equal(buf, "mov\tt");
	assert_int_equal(isa_dis_format(0x47e10402, 0, NULL, buf, 1), -ENOSPC);
	assert_string_equal(buf, "");
	assert_int_equal(isa_dis_format(0x47e10402, 0, NULL, NULL, 16), -EINVAL);
	assert_int_equal(isa_dis_format(0x47e10402, 0, NULL, buf, 0), -EINVAL);
}

/* Any word fits ISA_DIS_TEXT_MAX with the default printer and has a mnemonic. */
static void test_isa_dis_every_word_class_fits(void **state)
{
	uint64_t x = 0x9e3779b97f4a7c15ull;

	(void)state;
	for (int i = 0; i < 200000; i++) {
		char buf[ISA_DIS_TEXT_MAX];
		uint32_t w;
		int n;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		w = (uint32_t)(x >> 16);
		n = isa_dis_format(w, x, NULL, buf, sizeof(buf));
		assert_true(n > 0);
		assert_true((size_t)n < sizeof(buf));
		assert_true(buf[0] >= 'a' || buf[0] == '.');
	}
}

static void test_isa_dis_code_target(void **state)
{
	uint64_t t = 0;

	(void)state;
	assert_true(isa_dis_code_target(0xe4200003, 0x100, &t)); /* beq t0,.+16 */
	assert_int_equal(t, 0x110);
	assert_true(isa_dis_code_target(0x6b5b4000, 0x100, &t)); /* jsr: hint target pc+4 */
	assert_int_equal(t, 0x104);
	assert_false(isa_dis_code_target(0x6bfb0000, 0x100, &t)); /* jmp (t12): no target */
	assert_false(isa_dis_code_target(0x6bfa8001, 0x100, &t)); /* ret */
	assert_false(isa_dis_code_target(0x47ff041f, 0x100, &t)); /* nop */
	assert_false(isa_dis_code_target(0x04000000, 0x100, &t)); /* .long */
}

static void test_isa_dis_register_names(void **state)
{
	(void)state;
	assert_string_equal(isa_dis_ireg_name(0), "v0");
	assert_string_equal(isa_dis_ireg_name(15), "fp");
	assert_string_equal(isa_dis_ireg_name(25), "t11");
	assert_string_equal(isa_dis_ireg_name(27), "t12");
	assert_string_equal(isa_dis_ireg_name(28), "at");
	assert_string_equal(isa_dis_ireg_name(31), "zero");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_isa_dis_objdump_vectors),
		cmocka_unit_test(test_isa_dis_vectors_cover_every_op),
		cmocka_unit_test(test_isa_dis_vectors_are_consecutive),
		cmocka_unit_test(test_isa_dis_is_insn_matches_text),
		cmocka_unit_test(test_isa_dis_addr_printer_gets_branch_target),
		cmocka_unit_test(test_isa_dis_branch_target_wraps_like_objdump),
		cmocka_unit_test(test_isa_dis_small_buffer_is_enospc),
		cmocka_unit_test(test_isa_dis_every_word_class_fits),
		cmocka_unit_test(test_isa_dis_code_target),
		cmocka_unit_test(test_isa_dis_register_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
