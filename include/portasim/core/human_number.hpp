#pragma once
// Numbers in the summaries are printed for people: three significant digits, the exponent
// form only for magnitudes from 1e5 up or below 1e-3, and no "+" or leading zeros in the
// exponent: 6.8e7 cells/s, 0.5 density, 123 s, 1.5e-4 s. A statistic that does not exist
// (NaN) reads "none", never "nan".

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace portasim {

inline std::string human_number(double value, int significant = 3) {
  if (std::isnan(value)) return "none";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  if (value == 0.0) return "0";
  char text[64];
  const double magnitude = std::fabs(value);
  if (magnitude >= 1e5 || magnitude < 1e-3) {
    std::snprintf(text, sizeof text, "%.*e", significant - 1, value);
    std::string s(text);
    const auto e = s.find('e');
    std::string mantissa = s.substr(0, e);
    if (mantissa.find('.') != std::string::npos) {
      mantissa.erase(mantissa.find_last_not_of('0') + 1);
      if (mantissa.back() == '.') mantissa.pop_back();
    }
    return mantissa + "e" + std::to_string(std::atoi(s.c_str() + e + 1));
  }
  const int decimals =
      std::max(0, significant - 1 - static_cast<int>(std::floor(std::log10(magnitude))));
  std::snprintf(text, sizeof text, "%.*f", decimals, value);
  std::string s(text);
  if (s.find('.') != std::string::npos) {
    s.erase(s.find_last_not_of('0') + 1);
    if (s.back() == '.') s.pop_back();
  }
  return s;
}

}  // namespace portasim
