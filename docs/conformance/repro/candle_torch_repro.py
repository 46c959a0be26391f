"""PyTorch's side of candle_repro.rs: the same calls in PyTorch, printed in
the same order. Checked on torch 2.14.1 (tools/torchenv/run sid python3
docs/conformance/repro/candle_torch_repro.py) and on torch 1.13.1
(/usr/bin/python3), which differ in 4 only (1.13 rounds every step of a
16-bit sum, as candle does)."""
import torch


def show(name, f):
    try:
        print("%s: %s" % (name, f().flatten().tolist()))
    except Exception as e:  # PyTorch's error is the answer
        print("%s: %s: %s" % (name, type(e).__name__, e))


print("torch", torch.__version__)
long = torch.long
show("1", lambda: torch.arange(4.).reshape(2, 2, 1).gather(2, torch.zeros(2, 1, 1, dtype=long)))
show("1b", lambda: torch.arange(8.).reshape(1, 2, 4).gather(0, torch.zeros(1, 2, 2, dtype=long)))
show("2", lambda: torch.tensor([1., 2., 3.]).scatter_add(0, torch.tensor([2**63 - 1]), torch.tensor([10.])))
show("2b", lambda: torch.tensor([1., 2., 3.]).gather(0, torch.tensor([2**63 - 1])))
show("3", lambda: torch.zeros(3).scatter_add(0, torch.tensor([2]), torch.tensor([1., 5.])))
show("4", lambda: torch.tensor([2048.], dtype=torch.float16).scatter_add(
    0, torch.zeros(10, dtype=long), torch.ones(10, dtype=torch.float16)))
show("4b", lambda: torch.tensor([256.], dtype=torch.bfloat16).scatter_add(
    0, torch.zeros(10, dtype=long), torch.ones(10, dtype=torch.bfloat16)))
