"""Functions for the live Inductor capture tests."""

import torch
import torch.nn.functional as F


def square(x):
    return torch.square(x)


def gelu(x):
    return F.gelu(x, approximate="tanh")


def rms(x, w):
    return x * torch.rsqrt(x.pow(2).mean(dim=-1, keepdim=True) + 1e-6) * w


def broken(x):
    return x @ x[:3]  # shapes that cannot multiply: dynamo reports it
