#include "xgb/c_api_handles.h"

#include <algorithm>

#include "core/error.h"

namespace graphcost::xgb::detail {

namespace {
constexpr const char* kWhere = "xgboost";
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
  check_call(XGDMatrixCreateFromMat(rows.data(), count, width, std::nanf(""), &handle_), kWhere,
             "DMatrix");
}

Booster::Booster() { check_call(XGBoosterCreate(nullptr, 0, &handle), kWhere, "booster"); }

Booster::Booster(const std::vector<DMatrixHandle>& cache) {
  check_call(XGBoosterCreate(cache.data(), cache.size(), &handle), kWhere, "booster");
}

void Booster::set(const std::string& key, const std::string& value) {
  check_call(XGBoosterSetParam(handle, key.c_str(), value.c_str()), kWhere, key);
}

}  // namespace graphcost::xgb::detail
