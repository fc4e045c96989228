"""kernel_tuner.searchspace.Searchspace, reduced to what strategies use: the valid
configurations (tuples in tune_params order), their count and random samples."""
import numpy as np


class Searchspace:
    def __init__(self, tune_params, configs):
        self.tune_params = tune_params
        self.params_values = tuple(tuple(v) for v in tune_params.values())
        self.list = [tuple(c) for c in configs]
        self.size = len(self.list)
        self.indices = np.arange(self.size)
        self._index = {c: i for i, c in enumerate(self.list)}

    def is_param_config_valid(self, param_config):
        return tuple(param_config) in self._index

    def get_param_config_index(self, param_config):
        return self._index[tuple(param_config)]

    def get_param_configs_at_indices(self, indices):
        return [self.list[i] for i in indices]

    def get_random_sample_indices(self, num_samples):
        if num_samples > self.size:
            raise ValueError(f"The number of samples requested ({num_samples}) is greater than "
                             f"the searchspace size ({self.size})")
        return np.random.choice(self.indices, size=num_samples, replace=False)

    def get_random_sample(self, num_samples):
        num_samples = min(num_samples, self.size)
        return self.get_param_configs_at_indices(self.get_random_sample_indices(num_samples))
