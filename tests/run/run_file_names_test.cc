// One owner of a run's file names: src/run (run/run_folder.h). Anywhere else in src/ and python/
// a string literal that is a run file's name ("model.pt"), or that joins one onto a folder
// ("/model.pt", "%s/model.pt"), is a second owner; this test names each one it finds. Prose in
// help texts and comments ("a run folder (model.pt or model.xgb)") is documentation, not access.
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <string>
#include <vector>

#include "core/atomic_file.h"
#include "run/folder_lock.h"
#include "run/run_folder.h"

namespace graphcost::run {
namespace {

namespace fs = std::filesystem;

// Every file name RunFolder gives out, and the lock's.
std::vector<std::string> run_file_names() {
  const RunFolder folder("");
  std::vector<std::string> names{kFolderLockFile};
  for (const std::string& path :
       {folder.config_path(), folder.model_path(), folder.xgboost_model_path(),
        folder.checkpoint_path(), folder.metrics_path(), folder.valid_predictions_path(),
        folder.report_path(), folder.trial_path(), folder.meta_model_path(),
        folder.other_devices_path()})
    names.push_back(fs::path(path).filename().string());
  return names;
}

// The places in `text` (a source file) where a string literal spells one of `names` as a file:
// "line N: <literal>".
std::vector<std::string> spellings(const std::string& text, const std::vector<std::string>& names) {
  static const std::regex literal(R"("(?:[^"\\\n]|\\.)*")");
  std::vector<std::string> found;
  size_t line_start = 0;
  int line_number = 1;
  while (line_start < text.size()) {
    size_t line_end = text.find('\n', line_start);
    if (line_end == std::string::npos) line_end = text.size();
    std::string line = text.substr(line_start, line_end - line_start);
    const size_t first = line.find_first_not_of(" \t");
    const bool comment = first != std::string::npos && (line.compare(first, 2, "//") == 0 ||
                                                        line.compare(first, 1, "#") == 0 ||
                                                        line.compare(first, 1, "*") == 0);
    if (!comment) {
      for (std::sregex_iterator it(line.begin(), line.end(), literal), end; it != end; ++it) {
        const std::string quoted = it->str();
        for (const std::string& name : names) {
          if (quoted == "\"" + name + "\"" || quoted.find("\"/" + name) == 0 ||
              quoted.find("%s/" + name) != std::string::npos)
            found.push_back("line " + std::to_string(line_number) + ": " + quoted);
        }
      }
    }
    line_start = line_end + 1;
    ++line_number;
  }
  return found;
}

TEST(RunFileNames, TheCheckFindsALiteralFileNameAndAJoinedPath) {
  const std::vector<std::string> names = {"model.pt"};
  EXPECT_EQ(spellings("auto p = dir / \"model.pt\";\n", names),
            std::vector<std::string>{"line 1: \"model.pt\""});
  EXPECT_EQ(spellings("x;\nstd::string p = out + \"/model.pt\";\n", names),
            std::vector<std::string>{"line 2: \"/model.pt\""});
  EXPECT_EQ(spellings("printf(\"model in %s/model.pt\\n\", dir);\n", names),
            std::vector<std::string>{"line 1: \"model in %s/model.pt\\n\""});
  // Prose and comments are not file access.
  EXPECT_TRUE(spellings("help(\"a run folder (model.pt or model.xgb)\");\n", names).empty());
  EXPECT_TRUE(spellings("  // writes \"model.pt\"\n", names).empty());
}

TEST(RunFileNames, AreSpelledOnlyInSrcRun) {
  const fs::path root = GRAPHCOST_SOURCE_DIR;
  const std::vector<std::string> names = run_file_names();
  ASSERT_EQ(names.size(), 11u);
  std::vector<std::string> offenders;
  int files = 0;
  for (const char* top : {"src", "python"}) {
    for (const auto& entry : fs::recursive_directory_iterator(root / top)) {
      const fs::path& path = entry.path();
      const std::string ext = path.extension().string();
      if (!entry.is_regular_file() || (ext != ".cc" && ext != ".h" && ext != ".py")) continue;
      const fs::path relative = fs::relative(path, root);
      if (*relative.begin() == "src" && *std::next(relative.begin()) == "run") continue;
      ++files;
      for (const std::string& where : spellings(read_file(path.string()), names))
        offenders.push_back(relative.string() + ": " + where);
    }
  }
  EXPECT_GT(files, 100);  // the walk found the sources
  std::string list;
  for (const std::string& o : offenders) list += "\n  " + o;
  EXPECT_TRUE(offenders.empty()) << "a run file's name outside src/run (use run::RunFolder):"
                                 << list;
}

}  // namespace
}  // namespace graphcost::run
