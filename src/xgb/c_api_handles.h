// Small RAII helpers over XGBoost's C API shared by the ranker and the dense-matrix trees:
// a status check that keeps XGBoost's one useful line, a DMatrix owner and a booster owner.
#pragma once

#include <xgboost/c_api.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace graphcost::xgb::detail {

// Throws Error(where, what, XGBoost's message without its stack trace) when status != 0.
void check_call(int status, const std::string& where, const std::string& what);

// Owns a DMatrix built from dense row-major float rows (NaN = missing) for the life of a scope.
class Matrix {
 public:
  Matrix(const std::vector<float>& rows, int64_t width);
  ~Matrix() { XGDMatrixFree(handle_); }
  Matrix(const Matrix&) = delete;
  Matrix& operator=(const Matrix&) = delete;
  DMatrixHandle get() const { return handle_; }

 private:
  DMatrixHandle handle_ = nullptr;
};

// Owns a booster handle; set() passes one parameter.
struct Booster {
  BoosterHandle handle = nullptr;
  Booster();
  // A booster whose cache holds these matrices (what XGBoosterUpdateOneIter trains on).
  explicit Booster(const std::vector<DMatrixHandle>& cache);
  ~Booster() { XGBoosterFree(handle); }
  Booster(const Booster&) = delete;
  Booster& operator=(const Booster&) = delete;
  void set(const std::string& key, const std::string& value);
};

// Writes a booster to `path` in XGBoost's JSON model format, atomically.
void save_booster(BoosterHandle booster, const std::string& path);
// Reads a booster saved by save_booster into `booster`; a missing or malformed file is an Error
// naming it.
void load_booster(BoosterHandle booster, const std::string& path);

}  // namespace graphcost::xgb::detail
