#include <algorithm>
#include <string>

std::string spin_words(const std::string& text) {
    std::string out, word;
    for (std::size_t i = 0; i <= text.size(); ++i) {
        if (i == text.size() || text[i] == ' ') {
            if (word.size() >= 5) std::reverse(word.begin(), word.end());
            out += word;
            if (i < text.size()) out += ' ';
            word.clear();
        } else {
            word += text[i];
        }
    }
    return out;
}
