"""``docker run -d`` read and judged (grader.parsers.docker_run, grader.judges.container.summarise_docker_run): its
output is the container's ID, so the command that started it is what is judged. The first sample is the shape
vllm-project/vllm#19543 posted (the field corpus's l005): a worker container told to join 127.0.0.1; the pull lines
are docker's own (``Unable to find image ... locally`` ... ``Status: Downloaded newer image for ...``)."""

from __future__ import annotations

import pytest

from grader.explain import explain
from grader.parsers import ParseError
from grader.parsers.docker_run import parse_docker_run
from tests.conftest import levels, messages

CID = "cb2dc97286d9e65858472bd6ce020f2694718b012dd6b2d89782fbf1e41eee05"
WORKER = (f"$ docker run -d --network host --name workernode -e VLLM_HOST_IP=127.0.0.1 vllm/vllm-openai:v0.7.3 "
          f"-c \"ray start --block --address=127.0.0.1:6379\"\n{CID}\n")
PULLED = ("Unable to find image 'vllm/vllm-openai:latest' locally\nlatest: Pulling from vllm/vllm-openai\n"
          "Digest: sha256:" + "0" * 64 + "\nStatus: Downloaded newer image for vllm/vllm-openai:latest\n" + CID + "\n")


def test_a_worker_container_told_to_join_loopback_warns_about_each_address():
    (s,) = explain(WORKER)
    assert s.kind == "docker-run" and levels(s).count("warn") == 2
    said = messages(s)
    assert "cb2dc97286d9" in said and "docker logs workernode" in said
    assert "`ray start --address=127.0.0.1:6379` joins this machine itself" in said
    assert "`-e VLLM_HOST_IP=127.0.0.1` names the loopback address" in said
    assert "--network host" not in said  # it has the host's network


def test_a_ray_node_in_dockers_bridge_network_warns_and_a_plain_container_does_not():
    bridged = WORKER.replace("--network host ", "").replace("127.0.0.1", "192.168.100.10")
    (s,) = explain(bridged)
    assert levels(s) == ["info", "warn"] and "without `--network host`" in messages(s)
    (s,) = explain(f"$ docker run -d --name web nginx\n{CID}\n")
    assert levels(s) == ["info"]


def test_an_image_pull_is_read_and_a_token_in_the_command_is_never_said_back():
    (s,) = explain("$ docker run -d -e HF_TOKEN=hf_abcdefghijklmnopqrstuvwx vllm/vllm-openai:latest\n" + PULLED)
    assert s.kind == "docker-run" and "after pulling its image" in messages(s)
    assert "hf_abcdefghijklmnopqrstuvwx" not in (s.command or "") + messages(s)
    assert parse_docker_run(PULLED).container_id == CID
    assert parse_docker_run("docker: Error response from daemon: conflict\n").error.startswith("docker: Error")
    with pytest.raises(ParseError, match="container ID"):
        parse_docker_run("hello world\n")


def test_docker_run_in_the_foreground_is_read_as_what_the_container_prints():
    """Without -d the container's own output follows the command: its kind, not docker-run's."""
    (s,) = explain("$ docker run --network host img ray start --head\nLocal node IP: 192.168.100.10\n\n"
                   "--------------------\nRay runtime started.\n--------------------\n")
    assert s.kind == "ray-start"
