"""The parts of kernel_tuner.util a strategy meets: errors, the budget, result costs, and
read_cache (which, as Kernel Tuner's, reads plain JSON only: a .json.gz cache fails here too)."""
import json
import sys
import time
from datetime import timedelta


class StopCriterionReached(Exception):
    """Raised when max_fevals or the time limit is reached."""


class ErrorConfig(str):
    def __str__(self):
        return self.__class__.__name__

    def __repr__(self):
        return self.__class__.__name__


class InvalidConfig(ErrorConfig):
    pass


class CompilationFailedConfig(ErrorConfig):
    pass


class RuntimeFailedConfig(ErrorConfig):
    pass


class Options(dict):
    """A dict whose keys read as attributes, as kernel_tuner.interface.Options. As there, setting
    an attribute does not set a key: tune_kernel sets tuning_options.cachefile so, and
    tuning_options.get("cachefile") is None."""

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None


class Timer:
    def __init__(self):
        self.start = time.perf_counter()

    def get(self):
        return time.perf_counter() - self.start

    def reset(self):
        self.start = time.perf_counter()

    def get_and_reset(self):
        t = self.get()
        self.reset()
        return t


class TuningBudget:
    """max_fevals (unique evaluations, counted by the runner) and a time limit in seconds."""

    def __init__(self, time_limit=None, max_fevals=None):
        if time_limit is not None and not isinstance(time_limit, timedelta):
            time_limit = timedelta(seconds=time_limit)
        if max_fevals is not None and max_fevals <= 0:
            raise ValueError("max_fevals must be greater than zero")
        self.start_timer = Timer()
        self.time_spent_extra = timedelta()
        self.time_limit = time_limit
        self.num_fevals = 0
        self.max_fevals = max_fevals

    def add_evaluations(self, n=1):
        self.num_fevals += n

    def add_time(self, seconds=0, milliseconds=0):
        self.time_spent_extra += timedelta(seconds=seconds, milliseconds=milliseconds)

    def get_time_spent(self):
        return timedelta(seconds=self.start_timer.get()) + self.time_spent_extra

    def is_done(self):
        if self.max_fevals is not None and self.num_fevals >= self.max_fevals:
            return True
        return self.time_limit is not None and self.get_time_spent() > self.time_limit

    def raise_exception_if_done(self):
        if self.max_fevals is not None and self.num_fevals >= self.max_fevals:
            raise StopCriterionReached(f"max_fevals ({self.max_fevals}) reached")
        if self.time_limit is not None and self.get_time_spent() > self.time_limit:
            raise StopCriterionReached("time limit exceeded")

    def get_fraction_consumed(self):
        used = 0.0
        if self.max_fevals is not None:
            used = max(used, self.num_fevals / self.max_fevals)
        if self.time_limit is not None:
            used = max(used, self.get_time_spent() / self.time_limit)
        return min(1.0, used)


def get_result_cost(result, objectives, objective_higher_is_better):
    """The cost of a result per objective: the largest float for a failed one."""
    if "__error__" in result:
        return [sys.float_info.max] * len(objectives)
    return [-result[o] if up else result[o] for o, up in zip(objectives, objective_higher_is_better)]


_ERROR_CONFIGS = {"ErrorConfig": ErrorConfig, "InvalidConfig": InvalidConfig,
                  "CompilationFailedConfig": CompilationFailedConfig,
                  "RuntimeFailedConfig": RuntimeFailedConfig}


def read_cache(cachefile, open_cache=True):
    """The cache file as a dict; a record holding an error string as any value gets "__error__".
    Plain JSON text only, as Kernel Tuner 1.4 reads it (a gzip file is a UnicodeDecodeError)."""
    with open(cachefile, "r") as f:
        cache = json.loads(f.read().strip())
    for record in cache["cache"].values():
        error = None
        for value in record.values():
            if isinstance(value, str) and value in _ERROR_CONFIGS:
                error = _ERROR_CONFIGS[value]()
        if error is not None:
            record["__error__"] = error
    return cache
