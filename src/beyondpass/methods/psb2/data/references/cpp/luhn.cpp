#include <vector>

// PSB2's data doubles the 1st, 3rd, ... digit (docs/psb2.md)
int luhn(const std::vector<int>& digits) {
    int total = 0;
    for (std::size_t i = 0; i < digits.size(); ++i) {
        int d = digits[i];
        if (i % 2 == 0) {
            d *= 2;
            if (d > 9) d -= 9;
        }
        total += d;
    }
    return total;
}
