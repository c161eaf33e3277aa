#include <cstdio>
#include <cstdlib>
#include <vector>

// Python's round(total, 2): the exact binary value of total rounded to two decimals
// (half to even on an exact tie), read back as the nearest double. glibc's printf rounds
// the exact value under the current rounding mode (to nearest, ties to even) and strtod
// reads back correctly rounded; round(total * 100) / 100 would differ where total * 100
// is itself rounded.
double shopping_list(const std::vector<double>& prices, const std::vector<double>& discounts) {
    double total = 0.0;
    for (std::size_t i = 0; i < prices.size() && i < discounts.size(); ++i) {
        total += prices[i] * (1 - discounts[i] / 100);
    }
    char text[512];
    std::snprintf(text, sizeof text, "%.2f", total);
    return std::strtod(text, nullptr);
}
