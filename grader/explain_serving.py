"""Explain kinds for lesson 2b: Ray and vLLM serving (ray status, vLLM startup logs and KV-cache
lines, launch errors, /v1/models, /metrics). Registered on import by grader.explain."""
