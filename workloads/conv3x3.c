/* workloads/conv3x3.c - 3x3 convolution over an 8-bit image, with short inner loops. */
/*
 * A 256 x 192 greyscale image (bytes) convolved with a 3x3 integer kernel. The two inner loops run
 * three times each; the kernel lives in memory and the loop bounds are variables, so the compiler
 * keeps them as loops (short trip counts, a branch taken twice then not). Byte loads (ldq_u/extbl:
 * Debian's compiler does not use BWX), integer multiplies (mull), a clamp to 0..255 and a byte store
 * (ldq_u/mskbl/insbl/stq_u). Each pass ping-pongs between two images and the kernel is cycled through
 * a small set (blur, sharpen, edge), so the result depends on every pass.
 *
 * Usage: conv3x3 [PASSES]   (default 3, one per kernel; a pass is 48,000 interior pixels at about
 *                            155 instructions each, byte loads being ldq_u/extbl without BWX:
 *                            about 7.6 M a pass, about 23 M in all)
 * Output: the image size, pass count and a checksum of the final image; exit status 0.
 */
#include <inttypes.h>

#include "wl.h"

#define CV_W 256
#define CV_H 192

static const int cv_kernels[3][3][3] = {
	{ { 1, 2, 1 }, { 2, 4, 2 }, { 1, 2, 1 } }, /* blur, sum 16 */
	{ { 0, -1, 0 }, { -1, 8, -1 }, { 0, -1, 0 } }, /* sharpen, sum 4 */
	{ { -1, -1, -1 }, { -1, 12, -1 }, { -1, -1, -1 } }, /* edge boost, sum 4 */
};
static const int cv_shift[3] = { 4, 2, 2 };

/*
 * cv_pass - @out = clamp((@in (*) @k) >> @shift) over the interior; the border is copied. @kn is the
 * kernel size (3), passed as a variable so the inner loops stay loops.
 */
static __attribute__((noipa)) void cv_pass(uint8_t *out, const uint8_t *in, const int *k, int kn,
					   int shift)
{
	int x, y, i, j;

	for (y = 0; y < CV_H; y++)
		for (x = 0; x < CV_W; x++) {
			int acc = 0;

			if (y == 0 || y == CV_H - 1 || x == 0 || x == CV_W - 1) {
				out[y * CV_W + x] = in[y * CV_W + x];
				continue;
			}
			for (i = 0; i < kn; i++)
				for (j = 0; j < kn; j++)
					acc += k[i * kn + j] * in[(y + i - 1) * CV_W + (x + j - 1)];
			acc >>= shift;
			if (acc < 0)
				acc = 0;
			if (acc > 255)
				acc = 255;
			out[y * CV_W + x] = (uint8_t)acc;
		}
}

int main(int argc, char **argv)
{
	long passes = wl_arg(argc, argv, 3);
	static uint8_t img[2][CV_H * CV_W];
	uint64_t seed = 7, sum = WL_SUM_INIT;
	long p, i;
	int cur = 0;

	for (i = 0; i < CV_H * CV_W; i++) {
		int x = (int)(i % CV_W), y = (int)(i / CV_W);

		/* Smooth gradients plus noise plus a bright square. */
		img[0][i] = (uint8_t)((x + 2 * y) / 3 + (int)(wl_rand(&seed) % 32) +
				      ((x > 96 && x < 160 && y > 64 && y < 128) ? 60 : 0));
	}
	for (p = 0; p < passes; p++) {
		int kk = (int)(p % 3);

		cv_pass(img[cur ^ 1], img[cur], &cv_kernels[kk][0][0], 3, cv_shift[kk]);
		cur ^= 1;
	}
	for (i = 0; i < CV_H * CV_W; i += 8) {
		uint64_t w = 0;
		int b;

		for (b = 0; b < 8; b++)
			w = (w << 8) | img[cur][i + b];
		sum = wl_mix(sum, w);
	}
	printf("conv3x3: width=%d height=%d passes=%ld checksum=%016" PRIx64 "\n", CV_W, CV_H,
	       passes, sum);
	return 0;
}
