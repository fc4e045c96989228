"""kernel_tuner.strategies.common: CostFunc, through which a strategy measures."""
import sys

import numpy as np

from kernel_tuner import util

_GENERAL_OPTIONS = ["max_fevals", "time_limit", "x0", "searchspace_construction_options"]


def get_options(strategy_options, options, unsupported=None):
    accepted = list(options) + [o for o in _GENERAL_OPTIONS if o not in (unsupported or [])]
    for key in strategy_options:
        if key not in accepted:
            raise ValueError(f"Unrecognized option {key} in strategy_options (allowed: {accepted})")
    return [strategy_options.get(opt, default) for opt, (_, default) in options.items()]


def snap_to_nearest_config(x, tune_params):
    params = []
    for i, values in enumerate(tune_params.values()):
        values = list(values)
        if x[i] in values:
            params.append(values[values.index(x[i])])
        else:
            params.append(values[int(np.argmin([abs(v - x[i]) for v in values]))])
    return params


class CostFunc:
    """Evaluates configurations through the runner, checking the budget before and after each
    batch (StopCriterionReached), and keeps every result in .results."""

    def __init__(self, searchspace, tuning_options, runner, *, scaling=False, snap=True,
                 return_invalid=False, invalid_value=sys.float_info.max):
        self.searchspace = searchspace
        self.tuning_options = tuning_options
        self.runner = runner
        self.snap = snap
        self.results = []
        self.unique_results = {}
        self.budget_spent_fraction = 0.0

    def _run_configs(self, xs, check_restrictions=True):
        self.tuning_options.budget.raise_exception_if_done()
        final, batch, where = [], [], []
        for index, x in enumerate(xs):
            config = snap_to_nearest_config(x, self.searchspace.tune_params) if self.snap else list(x)
            if check_restrictions and not self.searchspace.is_param_config_valid(tuple(config)):
                result = dict(zip(self.searchspace.tune_params, config))
                result["__error__"] = util.InvalidConfig()
                final.append(result)
            else:
                where.append(index)
                batch.append(config)
                final.append(None)
        for index, config, result in zip(where, batch, self.runner.run(batch, self.tuning_options)):
            if result is None:
                continue
            final[index] = result
            self.unique_results.setdefault(",".join(str(v) for v in config), result)
            self.results.append(result)
        self.tuning_options.budget.raise_exception_if_done()
        self.budget_spent_fraction = self.tuning_options.budget.get_fraction_consumed()
        if not all(final):
            raise util.StopCriterionReached("runner did not evaluate all given configurations")
        return final

    def eval_all(self, xs, check_restrictions=True):
        out = []
        for result in self._run_configs(xs, check_restrictions=check_restrictions):
            cost = util.get_result_cost(result, self.tuning_options.objective,
                                        self.tuning_options.objective_higher_is_better)
            out.append(cost[0] if len(cost) == 1 else cost)
        return out

    def eval(self, x, check_restrictions=True):
        return self.eval_all([x], check_restrictions=check_restrictions)[0]

    def __call__(self, x, check_restrictions=True):
        return self.eval(x, check_restrictions=check_restrictions)

    def get_results(self):
        return self.results
