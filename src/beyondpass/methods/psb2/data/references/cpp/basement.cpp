#include <vector>

int basement(const std::vector<int>& vector) {
    long long total = 0;
    for (std::size_t i = 0; i < vector.size(); ++i) {
        total += vector[i];
        if (total < 0) return static_cast<int>(i);
    }
    return -1;
}
