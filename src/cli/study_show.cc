// graphcost study show | export | report: a study database read for people and for other tools.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/commands.h"
#include "core/atomic_file.h"
#include "core/error.h"
#include "study/report.h"
#include "study/storage.h"

namespace graphcost::cli {

namespace {

struct ShowCommand {
  std::string storage = "sqlite:///study.db", study, format = "json", out;
};

// The study's summary (name, objective, direction, space) and trials; an Error when the
// database has no such study, listing those it has.
std::pair<study::StudySummary, std::vector<study::TrialRecord>> read_study(const ShowCommand& c) {
  std::unique_ptr<study::Storage> storage = study::open_storage(c.storage);
  const std::optional<study::StudyInfo> info = storage->find_study(c.study);
  if (!info) {
    std::string names;
    for (const std::string& name : storage->study_names()) names += (names.empty() ? "" : ", ") + name;
    throw Error(c.storage, "--study",
                "no study named '" + c.study + "' (" + (names.empty() ? "none yet" : names) + ")");
  }
  study::StudySummary summary;
  summary.name = c.study;
  summary.maximize = info->maximize;
  summary.objective = info->settings.value("objective", "value");
  const std::string where = c.storage + " (study " + c.study + ")";
  // The file's text keeps the parameters' order (the space column's JSON sorts them).
  summary.space = info->settings.contains("space_text")
                      ? study::parse_space(nlohmann::ordered_json::parse(
                                               info->settings["space_text"].get<std::string>()),
                                           where, nullptr)
                      : study::parse_space(info->space, where, nullptr);
  return {summary, storage->trials(info->id)};
}

// Writes text to --out (atomically) or to standard output.
void emit(const ShowCommand& c, const std::string& text) {
  if (c.out.empty() || c.out == "-") {
    std::fwrite(text.data(), 1, text.size(), stdout);
  } else {
    write_file_atomically(c.out, text);
    std::fprintf(stderr, "study: wrote %s\n", c.out.c_str());
  }
}

CLI::App* add_reader(CLI::App* study, const char* name, const char* help,
                     const std::shared_ptr<ShowCommand>& c) {
  CLI::App* sub = study->add_subcommand(name, help);
  sub->add_option("--storage", c->storage, "Study database URL")->capture_default_str();
  sub->add_option("--study", c->study, "The study's name")->required();
  return sub;
}

}  // namespace

void add_study_show_commands(CLI::App* study) {
  auto show = std::make_shared<ShowCommand>();
  add_reader(study, "show", "The best trial, its parameters and value, counts by state", show)
      ->callback([show] {
        const auto [summary, trials] = read_study(*show);
        std::fputs(study::summary_text(summary, trials).c_str(), stdout);
      });
  auto exported = std::make_shared<ShowCommand>();
  CLI::App* export_command = add_reader(
      study, "export", "One record per trial: number, state, parameters, value, run folder",
      exported);
  export_command->add_option("--format", exported->format, "json or csv")
      ->check(CLI::IsMember({"json", "csv"}))
      ->capture_default_str();
  export_command->add_option("--out", exported->out, "File to write (default: standard output)");
  export_command->callback([exported] {
    const auto [summary, trials] = read_study(*exported);
    emit(*exported, exported->format == "csv" ? study::trials_csv(summary, trials)
                                              : study::trials_json(trials).dump(2) + "\n");
  });
  auto report = std::make_shared<ShowCommand>();
  CLI::App* report_command = add_reader(
      study, "report",
      "HTML page: optimisation history, intermediate values, parallel coordinates, importance",
      report);
  report_command->add_option("--out", report->out, "HTML file to write")->required();
  report_command->callback([report] {
    const auto [summary, trials] = read_study(*report);
    emit(*report, study::study_report_html(summary, trials));
  });
}

}  // namespace graphcost::cli
