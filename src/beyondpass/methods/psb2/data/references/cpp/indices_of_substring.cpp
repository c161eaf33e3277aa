#include <string>
#include <vector>

std::vector<int> indices_of_substring(const std::string& text, const std::string& target) {
    std::vector<int> out;
    if (target.size() > text.size()) return out;
    for (std::size_t i = 0; i + target.size() <= text.size(); ++i)
        if (text.compare(i, target.size(), target) == 0) out.push_back(static_cast<int>(i));
    return out;
}
