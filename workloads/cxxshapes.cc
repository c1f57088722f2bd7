/* workloads/cxxshapes.cc - a C++ program: namespaced classes, virtual calls, a template, overloads. */
/*
 * For the C++ views (issue 16 item 7): its procedures have mangled names (_ZNK3geo6Square4areaEl
 * is geo::Square::area(long) const), and its virtual calls load pointers that fall in the image's
 * symbols: each object's vtable pointer (data: "vtable for geo::Square"+0x10) and the method's
 * address (text). Three of every four shapes are squares, so both loads are semi-invariant.
 * Built with -fno-exceptions -fno-rtti and no libstdc++ (nothing here needs it); the objects are
 * statically initialised (constexpr constructors), so no start-up code runs before main.
 *
 * Usage: cxxshapes [ITERS]   (default 20000 passes over 64 shapes)
 * Output: the pass count and a checksum of the areas; exit status 0.
 */
#include <inttypes.h>

#include "wl.h"

namespace geo
{
struct Shape {
	long side;
	constexpr Shape(long s) : side(s)
	{
	}
	virtual long area(long scale) const
	{
		return side * scale;
	}
};

struct Square : Shape {
	constexpr Square(long s) : Shape(s)
	{
	}
	long area(long scale) const override
	{
		return side * side * scale;
	}
};

struct Triangle : Shape {
	constexpr Triangle(long s) : Shape(s)
	{
	}
	long area(long scale) const override
	{
		return side * side * scale / 2;
	}
};

/* A running checksum: Mixer<uint64_t>::add(uint64_t) once per shape. */
template <typename T> struct Mixer {
	T sum;
	__attribute__((noinline)) void add(T v)
	{
		sum = (sum ^ v) * 1099511628211ULL;
	}
};
} // namespace geo

static geo::Square sq1(3), sq2(5), sq3(7);
static geo::Triangle tri(4);
static const geo::Shape *const kinds[4] = { &sq1, &sq2, &sq3, &tri };

/* Overloads: the same name, two mangled names (_Z5scalel and _Z5scaled). */
static __attribute__((noipa)) long scale(long v)
{
	return v * 3 + 1;
}

static __attribute__((noipa)) long scale(double v)
{
	return (long)(v * 0.5);
}

/* geo::total - one pass: every shape's area through its virtual method. */
namespace geo
{
__attribute__((noipa)) long total(const Shape *const *v, long n, long s)
{
	long t = 0;

	for (long i = 0; i < n; i++)
		t += v[i]->area(s);
	return t;
}
} // namespace geo

int main(int argc, char **argv)
{
	long iters = wl_arg(argc, argv, 20000);
	const geo::Shape *shapes[64];
	geo::Mixer<uint64_t> m = { WL_SUM_INIT };

	for (int i = 0; i < 64; i++) /* squares three times in four: kinds 0..2, a triangle at 3 */
		shapes[i] = kinds[(i & 3) == 3 ? 3 : i % 3];
	for (long k = 0; k < iters; k++) {
		long t = geo::total(shapes, 64, scale(k & 7));

		m.add((uint64_t)t);
		if ((k & 255) == 0)
			m.add((uint64_t)scale((double)k));
	}
	printf("cxxshapes: %ld passes, checksum %016" PRIx64 "\n", iters, m.sum);
	return 0;
}
