# Seconds each long test took (scripts/ctest_costs.py wrote this from a run's times): ctest
# starts them first in a build directory that has no times of its own, so that `ctest -j N`
# does not end on one long test. Every test folder includes it (graphcost_test_costs() in
# tests/CMakeLists.txt); names of tests that no longer exist are ignored.
set_tests_properties(python_pytest PROPERTIES COST 42)
set_tests_properties(ServeTest PROPERTIES COST 13)
set_tests_properties(DistributedCli.EveryBadLaunchIsOneErrorLineWithinTheTimeout PROPERTIES COST 11)
set_tests_properties(Torchrun.TheReadmeCommandTrainsOnTwoRanks PROPERTIES COST 9)
set_tests_properties(DistributedCli.TwoRanksTrainAsOneProcessOnTheSameGlobalBatch PROPERTIES COST 7)
set_tests_properties(DistributedCli.EvalAndPredictOnTwoRanksAreByteIdentical PROPERTIES COST 6)
set_tests_properties(ScoringThreadsCli.PredictAndEvalDoNotDependOnTheThreadCount PROPERTIES COST 6)
set_tests_properties(TuneCli.BadOptionsGiveOneErrorLine PROPERTIES COST 5)
set_tests_properties(graphcost_torch_tests PROPERTIES COST 5)
set_tests_properties(StudyCli.AKilledWorkersTrialIsFailedAndItsGridPointRetried PROPERTIES COST 4)
set_tests_properties(EnsembleCli.MixedEnsembleAndMcDropout PROPERTIES COST 4)
set_tests_properties(DistributedCli.AKilledRankEndsTheOtherAndTheRunResumes PROPERTIES COST 4)
set_tests_properties(EnsembleCli.EnsembleOfOneRunIsTheRun PROPERTIES COST 4)
set_tests_properties(ZygoteTest.RunsCommandsAsAFreshProcessDoes PROPERTIES COST 4)
set_tests_properties(ModelOptionsCli.AttentionScoresWithAnchorsDeterministically PROPERTIES COST 3)
set_tests_properties(ModelOptionsCli.Bf16PrecisionTrainsAndScores PROPERTIES COST 3)
set_tests_properties(TrainHardeningCli.AKilledRunResumesFromACheckpointByTimeAndItsTemporariesGo PROPERTIES COST 3)
