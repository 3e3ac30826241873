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
    # vLLM's own startup line, a command line, JSON, HTTP headers, URLs, sshpass
    ("non-default args: {'model': '/m', 'api_key': ['sk-live-123'], 'port': 8000}", "sk-live",
     "'api_key': [redacted], 'port': 8000"),
    ("vllm serve /m --api-key sk-live-123 --port 8000", "sk-live", "--api-key [redacted] --port 8000"),
    ('{"user": "x", "password": "pw 1"}', "pw 1", '"password": [redacted]}'),
    ("curl -H 'Authorization: Bearer abcdefghijkl' url", "abcdefghijkl", "Authorization: Bearer [redacted]"),
    ("git clone https://bob:s3cret@example.org/r.git", "s3cret", "https://bob:[redacted]@example.org"),
    ("sshpass -p hunter2 ssh spark-b", "hunter2", "sshpass -p [redacted] ssh"),
    ("-----BEGIN PGP PRIVATE KEY BLOCK-----\nlQOYBF\n-----END PGP PRIVATE KEY BLOCK-----", "lQOYBF", "[private key"),
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
    # vllm bench serve's JSON and vLLM's config: token-ish names that are figures, not secrets
    '{"output_throughput": 148.9, "total_token_throughput": 450.1, "max_num_batched_tokens": 2048}',
    "'encoder_cudagraph_token_budgets': [], 'eos_token': '</s>', \"bos_token_id\": 1",
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


def test_redaction_is_linear_on_crafted_input():
    import time

    for crafted in ("TOKEN_" * 40_000, "TOKEN-" * 40_000, "a=" * 100_000, "--api-key " * 30_000):
        t = time.perf_counter()
        redact(crafted)
        assert time.perf_counter() - t < 2.0, crafted[:20]
