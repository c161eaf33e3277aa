#include "util.h"

/* x limited to [lo, hi] */
int clamp(int x, int lo, int hi)
{
	if (x < lo)
		return lo;
	if (x > hi)
		return hi;
	return x;
}

/* the greatest common divisor of a and b (non-negative) */
int gcd(int a, int b)
{
	if (a < 0)
		a = -a;
	if (b < 0)
		b = -b;
	while (b != 0) {
		int t = a % b;
		a = b;
		b = t;
	}
	return a;
}

/* the sum of the squares of the n numbers at xs */
long sum_squares(const int *xs, size_t n)
{
	long total = 0;
	size_t i;
	for (i = 0; i < n; i++)
		total += (long)xs[i] * xs[i];
	return total;
}
