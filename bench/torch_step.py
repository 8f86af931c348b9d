"""PyTorch reference for `npm run bench`, served over stdin/stdout so that every trial of a run is
timed in one process that has been warmed up (PyTorch's first seconds in a process run at about
half its steady speed; a fresh process per trial would measure that).

Usage: torch_step.py THREADS DIM HIDDEN [DEVICE]: DEVICE cpu (the default) or cuda, where every
tensor lives and every step runs (a rate on CUDA waits for the GPU to finish its last call). Prints
{"torch": version, "device": the device's name} first, then answers one JSON request per line with
one JSON line:
  {"run": "step", "batch": N, "seconds": S} -> {"rate": decisions/s of FuseGLU REINFORCE steps
      (forward, autograd backward, Adam), the same math as the workbench's engines, for S seconds}
  {"run": "gemm", "size": N, "seconds": S}  -> {"rate": GFLOP/s of float32 N x N x N matrix products}
Each batch size has its own model, optimizer and random decisions, made on first use."""
import json
import sys
import time

import torch
import torch.nn.functional as F

threads, dim, hidden = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
device = torch.device(sys.argv[4] if len(sys.argv) > 4 else "cpu")
if device.type == "cuda" and not torch.cuda.is_available():
    sys.exit(f"torch {torch.__version__}: CUDA is not available here")
torch.set_default_device(device)
torch.set_num_threads(threads)
torch.manual_seed(0)
agents, rounds = 3, 3


def block_params():
    p = {k: torch.randn(dim, hidden) * (2 / (dim + hidden)) ** 0.5 for k in ("Wg", "Vg", "Wu", "Vu")}
    p["Wd"] = torch.randn(hidden, dim) * 0.01
    for ln in ("lnx", "lny"):
        p[ln + ".g"], p[ln + ".b"] = torch.ones(dim), torch.zeros(dim)
    return p


def reinforce_step(batch):
    """A closure doing one REINFORCE step on its own model and random decisions of `batch` rows."""
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

    return step


def gemm(size):
    a, b = torch.randn(size, size), torch.randn(size, size)
    out = torch.empty(size, size)
    return lambda: torch.mm(a, b, out=out)


def rate(work, seconds):
    """Calls of `work` per second over at least `seconds` (and at least one call)."""
    sync = torch.cuda.synchronize if device.type == "cuda" else lambda: None
    sync()
    start, calls = time.perf_counter(), 0
    while calls < 1 or time.perf_counter() - start < seconds:
        work()
        calls += 1
    sync()
    return calls / (time.perf_counter() - start)


works = {}
name = torch.cuda.get_device_name(device) if device.type == "cuda" else "cpu"
print(json.dumps({"torch": torch.__version__, "device": name}), flush=True)
for line in sys.stdin:
    r = json.loads(line)
    if r["run"] == "step":
        key = ("step", r["batch"])
        works.setdefault(key, reinforce_step(r["batch"]))
        out = rate(works[key], r["seconds"]) * r["batch"]
    else:
        key = ("gemm", r["size"])
        works.setdefault(key, gemm(r["size"]))
        out = rate(works[key], r["seconds"]) * 2 * r["size"] ** 3 / 1e9
    print(json.dumps({"rate": out}), flush=True)
