#include <cmath>
#include <vector>

double vector_distance(const std::vector<double>& a, const std::vector<double>& b) {
    // pow(d, 2) as the Python reference's d ** 2 computes it: libm's pow, which differs
    // from d * d in the last bit on some inputs; a run-time exponent keeps the compiler
    // from turning it into d * d
    volatile double two = 2.0;
    double total = 0.0;
    for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) total += std::pow(a[i] - b[i], two);
    return std::sqrt(total);
}
