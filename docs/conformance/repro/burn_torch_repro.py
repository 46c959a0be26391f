"""PyTorch's side of burn_repro.rs: the same calls in PyTorch, printed in
the same order, which the answers burn_repro.rs quotes as PyTorch 2.14's
come from. Checked on torch 2.14.1 (tools/torchenv/run sid python3
docs/conformance/repro/burn_torch_repro.py)."""
import warnings

import torch

warnings.filterwarnings("ignore", message="index_reduce")  # "in beta"


def show(name, f):
    try:
        print("%s: %s" % (name, f().flatten().tolist()))
    except Exception as e:  # PyTorch's error is the answer
        print("%s: %s: %s" % (name, type(e).__name__, e))


print("torch", torch.__version__)
nan, long = float("nan"), torch.long
show("1", lambda: torch.tensor([1., 1.]).scatter_reduce(0, torch.tensor([0, 0, 1]), torch.tensor([nan, 5., 2.]), "amax"))
show("1b", lambda: torch.tensor([1., 1.]).scatter_reduce(0, torch.tensor([0, 0, 1]), torch.tensor([nan, -5., 2.]), "amin"))
show("1c", lambda: torch.ones(2, 2).index_reduce(0, torch.tensor([0]), torch.tensor([[nan, 5.]]), "amax"))
show("1d", lambda: torch.tensor([nan]).scatter_reduce(0, torch.tensor([0]), torch.tensor([5.]), "amax"))
show("2", lambda: torch.tensor([1., 2., 3.]).scatter(0, torch.tensor([5]), torch.tensor([9.])))
show("2b", lambda: torch.tensor([1., 2., 3.]).gather(0, torch.tensor([-1])))
show("3", lambda: torch.zeros(3).scatter_add(0, torch.tensor([2]), torch.tensor([1., 5.])))
show("3b", lambda: torch.tensor([[1., 2., 3.], [4., 5., 6.]]).gather(1, torch.tensor([[2, 0]])))
show("4", lambda: torch.zeros(2, dtype=torch.bool).scatter(0, torch.tensor([1]), torch.tensor([True])))
