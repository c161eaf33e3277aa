#include <algorithm>
#include <vector>

std::vector<int> leaders(const std::vector<int>& vector) {
    std::vector<int> out;
    for (auto it = vector.rbegin(); it != vector.rend(); ++it)
        if (out.empty() || *it >= out.back()) out.push_back(*it);
    std::reverse(out.begin(), out.end());
    return out;
}
