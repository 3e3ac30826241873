"""Secrets never reach evidence, and redaction is stable (load_evidence redacts again before hashing)."""

from __future__ import annotations

import pytest

from grader.evidence import RawOutput, digest, redact

KEY = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----"


@pytest.mark.parametrize("text, gone, kept", [
    ("HF_TOKEN=hf_abcdefghijklmnopqrstuvwx", "abcdefghijklmnop", "HF_TOKEN=[redacted]"),
    ("export HUGGING_FACE_HUB_TOKEN='s3cr3t value'", "s3cr3t", "HUGGING_FACE_HUB_TOKEN=[redacted]"),
    ("AWS_SECRET_ACCESS_KEY: abc123", "abc123", "AWS_SECRET_ACCESS_KEY: [redacted]"),
    ("mysql --password=hunter2 -u x", "hunter2", "--password=[redacted] -u x"),
    ("api_key = \"k-123\"", "k-123", "api_key = [redacted]"),
    ("log: hf_ABCDEFGHIJKLMNOPQRSTUVWXYZ12 seen", "ABCDEFGHIJKLMNOP", "hf_[redacted]"),
    (f"cat id_ed25519\n{KEY}\nok", "b3BlbnNzaC1rZXktdjEAAAAA", "[private key redacted by clusterlab]\nok"),
])
def test_secrets_are_redacted(text, gone, kept):
    out = redact(text)
    assert gone not in out and kept in out


@pytest.mark.parametrize("text", [
    # vLLM's engine-config line: names that merely contain "token" are not secrets
    "Initializing a V1 LLM engine (v0.32.0) with config: model='/m/tiny', tokenizer='/m/tiny', "
    "skip_tokenizer_init=False, tokenizer_mode=auto, max_num_batched_tokens=2048, max_seq_len=512",
    "[sudo] password for nvidia:",
    "TOKENS=12 tokenizer: ok",
])
def test_lookalikes_are_kept(text):
    assert redact(text) == text


def test_redaction_is_idempotent_so_recorded_outputs_reload():
    line = ("HF_TOKEN=hf_abcdefghijklmnopqrstuvwx, token='a b', PASSWORD: x,y tokenizer='/m', "
            f"api_key=[redacted], end\n{KEY}")
    once = redact(line)
    assert redact(once) == once
    assert "api_key=[redacted], end" in once  # an already-redacted value keeps what follows it
    raw = RawOutput(node="spark-a", probe="log:vllm", command="tail", stdout=line, stderr="", exit_status=0,
                    timed_out=False, duration_s=0.1, started_at="2026-11-29T00:00:00Z")
    again = RawOutput(**{**raw.__dict__, "sha256": ""})
    assert again.stdout == raw.stdout and again.sha256 == raw.sha256 == digest(raw.stdout, raw.stderr)
