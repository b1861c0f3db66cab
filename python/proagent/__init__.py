from ._native import Env, VecEnv, Policy, partner, play, analyze, __version__
