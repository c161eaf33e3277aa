// The problem-independent part of the C++ function-mode driver (drivers_cpp.py appends
// it to the answer). Protocol: execution/compiled_judge.py, docs/sandbox.md.
#include <fcntl.h>
#include <unistd.h>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace bp_drv {

struct Missing {};

template <class Z, class T>
struct Id {
    using type = T;
};

// ---- what the answer's function may return ----------------------------------------
template <class R, class = void>
struct IsRange : std::false_type {};
template <class R>
struct IsRange<R, std::void_t<decltype(std::begin(std::declval<const R&>())),
                              decltype(std::end(std::declval<const R&>()))>> : std::true_type {};
template <class R, class = void>
struct RangeOf {
    using type = Missing;
};
template <class R>
struct RangeOf<R, std::enable_if_t<IsRange<R>::value>> {
    using type = std::decay_t<decltype(*std::begin(std::declval<const R&>()))>;
};
template <class R, class = void>
struct TupleSize : std::integral_constant<std::size_t, 0> {};
template <class R>
struct TupleSize<R, std::void_t<decltype(std::tuple_size<R>::value)>>
    : std::integral_constant<std::size_t, std::tuple_size<R>::value> {};
template <class R, std::size_t N>
struct TupleOf : std::bool_constant<TupleSize<R>::value == N> {};
template <std::size_t I, class R, class = void>
struct ElemS {
    using type = Missing;
};
template <std::size_t I, class R>
struct ElemS<I, R, std::enable_if_t<(TupleSize<R>::value > I)>> {
    using type = std::decay_t<std::tuple_element_t<I, R>>;
};
template <std::size_t I, class R>
using Elem = typename ElemS<I, R>::type;

template <class R>
struct fits_int : std::bool_constant<std::is_arithmetic_v<R> && !std::is_same_v<R, Missing>> {};
template <class R>
struct fits_double : std::bool_constant<std::is_arithmetic_v<R>> {};
template <class R>
struct fits_bool : std::bool_constant<std::is_convertible_v<R, bool> && !std::is_same_v<R, Missing>> {};
template <class R>
struct fits_str : std::is_convertible<R, std::string> {};
template <class R>
struct fits_vec_int
    : std::bool_constant<IsRange<R>::value && std::is_arithmetic_v<typename RangeOf<R>::type>> {};
template <class R>
struct fits_vec_double : fits_vec_int<R> {};

// ---- reading a case (textio.py's format) ------------------------------------------
inline const std::string& line(const std::vector<std::string>& lines, std::size_t i) {
    static const std::string empty;
    return i < lines.size() ? lines[i] : empty;
}
inline int parse_int(const std::vector<std::string>& lines, std::size_t i) {
    return static_cast<int>(std::strtoll(line(lines, i).c_str(), nullptr, 10));
}
inline double parse_double(const std::vector<std::string>& lines, std::size_t i) {
    return std::strtod(line(lines, i).c_str(), nullptr);
}
inline std::string parse_str(const std::vector<std::string>& lines, std::size_t i) {
    return line(lines, i);
}
inline bool parse_bool(const std::vector<std::string>& lines, std::size_t i) {
    return line(lines, i) == "true";
}
template <class T>
std::vector<T> parse_vec(const std::string& text) {
    std::vector<T> out;
    const char* p = text.c_str();
    while (true) {
        while (*p == ' ') ++p;
        if (!*p) break;
        char* end = nullptr;
        if constexpr (std::is_integral_v<T>) {
            out.push_back(static_cast<T>(std::strtoll(p, &end, 10)));
        } else {
            out.push_back(static_cast<T>(std::strtod(p, &end)));
        }
        if (end == p) break;
        p = end;
    }
    return out;
}
inline std::vector<int> parse_vec_int(const std::vector<std::string>& lines, std::size_t i) {
    return parse_vec<int>(line(lines, i));
}
inline std::vector<double> parse_vec_double(const std::vector<std::string>& lines, std::size_t i) {
    return parse_vec<double>(line(lines, i));
}

// ---- writing the results (textio.py's format: floats as Python's repr) ------------
inline void append_double(std::string& out, double v) {
    if (std::isnan(v)) {
        out += "nan";
        return;
    }
    if (std::isinf(v)) {
        out += v < 0 ? "-inf" : "inf";
        return;
    }
    char buf[64];
    auto res = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
    std::string s(buf, res.ptr);  // shortest round trip: [-]d[.ddd]e(+|-)XX
    if (s[0] == '-') {
        out += '-';
        s.erase(0, 1);
    }
    std::size_t e = s.find('e');
    int exp10 = std::atoi(s.c_str() + e + 1);
    std::string digits;
    for (std::size_t k = 0; k < e; ++k) {
        if (s[k] != '.') digits += s[k];
    }
    int n = static_cast<int>(digits.size());
    int decpt = exp10 + 1;  // the decimal point comes after `decpt` digits
    if (decpt <= -4 || decpt > 16) {  // Python's repr switches to an exponent here
        out += digits[0];
        if (n > 1) out += "." + digits.substr(1);
        char tail[16];
        std::snprintf(tail, sizeof tail, "e%c%02d", exp10 < 0 ? '-' : '+', std::abs(exp10));
        out += tail;
    } else if (decpt <= 0) {
        out += "0." + std::string(-decpt, '0') + digits;
    } else if (decpt >= n) {
        out += digits + std::string(decpt - n, '0') + ".0";
    } else {
        out += digits.substr(0, decpt) + "." + digits.substr(decpt);
    }
}
template <class T>
void put_int(std::string& out, const T& v) {
    out += std::to_string(static_cast<long long>(v));
    out += '\n';
}
template <class T>
void put_double(std::string& out, const T& v) {
    append_double(out, static_cast<double>(v));
    out += '\n';
}
template <class T>
void put_bool(std::string& out, const T& v) {
    out += static_cast<bool>(v) ? "true\n" : "false\n";
}
template <class T>
void put_str(std::string& out, const T& v) {
    out += std::string(v);
    out += '\n';
}
// a vector as its elements separated by single spaces, each printed as a long long or
// (E = double) as Python's repr of a double
template <class E, class T>
void put_vec(std::string& out, const T& v) {
    bool first = true;
    for (const auto& x : v) {
        if (!first) out += ' ';
        first = false;
        if constexpr (std::is_same_v<E, double>) {
            append_double(out, static_cast<double>(x));
        } else {
            out += std::to_string(static_cast<long long>(x));
        }
    }
    out += '\n';
}
template <class T>
void put_vec_int(std::string& out, const T& v) {
    put_vec<long long>(out, v);
}
template <class T>
void put_vec_double(std::string& out, const T& v) {
    put_vec<double>(out, v);
}

