#include <cmath>
#include <vector>

double vector_distance(const std::vector<double>& a, const std::vector<double>& b) {
    double total = 0.0;
    for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) total += (a[i] - b[i]) * (a[i] - b[i]);
    return std::sqrt(total);
}
