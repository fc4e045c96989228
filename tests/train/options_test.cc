// The option field tables (core/option_table.h) of training, data and model options: exact JSON
// round trips, the config.json keys, one-line errors, checks and the resume rule.
#include "train/options.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "core/error.h"

namespace graphcost::train {
namespace {

using nlohmann::json;

// Every option set away from its default.
TrainOptions changed_options() {
  TrainOptions o;
  o.data = "/data/root";
  o.collection = "tile:xla";
  o.split = "valid";
  o.exclude = {"a", "b"};
  o.skip_invalid = true;
  o.prune_hops = 2;
  o.prune_seeds = "conv-dot-reshape";
  o.devices = "gpus.json";
  o.device_name = "NVIDIA RTX A6000";
  o.valid_data = "/data/valid.pack";
  o.valid_split = "test";
  o.iterations = 7;
  o.graphs_per_batch = 3;
  o.slate_size = 5;
  o.loss = "diffmat:1,mape:0.1";
  o.optimizer = "adamw";
  o.lr = 0.25;
  o.weight_decay = 0.5;
  o.decay_at = {3, 6};
  o.lr_schedule = "cosine";  // refused beside decay_at by the check, which this reading skips
  o.warmup = 2;
  o.grad_clip = -1;
  o.log_every = 2;
  o.validate_every = 4;
  o.valid_configs_per_graph = 11;
  o.valid_batch = 12;
  o.valid_predictions_graphs = 13;
  o.validate_train_graphs = -1;
  o.checkpoint_every = 14;
  o.checkpoint_seconds = 2.5;
  o.seed = 18446744073709551615ULL;
  o.threads = 3;
  o.precision = "bf16";
  o.share_rows = false;
  o.gst_segment_nodes = 64;
  o.gst_segments_per_step = 2;
  o.gst_stale_dropout = 0.125;
  o.gst_partition = "metis";
  o.swa_start = 5;
  o.swa_every = 6;
  model::ModelOptions& m = o.model;
  m.kind = data::ConfigKind::Tile;
  m.node_feature_width = 141;
  m.config_width = 24;
  m.num_opcodes = 300;
  m.opcode_embedding = 8;
  m.node_feature_dim = 9;
  m.config_embedding = 10;
  m.config_one_hot = 5;
  m.config_values.assign(24, {});  // one list per configuration column
  m.config_values[0] = {1.0, 2.5};
  m.hidden = {16, 8};
  m.dropout = 0.375;
  m.activation = "gelu";
  m.segment_nodes = 64;
  m.segment_partition = "metis";
  m.minus_one_padding = true;
  m.shape_mod128 = true;
  m.layout_shapes = "on";  // refused with tile by the check, which this reading skips
  m.random_walk_steps = 3;
  m.virtual_node = true;
  m.architecture = "mlp";
  m.head = "pairwise";
  m.pairwise_references = 32;
  m.attention = true;
  m.attention_temperature = 0.75;
  m.graph_norm = false;
  return o;
}

std::set<std::string> keys_of(const json& j) {
  std::set<std::string> keys;
  for (const auto& [key, _] : j.items()) keys.insert(key);
  return keys;
}

// config.json's keys are those of runs written before the tables (format 1 must keep loading).
TEST(TrainOptionsTable, WritesTheConfigJsonKeys) {
  const json j = TrainOptions{};
  EXPECT_EQ(keys_of(j), (std::set<std::string>{"data",
                                               "valid_data",
                                               "collection",
                                               "split",
                                               "valid_split",
                                               "exclude",
                                               "skip_invalid",
                                               "iterations",
                                               "graphs_per_batch",
                                               "slate_size",
                                               "loss",
                                               "optimizer",
                                               "lr",
                                               "weight_decay",
                                               "decay_at",
                                               "lr_schedule",
                                               "warmup",
                                               "grad_clip",
                                               "log_every",
                                               "validate_every",
                                               "valid_configs_per_graph",
                                               "valid_batch",
                                               "valid_predictions_graphs",
                                               "validate_train_graphs",
                                               "checkpoint_every",
                                               "checkpoint_seconds",
                                               "seed",
                                               "threads",
                                               "precision",
                                               "share_rows",
                                               "prune_hops",
                                               "prune_seeds",
                                               "devices",
                                               "device_name",
                                               "swa_start",
                                               "swa_every",
                                               "gst_segment_nodes",
                                               "gst_segments_per_step",
                                               "gst_stale_dropout",
                                               "gst_partition",
                                               "model"}));
  EXPECT_EQ(keys_of(j["model"]), (std::set<std::string>{"kind",
                                                        "node_feature_width",
                                                        "config_width",
                                                        "num_opcodes",
                                                        "opcode_embedding",
                                                        "node_feature_dim",
                                                        "config_embedding",
                                                        "config_one_hot",
                                                        "config_values",
                                                        "hidden",
                                                        "dropout",
                                                        "activation",
                                                        "minus_one_padding",
                                                        "shape_mod128",
                                                        "layout_shapes",
                                                        "random_walk_steps",
                                                        "virtual_node",
                                                        "architecture",
                                                        "head",
                                                        "pairwise_references",
                                                        "attention",
                                                        "attention_temperature",
                                                        "graph_norm",
                                                        "segment_nodes",
                                                        "segment_partition"}));
  EXPECT_EQ(j["prune_hops"], -1);
  EXPECT_EQ(j["collection"], "layout:xla:random");
  EXPECT_EQ(j["model"]["kind"], "layout");
  EXPECT_EQ(j["model"]["hidden"], json({146, 146, 146, 146}));
}

TEST(TrainOptionsTable, RoundTripsEveryFieldExactly) {
  const TrainOptions o = changed_options();
  const json j = o;
  EXPECT_EQ(j["seed"], 18446744073709551615ULL);
  EXPECT_EQ(j["lr"], 0.25);
  EXPECT_EQ(j["model"]["kind"], "tile");
  TrainOptions back;
  from_json(j, back);
  EXPECT_EQ(json(back), j);
  // Read over defaults, every value differs from its default: a field the table missed would
  // keep its default and fail here.
  const json defaults = TrainOptions{};
  for (const auto& [key, value] : j.items()) {
    if (key == "model") {
      for (const auto& [model_key, model_value] : value.items())
        if (model_key != "graph_norm") {
          EXPECT_NE(model_value, defaults["model"][model_key]) << model_key;
        }
    } else {
      EXPECT_NE(value, defaults[key]) << key;
    }
  }
  EXPECT_EQ(back.exclude, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(back.seed, 18446744073709551615ULL);
  EXPECT_EQ(back.model.hidden, (std::vector<int64_t>{16, 8}));
  EXPECT_EQ(back.model.kind, data::ConfigKind::Tile);
}

// A key read alone changes only its field.
TEST(TrainOptionsTable, ReadsOnlyTheKeysPresent) {
  TrainOptions o;
  from_json(json{{"prune_hops", 3}, {"model", {{"dropout", 0.5}}}}, o);
  TrainOptions expected;
  expected.prune_hops = 3;
  expected.model.dropout = 0.5;
  EXPECT_EQ(json(o), json(expected));
}

std::string read_error(const json& j) {
  try {
    TrainOptions o;
    from_json(j, o);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(TrainOptionsTable, UnknownKeysAndWrongTypesNameTheKey) {
  EXPECT_EQ(read_error({{"learning_rate", 0.1}}), "train options: learning_rate: unknown key");
  EXPECT_EQ(read_error({{"model", {{"hiden", {1}}}}}), "model options: hiden: unknown key");
  EXPECT_EQ(read_error({{"lr", "fast"}}),
            "train options: lr: wrong type: expected a number, got a string \"fast\"");
  EXPECT_EQ(read_error({{"skip_invalid", 1}}),
            "train options: skip_invalid: wrong type: expected true or false, got a number 1");
  EXPECT_EQ(read_error({{"exclude", {"a", 2}}}),
            "train options: exclude: wrong type: expected an array of strings, got an array "
            "[\"a\",2]");
  EXPECT_EQ(read_error({{"model", {{"hidden", "wide"}}}}),
            "model options: hidden: wrong type: expected an array of integers, got a string "
            "\"wide\"");
  EXPECT_EQ(read_error({{"model", {{"kind", "graph"}}}}),
            "model options: kind: expected \"tile\" or \"layout\", got \"graph\"");
  EXPECT_EQ(read_error({{"model", 3}}), "model options: expected a JSON object");
  EXPECT_EQ(read_error({{"threads", 1.5}}),
            "train options: threads: expected an integer in [-2147483648, 2147483647], got 1.5");
  EXPECT_EQ(read_error({{"seed", -1}}),
            "train options: seed: expected an integer in [0, 18446744073709551615], got -1");
  EXPECT_EQ(read_error({{"model", {{"hidden", {16, 1e30}}}}}),
            "model options: hidden: expected an integer in [-9223372036854775808, "
            "9223372036854775807], got 1e+30");
  // An integer written as a float with no fraction reads exactly.
  TrainOptions o;
  from_json(json{{"iterations", 3e3}}, o);
  EXPECT_EQ(o.iterations, 3000);
  // config.json's own header and world_size are not options.
  from_json(json{{"format_version", 1}, {"model_type", "gnn"}, {"world_size", 2}}, o);
}

std::string check_error(const TrainOptions& o) {
  try {
    check_train_options(o);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(TrainOptionsTable, ChecksEveryGroup) {
  EXPECT_EQ(check_error(TrainOptions{}), "no error");
  TrainOptions o;
  o.prune_hops = -2;
  EXPECT_EQ(check_error(o), "train options: prune_hops: must be >= 0, or -1 for no pruning");
  o = TrainOptions{};
  o.gst_partition = "random";
  EXPECT_EQ(check_error(o),
            "train options: gst_partition: unknown partition \"random\" (valid: contiguous, metis)");
  o = TrainOptions{};
  o.model.dropout = 1;
  EXPECT_EQ(check_error(o), "model options: dropout: must be in [0, 1)");
  o = TrainOptions{};
  o.model.architecture = "mlp";
  EXPECT_EQ(check_error(o),
            "model options: architecture: mlp needs graph-level (tile) configurations");
  o.model.kind = data::ConfigKind::Tile;
  EXPECT_EQ(check_error(o), "no error");
  o.model.graph_norm = true;
  EXPECT_EQ(check_error(o),
            "model options: graph_norm: applies to the SAGE layers, not to architecture mlp");
  o = TrainOptions{};
  o.lr_schedule = "cosine";
  EXPECT_EQ(check_error(o), "no error");
  o.decay_at = {100};
  EXPECT_EQ(check_error(o),
            "train options: lr_schedule: cosine takes no --decay-at (it decays by itself)");
  o = TrainOptions{};
  o.lr_schedule = "linear";
  EXPECT_EQ(check_error(o),
            "train options: lr_schedule: unknown value \"linear\" (valid: step, cosine)");
  o = TrainOptions{};
  o.warmup = -1;
  EXPECT_EQ(check_error(o), "train options: warmup: must be >= 0 (0: none)");
  o = TrainOptions{};
  o.gst_segment_nodes = 64;
  o.model.layout_shapes = "on";
  EXPECT_EQ(check_error(o),
            "train options: gst_segment_nodes: segments cut configurable nodes from their "
            "operands, whose shapes layout_shapes reads; train without one of them");
  o = TrainOptions{};
  o.validate_train_graphs = -2;
  EXPECT_EQ(check_error(o),
            "train options: validate_train_graphs: must be >= -1 (-1: all, 0: off)");
}

TEST(TrainOptionsTable, ResumeRuleComesFromTheTables) {
  EXPECT_EQ(resume_free_flags(),
            (std::vector<std::string>{"--data", "--valid-data", "--iterations",
                                      "--validate-train-graphs", "--checkpoint-seconds",
                                      "--threads", "--precision", "--share-rows"}));
  const TrainOptions stored = changed_options();
  TrainOptions given = stored;
  given.data = "/moved";
  given.valid_data = "/moved/valid";
  given.iterations = 100;
  given.threads = 1;
  given.share_rows = true;
  given.checkpoint_seconds = 60;
  EXPECT_TRUE(options_fixed_on_resume_that_differ(stored, given).empty());
  given.lr = 0.5;
  given.model.hidden = {4};
  given.exclude = {};
  EXPECT_EQ(options_fixed_on_resume_that_differ(stored, given),
            (std::vector<std::string>{"exclude", "lr", "model.hidden"}));
  TrainOptions resumed = stored;
  apply_resume_changes(given, resumed);
  EXPECT_EQ(resumed.data, "/moved");
  EXPECT_EQ(resumed.valid_data, "/moved/valid");
  EXPECT_EQ(resumed.iterations, 100);
  EXPECT_EQ(resumed.threads, 1);
  EXPECT_TRUE(resumed.share_rows);
  EXPECT_EQ(resumed.lr, stored.lr);
  EXPECT_EQ(resumed.model.hidden, stored.model.hidden);
}

// Every flag is its JSON key with dashes, older spellings after it.
TEST(TrainOptionsTable, FlagsAreTheJsonKeys) {
  const auto first_flag = [](const char* flags) {
    const std::string all = flags;
    return all.substr(0, all.find(','));
  };
  for (const auto& field : data::data_option_fields())
    EXPECT_EQ(first_flag(field.flags), flag_of_key(field.key));
  for (const auto& field : train_option_fields())
    if (field.flags[0] != '\0') {
      EXPECT_EQ(first_flag(field.flags), flag_of_key(field.key));
    }
  int model_flags = 0;
  for (const auto& field : model::model_option_fields()) {
    if (field.flags[0] == '\0') continue;
    EXPECT_EQ(first_flag(field.flags), flag_of_key(field.key));
    ++model_flags;
  }
  // all but kind, the two widths and config_values (data) and the segment fields (gst_*)
  EXPECT_EQ(model_flags, 19);
}

}  // namespace
}  // namespace graphcost::train