// ---- the batch loop ---------------------------------------------------------------
inline bool read_all(int fd, char* buf, std::size_t n) {
    while (n > 0) {
        ssize_t got = ::read(fd, buf, n);
        if (got <= 0) return false;
        buf += got;
        n -= static_cast<std::size_t>(got);
    }
    return true;
}
inline void write_all(int fd, const std::string& data) {
    const char* p = data.data();
    std::size_t n = data.size();
    while (n > 0) {
        ssize_t put = ::write(fd, p, n);
        if (put <= 0) ::_exit(0);  // the judge is gone
        p += put;
        n -= static_cast<std::size_t>(put);
    }
}
inline bool read_int(int fd, std::int32_t& v) {
    unsigned char b[4];
    if (!read_all(fd, reinterpret_cast<char*>(b), 4)) return false;
    v = static_cast<std::int32_t>((std::uint32_t(b[0]) << 24) | (std::uint32_t(b[1]) << 16) |
                                  (std::uint32_t(b[2]) << 8) | std::uint32_t(b[3]));
    return true;
}
inline void put_be(std::string& s, std::int32_t v) {
    std::uint32_t u = static_cast<std::uint32_t>(v);
    s += static_cast<char>(u >> 24);
    s += static_cast<char>(u >> 16);
    s += static_cast<char>(u >> 8);
    s += static_cast<char>(u);
}
using CaseFn = int (*)(const std::vector<std::string>&, std::string&, std::string&);

struct Loop {
    explicit Loop(CaseFn fn) {
        // the channel moves off stdin/stdout: what the answer prints goes to /dev/null
        int in = ::dup(0), chan = ::dup(1);
        int null = ::open("/dev/null", O_RDWR);
        if (in < 0 || chan < 0 || null < 0) ::_exit(125);
        ::dup2(null, 0);
        ::dup2(null, 1);
        ::close(null);
        ::fcntl(in, F_SETFD, FD_CLOEXEC);
        ::fcntl(chan, F_SETFD, FD_CLOEXEC);
        write_all(chan, "H");
        std::int32_t cap = 0, size = 0;
        if (!read_int(in, cap) || cap < 0) ::_exit(0);
        std::vector<std::string> lines;
        std::string input, out, err, frame;
        while (read_int(in, size) && size >= 0) {
            input.assign(static_cast<std::size_t>(size), '\0');
            if (!read_all(in, input.data(), input.size())) break;
            lines.clear();
            std::size_t start = 0;
            while (start < input.size()) {
                std::size_t end = input.find('\n', start);
                if (end == std::string::npos) end = input.size();
                lines.emplace_back(input, start, end - start);
                start = end + 1;
            }
            out.clear();
            err.clear();
            // an exception the answer lets escape ends the process as it would end a program
            // of its own (terminate: SIGABRT); the judge charges that case and starts anew
            int status = fn(lines, out, err);
            bool full = out.size() > static_cast<std::size_t>(cap);
            if (full) out.resize(static_cast<std::size_t>(cap) + 1);
            if (err.size() > 4000) err.erase(0, err.size() - 4000);
            frame.assign("C");
            put_be(frame, status & 0xFF);
            frame += static_cast<char>(1 | (full ? 2 : 0));
            put_be(frame, static_cast<std::int32_t>(out.size()));
            frame += out;
            put_be(frame, static_cast<std::int32_t>(err.size()));
            frame += err;
            write_all(chan, frame);
        }
        ::_exit(0);  // the answer's own main, if any, never runs
    }
};

// One case per process (the comparison point of the batch loop): stdin in, stdout out.
struct Once {
    explicit Once(CaseFn fn) {
        std::string input, out, err;
        char buf[1 << 16];
        ssize_t got;
        while ((got = ::read(0, buf, sizeof buf)) > 0) input.append(buf, static_cast<std::size_t>(got));
        std::vector<std::string> lines;
        std::size_t start = 0;
        while (start < input.size()) {
            std::size_t end = input.find('\n', start);
            if (end == std::string::npos) end = input.size();
            lines.emplace_back(input, start, end - start);
            start = end + 1;
        }
        int status = fn(lines, out, err);
        write_all(2, err);
        write_all(1, out);
        ::_exit(status);
    }
};

}  // namespace bp_drv
