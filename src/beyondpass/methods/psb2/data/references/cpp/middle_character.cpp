#include <string>

std::string middle_character(const std::string& text) {
    std::size_t mid = text.size() / 2;
    if (text.size() % 2 == 1) return text.substr(mid, 1);
    return text.substr(mid - 1, 2);
}
