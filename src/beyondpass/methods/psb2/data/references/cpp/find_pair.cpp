#include <utility>
#include <vector>

std::pair<int, int> find_pair(const std::vector<int>& vector, int target) {
    for (std::size_t i = 0; i < vector.size(); ++i)
        for (std::size_t j = i + 1; j < vector.size(); ++j)
            if (vector[i] + vector[j] == target) return {vector[i], vector[j]};
    return {0, 0};
}
