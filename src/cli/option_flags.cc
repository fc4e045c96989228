#include "cli/option_flags.h"

#include "model/options/model_options.h"

namespace graphcost::cli {

std::map<std::string, CLI::Option*> add_data_options(
    CLI::App* command, data::DataOptions& options, const std::vector<std::string>& keys,
    const std::map<std::string, std::string>& help) {
  std::map<std::string, CLI::Option*> added;
  for (const std::string& key : keys) {
    const OptionField<data::DataOptions>* field = data::data_option_fields().find(key);
    if (field == nullptr) throw std::logic_error("add_data_options: no data option " + key);
    const auto own_help = help.find(key);
    const std::string text = own_help == help.end() ? field->help : own_help->second;
    std::visit(
        [&](const auto& member) {
          using Member = std::decay_t<decltype(member)>;
          if constexpr (!std::is_same_v<Member, OptionAccessor<data::DataOptions>>) {
            added[key] = add_table_option(command, *field, options.*member, text);
          }
        },
        field->member);
  }
  return added;
}

void add_train_option_flags(OptionFlags<train::TrainOptions>& flags) {
  const train::TrainOptions defaults;
  flags.add<data::DataOptions>(
      data::data_option_fields(), [](train::TrainOptions& o) -> data::DataOptions& { return o; },
      defaults);
  flags.add<train::TrainOptions>(
      train::train_option_fields(),
      [](train::TrainOptions& o) -> train::TrainOptions& { return o; }, defaults);
  flags.add<model::ModelOptions>(
      model::model_option_fields(),
      [](train::TrainOptions& o) -> model::ModelOptions& { return o.model; }, defaults.model);
}

namespace {

std::string field_tag(const void* field) {
  return "option-field:" + std::to_string(reinterpret_cast<uintptr_t>(field));
}

}  // namespace

void tag_option_field(CLI::Option* option, const void* field) {
  option->check(CLI::Validator([](std::string&) { return std::string(); }, "", field_tag(field)));
}

bool option_has_field(CLI::Option* option, const void* field) {
  try {
    option->get_validator(field_tag(field));
    return true;
  } catch (const CLI::OptionNotFound&) {
    return false;
  }
}

CLI::Option* add_threads_option(CLI::App* command, int& threads, const std::string& what) {
  return command->add_option("--threads", threads, what + " (<= 0: all cores)")
      ->capture_default_str();
}

CLI::Option* add_precision_option(CLI::App* command, std::string& precision) {
  return command
      ->add_option("--precision", precision,
                   "The model's products: fp32, or bf16 (bf16 inputs, fp32 accumulation; needs "
                   "a CPU with AVX512-BF16 or AMX-BF16)")
      ->check(CLI::IsMember(option_choices(model::kPrecisionChoices)))
      ->capture_default_str();
}

}  // namespace graphcost::cli
