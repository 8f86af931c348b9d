"""PyTorch reference of one FuseGLU REINFORCE step (forward, autograd backward, Adam), the same
math as the workbench's engines, for `npm run bench`. Usage: torch_step.py THREADS BATCH DIM HIDDEN
SECONDS TRIALS; prints one JSON line {"decisions_per_s": [one rate per trial of SECONDS]}."""
import json
import sys
import time

import torch
import torch.nn.functional as F

threads, batch, dim, hidden, seconds, trials = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5]), int(sys.argv[6])
torch.set_num_threads(threads)
torch.manual_seed(0)
agents, rounds = 3, 3


def block_params():
    p = {k: torch.randn(dim, hidden) * (2 / (dim + hidden)) ** 0.5 for k in ("Wg", "Vg", "Wu", "Vu")}
    p["Wd"] = torch.randn(hidden, dim) * 0.01
    for ln in ("lnx", "lny"):
        p[ln + ".g"], p[ln + ".b"] = torch.ones(dim), torch.zeros(dim)
    return p


params = {"behavior": torch.randn(agents, dim) * 0.05, "ownEmb": torch.randn(2, dim) * 0.02, "sourceEmb": torch.randn(agents, dim) * 0.02,
          "roundEmb": torch.randn(rounds - 1, dim) * 0.02, "head.w": torch.randn(dim) * 0.01, "head.b": torch.zeros(1)}
for b in ("b1", "b2"):
    params.update({f"{b}.{k}": v for k, v in block_params().items()})
for v in params.values():
    v.requires_grad_(True)
opt = torch.optim.Adam(params.values(), lr=3e-4)


def fuse_glu(b, x, y):
    P = lambda k: params[f"{b}.{k}"]
    xn = F.layer_norm(x, (dim,), P("lnx.g"), P("lnx.b"), 1e-5)
    yn = F.layer_norm(y, (dim,), P("lny.g"), P("lny.b"), 1e-5)
    gate = xn @ P("Wg") + yn @ P("Vg")
    up = xn @ P("Wu") + yn @ P("Vu")
    return x + (F.silu(gate) * up) @ P("Wd")


query, candidate = torch.randn(batch, dim), torch.randn(batch, dim)
recipient, own = torch.randint(0, agents, (batch,)), torch.randint(0, 2, (batch,))
source, rnd = torch.randint(0, agents, (batch,)), torch.randint(0, rounds - 1, (batch,))
sign, advantage = torch.randint(0, 2, (batch,)).float() * 2 - 1, torch.randn(batch)


def step():
    c = candidate + params["ownEmb"][own] + params["sourceEmb"][source] + params["roundEmb"][rnd]
    z = fuse_glu("b2", fuse_glu("b1", query, params["behavior"][recipient]), c)
    logit = z @ params["head.w"] + params["head.b"]
    logp = -F.softplus(-sign * logit)
    p = torch.sigmoid(logit)
    entropy = (p * F.softplus(-logit) + (1 - p) * F.softplus(logit)).mean()
    loss = -(logp * advantage).mean() - 1.0 * entropy
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()


for _ in range(3):
    step()
rates = []
for _ in range(trials):
    start, steps = time.perf_counter(), 0
    while steps < 2 or time.perf_counter() - start < seconds:
        step()
        steps += 1
    rates.append(steps * batch / (time.perf_counter() - start))
print(json.dumps({"decisions_per_s": rates, "torch": torch.__version__}))
