"""The PyTorch (CPU) peer of the peers bench: the same SPLADE step as scripts/peers/splade-step.ts, on arrays the
bench wrote to a folder. Usage: pytorch_step.py FOLDER REPS THREADS; prints one line "PEER_RESULT {json}"."""
import json
import math
import statistics
import sys
import time

import numpy as np
import torch


def load(folder):
    with open(f"{folder}/problem.json") as f:
        meta = json.load(f)
    arrays = {}
    for name, spec in meta["arrays"].items():
        data = np.fromfile(f"{folder}/{spec['file']}", dtype=np.int32 if spec["dtype"] == "int32" else np.float32)
        arrays[name] = torch.from_numpy(data.reshape(spec["shape"]).copy())
    return meta, arrays


def layer_norm(x, scale, shift, eps):
    centred = x - x.mean(-1, keepdim=True)
    variance = (centred * centred).mean(-1, keepdim=True)
    return centred / torch.sqrt(variance + eps) * scale + shift


def gelu(x):
    return 0.5 * x * (1 + torch.erf(x * math.sqrt(0.5)))


def encode(p, x, dims, side, rows, length):
    d, heads = dims["d"], dims["heads"]
    hd = d // heads

    def linear(a, name):
        return a @ p[f"{name}.weight"].T + p[f"{name}.bias"]

    def norm(a, name):
        return layer_norm(a, p[f"{name}.weight"], p[f"{name}.bias"], dims["normEps"])

    ids = x[f"ids{side}"].long()
    embedded = p["embeddings.word.weight"][ids] + p["embeddings.position.weight"][x[f"positions{side}"].long()]
    embedded = embedded + p["embeddings.tokenType.weight"][x[f"tokenTypes{side}"].long()]
    h = norm(embedded.reshape(rows * length, d), "embeddings.norm")
    for i in range(dims["layers"]):
        layer = f"layers.{i}"

        def split(name):
            return linear(h, f"{layer}.{name}").reshape(rows, length, heads, hd).permute(0, 2, 1, 3)

        scores = split("q") @ split("k").transpose(-1, -2) / math.sqrt(hd) + x[f"attentionBias{side}"]
        context = (torch.softmax(scores, -1) @ split("v")).permute(0, 2, 1, 3).reshape(rows * length, d)
        h = norm(h + linear(context, f"{layer}.attnOut"), f"{layer}.attnOutNorm")
        h = norm(h + linear(gelu(linear(h, f"{layer}.mlpIn")), f"{layer}.mlpOut"), f"{layer}.mlpOutNorm")
    return norm(gelu(linear(h, "head.dense")), "head.norm")


def splade_loss(meta, p, x):
    dims, hyper = meta["dims"], meta["hyper"]
    tiny = meta["setting"] == "tiny-encoder"
    weight = p["embeddings.word.weight" if tiny else "weight"]
    bias = p["decoder.bias" if tiny else "bias"]

    def pool(side, rows, length):
        hidden = encode(p, x, dims, side, rows, length) if tiny else x[f"hidden{side}"].reshape(rows * length, dims["d"])
        activations = torch.log1p(torch.relu(hidden @ weight.T + bias)).reshape(rows, length, dims["V"])
        return (activations * x[f"tokenMask{side}"]).max(1).values

    queries = pool("Queries", dims["B"], dims["Tq"])
    documents = pool("Documents", 2 * dims["B"], dims["Td"])
    log_probabilities = torch.log_softmax(queries @ documents.T / hyper["tau"], -1)
    rank = -(log_probabilities * x["positives"]).sum() / dims["B"]
    flops_q = (queries.mean(0) ** 2).sum()
    flops_d = (documents.mean(0) ** 2).sum()
    return rank + hyper["lambdaQueries"] * flops_q + hyper["lambdaDocuments"] * flops_d


def main():
    folder, reps, threads = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    torch.set_num_threads(threads)
    meta, arrays = load(folder)
    hyper = meta["hyper"]
    params = {name: arrays[name].requires_grad_(True) for name in meta["trainable"]}
    inputs = {name: a for name, a in arrays.items() if name not in params}
    m = {name: torch.zeros_like(a) for name, a in params.items()}
    v = {name: torch.zeros_like(a) for name, a in params.items()}

    def step(t):
        for a in params.values():
            a.grad = None
        loss = splade_loss(meta, params, inputs)
        loss.backward()
        lr = hyper["peakLr"] * max(0, hyper["totalSteps"] - t) / hyper["totalSteps"]
        c1, c2 = 1 - hyper["beta1"] ** (t + 1), 1 - hyper["beta2"] ** (t + 1)
        with torch.no_grad():
            for name, p in params.items():
                g = p.grad
                m[name].mul_(hyper["beta1"]).add_(g, alpha=1 - hyper["beta1"])
                v[name].mul_(hyper["beta2"]).addcmul_(g, g, value=1 - hyper["beta2"])
                update = (m[name] / c1) / (torch.sqrt(v[name] / c2) + hyper["eps"])
                p.sub_(lr * (update + hyper["weightDecay"] * p))
        return loss.item()

    step1 = step(0)
    times = []
    for t in range(1, reps + 1):
        started = time.perf_counter()
        step(t)
        times.append((time.perf_counter() - started) * 1000)
    result = {
        "system": "pytorch-cpu",
        "setting": meta["setting"],
        "medianMs": statistics.median(times),
        "gpuBytes": None,
        "step1Loss": step1,
        "adapter": f"PyTorch {torch.__version__} on the CPU, {threads} thread(s)",
        "onCpu": True,
        "timedSteps": reps,
    }
    print("PEER_RESULT " + json.dumps(result))


if __name__ == "__main__":
    main()
