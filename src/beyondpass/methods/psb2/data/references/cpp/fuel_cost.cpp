#include <vector>

int fuel_cost(const std::vector<int>& vector) {
    int total = 0;
    for (int v : vector) total += v / 3 - 2;
    return total;
}
