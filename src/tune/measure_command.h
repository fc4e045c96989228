// Measuring for real: a user's shell command per configuration, its time read from stdout.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "tune/campaign.h"

namespace graphcost::tune {

// Fills a command template: "{params}" becomes "name=value name=value ..." and "{name}" the
// value of that parameter. A placeholder naming no parameter, or an unclosed "{", is an Error
// listing the parameter names.
std::string substitute_command(const std::string& command_template,
                               const std::vector<std::string>& names,
                               const std::vector<std::string>& values);

// The last number in text (e.g. "time: 1.5 ms" -> 1.5), or nothing when there is none.
std::optional<double> last_number(const std::string& text);

// Runs the filled template through the shell (/bin/sh -c) for each configuration; a non-zero
// exit status, or stdout without a positive finite last number, is a failed measurement.
class CommandMeasurer : public Measurer {
 public:
  // Checks the template against the space's parameters (an Error for a bad placeholder).
  CommandMeasurer(const SearchSpace& space, std::string command_template);
  Measurement measure(int64_t config) override;
  std::string command_for(int64_t config) const;

 private:
  const SearchSpace& space_;
  std::string template_;
  std::vector<std::string> names_;
};

}  // namespace graphcost::tune
