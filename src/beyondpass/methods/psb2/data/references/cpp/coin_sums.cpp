#include <tuple>

std::tuple<int, int, int, int> coin_sums(int cents) {
    int quarters = cents / 25, rest = cents % 25;
    int dimes = rest / 10;
    rest %= 10;
    return {rest % 5, rest / 5, dimes, quarters};
}
