"""Exports the peers bench's tiny encoder as ONNX for the inference peer (onnxruntime-web): token ids and attention
mask (int64, fixed batch and length) to SPLADE vectors (batch, V), the same forward as pytorch_step.py.
Usage: export_onnx.py FOLDER BATCH LENGTH OUT.onnx (FOLDER as written by scripts/peers/pytorch-problem.ts)."""
import sys

import torch

from pytorch_step import encode, load


class SpladeEncoder(torch.nn.Module):
    def __init__(self, meta, params, batch, length):
        super().__init__()
        self.meta, self.batch, self.length = meta, batch, length
        self.params = torch.nn.ParameterDict({name.replace(".", "__"): torch.nn.Parameter(a, requires_grad=False) for name, a in params.items()})

    def forward(self, input_ids, attention_mask):
        p = {name.replace("__", "."): a for name, a in self.params.items()}
        rows, length, dims = self.batch, self.length, self.meta["dims"]
        mask = attention_mask.to(torch.float32)
        x = {
            "idsDocuments": input_ids,
            "positionsDocuments": torch.arange(length).unsqueeze(0).expand(rows, length),
            "tokenTypesDocuments": torch.zeros_like(input_ids),
            "attentionBiasDocuments": ((1 - mask) * -1e9).reshape(rows, 1, 1, length),
        }
        hidden = encode(p, x, dims, "Documents", rows, length)
        logits = hidden @ p["embeddings.word.weight"].T + p["decoder.bias"]
        activations = torch.log1p(torch.relu(logits)).reshape(rows, length, dims["V"])
        return (activations * mask.unsqueeze(-1)).max(1).values


def main():
    folder, batch, length, out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    meta, arrays = load(folder)
    params = {name: arrays[name] for name in meta["trainable"]}
    model = SpladeEncoder(meta, params, batch, length).eval()
    ids = torch.ones(batch, length, dtype=torch.int64)
    mask = torch.ones(batch, length, dtype=torch.int64)
    with torch.no_grad():
        torch.onnx.export(model, (ids, mask), out, input_names=["input_ids", "attention_mask"], output_names=["splade"], opset_version=14)


if __name__ == "__main__":
    main()
