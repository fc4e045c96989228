// Flags derived from the option field tables (cli/option_flags.h): the JSON key as the flag, the
// older spellings as aliases, a flag writing its field only when given.
#include "cli/option_flags.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "train/options.h"

namespace graphcost::cli {
namespace {

// `graphcost train`'s binding of the three groups, parsed from args (argv without the program).
train::TrainOptions parse_train(std::vector<std::string> args,
                                const train::TrainOptions& before = {}) {
  CLI::App app;
  OptionFlags<train::TrainOptions> flags(&app);
  add_train_option_flags(flags);
  std::reverse(args.begin(), args.end());  // CLI11 takes them last first
  app.parse(args);
  train::TrainOptions options = before;
  flags.apply(options);
  return options;
}

TEST(OptionFlags, OldSpellingsAreAliasesOfTheJsonKeys) {
  const train::TrainOptions by_key = parse_train(
      {"--prune-hops", "2", "--random-walk-steps", "3", "--architecture", "mlp", "--hidden", "8",
       "4", "--skip-invalid", "--share-rows", "false", "--seed", "18446744073709551615"});
  const train::TrainOptions by_alias = parse_train(
      {"--prune", "2", "--rw-steps", "3", "--arch", "mlp", "--hidden", "8", "4",
       "--skip-invalid", "--share-rows", "false", "--seed", "18446744073709551615"});
  EXPECT_EQ(nlohmann::json(by_key), nlohmann::json(by_alias));
  EXPECT_EQ(by_key.prune_hops, 2);
  EXPECT_EQ(by_key.model.random_walk_steps, 3);
  EXPECT_EQ(by_key.model.architecture, "mlp");
  EXPECT_EQ(by_key.model.hidden, (std::vector<int64_t>{8, 4}));
  EXPECT_TRUE(by_key.skip_invalid);
  EXPECT_FALSE(by_key.share_rows);
  EXPECT_EQ(by_key.seed, 18446744073709551615ULL);
}

// A flag not given leaves the value read from elsewhere (a --config file, a resumed run).
TEST(OptionFlags, OnlyGivenFlagsOverride) {
  train::TrainOptions from_config;
  from_config.lr = 0.5;
  from_config.model.dropout = 0.25;
  from_config.prune_hops = 1;
  const train::TrainOptions options = parse_train({"--dropout", "0.125"}, from_config);
  EXPECT_EQ(options.lr, 0.5);
  EXPECT_EQ(options.prune_hops, 1);
  EXPECT_EQ(options.model.dropout, 0.125);
}

TEST(OptionFlags, IntegersOutOfRangeAndUnknownFlagsAreRefused) {
  EXPECT_THROW(parse_train({"--seed", "-1"}), CLI::ValidationError);
  EXPECT_THROW(parse_train({"--iterations", "99999999999999999999"}), CLI::ValidationError);
  EXPECT_THROW(parse_train({"--prune_hops", "1"}), CLI::ExtrasError);
  // Fields set from the data have no flag.
  EXPECT_THROW(parse_train({"--kind", "tile"}), CLI::ExtrasError);
  EXPECT_THROW(parse_train({"--segment-nodes", "4"}), CLI::ExtrasError);
}

// The shared data group binds straight into a command's DataOptions, with its own defaults.
TEST(OptionFlags, DataOptionsOfACommand) {
  CLI::App app;
  data::DataOptions source = data::command_data_options("valid");
  source.prune_hops = -2;
  const auto added = add_data_options(&app, source, {"data", "split", "prune_hops"},
                                      {{"split", "split to evaluate"}});
  ASSERT_EQ(added.size(), 3u);
  EXPECT_EQ(added.at("prune_hops")->get_name(), "--prune-hops");
  EXPECT_EQ(added.at("split")->get_description(), "split to evaluate");
  std::vector<std::string> args = {"--prune", "-1", "--data", "d"};
  std::reverse(args.begin(), args.end());
  app.parse(args);
  EXPECT_EQ(source.data, "d");
  EXPECT_EQ(source.split, "valid");
  EXPECT_EQ(source.prune_hops, -1);
}

}  // namespace
}  // namespace graphcost::cli
