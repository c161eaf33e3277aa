#include <string>

int paired_digits(const std::string& digits) {
    int total = 0;
    for (std::size_t i = 1; i < digits.size(); ++i)
        if (digits[i] == digits[i - 1]) total += digits[i] - '0';
    return total;
}
