#include <algorithm>

double dice_game(int n, int m) {
    long long wins = 0;
    for (int face = 1; face <= n; ++face) wins += std::min(face - 1, m);
    return static_cast<double>(wins) / (static_cast<double>(n) * m);
}
