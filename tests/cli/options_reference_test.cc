// docs/options.md's generator (cli/options_reference.h) on a small program: a row per table
// field, with the commands whose flags were bound from that row.
#include "cli/options_reference.h"

#include <gtest/gtest.h>

#include <string>

#include "cli/option_flags.h"
#include "data/data_options.h"

namespace graphcost::cli {
namespace {

// The line of text that starts with prefix ("" when none).
std::string line_starting(const std::string& text, const std::string& prefix) {
  const size_t at = text.find("\n" + prefix);
  if (at == std::string::npos) return "";
  return text.substr(at + 1, text.find('\n', at + 1) - at - 1);
}

TEST(OptionsReference, RowsNameTheCommandsThatTakeEachField) {
  CLI::App app;
  data::DataOptions alpha_source, gamma_source;
  add_data_options(app.add_subcommand("alpha"), alpha_source, {"data", "split"});
  CLI::App* beta = app.add_subcommand("beta");
  add_data_options(beta->add_subcommand("gamma"), gamma_source, {"split"},
                   {{"split", "own help, same field"}});
  // A flag of the same name that is not bound from the table is not the field's.
  std::string other;
  beta->add_option("--data", other, "something else");
  const std::string text = options_reference(app);
  EXPECT_EQ(
      line_starting(text, "| `split` |"),
      "| `split` | `--split` | string | `\"train\"` |  | alpha, beta gamma | fixed | Split to "
      "read (train, valid or test) |");
  EXPECT_EQ(line_starting(text, "| `data` |"),
            "| `data` | `--data` | string | `\"\"` |  | alpha | may change | Dataset root, "
            "collection folder, .npz file or pack |");
  EXPECT_EQ(
      line_starting(text, "| `prune_hops` |"),
      "| `prune_hops` | `--prune-hops` (also `--prune`) | integer | `-1` |  |  | fixed | Keep "
      "only nodes within K hops of a configurable node (layout; -1: no pruning) |");
  // Choices are listed; a table without a resume rule has no such column.
  EXPECT_EQ(
      line_starting(text, "| `ensemble` |")
          .rfind("| `ensemble` | `--ensemble` | string | `\"mean\"` | `mean`, `rank` |  | how", 0),
      0u);
  // A nested group's row points to its own table; a field without a flag has no flag.
  EXPECT_EQ(line_starting(text, "| `model` |"),
            "| `model` |  | object | (its table) |  |  | fixed | The model's options |");
  for (const char* title :
       {"## Data options", "## Training options", "## Model options", "## Scoring options",
        "## XGBoost options", "## XGBoost feature options"})
    EXPECT_NE(text.find(std::string("\n") + title + "\n"), std::string::npos) << title;
}

}  // namespace
}  // namespace graphcost::cli
