#!/usr/bin/env python3
"""Checks that this project computes what splade-lab computed, before any training: run it on the GPU machine.

expected_step1.json holds the token ids of splade-lab's first training batch (queries, positives, negatives, with
their special tokens, unpadded) and splade-lab's three unweighted loss parts for that batch at step 0, with the head
divided by k (and, to distil, the batch's teacher labels). This script loads the backbone exactly as train.py does,
computes the same parts in fp32 with sentence-transformers' own losses (the recipe's ranking loss, FlopsLoss; an
inference-free recipe's queries through its static table, with their L1 in place of FLOPS when the table trains, or 0)
and compares:

    pass when |torch - splade-lab| <= atol + rtol * |splade-lab| for each part (defaults rtol 1e-3, atol 1e-3)

Both sides run fp32 GPU arithmetic in different orders; relative differences around 1e-5 are usual. A difference
over the tolerance means another backbone, k, tokenizer, pooling or loss than splade-lab's.
It also tokenizes the first batch's triplets with train.py's collator and checks that the ids are the same.

    python check_step1.py [--device cuda] [--rtol 1e-3] [--atol 1e-3]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import torch
from sentence_transformers.sparse_encoder.losses import FlopsLoss

from splade_data import HERE, read_triplets
from train import SETTINGS, QueryL1, TripletCollator, document_tokenizer, load_encoder, ranking_loss, router_task

GROUPS = (("queries", "query"), ("positives", "positive"), ("negatives", "negative"))


def padded(rows: list[list[int]], pad_id: int, device: str, task: str | None = None) -> dict:
    """Right-padded ids and their attention mask (padding is masked, so it does not change any vector), and the
    Router's route of an inference-free project."""
    width = max(len(row) for row in rows)
    ids = torch.full((len(rows), width), pad_id, dtype=torch.long)
    mask = torch.zeros((len(rows), width), dtype=torch.long)
    for i, row in enumerate(rows):
        ids[i, : len(row)] = torch.tensor(row, dtype=torch.long)
        mask[i, : len(row)] = 1
    features = {"input_ids": ids.to(device), "attention_mask": mask.to(device)}
    return dict(features, task=task) if task else features


def check_tokenization(expected: dict, collator: TripletCollator) -> bool:
    """The first batch's triplets, tokenized by train.py's collator, must give splade-lab's ids."""
    path = HERE / SETTINGS["data"]["path"]
    if not path.exists():
        print(f"tokenization: skipped ({path} is not here)")
        return True
    triplets = read_triplets(path, SETTINGS["data"])
    rows = [triplets[i] for i in expected["triplets"]]
    ok = True
    for (group, column), field in zip(GROUPS, range(3)):
        ids = collator.encode(column, [row[field] for row in rows], padding=False)["input_ids"]
        for i, (got, want) in enumerate(zip(ids, expected["batch"][group])):
            if list(got) != list(want):
                print(f"tokenization: FAIL {group}[{i}] (triplet {expected['triplets'][i]}): python {list(got)[:12]}..., splade-lab {want[:12]}...")
                ok = False
    if ok:
        print(f"tokenization: pass ({len(rows)} triplets, ids equal to splade-lab's)")
    return ok


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--rtol", type=float, default=1e-3)
    parser.add_argument("--atol", type=float, default=1e-3)
    parser.add_argument("--expected", default=str(HERE / "expected_step1.json"))
    args = parser.parse_args()

    expected = json.loads(Path(args.expected).read_text(encoding="utf-8"))
    if expected["k"] != SETTINGS["k"]:
        print(f"FAIL: expected_step1.json is for k = {expected['k']}, splade_lab.json says k = {SETTINGS['k']}")
        return 1
    torch.backends.cuda.matmul.allow_tf32 = False  # fp32 means fp32 (no TF32 matmuls)
    torch.backends.cudnn.allow_tf32 = False

    model = load_encoder(SETTINGS).float().to(args.device)
    model.eval()
    recipe = SETTINGS["recipe"]
    tokenizer = document_tokenizer(model)
    collator = TripletCollator(tokenizer, recipe["query_length"], recipe["document_length"])
    tokenization_ok = check_tokenization(expected, collator)

    pad_id = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0
    teacher = torch.tensor(expected["teacher"], dtype=torch.float32, device=args.device) if "teacher" in expected else None
    inference_free = recipe.get("inference_free")
    with torch.no_grad():
        queries, positives, negatives = (
            model(padded(expected["batch"][group], pad_id, args.device, router_task(SETTINGS, column)))["sentence_embedding"]
            for group, column in GROUPS
        )
        rank = ranking_loss(model, SETTINGS).compute_loss_from_embeddings([queries, positives, negatives], teacher)
        flops = FlopsLoss(model)
        if not inference_free:
            query_term = flops.compute_loss_from_embeddings(queries).item()
        else:  # static queries: no FLOPS; a trained table's L1 of the query vectors, else nothing
            query_term = QueryL1().compute_loss_from_embeddings(queries).item() if inference_free["trained"] else 0.0
        got = {
            "rank": rank.item(),
            "flopsQueries": query_term,
            "flopsDocuments": flops.compute_loss_from_embeddings(torch.cat([positives, negatives])).item(),
        }

    ok = tokenization_ok
    print(f"loss parts at step 0, k = {expected['k']}, {len(expected['batch']['queries'])} triplets (rtol {args.rtol}, atol {args.atol}):")
    for part, want in expected["loss"].items():
        have = got[part]
        within = abs(have - want) <= args.atol + args.rtol * abs(want)
        ok = ok and within
        relative = abs(have - want) / abs(want) if want else float("inf")
        print(f"  {part:15s} torch {have:.8g}  splade-lab {want:.8g}  rel. diff {relative:.2e}  {'pass' if within else 'FAIL'}")
    print("PASS: this project computes what splade-lab computed" if ok else "FAIL: see the lines above")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
