#include "tune/measure_command.h"

#include <sys/wait.h>

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "core/error.h"

namespace graphcost::tune {

std::string substitute_command(const std::string& command_template,
                               const std::vector<std::string>& names,
                               const std::vector<std::string>& values) {
  auto known = [&names] {
    std::string list = "params";
    for (const std::string& n : names) list += ", " + n;
    return list;
  };
  std::string out;
  for (size_t i = 0; i < command_template.size(); ++i) {
    const char c = command_template[i];
    if (c != '{') {
      out += c;
      continue;
    }
    const size_t close = command_template.find('}', i);
    check_data(close != std::string::npos, "tune", "--measure",
               "unclosed '{' at position " + std::to_string(i));
    const std::string key = command_template.substr(i + 1, close - i - 1);
    if (key == "params") {
      for (size_t p = 0; p < names.size(); ++p) out += (p ? " " : "") + names[p] + "=" + values[p];
    } else {
      size_t p = 0;
      while (p < names.size() && names[p] != key) ++p;
      check_data(p < names.size(), "tune", "--measure",
                 "unknown placeholder {" + key + "} (known: " + known() + ")");
      out += values[p];
    }
    i = close;
  }
  return out;
}

std::optional<double> last_number(const std::string& text) {
  std::optional<double> last;
  const char* s = text.c_str();
  size_t i = 0;
  auto digit = [s](size_t k) { return std::isdigit(static_cast<unsigned char>(s[k])) != 0; };
  while (i < text.size()) {
    // A word with digits in it ("x2", "sm_80") holds no number of its own.
    if (std::isalpha(static_cast<unsigned char>(s[i])) || s[i] == '_') {
      while (i < text.size() && (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '_')) ++i;
      continue;
    }
    const bool sign = s[i] == '-' || s[i] == '+';
    const size_t body = sign ? i + 1 : i;
    const bool starts = body < text.size() &&
                        (digit(body) || (s[body] == '.' && body + 1 < text.size() && digit(body + 1)));
    if (starts) {
      char* end = nullptr;
      const double v = std::strtod(s + i, &end);
      if (end > s + i) {
        last = v;
        i = static_cast<size_t>(end - s);
        continue;
      }
    }
    ++i;
  }
  return last;
}

CommandMeasurer::CommandMeasurer(const SearchSpace& space, std::string command_template)
    : space_(space), template_(std::move(command_template)) {
  check_data(!template_.empty(), "tune", "--measure", "empty command");
  for (const TuneParameter& p : space.parameters) names_.push_back(p.name);
  substitute_command(template_, names_, space.values(0));
}

std::string CommandMeasurer::command_for(int64_t config) const {
  return substitute_command(template_, names_, space_.values(config));
}

Measurement CommandMeasurer::measure(int64_t config) {
  Measurement m;
  m.config = config;
  m.failed = true;
  const std::string command = command_for(config);
  std::fflush(nullptr);  // so the child does not repeat our buffered output
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return m;
  std::string output;
  char buffer[4096];
  size_t n = 0;
  while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) output.append(buffer, n);
  const int status = pclose(pipe);
  if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) return m;
  const std::optional<double> time = last_number(output);
  if (time && std::isfinite(*time) && *time > 0) {
    m.failed = false;
    m.time = *time;
  }
  return m;
}

}  // namespace graphcost::tune
