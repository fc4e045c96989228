"""A stand-in for Kernel Tuner 1.4.0 (for machines without it) with the interface a search
strategy sees in Kernel Tuner 1.4.0: strategy.tune(searchspace, runner, tuning_options), CostFunc,
Searchspace, TuningBudget and StopCriterionReached, at the same module paths. Its runner replays a
cache file's measurements, as Kernel Tuner's simulation mode does (kernel_tuner.tune_cache).
Written for graphcost's tests and replay example; it is not Kernel Tuner.
"""
from kernel_tuner.interface import tune_cache

__version__ = "1.4.0-standin"
__all__ = ["tune_cache", "__version__"]
