#include <cstdlib>
#include <utility>
#include <vector>

std::pair<std::vector<int>, std::vector<int>> cut_vector(const std::vector<int>& vector) {
    long long total = 0, left = 0, best = -1;
    for (int v : vector) total += v;
    std::size_t best_cut = 0;
    for (std::size_t cut = 0; cut < vector.size(); ++cut) {
        left += vector[cut];
        long long diff = std::llabs(total - 2 * left);
        if (best < 0 || diff < best) {
            best = diff;
            best_cut = cut + 1;
        }
    }
    return {std::vector<int>(vector.begin(), vector.begin() + best_cut),
            std::vector<int>(vector.begin() + best_cut, vector.end())};
}
