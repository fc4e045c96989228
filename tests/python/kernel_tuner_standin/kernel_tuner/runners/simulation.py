"""A runner that replays a cache's measurements, as kernel_tuner.runners.simulation does: each
configuration counts once against max_fevals, the first time it is asked for; with a time limit,
each first visit adds the record's compile, verification and benchmark times to the time spent
(a record without them is an error, as in Kernel Tuner)."""
import copy

from kernel_tuner import util


class SimulationRunner:
    def __init__(self, cache):
        self.cache = cache
        self.visited = set()

    def run(self, parameter_space, tuning_options):
        results = []
        for element in parameter_space:
            if tuning_options.budget.is_done():
                results.append(None)
                continue
            key = ",".join(str(v) for v in element)
            if key not in self.cache:
                raise ValueError(f"kernel configuration {element} not in cache - in simulation "
                                 "mode, all configurations must be present in the cache")
            result = copy.copy(self.cache[key])
            if key not in self.visited:
                self.visited.add(key)
                tuning_options.budget.add_evaluations(1)
            if tuning_options.budget.time_limit:
                try:
                    for timing in ("compile_time", "verification_time", "benchmark_time"):
                        tuning_options.budget.add_time(milliseconds=result[timing])
                except KeyError:
                    raise RuntimeError("Cannot use simulation mode with a time limit on a cache "
                                       "file that does not have full compile, verification, and "
                                       "benchmark timings on all configurations") from None
            results.append(result)
        return results

    def get_environment(self, tuning_options):
        return {"simulation": True, "device_name": tuning_options.device_name}
