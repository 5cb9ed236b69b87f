#!/usr/bin/env python3
"""SPLADE fine-tuning with sentence-transformers v5, as handed off by splade-lab.

The model is MLMTransformer + SpladePooling(max, relu): max over tokens of log(1 + ReLU(logits)), padding masked.
Before training the MLM head's vocabulary matrix is divided by k (tied heads: the shared matrix, so the tying stays).
The loss is SpladeLoss over the recipe's ranking loss (SparseMultipleNegativesRankingLoss with scale 1/tau; or, to
distil a teacher's scores in the rows' labels, SparseMarginMSELoss or SparseDistillKLDivLoss at temperature tau), query
and document FLOPS weights lambda_q and lambda_d ramped quadratically over the first third of the steps. An
inference-free recipe is a Router: queries are their tokens weighted by a static table (idf.json; frozen, or trained
with its special tokens kept at 0, its own peak learning rate query_table_lr through learning_rate_mapping, and an
optional L1 of weight query_l1 on the query vectors instead of FLOPS), documents the MLM encoder and SPLADE pooling.
Settings come from splade_lab.json.

    torchrun --nproc_per_node <GPUs> train.py            # or: python train.py on one GPU
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

import torch
from datasets import Dataset
from sentence_transformers.sparse_encoder import (
    SparseEncoder,
    SparseEncoderModelCardData,
    SparseEncoderTrainer,
    SparseEncoderTrainingArguments,
)
from sentence_transformers.sparse_encoder.callbacks.splade_callbacks import SpladeRegularizerWeightSchedulerCallback
from sentence_transformers.sparse_encoder.data_collator import SparseEncoderDataCollator
from sentence_transformers.models import Router
from sentence_transformers.sparse_encoder.losses import (
    SparseDistillKLDivLoss,
    SparseMarginMSELoss,
    SparseMultipleNegativesRankingLoss,
    SpladeLoss,
)
from sentence_transformers.sparse_encoder.models import MLMTransformer, SparseStaticEmbedding, SpladePooling

from splade_data import HERE, backbone_ref, load_settings, read_rows

SETTINGS = load_settings()


def divide_head(mlm: torch.nn.Module, k: float) -> bool:
    """W_head <- W_head / k in place, before any training step. Returns whether the head is tied.

    A tied head is the input word-embedding matrix itself (one Parameter), so dividing it divides both and the
    tying survives. The decoder bias is left as it is, as the paper does.
    """
    decoder = mlm.get_output_embeddings()
    embeddings = mlm.get_input_embeddings()
    tied = decoder.weight is embeddings.weight or decoder.weight.data_ptr() == embeddings.weight.data_ptr()
    expected = bool(getattr(mlm.config, "tie_word_embeddings", True))
    if tied != expected:
        raise RuntimeError(
            f"{type(mlm).__name__}: the decoder is {'tied' if tied else 'not tied'} to the word embeddings but "
            f"config.tie_word_embeddings is {expected}; splade-lab divided the head as the config says"
        )
    with torch.no_grad():
        decoder.weight.div_(k)
    return tied


def _dropout_overrides(ref: str, hub_args: dict, rate: float) -> dict:
    """config.json overrides that set every dropout probability of the backbone to rate."""
    from transformers import AutoConfig

    config = AutoConfig.from_pretrained(ref, **hub_args)
    return {
        key: float(rate)
        for key, value in config.to_dict().items()
        if "dropout" in key and isinstance(value, (int, float)) and not isinstance(value, bool)
    }


def load_encoder(settings: dict = SETTINGS, no_dropout: bool = False) -> SparseEncoder:
    """The backbone as a SparseEncoder, its head divided by k: what train.py trains and check_step1.py checks."""
    recipe = settings["recipe"]
    revision = settings["backbone"].get("revision")
    hub_args = {"revision": revision} if revision else {}
    ref = backbone_ref(settings)
    # the run's dropout: "config" keeps the backbone's probabilities, a number replaces every one of them
    rate = 0.0 if no_dropout else recipe.get("dropout", "config")
    overrides = {} if rate == "config" else _dropout_overrides(ref, hub_args, rate)
    config_args = dict(hub_args, **overrides)
    mlm = MLMTransformer(
        ref,
        max_seq_length=max(recipe["query_length"], recipe["document_length"]),
        model_args=dict(hub_args),
        tokenizer_args=dict(hub_args),
        config_args=config_args,
    )
    divide_head(mlm.auto_model, settings["k"])
    pooling = SpladePooling(
        pooling_strategy="max", activation_function="relu", word_embedding_dimension=mlm.get_sentence_embedding_dimension()
    )
    card = SparseEncoderModelCardData(
        model_name=f"SPLADE {settings['backbone']['name']}, head divided by k = {settings['k']} (splade-lab hand-off)"
    )
    inference_free = recipe.get("inference_free")
    if not inference_free:
        return SparseEncoder(modules=[mlm, pooling], similarity_fn_name="dot", model_card_data=card)
    static = SparseStaticEmbedding(
        tokenizer=mlm.tokenizer, weight=idf_weights(mlm, HERE / inference_free["idf"]), frozen=not inference_free["trained"]
    )
    if inference_free["trained"]:
        keep_special_tokens_at_zero(static, mlm.tokenizer)
    router = Router.for_query_document(query_modules=[static], document_modules=[mlm, pooling])
    return SparseEncoder(modules=[router], similarity_fn_name="dot", model_card_data=card)


def idf_weights(mlm: MLMTransformer, path: Path) -> torch.Tensor:
    """idf.json (token -> weight, OpenSearch's layout) as one weight per row of the MLM head (tokens absent: 0)."""
    table = json.loads(Path(path).read_text(encoding="utf-8"))
    weights = torch.zeros(mlm.auto_model.config.vocab_size, dtype=torch.float32)
    ids = mlm.tokenizer.convert_tokens_to_ids(list(table))
    for token_id, weight in zip(ids, table.values()):
        weights[token_id] = weight
    return weights


def keep_special_tokens_at_zero(static: SparseStaticEmbedding, tokenizer) -> None:
    """splade-lab never trains the special tokens' query weights (0 in the table): their gradient is dropped here too."""
    special = torch.tensor(sorted(set(tokenizer.all_special_ids)), dtype=torch.long)
    static.weight.register_hook(lambda grad: grad.index_fill(0, special.to(grad.device), 0.0))


def table_learning_rate(model: SparseEncoder, recipe: dict) -> dict[str, float]:
    r"""A trained query table's own peak learning rate (splade-lab's --query-table-lr) as learning_rate_mapping: the
    run's schedule scaled to it, as splade-lab does. The pattern is the table's parameter name in this model:
    sentence-transformers' docs write r"SparseStaticEmbedding\.weight", which names it only in v5.0's Router; later
    Routers name it <i>.sub_modules.query.0.weight."""
    inference_free = recipe.get("inference_free")
    if not inference_free or not inference_free["trained"]:
        return {}
    static = next(module for module in model.modules() if isinstance(module, SparseStaticEmbedding))
    name = next(name for name, parameter in model.named_parameters() if parameter is static.weight)
    return {re.escape(name) + "$": inference_free["query_table_lr"]}


def router_task(settings: dict, column: str) -> str | None:
    """The Router's route of a column in an inference-free project (queries: the static table), else None."""
    if not settings["recipe"].get("inference_free"):
        return None
    return "query" if column == "query" else "document"


class TripletCollator(SparseEncoderDataCollator):
    """Tokenizes queries to query_length and documents to document_length tokens, as splade-lab does.

    (sentence-transformers' own collator uses one max_seq_length for every column and strips the texts; splade-lab
    truncates queries and documents to their own lengths and keeps the texts as they are.)
    """

    def __init__(self, tokenizer, query_length: int, document_length: int, settings: dict = SETTINGS) -> None:
        super().__init__(tokenize_fn=None)
        self.tokenizer = tokenizer
        self.lengths = {"query": query_length, "positive": document_length, "negative": document_length}
        self.settings = settings

    def encode(self, column: str, texts: list[str], padding: bool = True) -> dict:
        return self.tokenizer(
            texts,
            truncation=True,
            max_length=self.lengths[column],
            padding=padding,
            return_tensors="pt" if padding else None,
        )

    def __call__(self, features: list[dict]) -> dict[str, torch.Tensor]:
        batch = {}
        if "label" in features[0]:  # distillation: the teacher's labels of each row
            batch["label"] = torch.tensor([row["label"] for row in features], dtype=torch.float32)
        for column in ("query", "positive", "negative"):  # queries first: SpladeLoss regularises embeddings[0] as queries
            for key, value in self.encode(column, [row[column] for row in features]).items():
                batch[f"{column}_{key}"] = value
            task = router_task(self.settings, column)
            if task:  # the Router reads the route of each input from its features
                batch[f"{column}_task"] = task
        return batch


class QueryL1(torch.nn.Module):
    """The mean L1 norm of the batch's query vectors: a trained static query table's regulariser (splade-lab's)."""

    def compute_loss_from_embeddings(self, embeddings: torch.Tensor) -> torch.Tensor:
        return embeddings.abs().sum(dim=-1).mean()


def ranking_loss(model: SparseEncoder, settings: dict = SETTINGS) -> torch.nn.Module:
    """The recipe's ranking loss: in-batch contrastive at 1/tau, or distillation of the rows' teacher labels."""
    recipe = settings["recipe"]
    loss = recipe.get("loss", "contrastive")
    if loss == "marginmse":
        return SparseMarginMSELoss(model)
    if loss == "kl":
        return SparseDistillKLDivLoss(model, temperature=recipe["tau"])
    return SparseMultipleNegativesRankingLoss(model, scale=1.0 / recipe["tau"])


def query_regularizer(settings: dict = SETTINGS) -> tuple[float | None, torch.nn.Module | None]:
    """The query term's weight and module: FLOPS at lambda_q; an inference-free recipe's L1 (trained table) or none."""
    recipe = settings["recipe"]
    inference_free = recipe.get("inference_free")
    if not inference_free:
        return recipe["lambda_q"], None
    if inference_free["trained"] and inference_free["query_l1"] > 0:
        return inference_free["query_l1"], QueryL1()
    return None, None


def build_loss(model: SparseEncoder, settings: dict = SETTINGS) -> SpladeLoss:
    recipe = settings["recipe"]
    weight, regularizer = query_regularizer(settings)
    return SpladeLoss(
        model,
        loss=ranking_loss(model, settings),
        query_regularizer_weight=weight,
        query_regularizer=regularizer,
        document_regularizer_weight=recipe["lambda_d"],
    )


def document_tokenizer(model: SparseEncoder):
    """The MLM encoder's tokenizer (an inference-free Router's document route), which tokenizes every column."""
    first = model[0]
    if isinstance(first, Router):
        return first.sub_modules["document"][0].tokenizer
    return model.tokenizer


def parse_args() -> argparse.Namespace:
    recipe = SETTINGS["recipe"]
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--triplets", default=str(HERE / SETTINGS["data"]["path"]), help="the triplet TSV")
    parser.add_argument("--allow-other-data", action="store_true", help="train on a TSV other than the handed-off one")
    parser.add_argument("--out", default=str(HERE / "output"), help="checkpoints in <out>/checkpoints, the model in <out>/final")
    parser.add_argument("--fp32", action="store_true", help="train in fp32 instead of bf16 mixed precision")
    parser.add_argument("--no-dropout", action="store_true", help="turn the backbone's dropout off (whatever the splade-lab run used)")
    parser.add_argument(
        "--max-grad-norm", type=float, default=SETTINGS["recipe"]["max_grad_norm"],
        help="clip gradients to this global norm (default: splade-lab's run); 0 turns clipping off",
    )
    parser.add_argument("--logging-steps", type=int, default=50)
    parser.add_argument("--save-steps", type=int, default=1000)
    parser.add_argument("--resume", action="store_true", help="continue from the newest checkpoint in <out>/checkpoints")
    parser.add_argument("--steps", type=int, default=recipe.get("steps"), help="optimiser steps (instead of epochs)")
    parser.add_argument("--epochs", type=float, default=recipe.get("epochs") or 1.0)
    return parser.parse_args()


def main() -> None:
    args = parse_args()
    recipe = SETTINGS["recipe"]
    triplets, labels = read_rows(args.triplets, None if args.allow_other_data else SETTINGS["data"])
    columns = {"query": [t[0] for t in triplets], "positive": [t[1] for t in triplets], "negative": [t[2] for t in triplets]}
    if recipe.get("loss", "contrastive") != "contrastive":
        if labels is None:
            raise SystemExit(f"{args.triplets}: a {recipe['loss']} run needs the teacher labels its header names (label)")
        columns["label"] = labels
    dataset = Dataset.from_dict(columns)
    model = load_encoder(SETTINGS, no_dropout=args.no_dropout)
    loss = build_loss(model)
    # lambda(t) = lambda * (t / int(steps / 3))^2 until a third of the steps, then lambda; t = global step (from 0).
    ramp = SpladeRegularizerWeightSchedulerCallback(loss, scheduler_type="quadratic", warmup_ratio=1 / 3)
    optimizer = recipe["optimizer"]
    out = Path(args.out)
    training_args = SparseEncoderTrainingArguments(
        output_dir=str(out / "checkpoints"),
        per_device_train_batch_size=recipe["batch_per_gpu"],
        max_steps=args.steps if args.steps else -1,
        num_train_epochs=args.epochs,
        learning_rate=recipe["peak_lr"],
        learning_rate_mapping=table_learning_rate(model, recipe),
        lr_scheduler_type="linear",
        warmup_ratio=recipe["warmup_ratio"],
        optim="adamw_torch",
        adam_beta1=optimizer["beta1"],
        adam_beta2=optimizer["beta2"],
        adam_epsilon=optimizer["eps"],
        weight_decay=optimizer["weight_decay"],
        max_grad_norm=args.max_grad_norm,
        bf16=not args.fp32,
        seed=SETTINGS["seed"],
        data_seed=SETTINGS["seed"],
        dataloader_drop_last=True,
        logging_steps=args.logging_steps,
        save_strategy="steps",
        save_steps=args.save_steps,
        save_total_limit=2,
        report_to="none",
    )
    collator = TripletCollator(document_tokenizer(model), recipe["query_length"], recipe["document_length"])
    trainer = SparseEncoderTrainer(
        model=model,
        args=training_args,
        train_dataset=dataset,
        loss=loss,
        data_collator=collator,
        callbacks=[ramp],
    )
    trainer.train(resume_from_checkpoint=True if args.resume else None)
    trainer.save_model(str(out / "final"))


if __name__ == "__main__":
    main()
