#include "xgb/c_api_handles.h"

#include <algorithm>
#include <filesystem>

#include "core/atomic_file.h"
#include "core/error.h"

namespace graphcost::xgb::detail {

namespace {
constexpr const char* kXgbApiWhere = "xgboost";
}

void check_call(int status, const std::string& where, const std::string& what) {
  if (status == 0) return;
  // XGBoost's messages carry a source location and sometimes a stack trace: keep the line
  // that says what went wrong.
  std::string message = XGBGetLastError();
  const size_t stack = message.find("\nStack trace");
  if (stack != std::string::npos) message.resize(stack);
  std::replace(message.begin(), message.end(), '\n', ' ');
  throw Error(where, what, message);
}

Matrix::Matrix(const std::vector<float>& rows, int64_t width) {
  const bst_ulong count = width > 0 ? rows.size() / width : 0;
  check_call(XGDMatrixCreateFromMat(rows.data(), count, width, std::nanf(""), &handle_), kXgbApiWhere,
             "DMatrix");
}

Booster::Booster() { check_call(XGBoosterCreate(nullptr, 0, &handle), kXgbApiWhere, "booster"); }

Booster::Booster(const std::vector<DMatrixHandle>& cache) {
  check_call(XGBoosterCreate(cache.data(), cache.size(), &handle), kXgbApiWhere, "booster");
}

void Booster::set(const std::string& key, const std::string& value) {
  check_call(XGBoosterSetParam(handle, key.c_str(), value.c_str()), kXgbApiWhere, key);
}

void save_booster(BoosterHandle booster, const std::string& path) {
  bst_ulong length = 0;
  const char* bytes = nullptr;
  check_call(XGBoosterSaveModelToBuffer(booster, R"({"format": "json"})", &length, &bytes), path,
             "model");
  write_file_atomically(path, std::string(bytes, length));
}

void load_booster(BoosterHandle booster, const std::string& path) {
  check_data(std::filesystem::is_regular_file(path), path, "", "no such model file");
  const std::string bytes = read_file(path);
  check_call(XGBoosterLoadModelFromBuffer(booster, bytes.data(), bytes.size()), path, "model");
}

}  // namespace graphcost::xgb::detail
