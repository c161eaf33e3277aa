#include <string>

std::string square_digits(int n) {
    std::string out;
    for (char c : std::to_string(n)) out += std::to_string((c - '0') * (c - '0'));
    return out;
}
