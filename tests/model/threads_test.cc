#include "model/threads.h"

#include <gtest/gtest.h>
#include <omp.h>
#include <torch/torch.h>

namespace graphcost::model {
namespace {

TEST(Threads, SetsTorchAndOpenMp) {
  EXPECT_EQ(set_threads(2), 2);
  EXPECT_EQ(torch::get_num_threads(), 2);
  EXPECT_EQ(omp_get_max_threads(), 2);
  EXPECT_EQ(set_threads(1), 1);
  EXPECT_EQ(torch::get_num_threads(), 1);
  EXPECT_GE(set_threads(0), 1);
}

}  // namespace
}  // namespace graphcost::model

#include <dlfcn.h>

namespace graphcost::model {
namespace {

TEST(Threads, OpenBlasKeepsOneThreadUnderLibTorchsPool) {
  using GetBlasThreads = int (*)();
  auto get = reinterpret_cast<GetBlasThreads>(dlsym(RTLD_DEFAULT, "openblas_get_num_threads"));
  if (!get) GTEST_SKIP() << "LibTorch is not linked against OpenBLAS here";
  set_threads(2);
  EXPECT_EQ(get(), 1);
}

}  // namespace
}  // namespace graphcost::model
