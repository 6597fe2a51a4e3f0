"""Data-parallel training with `torch.distributed`: DistributedDataParallel over a model
compiled with `torch.compile(backend="rlx")`, two processes on the `gloo` backend.

We build no communication of our own: DDP's hooks all-reduce the gradients that our
compiled backward hands to autograd. Each process trains on its own shard for 20 SGD
steps; the final weights must equal those of the same run with eager models, by the
oracle's f64 rule (1e-9 relative, `tests/oracle.py`).

In torch 2.13, `torch.compile(DDP(model))` compiles nothing with any backend (Dynamo
skips DDP's forward; measured with a backend that only counts its calls), so the model is
compiled inside DDP: `DDP(torch.compile(model, backend="rlx"))`.
"""

from __future__ import annotations

import os
import socket

import numpy as np
import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn

from oracle import assert_step_matches

WORLD = 2
STEPS = 20


def small_cnn() -> nn.Module:
    torch.manual_seed(0)
    return nn.Sequential(
        nn.Conv2d(3, 6, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(6, 4, 3, stride=2), nn.ReLU(), nn.Flatten(), nn.Linear(4, 5),
    ).double()


def shard(rank: int, batch: int = 4):
    """This process's disjoint share of the data."""
    generator = torch.Generator().manual_seed(100 + rank)
    return [(torch.randn(batch, 3, 6, 6, generator=generator, dtype=torch.float64),
             torch.randint(0, 5, (batch,), generator=generator)) for _ in range(STEPS)]


def train(rank: int, port: int, compiled: bool, out: str) -> None:
    os.environ["MASTER_ADDR"], os.environ["MASTER_PORT"] = "127.0.0.1", str(port)
    dist.init_process_group("gloo", rank=rank, world_size=WORLD)
    try:
        torch.set_num_threads(1)
        model = small_cnn()
        inner = torch.compile(model, backend="rlx", options={"strict": True}) if compiled else model
        ddp = nn.parallel.DistributedDataParallel(inner)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
        for x, target in shard(rank):
            optimizer.zero_grad()
            nn.functional.cross_entropy(ddp(x), target).backward()
            optimizer.step()
        if rank == 0:
            torch.save({f"param/{n}": p.detach().clone() for n, p in model.named_parameters()}, out)
    finally:
        dist.destroy_process_group()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run(compiled: bool, out: str) -> dict:
    mp.spawn(train, args=(free_port(), compiled, out), nprocs=WORLD, join=True)
    return {name: value.numpy() for name, value in torch.load(out).items()}


def test_ddp_over_the_compiled_model_trains_like_eager(tmp_path):
    ours = run(True, str(tmp_path / "ours.pt"))
    eager = run(False, str(tmp_path / "eager.pt"))
    assert_step_matches(ours, eager, dtype=np.float64, label="DDP, 2 processes, 20 steps")
