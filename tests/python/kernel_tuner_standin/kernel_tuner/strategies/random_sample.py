"""kernel_tuner.strategies.random_sample: measure a random sample of the space."""
import numpy as np

from kernel_tuner import util
from kernel_tuner.strategies import common
from kernel_tuner.strategies.common import CostFunc

_options = dict(fraction=("Fraction of the search space to cover value in [0, 1]", 0.1))


def tune(searchspace, runner, tuning_options):
    fraction = common.get_options(tuning_options.strategy_options, _options, unsupported=["x0"])[0]
    num_samples = int(np.ceil(searchspace.size * fraction))
    if "max_fevals" in tuning_options:
        num_samples = min(tuning_options.max_fevals, searchspace.size)
    samples = searchspace.get_random_sample(num_samples)
    cost_func = CostFunc(searchspace, tuning_options, runner)
    try:
        cost_func.eval_all(samples, check_restrictions=False)
    except util.StopCriterionReached as e:
        if tuning_options.verbose:
            print(e)
    return cost_func.results
